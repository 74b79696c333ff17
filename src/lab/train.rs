//! Training the evaluation network on self-play data (`tafl train`).
//!
//! A small hand-written trainer: the float network mirrors the quantised one
//! (`search/eval/nnue/`), gradients are computed by hand, and Adam
//! (`adam.rs`) steps once per mini-batch. The target blends two signals, both from the side to move's
//! view: the search's score through a logistic curve, `sigmoid(score /
//! scale)`, and the game's result (1, ½, 0); the loss is the squared error
//! between that and `sigmoid(output)`, so the output times `scale` is a
//! score in the search's units. Whole games are held out (game number modulo
//! `held_out_every`), since positions of one game are near copies of each
//! other. Everything depends only on the data and the seed: one thread, a
//! seeded initialisation and a seeded shuffle.

use std::time::Instant;

use super::adam::Adam;
use super::datagen::Record;
use crate::rules::{BySide, Position, Side, Square, Variant, splitmix};
use crate::search::eval::classic::Mailbox;
use crate::search::eval::nnue::{HIDDEN, WEIGHT_CLIP, piece_input, term_inputs};
use crate::search::{FeatureSet, Network, Provenance};

/// How to train.
#[derive(Clone, Debug)]
pub struct TrainConfig {
    pub variant: Variant,
    /// What the network sees.
    pub features: FeatureSet,
    pub epochs: u32,
    pub batch_size: usize,
    /// Adam's step size at the start; it decays to a tenth by the last epoch.
    pub learning_rate: f32,
    /// Score (hundredths of an attacker) per unit of output: the logistic curve's scale.
    pub scale: f32,
    pub seed: u64,
    /// Games whose number is `held_out_every - 1` modulo this are held out.
    pub held_out_every: u32,
    /// Train on each position in the board's eight orientations.
    pub symmetries: bool,
    pub generation: u32,
    /// Stored in the network's header: where the data came from.
    pub provenance: String,
}

/// Records to train on, and the game result's share of their targets (the search score has the
/// rest): one set of self-play may learn from its results while another learns from its scores
/// alone.
#[derive(Clone, Copy, Debug)]
pub struct TrainingData<'a> {
    pub records: &'a [Record],
    pub result_weight: f32,
}

/// One epoch's figures.
#[derive(Clone, Debug)]
pub struct EpochReport {
    /// 0: before the first step.
    pub epoch: u32,
    pub train_loss: f64,
    pub validation_loss: f64,
    /// Training positions per second of this epoch (0 for epoch 0).
    pub positions_per_second: f64,
}

/// What a training run gives.
#[derive(Clone, Debug)]
pub struct TrainSummary {
    pub network: Network,
    pub train_positions: usize,
    pub validation_positions: usize,
    pub epochs: Vec<EpochReport>,
}

/// Why training cannot run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TrainError {
    #[error("no training positions of the variant")]
    NoTrainingData,
    #[error("no held-out positions: too few games for one in {0} to be held out")]
    NoValidationData(u32),
}

/// The network in floats, as training sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct FloatNetwork {
    variant: Variant,
    features: FeatureSet,
    /// `inputs × HIDDEN`.
    input_weights: Vec<f32>,
    hidden_bias: [f32; HIDDEN],
    /// The output row of each side to move.
    output_weights: BySide<[f32; HIDDEN]>,
    output_bias: BySide<f32>,
}

/// Samples laid out flat: the inputs of sample `i` are `inputs[offsets[i]..offsets[i + 1]]`.
#[derive(Default)]
struct Samples {
    inputs: Vec<u16>,
    offsets: Vec<usize>,
    sides: Vec<Side>,
    targets: Vec<f32>,
}

impl Samples {
    fn push(&mut self, inputs: impl Iterator<Item = usize>, side: Side, target: f32) {
        if self.offsets.is_empty() {
            self.offsets.push(0);
        }
        self.inputs.extend(inputs.map(|input| input as u16));
        self.offsets.push(self.inputs.len());
        self.sides.push(side);
        self.targets.push(target);
    }

    fn len(&self) -> usize {
        self.targets.len()
    }

