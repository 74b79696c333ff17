//! Threats: the tactical picture of the game's position for a board UI.
//!
//! Proving double threats is a small search (milliseconds in a crowded
//! position, a tenth of a second in the worst found), so it runs on the
//! search pool like the other searches, and stops at the call's deadline or
//! when the call goes away. Its cost depends on the position, so it is
//! admitted once the game is replayed, expected to take what Threats on
//! boards like it took before.

use std::sync::Arc;
use std::time::Instant;

use crate::rules::{PlayedMove, Square};
use crate::search::{self, Control};

use super::call::Call;
use super::caps::threats_work;
use super::convert;
use super::replay::replay;
use super::run_search::{StopOnDrop, record_usage};
use super::state::State;
use crate::service::error::ServiceError;
use crate::service::pb;

#[tracing::instrument(
    name = "Threats",
    skip_all,
    fields(variant, board_size, ply, wait_ms, cpu_ms)
)]
pub(super) async fn handle(
    state: Arc<State>,
    mut call: Call<pb::ThreatsRequest>,
) -> Result<pb::ThreatsResponse, ServiceError> {
    let game = replay(&state, call.message.game.take()).await?;
    let position = game.position();
    let king = usize::from(position.king().is_some());
    let pieces = (position.attackers().len() + position.defenders().len()) as usize + king;
    let work = threats_work(position.variant().size.get(), pieces, state.caps);
    let admission = call.admit(&state, work)?;
    // No Threats outlives the server's search time, deadline or not.
    let cap = Instant::now() + state.caps.time;
    let deadline = Some(call.deadline.map_or(cap, |deadline| deadline.min(cap)));
    // Stops the proof if this call goes away (cancelled, or cut off by its deadline).
    let stop = StopOnDrop::default();
    let stop_flag = stop.flag();
    let ((game, threats), usage) = state
        .pool
        .run(admission, stop.flag(), move |turn| {
            let control = Control::new(&stop_flag).sharing(turn);
            let threats = search::threats_until(&game, deadline, control);
            (game, threats)
        })
        .await?;
    record_usage(&usage);
    let threats = threats.ok_or_else(|| {
        if deadline.is_some_and(|deadline| Instant::now() >= deadline) {
            ServiceError::DeadlineExpired
        } else {
            // Stopped by the end of the shutdown's grace period.
            ServiceError::ShuttingDown
        }
    })?;
    Ok(pb::ThreatsResponse {
        position: Some(convert::position_to_proto(&game)),
        status: Some(convert::status_to_proto(game.status())),
        winning_moves: moves_to_proto(&threats.winning_moves),
        opponent_wins: moves_to_proto(&threats.opponent_wins),
        double_threats: moves_to_proto(&threats.double_threats),
        can_capture: captures_to_proto(&threats.can_capture),
        in_danger: captures_to_proto(&threats.in_danger),
    })
}

fn moves_to_proto(moves: &[PlayedMove]) -> Vec<pb::Move> {
    moves.iter().map(convert::played_to_proto).collect()
}

fn captures_to_proto(targets: &[(Square, Vec<PlayedMove>)]) -> Vec<pb::CaptureThreat> {
    targets
        .iter()
        .map(|(square, by)| pb::CaptureThreat {
            square: square.to_string(),
            by: moves_to_proto(by),
        })
        .collect()
}
