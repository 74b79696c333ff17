//! The two sides of a tafl game.

use std::fmt;

/// One of the two sides. The attackers always move first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// The besiegers (`t` in position text), who win by capturing the king.
    Attackers,
    /// The king's side (`T` and `K`), who win by bringing the king out.
    Defenders,
}

impl Side {
    /// The other side.
    #[must_use]
    pub const fn opponent(self) -> Side {
        match self {
            Side::Attackers => Side::Defenders,
            Side::Defenders => Side::Attackers,
        }
    }

    /// The letter that names the side to move in position text: `a` or `d`.
    #[must_use]
    pub const fn letter(self) -> char {
        match self {
            Side::Attackers => 'a',
            Side::Defenders => 'd',
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::Attackers => "attackers",
            Side::Defenders => "defenders",
        })
    }
}
