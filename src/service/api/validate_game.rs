//! ValidateGame: a whole game judged in one pass, every ply annotated and the
//! first one not accepted reported (not as an error). [`judge_plies`] is that
//! pass, shared with ReviewGame and FindPuzzles ([`accepted_plies`]), which
//! refuse the same ply with the same error.

use std::sync::Arc;

use crate::rules::{Game, PlayedMove};

use super::convert;
use super::replay::{off_the_runtime, record_game};
use super::state::State;
use crate::service::error::ServiceError;
use crate::service::pb;

/// A request's game judged ply by ply, up to the first ply not accepted.
pub struct JudgedPlies {
    /// The game at its start.
    pub start: Game,
    /// After the accepted plies.
    pub game: Game,
    /// The accepted plies, in order.
    pub plies: Vec<PlayedMove>,
    /// The first ply not accepted: its index and the error an RPC answers for it.
    pub refused: Option<(usize, ServiceError)>,
}

/// Judges every ply of the request's game in order, stopping at the first one
/// not accepted.
///
/// # Errors
/// INVALID_ARGUMENT for the variant, the start or a game over the length cap.
pub fn judge_plies(game: Option<&pb::Game>, max_plies: usize) -> Result<JudgedPlies, ServiceError> {
    let moves = game.map_or(&[][..], |game| &game.moves);
    let mut game = convert::unplayed_game_from_proto(game, max_plies)?;
    let start = game.clone();
    let mut plies = Vec::with_capacity(moves.len());
    let mut refused = None;
    for (index, text) in moves.iter().enumerate() {
        match convert::play(&mut game, text, convert::MoveSource::GameMoves(index)) {
            Ok(played) => plies.push(played),
            Err(error) => {
                refused = Some((index, error));
                break;
            }
        }
    }
    Ok(JudgedPlies {
        start,
        game,
        plies,
        refused,
    })
}

/// The request's game judged (off the runtime when long), or the error of its first ply not
/// accepted: how ReviewGame and FindPuzzles take a game, refusing it as ValidateGame reports it.
///
/// # Errors
/// As [`judge_plies`], and the first ply not accepted.
pub async fn accepted_plies(
    state: &Arc<State>,
    game: Option<pb::Game>,
) -> Result<JudgedPlies, ServiceError> {
    let plies = game.as_ref().map_or(0, |game| game.moves.len());
    let judged = off_the_runtime(state, plies, move |state| {
        judge_plies(game.as_ref(), state.config.caps.max_game_plies)
    })
    .await?;
    match judged.refused {
        Some((_, refused)) => Err(refused),
        None => Ok(judged),
    }
}

#[tracing::instrument(
    name = "ValidateGame",
    skip_all,
    fields(variant, board_size, ply, first_error)
)]
pub(super) fn handle(
    state: &State,
    request: pb::ValidateGameRequest,
) -> Result<pb::ValidateGameResponse, ServiceError> {
    let judged = judge_plies(request.game.as_ref(), state.config.caps.max_game_plies)?;
    let plies = judged
        .plies
        .iter()
        .enumerate()
        .map(|(index, played)| pb::PlyAnnotation {
            index: index as u32,
            played: Some(convert::played_to_proto(played)),
            status: Some(convert::status_to_proto(played.status)),
            repetitions: played.repetitions,
        })
        .collect();
    let first_error = judged.refused.map(|(index, error)| pb::PlyError {
        index: index as u32,
        reason: error
            .reason()
            .map(|reason| reason.as_str())
            .unwrap_or_default()
            .to_owned(),
        message: error.description(),
    });
    let span = record_game(&judged.game);
    if let Some(error) = &first_error {
        span.record("first_error", error.index);
    }
    Ok(pb::ValidateGameResponse {
        plies,
        position: Some(convert::position_to_proto(&judged.game)),
        status: Some(convert::status_to_proto(judged.game.status())),
        first_error,
    })
}
