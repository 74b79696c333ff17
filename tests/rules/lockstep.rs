//! A move-by-move cross-check of the engine against the slow, independent
//! reference in tests/common/reference/: random games on all nine variants,
//! random custom starts, the real games of tests/data/copenhagen-games.csv and
//! the reference's own rule positions; and rule-by-rule checks of the
//! reference itself.

use crate::common;

use std::collections::{BTreeMap, HashMap};
use std::time::Instant;

use common::reference::{self, Board, Rng, Sq};
use tafl::rules::{BoardSize, EndReason, MoveText, Position, PositionText, Rules, Status, Variant};

fn variant(rules: &str, size: u32) -> Variant {
    let rules: Rules = rules.parse().expect("a ruleset");
    Variant::new(rules, BoardSize::new(size).expect("a board size"))
}

/// The reference's result string for an engine status.
fn status_text(status: Status) -> String {
    fn reason_name(reason: EndReason) -> &'static str {
        match reason {
            EndReason::KingEscaped => "king-escaped",
            EndReason::ExitFort => "exit-fort",
            EndReason::KingCaptured => "king-captured",
            EndReason::Encircled => "encircled",
            EndReason::NoMoves => "no-moves",
            EndReason::Repetition => "repetition",
        }
    }
    match status {
        Status::Ongoing => "ongoing".to_string(),
        Status::Won { winner, reason } => format!("{winner} won by {}", reason_name(reason)),
        Status::Drawn { reason } => format!("drawn by {}", reason_name(reason)),
    }
}

/// A move as (from file, from rank, to file, to rank), 0-based: cheap to sort and compare.
type MoveKey = (usize, usize, usize, usize);

fn engine_moves(position: &Position) -> Vec<MoveKey> {
    let mut moves: Vec<MoveKey> = position
        .legal_moves()
        .iter()
        .map(|m| {
            (
                m.from.file().into(),
                m.from.rank().into(),
                m.to.file().into(),
                m.to.rank().into(),
            )
        })
        .collect();
    moves.sort_unstable();
    moves
}

fn reference_moves(board: &Board) -> Vec<MoveKey> {
    let mut moves: Vec<MoveKey> = board
        .legal_moves()
        .into_iter()
        .map(|(f, t)| (f.file, f.rank, t.file, t.rank))
        .collect();
    moves.sort_unstable();
    moves
}

fn key_text(&(ff, fr, tf, tr): &MoveKey) -> String {
    reference::move_text(Sq { file: ff, rank: fr }, Sq { file: tf, rank: tr })
}

/// What one side's engine says of one move.
#[derive(Debug, PartialEq, Eq)]
struct Verdict {
    captures: Vec<String>,
    result: String,
    position: String,
}

fn engine_play(position: &mut Position, mv: &str) -> Result<Verdict, String> {
    let text: MoveText = mv
        .parse()
        .map_err(|e| format!("engine cannot parse {mv}: {e}"))?;
    let chosen = text
        .to_move(position)
        .map_err(|e| format!("engine refuses {mv}: {e}"))?;
    let outcome = position
        .play(chosen)
        .map_err(|e| format!("engine refused {mv}: {e}"))?;
    Ok(Verdict {
        captures: outcome.captures.iter().map(|sq| sq.to_string()).collect(),
        result: status_text(outcome.status),
        position: position.to_string(),
    })
}

fn reference_play(board: &mut Board, mv: &str) -> Result<Verdict, String> {
    let (from, to) = reference::parse_move(mv, board.size)?;
    let captures = board.play(from, to)?;
    Ok(Verdict {
        captures: captures.iter().map(Sq::to_string).collect(),
        result: board.outcome.to_string(),
        position: board.text(),
    })
}

/// The engine and the reference on the same game.
#[derive(Clone)]
struct Lockstep {
    rules: String,
    engine: Position,
    reference: Board,
}

impl Lockstep {
    fn new(text: &str, rules: &str) -> Result<Lockstep, String> {
        let reference =
            Board::parse(text, rules).map_err(|e| format!("reference rejects {text}: {e}"))?;
        let setup: PositionText = text
            .parse()
            .map_err(|e| format!("engine cannot parse {text}: {e}"))?;
        let size = u32::try_from(reference.size).expect("a small board");
        let engine = Position::from_setup(&setup, variant(rules, size))
            .map_err(|e| format!("engine rejects {text}: {e}"))?;
        let pair = Lockstep {
            rules: rules.to_string(),
            engine,
            reference,
        };
        pair.compare_position()?;
        Ok(pair)
    }

