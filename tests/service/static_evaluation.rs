//! Evaluate without limits answers with the engine's own static evaluation:
//! the network on the boards that have one built in, the classic weights on
//! the others.

use super::*;
use tafl::rules::{self, BoardSize, Position};
use tafl::search::{Engine, EngineConfig, Networks, evaluate};

/// The boards with a built-in network, and one without (Copenhagen 9×9).
const BOARDS: [(Rules, u32, bool); 5] = [
    (Rules::Copenhagen, 11, true),
    (Rules::Copenhagen, 13, true),
    (Rules::Fetlar, 11, true),
    (Rules::Tablut, 9, true),
    (Rules::Copenhagen, 9, false),
];

fn library_variant(rules: Rules, size: u32) -> rules::Variant {
    let rules = match rules {
        Rules::Copenhagen => rules::Rules::Copenhagen,
        Rules::Fetlar => rules::Rules::Fetlar,
        Rules::Tablut => rules::Rules::Tablut,
        Rules::Unspecified => unreachable!("every board names its rules"),
    };
    let size = BoardSize::new(size).expect("a board size");
    rules::Variant::new(rules, size)
}

#[tokio::test]
async fn a_static_evaluation_is_the_network_where_the_board_has_one() {
    let server = TestServer::start().await;
    let mut client = server.client.clone();
    let engine = Engine::new(EngineConfig {
        hash_mb: 1,
        networks: Networks::built_in(),
        ..EngineConfig::default()
    });
    for (rules, size, networked) in BOARDS {
        let mut position = Position::start(library_variant(rules, size));
        let mut moves: Vec<String> = Vec::new();
        let mut unlike_classic = 0;
        for ply in 0..6 {
            let reply = client
                .evaluate(EvaluateRequest {
                    game: Some(game(rules, size, "", &text_refs(&moves))),
                    limits: None,
                })
                .await
                .unwrap_or_else(|error| panic!("{rules:?} {size}, ply {ply}: {error:?}"))
                .into_inner();
            let context = format!("{rules:?} {size}×{size} after {moves:?}");
            assert_eq!((reply.depth, reply.nodes), (0, 1), "{context}");
            let classic = evaluate(&position);
            if networked {
                assert_eq!(
                    reply.score,
                    engine.static_eval(&position).as_i32(),
                    "{context}"
                );
                unlike_classic += usize::from(reply.score != classic);
            } else {
                assert_eq!(reply.score, classic, "{context}");
            }
            let mut legal = position.legal_moves();
            legal.sort();
            let next = legal[ply * 7 % legal.len()];
            position.play_unchecked(next);
            moves.push(next.to_string());
        }
        // The network, not the classic weights that scored every board before.
        assert_eq!(unlike_classic > 0, networked, "{rules:?} {size}");
    }
    server.stop().await;
}

fn text_refs(moves: &[String]) -> Vec<&str> {
    moves.iter().map(String::as_str).collect()
}
