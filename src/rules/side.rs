//! The two sides of a tafl game, and a table with one slot for each.

use std::fmt;
use std::ops::{Index, IndexMut};

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

/// One `T` for each side, indexed by [`Side`] (as shakmaty's `ByColor`): the
/// table a side picks its slot of, so that no side is ever an array index.
///
/// ```
/// use tafl::rules::{BySide, Side};
/// let mut captured = BySide { attackers: 0, defenders: 0 };
/// captured[Side::Defenders] += 2;
/// assert_eq!(captured[Side::Defenders], 2);
/// assert_eq!(captured.iter().sum::<u32>(), 2);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct BySide<T> {
    pub attackers: T,
    pub defenders: T,
}

impl<T> BySide<T> {
    /// Each side's value, from the side.
    pub fn from_fn(mut value: impl FnMut(Side) -> T) -> BySide<T> {
        BySide {
            attackers: value(Side::Attackers),
            defenders: value(Side::Defenders),
        }
    }

    /// Each value changed by `change`.
    pub fn map<U>(self, mut change: impl FnMut(T) -> U) -> BySide<U> {
        BySide {
            attackers: change(self.attackers),
            defenders: change(self.defenders),
        }
    }

    /// The attackers' value, then the defenders'.
    pub fn iter(&self) -> impl Iterator<Item = &T> {
        [&self.attackers, &self.defenders].into_iter()
    }

    /// The attackers' value, then the defenders'.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut T> {
        [&mut self.attackers, &mut self.defenders].into_iter()
    }
}

impl<T> Index<Side> for BySide<T> {
    type Output = T;

    #[inline]
    fn index(&self, side: Side) -> &T {
        match side {
            Side::Attackers => &self.attackers,
            Side::Defenders => &self.defenders,
        }
    }
}

impl<T> IndexMut<Side> for BySide<T> {
    #[inline]
    fn index_mut(&mut self, side: Side) -> &mut T {
        match side {
            Side::Attackers => &mut self.attackers,
            Side::Defenders => &mut self.defenders,
        }
    }
}
