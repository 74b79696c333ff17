//! SuggestMove: a move at the requested strength, within the limits and the deadline.

use std::sync::Arc;
use std::time::Instant;

use tonic::Request;

use crate::search::Level;

use super::State;
use crate::service::transport::connection::connection_id;
use crate::service::api::convert;
use crate::service::api::error::{Reason, ServiceError};
use crate::service::api::caps::call_deadline;
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
    let deadline = call_deadline(request.metadata(), Instant::now(), &state.config.caps);
    let connection = connection_id(request.extensions());
    let mut request = request.into_inner();
    let level = level_from_proto(request.level)?;
    let admission = super::admit(&state, connection, request.limits.as_ref(), level, deadline)?;
    let game = super::replay(&state, request.game.take()).await?;
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
    let mut after = game.clone();
    let (report, pv) = super::search(
        &state,
        admission,
        game,
        request.limits.as_ref(),
        level,
        request.seed,
        deadline,
    )
    .await?;
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

/// The strength asked for: 0 is the strongest, 1..=10 as given.
fn level_from_proto(level: u32) -> Result<Level, ServiceError> {
    if level == 0 {
        return Ok(Level::STRONGEST);
    }
    Level::new(level).ok_or_else(|| {
        ServiceError::invalid(
            "level",
            Reason::BadLimits,
            format!(
                "{level} is not a level: use 1 (beginner) to 10 (strongest), or 0 for the strongest"
            ),
        )
    })
}
