//! tafl: the rules arbiter and AI of an online tafl (Viking chess) site,
//! served over gRPC.
//!
//! [`rules`] judges moves exactly as docs/RULES.md states them, for Copenhagen
//! Hnefatafl, Fetlar Hnefatafl and Standard Tablut on 9×9, 11×11 and 13×13
//! boards:
//!
//! ```
//! use tafl::rules::{EndReason, Game, PositionText, Position, Rules, Side, Status, Variant};
//!
//! // A game from the standard Copenhagen start, move by move.
//! let mut game = Game::new(Variant::standard(Rules::Copenhagen));
//! for text in ["d1-d3", "e5-e2", "g1-g3", "f4-c4"] {
//!     game.play(text)?;
//! }
//! let played = game.play("g3-e3xe2")?; // a capture list is checked when given
//! assert_eq!(played.to_string(), "g3-e3xe2");
//!
//! // A custom start: the king near a corner, one attacker far away.
//! let text: PositionText = "/11/11/11/11/11/11/4t6/11/11/1K9/11/ d".parse()?;
//! let mut game = Game::from_position(Position::from_setup(&text, Variant::standard(Rules::Copenhagen))?);
//! assert_eq!(game.play("b2-b1")?.status, Status::Ongoing);
//! game.play("e5-e4")?;
//! let played = game.play("b1-a1")?;
//! assert_eq!(played.status, Status::Won { winner: Side::Defenders, reason: EndReason::KingEscaped });
//! let refused = game.play("e4-e5").unwrap_err();
//! assert_eq!(refused.to_string(), "ply 4: the game is over: no move may follow");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#[cfg(feature = "lab")]
pub mod lab;
pub mod rules;
pub mod search;
#[cfg(feature = "service")]
pub mod service;
