//! Game records: one game a line, `moves,_,_,result`: the format of the real
//! games in `tests/data/copenhagen-games.csv` and of `tafl match --record`.
//!
//! The moves are move texts separated by spaces (a player who ran out of time
//! is marked by the word `timeout`, which is not a move); the two middle
//! columns are not read; the result is `Black` (the attackers won), `White`
//! (the defenders won), `Draw` or `Ongoing`.

use std::fmt;
use std::str::FromStr;

use crate::rules::{Side, Status};

/// A recorded game's result, as the record states it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordedResult {
    Won(Side),
    Draw,
    Ongoing,
}

impl RecordedResult {
    /// What `status` is recorded as.
    pub fn of(status: Status) -> RecordedResult {
        match status {
            Status::Won { winner, .. } => RecordedResult::Won(winner),
            Status::Drawn { .. } => RecordedResult::Draw,
            Status::Ongoing => RecordedResult::Ongoing,
        }
    }

    /// The record's word for it.
    pub const fn word(self) -> &'static str {
        match self {
            RecordedResult::Won(Side::Attackers) => "Black",
            RecordedResult::Won(Side::Defenders) => "White",
            RecordedResult::Draw => "Draw",
            RecordedResult::Ongoing => "Ongoing",
        }
    }

    /// The attackers' score: 1 won, ½ drawn, 0 lost; none while the game goes on.
    pub fn attackers_score(self) -> Option<f64> {
        match self {
            RecordedResult::Won(Side::Attackers) => Some(1.0),
            RecordedResult::Won(Side::Defenders) => Some(0.0),
            RecordedResult::Draw => Some(0.5),
            RecordedResult::Ongoing => None,
        }
    }
}

/// The real games of `tests/data/copenhagen-games.csv` (1,752 Copenhagen 11×11 games, CC0),
/// built in (614 KB), so that the tools that start from them work wherever the binary runs.
const REAL_GAMES: &str = include_str!("../../tests/data/copenhagen-games.csv");

/// The built-in real games, in file order.
///
/// # Panics
/// Never: they are records (a test reads them all).
#[must_use]
pub fn real_games() -> Vec<GameRecord> {
    GameRecord::parse_all(REAL_GAMES).expect("the built-in real games are records")
}

/// One line of a record file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    /// The move texts, unchecked (a record may hold a move the rules refuse).
    pub moves: Vec<String>,
    /// The game ended on a player's clock (the record's `timeout`).
    pub timed_out: bool,
    pub result: RecordedResult,
}

/// Why a record line cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RecordError {
    #[error("line {line}: expected 4 comma-separated columns")]
    Columns { line: usize },
    #[error("line {line}: the result {found:?} is not Black, White, Draw or Ongoing")]
    Result { line: usize, found: String },
}

impl GameRecord {
    /// Every record of a file's text, one a line.
    ///
    /// ```
    /// use tafl::lab::{GameRecord, RecordedResult};
    /// use tafl::rules::Side;
    ///
    /// let records = GameRecord::parse_all("d1-d3 e5-e2 timeout,1,0,Black\n").unwrap();
    /// assert_eq!(records[0].moves, ["d1-d3", "e5-e2"]);
    /// assert!(records[0].timed_out);
    /// assert_eq!(records[0].result, RecordedResult::Won(Side::Attackers));
    /// assert!(GameRecord::parse_all("d1-d3,Black").is_err());
    /// ```
    ///
    /// # Errors
    /// [`RecordError`] naming the first line that is not a record.
    pub fn parse_all(text: &str) -> Result<Vec<GameRecord>, RecordError> {
        text.lines()
            .enumerate()
            .map(|(index, line)| Self::parse_line(line, index + 1))
            .collect()
    }

    fn parse_line(line: &str, number: usize) -> Result<GameRecord, RecordError> {
        let columns: Vec<&str> = line.split(',').collect();
        let [moves, _, _, result] = columns[..] else {
            return Err(RecordError::Columns { line: number });
        };
        let result = result.trim().parse().map_err(|()| RecordError::Result {
            line: number,
            found: result.trim().to_string(),
        })?;
        let timed_out = moves.split_whitespace().any(|token| token == "timeout");
        let moves = moves
            .split_whitespace()
            .filter(|&token| token != "timeout")
            .map(str::to_string)
            .collect();
        Ok(GameRecord {
            moves,
            timed_out,
            result,
        })
    }
}

impl FromStr for RecordedResult {
    type Err = ();

    fn from_str(word: &str) -> Result<Self, ()> {
        [
            RecordedResult::Won(Side::Attackers),
            RecordedResult::Won(Side::Defenders),
            RecordedResult::Draw,
            RecordedResult::Ongoing,
        ]
        .into_iter()
        .find(|result| result.word() == word)
        .ok_or(())
    }
}

/// The record's line, newline included.
impl fmt::Display for GameRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let timeout = if self.timed_out { " timeout" } else { "" };
        writeln!(
            f,
            "{}{timeout},,,{}",
            self.moves.join(" "),
            self.result.word()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_real_game_is_a_record_and_reads_back_as_written() {
        let records = real_games();
        assert_eq!(records.len(), REAL_GAMES.lines().count());
        let decided = records
            .iter()
            .filter(|record| record.result.attackers_score().is_some())
            .count();
        assert!(decided > 1_700, "{decided} decided games");
        for record in records.iter().take(50) {
            let again = GameRecord::parse_all(&record.to_string()).expect("our own line");
            assert_eq!(again, std::slice::from_ref(record));
        }
    }

    #[test]
    fn a_bad_line_is_named() {
        assert_eq!(
            GameRecord::parse_all("a,b,c,Ongoing\nd1-d3,0,0,Maybe"),
            Err(RecordError::Result {
                line: 2,
                found: "Maybe".into()
            })
        );
        assert_eq!(
            GameRecord::parse_all("d1-d3"),
            Err(RecordError::Columns { line: 1 })
        );
    }
}
