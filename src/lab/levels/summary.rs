//! What rows say together: each player's accuracy distribution, where it
//! falls among the people's, and its error mix beside the people's at the
//! same accuracy.
//!
//! The error mix is counted among a player's non-best moves (every judged
//! move but the engine's choice and a found win): the share of inaccuracies,
//! of mistakes and of blunders (a missed win counts as a blunder); the rest
//! are excellent or good moves. The people's mix changes with their
//! accuracy (the less accurate, the larger their errors), so a player is
//! compared with the people at its own accuracy: the people's mix in each
//! accuracy band, weighted by the player's non-best moves in that band.

use std::fmt;

use super::rows::{PEOPLE, SideRow};
use crate::rules::Side;
use crate::search::MoveClass;

/// The lower bounds of the accuracy bands past the first, which starts at 0.
const BANDS: [f64; 6] = [60.0, 70.0, 80.0, 85.0, 90.0, 95.0];

/// A band with fewer of the people's non-best moves than this borrows the nearest band's mix.
const MIN_BAND_MOVES: u32 = 200;

/// The histogram's bins, in points of accuracy.
const BIN: f64 = 5.0;

/// The spread of a player's accuracies (one a side and game).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Distribution {
    pub count: usize,
    pub min: f64,
    pub q1: f64,
    pub median: f64,
    pub q3: f64,
    pub max: f64,
}

impl Distribution {
    /// `None` without values.
    pub fn of(values: &[f64]) -> Option<Distribution> {
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        let (&min, &max) = (sorted.first()?, sorted.last()?);
        Some(Distribution {
            count: sorted.len(),
            min,
            q1: quantile(&sorted, 0.25),
            median: quantile(&sorted, 0.5),
            q3: quantile(&sorted, 0.75),
            max,
        })
    }
}

/// The `q` quantile of sorted values, interpolated between the two nearest.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    let position = q * (sorted.len() - 1) as f64;
    let low = position.floor() as usize;
    let high = position.ceil() as usize;
    sorted[low] + (sorted[high] - sorted[low]) * (position - low as f64)
}

/// Non-best moves, and how many of them were inaccuracies, mistakes and blunders.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ErrorMix {
    pub non_best: u32,
    pub inaccuracies: u32,
    pub mistakes: u32,
    /// Missed wins too.
    pub blunders: u32,
}

impl ErrorMix {
    fn add(&mut self, row: &SideRow) {
        self.non_best += row.moves() - row.count(MoveClass::Best) - row.count(MoveClass::FoundWin);
        self.inaccuracies += row.count(MoveClass::Inaccuracy);
        self.mistakes += row.count(MoveClass::Mistake);
        self.blunders += row.count(MoveClass::Blunder) + row.count(MoveClass::MissedWin);
    }

    /// The shares of the non-best moves, in percent: inaccuracies, mistakes, blunders.
    pub fn shares(&self) -> [f64; 3] {
        let non_best = f64::from(self.non_best.max(1));
        [self.inaccuracies, self.mistakes, self.blunders].map(|n| 100.0 * f64::from(n) / non_best)
    }
}

/// The accuracy band of `accuracy`: an index into the bands (0: below the first bound).
fn band(accuracy: f64) -> usize {
    BANDS.iter().filter(|&&bound| accuracy >= bound).count()
}

/// A band's name: "under 60", "60–70", "95 and over".
fn band_name(band: usize) -> String {
    match band {
        0 => format!("under {}", BANDS[0]),
        band if band == BANDS.len() => format!("{} and over", BANDS[band - 1]),
        band => format!("{}–{}", BANDS[band - 1], BANDS[band]),
    }
}

/// Rows read back: the sides with enough judged moves to have an accuracy worth reading.
#[derive(Clone, Debug)]
pub struct Summary {
    rows: Vec<SideRow>,
    min_moves: u32,
}

impl Summary {
    /// The rows of sides with at least `min_moves` judged moves.
    pub fn new(rows: Vec<SideRow>, min_moves: u32) -> Summary {
        Summary {
            rows: rows
                .into_iter()
                .filter(|row| row.moves() >= min_moves)
                .collect(),
            min_moves,
        }
    }

    fn rows_of<'s>(&'s self, player: &'s str) -> impl Iterator<Item = &'s SideRow> {
        self.rows.iter().filter(move |row| row.player == player)
    }

    /// Every player but the people, in the order the rows first name them.
    pub fn players(&self) -> Vec<&str> {
        let mut players: Vec<&str> = Vec::new();
        for row in &self.rows {
            if row.player != PEOPLE && !players.contains(&row.player.as_str()) {
                players.push(&row.player);
            }
        }
        players
    }

    /// The player's accuracies, of one side or of both.
    pub fn distribution(&self, player: &str, side: Option<Side>) -> Option<Distribution> {
        let accuracies: Vec<f64> = self
            .rows_of(player)
            .filter(|row| side.is_none_or(|side| row.side == side))
            .map(|row| row.accuracy)
            .collect();
        Distribution::of(&accuracies)
    }

