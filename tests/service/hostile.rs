//! Hostile inputs: each gets its code and the server keeps answering.

use super::*;

/// One hostile call: the request, the code it must get, and the field named
/// (BadRequest for INVALID_ARGUMENT, PreconditionFailure for FAILED_PRECONDITION).
struct Hostile {
    name: &'static str,
    call: Call,
    code: Code,
    field: Option<&'static str>,
}

enum Call {
    Legal(LegalMovesRequest),
    Apply(ApplyMoveRequest),
    Evaluate(EvaluateRequest, Option<Duration>),
    Suggest(SuggestMoveRequest, Option<Duration>),
    /// Raw bytes sent as the body of a method.
    Raw(&'static str, Vec<u8>),
}

fn hostile(name: &'static str, call: Call, code: Code, field: Option<&'static str>) -> Hostile {
    Hostile {
        name,
        call,
        code,
        field,
    }
}

fn legal(game: pb::Game) -> Call {
    Call::Legal(LegalMovesRequest {
        game: Some(game),
        square: String::new(),
    })
}

fn apply(game: pb::Game, next: &str) -> Call {
    Call::Apply(ApplyMoveRequest {
        game: Some(game),
        next_move: next.to_owned(),
        include_legal_moves: false,
    })
}

fn hostile_table() -> Vec<Hostile> {
    use Code::*;
    let escaped = setup(11, &["k6", "k7"], &[], "d1", 'd');
    let finished = game(Rules::Copenhagen, 0, &escaped, &["d1-a1"]);
    let with_variant = |rules: i32, board_size: u32| pb::Game {
        variant: Some(pb::Variant { rules, board_size }),
        ..pb::Game::default()
    };
    let megabyte = "e".repeat(1 << 20);
    let shuffle: Vec<&str> = SHUFFLE_11[..4]
        .iter()
        .copied()
        .cycle()
        .take(20_000)
        .collect();
    vec![
        hostile(
            "empty LegalMoves",
            Call::Legal(LegalMovesRequest::default()),
            Ok,
            None,
        ),
        hostile(
            "empty ApplyMove",
            Call::Apply(ApplyMoveRequest::default()),
            InvalidArgument,
            Some("next_move"),
        ),
        hostile(
            "empty Evaluate",
            Call::Evaluate(EvaluateRequest::default(), None),
            Ok,
            None,
        ),
        hostile(
            "empty SuggestMove",
            Call::Suggest(SuggestMoveRequest::default(), None),
            Ok,
            None,
        ),
        hostile(
            "unknown rules 99",
            legal(with_variant(99, 0)),
            InvalidArgument,
            Some("game.variant.rules"),
        ),
        hostile(
            "negative rules",
            legal(with_variant(-1, 0)),
            InvalidArgument,
            Some("game.variant.rules"),
        ),
        hostile(
            "board size 10",
            legal(with_variant(1, 10)),
            InvalidArgument,
            Some("game.variant.board_size"),
        ),
        hostile(
            "board size 1",
            legal(with_variant(1, 1)),
            InvalidArgument,
            Some("game.variant.board_size"),
        ),
        hostile(
            "board size u32::MAX",
            legal(with_variant(3, u32::MAX)),
            InvalidArgument,
            Some("game.variant.board_size"),
        ),
        hostile("Copenhagen on 9x9", legal(with_variant(1, 9)), Ok, None),
        hostile(
            "20,000 moves",
            legal(copenhagen(&shuffle)),
            InvalidArgument,
            Some("game.moves"),
        ),
        hostile(
            "1 MB move string",
            legal(copenhagen(&[&megabyte])),
            InvalidArgument,
            Some("game.moves[0]"),
        ),
        hostile(
            "1 MB next_move",
            apply(copenhagen(&[]), &megabyte),
            InvalidArgument,
            Some("next_move"),
        ),
        hostile(
            "1 MB start",
            legal(game(Rules::Copenhagen, 0, &megabyte, &[])),
            InvalidArgument,
            Some("game.start"),
        ),
        hostile(
            "1 MB square",
            Call::Legal(LegalMovesRequest {
                game: None,
                square: megabyte.clone(),
            }),
            InvalidArgument,
            Some("square"),
        ),
        hostile(
            "5 MB message",
            legal(game(Rules::Copenhagen, 0, &"x".repeat(5 << 20), &[])),
            OutOfRange,
            None,
        ),
        hostile(
            "non-ASCII move",
            legal(copenhagen(&["é1-é4"])),
            InvalidArgument,
            Some("game.moves[0]"),
        ),
        hostile(
            "full-width digits",
            legal(copenhagen(&["ｄ１-ｄ２"])),
            InvalidArgument,
            Some("game.moves[0]"),
        ),
        hostile(
            "NUL inside a move",
            legal(copenhagen(&["d1\0-d2"])),
            InvalidArgument,
            Some("game.moves[0]"),
        ),
        hostile(
            "emoji start",
            legal(game(Rules::Copenhagen, 0, "🐉🐉🐉 a", &[])),
            InvalidArgument,
            Some("game.start"),
        ),
        hostile(
            "non-ASCII square",
            Call::Legal(LegalMovesRequest {
                game: None,
                square: "ё5".into(),
            }),
            InvalidArgument,
            Some("square"),
        ),
        hostile(
            "square off the board",
            Call::Legal(LegalMovesRequest {
                game: Some(game(Rules::Tablut, 0, "", &[])),
                square: "k1".into(),
            }),
            InvalidArgument,
            Some("square"),
        ),
        hostile(
            "square z99",
            Call::Legal(LegalMovesRequest {
                game: None,
                square: "z99".into(),
            }),
            InvalidArgument,
            Some("square"),
        ),
        hostile(
            "move to the same square",
            legal(copenhagen(&["d1-d1"])),
            InvalidArgument,
            Some("game.moves[0]"),
        ),
        hostile(
            "diagonal move",
            legal(copenhagen(&["d1-e2"])),
            InvalidArgument,
            Some("game.moves[0]"),
        ),
        hostile(
            "defenders first",
            legal(copenhagen(&["h6-i6"])),
            InvalidArgument,
            Some("game.moves[0]"),
        ),
        hostile(
            "move off a 9x9 board",
            legal(game(Rules::Tablut, 0, "", &["d1-d12"])),
            InvalidArgument,
            Some("game.moves[0]"),
        ),
        hostile(
            "empty move in the list",
            legal(copenhagen(&["d1-d2", ""])),
            InvalidArgument,
            Some("game.moves[1]"),
        ),
        hostile(
            "max_time_ms of a day",
            Call::Suggest(
                SuggestMoveRequest {
                    limits: Some(SearchLimits {
                        max_time_ms: 86_400_000,
                        ..SearchLimits::default()
                    }),
                    ..SuggestMoveRequest::default()
                },
                Some(Duration::from_millis(800)),
            ),
            Ok,
            None,
        ),
        hostile(
            "depth 1000",
            Call::Evaluate(
                EvaluateRequest {
                    game: None,
                    limits: Some(SearchLimits {
                        max_depth: 1000,
                        ..SearchLimits::default()
                    }),
                },
                Some(Duration::from_millis(800)),
            ),
            Ok,
            None,
        ),
        hostile(
            "max_nodes u64::MAX",
            Call::Evaluate(
                EvaluateRequest {
                    game: None,
                    limits: Some(SearchLimits {
                        max_nodes: u64::MAX,
                        max_depth: 2,
                        ..SearchLimits::default()
                    }),
                },
                None,
            ),
            Ok,
            None,
        ),
        hostile(
            "level 11",
            Call::Suggest(
                SuggestMoveRequest {
                    level: 11,
                    ..SuggestMoveRequest::default()
                },
                None,
            ),
            InvalidArgument,
            Some("level"),
        ),
        hostile(
            "level u32::MAX",
            Call::Suggest(
                SuggestMoveRequest {
                    level: u32::MAX,
                    ..SuggestMoveRequest::default()
                },
                None,
            ),
            InvalidArgument,
            Some("level"),
        ),
        hostile(
            "1 ms deadline",
            Call::Suggest(
                SuggestMoveRequest::default(),
                Some(Duration::from_millis(1)),
            ),
            DeadlineExceeded,
            None,
        ),
        hostile(
            "move after the end",
            apply(finished.clone(), "k6-k5"),
            FailedPrecondition,
            Some("next_move"),
        ),
        hostile(
            "garbage after the end",
            apply(finished.clone(), "\u{0}\u{ffff}"),
            FailedPrecondition,
            Some("next_move"),
        ),
        hostile(
            "moves after the end in the list",
            legal(game(
                Rules::Copenhagen,
                0,
                &escaped,
                &["d1-a1", "k6-k5", "??"],
            )),
            FailedPrecondition,
            Some("game.moves[1]"),
        ),
        hostile(
            "SuggestMove on a finished game",
            Call::Suggest(
                SuggestMoveRequest {
                    game: Some(finished.clone()),
                    ..SuggestMoveRequest::default()
                },
                None,
            ),
            FailedPrecondition,
            Some("game"),
        ),
        hostile(
            "LegalMoves on a finished game",
            legal(finished.clone()),
            Ok,
            None,
        ),
        hostile(
            "Evaluate on a finished game",
            Call::Evaluate(
                EvaluateRequest {
                    game: Some(finished),
                    limits: None,
                },
                None,
            ),
            Ok,
            None,
        ),
        hostile(
            "start with two kings",
            legal(game(
                Rules::Copenhagen,
                0,
                &setup(11, &["a4"], &[], "f6", 'a').replace('t', "K"),
                &[],
            )),
            InvalidArgument,
            Some("game.start"),
        ),
        hostile(
            "start without a king",
            legal(game(
                Rules::Copenhagen,
                0,
                "11/11/11/11/11/5t5/11/11/11/11/11 a",
                &[],
            )),
            InvalidArgument,
            Some("game.start"),
        ),
        hostile(
            "king on a corner",
            legal(game(
                Rules::Copenhagen,
                0,
                &setup(11, &["f5"], &[], "a1", 'a'),
                &[],
            )),
            InvalidArgument,
            Some("game.start"),
        ),
        hostile(
            "attacker on the throne",
            legal(game(
                Rules::Copenhagen,
                0,
                &setup(11, &["f6"], &[], "e5", 'a'),
                &[],
            )),
            InvalidArgument,
            Some("game.start"),
        ),
        hostile(
            "start with a short rank",
            legal(game(
                Rules::Copenhagen,
                0,
                "/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt2/ a",
                &[],
            )),
            InvalidArgument,
            Some("game.start"),
        ),
        hostile(
            "start without a side",
            legal(game(
                Rules::Copenhagen,
                0,
                "/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/",
                &[],
            )),
            InvalidArgument,
            Some("game.start"),
        ),
        hostile(
            "start of 11 with board size 13",
            legal(game(
                Rules::Fetlar,
                13,
                &setup(11, &["a4"], &[], "f6", 'a'),
                &[],
            )),
            InvalidArgument,
            Some("game.start"),
        ),
        hostile(
            "start of 10 ranks",
            legal(game(
                Rules::Copenhagen,
                0,
                "10/10/10/10/10/4K5/10/10/10/t9 a",
                &[],
            )),
            InvalidArgument,
            Some("game.start"),
        ),
        hostile(
            "garbage protobuf",
            Call::Raw("LegalMoves", vec![0xff, 0xff, 0xff, 0xff]),
            InvalidArgument,
            None,
        ),
        hostile(
            "invalid UTF-8 in a string",
            Call::Raw("LegalMoves", vec![0x12, 0x02, 0xc3, 0x28]),
            InvalidArgument,
            None,
        ),
        hostile(
            "unknown fields are ignored",
            Call::Raw("LegalMoves", vec![0xf8, 0x07, 0x01]),
            Ok,
            None,
        ),
    ]
}

/// Sends raw bytes as a request body and reads the reply as raw bytes.
async fn raw_call(
    addr: std::net::SocketAddr,
    method: &str,
    body: Vec<u8>,
) -> Result<(), tonic::Status> {
    use tonic::codegen::http::uri::PathAndQuery;
    let channel = tonic::transport::Channel::from_shared(format!("http://{addr}"))
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut grpc = tonic::client::Grpc::new(channel);
    grpc.ready()
        .await
        .map_err(|e| tonic::Status::unavailable(e.to_string()))?;
    let path = PathAndQuery::try_from(format!("/tafl.v1.TaflService/{method}")).unwrap();
    grpc.unary(tonic::Request::new(body), path, raw::RawCodec)
        .await
        .map(|_| ())
}

mod raw {
    use prost::bytes::{Buf, BufMut, Bytes};
    use tonic::Status;
    use tonic::codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};

