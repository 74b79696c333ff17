//! Evaluate: a score for the current position, static or searched.

use std::sync::Arc;
use std::time::Instant;

use tonic::Request;

use crate::rules::Status;
use crate::search::{self, Level};

use super::{State, StopOnDrop};
use crate::service::convert;
use crate::service::error::ServiceError;
use crate::service::limits::{any_limit, call_deadline, search_limits};
use crate::service::pb;

/// The score of a won game for the winner (RULES: "+-1_000_000 or 0").
const WON: i32 = 1_000_000;

#[tracing::instrument(
    name = "Evaluate",
    skip_all,
    fields(variant, board_size, ply, depth, nodes, score)
)]
pub(super) async fn handle(
    state: Arc<State>,
    request: Request<pb::EvaluateRequest>,
) -> Result<pb::EvaluateResponse, ServiceError> {
    let deadline = call_deadline(request.metadata(), Instant::now(), &state.config);
    let request = request.into_inner();
    let game = convert::game_from_proto(request.game.as_ref(), state.config.max_game_plies)?;
    let span = super::record_game(&game);
    let status = game.status();
    let side_to_move = game.position().side_to_move();
    let finished_score = match status {
        Status::Ongoing => None,
        Status::Won { winner, .. } if winner == side_to_move => Some(WON),
        Status::Won { .. } => Some(-WON),
        Status::Drawn { .. } => Some(0),
    };
    if let Some(score) = finished_score {
        span.record("score", score);
        return Ok(pb::EvaluateResponse {
            status: Some(convert::status_to_proto(status)),
            score,
            pv: Vec::new(),
            depth: 0,
            nodes: 0,
        });
    }
    if !any_limit(request.limits.as_ref()) {
        let score = search::evaluate(game.position());
        span.record("score", score);
        return Ok(pb::EvaluateResponse {
            status: Some(convert::status_to_proto(status)),
            score,
            pv: Vec::new(),
            depth: 0,
            nodes: 1,
        });
    }
    if deadline.is_some_and(|deadline| deadline <= Instant::now()) {
        return Err(ServiceError::DeadlineTooShort);
    }
    let limits = search_limits(request.limits.as_ref(), state.caps, deadline);
    let worker = Arc::clone(&state);
    // Stops the search if this call goes away (cancelled, or cut off by its deadline).
    let stop = StopOnDrop::default();
    let stop_flag = stop.flag();
    let (report, pv) = state
        .pool
        .run(deadline, move || {
            let report =
                worker
                    .engine
                    .search_with_stop(&game, &limits, Level::STRONGEST, 0, &stop_flag)?;
            let pv = convert::pv_to_proto(game.position(), &report.pv);
            Some((report, pv))
        })
        .await?
        .ok_or(ServiceError::DeadlineTooShort)?;
    let score = report.score.as_i32();
    span.record("depth", i64::from(report.depth));
    span.record("nodes", report.nodes as i64);
    span.record("score", score);
    Ok(pb::EvaluateResponse {
        status: Some(convert::status_to_proto(status)),
        score,
        pv,
        depth: report.depth,
        nodes: report.nodes,
    })
}
