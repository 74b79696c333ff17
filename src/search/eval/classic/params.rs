//! The classic evaluation's numbers: every term's built-in weight.
//!
//! Scores are in hundredths of an attacker: one attacker on an open board is
//! worth 100. The evaluation's weights were set by hand from tafl strategy
//! (the king's routes dominate) and kept because no tuned alternative beat
//! them in self-play: `tafl tune` (Texel's method, `lab/tune.rs`) fitted to the
//! 1,714 decided real games predicts held-out results better (log-loss 0.675
//! to 0.602) yet scored 45.5% ± 9.4% against these weights over 100 games at
//! 40,000 nodes a move; fitted to the engine's own games, 35.0% ± 7.7%; hand
//! variations of the fort and corner terms, 42–47%. docs/ai.md has the table.

use super::term::Term;
use super::weights::Weights;

/// Attackers count as fewer than this many "scarce": see [`Term::ScarceAttacker`].
pub const SCARCE_ATTACKER_COUNT: i32 = 12;

/// What one of each evaluation term is worth to the side it favours, in
/// hundredths of an attacker (what each term counts: [`Term`]).
pub const WEIGHTS: Weights = Weights::from_table([
    // Material: fewer defenders, and each one matters more to the king's escort.
    (Term::Attacker, 100),
    (Term::Defender, 190),
    (Term::ScarceAttacker, 25),
    // The king's routes: the attackers must keep answering them.
    (Term::KingMobility, 8),
    (Term::KingRouteTwoMoves, 120),
    (Term::KingDoubleThreatToMove, 2700),
    (Term::KingDoubleThreatWaiting, 900),
    (Term::KingOpenRoute, 400),
    (Term::KingCornerProximity, 6),
    // King danger, by sides held.
    (Term::KingPressureOne, 20),
    (Term::KingPressureTwo, 70),
    (Term::KingPressureThree, 220),
    (Term::KingPressureFour, 400),
    // Cordon and encirclement.
    (Term::DefenderEnclosed, 60),
    (Term::KingEnclosed, 700),
    (Term::KingPocketSquare, 4),
    (Term::AttackerDiagonalLink, 6),
    // Corners.
    (Term::CornerSealed, 120),
    (Term::CornerGuard, 25),
    (Term::CornerGuardOuter, 12),
    (Term::CornerNeighbour, -25),
    // Copenhagen's edge forts.
    (Term::FortKingOnEdge, 120),
    (Term::FortWallDefender, 45),
    (Term::FortAttackerNear, 60),
    // Moving next.
    (Term::Tempo, 15),
]);

impl Default for Weights {
    /// The built-in weights (`WEIGHTS` in `params.rs`).
    fn default() -> Weights {
        WEIGHTS
    }
}
