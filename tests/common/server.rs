//! Helpers for the service tests: a real server on port 0, a generated client,
//! request builders and position texts built from square lists.

use std::net::SocketAddr;
use std::time::Duration;

use tafl::service::pb::tafl_service_client::TaflServiceClient;
use tafl::service::pb::{self, Game, Variant};
use tafl::service::{CapsConfig, Config, ExecConfig, Server, ShutdownConfig, TransportConfig};
use tonic::transport::Channel;
use tonic::{Code, Status};
use tonic_types::StatusExt;

/// Serialises the tests that load both cores or measure time, so they do
/// not slow each other down.
pub static HEAVY: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// A configuration for tests: port 0, small caps, quick shutdown.
pub fn test_config() -> Config {
    Config {
        transport: TransportConfig {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            ..TransportConfig::default()
        },
        exec: ExecConfig {
            search_threads: 2,
            max_concurrent_searches: 2,
            max_queued_searches: 64,
            hash_mb: 4,
            ..ExecConfig::default()
        },
        caps: CapsConfig {
            max_game_plies: 1000,
            max_search_time: Duration::from_millis(3000),
            ..CapsConfig::default()
        },
        shutdown: ShutdownConfig {
            grace: Duration::from_millis(5000),
            ..ShutdownConfig::default()
        },
        ..Config::default()
    }
}

/// A server with one search slot, no queue and a 60 s search cap: while
/// one long search (an analysis, a review) holds the slot, another is
/// refused.
pub async fn one_slot_server() -> TestServer {
    TestServer::start_with(Config {
        exec: ExecConfig {
            max_concurrent_searches: 1,
            max_queued_searches: 0,
            ..test_config().exec
        },
        caps: CapsConfig {
            max_search_time: Duration::from_millis(60_000),
            ..test_config().caps
        },
        ..test_config()
    })
    .await
}

/// A running server and a client connected to it.
pub struct TestServer {
    pub server: Option<Server>,
    pub addr: SocketAddr,
    pub client: TaflServiceClient<Channel>,
}

impl TestServer {
    pub async fn start() -> TestServer {
        TestServer::start_with(test_config()).await
    }

    pub async fn start_with(config: Config) -> TestServer {
        let server = Server::start(config).await.expect("server starts");
        let addr = server.local_addr();
        let client = connect(addr).await;
        TestServer {
            server: Some(server),
            addr,
            client,
        }
    }

    /// A fresh client on its own connection.
    pub async fn new_client(&self) -> TaflServiceClient<Channel> {
        connect(self.addr).await
    }

    /// The server still answers a cheap call correctly.
    pub async fn assert_alive(&self) {
        let mut client = self.new_client().await;
        let reply = client
            .legal_moves(pb::LegalMovesRequest::default())
            .await
            .expect("the server still answers")
            .into_inner();
        assert_eq!(reply.moves.len(), 116);
    }

    pub async fn stop(mut self) {
        if let Some(server) = self.server.take() {
            server.shutdown().await.expect("clean shutdown");
        }
    }
}

/// The service's client, taking and sending messages up to 64 MiB.
pub async fn connect(addr: SocketAddr) -> TaflServiceClient<Channel> {
    TaflServiceClient::new(super::client::channel(addr).await)
        .max_decoding_message_size(64 << 20)
        .max_encoding_message_size(64 << 20)
}

pub fn variant(rules: pb::Rules, board_size: u32) -> Option<Variant> {
    Some(Variant {
        rules: rules.into(),
        board_size,
    })
}

pub fn game(rules: pb::Rules, board_size: u32, start: &str, moves: &[&str]) -> Game {
    Game {
        variant: variant(rules, board_size),
        start: start.to_owned(),
        moves: moves.iter().map(|m| (*m).to_owned()).collect(),
    }
}

pub fn copenhagen(moves: &[&str]) -> Game {
    game(pb::Rules::Copenhagen, 0, "", moves)
}

/// Copenhagen 11×11 from the start, the game's moves owned.
pub fn copenhagen_moves(moves: Vec<String>) -> Game {
    Game {
        variant: None,
        start: String::new(),
        moves,
    }
}

/// A review of a real game's first `plies` + 1 moves, each position searched to `max_nodes`.
pub fn real_game_review(plies: usize, max_nodes: u64) -> pb::ReviewGameRequest {
    pb::ReviewGameRequest {
        game: Some(copenhagen_moves(crate::real_game::real_game_moves(plies))),
        limits: Some(pb::SearchLimits {
            max_nodes,
            ..pb::SearchLimits::default()
        }),
        level: 0,
        seed: 0,
    }
}

/// Position text for a board of `size` with pieces on the given squares.
pub fn setup(size: u8, attackers: &[&str], defenders: &[&str], king: &str, side: char) -> String {
    let mut board = vec![vec!['.'; size as usize]; size as usize];
    let mut put = |square: &str, piece: char| {
        let file = (square.as_bytes()[0] - b'a') as usize;
        let rank: usize = square[1..].parse().expect("rank");
        board[rank - 1][file] = piece;
    };
    for square in attackers {
        put(square, 't');
    }
    for square in defenders {
        put(square, 'T');
    }
    put(king, 'K');
    let mut rows = Vec::new();
    for rank in (0..size as usize).rev() {
        let mut row = String::new();
        let mut empty = 0;
        for &piece in &board[rank] {
            if piece == '.' {
                empty += 1;
            } else {
                if empty > 0 {
                    row.push_str(&empty.to_string());
                    empty = 0;
                }
                row.push(piece);
            }
        }
        if empty > 0 {
            row.push_str(&empty.to_string());
        }
        rows.push(row);
    }
    format!("/{}/ {side}", rows.join("/"))
}

/// The field a BadRequest names (panics if the status carries none).
pub fn bad_field(status: &Status) -> String {
    let bad_request = status
        .get_details_bad_request()
        .unwrap_or_else(|| panic!("no BadRequest in {status:?}"));
    assert_eq!(bad_request.field_violations.len(), 1);
    let violation = &bad_request.field_violations[0];
    assert!(!violation.description.is_empty(), "a sentence says why");
    violation.field.clone()
}

/// The subject a PreconditionFailure names (panics if there is none).
pub fn precondition_subject(status: &Status) -> String {
    let failure = status
        .get_details_precondition_failure()
        .unwrap_or_else(|| panic!("no PreconditionFailure in {status:?}"));
    assert_eq!(failure.violations.len(), 1);
    assert_eq!(failure.violations[0].r#type, "GAME_OVER");
    failure.violations[0].subject.clone()
}

/// Asserts an INVALID_ARGUMENT naming `field`.
pub fn assert_invalid(status: &Status, field: &str) {
    assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
    assert_eq!(bad_field(status), field, "{status:?}");
}

/// Asserts a FAILED_PRECONDITION about `subject`.
pub fn assert_game_over(status: &Status, subject: &str) {
    assert_eq!(status.code(), Code::FailedPrecondition, "{status:?}");
    assert_eq!(precondition_subject(status), subject, "{status:?}");
}

/// A request with a gRPC deadline.
pub fn with_timeout<T>(message: T, timeout: Duration) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    request.set_timeout(timeout);
    request
}
