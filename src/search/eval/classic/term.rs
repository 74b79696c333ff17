//! The things the evaluation counts (`counting.rs` counts them, `params.rs`
//! weighs them, `lab/tune.rs` fits the weights).

use strum::{EnumCount, EnumIter, EnumString, IntoStaticStr};

/// One thing the evaluation counts. Its weight (`params.rs`) is what one of it
/// is worth to the side it favours. Names are the snake_case of the variant,
/// as `tafl tune` prints them and `tafl match --a weights=FILE` reads them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, EnumCount, EnumIter, EnumString, IntoStaticStr)]
#[strum(serialize_all = "snake_case")]
pub enum Term {
    /// Attackers: an attacker on the board.
    Attacker,
    /// Defenders: a defender (not the king) on the board.
    Defender,
    /// Attackers: each attacker fewer than `SCARCE_ATTACKER_COUNT` (a thin cordon leaks, so the last
    /// ones are worth more).
    ScarceAttacker,
    /// Defenders: a square the king can slide to this move.
    KingMobility,
    /// Defenders: a corner the king could reach in two moves (a square he can slide to, from which
    /// that corner is open).
    KingRouteTwoMoves,
    /// Defenders, to move: a square in the king's reach opens two corners at once (a double threat:
    /// one blocking move cannot stop both).
    KingDoubleThreatToMove,
    /// Defenders, attackers to move: as above, but the attackers get one move to spoil it.
    KingDoubleThreatWaiting,
    /// Defenders: a corner open to the king now (the attackers must block it).
    KingOpenRoute,
    /// Defenders: each step the king stands nearer his nearest corner than the board's size away.
    KingCornerProximity,
    /// Attackers: one side of a capturable king held by an attacker or a square hostile to him.
    KingPressureOne,
    /// Attackers: two sides of a capturable king held.
    KingPressureTwo,
    /// Attackers: three sides of a capturable king held.
    KingPressureThree,
    /// Attackers: four sides of a capturable king held (the search sees the capture first).
    KingPressureFour,
    /// Attackers: a defender (not the king) with no path of non-attacker squares to the edge
    /// (encirclement pressure: Copenhagen wins by enclosing all of them).
    DefenderEnclosed,
    /// Attackers: the king has no path of non-attacker squares to the edge.
    KingEnclosed,
    /// Attackers, king enclosed: each square of the board outside his pocket (a tight ring is
    /// closer to a capture).
    KingPocketSquare,
    /// Attackers: a pair of attackers touching diagonally (the links a ring is made of).
    AttackerDiagonalLink,
    /// Attackers: a corner the king cannot reach by any path of non-attacker squares.
    CornerSealed,
    /// Attackers: an attacker on a corner's sealing diagonal (a3, b2, c1 for a1).
    CornerGuard,
    /// Attackers: an attacker on the next diagonal out (b3, c2 for a1).
    CornerGuardOuter,
    /// Attackers: an attacker right next to a corner (a2, b1), capturable against it (its weight is
    /// negative).
    CornerNeighbour,
    /// Defenders, Copenhagen: the king on the edge (he cannot be captured there and may build an
    /// exit fort).
    FortKingOnEdge,
    /// Defenders, Copenhagen: a defender next to (orthogonally or diagonally) an edge king.
    FortWallDefender,
    /// Attackers, Copenhagen: an attacker next to an edge king (the fort is not yet safe).
    FortAttackerNear,
    /// Attackers when they move next, defenders when they do: moving next is worth a little.
    Tempo,
}
