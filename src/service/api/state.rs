//! What every handler shares: the configuration, the engine and the pools.

use crate::search::{Engine, EngineConfig, Networks};

use super::active_reviews::ActiveReviews;
use super::caps::SearchCaps;
use crate::service::config::Config;
use crate::service::exec::{ReplayPool, SearchPool};

/// Long-game replays that may wait for a replay thread; past that RESOURCE_EXHAUSTED.
pub const MAX_QUEUED_REPLAYS: usize = 256;

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
    /// The game reviews in progress.
    pub reviews: ActiveReviews,
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
            hash_mb: exec.hash_mb,
            networks,
            ..EngineConfig::default()
        });
        let pool = SearchPool::new(exec.max_concurrent_searches(), exec.max_queued_searches);
        let replays = ReplayPool::new(exec.replay_threads(), MAX_QUEUED_REPLAYS);
        State {
            caps: SearchCaps::from_config(&config.caps),
            config,
            engine,
            pool,
            replays,
            reviews: ActiveReviews::default(),
        }
    }
}
