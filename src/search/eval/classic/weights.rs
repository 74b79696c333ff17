//! The evaluation's weights: one number per [`Term`], as a table that prints,
//! reads back and can be tuned.
//!
//! ```
//! use tafl::search::{Term, Weights};
//!
//! let mut weights: Weights = "king_mobility 12\n# the rest as built in\n".parse()?;
//! assert_eq!(weights[Term::KingMobility], 12);
//! assert_eq!(weights[Term::Attacker], Weights::default()[Term::Attacker]);
//! weights[Term::Tempo] = 0;
//! assert!(weights.to_string().contains("tempo 0\n"));
//! # Ok::<(), tafl::search::WeightsError>(())
//! ```

use std::fmt;
use std::ops::{Index, IndexMut};
use std::str::FromStr;

use strum::{EnumCount, IntoEnumIterator};

use super::term::Term;

/// What one of each term is worth to the side it favours, in hundredths of an attacker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Weights([i32; Term::COUNT]);

impl Weights {
    /// Weights from a table naming every term exactly once (checked when the table is built: a
    /// missing or repeated term does not compile in a `const`).
    pub const fn from_table(table: [(Term, i32); Term::COUNT]) -> Weights {
        let mut values = [0; Term::COUNT];
        let mut seen = [false; Term::COUNT];
        let mut index = 0;
        while index < Term::COUNT {
            let (term, value) = table[index];
            assert!(!seen[term as usize], "a term is listed twice");
            seen[term as usize] = true;
            values[term as usize] = value;
            index += 1;
        }
        Weights(values)
    }
}

impl Index<Term> for Weights {
    type Output = i32;
    #[inline]
    fn index(&self, term: Term) -> &i32 {
        &self.0[term as usize]
    }
}

impl IndexMut<Term> for Weights {
    fn index_mut(&mut self, term: Term) -> &mut i32 {
        &mut self.0[term as usize]
    }
}

/// One `name value` line per term, in the terms' order.
impl fmt::Display for Weights {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for term in Term::iter() {
            writeln!(f, "{} {}", <&str>::from(term), self[term])?;
        }
        Ok(())
    }
}

/// Why a weights text cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WeightsError {
    #[error("line {line}: expected `term value`, got {text:?}")]
    BadLine { line: usize, text: String },
    #[error("line {line}: no term is called {name:?}")]
    UnknownTerm { line: usize, name: String },
    #[error("line {line}: {term} is given twice")]
    Repeated { line: usize, term: &'static str },
}

/// `name value` lines (as printed); `#` starts a comment. Terms not named keep their built-in
/// weight.
impl FromStr for Weights {
    type Err = WeightsError;

    fn from_str(text: &str) -> Result<Weights, WeightsError> {
        let mut weights = Weights::default();
        let mut given = [false; Term::COUNT];
        for (index, raw) in text.lines().enumerate() {
            let line = index + 1;
            let content = raw.split('#').next().unwrap_or_default().trim();
            if content.is_empty() {
                continue;
            }
            let bad = || WeightsError::BadLine {
                line,
                text: raw.to_string(),
            };
            let mut words = content.split_whitespace();
            let (Some(name), Some(value), None) = (words.next(), words.next(), words.next()) else {
                return Err(bad());
            };
            let term: Term = name.parse().map_err(|_| WeightsError::UnknownTerm {
                line,
                name: name.to_string(),
            })?;
            let value: i32 = value.parse().map_err(|_| bad())?;
            if std::mem::replace(&mut given[term as usize], true) {
                return Err(WeightsError::Repeated {
                    line,
                    term: term.into(),
                });
            }
            weights[term] = value;
        }
        Ok(weights)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printed_weights_read_back() {
        let text = Weights::default().to_string();
        assert_eq!(text.lines().count(), Term::COUNT);
        assert_eq!(text.parse::<Weights>(), Ok(Weights::default()));
    }

    #[test]
    fn bad_texts_are_refused_with_the_line() {
        assert!(matches!(
            "tempo 1\nqueen 9".parse::<Weights>(),
            Err(WeightsError::UnknownTerm { line: 2, .. })
        ));
        assert!(matches!(
            "tempo".parse::<Weights>(),
            Err(WeightsError::BadLine { line: 1, .. })
        ));
        assert!(matches!(
            "tempo x".parse::<Weights>(),
            Err(WeightsError::BadLine { line: 1, .. })
        ));
        assert!(matches!(
            "tempo 1 2".parse::<Weights>(),
            Err(WeightsError::BadLine { line: 1, .. })
        ));
        assert!(matches!(
            "tempo 1\ntempo 2".parse::<Weights>(),
            Err(WeightsError::Repeated { line: 2, .. })
        ));
    }
}
