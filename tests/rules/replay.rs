//! The 1,752 real Copenhagen games of tests/data/copenhagen-games.csv replay
//! move for move: every ply legal, with exactly the recorded captures, until
//! the rules end the game; where they end it on the record's last ply, the
//! winner is the recorded one. Along one game in nine, every move's preview
//! is checked at every ply.

use std::collections::BTreeMap;

use crate::common;
use common::previews::check_previews;

use tafl::rules::{BoardSize, EndReason, Game, Rules, Side, Status, Variant};

const GAMES: &str = include_str!("../data/copenhagen-games.csv");

#[test]
fn real_games_replay_with_the_recorded_captures() {
    let mut endings: BTreeMap<String, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut early = Vec::new();
    let mut plies = 0;
    for (line_number, line) in GAMES.lines().enumerate() {
        let line_number = line_number + 1;
        let columns: Vec<&str> = line.split(',').collect();
        assert_eq!(columns.len(), 4, "line {line_number}: expected 4 columns");
        let (moves, recorded) = (columns[0], columns[3]);
        let moves: Vec<&str> = moves
            .split_whitespace()
            .filter(|&token| token != "timeout")
            .collect();
        let mut game = Game::new(Variant::standard(Rules::Copenhagen));
        let mut ending = None;
        for (index, text) in moves.iter().enumerate() {
            // Every move's preview, on every ply of one game in nine.
            if line_number % 9 == 0
                && let Err(error) = check_previews(&game)
            {
                failures.push(format!("line {line_number}, ply {}: {error}", index + 1));
            }
            match game.play(text) {
                Ok(played) => {
                    plies += 1;
                    if let Some(reason) = played.status.reason() {
                        ending = Some((index, reason, played.status.winner()));
                        break;
                    }
                }
                Err(error) => {
                    failures.push(format!("line {line_number}: {error}"));
                    break;
                }
            }
        }
        let category = match ending {
            None => format!("not decided on the board (recorded {recorded})"),
            Some((index, reason, winner)) if index + 1 == moves.len() => {
                let expected = match recorded {
                    "Black" => Some(Side::Attackers),
                    "White" => Some(Side::Defenders),
                    _ => None,
                };
                if winner != expected {
                    failures.push(format!(
                        "line {line_number}: the rules end the game on its last ply ({reason}) with winner {winner:?}, the record says {recorded}"
                    ));
                }
                format!("decided on the last ply: {reason}")
            }
            Some((index, reason, _)) => {
                early.push(format!(
                    "line {line_number}: ply {} of {}",
                    index + 1,
                    moves.len()
                ));
                format!("ended by the rules before the record did: {reason}")
            }
        };
        *endings.entry(category).or_default() += 1;
    }
    println!(
        "{plies} plies replayed from {} games:",
        GAMES.lines().count()
    );
    for (category, count) in &endings {
        println!("{count:>6}  {category}");
    }
    println!("ended early: {}", early.join(", "));
    assert!(
        failures.is_empty(),
        "{} games failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(GAMES.lines().count(), 1752);
}

/// Four plies that bring the 9×9 Tablut start back: an attacker and a
/// defender step out and back, capturing nothing.
const TABLUT_SHUFFLE: [&str; 4] = ["d1-d2", "e3-d3", "d2-d1", "d3-e3"];

/// Tablut has no repetition rule, so a 4,096-ply back-and-forth game is
/// legal: it replays to the end (the benchmark times it) and counts every
/// standing of the start, each placement apart from the others.
#[test]
fn long_tablut_shuffle_replays_and_counts_its_repetitions() {
    let mut game = Game::new(Variant::standard(Rules::Tablut));
    for (ply, text) in TABLUT_SHUFFLE.iter().cycle().take(4096).enumerate() {
        let played = game.play(text).expect("a legal shuffle");
        assert_eq!(played.status, Status::Ongoing, "ply {}", ply + 1);
        // After ply p the placement has stood once per full cycle so far,
        // and the start counts once more for the placement after ply 4k.
        let cycles = (ply / 4 + 1) as u32;
        let expected = if (ply + 1) % 4 == 0 {
            cycles + 1
        } else {
            cycles
        };
        assert_eq!(played.repetitions, expected, "ply {}", ply + 1);
    }
    assert_eq!(game.ply(), 4096);
    assert_eq!(game.repetitions(), 1025);
    assert_eq!(game.reversible_history().len(), 4097);
}

/// The same shuffle under Copenhagen and Fetlar rules ends on the third
/// standing of the start: the attackers win (the defenders repeated) or
/// it is a draw.
#[test]
fn shuffle_ends_on_the_third_standing_where_repetition_counts() {
    for (rules, outcome) in [
        (
            Rules::Copenhagen,
            Status::Won {
                winner: Side::Attackers,
                reason: EndReason::Repetition,
            },
        ),
        (
            Rules::Fetlar,
            Status::Drawn {
                reason: EndReason::Repetition,
            },
        ),
    ] {
        let mut game = Game::new(Variant::new(rules, BoardSize::Nine));
        let mut last = None;
        for text in TABLUT_SHUFFLE.iter().cycle().take(8) {
            // The last move's preview finds the third standing too.
            assert_eq!(check_previews(&game).err(), None, "{rules}");
            last = Some(game.play(text).expect("a legal shuffle"));
        }
        let last = last.expect("eight plies");
        assert_eq!((last.repetitions, last.status), (3, outcome), "{rules}");
        assert!(game.play("d1-d2").unwrap_err().is_game_over(), "{rules}");
    }
}
