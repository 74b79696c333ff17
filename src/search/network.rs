//! The evaluation network: its shape, its quantised weights, its file format.
//!
//! One network serves one variant (rules and board size). Inputs are one-hot:
//! each piece kind (attacker, defender, king) on each square, `3 × size²` of
//! them; a position has a few dozen set. They feed one hidden layer of
//! [`HIDDEN`] clipped-ReLU units, kept as an `i16` accumulator that a move
//! updates by adding and removing the rows of the pieces that changed
//! (`accumulator.rs`). The side to move picks one of two output rows (an
//! output bucket per side), so the accumulator does not change when the move
//! passes. The output, times the network's `scale`, is the score in
//! hundredths of an attacker from the side to move's view.
//!
//! Quantisation: the float network's input weights and biases are stored
//! times [`QA`] (so an activation of 1.0 is `QA`), output weights times
//! [`QB`], the output bias times `QA × QB`. Float weights are trained within
//! ±[`WEIGHT_CLIP`], so the stored ones stay within a bound the loader checks:
//! the output sum can never overflow an `i32`. The accumulator adds with
//! wrapping `i16` arithmetic, which no realistic position reaches, and which
//! makes an incremental update equal a full recomputation even for a
//! nonsense position.
//!
//! # The file format (all integers little-endian)
//!
//! | bytes | field |
//! |---|---|
//! | 8 | [`MAGIC`] |
//! | 2 | format version, `u16` ([`VERSION`]) |
//! | 1, 1 | rules (0 Copenhagen, 1 Fetlar, 2 Tablut), board size |
//! | 4, 4 | inputs, hidden units (`u32`: the architecture; must be `3 × size²` and [`HIDDEN`]) |
//! | 2, 2 | [`QA`], [`QB`] (`u16`) |
//! | 4 | scale: score per unit of output (`u32`) |
//! | 4 | generation (`u32`) |
//! | 4 | validation loss (`f32`) |
//! | 4 + n | provenance: its length (`u32`, at most [`MAX_PROVENANCE`]) and UTF-8 text |
//! | 2 × inputs × hidden | input weights, `i16`, one row of `hidden` per input |
//! | 2 × hidden | hidden biases, `i16` |
//! | 2 × 2 × hidden | output weights, `i16`: the attackers' row, then the defenders' |
//! | 4 × 2 | output biases, `i32`, same order |
//! | 8 | FNV-1a 64 of every byte before it |

use std::fmt;
use std::sync::{Arc, OnceLock};

use super::datagen::Piece;
use crate::rules::{BoardSize, Rules, Side, Square, Variant};

/// Hidden units.
pub const HIDDEN: usize = 256;
/// Quantisation of the input layer: an activation of 1.0.
pub const QA: i32 = 255;
/// Quantisation of the output weights: fine, since 256 rounding errors add up in the output (at 64
/// they cost several hundredths of an attacker).
pub const QB: i32 = 1024;
/// Float weights are kept within ±this while training.
pub const WEIGHT_CLIP: f32 = 1.98;
/// The file's first bytes.
pub const MAGIC: [u8; 8] = *b"TAFLNNUE";
pub const VERSION: u16 = 1;
/// Longest provenance text, bytes.
pub const MAX_PROVENANCE: usize = 64 * 1024;

/// Stored weights beyond these are refused (a float weight within the clip never gets there).
const INPUT_WEIGHT_LIMIT: i16 = 2 * QA as i16;
const OUTPUT_WEIGHT_LIMIT: i16 = 2 * QB as i16;
const OUTPUT_BIAS_LIMIT: i32 = 1 << 24;

/// Why a network file was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NetworkError {
    #[error("not a tafl network file (bad magic bytes)")]
    BadMagic,
    #[error("network format version {0}, this build reads version {VERSION}")]
    UnsupportedVersion(u16),
    #[error("the file ends early: {0} bytes")]
    Truncated(usize),
    #[error("{0} bytes after the network's end")]
    TrailingBytes(usize),
    #[error("unknown rules code {rules} or board size {size}")]
    BadVariant { rules: u8, size: u8 },
    #[error(
        "architecture {inputs} inputs x {hidden} hidden, qa {qa}, qb {qb}: this build wants {expected_inputs} x {HIDDEN}, qa {QA}, qb {QB}"
    )]
    Architecture {
        inputs: u32,
        hidden: u32,
        qa: u16,
        qb: u16,
        expected_inputs: u32,
    },
    #[error("a weight lies outside the range training produces")]
    WeightOutOfRange,
    #[error("the provenance text is not UTF-8 or longer than {MAX_PROVENANCE} bytes")]
    BadProvenance,
    #[error("checksum mismatch: the file is corrupt")]
    Checksum,
    #[error("a scale of 0")]
    ZeroScale,
}

