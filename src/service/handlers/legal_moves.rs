//! LegalMoves: the current position, its status and its legal moves.

use crate::rules::{Bitboard, Move};

use super::State;
use crate::service::convert;
use crate::service::error::ServiceError;
use crate::service::pb;

#[tracing::instrument(name = "LegalMoves", skip_all, fields(variant, board_size, ply, moves))]
pub(super) fn handle(
    state: &State,
    request: pb::LegalMovesRequest,
) -> Result<pb::LegalMovesResponse, ServiceError> {
    let game = convert::game_from_proto(request.game.as_ref(), state.config.max_game_plies)?;
    let position = game.position();
    let span = super::record_game(&game);
    let square = convert::square_from_proto(&request.square, position.variant().size)?;
    let status = game.status();
    // The game knows endings the position alone does not (repetition).
    let mut moves: Vec<Move> = if status.is_over() {
        Vec::new()
    } else {
        position
            .legal_moves()
            .iter()
            .copied()
            .filter(|mv| square.is_none_or(|square| mv.from == square))
            .collect()
    };
    moves.sort_unstable_by_key(|mv| (mv.from, mv.to));
    span.record("moves", moves.len() as i64);
    Ok(pb::LegalMovesResponse {
        position: Some(convert::position_to_proto(&game)),
        status: Some(convert::status_to_proto(status)),
        moves: moves
            .into_iter()
            .map(|mv| convert::move_to_proto(mv, Bitboard::EMPTY))
            .collect(),
    })
}
