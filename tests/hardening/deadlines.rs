//! Issue 21, problem 3: a call whose deadline expires on the server is
//! answered DEADLINE_EXCEEDED (gRPC's code for it), with a sentence and
//! ErrorInfo, on every RPC; tonic's own timer answered CANCELLED "Timeout
//! expired". The calls go out with a raw `grpc-timeout` and no client-side
//! timer, so the status seen is the server's.

use prost::Message;
use tafl::service::pb;
use tonic::Code;
use tonic_types::StatusExt;

use crate::common::long_game::back_and_forth;
use crate::common::raw_h2::{Answer, grpc_call};

/// Gone before the server reads the call: every call's deadline has passed on arrival.
const EXPIRED: &str = "1n";

/// A Tablut game of `plies` moves (the server takes 4,096).
fn long_tablut(plies: usize) -> pb::Game {
    pb::Game {
        variant: Some(pb::Variant {
            rules: pb::Rules::Tablut.into(),
            board_size: 0,
        }),
        start: String::new(),
        moves: back_and_forth(plies),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn expired_deadlines_are_deadline_exceeded_on_every_rpc() {
    let server = crate::tafl(&["--search-threads", "1"]);
    let limits = Some(pb::SearchLimits {
        max_depth: 3,
        ..pb::SearchLimits::default()
    });
    // The rules calls get the longest games, which wait for a replay thread;
    // the searches wait for admission.
    let calls: [(&str, Vec<u8>); 7] = [
        (
            "LegalMoves",
            pb::LegalMovesRequest {
                game: Some(long_tablut(4096)),
                square: String::new(),
            }
            .encode_to_vec(),
        ),
        (
            "ApplyMove",
            pb::ApplyMoveRequest {
                game: Some(long_tablut(4092)),
                next_move: "a4-a3".to_owned(),
                include_legal_moves: true,
            }
            .encode_to_vec(),
        ),
        (
            "ValidateGame",
            pb::ValidateGameRequest {
                game: Some(long_tablut(4096)),
            }
            .encode_to_vec(),
        ),
        (
            "Evaluate",
            pb::EvaluateRequest { game: None, limits }.encode_to_vec(),
        ),
        (
            "SuggestMove",
            pb::SuggestMoveRequest::default().encode_to_vec(),
        ),
        (
            "Analyze",
            pb::AnalyzeRequest {
                game: None,
                limits,
                multi_pv: 1,
            }
            .encode_to_vec(),
        ),
        ("Threats", pb::ThreatsRequest::default().encode_to_vec()),
    ];
    for (method, body) in calls {
        let path = format!("/tafl.v1.TaflService/{method}");
        // An answer ready at the call's first poll is sent even past its deadline
        // (transport/deadline.rs): a replay that ends while the runtime thread waits for a core
        // is one. So a call may be answered once, on a busy machine, but not three times.
        let mut status = tonic::Status::ok("");
        for _ in 0..3 {
            let Answer {
                status: answered, ..
            } = grpc_call(server.addr, &path, &[("grpc-timeout", EXPIRED)], &body).await;
            status = answered;
            if status.code() != Code::Ok {
                break;
            }
        }
        assert_eq!(
            status.code(),
            Code::DeadlineExceeded,
            "{method}: {status:?}"
        );
        assert!(
            status.message().starts_with("the deadline "),
            "{method}: {status:?}"
        );
        let info = status
            .get_details_error_info()
            .unwrap_or_else(|| panic!("{method}: ErrorInfo"));
        assert_eq!(info.reason, "DEADLINE_EXCEEDED", "{method}");
        assert_eq!(info.domain, "tafl.v1", "{method}");
    }
    // The same calls with time to spare are answered.
    let body = pb::ValidateGameRequest {
        game: Some(long_tablut(4096)),
    }
    .encode_to_vec();
    let answer = grpc_call(
        server.addr,
        "/tafl.v1.TaflService/ValidateGame",
        &[("grpc-timeout", "20S")],
        &body,
    )
    .await;
    assert_eq!(answer.status.code(), Code::Ok, "{:?}", answer.status);
    assert!(!answer.body.is_empty());
}
