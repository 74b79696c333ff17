//! The network file format, and reading a network file.
//!
//! # The file format (all integers little-endian)
//!
//! | bytes | field |
//! |---|---|
//! | 8 | [`MAGIC`] |
//! | 2 | format version, `u16`: 1, a network of [`FeatureSet::Pieces`]; 2, of [`FeatureSet::PiecesAndTerms`] |
//! | 1, 1 | rules (0 Copenhagen, 1 Fetlar, 2 Tablut), board size |
//! | 4, 4 | inputs, hidden units (`u32`: the architecture; must be the version's inputs on the board, `3 × size²` and `3 × size² + 59`, and [`HIDDEN`]) |
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
use std::io::Read;
use std::path::{Path, PathBuf};

use super::features::{FeatureSet, TERM_INPUT_COUNT};
use super::network::{
    HIDDEN, INPUT_WEIGHT_LIMIT, Network, OUTPUT_BIAS_LIMIT, OUTPUT_WEIGHT_LIMIT, Provenance, QA, QB,
};
use crate::rules::{BoardSize, BySide, MAX_BOARD_SIZE, Rules, Variant};

/// The file's first bytes.
pub const MAGIC: [u8; 8] = *b"TAFLNNUE";
/// The format versions this build reads, by what their networks see.
const VERSIONS: [(u16, FeatureSet); 2] = [(1, FeatureSet::Pieces), (2, FeatureSet::PiecesAndTerms)];
/// Longest provenance text, bytes.
pub const MAX_PROVENANCE: usize = 64 * 1024;
/// Bytes before the provenance text: magic, version, variant, architecture, scale, generation,
/// validation loss, the text's length.
const HEADER_BYTES: usize = 8 + 2 + 1 + 1 + 4 + 4 + 2 + 2 + 4 + 4 + 4 + 4;

/// Why a network file was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NetworkError {
    #[error("not a tafl network file (bad magic bytes)")]
    BadMagic,
    #[error("network format version {0}, this build reads versions 1 and 2")]
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

/// A network file [`Network::read_file`] did not take: which file, and why.
#[derive(Debug)]
pub struct NetworkFileError {
    pub path: PathBuf,
    pub kind: NetworkFileErrorKind,
}

/// Why a network file was not taken.
#[derive(Debug, thiserror::Error)]
pub enum NetworkFileErrorKind {
    #[error("{0}")]
    Unreadable(std::io::Error),
    #[error(
        "more than {} bytes, larger than any network file",
        Network::MAX_FILE_BYTES
    )]
    TooLarge,
    #[error(transparent)]
    Refused(#[from] NetworkError),
    #[error("a network for {network}, not for {wanted}")]
    WrongVariant { network: Variant, wanted: Variant },
    #[error("a second network for {variant} (the first: {})", first.display())]
    SecondForVariant { variant: Variant, first: PathBuf },
}

impl fmt::Display for NetworkFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "network file {}: {}", self.path.display(), self.kind)
    }
}

impl std::error::Error for NetworkFileError {}

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

