//! Evaluate: a score for the current position, static (the engine's own
//! evaluation, its network where it has one) or searched.

use std::sync::Arc;

use crate::rules::Status;
use crate::search::{self, Level};

use super::call::Call;
use super::caps::{SearchBudget, any_limit};
use super::convert;
use super::replay::replay;
use super::run_search::run_search;
use super::state::State;
use crate::service::error::ServiceError;
use crate::service::pb;

/// The score of a won game for the winner (RULES: "+-1_000_000 or 0").
const WON: i32 = search::Score::WON.as_i32();

/// The positions a static evaluation visits: the position itself, at depth 0.
const STATIC_EVALUATION_NODES: u64 = 1;

#[tracing::instrument(
    name = "Evaluate",
    skip_all,
    fields(variant, board_size, ply, depth, nodes, score, wait_ms, cpu_ms)
)]
pub(super) async fn handle(
    state: Arc<State>,
    mut call: Call<pb::EvaluateRequest>,
) -> Result<pb::EvaluateResponse, ServiceError> {
    let limits = call.message.limits.take();
    // No limits: the static evaluation, which takes no search slot.
    let search = any_limit(limits.as_ref())
        .then(|| {
            let budget = SearchBudget::at_level(
                limits.as_ref(),
                Level::STRONGEST,
                state.caps,
                call.deadline,
            );
            call.admit(&state, budget.work)
                .map(|admission| (admission, budget))
        })
        .transpose()?;
    let game = replay(&state, call.message.game.take()).await?;
    let span = tracing::Span::current();
    let status = game.status();
    let side_to_move = game.position().side_to_move();
    let finished_score = match status {
        Status::Ongoing => None,
        Status::Won { winner, .. } if winner == side_to_move => Some(WON),
        Status::Won { .. } => Some(-WON),
        Status::Drawn { .. } => Some(0),
    };
    // A finished game is scored by its end (no position evaluated); no limits, statically.
    let (admission, budget) = match (finished_score, search) {
        (None, Some(search)) => search,
        (finished_score, _) => {
            let (score, nodes) = finished_score.map_or_else(
                || {
                    let score = state.engine.static_eval(game.position());
                    (score.as_i32(), STATIC_EVALUATION_NODES)
                },
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
    let (report, pv) = run_search(&state, admission, game, budget.limits, 0).await?;
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