    fn inputs(&self, index: usize) -> &[u16] {
        &self.inputs[self.offsets[index]..self.offsets[index + 1]]
    }
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// A seeded stream of numbers in `[-1, 1)`.
struct Random(u64);

impl Random {
    fn next_u64(&mut self) -> u64 {
        self.0 = splitmix(self.0);
        self.0
    }

    fn symmetric(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    }
}

impl FloatNetwork {
    /// Small random weights from a seed.
    pub fn random(variant: Variant, features: FeatureSet, seed: u64) -> FloatNetwork {
        let mut random = Random(seed);
        let inputs = features.input_count(variant);
        FloatNetwork {
            variant,
            features,
            input_weights: (0..inputs * HIDDEN)
                .map(|_| 0.1 * random.symmetric())
                .collect(),
            hidden_bias: std::array::from_fn(|_| 0.25 + 0.25 * random.symmetric()),
            output_weights: BySide::from_fn(|_| std::array::from_fn(|_| 0.1 * random.symmetric())),
            output_bias: BySide::default(),
        }
    }

    /// The hidden layer before activation.
    fn accumulate(&self, inputs: impl Iterator<Item = usize>, out: &mut [f32; HIDDEN]) {
        *out = self.hidden_bias;
        for input in inputs {
            let row = &self.input_weights[input * HIDDEN..(input + 1) * HIDDEN];
            for (value, weight) in out.iter_mut().zip(row) {
                *value += weight;
            }
        }
    }

    fn output(&self, accumulator: &[f32; HIDDEN], side: Side) -> f32 {
        let dot: f32 = accumulator
            .iter()
            .zip(&self.output_weights[side])
            .map(|(value, weight)| value.clamp(0.0, 1.0) * weight)
            .sum();
        dot + self.output_bias[side]
    }

    /// The output for `position` (times the scale: a score), side to move's view: the float
    /// reference the quantised network is checked against.
    pub fn evaluate(&self, position: &Position) -> f32 {
        let mut accumulator = [0.0; HIDDEN];
        self.accumulate(position_inputs(position, self.features), &mut accumulator);
        self.output(&accumulator, position.side_to_move())
    }