/// Where a network came from, stored in its header.
#[derive(Clone, Debug, PartialEq)]
pub struct Provenance {
    pub generation: u32,
    pub validation_loss: f32,
    /// Free text: the data, the trainer's settings.
    pub text: String,
}

/// A quantised network, ready for inference.
#[derive(Clone, PartialEq)]
pub struct Network {
    variant: Variant,
    /// Score per unit of output.
    scale: i32,
    pub provenance: Provenance,
    /// `inputs × HIDDEN`, one row per input.
    input_weights: Vec<i16>,
    hidden_bias: [i16; HIDDEN],
    /// By side to move: attackers, defenders.
    output_weights: [[i16; HIDDEN]; 2],
    output_bias: [i32; 2],
}

impl fmt::Debug for Network {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Network")
            .field("variant", &self.variant)
            .field("scale", &self.scale)
            .field("provenance", &self.provenance)
            .finish_non_exhaustive()
    }
}

/// Inputs of a variant's network: each piece kind on each square.
pub fn input_count(variant: Variant) -> usize {
    let size = variant.size.get() as usize;
    3 * size * size
}

/// The input a piece on a square sets.
#[inline]
pub fn input_index(piece: Piece, square: Square, size: usize) -> usize {
    piece.index() * size * size + square.rank() as usize * size + square.file() as usize
}

/// The output row of the side to move.
#[inline]
pub(crate) fn side_index(side: Side) -> usize {
    match side {
        Side::Attackers => 0,
        Side::Defenders => 1,
    }
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Reads fields from the front of a byte slice, refusing to run past its end.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], NetworkError> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&end| end <= self.bytes.len())
            .ok_or(NetworkError::Truncated(self.bytes.len()))?;
        let taken = &self.bytes[self.at..end];
        self.at = end;
        Ok(taken)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], NetworkError> {
        Ok(self.take(N)?.try_into().expect("N bytes"))
    }

    fn u8(&mut self) -> Result<u8, NetworkError> {
        Ok(self.array::<1>()?[0])
    }

    fn u16(&mut self) -> Result<u16, NetworkError> {
        Ok(u16::from_le_bytes(self.array()?))
    }

    fn u32(&mut self) -> Result<u32, NetworkError> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    fn i16s(&mut self, out: &mut [i16], limit: i16) -> Result<(), NetworkError> {
        let bytes = self.take(2 * out.len())?;
        for (value, pair) in out.iter_mut().zip(bytes.chunks_exact(2)) {
            *value = i16::from_le_bytes([pair[0], pair[1]]);
            if value.unsigned_abs() > limit.unsigned_abs() {
                return Err(NetworkError::WeightOutOfRange);
            }
        }
        Ok(())
    }
}

/// The network the engine plays Copenhagen 11×11 with unless told
/// otherwise: the latest kept generation (docs/ai.md, "Generations"), built
/// into the binary.
const BUILT_IN: &[u8] = include_bytes!("nets/copenhagen-11x11.nnue");

impl Network {
    /// The network built into the binary, read once.
    ///
    /// ```
    /// use tafl::rules::{Rules, Variant};
    /// let network = tafl::search::Network::built_in();
    /// assert_eq!(network.variant(), Variant::standard(Rules::Copenhagen));
    /// ```
    #[must_use]
    pub fn built_in() -> Arc<Network> {
        static NETWORK: OnceLock<Arc<Network>> = OnceLock::new();
        NETWORK
            .get_or_init(|| {
                Arc::new(Network::from_bytes(BUILT_IN).expect("the built-in network is valid"))
            })
            .clone()
    }

    /// A network from its parts: float weights (already clipped) are quantised here.
    ///
    /// `input_weights` holds `input_count(variant) × HIDDEN` values, one row per input.
    pub(crate) fn quantise(
        variant: Variant,
        scale: i32,
        provenance: Provenance,
        input_weights: &[f32],
        hidden_bias: &[f32; HIDDEN],
        output_weights: &[[f32; HIDDEN]; 2],
        output_bias: &[f32; 2],
    ) -> Network {
        let quantise = |value: f32, factor: i32, limit: i16| {
            ((value * factor as f32).round() as i32).clamp(-i32::from(limit), i32::from(limit))
                as i16
        };
        Network {
            variant,
            scale: scale.max(1),
            provenance,
            input_weights: input_weights
                .iter()
                .map(|&w| quantise(w, QA, INPUT_WEIGHT_LIMIT))
                .collect(),
            hidden_bias: hidden_bias.map(|b| quantise(b, QA, INPUT_WEIGHT_LIMIT)),
            output_weights: output_weights
                .map(|row| row.map(|w| quantise(w, QB, OUTPUT_WEIGHT_LIMIT))),
            output_bias: output_bias.map(|b| {
                ((b * (QA * QB) as f32).round() as i32).clamp(-OUTPUT_BIAS_LIMIT, OUTPUT_BIAS_LIMIT)
            }),
        }
    }

    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// Score (hundredths of an attacker) per unit of the network's output.
    pub fn scale(&self) -> i32 {
        self.scale
    }

