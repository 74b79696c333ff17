//! SuggestMove: a move at the requested strength, within the limits, the
//! game clock's time and the deadline.

use std::sync::Arc;

use super::call::Call;
use super::caps::{SearchBudget, level_from_proto};
use super::convert;
use super::replay::replay;
use super::run_search::run_search;
use super::state::State;
use crate::search::Clock;
use crate::service::error::ServiceError;
use crate::service::pb;

#[tracing::instrument(
    name = "SuggestMove",
    skip_all,
    fields(
        variant, board_size, ply, level, depth, nodes, best_move, wait_ms, cpu_ms
    )
)]
pub(super) async fn handle(
    state: Arc<State>,
    mut call: Call<pb::SuggestMoveRequest>,
) -> Result<pb::SuggestMoveResponse, ServiceError> {
    let level = level_from_proto(call.message.level)?;
    let limits = call.message.limits.as_ref();
    let budget = match call.message.clock.as_ref() {
        None => SearchBudget::at_level(limits, level, state.caps, call.deadline),
        Some(clock) => {
            let allocation = Clock::try_from(clock)?.allocate(state.config.caps.move_overhead);
            // Level 0 is full strength on the clock's time; a level keeps to its own budget.
            let level = (call.message.level != 0).then_some(level);
            SearchBudget::on_clock(limits, level, allocation, state.caps, call.deadline)
        }
    };
    let admission = call.admit(&state, budget.work)?;
    let game = replay(&state, call.message.game.take()).await?;
    let span = tracing::Span::current();
    span.record("level", i64::from(level.get()));
    let status = game.status();
    if status.is_over() {
        return Err(ServiceError::game_over(
            "game",
            format!(
                "the game is already over ({}); there is no move to suggest",
                convert::describe_status(status)
            ),
        ));
    }
    let mut after = game.clone();
    let (report, pv) =
        run_search(&state, admission, game, budget.limits, call.message.seed).await?;
    let played = after.play_move(report.best_move).map_err(|error| {
        ServiceError::Internal(format!("the search suggested a refused move: {error}"))
    })?;
    let best_move = convert::played_to_proto(&played);
    span.record("depth", i64::from(report.depth));
    span.record("nodes", report.nodes as i64);
    span.record("best_move", best_move.text.as_str());
    Ok(pb::SuggestMoveResponse {
        best_move: Some(best_move),
        score: report.score.as_i32(),
        pv,
        depth: report.depth,
        nodes: report.nodes,
        time_ms: u32::try_from(report.elapsed.as_millis()).unwrap_or(u32::MAX),
        position_after: Some(convert::position_to_proto(&after)),
        status_after: Some(convert::status_to_proto(played.status)),
    })
}
