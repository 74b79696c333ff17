//! What the pools tell an operator, as OpenTelemetry metrics beside
//! `rpc.server.*` (exported with them; nothing without an endpoint):
//!
//! - `tafl.search.wait` (histogram, ms, by `kind`): how long a search
//!   waited for its place and for the cores before and while it ran;
//! - `tafl.search.cpu` (counter, ms, by `kind`): the core time searches were
//!   given: the shares the connections of each kind got;
//! - `tafl.search.refused` (counter, by `pool` and `reason`): work refused,
//!   `full` (no room to wait), `late` (could not start in time),
//!   `shutting_down`;
//! - `tafl.search.running`, `tafl.search.queued` (gauges, by `pool`): work
//!   holding a place, and waiting for one;
//! - `tafl.cores.computing`, `tafl.cores.waiting` (gauges): searches holding
//!   a core, and waiting for one.
//!
//! A replica whose searches wait while its cores compute for few of them is
//! starved of places; one whose cores are all busy with many waiting is
//! simply busy (docs/operations.md has the dashboard, deploy/grafana/).
//!
//! `kind` is the method the search serves (`SuggestMove`, `ReviewGame` ...),
//! which is how a site's connections differ: a matchmaking server's, an
//! analysis page's.

use std::sync::{Arc, OnceLock};

use opentelemetry::KeyValue;
use opentelemetry::metrics::{AsyncInstrumentBuilder, Counter, Histogram, ObservableGauge};

use super::core_share::CoreShare;
use super::search_pool::{LoadReader, SearchPool, Usage};
use super::{ExecError, Pool};

/// The instruments, made once from the global meter provider (set by
/// `telemetry::init` before the server starts; without it they record nothing).
struct Instruments {
    wait_ms: Histogram<f64>,
    cpu_ms: Counter<f64>,
    refused: Counter<u64>,
}

fn instruments() -> &'static Instruments {
    static INSTRUMENTS: OnceLock<Instruments> = OnceLock::new();
    INSTRUMENTS.get_or_init(|| {
        let meter = opentelemetry::global::meter("tafl");
        Instruments {
            wait_ms: meter
                .f64_histogram("tafl.search.wait")
                .with_unit("ms")
                .with_description("time a search waited for its place and for the cores")
                .build(),
            cpu_ms: meter
                .f64_counter("tafl.search.cpu")
                .with_unit("ms")
                .with_description("core time given to searches")
                .build(),
            refused: meter
                .u64_counter("tafl.search.refused")
                .with_description("searches, reviews and replays refused, by why")
                .build(),
        }
    })
}

/// Counts what a search of `kind` (its method) had of the pools.
pub fn record_search(kind: &'static str, usage: &Usage) {
    let attributes = [KeyValue::new("kind", kind)];
    let instruments = instruments();
    instruments
        .wait_ms
        .record(usage.waited().as_secs_f64() * 1000.0, &attributes);
    instruments
        .cpu_ms
        .add(usage.cores.cpu.as_secs_f64() * 1000.0, &attributes);
}

/// Counts a refusal of `pool`'s, by why (what is not a refusal counts nothing).
pub(super) fn record_refusal(pool: Pool, error: &ExecError) {
    let reason: &'static str = match error {
        ExecError::Busy(busy) => busy.why.into(),
        ExecError::ShuttingDown => "shutting_down",
        ExecError::DeadlinePassed | ExecError::Failed(_) => return,
    };
    let pool: &'static str = pool.into();
    instruments().refused.add(
        1,
        &[KeyValue::new("pool", pool), KeyValue::new("reason", reason)],
    );
}

/// The gauges of the pools and the cores: kept alive as long as the server.
pub struct Gauges {
    _gauges: Vec<ObservableGauge<u64>>,
}

impl std::fmt::Debug for Gauges {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gauges").finish_non_exhaustive()
    }
}

/// A gauge's builder, its name and description given.
type GaugeBuilder<'a> = AsyncInstrumentBuilder<'a, ObservableGauge<u64>, u64>;

/// Reports `pools` and `cores` as gauges, read at each export.
pub fn observe(pools: &[&SearchPool], cores: &Arc<CoreShare>) -> Gauges {
    let meter = opentelemetry::global::meter("tafl");
    let watched: Arc<Vec<(&'static str, LoadReader)>> = Arc::new(
        pools
            .iter()
            .map(|pool| (<&'static str>::from(pool.pool()), pool.load_reader()))
            .collect(),
    );
    // Each pool's work holding a place (or, `queued`, waiting for one).
    let by_pool = |gauge: GaugeBuilder<'_>, queued: bool| {
        let watched = Arc::clone(&watched);
        gauge
            .with_callback(move |observer| {
                for (pool, load) in watched.iter() {
                    if let Some((running, waiting)) = load() {
                        let value = if queued { waiting } else { running };
                        observer.observe(value as u64, &[KeyValue::new("pool", *pool)]);
                    }
                }
            })
            .build()
    };
    // The searches computing on a core (or, `waiting`, waiting for one).
    let of_cores = |gauge: GaugeBuilder<'_>, waiting: bool| {
        let cores = Arc::downgrade(cores);
        gauge
            .with_callback(move |observer| {
                if let Some(cores) = cores.upgrade() {
                    let (computing, queued) = cores.load();
                    observer.observe(if waiting { queued } else { computing } as u64, &[]);
                }
            })
            .build()
    };
    Gauges {
        _gauges: vec![
            by_pool(
                meter
                    .u64_observable_gauge("tafl.search.running")
                    .with_description("work holding a place"),
                false,
            ),
            by_pool(
                meter
                    .u64_observable_gauge("tafl.search.queued")
                    .with_description("work waiting for a place"),
                true,
            ),
            of_cores(
                meter
                    .u64_observable_gauge("tafl.cores.computing")
                    .with_description("searches computing on a core"),
                false,
            ),
            of_cores(
                meter
                    .u64_observable_gauge("tafl.cores.waiting")
                    .with_description("searches waiting for a core"),
                true,
            ),
        ],
    }
}
