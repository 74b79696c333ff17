//! Variants: a ruleset played on a board size.

use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

use super::bitboard::Bitboard;
use super::board_size::BoardSize;
use super::notation::PositionText;
use super::side::Side;
use super::square::Square;
use super::status::{EndReason, Status};

/// The rules a game is judged by (docs/RULES.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rules {
    /// Copenhagen Hnefatafl as the World Tafl Federation plays it: the default.
    Copenhagen,
    /// Fetlar Hnefatafl: no shieldwall, exit fort or encirclement; draws.
    Fetlar,
    /// The site's Standard Tablut: a throne nobody else crosses, edge-assisted king capture.
    Tablut,
}

impl Rules {
    /// The board the rules are usually played on: 11×11, or 9×9 for Tablut.
    #[must_use]
    pub const fn default_size(self) -> BoardSize {
        match self {
            Rules::Copenhagen | Rules::Fetlar => BoardSize::Eleven,
            Rules::Tablut => BoardSize::Nine,
        }
    }

    /// How the game ends when a position stands for the third time (rule
    /// 9): the attackers win in Copenhagen (the defenders may not repeat),
    /// a draw in Fetlar; Tablut has no repetition rule (`None`).
    #[must_use]
    pub const fn repetition_outcome(self) -> Option<Status> {
        match self {
            Rules::Copenhagen => Some(Status::Won {
                winner: Side::Attackers,
                reason: EndReason::Repetition,
            }),
            Rules::Fetlar => Some(Status::Drawn {
                reason: EndReason::Repetition,
            }),
            Rules::Tablut => None,
        }
    }

    /// Whether a king on the board's edge is safe from capture (rule 5).
    /// Where he is not (Tablut), the edge and the corners count as hostile
    /// sides of the king.
    #[must_use]
    pub const fn edge_shields_king(self) -> bool {
        match self {
            Rules::Copenhagen | Rules::Fetlar => true,
            Rules::Tablut => false,
        }
    }

    /// Whether soldiers may not pass through the empty throne (Tablut);
    /// elsewhere they may cross it, though never stop on it.
    #[must_use]
    pub const fn throne_bars_soldiers(self) -> bool {
        match self {
            Rules::Copenhagen | Rules::Fetlar => false,
            Rules::Tablut => true,
        }
    }

    /// Whether the throne is hostile to every soldier even with the king on
    /// it (Tablut); elsewhere the occupied throne is hostile to the
    /// attackers alone, through the king (rule 2).
    #[must_use]
    pub const fn throne_always_hostile(self) -> bool {
        match self {
            Rules::Copenhagen | Rules::Fetlar => false,
            Rules::Tablut => true,
        }
    }

    /// Whether a row of pieces on the edge can be taken by a shieldwall (rule 4).
    #[must_use]
    pub const fn has_shieldwall(self) -> bool {
        match self {
            Rules::Copenhagen => true,
            Rules::Fetlar | Rules::Tablut => false,
        }
    }

    /// Whether the defenders win by an exit fort (rule 7).
    #[must_use]
    pub const fn has_exit_fort(self) -> bool {
        match self {
            Rules::Copenhagen => true,
            Rules::Fetlar | Rules::Tablut => false,
        }
    }

    /// Whether the attackers win by encircling every defender (rule 8).
    #[must_use]
    pub const fn has_encirclement(self) -> bool {
        match self {
            Rules::Copenhagen => true,
            Rules::Fetlar | Rules::Tablut => false,
        }
    }

    /// Whether a side that cannot move but still has pieces draws (Fetlar,
    /// Tablut) instead of losing (Copenhagen, rule 10).
    #[must_use]
    pub const fn stuck_side_draws(self) -> bool {
        match self {
            Rules::Copenhagen => false,
            Rules::Fetlar | Rules::Tablut => true,
        }
    }
}

impl Rules {
    /// Every ruleset, in the order of [`Rules::code`].
    pub const ALL: [Rules; 3] = [Rules::Copenhagen, Rules::Fetlar, Rules::Tablut];

    /// A small number for binary formats (data and network files): its index in [`Rules::ALL`].
    #[must_use]
    pub const fn code(self) -> u8 {
        match self {
            Rules::Copenhagen => 0,
            Rules::Fetlar => 1,
            Rules::Tablut => 2,
        }
    }

    /// The ruleset whose [`Rules::code`] is `code`.
    #[must_use]
    pub fn from_code(code: u8) -> Option<Rules> {
        Rules::ALL.get(usize::from(code)).copied()
    }
}

impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Rules::Copenhagen => "copenhagen",
            Rules::Fetlar => "fetlar",
            Rules::Tablut => "tablut",
        })
    }
}

/// A name that is not one of the rulesets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseRulesError(String);

impl fmt::Display for ParseRulesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} is not a ruleset: expected copenhagen, fetlar or tablut",
            self.0
        )
    }
}

