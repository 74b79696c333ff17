//! ValidateGame: a whole game judged in one pass, every ply annotated and the
//! first one not accepted reported (not as an error).

use super::convert;
use super::error::ServiceError;
use super::replay::record_game;
use super::state::State;
use crate::service::pb;

#[tracing::instrument(
    name = "ValidateGame",
    skip_all,
    fields(variant, board_size, ply, first_error)
)]
pub(super) fn handle(
    state: &State,
    request: pb::ValidateGameRequest,
) -> Result<pb::ValidateGameResponse, ServiceError> {
    let (mut game, moves) =
        convert::unplayed_game_from_proto(request.game.as_ref(), state.config.caps.max_game_plies)?;
    let mut plies = Vec::with_capacity(moves.len());
    let mut first_error = None;
    for (index, text) in moves.iter().enumerate() {
        match convert::play(&mut game, text, convert::MoveSource::GameMoves(index)) {
            Ok(played) => plies.push(pb::PlyAnnotation {
                index: index as u32,
                played: Some(convert::played_to_proto(&played)),
                status: Some(convert::status_to_proto(played.status)),
                repetitions: played.repetitions,
            }),
            Err(error) => {
                first_error = Some(pb::PlyError {
                    index: index as u32,
                    reason: error
                        .reason()
                        .map(|reason| reason.as_str())
                        .unwrap_or_default()
                        .to_owned(),
                    message: error.description(),
                });
                break;
            }
        }
    }
    let span = record_game(&game);
    if let Some(error) = &first_error {
        span.record("first_error", error.index);
    }
    Ok(pb::ValidateGameResponse {
        plies,
        position: Some(convert::position_to_proto(&game)),
        status: Some(convert::status_to_proto(game.status())),
        first_error,
    })
}
