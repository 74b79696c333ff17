//! The published puzzles proven again, independently: a sample of the set
//! `tafl puzzles` mined from the real games (tests/data/puzzles.csv, those of
//! up to two solver moves) is checked by a plain brute-force search over the
//! reference rules (tests/common/reference/), which shares no code with the
//! engine. Each solution replays legally, its last move reaches the goal,
//! its first move forces the goal in that many moves whatever the replies,
//! and no other first solver move does so as fast. Then the engine mines one
//! of the sample's games again and finds the same puzzle.

use std::sync::atomic::AtomicBool;

use tafl::lab::real_games;
use tafl::rules::{Game, Rules, Variant};
use tafl::search::{Control, Engine, EngineConfig, Limits, PuzzleBudget, find_puzzles};

use crate::common::reference::{Board, Outcome, Side, Sq, parse_move};

const SAMPLE: &str = include_str!("../data/puzzles.csv");

/// Pieces the solver must be ahead by for "win_material" (docs/puzzles.md).
const MATERIAL_GAIN: i32 = 2;

/// One line of the puzzle file.
struct Published {
    id: String,
    rules: String,
    start: String,
    solution: Vec<String>,
    goal: String,
}

fn sample() -> Vec<Published> {
    let mut lines = SAMPLE.lines();
    let header: Vec<&str> = lines.next().expect("a header").split(',').collect();
    let column = |name: &str| {
        header
            .iter()
            .position(|&column| column == name)
            .unwrap_or_else(|| panic!("no column {name}"))
    };
    let (id, rules, start) = (column("id"), column("rules"), column("start"));
    let (solution, goal) = (column("solution"), column("goal"));
    lines
        .map(|line| {
            let fields: Vec<&str> = line.split(',').collect();
            Published {
                id: fields[id].to_owned(),
                rules: fields[rules].to_owned(),
                start: fields[start].to_owned(),
                solution: fields[solution].split(' ').map(str::to_owned).collect(),
                goal: fields[goal].to_owned(),
            }
        })
        .collect()
}

/// The goal as the brute force judges it.
#[derive(Clone, Copy)]
struct Goal {
    solver: Side,
    material: bool,
}

impl Goal {
    /// After a solver move to `after`, `net` pieces ahead since the start.
    fn reached(self, after: &Board, net: i32) -> bool {
        match after.outcome {
            Outcome::Won(winner, _) => winner == self.solver,
            Outcome::Drawn(_) => false,
            Outcome::Ongoing => {
                self.material
                    && net >= MATERIAL_GAIN
                    && after.legal_moves().into_iter().all(|(from, to)| {
                        let mut replied = *after;
                        let retaken = play(&mut replied, from, to);
                        !replied.outcome.is_over() && net - retaken >= MATERIAL_GAIN
                    })
            }
        }
    }

    /// The solver, to move, reaches the goal within `moves` of its moves whatever the replies.
    fn forces(self, board: &Board, net: i32, moves: u32) -> bool {
        board
            .legal_moves()
            .into_iter()
            .any(|(from, to)| self.forces_after(board, (from, to), net, moves))
    }

    /// The solver's move `mv` reaches the goal now, or within the moves left whatever the
    /// replies.
    fn forces_after(self, board: &Board, (from, to): (Sq, Sq), net: i32, moves: u32) -> bool {
        let mut after = *board;
        let net = net + play(&mut after, from, to);
        if self.reached(&after, net) {
            return true;
        }
        if moves == 1 || after.outcome.is_over() {
            return false;
        }
        after.legal_moves().into_iter().all(|(from, to)| {
            let mut replied = after;
            let lost = play(&mut replied, from, to);
            !replied.outcome.is_over() && self.forces(&replied, net - lost, moves - 1)
        })
    }
}

/// Plays a generated move; the pieces it took.
fn play(board: &mut Board, from: Sq, to: Sq) -> i32 {
    board.play(from, to).expect("a generated move").len() as i32
}

#[test]
fn the_published_puzzles_of_up_to_two_solver_moves_are_proven_again_by_brute_force() {
    let sample = sample();
    assert!(sample.len() >= 8, "a sample of {}", sample.len());
    for puzzle in sample.iter().filter(|puzzle| puzzle.solution.len() <= 3) {
        let board = Board::parse(&puzzle.start, &puzzle.rules).expect("a position");
        let goal = Goal {
            solver: board.to_move,
            material: puzzle.goal == "win_material",
        };
        let moves = puzzle.solution.len().div_ceil(2) as u32;
        let solution: Vec<(Sq, Sq)> = puzzle
            .solution
            .iter()
            .map(|text| parse_move(text, board.size).expect("a move"))
            .collect();
        // It replays legally and its last move reaches the goal.
        let mut line = board;
        let mut net = 0;
        for (ply, &(from, to)) in solution.iter().enumerate() {
            assert!(
                !line.outcome.is_over(),
                "{}: over before ply {ply}",
                puzzle.id
            );
            let taken = line
                .play(from, to)
                .unwrap_or_else(|error| panic!("{}: ply {ply}: {error}", puzzle.id))
                .len() as i32;
            net += if ply % 2 == 0 { taken } else { -taken };
        }
        assert!(
            goal.reached(&line, net),
            "{}: the goal not reached",
            puzzle.id
        );
        // The key move forces it in that many moves, and nothing does in fewer.
        let key = solution[0];
        assert!(goal.forces_after(&board, key, 0, moves), "{}", puzzle.id);
        assert!(
            moves == 1 || !goal.forces(&board, 0, moves - 1),
            "{}",
            puzzle.id
        );
        // No other first move does as fast (with one move, any move that reaches it counts).
        if moves > 1 {
            for mv in board.legal_moves().into_iter().filter(|&mv| mv != key) {
                assert!(
                    !goal.forces_after(&board, mv, 0, moves),
                    "{}: {}-{} wins as fast",
                    puzzle.id,
                    mv.0,
                    mv.1
                );
            }
        }
    }
}

#[test]
fn mining_a_sample_game_again_finds_its_puzzle() {
    let puzzle = &sample()[0];
    // "copenhagen-games.csv:LINE:PLY"
    let mut parts = puzzle.id.rsplit(':');
    let ply: usize = parts
        .next()
        .and_then(|ply| ply.parse().ok())
        .expect("a ply");
    let line: usize = parts
        .next()
        .and_then(|line| line.parse().ok())
        .expect("a line");
    let records = real_games();
    let start = Game::new(Variant::standard(Rules::Copenhagen));
    let mut game = start.clone();
    // The plies up to the puzzle's and the one played there: enough to mine its position.
    let moves: Vec<_> = records[line - 1].moves[..=ply]
        .iter()
        .map(|text| game.play(text).expect("a real ply").played)
        .collect();
    let engine = Engine::new(EngineConfig {
        hash_mb: 4,
        ..EngineConfig::default()
    });
    let budget = PuzzleBudget::new(&Limits::default(), 0);
    let mined = find_puzzles(
        &engine,
        &start,
        &moves,
        &budget,
        Control::new(&AtomicBool::new(false)),
    )
    .expect("a legal game");
    let found = mined
        .puzzles
        .iter()
        .find(|found| found.source_ply == ply)
        .expect("the puzzle found again");
    assert_eq!(found.start.to_string(), puzzle.start);
    let solution: Vec<String> = found.solution.iter().map(ToString::to_string).collect();
    assert_eq!(solution, puzzle.solution);
}
