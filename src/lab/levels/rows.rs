//! A reviewed game reduced to a row for each side, the rows as CSV lines,
//! and the two sources of games: the real games, and a player's games
//! against a fixed opponent.

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::AtomicBool;

use strum::{EnumCount, IntoEnumIterator};

use crate::lab::GameRecord;
use crate::lab::matchplay::{
    EnginePlayer, MatchConfig, MatchSummary, Player, PlayerPair, a_attacks, play_match,
};
use crate::lab::win_chance::legal_prefix;
use crate::rules::{BySide, Game, Move, Rules, Side, Variant};
use crate::search::{Control, Engine, MoveClass, Review, ReviewBudget};

/// Who played the real games, as their rows name them.
pub const PEOPLE: &str = "people";

/// One side of one reviewed game.
#[derive(Clone, Debug, PartialEq)]
pub struct SideRow {
    /// Who played the side: [`PEOPLE`], or a player as `tafl match` writes it (`level=5`).
    pub player: String,
    /// The game: its line in a record file, or its number in a match, from 1.
    pub game: u32,
    pub side: Side,
    /// The side's accuracy, 0 to 100: the mean of its judged moves'.
    pub accuracy: f64,
    /// Its judged moves by class, in [`MoveClass`] order.
    pub classes: [u32; MoveClass::COUNT],
}

impl SideRow {
    /// The CSV header: `player,game,side,accuracy,best,...,found_win`.
    pub fn header() -> String {
        let classes: Vec<&str> = MoveClass::iter().map(MoveClass::name).collect();
        format!("player,game,side,accuracy,{}", classes.join(","))
    }

    /// The side's judged moves.
    pub fn moves(&self) -> u32 {
        self.classes.iter().sum()
    }

    /// Its judged moves of `class`.
    pub fn count(&self, class: MoveClass) -> u32 {
        self.classes[class as usize]
    }
}

/// The row as a CSV line (no newline); the player in quotes, as it may hold commas.
impl fmt::Display for SideRow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "\"{}\",{},{},{:.2}",
            self.player, self.game, self.side, self.accuracy
        )?;
        self.classes
            .iter()
            .try_for_each(|count| write!(f, ",{count}"))
    }
}

/// Why a line is not a row.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("not a row of player, game, side, accuracy and a count for each class: {0:?}")]
pub struct RowError(pub String);

impl FromStr for SideRow {
    type Err = RowError;

    fn from_str(line: &str) -> Result<SideRow, RowError> {
        let bad = || RowError(line.to_string());
        let (player, rest) = line
            .strip_prefix('"')
            .and_then(|line| line.split_once("\","))
            .ok_or_else(bad)?;
        let fields: Vec<&str> = rest.split(',').map(str::trim).collect();
        let [game, side, accuracy, counts @ ..] = fields.as_slice() else {
            return Err(bad());
        };
        let side = match *side {
            "attackers" => Side::Attackers,
            "defenders" => Side::Defenders,
            _ => return Err(bad()),
        };
        let counts: Vec<u32> = counts
            .iter()
            .map(|count| count.parse())
            .collect::<Result<_, _>>()
            .map_err(|_| bad())?;
        Ok(SideRow {
            player: player.to_string(),
            game: game.parse().map_err(|_| bad())?,
            side,
            accuracy: accuracy.parse().map_err(|_| bad())?,
            classes: counts.try_into().map_err(|_| bad())?,
        })
    }
}

/// Each side's row of `moves` played from `start`, reviewed within `budget`; a side with no
/// judged move has none.
fn review_game(
    engine: &Engine,
    start: Game,
    moves: Vec<Move>,
    budget: &ReviewBudget,
    players: BySide<&str>,
    game: u32,
) -> Vec<SideRow> {
    let mut review = Review::new(engine, start, moves, budget.clone())
        .expect("the moves were played legally from this start");
    let stop = AtomicBool::new(false);
    while !review.is_finished() {
        review
            .step(engine, Control::new(&stop))
            .expect("nothing raises the flag and the budget has no deadline");
    }
    let summary = review.summary();
    [Side::Attackers, Side::Defenders]
        .into_iter()
        .map(|side| SideRow {
            player: players[side].to_string(),
            game,
            side,
            accuracy: summary.accuracy[side],
            classes: std::array::from_fn(|class| {
                summary.classes[side].get(MoveClass::iter().nth(class).expect("a class"))
            }),
        })
        .filter(|row| row.moves() > 0)
        .collect()
}

/// Reviews game records (Copenhagen 11×11; each up to the first move the rules refuse or the end
/// of the game), both sides named `player` ([`PEOPLE`] for the real games), game `n` being the
/// `n`-th record; skips the games `done` says are, and hands each game's rows to `reviewed` as
/// it is done.
pub fn review_records(
    engine: &Engine,
    records: &[GameRecord],
    player: &str,
    budget: &ReviewBudget,
    done: impl Fn(u32) -> bool,
    mut reviewed: impl FnMut(u32, Vec<SideRow>),
) {
    let players = BySide {
        attackers: player,
        defenders: player,
    };
    for (index, record) in records.iter().enumerate() {
        let game = index as u32 + 1;
        if done(game) {
            continue;
        }
        let start = Game::new(Variant::standard(Rules::Copenhagen));
        let moves = legal_prefix(&start, record);
        reviewed(
            game,
            review_game(engine, start, moves, budget, players, game),
        );
    }
}

