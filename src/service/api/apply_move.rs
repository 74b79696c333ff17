//! ApplyMove: judge one more move (and, when asked, list the next side's moves).

use std::sync::Arc;

use super::caps::check_game_length;
use super::convert;
use super::replay::record_game;
use super::state::State;
use super::with_game::ApplyMoveQuery;
use super::with_legal_moves::ApplyMoveReply;
use crate::service::error::ServiceError;
use crate::service::pb;

#[tracing::instrument(name = "ApplyMove", skip_all, fields(variant, board_size, ply, result))]
pub(super) fn handle(
    state: &State,
    request: ApplyMoveQuery,
) -> Result<ApplyMoveReply, ServiceError> {
    let max_plies = state.config.caps.max_game_plies;
    let mut game = Arc::unwrap_or_clone(state.replayed.game(request.game.as_ref(), max_plies)?);
    let span = record_game(&game);
    let status = game.status();
    let moves_given = game.ply();
    // A move after the end is refused as such before anything else about it.
    if status.is_over() {
        return Err(convert::game_over("next_move", status).at_ply(moves_given));
    }
    check_game_length(moves_given, Some(&request.rest.next_move), max_plies)?;
    let source = convert::MoveSource::NextMove(moves_given);
    let played = convert::play(&mut game, &request.rest.next_move, source)?;
    let status = game.status();
    span.record(
        "result",
        tracing::field::display(convert::describe_status(status)),
    );
    let response = pb::ApplyMoveResponse {
        position: None,
        status: Some(convert::status_to_proto(status)),
        played: Some(convert::played_to_proto(&played)),
        captured: convert::squares_to_proto(played.captures),
        repetitions: played.repetitions,
        legal_moves: Vec::new(),
    };
    Ok(ApplyMoveReply::apply_move(
        response,
        &game,
        request.rest.include_legal_moves,
    ))
}
