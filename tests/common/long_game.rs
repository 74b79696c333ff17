//! The longest legal games there are: Tablut has no repetition rule, so one
//! attacker and one defender can go back and forth for as long as the
//! server's cap allows. Each such game costs the server a full replay.

use tafl::rules::{Game, Move, Rules, Variant};

/// A legal Tablut game of `plies` moves (a multiple of 4): the same four
/// moves, each side's piece out and back, again and again, with no capture.
pub fn back_and_forth(plies: usize) -> Vec<String> {
    assert!(plies.is_multiple_of(4));
    let rules = Rules::Tablut;
    let start = Game::new(Variant::new(rules, rules.default_size()));
    let cycle = quiet_cycle(&start).expect("a quiet back-and-forth exists from the start");
    cycle
        .iter()
        .map(ToString::to_string)
        .cycle()
        .take(plies)
        .collect()
}

/// Four moves without a capture that bring the start back: an attacker out,
/// a defender out, the attacker back, the defender back.
fn quiet_cycle(start: &Game) -> Option<[Move; 4]> {
    for attacker in start.position().legal_moves().iter().copied() {
        let mut after_attacker = start.clone();
        if !quiet(&mut after_attacker, attacker) {
            continue;
        }
        for defender in after_attacker.position().legal_moves().iter().copied() {
            let back = |mv: Move| Move {
                from: mv.to,
                to: mv.from,
            };
            let cycle = [attacker, defender, back(attacker), back(defender)];
            let mut game = start.clone();
            if cycle.iter().all(|mv| quiet(&mut game, *mv)) {
                return Some(cycle);
            }
        }
    }
    None
}

/// Plays `mv` if it is legal, takes nothing and leaves the game going.
fn quiet(game: &mut Game, mv: Move) -> bool {
    match game.play_move(mv) {
        Ok(played) => played.captures.is_empty() && !played.status.is_over(),
        Err(_) => false,
    }
}
