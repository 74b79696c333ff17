//! What every handler shares: the configuration, the engine and the pools.

use std::sync::Arc;

use crate::search::{Engine, EngineConfig, Networks};

use super::caps::SearchCaps;
use super::replay_cache::ReplayCache;
use crate::service::config::Config;
use crate::service::exec::{CoreShare, Pool, ReplayPool, SearchPool, metrics};

/// Long-game replays that may wait for a replay thread; past that RESOURCE_EXHAUSTED.
pub const MAX_QUEUED_REPLAYS: usize = 256;

/// What every handler shares.
pub struct State {
    /// The server's configuration.
    pub config: Config,
    /// The caps on every search.
    pub caps: SearchCaps,
    /// The AI: the searches the clock ends share its table, the others take one of its own.
    pub engine: Engine,
    /// Where searches run.
    pub pool: SearchPool,
    /// Where long games are replayed.
    pub replays: ReplayPool,
    /// The games replayed last.
    pub replayed: ReplayCache,
    /// The pools' and the cores' gauges, read at each metrics export.
    pub gauges: metrics::Gauges,
    /// Where game reviews run, each holding a place (and its game's table) for as long as it
    /// runs; they share the cores with the searches.
    pub reviews: SearchPool,
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
    /// The shared state a configuration describes, playing with `networks` (the built-in ones
    /// and those `config.exec.eval_net` names).
    pub fn new(config: Config, networks: Networks) -> State {
        let exec = &config.exec;
        let engine = Engine::new(EngineConfig {
            hash_mb: exec.own_hash_mb(),
            shared_hash_mb: exec.hash_mb,
            networks,
            ..EngineConfig::default()
        });
        let cores = CoreShare::new(exec.search_threads());
        let pool = SearchPool::new(
            Pool::Searches,
            exec.max_concurrent_searches(),
            exec.max_queued_searches,
            Arc::clone(&cores),
        );
        let reviews = SearchPool::new(
            Pool::Reviews,
            exec.max_active_reviews(),
            exec.max_active_reviews(),
            Arc::clone(&cores),
        )
        .with_connection_cap(exec.max_active_reviews().div_ceil(2));
        let replays = ReplayPool::new(exec.replay_threads(), MAX_QUEUED_REPLAYS);
        let replayed = ReplayCache::new(exec.replay_cache_mb);
        let gauges = metrics::observe(&[&pool, &reviews], &cores);
        State {
            caps: SearchCaps::from_config(&config.caps),
            config,
            engine,
            pool,
            reviews,
            replays,
            replayed,
            gauges,
        }
    }
}
