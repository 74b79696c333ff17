//! Threats: the tactical picture of the game's position for a board UI.
//!
//! Proving double threats is a small search (milliseconds in a crowded
//! position), so it runs on the search pool like the other searches.

use std::sync::Arc;

use crate::rules::{PlayedMove, Square};
use crate::search;

use super::call::Call;
use super::convert;
use super::error::ServiceError;
use super::replay::replay;
use super::state::State;
use crate::service::pb;

/// What a Threats search is expected to take, for admission (it cannot be stopped).
const THREATS_TIME: std::time::Duration = std::time::Duration::from_millis(50);

#[tracing::instrument(name = "Threats", skip_all, fields(variant, board_size, ply))]
pub(super) async fn handle(
    state: Arc<State>,
    mut call: Call<pb::ThreatsRequest>,
) -> Result<pb::ThreatsResponse, ServiceError> {
    let admission = call.admit(&state, THREATS_TIME)?;
    let game = replay(&state, call.message.game.take()).await?;
    let (game, threats) = state
        .pool
        .run(admission, Arc::default(), move || {
            let threats = search::threats(&game);
            (game, threats)
        })
        .await?;
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
