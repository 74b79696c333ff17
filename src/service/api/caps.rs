//! Search bounds: what the caller asks for, capped by the server, and the
//! call's deadline (`grpc-timeout`) minus a safety margin.

use std::time::{Duration, Instant};

use tonic::metadata::MetadataMap;

use crate::search::Limits;

use crate::service::config::CapsConfig;
use crate::service::pb;

/// The most a search may spend, whatever a caller asks.
#[derive(Clone, Copy, Debug)]
pub struct SearchCaps {
    /// Deepest search, in plies.
    pub depth: u32,
    /// Longest thinking time.
    pub time: Duration,
    /// Most positions visited.
    pub nodes: u64,
}

impl SearchCaps {
    /// The caps a configuration sets.
    pub fn from_config(caps: &CapsConfig) -> SearchCaps {
        SearchCaps {
            depth: caps.max_search_depth.max(1),
            time: caps.max_search_time,
            nodes: caps.max_search_nodes.max(1),
        }
    }
}

/// Whether the caller set any bound at all (Evaluate searches only then).
pub fn any_limit(limits: Option<&pb::SearchLimits>) -> bool {
    limits.is_some_and(|l| l.max_depth != 0 || l.max_time_ms != 0 || l.max_nodes != 0)
}

/// The search limits for a call. No bound given: none is set, so the
/// level's own budget applies (levels 1-9 cap depth and nodes, level 10
/// thinks one second). Any bound given: each is capped by the server and a
/// missing one is the cap, so no search outlives the caps. The call's
/// deadline always applies.
pub fn search_limits(
    given: Option<&pb::SearchLimits>,
    caps: SearchCaps,
    deadline: Option<Instant>,
) -> Limits {
    if !any_limit(given) {
        return Limits {
            deadline,
            ..Limits::default()
        };
    }
    let given = given.cloned().unwrap_or_default();
    let capped = |value: u64, cap: u64| if value == 0 { cap } else { value.min(cap) };
    let time_cap = u64::try_from(caps.time.as_millis()).unwrap_or(u64::MAX);
    Limits {
        max_depth: Some(capped(u64::from(given.max_depth), u64::from(caps.depth)) as u32),
        max_nodes: Some(capped(given.max_nodes, caps.nodes)),
        max_time: Some(Duration::from_millis(capped(
            u64::from(given.max_time_ms),
            time_cap,
        ))),
        deadline,
    }
}

/// What a search without a time bound is expected to take, for admission:
/// full strength thinks this long when given no bound (levels 1-9 stop on
/// depth and nodes, in less).
pub const UNTIMED_SEARCH_ESTIMATE: Duration = Duration::from_secs(1);

/// The search speed admission assumes to turn a node cap into time: a
/// quarter of what one idle core does (`tafl bench`: about 1 M nodes/s), so
/// that a busy machine does not make the estimate short.
pub const ADMISSION_NODES_PER_SECOND: u64 = 250_000;

/// How long a search with these limits (the level's own applied) is
/// expected to hold its slot: its time bound, or its node cap at
/// [`ADMISSION_NODES_PER_SECOND`] if that is shorter. The deadline, if
/// shorter, is applied by admission. It orders the search queue (shorter
/// first) and judges admission.
pub fn expected_search_time(limits: &Limits, caps: SearchCaps) -> Duration {
    let time = limits
        .max_time
        .unwrap_or(UNTIMED_SEARCH_ESTIMATE)
        .min(caps.time);
    let nodes = limits.max_nodes.unwrap_or(u64::MAX).min(caps.nodes);
    let node_time = Duration::from_millis(nodes.saturating_mul(1000) / ADMISSION_NODES_PER_SECOND);
    time.min(node_time)
}

/// The most the proportional part of the deadline margin takes.
pub const MAX_PROPORTIONAL_MARGIN: Duration = Duration::from_millis(250);

/// What is taken off a call's timeout so the answer still arrives in time:
/// `fixed`, plus `percent` of the timeout up to [`MAX_PROPORTIONAL_MARGIN`]
/// (a search only looks at the clock now and then, so it may run a little over).
pub fn deadline_margin(timeout: Duration, fixed: Duration, percent: u32) -> Duration {
    let proportional = timeout * percent.min(100) / 100;
    fixed + proportional.min(MAX_PROPORTIONAL_MARGIN)
}

/// When the answer must be ready: the call's `grpc-timeout` from `received`,
/// less the margin; `None` when the caller set no deadline.
pub fn call_deadline(
    metadata: &MetadataMap,
    received: Instant,
    caps: &CapsConfig,
) -> Option<Instant> {
    let header = metadata.get("grpc-timeout")?.to_str().ok()?;
    let timeout = parse_grpc_timeout(header)?;
    let margin = deadline_margin(timeout, caps.deadline_margin, caps.deadline_margin_percent);
    // A timeout of years would overflow an Instant; no search lasts that long anyway.
    let timeout = timeout.min(Duration::from_secs(365 * 24 * 3600));
    Some(received + timeout.saturating_sub(margin))
}

