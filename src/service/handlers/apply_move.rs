//! ApplyMove: judge one more move.

use super::State;
use crate::service::convert;
use crate::service::error::ServiceError;
use crate::service::pb;

#[tracing::instrument(name = "ApplyMove", skip_all, fields(variant, board_size, ply, result))]
pub(super) fn handle(
    state: &State,
    request: pb::ApplyMoveRequest,
) -> Result<pb::ApplyMoveResponse, ServiceError> {
    let max_plies = state.config.max_game_plies;
    let mut game = convert::game_from_proto(request.game.as_ref(), max_plies)?;
    let span = super::record_game(&game);
    let status = game.status();
    // A move after the end is refused as such before anything else about it.
    if status.is_over() {
        return Err(convert::game_over("next_move", status));
    }
    let moves_given = request.game.as_ref().map_or(0, |game| game.moves.len());
    if moves_given >= max_plies {
        return Err(ServiceError::invalid(
            "next_move",
            format!(
                "would be move {}; this server takes games of at most {max_plies} moves",
                moves_given + 1
            ),
        ));
    }
    let played = convert::play(&mut game, &request.next_move, "next_move")?;
    let status = game.status();
    span.record(
        "result",
        tracing::field::display(convert::describe_status(status)),
    );
    Ok(pb::ApplyMoveResponse {
        position: Some(convert::position_to_proto(&game)),
        status: Some(convert::status_to_proto(status)),
        played: Some(pb::Move {
            from_square: played.played.from.to_string(),
            to_square: played.played.to.to_string(),
            text: played.to_string(),
        }),
        captured: convert::squares_to_proto(played.captures),
        repetitions: played.repetitions,
    })
}