    /// Bytes in, bytes out: lets a test send what no generated client would.
    #[derive(Default)]
    pub struct RawCodec;
    pub struct RawEncoder;
    pub struct RawDecoder;

    impl Codec for RawCodec {
        type Encode = Vec<u8>;
        type Decode = Bytes;
        type Encoder = RawEncoder;
        type Decoder = RawDecoder;
        fn encoder(&mut self) -> RawEncoder {
            RawEncoder
        }
        fn decoder(&mut self) -> RawDecoder {
            RawDecoder
        }
    }

    impl Encoder for RawEncoder {
        type Item = Vec<u8>;
        type Error = Status;
        fn encode(&mut self, item: Vec<u8>, buf: &mut EncodeBuf<'_>) -> Result<(), Status> {
            buf.put_slice(&item);
            Ok(())
        }
    }

    impl Decoder for RawDecoder {
        type Item = Bytes;
        type Error = Status;
        fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<Bytes>, Status> {
            let len = buf.remaining();
            Ok(Some(buf.copy_to_bytes(len)))
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_inputs_get_their_codes_and_the_server_keeps_answering() {
    let _heavy = HEAVY.lock().await;
    let table = hostile_table();
    assert!(table.len() >= 30, "{} hostile inputs", table.len());
    let mut server = TestServer::start().await;
    for case in table {
        let name = case.name;
        let result = match case.call {
            Call::Legal(request) => server.client.legal_moves(request).await.map(|_| ()),
            Call::Apply(request) => server.client.apply_move(request).await.map(|_| ()),
            Call::Evaluate(request, timeout) => match timeout {
                Some(timeout) => server
                    .client
                    .evaluate(with_timeout(request, timeout))
                    .await
                    .map(|_| ()),
                None => server.client.evaluate(request).await.map(|_| ()),
            },
            Call::Suggest(request, timeout) => match timeout {
                Some(timeout) => server
                    .client
                    .suggest_move(with_timeout(request, timeout))
                    .await
                    .map(|_| ()),
                None => server.client.suggest_move(request).await.map(|_| ()),
            },
            Call::Raw(method, body) => raw_call(server.addr, method, body).await,
        };
        match (result, case.code) {
            (Ok(()), Code::Ok) => {}
            (Ok(()), code) => panic!("{name}: answered, expected {code:?}"),
            (Err(status), code) => {
                assert_ne!(status.code(), Code::Unknown, "{name}: {status:?}");
                assert_ne!(status.code(), Code::Internal, "{name}: {status:?}");
                if code == Code::DeadlineExceeded {
                    // The server's answer, or the tonic client's own timer (CANCELLED), whichever comes first.
                    assert!(
                        matches!(status.code(), Code::DeadlineExceeded | Code::Cancelled),
                        "{name}: {status:?}"
                    );
                } else {
                    assert_eq!(status.code(), code, "{name}: {status:?}");
                }
                match (code, case.field) {
                    (Code::InvalidArgument, Some(field)) => {
                        assert_eq!(bad_field(&status), field, "{name}")
                    }
                    (Code::FailedPrecondition, Some(field)) => {
                        assert_eq!(precondition_subject(&status), field, "{name}")
                    }
                    _ => {}
                }
                assert!(
                    status.message().len() < 400,
                    "{name}: the message stays short"
                );
            }
        }
        // The server still answers, on the same connection and a new one.
        let reply = server
            .client
            .legal_moves(LegalMovesRequest::default())
            .await
            .unwrap_or_else(|e| panic!("after {name}: {e:?}"));
        assert_eq!(reply.into_inner().moves.len(), 116, "after {name}");
    }
    server.assert_alive().await;
    server.stop().await;
}