    /// Same text, same status, same legal moves.
    fn compare_position(&self) -> Result<(), String> {
        let text = self.reference.text();
        let mut problems = Vec::new();
        if self.engine.to_string() != text {
            problems.push(format!("engine prints {}", self.engine));
        }
        let (engine_status, reference_status) = (
            status_text(self.engine.status()),
            self.reference.outcome.to_string(),
        );
        if engine_status != reference_status {
            problems.push(format!(
                "status: engine {engine_status:?}, reference {reference_status:?}"
            ));
        }
        let (engine, reference) = (engine_moves(&self.engine), reference_moves(&self.reference));
        if engine != reference {
            let only_engine: Vec<String> = engine
                .iter()
                .filter(|m| !reference.contains(m))
                .map(key_text)
                .collect();
            let only_reference: Vec<String> = reference
                .iter()
                .filter(|m| !engine.contains(m))
                .map(key_text)
                .collect();
            problems.push(format!("legal moves: only the engine has {only_engine:?}, only the reference {only_reference:?}"));
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "{} position {text}: {}",
                self.rules,
                problems.join("; ")
            ))
        }
    }

    /// Plays `mv` on both and compares what each says of it.
    fn play(&mut self, mv: &str) -> Result<Verdict, String> {
        let before = self.reference.text();
        let engine = engine_play(&mut self.engine, mv);
        let reference = reference_play(&mut self.reference, mv);
        match (engine, reference) {
            (Ok(engine), Ok(reference)) if engine == reference => Ok(reference),
            (engine, reference) => Err(format!(
                "{} position {before}, move {mv}:\n    engine    {engine:?}\n    reference {reference:?}",
                self.rules
            )),
        }
    }

    /// Plays every legal move on copies and compares each (a depth-1 divide).
    fn compare_every_move(&self) -> Result<(), String> {
        for mv in reference_moves(&self.reference) {
            let mut copy = Lockstep {
                rules: self.rules.clone(),
                engine: self.engine,
                reference: self.reference,
            };
            copy.play(&key_text(&mv))?;
            copy.compare_position()?;
        }
        Ok(())
    }
}

/// Tallies of the cross-check, printed so the rare rules are seen to happen.
#[derive(Default)]
struct Tally {
    games: usize,
    plies: usize,
    captures: usize,
    shieldwall_captures: usize,
    /// Positions where every legal move was played and compared.
    divided: usize,
    endings: BTreeMap<String, usize>,
    divergences: Vec<String>,
}

impl Tally {
    fn report(&self, title: &str) {
        println!(
            "{title}: {} games, {} plies, {} captures ({} by shieldwall), {} positions with every move compared",
            self.games, self.plies, self.captures, self.shieldwall_captures, self.divided
        );
        for (ending, count) in &self.endings {
            println!("    {count:6}  {ending}");
        }
    }

    fn ended(&mut self, ending: &str) {
        *self.endings.entry(ending.to_string()).or_default() += 1;
    }

    fn ended_in(&mut self, rules: &str, ending: &str) {
        self.ended(&format!("{rules:<10} {ending}"));
    }