    /// The quantised network.
    pub fn quantise(&self, scale: f32, provenance: Provenance) -> Network {
        Network::quantise(
            self.variant,
            self.features,
            scale.round() as i32,
            provenance,
            &self.input_weights,
            &self.hidden_bias,
            &self.output_weights,
            &self.output_bias,
        )
    }
}

/// Every parameter, in the order the optimiser numbers them, each slice with the bound it is
/// clipped to (weights stay within the clip, so the quantised ones stay within the loader's bounds;
/// the output biases have none).
fn parameters(network: &mut FloatNetwork) -> [(&mut [f32], f32); 6] {
    let FloatNetwork {
        input_weights,
        hidden_bias,
        output_weights,
        output_bias,
        ..
    } = network;
    [
        (input_weights.as_mut_slice(), WEIGHT_CLIP),
        (hidden_bias.as_mut_slice(), WEIGHT_CLIP),
        (output_weights.attackers.as_mut_slice(), WEIGHT_CLIP),
        (output_weights.defenders.as_mut_slice(), WEIGHT_CLIP),
        (std::slice::from_mut(&mut output_bias.attackers), f32::MAX),
        (std::slice::from_mut(&mut output_bias.defenders), f32::MAX),
    ]
}

/// One Adam step against `gradient` (shaped as the network), which is zeroed for the next batch.
fn step(adam: &mut Adam<f32>, network: &mut FloatNetwork, gradient: &mut FloatNetwork, rate: f32) {
    adam.begin_step();
    let mut index = 0;
    for ((values, clip), (gradients, _)) in
        parameters(network).into_iter().zip(parameters(gradient))
    {
        for (value, gradient) in values.iter_mut().zip(gradients.iter_mut()) {
            *value = (*value - adam.change(index, *gradient, rate)).clamp(-clip, clip);
            *gradient = 0.0;
            index += 1;
        }
    }
}

/// The target of a record: search score and game result blended, side to move's view.
fn target(record: &Record, result_weight: f32, scale: f32) -> f32 {
    let attackers_result = (f32::from(record.result) + 1.0) / 2.0;
    let result = match record.side_to_move {
        Side::Attackers => attackers_result,
        Side::Defenders => 1.0 - attackers_result,
    };
    let score = sigmoid(f32::from(record.score) / scale);
    result_weight * result + (1.0 - result_weight) * score
}

/// The eight symmetries of the square board (every variant's layout, throne and corners have them
/// all): `symmetry` bit 0 mirrors the files, bit 1 the ranks, bit 2 swaps files and ranks.
fn transformed(file: usize, rank: usize, size: usize, symmetry: u8) -> (usize, usize) {
    let (file, rank) = if symmetry & 4 != 0 {
        (rank, file)
    } else {
        (file, rank)
    };
    let file = if symmetry & 1 != 0 {
        size - 1 - file
    } else {
        file
    };
    let rank = if symmetry & 2 != 0 {
        size - 1 - rank
    } else {
        rank
    };
    (file, rank)
}

/// The inputs a network of `features` sees in `position`.
fn position_inputs(position: &Position, features: FeatureSet) -> impl Iterator<Item = usize> {
    let size = position.variant().size.get() as usize;
    let terms = match features {
        FeatureSet::Pieces => Default::default(),
        FeatureSet::PiecesAndTerms => term_inputs(&Mailbox::new(position)),
    };
    position
        .piece_squares()
        .map(move |(piece, square)| piece_input(piece, square, size))
        .chain(terms)
}

/// The piece inputs of a record seen through one of the board's symmetries (0: as it stands).
fn record_piece_inputs(record: &Record, symmetry: u8) -> impl Iterator<Item = usize> + '_ {
    let size = record.variant.size.get() as usize;
    record.pieces.iter().map(move |&(piece, square)| {
        let (file, rank) = transformed(
            square as usize % size,
            square as usize / size,
            size,
            symmetry,
        );
        let square = Square::new(file as u8, rank as u8).expect("a square of the board");
        piece_input(piece, square, size)
    })
}

/// Mean squared error of `network` over `samples`; with `gradient`, adds the mean's gradient into it.
fn pass(
    network: &FloatNetwork,
    samples: &Samples,
    order: &[u32],
    mut gradient: Option<&mut FloatNetwork>,
) -> f64 {
    let mut accumulator = [0.0f32; HIDDEN];
    let mut loss = 0.0f64;
    let n = order.len().max(1) as f32;
    for &index in order {
        let index = index as usize;
        let inputs = samples.inputs(index);
        let side = samples.sides[index];
        network.accumulate(inputs.iter().map(|&input| input as usize), &mut accumulator);
        let prediction = sigmoid(network.output(&accumulator, side));
        let error = prediction - samples.targets[index];
        loss += f64::from(error * error);
        let Some(gradient) = gradient.as_deref_mut() else {
            continue;
        };
        let slope = 2.0 * error * prediction * (1.0 - prediction) / n;
        gradient.output_bias[side] += slope;
        let output_weights = &network.output_weights[side];
        let mut hidden_gradient = [0.0f32; HIDDEN];
        for i in 0..HIDDEN {
            let value = accumulator[i];
            gradient.output_weights[side][i] += slope * value.clamp(0.0, 1.0);
            hidden_gradient[i] = if value > 0.0 && value < 1.0 {
                slope * output_weights[i]
            } else {
                0.0
            };
        }
        for (bias, hidden) in gradient.hidden_bias.iter_mut().zip(&hidden_gradient) {
            *bias += hidden;
        }
        for &input in inputs {
            let row =
                &mut gradient.input_weights[input as usize * HIDDEN..(input as usize + 1) * HIDDEN];
            for (weight, hidden) in row.iter_mut().zip(&hidden_gradient) {
                *weight += hidden;
            }
        }
    }
    loss / f64::from(n)
}

