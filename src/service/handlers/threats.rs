//! Threats: the tactical picture of the game's position for a board UI.

use crate::rules::{PlayedMove, Square};
use crate::search;

use super::State;
use crate::service::convert;
use crate::service::error::ServiceError;
use crate::service::pb;

#[tracing::instrument(name = "Threats", skip_all, fields(variant, board_size, ply))]
pub(super) fn handle(
    state: &State,
    request: pb::ThreatsRequest,
) -> Result<pb::ThreatsResponse, ServiceError> {
    let game = convert::game_from_proto(request.game.as_ref(), state.config.max_game_plies)?;
    super::record_game(&game);
    let threats = search::threats(&game);
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