/// Reads a `grpc-timeout` value: at most 8 digits and a unit
/// (`H`, `M`, `S`, `m`, `u`, `n`).
fn parse_grpc_timeout(value: &str) -> Option<Duration> {
    if value.len() < 2 || value.len() > 9 {
        return None;
    }
    let (digits, unit) = value.split_at(value.len() - 1);
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let amount: u64 = digits.parse().ok()?;
    Some(match unit {
        "H" => Duration::from_secs(amount * 3600),
        "M" => Duration::from_secs(amount * 60),
        "S" => Duration::from_secs(amount),
        "m" => Duration::from_millis(amount),
        "u" => Duration::from_micros(amount),
        "n" => Duration::from_nanos(amount),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const CAPS: SearchCaps = SearchCaps {
        depth: 32,
        time: Duration::from_secs(10),
        nodes: 1_000_000,
    };

    #[test]
    fn no_limits_leave_the_level_budget() {
        let limits = search_limits(None, CAPS, None);
        assert!(limits.is_unbounded());
        let zero = pb::SearchLimits::default();
        assert!(search_limits(Some(&zero), CAPS, None).is_unbounded());
    }

    #[test]
    fn zero_fields_mean_the_cap() {
        let given = pb::SearchLimits {
            max_depth: 4,
            ..pb::SearchLimits::default()
        };
        let limits = search_limits(Some(&given), CAPS, None);
        assert_eq!(limits.max_depth, Some(4));
        assert_eq!(limits.max_time, Some(Duration::from_secs(10)));
        assert_eq!(limits.max_nodes, Some(1_000_000));
    }

    #[test]
    fn hostile_limits_are_capped() {
        let given = pb::SearchLimits {
            max_depth: 1000,
            max_time_ms: 86_400_000,
            max_nodes: u64::MAX,
        };
        let limits = search_limits(Some(&given), CAPS, None);
        assert_eq!(limits.max_depth, Some(32));
        assert_eq!(limits.max_time, Some(Duration::from_secs(10)));
        assert_eq!(limits.max_nodes, Some(1_000_000));
    }

    #[test]
    fn small_limits_stay() {
        let given = pb::SearchLimits {
            max_depth: 3,
            max_time_ms: 50,
            max_nodes: 10,
        };
        let limits = search_limits(Some(&given), CAPS, None);
        assert_eq!(limits.max_depth, Some(3));
        assert_eq!(limits.max_time, Some(Duration::from_millis(50)));
        assert_eq!(limits.max_nodes, Some(10));
    }

    #[test]
    fn a_node_cap_makes_a_search_expected_shorter() {
        let level_five = crate::search::Level::new(5)
            .expect("a level")
            .limits(&Limits::default());
        assert_eq!(
            expected_search_time(&level_five, CAPS),
            Duration::from_millis(200)
        );
        let strongest = crate::search::Level::STRONGEST.limits(&Limits::default());
        assert_eq!(
            expected_search_time(&strongest, CAPS),
            Duration::from_secs(1)
        );
        let long = search_limits(
            Some(&pb::SearchLimits {
                max_time_ms: 3000,
                ..pb::SearchLimits::default()
            }),
            CAPS,
            None,
        );
        assert_eq!(expected_search_time(&long, CAPS), Duration::from_secs(3));
    }

    #[test]
    fn grpc_timeout_values() {
        assert_eq!(parse_grpc_timeout("100m"), Some(Duration::from_millis(100)));
        assert_eq!(parse_grpc_timeout("2S"), Some(Duration::from_secs(2)));
        assert_eq!(
            parse_grpc_timeout("99999999H"),
            Some(Duration::from_secs(99_999_999 * 3600))
        );
        assert_eq!(parse_grpc_timeout("m"), None);
        assert_eq!(parse_grpc_timeout("123456789m"), None);
        assert_eq!(parse_grpc_timeout("-1m"), None);
        assert_eq!(parse_grpc_timeout("10x"), None);
    }

    #[test]
    fn deadline_takes_off_the_margin() {
        let mut metadata = MetadataMap::new();
        metadata.insert("grpc-timeout", "100m".parse().unwrap());
        let caps = CapsConfig {
            deadline_margin: Duration::from_millis(10),
            deadline_margin_percent: 15,
            ..CapsConfig::default()
        };
        let now = Instant::now();
        let deadline = call_deadline(&metadata, now, &caps).unwrap();
        assert_eq!(deadline - now, Duration::from_millis(75));
        assert!(call_deadline(&MetadataMap::new(), now, &caps).is_none());
        metadata.insert("grpc-timeout", "99999999H".parse().unwrap());
        assert!(call_deadline(&metadata, now, &caps).is_some());
    }

    #[test]
    fn proportional_margin_is_capped() {
        let margin = deadline_margin(Duration::from_secs(60), Duration::from_millis(10), 15);
        assert_eq!(margin, Duration::from_millis(260));
    }
}