    fn assert_agreed(&self) {
        assert!(
            self.divergences.is_empty(),
            "{} games diverged; the first ones:\n{}",
            self.divergences.len(),
            self.divergences
                .iter()
                .take(8)
                .cloned()
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}

/// Plays one random game from `text` with both engines, at most `max_plies`,
/// comparing every move of every `every_move_interval`-th position too.
fn random_game(
    text: &str,
    rules: &str,
    rng: &mut Rng,
    max_plies: usize,
    every_move_interval: usize,
    tally: &mut Tally,
) {
    tally.games += 1;
    let mut pair = match Lockstep::new(text, rules) {
        Ok(pair) => pair,
        Err(divergence) => {
            tally.divergences.push(divergence);
            return tally.ended_in(rules, "diverged");
        }
    };
    for ply in 0..max_plies {
        if every_move_interval > 0 && ply % every_move_interval == 0 {
            tally.divided += 1;
            if let Err(divergence) = pair.compare_every_move() {
                tally.divergences.push(divergence);
                return tally.ended_in(rules, "diverged");
            }
        }
        let weighted = !rng.chance(10);
        let Some((from, to)) = pair.reference.random_move(rng, weighted) else {
            return tally.ended_in(rules, &pair.reference.outcome.to_string());
        };
        let walled = pair.reference.shieldwall_count(from, to);
        let played = pair
            .play(&reference::move_text(from, to))
            .and_then(|v| pair.compare_position().map(|()| v));
        match played {
            Ok(verdict) => {
                tally.plies += 1;
                tally.captures += verdict.captures.len();
                tally.shieldwall_captures += walled;
            }
            Err(divergence) => {
                tally.divergences.push(divergence);
                return tally.ended_in(rules, "diverged");
            }
        }
        if pair.reference.outcome.is_over() {
            return tally.ended_in(rules, &pair.reference.outcome.to_string());
        }
    }
    tally.ended_in(rules, "ongoing after the ply limit");
}

const RULESETS: [&str; 3] = ["copenhagen", "fetlar", "tablut"];
const SIZES: [usize; 3] = [9, 11, 13];

#[test]
fn engine_agrees_with_reference_on_random_games() {
    let clock = Instant::now();
    let mut tally = Tally::default();
    let mut rng = Rng::new(2026);
    for game in 0..180 {
        let (rules, size) = (RULESETS[game % 3], SIZES[(game / 3) % 3]);
        random_game(
            &reference::start_text(size),
            rules,
            &mut rng,
            200,
            50,
            &mut tally,
        );
    }
    tally.report(&format!(
        "random games from the standard starts ({:?})",
        clock.elapsed()
    ));
    tally.assert_agreed();
}

/// Custom starts made for the rare rules: scattered pieces (forts, king
/// captures on all kinds of squares), nearly closed rings (encirclement) and
/// nearly closed shieldwalls; every move of every sixth position is compared.
#[test]
fn engine_agrees_with_reference_from_custom_starts() {
    type MakeStart = fn(&mut Rng, usize) -> String;
    let families: [(&str, MakeStart); 3] = [
        ("scattered", reference::random_setup),
        ("ring", reference::ring_setup),
        ("wall", reference::wall_setup),
    ];
    let mut failed = false;
    for (name, make) in families {
        let clock = Instant::now();
        let mut tally = Tally::default();
        let mut rng = Rng::new(7);
        for game in 0..180 {
            let (rules, size) = (RULESETS[game % 3], SIZES[(game / 3) % 3]);
            let text = make(&mut rng, size);
            random_game(&text, rules, &mut rng, 40, 6, &mut tally);
        }
        tally.report(&format!(
            "random games from {name} custom starts ({:?})",
            clock.elapsed()
        ));
        if !tally.divergences.is_empty() {
            failed = true;
            println!(
                "{name}: {}",
                tally
                    .divergences
                    .iter()
                    .take(8)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join("\n")
            );
        }
    }
    assert!(!failed, "the engine and the reference disagree (see above)");
}

/// Many more games, every third position divided (`cargo test --release -- --ignored`).
#[test]
#[ignore = "slow: thousands of games"]
fn engine_agrees_with_reference_on_many_more_games() {
    let clock = Instant::now();
    let mut tally = Tally::default();
    let mut rng = Rng::new(99);
    for game in 0..3600 {
        let (rules, size) = (RULESETS[game % 3], SIZES[(game / 3) % 3]);
        let text = match game % 4 {
            0 => reference::start_text(size),
            1 => reference::random_setup(&mut rng, size),
            2 => reference::ring_setup(&mut rng, size),
            _ => reference::wall_setup(&mut rng, size),
        };
        random_game(&text, rules, &mut rng, 150, 3, &mut tally);
    }
    tally.report(&format!("many random games ({:?})", clock.elapsed()));
    tally.assert_agreed();
}

/// One recorded ply: the move and the captures the record lists (deduplicated, sorted).
fn recorded_ply(token: &str) -> Result<(String, Vec<String>), String> {
    let mut parts = token.split('x');
    let (from, to) = reference::parse_move(parts.next().unwrap_or(""), 11)?;
    let mut captures: Vec<Sq> = parts
        .map(|sq| reference::parse_square(sq, 11))
        .collect::<Result<_, _>>()?;
    captures.sort();
    captures.dedup();
    Ok((
        reference::move_text(from, to),
        captures.iter().map(Sq::to_string).collect(),
    ))
}

/// Replays every real game with both engines (positions, legal moves and each
/// recorded move's outcome compared at every ply), and from every 15th ply
/// of every eighth game plays a short random continuation in lockstep too.
#[test]
fn engine_agrees_with_reference_on_real_games() {
    let clock = Instant::now();
    let mut tally = Tally::default();
    let mut continuations = Tally::default();
    let mut rng = Rng::new(11);
    let mut record_mismatches = Vec::new();
    let (mut winner_agrees, mut winner_differs) = (0, Vec::new());
    let csv = include_str!("../data/copenhagen-games.csv");
    for (game, line) in csv.lines().enumerate() {
        let fields: Vec<&str> = line.split(',').collect();
        let (moves, recorded_status) = (fields[0], fields[fields.len() - 1]);
        let tokens: Vec<&str> = moves
            .split_whitespace()
            .filter(|t| *t != "timeout")
            .collect();
        tally.games += 1;
        let start = reference::start_text(11);
        let mut pair = Lockstep::new(&start, "copenhagen").expect("the start agrees");
        let mut seen: HashMap<String, u32> = HashMap::from([(start, 1)]);
        let mut ending = "the record ends first".to_string();
        for (ply, token) in tokens.iter().enumerate() {
            if pair.reference.outcome.is_over() {
                ending = format!(
                    "the rules ended it before the record: {}",
                    pair.reference.outcome
                );
                break;
            }
            let (mv, recorded_captures) = match recorded_ply(token) {
                Ok(parsed) => parsed,
                Err(e) => {
                    ending = format!("unreadable record token: {e}");
                    break;
                }
            };
            if game % 8 == 0 && ply % 15 == 0 {
                let mut branch = pair.clone();
                continuation(&mut branch, &mut rng, 20, &mut continuations);
            }
            let (from, to) = reference::parse_move(&mv, 11).expect("a move");
            if !pair.reference.legal_moves().contains(&(from, to)) {
                ending = "a recorded move is illegal".to_string();
                break;
            }
            let verdict = match pair
                .play(&mv)
                .and_then(|v| pair.compare_position().map(|()| v))
            {
                Ok(verdict) => verdict,
                Err(divergence) => {
                    tally.divergences.push(format!(
                        "game {} ply {}: {divergence}",
                        game + 1,
                        ply + 1
                    ));
                    ending = "diverged".to_string();
                    break;
                }
            };
            tally.plies += 1;
            tally.captures += verdict.captures.len();
            if verdict.captures != recorded_captures {
                record_mismatches.push(format!(
                    "game {} ply {} {token}: both engines capture {:?}",
                    game + 1,
                    ply + 1,
                    verdict.captures
                ));
            }
            let stood = seen.entry(verdict.position.clone()).or_default();
            *stood += 1;
            if *stood == 3 && ply + 1 < tokens.len() {
                ending = "repetition (third time) before the record ends".to_string();
                break;
            }
            if ply + 1 == tokens.len() {
                ending = if pair.reference.outcome.is_over() {
                    let winner = match recorded_status {
                        "Black" => "attackers",
                        "White" => "defenders",
                        other => other,
                    };
                    if pair.reference.outcome.to_string().starts_with(winner) {
                        winner_agrees += 1;
                    } else {
                        winner_differs.push(format!(
                            "game {}: {} but recorded {recorded_status}",
                            game + 1,
                            pair.reference.outcome
                        ));
                    }
                    format!("the last ply ends it: {}", pair.reference.outcome)
                } else {
                    "the record ends (resignation or time)".to_string()
                };
            }
        }
        tally.ended(&ending);
    }
    tally.report(&format!("real Copenhagen games ({:?})", clock.elapsed()));
    println!(
        "    winners decided on the board: {winner_agrees} as recorded, {} not",
        winner_differs.len()
    );
    for line in winner_differs.iter().take(5) {
        println!("        {line}");
    }
    println!(
        "    recorded capture lists that both engines contradict: {}",
        record_mismatches.len()
    );
    for line in record_mismatches.iter().take(5) {
        println!("        {line}");
    }
    continuations.report("random continuations from real positions");
    tally.assert_agreed();
    continuations.assert_agreed();
}

/// Random plies in lockstep from a position along a real game.
fn continuation(pair: &mut Lockstep, rng: &mut Rng, max_plies: usize, tally: &mut Tally) {
    tally.games += 1;
    for _ in 0..max_plies {
        let Some((from, to)) = pair.reference.random_move(rng, true) else {
            break;
        };
        let walled = pair.reference.shieldwall_count(from, to);
        match pair
            .play(&reference::move_text(from, to))
            .and_then(|v| pair.compare_position().map(|()| v))
        {
            Ok(verdict) => {
                tally.plies += 1;
                tally.captures += verdict.captures.len();
                tally.shieldwall_captures += walled;
            }
            Err(divergence) => {
                tally.divergences.push(divergence);
                return tally.ended("diverged");
            }
        }
        if pair.reference.outcome.is_over() {
            return tally.ended(&pair.reference.outcome.to_string());
        }
    }
    tally.ended("ongoing after the ply limit");
}

/// The hand-made positions of the reference's own rule tests below
/// (attackers, defenders, king), each a corner case of some rule.
const RULE_POSITIONS: &[(&str, &str, &str)] = &[
    ("e3 a5", "e4", "h9"),
    ("d4 f4", "e8", "h9"),
    ("c5 e7 e3 k5", "d5 e6 e4", "h9"),
    ("b7", "a3", "h9"),
    ("a4", "f5", "h9"),
    ("f5", "a4", "h9"),
    ("a4", "f5", "f6"),
    ("f5", "a4", "f6"),
    ("c5", "b1", "h9"),
    ("b1", "c5", "h9"),
    ("d8", "c8", "e9"),
    ("g9", "f7", "h9"),
    ("c8 k8", "", "d8"),
    ("b1 c2 d2 e2 f4", "c1 d1 e1", "h9"),
    ("b1 c2 e2 f4", "c1 d1 e1", "h9"),
    ("c2 d2 e2 f4", "c1 d1 e1", "h9"),
    ("b2 c2 d5", "b1 c1", "h9"),
    ("b1 c2 d2 e2 f4", "c1 e1", "d1"),
    ("c1 d1", "b1 d2 e4", "c2"),
    ("c1 d1", "c2 d2 e4", "b1"),
    ("a4 b5 b6 b8 b9 a10 c7", "a5 a6 a8 a9", "h9"),
    ("a4 b5 b6 b8 a10 c7", "a5 a6 a8 a9", "h9"),
    ("b2 c2 e2 f2 g1 d5", "b1 c1 e1 f1", "h9"),
    ("b1 c2 e1 d5", "c1 d1", "h9"),
    ("b1 c2 d2 e2 f3 j1", "c1 d1 e1 f2", "h9"),
    ("e9 e7 d8 k8", "", "e8"),
    ("e9 e7 d8 k8", "k10", "e8"),
    ("e7 g7 f11", "k10", "f7"),
    ("e6 g6 f7 a5", "k10", "f6"),
    ("e9 e7 k8", "k10", "e8"),
    ("e9 e7 d8 f8 k2", "k10", "e8"),
    ("d6 e7 e5 k2", "k10", "f6"),
    ("a4 a6 c5", "", "a5"),
    ("a3 c2", "k10", "a2"),
    ("k9", "", "a5"),
    ("h9", "", "e2"),
    ("k8 h11", "d1 d2 f1 f2 e3 d5", "e1"),
    ("k8 h11", "d1 d2 f1 f2 e2 d5", "e1"),
    ("e3 h11", "d1 d2 f1 f2 d5", "e1"),
    ("c1 h11", "d1 d2 f1 f2 e3 d5", "e1"),
    ("k8 h11", "d1 d2 f1 f2 e3 d3", "e1"),
    ("a3 a5 b3 k5", "c1 c2 d3 e3 f2 g1 d1", "e1"),
    ("e5", "e6 a4", "h8"),
    ("a2 b1 k10", "c1 b2 a3 k9 j10", "f5"),
    ("b3 b4 b5 f3 f4 f5 c2 d2 e2 c6 d6 e9", "", "d4"),
    ("b3 b4 b5 f3 f4 f5 c2 d2 e2 c6 d6 e9", "c4 e4", "d4"),
    ("b3 b4 b5 f3 f4 f5 c2 d2 e2 c6 d6 e9", "h8", "d4"),
    (
        "b3 b4 b5 f3 f4 f5 c2 d2 e2 c6 d6 e9 h8 h10 g9 i9",
        "h9",
        "d4",
    ),
    ("a2 b1", "c1 b2 a3", "k5"),
];

/// Every rule-test position, under every ruleset, either side to move, on
/// 11x11 and 13x13: every move compared, and on 11x11 every reply too.
#[test]
fn engine_agrees_with_reference_around_the_rule_positions() {
    let clock = Instant::now();
    let mut tally = Tally::default();
    for &(attackers, defenders, king) in RULE_POSITIONS {
        for size in [11, 13] {
            for side in ['a', 'd'] {
                let text = reference::position_text(size, attackers, defenders, king, side);
                if Board::parse(&text, "copenhagen").is_err() {
                    // e.g. a soldier on 13x13's throne: the engine must refuse it too
                    let setup: PositionText = text.parse().expect("the engine parses the text");
                    let refused = Position::from_setup(&setup, variant("copenhagen", size as u32));
                    assert!(refused.is_err(), "the engine accepts {text}");
                    continue;
                }
                for rules in RULESETS {
                    tally.games += 1;
                    let checked = Lockstep::new(&text, rules).and_then(|pair| {
                        pair.compare_every_move()?;
                        tally.divided += 1;
                        if size > 11 {
                            return Ok(());
                        }
                        for (from, to) in pair.reference.legal_moves() {
                            let mut child = pair.clone();
                            child.play(&reference::move_text(from, to))?;
                            child.compare_every_move()?;
                            tally.divided += 1;
                        }
                        Ok(())
                    });
                    if let Err(divergence) = checked {
                        tally.divergences.push(divergence);
                    }
                }
            }
        }
    }
    tally.report(&format!(
        "around the rule positions ({:?})",
        clock.elapsed()
    ));
    tally.assert_agreed();
}

// ---------------------------------------------------------------- the reference itself

mod reference_rules {
    //! Rule-by-rule checks of the reference itself, on hand-made positions
    //! written from docs/RULES.md; they need nothing from the engine.
    use crate::common::reference::{legal_moves, perft, play, position_text, start_text};

    /// Plays `mv` on a position given by lists of squares and returns
    /// (captures joined by ' ', result, next position text).
    fn outcome(
        size: usize,
        rules: &str,
        pieces: (&str, &str, &str),
        side: char,
        mv: &str,
    ) -> (String, String, String) {
        let text = position_text(size, pieces.0, pieces.1, pieces.2, side);
        let played = play(&text, rules, mv).unwrap_or_else(|e| panic!("{mv} on {text}: {e}"));
        (played.captures.join(" "), played.result, played.position)
    }

    /// Captures of `mv` on 11x11; `pieces` = (attackers, defenders, king).
    fn captures(rules: &str, pieces: (&str, &str, &str), side: char, mv: &str) -> String {
        outcome(11, rules, pieces, side, mv).0
    }

    /// Result of `mv` on 11x11.
    fn result(rules: &str, pieces: (&str, &str, &str), side: char, mv: &str) -> String {
        outcome(11, rules, pieces, side, mv).1
    }

    fn has(moves: &[String], mv: &str) -> bool {
        moves.iter().any(|m| m == mv)
    }

    #[test]
    fn start_positions_and_move_counts() {
        assert_eq!(
            start_text(11),
            "/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/ a"
        );
        let count = |size: usize, side: &str| {
            legal_moves(&start_text(size).replace(" a", side), "copenhagen").len()
        };
        assert_eq!(count(11, " a"), 116);
        assert_eq!(count(11, " d"), 60);
        assert_eq!(count(13, " a"), 180);
        assert_eq!(count(9, " a"), 72);
        assert_eq!(count(9, " d"), 56);
    }

    #[test]
    fn known_copenhagen_perft_to_depth_3() {
        let start = start_text(11);
        assert_eq!(perft(&start, "copenhagen", 0), 1);
        assert_eq!(perft(&start, "copenhagen", 1), 116);
        assert_eq!(perft(&start, "copenhagen", 2), 6_788);
        assert_eq!(perft(&start, "copenhagen", 3), 806_344);
    }

    #[test]
    fn position_text_parses_loosely() {
        let text = start_text(13);
        let loose = text.trim_start_matches('/').replace("/ a", " A");
        assert_eq!(
            play(&loose, "Copenhagen", "G2-G3"),
            play(&text, "copenhagen", "g2-g3")
        );
        assert_eq!(
            play(&text, "copenhagen", "g2g3"),
            play(&text, "copenhagen", "g2-g3")
        );
    }

    #[test]
    fn movement_throne_and_corners() {
        // Copenhagen: a piece passes over the empty throne f6 but may not stop there.
        let text = position_text(11, "f3", "", "b9", 'a');
        let moves = legal_moves(&text, "copenhagen");
        assert!(has(&moves, "f3-f5") && has(&moves, "f3-f7") && !has(&moves, "f3-f6"));
        // Tablut: only the king may pass through the throne.
        let moves = legal_moves(&text, "tablut");
        assert!(has(&moves, "f3-f5") && !has(&moves, "f3-f7"));
        // Only the king may stop on a corner.
        let moves = legal_moves(&position_text(11, "a3", "", "f4", 'a'), "copenhagen");
        assert!(has(&moves, "a3-a2") && !has(&moves, "a3-a1"));
        // The king may stop on and pass through the throne.
        let moves = legal_moves(&position_text(11, "a3", "", "f4", 'd'), "tablut");
        assert!(has(&moves, "f4-f6") && has(&moves, "f4-f11"));
        let moves = legal_moves(&position_text(11, "a3", "", "a2", 'd'), "copenhagen");
        assert!(has(&moves, "a2-a1"));
        // A piece on the throne blocks.
        let moves = legal_moves(&position_text(11, "f3", "", "f6", 'a'), "copenhagen");
        assert!(has(&moves, "f3-f5") && !has(&moves, "f3-f7"));
    }

    #[test]
    fn custodial_capture() {
        assert_eq!(
            captures("copenhagen", ("e3 a5", "e4", "h9"), 'a', "a5-e5"),
            "e4"
        );
        // Moving between two enemies is safe.
        assert_eq!(
            captures("copenhagen", ("d4 f4", "e8", "h9"), 'd', "e8-e4"),
            ""
        );
        // Several at once, printed by file, then rank.
        assert_eq!(
            captures("fetlar", ("c5 e7 e3 k5", "d5 e6 e4", "h9"), 'a', "k5-e5"),
            "d5 e4 e6"
        );
        // The edge is never hostile.
        assert_eq!(captures("copenhagen", ("b7", "a3", "h9"), 'a', "b7-b3"), "");
    }

    #[test]
    fn hostile_throne_and_corners() {
        // The empty throne is hostile to defenders and attackers.
        assert_eq!(
            captures("copenhagen", ("a4", "f5", "h9"), 'a', "a4-f4"),
            "f5"
        );
        assert_eq!(
            captures("copenhagen", ("f5", "a4", "h9"), 'd', "a4-f4"),
            "f5"
        );
        // The king on the throne is hostile to attackers, not to his defenders...
        assert_eq!(captures("copenhagen", ("a4", "f5", "f6"), 'a', "a4-f4"), "");
        assert_eq!(captures("fetlar", ("a4", "f5", "f6"), 'a', "a4-f4"), "");
        assert_eq!(
            captures("copenhagen", ("f5", "a4", "f6"), 'd', "a4-f4"),
            "f5"
        );
        // ...but in Tablut the throne is hostile to everyone, occupied or not.
        assert_eq!(captures("tablut", ("a4", "f5", "f6"), 'a', "a4-f4"), "f5");
        // Corners are hostile to both sides.
        assert_eq!(
            captures("copenhagen", ("c5", "b1", "h9"), 'a', "c5-c1"),
            "b1"
        );
        assert_eq!(
            captures("copenhagen", ("b1", "c5", "h9"), 'd', "c5-c1"),
            "b1"
        );
    }

    #[test]
    fn armed_king() {
        // The king captures as the moving piece...
        assert_eq!(
            captures("copenhagen", ("d8", "c8", "e9"), 'd', "e9-e8"),
            "d8"
        );
        // ...and as the standing one.
        assert_eq!(captures("tablut", ("g9", "f7", "h9"), 'd', "f7-f9"), "g9");
        // The king himself is never taken by custodial capture.
        let (caps, result, _) = outcome(11, "copenhagen", ("c8 k8", "", "d8"), 'a', "k8-e8");
        assert_eq!((caps.as_str(), result.as_str()), ("", "ongoing"));
    }

    #[test]
    fn shieldwall() {
        let wall = ("b1 c2 d2 e2 f4", "c1 d1 e1", "h9");
        assert_eq!(captures("copenhagen", wall, 'a', "f4-f1"), "c1 d1 e1");
        assert_eq!(captures("fetlar", wall, 'a', "f4-f1"), "");
        assert_eq!(captures("tablut", wall, 'a', "f4-f1"), "");
        // Every piece of the run needs an inner piece.
        assert_eq!(
            captures(
                "copenhagen",
                ("b1 c2 e2 f4", "c1 d1 e1", "h9"),
                'a',
                "f4-f1"
            ),
            ""
        );
        // A run ending in an empty square is not closed.
        assert_eq!(
            captures(
                "copenhagen",
                ("c2 d2 e2 f4", "c1 d1 e1", "h9"),
                'a',
                "f4-f1"
            ),
            ""
        );
        // Closed by a corner.
        assert_eq!(
            captures("copenhagen", ("b2 c2 d5", "b1 c1", "h9"), 'a', "d5-d1"),
            "b1 c1"
        );
        // The enemy king counts towards the run but stays.
        let (caps, result, text) = outcome(
            11,
            "copenhagen",
            ("b1 c2 d2 e2 f4", "c1 e1", "d1"),
            'a',
            "f4-f1",
        );
        assert_eq!((caps.as_str(), result.as_str()), ("c1 e1", "ongoing"));
        assert!(text.ends_with("/1t1K1t5/ d"), "{text}");
        // A defending king may be an inner or the closing piece.
        assert_eq!(
            captures("copenhagen", ("c1 d1", "b1 d2 e4", "c2"), 'd', "e4-e1"),
            "c1 d1"
        );
        assert_eq!(
            captures("copenhagen", ("c1 d1", "c2 d2 e4", "b1"), 'd', "e4-e1"),
            "c1 d1"
        );
        // Walls in both directions from one flanking move.
        let both = ("a4 b5 b6 b8 b9 a10 c7", "a5 a6 a8 a9", "h9");
        assert_eq!(captures("copenhagen", both, 'a', "c7-a7"), "a5 a6 a8 a9");
        let one = ("a4 b5 b6 b8 a10 c7", "a5 a6 a8 a9", "h9");
        assert_eq!(captures("copenhagen", one, 'a', "c7-a7"), "a5 a6");
        let bottom = ("b2 c2 e2 f2 g1 d5", "b1 c1 e1 f1", "h9");
        assert_eq!(captures("copenhagen", bottom, 'a', "d5-d1"), "b1 c1 e1 f1");
        // Filling the front row does not close a wall.
        assert_eq!(
            captures("copenhagen", ("b1 c2 e1 d5", "c1 d1", "h9"), 'a', "d5-d2"),
            ""
        );
        // Found together with custodial captures, before anything is removed.
        let mixed = ("b1 c2 d2 e2 f3 j1", "c1 d1 e1 f2", "h9");
        assert_eq!(captures("copenhagen", mixed, 'a', "j1-f1"), "c1 d1 e1 f2");
    }

    #[test]
    fn king_capture() {
        let won = "attackers won by king-captured";
        // Four attackers in the open; he leaves the board.
        let (_, r, text) = outcome(11, "copenhagen", ("e9 e7 d8 k8", "", "e8"), 'a', "k8-f8");
        assert_eq!(r, won);
        assert!(!text.contains('K'), "{text}");
        assert_eq!(
            result("fetlar", ("e9 e7 d8 k8", "k10", "e8"), 'a', "k8-f8"),
            won
        );
        assert_eq!(
            result("tablut", ("e9 e7 d8 k8", "k10", "e8"), 'a', "k8-f8"),
            won
        );
        // Three plus the empty throne beside him.
        for rules in ["copenhagen", "fetlar", "tablut"] {
            assert_eq!(
                result(rules, ("e7 g7 f11", "k10", "f7"), 'a', "f11-f8"),
                won
            );
        }
        // Four on the throne.
        assert_eq!(
            result("copenhagen", ("e6 g6 f7 a5", "k10", "f6"), 'a', "a5-f5"),
            won
        );
        // Three in the open are not enough.
        assert_eq!(
            result("copenhagen", ("e9 e7 k8", "k10", "e8"), 'a', "k8-f8"),
            "ongoing"
        );
        // The last attacker must have moved next to him.
        let boxed = ("e9 e7 d8 f8 k2", "k10", "e8");
        assert_eq!(result("copenhagen", boxed, 'a', "k2-k3"), "ongoing");
        // A king who steps into a box himself is not captured.
        let (_, r, _) = outcome(11, "copenhagen", ("d6 e7 e5 k2", "k10", "f6"), 'd', "f6-e6");
        assert_eq!(r, "ongoing");
        // Never on the edge in Copenhagen and Fetlar (a lone boxed king has no
        // move then); in Tablut the edge counts as a side.
        let edge = ("a4 a6 c5", "", "a5");
        assert_eq!(
            result("copenhagen", edge, 'a', "c5-b5"),
            "attackers won by no-moves"
        );
        assert_eq!(result("fetlar", edge, 'a', "c5-b5"), "drawn by no-moves");
        assert_eq!(result("tablut", edge, 'a', "c5-b5"), won);
        // Tablut: two beside a corner.
        assert_eq!(result("tablut", ("a3 c2", "k10", "a2"), 'a', "c2-b2"), won);
        assert_eq!(
            result("copenhagen", ("a3 c2", "k10", "a2"), 'a', "c2-b2"),
            "ongoing"
        );
    }

    #[test]
    fn king_escape() {
        for rules in ["copenhagen", "fetlar", "tablut"] {
            let (_, r, _) = outcome(11, rules, ("k9", "", "a5"), 'd', "a5-a1");
            assert_eq!(r, "defenders won by king-escaped");
            let (_, r, _) = outcome(9, rules, ("h9", "", "e2"), 'd', "e2-i2");
            assert_eq!(r, "ongoing");
        }
    }

    #[test]
    fn exit_fort() {
        let won = "defenders won by exit-fort";
        let fort = ("k8 h11", "d1 d2 f1 f2 e3 d5", "e1");
        assert_eq!(result("copenhagen", fort, 'd', "d5-d3"), won);
        assert_eq!(result("fetlar", fort, 'd', "d5-d3"), "ongoing");
        // Without d3, e3 can be taken between d3 and f3: the fort does not stand.
        assert_eq!(result("copenhagen", fort, 'd', "d5-d4"), "ongoing");
        // The king must have a legal move.
        assert_eq!(
            result(
                "copenhagen",
                ("k8 h11", "d1 d2 f1 f2 e2 d5", "e1"),
                'd',
                "d5-d3"
            ),
            "ongoing"
        );
        // No attacker next to the space inside (e2) ...
        assert_eq!(
            result(
                "copenhagen",
                ("e3 h11", "d1 d2 f1 f2 d5", "e1"),
                'd',
                "d5-d3"
            ),
            "ongoing"
        );
        // ... but one next to a wall piece is fine when the wall holds.
        assert_eq!(
            result(
                "copenhagen",
                ("c1 h11", "d1 d2 f1 f2 e3 d5", "e1"),
                'd',
                "d5-d3"
            ),
            won
        );
        // Only after a defender move.
        let standing = ("k8 h11", "d1 d2 f1 f2 e3 d3", "e1");
        assert_eq!(result("copenhagen", standing, 'a', "k8-k7"), "ongoing");
        // A wider fort: the space inside is d1 e2 f1.
        let wide = ("a3 a5 b3 k5", "c1 c2 d3 e3 f2 g1 d1", "e1");
        assert_eq!(result("copenhagen", wide, 'd', "d1-d2"), won);
    }

    #[test]
    fn encirclement() {
        let won = "attackers won by encircled";
        let ring = "b3 b4 b5 f3 f4 f5 c2 d2 e2 c6 d6 e9";
        assert_eq!(result("copenhagen", (ring, "", "d4"), 'a', "e9-e6"), won);
        assert_eq!(
            result("copenhagen", (ring, "c4 e4", "d4"), 'a', "e9-e6"),
            won
        );
        assert_eq!(result("fetlar", (ring, "", "d4"), 'a', "e9-e6"), "ongoing");
        // One defender outside the ring is free.
        assert_eq!(
            result("copenhagen", (ring, "h8", "d4"), 'a', "e9-e6"),
            "ongoing"
        );
        // The ring is not closed.
        assert_eq!(
            result("copenhagen", (ring, "", "d4"), 'a', "e9-e7"),
            "ongoing"
        );
        // Sealed pockets count as encircled, even with attackers inside.
        let two = "b3 b4 b5 f3 f4 f5 c2 d2 e2 c6 d6 e9 h8 h10 g9 i9";
        assert_eq!(result("copenhagen", (two, "h9", "d4"), 'a', "e9-e6"), won);
    }

    #[test]
    fn no_move_and_no_pieces() {
        // The last attacker is captured.
        for rules in ["copenhagen", "fetlar", "tablut"] {
            let r = result(rules, ("e5", "e6 a4", "h8"), 'd', "a4-e4");
            assert_eq!(r, "defenders won by no-moves");
        }
        // Attackers with pieces but no move: stuck at the start already...
        let stuck = position_text(11, "a2 b1", "c1 b2 a3", "k5", 'a');
        assert_eq!(legal_moves(&stuck, "copenhagen"), Vec::<String>::new());
        assert!(play(&stuck, "fetlar", "a2-a1").is_err());
        // ... or after a defender move.
        let pieces = ("a2 b1 k10", "c1 b2 a3 k9 j10", "f5");
        assert_eq!(result("copenhagen", pieces, 'd', "j10-j5"), "ongoing");
        assert_eq!(
            result("copenhagen", pieces, 'd', "f5-f4"),
            "defenders won by no-moves"
        );
        assert_eq!(result("fetlar", pieces, 'd', "f5-f4"), "drawn by no-moves");
        assert_eq!(result("tablut", pieces, 'd', "f5-f4"), "drawn by no-moves");
    }
}
