//! One handler per RPC: convert the request into rules types, do the work
//! (searches on the bounded pool), convert back.

mod analyze;
mod apply_move;
pub(crate) mod caps;
pub(crate) mod convert;
pub(crate) mod error;
mod evaluate;
mod legal_moves;
mod suggest_move;
mod threats;
mod validate_game;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tonic::{Request, Response, Status};

use crate::rules::Game;
use std::time::Instant;

use crate::search::{Engine, Level, SearchReport};

use self::error::ServiceError;
use self::caps::search_limits;

use crate::service::config::Config;
use self::caps::{SearchCaps, expected_search_time};
use crate::service::pb;
use crate::service::exec::{Admission, ReplayPool, SearchPool};

/// What every handler shares.
pub struct State {
    /// The server's configuration.
    pub config: Config,
    /// The caps on every search.
    pub caps: SearchCaps,
    /// The AI; each running search takes a table from its pool.
    pub engine: Engine,
    /// Where searches run.
    pub pool: SearchPool,
    /// Where long games are replayed.
    pub replays: ReplayPool,
}

impl std::fmt::Debug for State {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("State")
            .field("config", &self.config)
            .field("caps", &self.caps)
            .field("pool", &self.pool)
            .finish_non_exhaustive()
    }
}

impl State {
    /// The shared state a configuration describes, with the evaluation network read from
    /// `config.exec.eval_net` (`None`: the engine's default).
    pub fn new(config: Config, network: Option<Arc<crate::search::Network>>) -> State {
        let defaults = crate::search::EngineConfig::default();
        let engine = Engine::new(crate::search::EngineConfig {
            hash_mb: config.exec.hash_mb,
            network: network.or(defaults.network),
            ..defaults
        });
        let pool = SearchPool::new(
            config.exec.max_concurrent_searches(),
            config.exec.max_queued_searches,
        );
        let replays = ReplayPool::new(config.exec.replay_threads(), MAX_QUEUED_REPLAYS);
        State {
            caps: SearchCaps::from_config(&config.caps),
            config,
            engine,
            pool,
            replays,
        }
    }
}

/// Raises a search's stop flag when dropped: a handler holds one while its
/// search runs, so a call that goes away (cancelled by the client, or cut
/// off by the transport at its deadline) frees its search thread.
#[derive(Debug, Default)]
pub(crate) struct StopOnDrop(Arc<AtomicBool>);

impl StopOnDrop {
    /// The flag the search watches.
    pub(crate) fn flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.0)
    }
}

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Records the replayed game on the call's span (each handler's span
/// declares these fields) and returns the span for the handler's own.
fn record_game(game: &Game) -> tracing::Span {
    let span = tracing::Span::current();
    let variant = game.position().variant();
    span.record("variant", tracing::field::display(variant.rules));
    span.record("board_size", i64::from(variant.size.get()));
    span.record("ply", game.ply() as i64);
    span
}

/// Games up to this many moves (most real games) are replayed on the async
/// runtime's threads, a fraction of a millisecond each; longer ones on the
/// replay pool, so that a flood of long games never holds up health checks
/// and short calls.
pub const INLINE_REPLAY_PLIES: usize = 128;

/// Long-game replays that may wait for a replay thread; past that RESOURCE_EXHAUSTED.
pub const MAX_QUEUED_REPLAYS: usize = 256;

fn moves_in(game: Option<&pb::Game>) -> usize {
    game.map_or(0, |game| game.moves.len())
}

/// Runs `work`, which replays a game of `plies` moves: at once if the game
/// is short, else on the replay pool (inside the call's span either way).
async fn off_the_runtime<R: Send + 'static>(
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

/// Replays the request's game (see [`off_the_runtime`]).
async fn replay(state: &Arc<State>, game: Option<pb::Game>) -> Result<Game, ServiceError> {
    off_the_runtime(state, moves_in(game.as_ref()), move |state| {
        convert::game_from_proto(game.as_ref(), state.config.caps.max_game_plies)
    })
    .await
}

