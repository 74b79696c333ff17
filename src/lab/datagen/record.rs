//! The data file's format: one record per kept position.
//!
//! [`MAGIC`] (8 bytes, the last one the version), then records of
//! [`RECORD_BYTES`] bytes, integers little-endian:
//!
//! | bytes | field |
//! |---|---|
//! | 0..4 | game number, `u32` |
//! | 4 | rules: 0 Copenhagen, 1 Fetlar, 2 Tablut |
//! | 5 | board size: 9, 11 or 13 |
//! | 6 | flags: bit 0 the defenders are to move, bit 1 the game's last record |
//! | 7 | the game's result for the attackers, `i8`: 1 won, 0 drawn or unfinished, -1 lost |
//! | 8..10 | the search's score, side to move's view, hundredths of an attacker, `i16` (clamped) |
//! | 10..12 | ply of the game, `u16` |
//! | 12..55 | the board: 2 bits a square (0 empty, 1 attacker, 2 defender, 3 king), square `rank × size + file`, four squares a byte from the low bits |
//! | 55 | zero |

use crate::rules::{BoardSize, Piece, Position, PositionText, Rules, Side, Square, Variant};

/// The file's first bytes: a name and the format's version.
pub const MAGIC: [u8; 8] = *b"TAFLPOS\x01";
/// One kept position.
pub const RECORD_BYTES: usize = 56;
const BOARD_OFFSET: usize = 12;
const FLAG_DEFENDERS_TO_MOVE: u8 = 1;
const FLAG_LAST_OF_GAME: u8 = 2;
/// Scores are clamped to this so that they fit an `i16`.
const SCORE_LIMIT: i32 = 32_000;

/// One position of the data, decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub game: u32,
    pub variant: Variant,
    pub side_to_move: Side,
    pub last_of_game: bool,
    /// The game's result for the attackers: 1, 0 or -1.
    pub result: i8,
    /// Side to move's view.
    pub score: i16,
    pub ply: u16,
    /// Each piece with its square index `rank × size + file`.
    pub pieces: Vec<(Piece, u16)>,
}

/// Why data cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DataError {
    #[error("not a tafl data file (bad magic bytes)")]
    BadMagic,
    #[error("record {0}: unknown rules or board size")]
    BadVariant(usize),
}

impl Record {
    /// Encodes a position of `game` (result and last-record flag filled in by [`Record::seal`]).
    pub(super) fn encode(
        game: u32,
        position: &Position,
        score: i32,
        ply: usize,
    ) -> [u8; RECORD_BYTES] {
        let variant = position.variant();
        let size = variant.size.get() as usize;
        let mut bytes = [0u8; RECORD_BYTES];
        bytes[0..4].copy_from_slice(&game.to_le_bytes());
        bytes[4] = variant.rules.code();
        bytes[5] = variant.size.get();
        if position.side_to_move() == Side::Defenders {
            bytes[6] |= FLAG_DEFENDERS_TO_MOVE;
        }
        let score = score.clamp(-SCORE_LIMIT, SCORE_LIMIT) as i16;
        bytes[8..10].copy_from_slice(&score.to_le_bytes());
        bytes[10..12].copy_from_slice(&(ply.min(u16::MAX as usize) as u16).to_le_bytes());
        for (piece, square) in position.piece_squares() {
            let index = square.dense_index(size);
            bytes[BOARD_OFFSET + index / 4] |= (piece.index() as u8 + 1) << (2 * (index % 4));
        }
        bytes
    }

    /// Decodes one record; `number` names it in the error.
    ///
    /// # Errors
    /// [`DataError::BadVariant`] for a rules code or size that is not one of ours.
    pub fn decode(bytes: &[u8; RECORD_BYTES], number: usize) -> Result<Record, DataError> {
        let rules = Rules::from_code(bytes[4]).ok_or(DataError::BadVariant(number))?;
        let size = BoardSize::new(u32::from(bytes[5])).ok_or(DataError::BadVariant(number))?;
        let squares = size.get() as usize * size.get() as usize;
        let pieces = (0..squares)
            .filter_map(|index| {
                let code = (bytes[BOARD_OFFSET + index / 4] >> (2 * (index % 4))) & 3;
                let piece = Piece::ALL.get(code.checked_sub(1)? as usize)?;
                Some((*piece, index as u16))
            })
            .collect();
        Ok(Record {
            game: u32::from_le_bytes(bytes[0..4].try_into().expect("4 bytes")),
            variant: Variant::new(rules, size),
            side_to_move: if bytes[6] & FLAG_DEFENDERS_TO_MOVE != 0 {
                Side::Defenders
            } else {
                Side::Attackers
            },
            last_of_game: bytes[6] & FLAG_LAST_OF_GAME != 0,
            result: bytes[7] as i8,
            score: i16::from_le_bytes([bytes[8], bytes[9]]),
            ply: u16::from_le_bytes([bytes[10], bytes[11]]),
            pieces,
        })
    }

