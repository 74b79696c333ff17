//! FindPuzzles: the puzzles of a whole game (`search/puzzles/`), in one answer.
//!
//! The game's plies are judged as ValidateGame judges them, and an illegal
//! one is refused with the error ValidateGame reports for it. The mining is
//! one search on the pool, admitted before the game is read (its work
//! depends only on how many positions there are): each position's search
//! within the caller's budget, capped by the server, the whole game within
//! the call's deadline and the server's cap on a review's time. Cut short,
//! it answers with the puzzles of the positions it finished, marked partial.

use std::sync::Arc;
use std::time::Instant;

use crate::search::{
    self, Control, MAX_SOLVER_MOVES, MinedPuzzles, Puzzle, PuzzleBudget, PuzzleGoal,
};
use crate::service::exec::Work;

use super::call::Call;
use super::caps::puzzle_budget;
use super::convert;
use super::replay::record_game;
use super::run_search::{StopOnDrop, record_usage};
use super::state::State;
use super::validate_game::accepted_plies;
use crate::service::error::{Reason, ServiceError};
use crate::service::pb;

#[tracing::instrument(
    name = "FindPuzzles",
    skip_all,
    fields(variant, board_size, ply, puzzles, partial, wait_ms, cpu_ms)
)]
pub(super) async fn handle(
    state: Arc<State>,
    mut call: Call<pb::FindPuzzlesRequest>,
) -> Result<pb::FindPuzzlesResponse, ServiceError> {
    let solver_moves = call.message.max_solver_moves;
    if solver_moves > MAX_SOLVER_MOVES {
        return Err(ServiceError::invalid(
            "max_solver_moves",
            Reason::BadLimits,
            format!(
                "{solver_moves} moves is longer than the {MAX_SOLVER_MOVES} a puzzle's proof looks at"
            ),
        ));
    }
    let cap_end = Instant::now() + state.config.caps.max_review_time;
    let deadline = call
        .deadline
        .map_or(cap_end, |deadline| deadline.min(cap_end));
    let game = call.message.game.take();
    let plies = game.as_ref().map_or(0, |game| game.moves.len());
    let (budget, work) = puzzle_budget(
        call.message.limits.as_ref(),
        solver_moves,
        plies,
        state.caps,
        Some(deadline),
    );
    let mined = mine(&state, &call, work, game, budget).await?;
    let span = tracing::Span::current();
    span.record("puzzles", mined.puzzles.len());
    span.record("partial", mined.partial);
    Ok(pb::FindPuzzlesResponse {
        puzzles: mined.puzzles.iter().map(puzzle_to_proto).collect(),
        partial: mined.partial,
    })
}

/// The game mined on the pool: admitted first (its work depends only on how many positions
/// there are, so a refusal costs nothing), then judged, then mined, stopping if the call goes
/// away or the server stops. The one place this call meets the pool.
async fn mine(
    state: &Arc<State>,
    call: &Call<pb::FindPuzzlesRequest>,
    work: Work,
    game: Option<pb::Game>,
    budget: PuzzleBudget,
) -> Result<MinedPuzzles, ServiceError> {
    let admission = call.admit(state, work)?;
    let judged = accepted_plies(state, game).await?;
    record_game(&judged.game);
    let worker = Arc::clone(state);
    // Stops the mining if this call goes away (cancelled, or cut off by its deadline).
    let stop = StopOnDrop::default();
    let stop_flag = stop.flag();
    let moves: Vec<_> = judged.plies.iter().map(|played| played.played).collect();
    let (mined, usage) = state
        .pool
        .run(admission, stop.flag(), move |turn| {
            let control = Control::new(&stop_flag).sharing(turn);
            search::find_puzzles(&worker.engine, &judged.start, &moves, &budget, control)
        })
        .await?;
    record_usage(&usage);
    mined.map_err(|error| ServiceError::Internal(format!("a judged ply was refused: {error}")))
}

fn goal_to_proto(goal: PuzzleGoal) -> pb::PuzzleGoal {
    match goal {
        PuzzleGoal::KingEscapes => pb::PuzzleGoal::KingEscapes,
        PuzzleGoal::KingCaptured => pb::PuzzleGoal::KingCaptured,
        PuzzleGoal::WinMaterial => pb::PuzzleGoal::WinMaterial,
    }
}

fn puzzle_to_proto(puzzle: &Puzzle) -> pb::Puzzle {
    pb::Puzzle {
        variant: Some(pb::Variant::from(puzzle.start.variant())),
        start: puzzle.start.to_string(),
        source_ply: puzzle.source_ply as u32,
        solver: convert::side_to_proto(puzzle.solver).into(),
        solution: puzzle
            .solution
            .iter()
            .map(convert::played_to_proto)
            .collect(),
        goal: goal_to_proto(puzzle.goal).into(),
        themes: puzzle
            .themes
            .iter()
            .map(|theme| theme.name().to_owned())
            .collect(),
        rating: puzzle.rating,
        found_in_game: puzzle.found_in_game,
    }
}