    /// The player's error mix over all its rows.
    pub fn mix(&self, player: &str) -> ErrorMix {
        let mut mix = ErrorMix::default();
        self.rows_of(player).for_each(|row| mix.add(row));
        mix
    }

    /// The share of the people's sides less accurate than `accuracy` (ties counted half), in
    /// percent; `None` without people.
    pub fn people_percentile(&self, accuracy: f64) -> Option<f64> {
        let (mut below, mut sides) = (0.0, 0);
        for row in self.rows_of(PEOPLE) {
            sides += 1;
            below += match row.accuracy.total_cmp(&accuracy) {
                std::cmp::Ordering::Less => 1.0,
                std::cmp::Ordering::Equal => 0.5,
                std::cmp::Ordering::Greater => 0.0,
            };
        }
        (sides > 0).then(|| 100.0 * below / f64::from(sides))
    }

    /// The people's error mix in each accuracy band.
    fn people_by_band(&self) -> Vec<ErrorMix> {
        let mut bands = vec![ErrorMix::default(); BANDS.len() + 1];
        self.rows_of(PEOPLE)
            .for_each(|row| bands[band(row.accuracy)].add(row));
        bands
    }

    /// The mix the people show at the player's accuracies: each band's (the nearest band with
    /// enough moves, for a band the people seldom reach), weighted by the player's non-best
    /// moves in the band. `None` when no band has enough of the people's moves.
    pub fn people_mix_at_the_accuracy_of(&self, player: &str) -> Option<[f64; 3]> {
        let bands = self.people_by_band();
        let usable: Vec<usize> = (0..bands.len())
            .filter(|&band| bands[band].non_best >= MIN_BAND_MOVES)
            .collect();
        let (mut weighted, mut weights) = ([0.0; 3], 0.0);
        for row in self.rows_of(player) {
            let mut own = ErrorMix::default();
            own.add(row);
            let nearest = usable
                .iter()
                .min_by_key(|&&usable| usable.abs_diff(band(row.accuracy)))?;
            let weight = f64::from(own.non_best);
            for (sum, share) in weighted.iter_mut().zip(bands[*nearest].shares()) {
                *sum += weight * share;
            }
            weights += weight;
        }
        (weights > 0.0).then(|| weighted.map(|sum| sum / weights))
    }

    fn write_people(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let games = {
            let mut games: Vec<u32> = self.rows_of(PEOPLE).map(|row| row.game).collect();
            games.sort_unstable();
            games.dedup();
            games.len()
        };
        writeln!(
            f,
            "people: sides with at least {} judged moves, of {games} games\n",
            self.min_moves
        )?;
        writeln!(f, "| people | sides | median | quartiles | range |")?;
        writeln!(f, "|---|---:|---:|---:|---:|")?;
        for (name, side) in [
            ("both sides", None),
            ("attackers", Some(Side::Attackers)),
            ("defenders", Some(Side::Defenders)),
        ] {
            if let Some(spread) = self.distribution(PEOPLE, side) {
                writeln!(f, "| {name} | {} |", distribution_cells(&spread))?;
            }
        }
        writeln!(f, "\n| accuracy | sides | share |")?;
        writeln!(f, "|---|---:|---|")?;
        let accuracies: Vec<f64> = self.rows_of(PEOPLE).map(|row| row.accuracy).collect();
        let bin_of = |accuracy: f64| (accuracy / BIN).floor().min(100.0 / BIN - 1.0) as usize;
        let mut bins = vec![0u32; (100.0 / BIN) as usize];
        accuracies
            .iter()
            .for_each(|&accuracy| bins[bin_of(accuracy)] += 1);
        let total = accuracies.len().max(1) as f64;
        for (bin, &sides) in bins.iter().enumerate().filter(|(_, sides)| **sides > 0) {
            let percent = 100.0 * f64::from(sides) / total;
            writeln!(
                f,
                "| {}–{} | {sides} | {:.1}% {} |",
                bin as f64 * BIN,
                (bin + 1) as f64 * BIN,
                percent,
                "#".repeat(percent.round() as usize)
            )?;
        }
        writeln!(
            f,
            "\n| people's accuracy | sides | non-best moves | inaccuracies | mistakes | blunders |"
        )?;
        writeln!(f, "|---|---:|---:|---:|---:|---:|")?;
        for (band, mix) in self.people_by_band().iter().enumerate() {
            let sides = self
                .rows_of(PEOPLE)
                .filter(|row| self::band(row.accuracy) == band)
                .count();
            if sides > 0 {
                writeln!(
                    f,
                    "| {} | {sides} | {} | {} |",
                    band_name(band),
                    mix.non_best,
                    share_cells(mix.shares())
                )?;
            }
        }
        Ok(())
    }
}

/// `count | median | q1–q3 | min–max`.
fn distribution_cells(spread: &Distribution) -> String {
    format!(
        "{} | {:.1} | {:.1}–{:.1} | {:.1}–{:.1}",
        spread.count, spread.median, spread.q1, spread.q3, spread.min, spread.max
    )
}

