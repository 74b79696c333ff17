//! Helpers for the tests of the contract's second part: real and random
//! games as move texts, and ErrorInfo checks.

#![allow(dead_code)]

use std::collections::HashMap;

use tafl::rules::{BoardSize, Game, Move, Rules, Variant};
use tafl::service::pb;
use tonic::{Code, Status};
use tonic_types::StatusExt;

use crate::common::random_games::Lcg;
pub use crate::common::real_game::real_games;

/// The three rulesets on their own boards, and each on 13×13.
pub fn rulesets() -> Vec<(pb::Rules, Variant)> {
    [
        (pb::Rules::Copenhagen, Rules::Copenhagen),
        (pb::Rules::Fetlar, Rules::Fetlar),
        (pb::Rules::Tablut, Rules::Tablut),
    ]
    .into_iter()
    .flat_map(|(proto, rules)| {
        [rules.default_size(), BoardSize::Thirteen]
            .into_iter()
            .map(move |size| (proto, Variant::new(rules, size)))
    })
    .collect()
}

/// A deterministic random game on `variant` of at most `plies` moves, as
/// texts with captures, stopping at its end.
pub fn random_game(variant: Variant, plies: usize, rng: &mut Lcg) -> (Game, Vec<String>) {
    let mut game = Game::new(variant);
    let mut texts = Vec::new();
    for _ in 0..plies {
        if game.status().is_over() {
            break;
        }
        let mut moves: Vec<Move> = game.position().legal_moves().to_vec();
        moves.sort();
        let chosen = moves[rng.below(moves.len())];
        let played = game.play_move(chosen).expect("a generated move is legal");
        texts.push(played.to_string());
    }
    (game, texts)
}

/// A position near the end of a random game on `variant`: the game played
/// to its end (or `plies`), then taken back 1 to 4 plies, where wins,
/// threats and double threats are common.
pub fn near_the_end(variant: Variant, plies: usize, rng: &mut Lcg) -> (Game, Vec<String>) {
    let (_, texts) = random_game(variant, plies, rng);
    let keep = texts.len().saturating_sub(1 + rng.below(4));
    let mut game = Game::new(variant);
    for text in &texts[..keep] {
        game.play(text).expect("a replayed move");
    }
    (game, texts[..keep].to_vec())
}

/// The request's game for a variant and moves.
pub fn proto_game(rules: pb::Rules, variant: Variant, moves: &[String]) -> pb::Game {
    pb::Game {
        variant: Some(pb::Variant {
            rules: rules.into(),
            board_size: u32::from(variant.size.get()),
        }),
        start: String::new(),
        moves: moves.to_vec(),
    }
}

/// What an error says to a program.
#[derive(Debug, PartialEq, Eq)]
pub struct Info {
    pub code: Code,
    pub reason: String,
    pub kind: String,
    pub field: Option<String>,
    pub ply: Option<String>,
}

/// Reads the ErrorInfo of `status`, checking that it is well formed and
/// agrees with the BadRequest or PreconditionFailure beside it.
pub fn info(status: &Status) -> Info {
    let info = status
        .get_details_error_info()
        .unwrap_or_else(|| panic!("no ErrorInfo in {status:?}"));
    assert_eq!(info.domain, "tafl.v1");
    let metadata: HashMap<String, String> = info.metadata.clone();
    let field = metadata.get("field").cloned();
    if let Some(bad_request) = status.get_details_bad_request() {
        let violation = &bad_request.field_violations[0];
        assert_eq!(violation.reason, info.reason, "{status:?}");
        assert_eq!(Some(&violation.field), field.as_ref(), "{status:?}");
        assert!(
            status
                .message()
                .starts_with(&format!("{}: ", violation.field)),
            "the sentence names its subject: {}",
            status.message()
        );
    }
    if let Some(failure) = status.get_details_precondition_failure() {
        assert_eq!(Some(&failure.violations[0].subject), field.as_ref());
    }
    Info {
        code: status.code(),
        reason: info.reason.clone(),
        kind: metadata.get("kind").cloned().unwrap_or_default(),
        field,
        ply: metadata.get("ply").cloned(),
    }
}