    /// The row of input weights an input adds to the accumulator.
    #[inline]
    pub(crate) fn input_row(&self, input: usize) -> &[i16; HIDDEN] {
        self.input_weights[input * HIDDEN..(input + 1) * HIDDEN]
            .try_into()
            .expect("a row of HIDDEN weights")
    }

    pub(crate) fn hidden_bias(&self) -> &[i16; HIDDEN] {
        &self.hidden_bias
    }

    /// The score of an accumulator with `side` to move, from that side's view.
    #[inline]
    pub(crate) fn output(&self, accumulator: &[i16; HIDDEN], side: Side) -> i32 {
        let row = &self.output_weights[side_index(side)];
        // Clipped in i16 and widened per product: the compiler's multiply-add of i16 pairs.
        let sum: i32 = accumulator
            .iter()
            .zip(row)
            .map(|(&value, &weight)| i32::from(value.clamp(0, QA as i16)) * i32::from(weight))
            .sum();
        let output = i64::from(sum + self.output_bias[side_index(side)]);
        (output * i64::from(self.scale) / i64::from(QA * QB)) as i32
    }

    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(64 + 2 * self.input_weights.len());
        bytes.extend_from_slice(&MAGIC);
        bytes.extend_from_slice(&VERSION.to_le_bytes());
        bytes.push(self.variant.rules.code());
        bytes.push(self.variant.size.get());
        bytes.extend_from_slice(&(input_count(self.variant) as u32).to_le_bytes());
        bytes.extend_from_slice(&(HIDDEN as u32).to_le_bytes());
        bytes.extend_from_slice(&(QA as u16).to_le_bytes());
        bytes.extend_from_slice(&(QB as u16).to_le_bytes());
        bytes.extend_from_slice(&(self.scale as u32).to_le_bytes());
        bytes.extend_from_slice(&self.provenance.generation.to_le_bytes());
        bytes.extend_from_slice(&self.provenance.validation_loss.to_le_bytes());
        let text =
            &self.provenance.text.as_bytes()[..self.provenance.text.len().min(MAX_PROVENANCE)];
        bytes.extend_from_slice(&(text.len() as u32).to_le_bytes());
        bytes.extend_from_slice(text);
        let weights = self
            .input_weights
            .iter()
            .chain(&self.hidden_bias)
            .chain(self.output_weights.iter().flatten());
        for weight in weights {
            bytes.extend_from_slice(&weight.to_le_bytes());
        }
        for bias in self.output_bias {
            bytes.extend_from_slice(&bias.to_le_bytes());
        }
        let checksum = fnv1a(&bytes);
        bytes.extend_from_slice(&checksum.to_le_bytes());
        bytes
    }

    /// Reads a network file's bytes.
    ///
    /// # Errors
    /// [`NetworkError`] for anything but a whole, intact network this build can run.
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NetworkError> {
        let mut reader = Reader { bytes, at: 0 };
        if reader
            .take(MAGIC.len())
            .map_err(|_| NetworkError::BadMagic)?
            != MAGIC
        {
            return Err(NetworkError::BadMagic);
        }
        let version = reader.u16()?;
        if version != VERSION {
            return Err(NetworkError::UnsupportedVersion(version));
        }
        let (rules, size) = (reader.u8()?, reader.u8()?);
        let variant = Rules::from_code(rules)
            .zip(BoardSize::new(u32::from(size)))
            .map(|(rules, size)| Variant::new(rules, size))
            .ok_or(NetworkError::BadVariant { rules, size })?;
        let (inputs, hidden, qa, qb) = (reader.u32()?, reader.u32()?, reader.u16()?, reader.u16()?);
        let expected_inputs = input_count(variant) as u32;
        if inputs != expected_inputs
            || hidden != HIDDEN as u32
            || i32::from(qa) != QA
            || i32::from(qb) != QB
        {
            return Err(NetworkError::Architecture {
                inputs,
                hidden,
                qa,
                qb,
                expected_inputs,
            });
        }
        let scale = reader.u32()?;
        if scale == 0 {
            return Err(NetworkError::ZeroScale);
        }
        let generation = reader.u32()?;
        let validation_loss = f32::from_le_bytes(reader.array()?);
        let text_len = reader.u32()? as usize;
        if text_len > MAX_PROVENANCE {
            return Err(NetworkError::BadProvenance);
        }
        let text = std::str::from_utf8(reader.take(text_len)?)
            .map_err(|_| NetworkError::BadProvenance)?
            .to_string();
        // The whole length is known now: check it and the checksum before reading any weight.
        let end = reader.at + 2 * (inputs as usize + 3) * HIDDEN + 4 * 2;
        match bytes.len().cmp(&(end + 8)) {
            std::cmp::Ordering::Less => return Err(NetworkError::Truncated(bytes.len())),
            std::cmp::Ordering::Greater => {
                return Err(NetworkError::TrailingBytes(bytes.len() - end - 8));
            }
            std::cmp::Ordering::Equal => {}
        }
        let stored = u64::from_le_bytes(bytes[end..].try_into().expect("8 bytes"));
        if fnv1a(&bytes[..end]) != stored {
            return Err(NetworkError::Checksum);
        }
        let mut network = Network {
            variant,
            scale: i32::try_from(scale).map_err(|_| NetworkError::WeightOutOfRange)?,
            provenance: Provenance {
                generation,
                validation_loss,
                text,
            },
            input_weights: vec![0; inputs as usize * HIDDEN],
            hidden_bias: [0; HIDDEN],
            output_weights: [[0; HIDDEN]; 2],
            output_bias: [0; 2],
        };
        reader.i16s(&mut network.input_weights, INPUT_WEIGHT_LIMIT)?;
        reader.i16s(&mut network.hidden_bias, INPUT_WEIGHT_LIMIT)?;
        for row in &mut network.output_weights {
            reader.i16s(row, OUTPUT_WEIGHT_LIMIT)?;
        }
        for bias in &mut network.output_bias {
            *bias = i32::from_le_bytes(reader.array()?);
            if bias.unsigned_abs() > OUTPUT_BIAS_LIMIT as u32 {
                return Err(NetworkError::WeightOutOfRange);
            }
        }
        Ok(network)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::splitmix;
    use crate::rules::{Position, Rules};
    use crate::search::accumulator::Accumulator;
    use crate::search::train::FloatNetwork;

    fn provenance() -> Provenance {
        Provenance {
            generation: 3,
            validation_loss: 0.0625,
            text: "test data, seed 1".into(),
        }
    }

    fn network() -> Network {
        FloatNetwork::random(Variant::standard(Rules::Tablut), 9).quantise(400.0, provenance())
    }

    /// Positions of random games on `variant`.
    fn positions(variant: Variant, count: usize) -> Vec<Position> {
        let mut state = 11u64;
        let mut out = Vec::new();
        let mut position = Position::start(variant);
        while out.len() < count {
            let moves = position.legal_moves();
            if moves.is_empty() || position.status().is_over() {
                position = Position::start(variant);
                continue;
            }
            state = splitmix(state);
            position.play_unchecked(moves[(state % moves.len() as u64) as usize]);
            out.push(position);
        }
        out
    }

    /// The quantised forward pass stays within 2.5% of the scale (10 hundredths of an attacker at
    /// scale 400, a tenth of an attacker) of the float reference, and within 0.5% on average: the
    /// rounding of each weight to 1/255 or 1/1024 of a unit.
    #[test]
    fn the_quantised_network_matches_the_float_reference() {
        for rules in Rules::ALL {
            let variant = Variant::standard(rules);
            let float = FloatNetwork::random(variant, 21);
            let scale = 400.0;
            let quantised = float.quantise(scale, provenance());
            let (mut worst, mut total) = (0.0f32, 0.0f32);
            let positions = positions(variant, 2000);
            for position in &positions {
                let reference = float.evaluate(position) * scale;
                let score = Accumulator::new(&quantised, position).evaluate(&quantised, position);
                worst = worst.max((score as f32 - reference).abs());
                total += (score as f32 - reference).abs();
            }
            let mean = total / positions.len() as f32;
            assert!(worst <= 0.025 * scale, "{rules}: off by {worst}");
            assert!(mean <= 0.005 * scale, "{rules}: off by {mean} on average");
        }
    }

    /// The search uses a network for its own variant (the tree changes) and the classic evaluation
    /// elsewhere (the tree is the classic engine's); both the search and the analysis play legal moves.
    #[test]
    fn an_engine_uses_its_network_on_its_variant_only() {
        use crate::rules::Game;
        use crate::search::{Engine, EngineConfig, Level, Limits};
        use std::sync::Arc;
        use std::sync::atomic::AtomicBool;

        let with_network = Engine::new(EngineConfig {
            hash_mb: 1,
            network: Some(Arc::new(network())),
            ..EngineConfig::default()
        });
        let classic = Engine::new(EngineConfig {
            hash_mb: 1,
            network: None,
            ..EngineConfig::default()
        });
        let limits = Limits {
            max_depth: Some(4),
            ..Limits::default()
        };
        for rules in [Rules::Tablut, Rules::Copenhagen] {
            let game = Game::new(Variant::standard(rules));
            let ours = with_network
                .search(&game, &limits, Level::STRONGEST, 0)
                .expect("a move");
            let theirs = classic
                .search(&game, &limits, Level::STRONGEST, 0)
                .expect("a move");
            assert!(game.position().legal_moves().contains(&ours.best_move));
            let same_tree = (ours.nodes, ours.score) == (theirs.nodes, theirs.score);
            assert_eq!(same_tree, rules != Rules::Tablut, "{rules}");
            let analysis = with_network
                .analyse(&game, &limits, 2, &AtomicBool::new(false), |_| {})
                .expect("an analysis");
            assert_eq!(analysis.lines.len(), 2);
        }
    }

    #[test]
    fn a_network_reads_back_what_it_wrote() {
        let network = network();
        let read = Network::from_bytes(&network.to_bytes()).expect("our own file");
        assert_eq!(read, network);
        assert_eq!(read.provenance, provenance());
    }

    #[test]
    fn a_cut_file_is_refused_at_every_length() {
        let bytes = network().to_bytes();
        let lengths = (0..200)
            .chain((200..bytes.len()).step_by(997))
            .chain([bytes.len() - 1]);
        for length in lengths {
            let error = Network::from_bytes(&bytes[..length]).expect_err("a cut file");
            assert!(
                matches!(error, NetworkError::Truncated(_) | NetworkError::BadMagic),
                "{length}: {error}"
            );
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(
            Network::from_bytes(&longer),
            Err(NetworkError::TrailingBytes(1))
        );
    }

    #[test]
    fn a_changed_byte_is_refused_never_a_panic() {
        let bytes = network().to_bytes();
        let positions = (0..120).chain((120..bytes.len()).step_by(331));
        for at in positions {
            let mut bad = bytes.clone();
            bad[at] ^= 0x5a;
            assert!(Network::from_bytes(&bad).is_err(), "byte {at} changed");
        }
        let mut bad = bytes.clone();
        let weight = bytes.len() - 100;
        bad[weight] ^= 1;
        assert_eq!(Network::from_bytes(&bad), Err(NetworkError::Checksum));
    }

    /// Rewrites the checksum so that only the given change is wrong.
    fn resealed(mut bytes: Vec<u8>) -> Vec<u8> {
        let end = bytes.len() - 8;
        let checksum = fnv1a(&bytes[..end]);
        bytes[end..].copy_from_slice(&checksum.to_le_bytes());
        bytes
    }

    #[test]
    fn header_mismatches_and_wild_weights_name_the_reason() {
        let bytes = network().to_bytes();
        let mut version = bytes.clone();
        version[8] = 9;
        assert_eq!(
            Network::from_bytes(&version),
            Err(NetworkError::UnsupportedVersion(9))
        );
        let mut rules = bytes.clone();
        rules[10] = 7;
        assert_eq!(
            Network::from_bytes(&rules),
            Err(NetworkError::BadVariant { rules: 7, size: 9 })
        );
        let mut size = bytes.clone();
        size[11] = 11;
        assert!(matches!(
            Network::from_bytes(&size),
            Err(NetworkError::Architecture { .. })
        ));
        let mut magic = bytes.clone();
        magic[0] = b'X';
        assert_eq!(Network::from_bytes(&magic), Err(NetworkError::BadMagic));
        // The first input weight, past the header and the provenance text.
        let first_weight = 8 + 2 + 2 + 4 + 4 + 2 + 2 + 4 + 4 + 4 + 4 + provenance().text.len();
        let mut wild = bytes.clone();
        wild[first_weight..first_weight + 2].copy_from_slice(&i16::MAX.to_le_bytes());
        assert_eq!(
            Network::from_bytes(&resealed(wild)),
            Err(NetworkError::WeightOutOfRange)
        );
    }
}
