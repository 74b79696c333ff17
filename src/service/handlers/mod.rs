//! One handler per RPC: convert the request into rules types, do the work
//! (searches on the bounded pool), convert back.

mod analyze;
mod apply_move;
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

use super::convert;
use super::error::ServiceError;
use super::limits::search_limits;

use super::config::Config;
use super::limits::SearchCaps;
use super::pb;
use super::pool::SearchPool;

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
    /// `config.eval_net` (`None`: the engine's default).
    pub fn new(config: Config, network: Option<Arc<crate::search::Network>>) -> State {
        let defaults = crate::search::EngineConfig::default();
        let engine = Engine::new(crate::search::EngineConfig {
            hash_mb: config.hash_mb,
            network: network.or(defaults.network),
            ..defaults
        });
        let pool = SearchPool::new(config.max_concurrent_searches(), config.max_queued_searches);
        State {
            caps: SearchCaps::from_config(&config),
            config,
            engine,
            pool,
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

/// Searches the game's position on the bounded pool within the caller's
/// limits, the server's caps and the deadline, stopping if the call goes
/// away; returns the report and its pv as move texts with captures.
async fn search(
    state: &Arc<State>,
    game: Game,
    limits: Option<&pb::SearchLimits>,
    level: Level,
    seed: u64,
    deadline: Option<Instant>,
) -> Result<(SearchReport, Vec<String>), ServiceError> {
    if deadline.is_some_and(|deadline| deadline <= Instant::now()) {
        return Err(ServiceError::DeadlineTooShort);
    }
    let limits = search_limits(limits, state.caps, deadline);
    let worker = Arc::clone(state);
    // Stops the search if this call goes away (cancelled, or cut off by its deadline).
    let stop = StopOnDrop::default();
    let stop_flag = stop.flag();
    state
        .pool
        .run(deadline, move || {
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
        legal_moves::handle(&self.state, request.into_inner())
            .map(Response::new)
            .map_err(Status::from)
    }

    async fn apply_move(
        &self,
        request: Request<pb::ApplyMoveRequest>,
    ) -> Result<Response<pb::ApplyMoveResponse>, Status> {
        apply_move::handle(&self.state, request.into_inner())
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
        validate_game::handle(&self.state, request.into_inner())
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
