//! SuggestMove: a move at the requested strength, within the limits and the deadline.

use std::sync::Arc;
use std::time::Instant;

use tonic::Request;

use crate::search::Level;

use super::{State, StopOnDrop};
use crate::service::convert;
use crate::service::error::ServiceError;
use crate::service::limits::{call_deadline, search_limits};
use crate::service::pb;

#[tracing::instrument(
    name = "SuggestMove",
    skip_all,
    fields(variant, board_size, ply, level, depth, nodes, best_move)
)]
pub(super) async fn handle(
    state: Arc<State>,
    request: Request<pb::SuggestMoveRequest>,
) -> Result<pb::SuggestMoveResponse, ServiceError> {
    let deadline = call_deadline(request.metadata(), Instant::now(), &state.config);
    let request = request.into_inner();
    let level = level_from_proto(request.level)?;
    let game = convert::game_from_proto(request.game.as_ref(), state.config.max_game_plies)?;
    let span = super::record_game(&game);
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
    if deadline.is_some_and(|deadline| deadline <= Instant::now()) {
        return Err(ServiceError::DeadlineTooShort);
    }
    let limits = search_limits(request.limits.as_ref(), state.caps, deadline);
    let seed = request.seed;
    let worker = Arc::clone(&state);
    // Stops the search if this call goes away (cancelled, or cut off by its deadline).
    let stop = StopOnDrop::default();
    let stop_flag = stop.flag();
    let (report, pv) = state
        .pool
        .run(deadline, move || {
            let report = worker
                .engine
                .search_with_stop(&game, &limits, level, seed, &stop_flag)?;
            let pv = convert::pv_to_proto(game.position(), &report.pv);
            Some((report, pv))
        })
        .await?
        .ok_or(ServiceError::DeadlineTooShort)?;
    let best_move = report.best_move;
    // pv[0] is the best move with its captures; the move alone if the pv came back empty.
    let text = pv.first().cloned().unwrap_or_else(|| best_move.to_string());
    span.record("depth", i64::from(report.depth));
    span.record("nodes", report.nodes as i64);
    span.record("best_move", text.as_str());
    Ok(pb::SuggestMoveResponse {
        best_move: Some(pb::Move {
            from_square: best_move.from.to_string(),
            to_square: best_move.to.to_string(),
            text,
        }),
        score: report.score.as_i32(),
        pv,
        depth: report.depth,
        nodes: report.nodes,
        time_ms: u32::try_from(report.elapsed.as_millis()).unwrap_or(u32::MAX),
    })
}

/// The strength asked for: 0 is the strongest, 1..=10 as given.
fn level_from_proto(level: u32) -> Result<Level, ServiceError> {
    if level == 0 {
        return Ok(Level::STRONGEST);
    }
    Level::new(level).ok_or_else(|| {
        ServiceError::invalid(
            "level",
            format!(
                "{level} is not a level: use 1 (beginner) to 10 (strongest), or 0 for the strongest"
            ),
        )
    })
}