/// Trains a network on the records of `config.variant` in `data`, each set's targets at its own
/// result weight, reporting each epoch (and epoch 0, before training) to `report`.
///
/// # Errors
/// [`TrainError`] when there is nothing to train on or to validate with.
pub fn train(
    data: &[TrainingData],
    config: &TrainConfig,
    mut report: impl FnMut(&EpochReport),
) -> Result<TrainSummary, TrainError> {
    let mut training = Samples::default();
    let mut validation = Samples::default();
    let records = data.iter().flat_map(|set| {
        set.records
            .iter()
            .map(move |record| (record, set.result_weight))
    });
    for (record, result_weight) in records.filter(|(record, _)| record.variant == config.variant) {
        let held_out = config.held_out_every > 0
            && record.game % config.held_out_every == config.held_out_every - 1;
        // Training positions are seen in all eight orientations: eight times the data for free.
        let (samples, symmetries) = if held_out {
            (&mut validation, 0..1)
        } else if config.symmetries {
            (&mut training, 0..8)
        } else {
            (&mut training, 0..1)
        };
        // Every term counts the same in each orientation (they are totals over the board).
        let terms = match config.features {
            FeatureSet::Pieces => Default::default(),
            FeatureSet::PiecesAndTerms => match record.position() {
                Some(position) => term_inputs(&Mailbox::new(&position)),
                None => continue,
            },
        };
        for symmetry in symmetries {
            samples.push(
                record_piece_inputs(record, symmetry).chain(terms.iter().copied()),
                record.side_to_move,
                target(record, result_weight, config.scale),
            );
        }
    }
    if training.len() == 0 {
        return Err(TrainError::NoTrainingData);
    }
    if validation.len() == 0 {
        return Err(TrainError::NoValidationData(config.held_out_every));
    }
    let mut random = Random(config.seed);
    let mut network = FloatNetwork::random(config.variant, config.features, random.next_u64());
    let mut gradient = FloatNetwork {
        features: config.features,
        input_weights: vec![0.0; network.input_weights.len()],
        hidden_bias: [0.0; HIDDEN],
        output_weights: BySide::from_fn(|_| [0.0; HIDDEN]),
        output_bias: BySide::default(),
        variant: config.variant,
    };
    let parameter_count = parameters(&mut network)
        .iter()
        .map(|(values, _)| values.len())
        .sum();
    let mut adam = Adam::new(parameter_count, 1e-8);
    let mut order: Vec<u32> = (0..training.len() as u32).collect();
    let validation_order: Vec<u32> = (0..validation.len() as u32).collect();
    let mut epochs = vec![EpochReport {
        epoch: 0,
        train_loss: pass(&network, &training, &order, None),
        validation_loss: pass(&network, &validation, &validation_order, None),
        positions_per_second: 0.0,
    }];
    report(&epochs[0]);
    for epoch in 1..=config.epochs {
        let started = Instant::now();
        // Fisher-Yates with the seeded stream.
        for i in (1..order.len()).rev() {
            order.swap(i, (random.next_u64() % (i as u64 + 1)) as usize);
        }
        let progress = (epoch - 1) as f32 / config.epochs.max(1) as f32;
        let rate = config.learning_rate * 0.1f32.powf(progress);
        let mut train_loss = 0.0;
        for batch in order.chunks(config.batch_size.max(1)) {
            train_loss +=
                pass(&network, &training, batch, Some(&mut gradient)) * batch.len() as f64;
            step(&mut adam, &mut network, &mut gradient, rate);
        }
        let seconds = started.elapsed().as_secs_f64();
        let epoch_report = EpochReport {
            epoch,
            train_loss: train_loss / order.len() as f64,
            validation_loss: pass(&network, &validation, &validation_order, None),
            positions_per_second: order.len() as f64 / seconds.max(1e-9),
        };
        report(&epoch_report);
        epochs.push(epoch_report);
    }
    let validation_loss = epochs.last().map_or(0.0, |last| last.validation_loss) as f32;
    let network = network.quantise(
        config.scale,
        Provenance {
            generation: config.generation,
            validation_loss,
            text: config.provenance.clone(),
        },
    );
    Ok(TrainSummary {
        network,
        train_positions: training.len(),
        validation_positions: validation.len(),
        epochs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::datagen::{DatagenConfig, MAGIC, Source, generate, read_records};
    use crate::rules::{Rules, random_walk};
    use crate::search::eval::nnue::Accumulator;

    fn records() -> Vec<Record> {
        let config = DatagenConfig {
            variant: Variant::standard(Rules::Tablut),
            nodes: 200,
            first_game: 0,
            games: 6,
            threads: 2,
            seed: 1,
            max_plies: 80,
            source: Source::SelfPlay {
                openings: Vec::new(),
                real_percent: 0,
                real_plies: 0..=0,
            },
            hash_mb: 1,
            network: None,
        };
        let mut bytes = MAGIC.to_vec();
        generate(&config, |data| {
            bytes.extend_from_slice(&data.bytes);
            Ok::<(), ()>(())
        })
        .expect("no sink error");
        read_records(&bytes).expect("our own data")
    }

    fn config() -> TrainConfig {
        TrainConfig {
            variant: Variant::standard(Rules::Tablut),
            features: FeatureSet::PiecesAndTerms,
            epochs: 4,
            batch_size: 32,
            learning_rate: 0.003,
            scale: 400.0,
            seed: 5,
            held_out_every: 3,
            symmetries: true,
            generation: 0,
            provenance: "test".into(),
        }
    }

    #[test]
    fn a_tiny_training_run_lowers_the_loss_and_repeats_per_seed() {
        let records = records();
        let data = [at_weight(&records, 0.3)];
        let mut printed = 0;
        let summary = train(&data, &config(), |_| printed += 1).expect("data of the variant");
        assert_eq!(printed, 5);
        let first = &summary.epochs[0];
        let last = summary.epochs.last().expect("epochs");
        assert!(
            last.train_loss < 0.7 * first.train_loss,
            "{first:?} -> {last:?}"
        );
        assert!(
            last.validation_loss < first.validation_loss,
            "{first:?} -> {last:?}"
        );
        let again = train(&data, &config(), |_| {}).expect("data of the variant");
        assert_eq!(again.network.to_bytes(), summary.network.to_bytes());
        let other = train(
            &data,
            &TrainConfig {
                seed: 6,
                ..config()
            },
            |_| {},
        )
        .expect("data");
        assert_ne!(other.network.to_bytes(), summary.network.to_bytes());
    }

    /// Each symmetry maps the board onto itself, and every standard start (each has all eight) onto
    /// itself: what augmentation assumes.
    #[test]
    fn the_eight_symmetries_map_each_start_onto_itself() {
        for rules in Rules::ALL {
            for size in [9, 11, 13] {
                let variant =
                    Variant::new(rules, crate::rules::BoardSize::new(size).expect("size"));
                let position = Position::start(variant);
                let size = size as usize;
                let record = Record {
                    game: 0,
                    variant,
                    side_to_move: Side::Attackers,
                    last_of_game: true,
                    result: 0,
                    score: 0,
                    ply: 0,
                    pieces: position
                        .piece_squares()
                        .map(|(piece, square)| (piece, square.dense_index(size) as u16))
                        .collect(),
                };
                let mut start: Vec<usize> = record_piece_inputs(&record, 0).collect();
                start.sort_unstable();
                for symmetry in 0..8 {
                    let mut squares = std::collections::HashSet::new();
                    for file in 0..size {
                        for rank in 0..size {
                            let (f, r) = transformed(file, rank, size, symmetry);
                            assert!(f < size && r < size);
                            squares.insert((f, r));
                        }
                    }
                    assert_eq!(squares.len(), size * size);
                    let mut seen: Vec<usize> = record_piece_inputs(&record, symmetry).collect();
                    seen.sort_unstable();
                    assert_eq!(seen, start, "{variant} symmetry {symmetry}");
                }
            }
        }
    }

    /// The terms count the same in every orientation of a position (training gives a record's
    /// eight orientations one set of term inputs), and a record gives back its position.
    #[test]
    fn the_terms_count_alike_in_the_eight_orientations() {
        for rules in Rules::ALL {
            for size in crate::rules::BoardSize::ALL {
                let variant = Variant::new(rules, size);
                let width = size.get() as usize;
                for position in positions(variant, 300) {
                    if position.status().is_over() {
                        continue;
                    }
                    let record = |symmetry| Record {
                        game: 0,
                        variant,
                        side_to_move: position.side_to_move(),
                        last_of_game: false,
                        result: 0,
                        score: 0,
                        ply: 0,
                        pieces: position
                            .piece_squares()
                            .map(|(piece, square)| {
                                let (file, rank) = transformed(
                                    usize::from(square.file()),
                                    usize::from(square.rank()),
                                    width,
                                    symmetry,
                                );
                                (piece, (rank * width + file) as u16)
                            })
                            .collect(),
                    };
                    let as_it_stands = record(0).position().expect("the position");
                    assert!(as_it_stands.same_placement(&position), "{position}");
                    let terms = term_inputs(&Mailbox::new(&position));
                    for symmetry in 1..8 {
                        let turned = record(symmetry).position().expect("a turned position");
                        assert_eq!(
                            term_inputs(&Mailbox::new(&turned)),
                            terms,
                            "{position} turned by {symmetry}"
                        );
                    }
                }
            }
        }
    }

    /// Positions of random games on `variant`.
    fn positions(variant: Variant, count: usize) -> Vec<Position> {
        random_walk(variant, 11).take(count).collect()
    }

    /// The quantised forward pass stays within 2.5% of the scale (10 hundredths of an attacker at
    /// scale 400, a tenth of an attacker) of the float reference, and within 0.5% on average: the
    /// rounding of each weight to 1/255 or 1/1024 of a unit.
    #[test]
    fn the_quantised_network_matches_the_float_reference() {
        let provenance = Provenance {
            generation: 3,
            validation_loss: 0.0625,
            text: "test data, seed 1".into(),
        };
        for features in [FeatureSet::Pieces, FeatureSet::PiecesAndTerms] {
            for rules in Rules::ALL {
                let variant = Variant::standard(rules);
                let float = FloatNetwork::random(variant, features, 21);
                let scale = 400.0;
                let quantised = float.quantise(scale, provenance.clone());
                let (mut worst, mut total) = (0.0f32, 0.0f32);
                let positions = positions(variant, 2000);
                for position in &positions {
                    let reference = float.evaluate(position) * scale;
                    let score = Accumulator::new(&quantised, position)
                        .evaluate(&quantised, &Mailbox::new(position));
                    worst = worst.max((score as f32 - reference).abs());
                    total += (score as f32 - reference).abs();
                }
                let mean = total / positions.len() as f32;
                assert!(worst <= 0.025 * scale, "{rules}: off by {worst}");
                assert!(mean <= 0.005 * scale, "{rules}: off by {mean} on average");
            }
        }
    }

    #[test]
    fn data_of_another_variant_is_not_training_data() {
        let records = records();
        let config = TrainConfig {
            variant: Variant::standard(Rules::Copenhagen),
            ..config()
        };
        assert_eq!(
            train(&[at_weight(&records, 0.0)], &config, |_| {}).err(),
            Some(TrainError::NoTrainingData)
        );
    }

    fn at_weight(records: &[Record], result_weight: f32) -> TrainingData<'_> {
        TrainingData {
            records,
            result_weight,
        }
    }

    #[test]
    fn each_set_of_data_trains_at_its_own_result_weight() {
        let records = records();
        let (first, second) = records.split_at(records.len() / 2);
        let network = |data: &[TrainingData]| {
            train(data, &config(), |_| {})
                .expect("data of the variant")
                .network
                .to_bytes()
        };
        let whole = network(&[at_weight(&records, 0.3)]);
        assert_eq!(
            network(&[at_weight(first, 0.3), at_weight(second, 0.3)]),
            whole,
            "two sets at one weight train as one"
        );
        assert_ne!(
            network(&[at_weight(first, 0.3), at_weight(second, 1.0)]),
            whole,
            "the second set's results count in full"
        );
        for record in &records {
            assert!([0.0, 0.5, 1.0].contains(&target(record, 1.0, 400.0)));
            assert_eq!(
                target(record, 0.0, 400.0),
                sigmoid(f32::from(record.score) / 400.0)
            );
        }
    }
}