/// Admits a search at `level` with these limits for a call on `connection`,
/// or refuses it at once (see [`SearchPool::admit`]); done before the game
/// is replayed, so that a refusal costs nothing.
fn admit(
    state: &State,
    connection: u64,
    limits: Option<&pb::SearchLimits>,
    level: Level,
    deadline: Option<Instant>,
) -> Result<Admission, ServiceError> {
    let limits = level.limits(&search_limits(limits, state.caps, deadline));
    Ok(state.pool.admit(
        connection,
        expected_search_time(&limits, state.caps),
        deadline,
    )?)
}

/// Searches the game's position on the bounded pool within the caller's
/// limits, the server's caps and the deadline, stopping if the call goes
/// away or the server stops; returns the report and its pv as move texts
/// with captures.
async fn search(
    state: &Arc<State>,
    admission: Admission,
    game: Game,
    limits: Option<&pb::SearchLimits>,
    level: Level,
    seed: u64,
    deadline: Option<Instant>,
) -> Result<(SearchReport, Vec<String>), ServiceError> {
    let limits = search_limits(limits, state.caps, deadline);
    let worker = Arc::clone(state);
    // Stops the search if this call goes away (cancelled, or cut off by its deadline).
    let stop = StopOnDrop::default();
    let stop_flag = stop.flag();
    state
        .pool
        .run(admission, stop.flag(), move || {
            let report = worker
                .engine
                .search_with_stop(&game, &limits, level, seed, &stop_flag)?;
            let pv = convert::pv_to_proto(game.position(), &report.pv);
            Some((report, pv))
        })
        .await?
        .ok_or(ServiceError::DeadlineTooShort)
}

/// The `tafl.v1.TaflService` implementation.
#[derive(Clone, Debug)]
pub struct TaflApi {
    state: Arc<State>,
}

impl TaflApi {
    /// The service over shared state.
    pub fn new(state: Arc<State>) -> TaflApi {
        TaflApi { state }
    }
}

#[tonic::async_trait]
impl pb::tafl_service_server::TaflService for TaflApi {
    async fn legal_moves(
        &self,
        request: Request<pb::LegalMovesRequest>,
    ) -> Result<Response<pb::LegalMovesResponse>, Status> {
        let request = request.into_inner();
        let plies = moves_in(request.game.as_ref());
        off_the_runtime(&self.state, plies, move |state| {
            legal_moves::handle(state, request)
        })
        .await
        .map(Response::new)
        .map_err(Status::from)
    }

    async fn apply_move(
        &self,
        request: Request<pb::ApplyMoveRequest>,
    ) -> Result<Response<pb::ApplyMoveResponse>, Status> {
        let request = request.into_inner();
        let plies = moves_in(request.game.as_ref());
        off_the_runtime(&self.state, plies, move |state| {
            apply_move::handle(state, request)
        })
        .await
        .map(Response::new)
        .map_err(Status::from)
    }

    async fn evaluate(
        &self,
        request: Request<pb::EvaluateRequest>,
    ) -> Result<Response<pb::EvaluateResponse>, Status> {
        evaluate::handle(Arc::clone(&self.state), request)
            .await
            .map(Response::new)
            .map_err(Status::from)
    }

    async fn suggest_move(
        &self,
        request: Request<pb::SuggestMoveRequest>,
    ) -> Result<Response<pb::SuggestMoveResponse>, Status> {
        suggest_move::handle(Arc::clone(&self.state), request)
            .await
            .map(Response::new)
            .map_err(Status::from)
    }

    async fn validate_game(
        &self,
        request: Request<pb::ValidateGameRequest>,
    ) -> Result<Response<pb::ValidateGameResponse>, Status> {
        let request = request.into_inner();
        let plies = moves_in(request.game.as_ref());
        off_the_runtime(&self.state, plies, move |state| {
            validate_game::handle(state, request)
        })
        .await
        .map(Response::new)
        .map_err(Status::from)
    }

    type AnalyzeStream = analyze::AnalysisStream;

    async fn analyze(
        &self,
        request: Request<pb::AnalyzeRequest>,
    ) -> Result<Response<Self::AnalyzeStream>, Status> {
        analyze::handle(Arc::clone(&self.state), request)
            .await
            .map(Response::new)
            .map_err(Status::from)
    }

    async fn threats(
        &self,
        request: Request<pb::ThreatsRequest>,
    ) -> Result<Response<pb::ThreatsResponse>, Status> {
        threats::handle(Arc::clone(&self.state), request)
            .await
            .map(Response::new)
            .map_err(Status::from)
    }
}
