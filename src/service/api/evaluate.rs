//! Evaluate: a score for the current position, static or searched.

use std::sync::Arc;
use std::time::Instant;

use tonic::Request;

use crate::rules::Status;
use crate::search::{self, Level};

use super::State;
use crate::service::transport::connection::connection_id;
use crate::service::api::convert;
use crate::service::api::error::ServiceError;
use crate::service::api::caps::{any_limit, call_deadline};
use crate::service::pb;

/// The score of a won game for the winner (RULES: "+-1_000_000 or 0").
const WON: i32 = search::Score::WON.as_i32();

#[tracing::instrument(
    name = "Evaluate",
    skip_all,
    fields(variant, board_size, ply, depth, nodes, score)
)]
pub(super) async fn handle(
    state: Arc<State>,
    request: Request<pb::EvaluateRequest>,
) -> Result<pb::EvaluateResponse, ServiceError> {
    let deadline = call_deadline(request.metadata(), Instant::now(), &state.config.caps);
    let connection = connection_id(request.extensions());
    let mut request = request.into_inner();
    let admission = any_limit(request.limits.as_ref())
        .then(|| {
            super::admit(
                &state,
                connection,
                request.limits.as_ref(),
                Level::STRONGEST,
                deadline,
            )
        })
        .transpose()?;
    let game = super::replay(&state, request.game.take()).await?;
    let span = super::record_game(&game);
    let status = game.status();
    let side_to_move = game.position().side_to_move();
    let finished_score = match status {
        Status::Ongoing => None,
        Status::Won { winner, .. } if winner == side_to_move => Some(WON),
        Status::Won { .. } => Some(-WON),
        Status::Drawn { .. } => Some(0),
    };
    // A finished game, or no limits (so no admission): an answer without a search.
    let admission = match (finished_score, admission) {
        (None, Some(admission)) => admission,
        (finished_score, _) => {
            let (score, nodes) = finished_score.map_or_else(
                || (search::evaluate(game.position()), 1),
                |score| (score, 0),
            );
            span.record("score", score);
            return Ok(pb::EvaluateResponse {
                status: Some(convert::status_to_proto(status)),
                score,
                pv: Vec::new(),
                depth: 0,
                nodes,
            });
        }
    };
    let (report, pv) = super::search(
        &state,
        admission,
        game,
        request.limits.as_ref(),
        Level::STRONGEST,
        0,
        deadline,
    )
    .await?;
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
