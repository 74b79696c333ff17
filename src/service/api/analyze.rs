//! Analyze: a live analysis, one update per completed depth, streamed while
//! the search runs on the pool (it holds its slot until it ends).
//!
//! The search stops when the stream goes away (`update_stream.rs`).

use std::sync::Arc;

use tokio::sync::mpsc;

use crate::rules::Position;
use crate::search::{AnalysisUpdate, Control, MAX_LINES};

use super::call::Call;
use super::caps::analysis_budget;
use super::convert;
use super::replay::replay;
use super::run_search::{StopOnDrop, record_usage};
use super::state::State;
use super::update_stream::UpdateStream;
use crate::service::error::{Reason, ServiceError};
use crate::service::pb;

/// More than the deepest search has depths, so sending never waits on a slow reader.
const UPDATES_BUFFERED: usize = 64;

#[tracing::instrument(
    name = "Analyze",
    skip_all,
    fields(variant, board_size, ply, multi_pv, wait_ms, cpu_ms)
)]
pub(super) async fn handle(
    state: Arc<State>,
    mut call: Call<pb::AnalyzeRequest>,
) -> Result<UpdateStream<pb::AnalyzeResponse>, ServiceError> {
    let multi_pv = call.message.multi_pv;
    let lines = multi_pv.max(1) as usize;
    if lines > MAX_LINES {
        return Err(ServiceError::invalid(
            "multi_pv",
            Reason::BadLimits,
            format!("{multi_pv} lines is more than the {MAX_LINES} an analysis reports"),
        ));
    }
    let (limits, work) = analysis_budget(call.message.limits.as_ref(), state.caps, call.deadline);
    let admission = call.admit(&state, work)?;
    let game = replay(&state, call.message.game.take()).await?;
    tracing::Span::current().record("multi_pv", lines);
    let (sender, updates) = mpsc::channel(UPDATES_BUFFERED);
    let stop = StopOnDrop::default();
    let status = convert::status_to_proto(game.status());
    if game.status().is_over() {
        let _ = sender.try_send(Ok(pb::AnalyzeResponse {
            r#final: true,
            status: Some(status),
            ..pb::AnalyzeResponse::default()
        }));
        return Ok(UpdateStream::new(updates, stop));
    }
    let stop_flag = stop.flag();
    // The pool raises it too, at the end of the shutdown's grace period.
    let pool_stop = stop.flag();
    let worker = Arc::clone(&state);
    let errors = sender.clone();
    let span = tracing::Span::current();
    tokio::spawn(async move {
        let ran = state
            .pool
            .run(admission, pool_stop, move |turn| {
                let control = Control::new(&stop_flag).sharing(turn);
                let send = |update: &AnalysisUpdate, last: bool| {
                    // Full never happens (see UPDATES_BUFFERED); closed means the caller left.
                    let response = update_to_proto(game.position(), update, last, status);
                    let _ = sender.try_send(Ok(response));
                };
                let last = worker
                    .engine
                    .analyse(&game, &limits, lines, control, |update| {
                        send(update, false);
                    });
                match last {
                    Some(last) => send(&last, true),
                    None => {
                        let _ = sender.try_send(Err(ServiceError::DeadlineTooShort.into()));
                    }
                }
            })
            .await;
        match ran {
            Ok(((), usage)) => span.in_scope(|| record_usage(&usage)),
            Err(error) => {
                let _ = errors.try_send(Err(ServiceError::from(error).into()));
            }
        }
    });
    Ok(UpdateStream::new(updates, stop))
}

fn update_to_proto(
    root: &Position,
    update: &AnalysisUpdate,
    last: bool,
    status: pb::GameStatus,
) -> pb::AnalyzeResponse {
    pb::AnalyzeResponse {
        depth: update.depth,
        lines: update
            .lines
            .iter()
            .map(|line| pb::AnalysisLine {
                score: line.score.as_i32(),
                pv: convert::pv_to_proto(root, &line.pv),
            })
            .collect(),
        nodes: update.nodes,
        time_ms: u32::try_from(update.elapsed.as_millis()).unwrap_or(u32::MAX),
        r#final: last,
        status: Some(status),
    }
}