/// Plays the games of `config` between `players` (A, then B; each named as the rows will name
/// it), one thread for each of `threads`, and reviews each game from where its opening left it
/// (game `n` is the match's `n`-th, from 1), handing its rows to `reviewed` as it ends, unless
/// `done` says the game is. The match's score.
pub fn play_and_review(
    engine: &Engine,
    config: &MatchConfig,
    players: [(&Player, &str); 2],
    threads: usize,
    budget: &ReviewBudget,
    done: impl Fn(u32) -> bool + Sync,
    mut reviewed: impl FnMut(u32, Vec<SideRow>) + Send,
) -> MatchSummary {
    let [(a, a_name), (b, b_name)] = players;
    let pairs = (0..threads.max(1))
        .map(|_| -> PlayerPair<'_> {
            [
                Box::new(EnginePlayer { player: a, engine }),
                Box::new(EnginePlayer { player: b, engine }),
            ]
        })
        .collect();
    play_match(config, pairs, |finished| {
        let game = finished.index + 1;
        if done(game) {
            return;
        }
        let (start, opening) = config.openings.opening(finished.index / 2);
        let mut replay = start.clone();
        let moves = finished.played.moves[opening.len()..]
            .iter()
            .map(|text| replay.play(text).map(|played| played.played))
            .collect::<Result<Vec<Move>, _>>()
            .expect("a match's moves are legal");
        let players = if a_attacks(finished.index) {
            BySide {
                attackers: a_name,
                defenders: b_name,
            }
        } else {
            BySide {
                attackers: b_name,
                defenders: a_name,
            }
        };
        reviewed(
            game,
            review_game(engine, start, moves, budget, players, game),
        );
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::matchplay::{ClockUse, Openings};
    use crate::search::{EngineConfig, Level, Limits};

    fn engine() -> Engine {
        Engine::new(EngineConfig {
            hash_mb: 1,
            ..EngineConfig::default()
        })
    }

    fn budget() -> ReviewBudget {
        let limits = Limits {
            max_nodes: Some(500),
            ..Limits::default()
        };
        ReviewBudget::new(&limits, Level::STRONGEST, 0).without_critical()
    }

    #[test]
    fn a_row_reads_back_as_written_and_a_broken_line_is_refused() {
        let row = SideRow {
            player: "level=10,nodes=5000".to_string(),
            game: 7,
            side: Side::Defenders,
            accuracy: 88.25,
            classes: [5, 4, 3, 2, 1, 0, 0, 1],
        };
        let line = row.to_string();
        assert_eq!(
            line,
            "\"level=10,nodes=5000\",7,defenders,88.25,5,4,3,2,1,0,0,1"
        );
        assert_eq!(line.parse::<SideRow>(), Ok(row.clone()));
        assert_eq!(row.moves(), 16);
        assert_eq!(row.count(MoveClass::Inaccuracy), 2);
        assert_eq!(
            SideRow::header().split(',').count(),
            line.split(',').count() - 1
        );
        for broken in [
            "level=5,7,attackers,90,1,1,1,1,1,1,1,1",
            "\"x\",7,white,90,1,1,1,1,1,1,1,1",
            "\"x\",7,attackers,90,1,1,1",
            "\"x\",seven,attackers,90,1,1,1,1,1,1,1,1",
        ] {
            assert!(broken.parse::<SideRow>().is_err(), "{broken}");
        }
    }

    #[test]
    fn real_games_give_a_row_for_each_side_that_moved_and_skip_the_games_done() {
        let records = GameRecord::parse_all(
            "d1-d3 e5-e2 g1-g3 f4-c4,1,0,Black\nd1-d3,0,0,White\nh1-h3 f8-i8 f10-i10,0,0,White\n",
        )
        .expect("records");
        let mut seen = Vec::new();
        review_records(
            &engine(),
            &records,
            PEOPLE,
            &budget(),
            |game| game == 3,
            |game, rows| {
                seen.push((game, rows));
            },
        );
        assert_eq!(seen.len(), 2);
        let (game, rows) = &seen[0];
        assert_eq!(*game, 1);
        assert_eq!(rows.len(), 2);
        assert!(
            rows.iter()
                .all(|row| row.player == PEOPLE && row.moves() == 2)
        );
        assert!(rows.iter().all(|row| (0.0..=100.0).contains(&row.accuracy)));
        // One ply: the defenders judged none.
        let (game, rows) = &seen[1];
        assert_eq!(*game, 2);
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].side, Side::Attackers);
    }

    #[test]
    fn a_match_s_rows_name_each_side_s_player_and_leave_out_the_opening() {
        let engine = engine();
        let player = |depth| Player {
            level: Level::STRONGEST,
            max_depth: Some(depth),
            max_nodes: None,
            movetime: None,
            seed: None,
            clock: ClockUse::Native,
        };
        let (deep, shallow) = (player(2), player(1));
        let config = MatchConfig {
            openings: Openings::random(Variant::standard(Rules::Copenhagen)),
            games: 2..4,
            max_plies: 12,
            time_control: None,
        };
        let mut rows = Vec::new();
        let summary = play_and_review(
            &engine,
            &config,
            [(&deep, "deep"), (&shallow, "shallow")],
            1,
            &budget(),
            |game| game == 4,
            |_, game_rows| rows.extend(game_rows),
        );
        assert_eq!(summary.games, 2);
        // Game 3 (index 2): A attacks, from opening 1's few random plies to ply 12.
        assert_eq!(rows.len(), 2);
        let (attackers, defenders) = (&rows[0], &rows[1]);
        assert_eq!((attackers.game, attackers.side), (3, Side::Attackers));
        assert_eq!(attackers.player, "deep");
        assert_eq!(defenders.player, "shallow");
        let (_, opening) = config.openings.opening(1);
        assert_eq!(
            (attackers.moves() + defenders.moves()) as usize,
            12 - opening.len()
        );
    }
}
