//! Properties of the rules engine over random games on every variant:
//! the move generator and the move checker agree exactly, random play never
//! panics, and text round-trips. Parsers take arbitrary text without panic.

use crate::common;

use common::captures::check_capturing_moves;
use common::previews::check_previews;
use proptest::prelude::*;
use tafl::rules::{
    BoardSize, Game, Move, MoveText, Position, PositionText, Rules, Square, Variant,
};

fn variants() -> impl Strategy<Value = Variant> {
    (
        prop_oneof![
            Just(Rules::Copenhagen),
            Just(Rules::Fetlar),
            Just(Rules::Tablut)
        ],
        prop_oneof![
            Just(BoardSize::Nine),
            Just(BoardSize::Eleven),
            Just(BoardSize::Thirteen)
        ],
    )
        .prop_map(|(rules, size)| Variant::new(rules, size))
}

/// Every move along a line from a square of the board: the candidates the
/// checker must sort into legal and illegal exactly as the generator does.
fn straight_moves(size: BoardSize) -> Vec<Move> {
    let n = size.get();
    let squares: Vec<Square> = (0..n)
        .flat_map(|f| (0..n).map(move |r| Square::new(f, r).unwrap()))
        .collect();
    let mut moves = Vec::new();
    for &from in &squares {
        for &to in &squares {
            if from != to && (from.file() == to.file() || from.rank() == to.rank()) {
                moves.push(Move { from, to });
            }
        }
    }
    moves
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Along random games: `check` accepts exactly the generated moves,
    /// `Game::play` accepts every generated move by its text, each move's
    /// preview is what previewing it alone says, and the position text
    /// round-trips at every ply.
    #[test]
    fn generator_and_checker_agree(variant in variants(), choices in prop::collection::vec(any::<u32>(), 0..160)) {
        let candidates = straight_moves(variant.size);
        let mut game = Game::new(variant);
        for choice in choices {
            let position = *game.position();
            prop_assert_eq!(check_previews(&game).err(), None, "in {}", position);
            let mut legal = position.legal_moves();
            legal.sort();
            prop_assert_eq!(legal.len() as u64, position.count_legal_moves());
            for &mv in &candidates {
                let accepted = position.check(mv).is_ok();
                prop_assert_eq!(accepted, legal.binary_search(&mv).is_ok(), "{} in {}", mv, position);
            }
            let text = position.to_string();
            let reparsed = Position::from_setup(&text.parse::<PositionText>().unwrap(), variant).unwrap();
            prop_assert!(reparsed.same_placement(&position));
            prop_assert_eq!(reparsed.to_string(), text);
            if legal.is_empty() {
                prop_assert!(game.status().is_over());
                break;
            }
            let mv = legal[choice as usize % legal.len()];
            let played = game.play(&mv.to_string()).unwrap();
            // The canonical text with its captures is accepted as a capture list too.
            let mut replay = Game::from_position(position);
            prop_assert_eq!(replay.play(&played.to_string()).unwrap().captures, played.captures);
            if game.status().is_over() {
                prop_assert!(game.play(&mv.to_string()).unwrap_err().is_game_over());
                break;
            }
        }
    }

    /// Along random games that capture whenever a coin says so: the
    /// capturing moves are exactly the legal moves after which the rules
    /// report a capture.
    #[test]
    fn capturing_moves_are_the_legal_moves_that_capture(variant in variants(), choices in prop::collection::vec(any::<u32>(), 0..200)) {
        let mut position = Position::start(variant);
        for choice in choices {
            prop_assert_eq!(check_capturing_moves(&position), Ok(()), "in {}", position);
            let legal = position.legal_moves();
            if legal.is_empty() {
                break;
            }
            let captures = position.capturing_moves();
            let pool = if choice % 2 == 0 && !captures.is_empty() { &captures[..] } else { &legal[..] };
            position.play_unchecked(pool[(choice / 2) as usize % pool.len()]);
            if position.status().is_over() {
                break;
            }
        }
    }

    /// Any text at all: parsing never panics, and what parses prints back
    /// to text that parses to the same thing.
    #[test]
    fn move_text_never_panics(text in "\\PC{0,24}|[a-nA-N0-9xX/+\\- ]{0,16}") {
        if let Ok(parsed) = text.parse::<MoveText>() {
            prop_assert_eq!(parsed.to_string().parse::<MoveText>().unwrap(), parsed);
        }
    }

    #[test]
    fn position_text_never_panics(text in "\\PC{0,40}|[tTK0-9/ ad]{0,200}") {
        if let Ok(parsed) = text.parse::<PositionText>() {
            prop_assert_eq!(parsed.to_string().parse::<PositionText>().unwrap(), parsed);
        }
    }

    /// Random text as moves of a real game: refused or played, never a panic.
    #[test]
    fn games_take_any_text(variant in variants(), texts in prop::collection::vec("[a-nA-N][0-9]{1,2}-?[a-nA-N][0-9]{1,2}(x[a-n][0-9])?", 0..60)) {
        let mut game = Game::new(variant);
        for text in texts {
            let before = game.ply();
            match game.play(&text) {
                Ok(_) => prop_assert_eq!(game.ply(), before + 1),
                Err(error) => prop_assert_eq!(error.index, before),
            }
        }
    }
}