/// `inaccuracies% | mistakes% | blunders%`.
fn share_cells(shares: [f64; 3]) -> String {
    let [inaccuracies, mistakes, blunders] = shares;
    format!("{inaccuracies:.0}% | {mistakes:.0}% | {blunders:.0}%")
}

/// The people's distribution, histogram and error mix by band, then a line for each other
/// player: its distribution, the people's percentile of its median, its error mix and the
/// people's at its accuracy. Markdown tables.
impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.rows_of(PEOPLE).next().is_some() {
            self.write_people(f)?;
        }
        let players = self.players();
        if players.is_empty() {
            return Ok(());
        }
        writeln!(
            f,
            "\n| player | sides | median | quartiles | range | people's percentile | inaccuracies | mistakes | blunders | people's at that accuracy |"
        )?;
        writeln!(f, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")?;
        for player in players {
            let Some(spread) = self.distribution(player, None) else {
                continue;
            };
            let percentile = self
                .people_percentile(spread.median)
                .map_or_else(|| "–".to_string(), |percentile| format!("{percentile:.0}"));
            let people = self.people_mix_at_the_accuracy_of(player).map_or_else(
                || "–".to_string(),
                |[inaccuracies, mistakes, blunders]| {
                    format!("{inaccuracies:.0}% / {mistakes:.0}% / {blunders:.0}%")
                },
            );
            writeln!(
                f,
                "| {player} | {} | {percentile} | {} | {people} |",
                distribution_cells(&spread),
                share_cells(self.mix(player).shares())
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(player: &str, game: u32, accuracy: f64, classes: [u32; 8]) -> SideRow {
        SideRow {
            player: player.to_string(),
            game,
            side: if game.is_multiple_of(2) {
                Side::Attackers
            } else {
                Side::Defenders
            },
            accuracy,
            classes,
        }
    }

    #[test]
    fn quartiles_interpolate_and_nothing_has_no_distribution() {
        let spread = Distribution::of(&[4.0, 1.0, 3.0, 2.0, 5.0]).expect("values");
        assert_eq!(
            (
                spread.count,
                spread.min,
                spread.q1,
                spread.median,
                spread.q3,
                spread.max
            ),
            (5, 1.0, 2.0, 3.0, 4.0, 5.0)
        );
        let even = Distribution::of(&[1.0, 2.0]).expect("values");
        assert_eq!(even.median, 1.5);
        assert_eq!(Distribution::of(&[]), None);
    }

    #[test]
    fn the_error_mix_counts_non_best_moves_and_missed_wins_as_blunders() {
        let mut mix = ErrorMix::default();
        // best, excellent, good, inaccuracy, mistake, blunder, missed win, found win
        mix.add(&row(PEOPLE, 1, 90.0, [10, 4, 3, 2, 0, 0, 1, 5]));
        assert_eq!(mix.non_best, 10);
        assert_eq!(mix.shares(), [20.0, 0.0, 10.0]);
    }

    #[test]
    fn a_player_is_placed_among_the_people_and_compared_with_them_at_its_accuracy() {
        let mut rows = Vec::new();
        // The people: 400 sides at 91 with mostly inaccuracies, 400 at 72 with mostly blunders.
        for game in 0..400 {
            rows.push(row(PEOPLE, game, 91.0, [20, 6, 2, 2, 0, 0, 0, 0]));
            rows.push(row(PEOPLE, game + 400, 72.0, [10, 2, 2, 2, 0, 4, 0, 0]));
        }
        // Too few moves: left out.
        rows.push(row(PEOPLE, 900, 10.0, [1, 0, 0, 0, 0, 0, 0, 0]));
        rows.push(row("level=3", 1, 71.0, [10, 0, 0, 5, 5, 0, 0, 0]));
        rows.push(row("level=3", 2, 73.0, [10, 0, 0, 0, 0, 10, 0, 0]));
        let summary = Summary::new(rows, 5);
        assert_eq!(summary.players(), ["level=3"]);
        assert_eq!(summary.people_percentile(72.0), Some(25.0));
        assert_eq!(summary.people_percentile(95.0), Some(100.0));
        assert_eq!(summary.mix("level=3").shares(), [25.0, 25.0, 50.0]);
        // Both its sides sit in the people's 70–80 band: 20% inaccuracies, 40% blunders there.
        let people = summary
            .people_mix_at_the_accuracy_of("level=3")
            .expect("people");
        assert_eq!(people, [20.0, 0.0, 40.0]);
        let text = summary.to_string();
        assert!(text.contains("| both sides | 800 | 81.5 |"), "{text}");
        assert!(
            text.contains("| 70–80 | 400 | 4000 | 20% | 0% | 40% |"),
            "{text}"
        );
        assert!(
            text.contains("| level=3 | 2 | 72.0 | 71.5–72.5 | 71.0–73.0 | 25 | 25% | 25% | 50% | 20% / 0% / 40% |"),
            "{text}"
        );
    }
}