    /// The position the record holds, as the rules set it up; `None` when they would refuse it
    /// (no king: a record never holds a finished game).
    pub fn position(&self) -> Option<Position> {
        let size = self.variant.size;
        let mut setup = PositionText::empty(size, self.side_to_move);
        let width = size.get();
        for &(piece, index) in &self.pieces {
            let (file, rank) = (index % u16::from(width), index / u16::from(width));
            let square = Square::new(file as u8, rank as u8)?;
            let set = match piece {
                Piece::Attacker => &mut setup.attackers,
                Piece::Defender => &mut setup.defenders,
                Piece::King => &mut setup.kings,
            };
            *set = set.with(square);
        }
        Position::from_setup(&setup, self.variant).ok()
    }

    /// Writes the game's result for the attackers into an encoded record, and whether it is the
    /// game's last.
    pub(super) fn seal(bytes: &mut [u8; RECORD_BYTES], result: i8, last_of_game: bool) {
        bytes[7] = result as u8;
        if last_of_game {
            bytes[6] |= FLAG_LAST_OF_GAME;
        }
    }
}

/// The whole games of a data file's bytes: how many leading bytes hold them (magic included), and the
/// number of the next game to play. An empty file holds none.
///
/// # Errors
/// [`DataError::BadMagic`] when the bytes do not start as a data file.
pub fn whole_games(bytes: &[u8]) -> Result<(usize, u32), DataError> {
    if bytes.is_empty() {
        return Ok((0, 0));
    }
    if bytes.len() < MAGIC.len() || bytes[..MAGIC.len()] != MAGIC {
        return Err(DataError::BadMagic);
    }
    let records = &bytes[MAGIC.len()..];
    let whole = records.len() / RECORD_BYTES;
    for index in (0..whole).rev() {
        let record = &records[index * RECORD_BYTES..(index + 1) * RECORD_BYTES];
        if record[6] & FLAG_LAST_OF_GAME != 0 {
            let game = u32::from_le_bytes(record[0..4].try_into().expect("4 bytes"));
            return Ok((MAGIC.len() + (index + 1) * RECORD_BYTES, game + 1));
        }
    }
    Ok((MAGIC.len(), 0))
}

/// Every record of the whole games in `bytes` (a data file's contents).
///
/// # Errors
/// [`DataError`] when the bytes are not a data file or a record names no variant of ours.
pub fn read_records(bytes: &[u8]) -> Result<Vec<Record>, DataError> {
    let (end, _) = whole_games(bytes)?;
    let body = &bytes[MAGIC.len().min(end)..end];
    body.chunks_exact(RECORD_BYTES)
        .enumerate()
        .map(|(number, chunk)| Record::decode(chunk.try_into().expect("a whole record"), number))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Game;

    #[test]
    fn records_decode_to_the_positions_played() {
        let variant = Variant::standard(Rules::Copenhagen);
        let mut game = Game::new(variant);
        game.play("d1-d3").expect("legal");
        let position = *game.position();
        let bytes = Record::encode(3, &position, -45_000, 1);
        let record = Record::decode(&bytes, 0).expect("our own record");
        assert!(
            record
                .position()
                .expect("a position")
                .same_placement(&position)
        );
        assert_eq!(record.game, 3);
        assert_eq!(record.variant, variant);
        assert_eq!(record.side_to_move, Side::Defenders);
        assert_eq!(record.score, -SCORE_LIMIT as i16);
        let mut expected: Vec<(Piece, u16)> = position
            .piece_squares()
            .map(|(piece, square)| (piece, square.dense_index(11) as u16))
            .collect();
        let mut got = record.pieces.clone();
        expected.sort_by_key(|&(piece, square)| (square, piece.index()));
        got.sort_by_key(|&(piece, square)| (square, piece.index()));
        assert_eq!(got, expected);
    }

    #[test]
    fn foreign_bytes_are_refused() {
        assert_eq!(whole_games(b"NOTDATA!xx"), Err(DataError::BadMagic));
        let mut bytes = MAGIC.to_vec();
        let mut record = [0u8; RECORD_BYTES];
        record[5] = 12;
        record[6] = FLAG_LAST_OF_GAME;
        bytes.extend_from_slice(&record);
        assert_eq!(read_records(&bytes), Err(DataError::BadVariant(0)));
    }
}
