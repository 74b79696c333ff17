//! LegalMoves: the current position, its status and its legal moves, each
//! with its captures and the status it leads to.

use super::convert;
use super::replay::record_game;
use super::state::State;
use super::with_game::LegalMovesQuery;
use super::with_legal_moves::LegalMovesReply;
use crate::service::error::ServiceError;

#[tracing::instrument(name = "LegalMoves", skip_all, fields(variant, board_size, ply, moves))]
pub(super) fn handle(
    state: &State,
    request: LegalMovesQuery,
) -> Result<LegalMovesReply, ServiceError> {
    let max_plies = state.config.caps.max_game_plies;
    let game = state.replayed.game(request.game.as_ref(), max_plies)?;
    let span = record_game(&game);
    let square = convert::square_from_proto(&request.rest.square, game.position().variant().size)?;
    // The game knows endings the position alone does not (repetition).
    let reply = LegalMovesReply::legal_moves(&game, square);
    span.record("moves", reply.move_count() as i64);
    Ok(reply)
}
