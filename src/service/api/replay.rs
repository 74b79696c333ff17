//! Where a request's game is replayed: on the async runtime's threads when
//! it is short (most real games, a fraction of a millisecond), on the replay
//! pool when it is long, so that a flood of long games never holds up health
//! checks and short calls.

use std::sync::Arc;

use crate::rules::Game;

use super::convert::GameSent;
use super::state::State;
use super::with_game::{GameFirst, WithGame};
use crate::service::error::ServiceError;
use crate::service::pb;

/// Games up to this many moves are replayed on the async runtime's threads.
pub const INLINE_REPLAY_PLIES: usize = 128;

/// A request judged by the rules alone, whose game decides where it is judged.
pub trait CarriesGame {
    /// The moves of the game it carries.
    fn plies(&self) -> usize;
}

impl<M: GameFirst> CarriesGame for WithGame<M> {
    fn plies(&self) -> usize {
        moves_in(self.game.as_ref())
    }
}

impl CarriesGame for pb::ValidateGameRequest {
    fn plies(&self) -> usize {
        moves_in(self.game.as_ref())
    }
}

/// The moves a request's game holds.
pub fn moves_in(game: Option<&impl GameSent>) -> usize {
    game.map_or(0, GameSent::move_count)
}

/// Runs `work`, which replays a game of `plies` moves: at once if the game
/// is short, else on the replay pool (inside the call's span either way).
pub async fn off_the_runtime<R: Send + 'static>(
    state: &Arc<State>,
    plies: usize,
    work: impl FnOnce(&State) -> Result<R, ServiceError> + Send + 'static,
) -> Result<R, ServiceError> {
    if plies <= INLINE_REPLAY_PLIES {
        return work(state);
    }
    let span = tracing::Span::current();
    let worker = Arc::clone(state);
    state
        .replays
        .run(move || span.in_scope(|| work(&worker)))
        .await?
}

/// Replays the request's game (see [`off_the_runtime`]) and records it on the call's span.
pub async fn replay(state: &Arc<State>, game: Option<pb::Game>) -> Result<Game, ServiceError> {
    let game = off_the_runtime(state, moves_in(game.as_ref()), move |state| {
        let max_plies = state.config.caps.max_game_plies;
        state
            .replayed
            .game(game.as_ref(), max_plies)
            .map(Arc::unwrap_or_clone)
    })
    .await?;
    record_game(&game);
    Ok(game)
}

/// Records the replayed game on the call's span (each handler's span
/// declares these fields) and returns the span for the handler's own.
pub fn record_game(game: &Game) -> tracing::Span {
    let span = tracing::Span::current();
    let variant = game.position().variant();
    span.record("variant", tracing::field::display(variant.rules));
    span.record("board_size", i64::from(variant.size.get()));
    span.record("ply", game.ply() as i64);
    span
}
