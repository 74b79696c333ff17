//! The 1,752 real Copenhagen games of tests/data/copenhagen-games.csv replay
//! move for move: every ply legal, with exactly the recorded captures, until
//! the rules end the game; where they end it on the record's last ply, the
//! winner is the recorded one.

use std::collections::BTreeMap;

use tafl::rules::{Game, Rules, Side, Variant};

const GAMES: &str = include_str!("data/copenhagen-games.csv");

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