impl Network {
    /// The largest network file: the largest board's, with the longest provenance text.
    pub const MAX_FILE_BYTES: usize = {
        let size = MAX_BOARD_SIZE as usize;
        HEADER_BYTES
            + MAX_PROVENANCE
            + 2 * (3 * size * size + TERM_INPUT_COUNT + 3) * HIDDEN
            + 4 * 2
            + 8
    };

    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(64 + 2 * self.input_weights.len());
        let (version, _) = VERSIONS
            .into_iter()
            .find(|&(_, features)| features == self.features)
            .expect("every feature set has a version");
        bytes.extend_from_slice(&MAGIC);
        bytes.extend_from_slice(&version.to_le_bytes());
        bytes.push(self.variant.rules.code());
        bytes.push(self.variant.size.get());
        bytes.extend_from_slice(&(self.features.input_count(self.variant) as u32).to_le_bytes());
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
        for bias in self.output_bias.iter() {
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
        let (_, features) = VERSIONS
            .into_iter()
            .find(|&(known, _)| known == version)
            .ok_or(NetworkError::UnsupportedVersion(version))?;
        let (rules, size) = (reader.u8()?, reader.u8()?);
        let variant = Rules::from_code(rules)
            .zip(BoardSize::new(u32::from(size)))
            .map(|(rules, size)| Variant::new(rules, size))
            .ok_or(NetworkError::BadVariant { rules, size })?;
        let (inputs, hidden, qa, qb) = (reader.u32()?, reader.u32()?, reader.u16()?, reader.u16()?);
        let expected_inputs = features.input_count(variant) as u32;
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
            features,
            scale: i32::try_from(scale).map_err(|_| NetworkError::WeightOutOfRange)?,
            provenance: Provenance {
                generation,
                validation_loss,
                text,
            },
            input_weights: vec![0; inputs as usize * HIDDEN],
            hidden_bias: [0; HIDDEN],
            output_weights: BySide::from_fn(|_| [0; HIDDEN]),
            output_bias: BySide::default(),
        };
        reader.i16s(&mut network.input_weights, INPUT_WEIGHT_LIMIT)?;
        reader.i16s(&mut network.hidden_bias, INPUT_WEIGHT_LIMIT)?;
        for row in network.output_weights.iter_mut() {
            reader.i16s(row, OUTPUT_WEIGHT_LIMIT)?;
        }
        for bias in network.output_bias.iter_mut() {
            *bias = i32::from_le_bytes(reader.array()?);
            if bias.unsigned_abs() > OUTPUT_BIAS_LIMIT as u32 {
                return Err(NetworkError::WeightOutOfRange);
            }
        }
        Ok(network)
    }

    /// Reads and checks the network file at `path`, reading no more than
    /// [`Network::MAX_FILE_BYTES`] and one byte (so a device that never ends, or a huge file, is
    /// refused at once).
    ///
    /// # Errors
    /// [`NetworkFileError`], naming the file, for anything but a network this build runs.
    pub fn read_file(path: &Path) -> Result<Network, NetworkFileError> {
        let refused = |kind| NetworkFileError {
            path: path.to_path_buf(),
            kind,
        };
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .and_then(|file| {
                file.take(Network::MAX_FILE_BYTES as u64 + 1)
                    .read_to_end(&mut bytes)
            })
            .map_err(|error| refused(NetworkFileErrorKind::Unreadable(error)))?;
        if bytes.len() > Network::MAX_FILE_BYTES {
            return Err(refused(NetworkFileErrorKind::TooLarge));
        }
        Network::from_bytes(&bytes).map_err(|error| refused(error.into()))
    }

    /// [`Network::read_file`] for a game of `variant`: a network of another variant is refused.
    ///
    /// # Errors
    /// [`NetworkFileError`] as [`Network::read_file`], or
    /// [`NetworkFileErrorKind::WrongVariant`].
    pub fn read_file_for(path: &Path, variant: Variant) -> Result<Network, NetworkFileError> {
        let network = Network::read_file(path)?;
        if network.variant() != variant {
            return Err(NetworkFileError {
                path: path.to_path_buf(),
                kind: NetworkFileErrorKind::WrongVariant {
                    network: network.variant(),
                    wanted: variant,
                },
            });
        }
        Ok(network)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn provenance() -> Provenance {
        Provenance {
            generation: 3,
            validation_loss: 0.0625,
            text: "test data, seed 1".into(),
        }
    }

    fn network() -> Network {
        Network::seeded(
            Variant::standard(Rules::Tablut),
            FeatureSet::PiecesAndTerms,
            9,
            provenance(),
        )
    }

    #[test]
    fn a_network_reads_back_what_it_wrote() {
        let network = network();
        let read = Network::from_bytes(&network.to_bytes()).expect("our own file");
        assert_eq!(read, network);
        assert_eq!(read.provenance, provenance());
    }

    /// A network of the pieces alone is a version 1 file, as every network before the terms was.
    #[test]
    fn a_network_of_the_pieces_alone_is_version_1() {
        let pieces = Network::seeded(
            Variant::standard(Rules::Copenhagen),
            FeatureSet::Pieces,
            4,
            provenance(),
        );
        let bytes = pieces.to_bytes();
        assert_eq!(bytes[8..10], 1u16.to_le_bytes());
        assert_eq!(network().to_bytes()[8..10], 2u16.to_le_bytes());
        let read = Network::from_bytes(&bytes).expect("our own file");
        assert_eq!(read.features(), FeatureSet::Pieces);
        assert_eq!(read, pieces);
        // The same weights under the other version's header are refused by their count.
        let mut relabelled = bytes.clone();
        relabelled[8..10].copy_from_slice(&2u16.to_le_bytes());
        assert!(matches!(
            Network::from_bytes(&resealed(relabelled)),
            Err(NetworkError::Architecture { .. })
        ));
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

    #[test]
    fn a_network_file_is_read_up_to_the_largest_size_and_named_when_refused() {
        let path = std::env::temp_dir().join(format!("tafl-net-{}.nnue", std::process::id()));
        std::fs::write(&path, network().to_bytes()).expect("a temporary file");
        let read = Network::read_file(&path);
        std::fs::remove_file(&path).expect("remove the temporary file");
        assert_eq!(read.expect("our own file"), network());
        // A device that never ends is refused after the largest size and a byte.
        let endless = Network::read_file(Path::new("/dev/zero")).expect_err("no network");
        assert!(
            matches!(endless.kind, NetworkFileErrorKind::TooLarge),
            "{endless}"
        );
        assert_eq!(
            endless.to_string(),
            format!(
                "network file /dev/zero: more than {} bytes, larger than any network file",
                Network::MAX_FILE_BYTES
            )
        );
        let missing = Network::read_file(Path::new("/nonexistent/net.nnue")).expect_err("no file");
        assert!(
            matches!(missing.kind, NetworkFileErrorKind::Unreadable(_)),
            "{missing}"
        );
        assert!(
            missing
                .to_string()
                .starts_with("network file /nonexistent/net.nnue: ")
        );
        // A network of another variant than the game's.
        std::fs::write(&path, network().to_bytes()).expect("a temporary file");
        let copenhagen = Variant::standard(Rules::Copenhagen);
        let mismatched = Network::read_file_for(&path, copenhagen).expect_err("a tablut network");
        let tablut = Network::read_file_for(&path, Variant::standard(Rules::Tablut));
        std::fs::remove_file(&path).expect("remove the temporary file");
        assert_eq!(tablut.expect("its own variant"), network());
        assert_eq!(
            mismatched.to_string(),
            format!(
                "network file {}: a network for tablut 9×9, not for copenhagen 11×11",
                path.display()
            )
        );
        // The largest board with the longest text is exactly the largest file.
        let largest = Network::seeded(
            Variant::new(Rules::Copenhagen, BoardSize::Thirteen),
            FeatureSet::PiecesAndTerms,
            1,
            Provenance {
                text: "x".repeat(MAX_PROVENANCE),
                ..provenance()
            },
        );
        assert_eq!(largest.to_bytes().len(), Network::MAX_FILE_BYTES);
    }
}
