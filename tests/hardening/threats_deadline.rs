//! Issue 21, problem 3: Threats keeps its deadline. Its proof of double
//! threats could not be stopped: a costly position sent with short
//! deadlines got no answer while the server burned a whole proof's CPU on
//! every call and refused other searches meanwhile. Now the proof stops at
//! the call's deadline (or when the transport cuts the call), the call ends
//! DEADLINE_EXCEEDED, and the slot is free at once.

use std::time::{Duration, Instant};

use prost::Message;
use tafl::service::pb::{EvaluateRequest, SearchLimits, ThreatsRequest};
use tonic::Code;

use crate::common::costly_threats::costly_threats_game;
use crate::common::raw_h2::grpc_call;

const FULL_PROOFS: usize = 10;
const CUT_PROOFS: usize = 40;
/// Generous, for a loaded machine: the answer is due at the deadline.
const MARGIN: Duration = Duration::from_millis(500);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_costly_threats_with_a_short_deadline_ends_in_time_and_frees_its_slot() {
    // One slot, and deadlines kept to the millisecond (no margin taken off).
    let server = crate::tafl(&[
        "--search-threads",
        "1",
        "--deadline-margin-ms",
        "0",
        "--deadline-margin-percent",
        "0",
    ]);
    let request = ThreatsRequest {
        game: Some(costly_threats_game()),
    };
    // What a whole proof costs the server.
    let mut client = crate::client(server.addr).await;
    let cpu = server.cpu_time();
    for _ in 0..FULL_PROOFS {
        let threats = client
            .threats(request.clone())
            .await
            .expect("answered without a deadline")
            .into_inner();
        assert!(!threats.double_threats.is_empty());
    }
    let full = (server.cpu_time() - cpu) / FULL_PROOFS as u32;
    // A deadline of a quarter of that, kept by the server alone.
    let deadline = (full / 4).max(Duration::from_millis(2));
    let timeout = format!("{}u", deadline.as_micros());
    let body = request.encode_to_vec();
    let cpu = server.cpu_time();
    let mut slowest = Duration::ZERO;
    let mut expired = 0;
    for _ in 0..CUT_PROOFS {
        let started = Instant::now();
        let answer = grpc_call(
            server.addr,
            "/tafl.v1.TaflService/Threats",
            &[("grpc-timeout", &timeout)],
            &body,
        )
        .await;
        slowest = slowest.max(started.elapsed());
        // On a loaded machine the last one's thread may not have left the
        // slot yet when the next arrives: that one is refused, not late.
        match answer.status.code() {
            Code::DeadlineExceeded => expired += 1,
            Code::ResourceExhausted => {}
            _ => panic!("{:?}", answer.status),
        }
    }
    let cut = (server.cpu_time() - cpu) / CUT_PROOFS as u32;
    println!(
        "a whole Threats proof: {full:?} of CPU; with a {deadline:?} deadline: {cut:?} of CPU, {expired} of {CUT_PROOFS} DEADLINE_EXCEEDED (the rest refused), after {slowest:?} at the most"
    );
    assert!(slowest < deadline + MARGIN, "{slowest:?}");
    assert!(expired >= CUT_PROOFS / 2, "{expired} DEADLINE_EXCEEDED");
    // The proofs stopped at their deadline instead of running to their end.
    assert!(
        cut < full / 2,
        "{cut:?} of CPU a call, {full:?} for a whole proof"
    );
    // And the only slot is free: a search takes it at once.
    let started = Instant::now();
    let mut evaluate = tonic::Request::new(EvaluateRequest {
        game: None,
        limits: Some(SearchLimits {
            max_depth: 1,
            ..SearchLimits::default()
        }),
    });
    evaluate.set_timeout(Duration::from_secs(5));
    let evaluated = client
        .evaluate(evaluate)
        .await
        .expect("the slot is free")
        .into_inner();
    assert_eq!(evaluated.depth, 1);
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
}