impl std::error::Error for ParseRulesError {}

impl FromStr for Rules {
    type Err = ParseRulesError;

    fn from_str(name: &str) -> Result<Rules, ParseRulesError> {
        match name.to_ascii_lowercase().as_str() {
            "copenhagen" => Ok(Rules::Copenhagen),
            "fetlar" => Ok(Rules::Fetlar),
            "tablut" => Ok(Rules::Tablut),
            _ => Err(ParseRulesError(name.chars().take(40).collect())),
        }
    }
}

impl BoardSize {
    #[inline(always)]
    pub(crate) fn geometry(self) -> &'static Geometry {
        &GEOMETRIES[self as usize]
    }
}

/// A ruleset on a board: any ruleset may be played on any board.
///
/// ```
/// use tafl::rules::{BoardSize, Rules, Variant};
/// let variant = Variant::standard(Rules::Tablut);
/// assert_eq!(variant.size, BoardSize::Nine);
/// assert_eq!(Variant::new(Rules::Tablut, BoardSize::Thirteen).to_string(), "tablut 13×13");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Variant {
    /// How moves are judged.
    pub rules: Rules,
    /// The board and its standard layout.
    pub size: BoardSize,
}

impl Variant {
    /// `rules` on a board of `size`.
    #[must_use]
    pub const fn new(rules: Rules, size: BoardSize) -> Variant {
        Variant { rules, size }
    }

    /// `rules` on its usual board.
    #[must_use]
    pub const fn standard(rules: Rules) -> Variant {
        Variant::new(rules, rules.default_size())
    }
}

impl Default for Variant {
    fn default() -> Variant {
        Variant::standard(Rules::Copenhagen)
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.rules, self.size)
    }
}

/// The fixed squares of one board size, computed once.
pub(crate) struct Geometry {
    pub size: u8,
    /// Every square of the board.
    pub board: Bitboard,
    /// The outer ring, corners included.
    pub edge: Bitboard,
    pub corners: Bitboard,
    pub throne: Square,
    /// The squares a soldier may stop on: all but the corners and the throne.
    pub soldier_stops: Bitboard,
    /// Corners and throne, where only the king may stop, as bits of each
    /// rank (by file) — the same table serves files by symmetry.
    pub restricted_in_line: [u32; 16],
    /// The throne as a bit of its own rank (and file); zero elsewhere.
    pub throne_in_line: [u32; 16],
    /// The standard start in position text.
    pub start_text: &'static str,
    /// `start_text` read once, as every new game starts from it.
    start_layout: OnceLock<PositionText>,
}

/// The square at (`file`, `rank`), in const context.
const fn square(file: u8, rank: u8) -> Square {
    match Square::new(file, rank) {
        Some(square) => square,
        None => panic!("square off the 13×13 board"),
    }
}

impl Geometry {
    const fn new(size: u8, start_text: &'static str) -> Geometry {
        let last = size - 1;
        let centre = size / 2;
        let mut board = Bitboard::EMPTY;
        let mut edge = Bitboard::EMPTY;
        let mut rank = 0;
        while rank < size {
            let mut file = 0;
            while file < size {
                board = board.with(square(file, rank));
                if file == 0 || rank == 0 || file == last || rank == last {
                    edge = edge.with(square(file, rank));
                }
                file += 1;
            }
            rank += 1;
        }
        let corners = Bitboard::from_square(square(0, 0))
            .with(square(last, 0))
            .with(square(0, last))
            .with(square(last, last));
        let mut restricted_in_line = [0; 16];
        let mut throne_in_line = [0; 16];
        restricted_in_line[0] = 1 | 1 << last;
        restricted_in_line[last as usize] = 1 | 1 << last;
        restricted_in_line[centre as usize] |= 1 << centre;
        throne_in_line[centre as usize] = 1 << centre;
        Geometry {
            size,
            board,
            edge,
            corners,
            throne: square(centre, centre),
            soldier_stops: board.minus(corners).without(square(centre, centre)),
            restricted_in_line,
            throne_in_line,
            start_text,
            start_layout: OnceLock::new(),
        }
    }

    /// The standard start's pieces, read from `start_text` the first time.
    pub fn start_layout(&self) -> &PositionText {
        self.start_layout
            .get_or_init(|| self.start_text.parse().expect("the standard layouts parse"))
    }
}

static GEOMETRIES: [Geometry; 3] = [
    Geometry::new(9, "/3ttt3/4t4/4T4/t3T3t/ttTTKTTtt/t3T3t/4T4/4t4/3ttt3/ a"),
    Geometry::new(
        11,
        "/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/ a",
    ),
    Geometry::new(
        13,
        "/3ttttttt3/6t6/13/t5T5t/t5T5t/t4TTT4t/tt1TTTKTTT1tt/t4TTT4t/t5T5t/t5T5t/13/6t6/3ttttttt3/ a",
    ),
];
