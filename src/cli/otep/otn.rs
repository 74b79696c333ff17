//! OpenTafl Notation (OTN), as far as `tafl otep` needs it: rules records
//! (`dim:11 sw:s … start:/…/`), position records and move records.
//!
//! A rules record is OpenTafl's description of a game: the board size, a
//! list of options with defaults, and the start. It is read into one of our
//! rulesets only when every option that changes how moves are judged says
//! what that ruleset does, or is one of the few values whose difference is
//! only how a game ends ([`HostRules`]: the third repetition, OpenTafl's
//! encirclement), which the engine then judges as OpenTafl does; anything
//! else is refused with the option that differs.
//!
//! Position records list the ranks from rank 1 up (`starti:` from the top
//! down, like our own position text), with OpenTafl's letters: `t`
//! attacker, `T` defender, `K` king.

use std::collections::BTreeMap;
use std::fmt;

use tafl::rules::{
    BoardSize, EndReason, MoveText, ParseMoveError, PlayedMove, Position, PositionError,
    PositionText, Rules, Side, Status, Variant,
};

/// Every ruleset on every board: the games a record may describe.
pub fn variants() -> impl Iterator<Item = Variant> {
    Rules::ALL
        .into_iter()
        .flat_map(|rules| BoardSize::ALL.map(|size| Variant::new(rules, size)))
}

/// Why a rules record is not a game we play.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RulesError {
    /// No `dim:` entry, or not first.
    MissingSize,
    /// A board size other than 9, 11 or 13.
    Size(String),
    /// No `start:` or `starti:` entry, or not last.
    MissingStart,
    /// An entry that is not `key:value`, or a key OTN does not define.
    Entry(String),
    /// The start position cannot be read.
    Start(String),
    /// The start is no position our rules accept.
    Setup(PositionError),
    /// Options no ruleset of ours has: the nearest ruleset and each
    /// difference, as `key:given (key:wanted)`.
    Unsupported {
        nearest: Rules,
        differences: Vec<String>,
    },
}

impl fmt::Display for RulesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RulesError::MissingSize => f.write_str("the rules record must begin with dim:"),
            RulesError::Size(size) => {
                write!(f, "dim:{size}: tafl plays 9x9, 11x11 and 13x13 boards")
            }
            RulesError::MissingStart => {
                f.write_str("the rules record must end with start: or starti:")
            }
            RulesError::Entry(entry) => write!(f, "{entry:?} is not an OTN rules entry"),
            RulesError::Start(why) => write!(f, "the start: {why}"),
            RulesError::Setup(error) => write!(f, "the start: {error}"),
            RulesError::Unsupported {
                nearest,
                differences,
            } => write!(
                f,
                "rules not supported: the nearest tafl plays is {nearest}, which differs in {}",
                differences.join(", ")
            ),
        }
    }
}

impl std::error::Error for RulesError {}

/// A rules record read into one of our variants and its start.
#[derive(Clone, Copy, Debug)]
pub struct GameRules {
    pub variant: Variant,
    pub start: Position,
    /// How the record's game ends where the variant's rules do not say so.
    pub host: HostRules,
}

/// What OpenTafl does when a move makes a position stand the third time
/// (OTN `tfr`), as its `GameState.checkVictoryInternal` judges it: after
/// the move, `w` gives the game to the side to move, `l` to the side that
/// moved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Repetition {
    /// `tfr:i`.
    Ignored,
    /// `tfr:d`, OTN's default.
    Draw,
    /// `tfr:w`: the side that makes the third repetition loses.
    RepeaterLoses,
    /// `tfr:l`: the side that makes the third repetition wins.
    RepeaterWins,
}

impl Repetition {
    fn from_otn(value: &str) -> Repetition {
        match value {
            "i" => Repetition::Ignored,
            "w" => Repetition::RepeaterLoses,
            "l" => Repetition::RepeaterWins,
            _ => Repetition::Draw,
        }
    }
}

/// The ends of a game that OpenTafl judges by the record where tafl's
/// ruleset says otherwise: its repetition rule, and the attackers' win by
/// encircling every defender (`surf:y`) in a ruleset without one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostRules {
    pub repetition: Repetition,
    pub encirclement: bool,
}

impl HostRules {
    /// The game as OpenTafl judges it after `played` reached `after`, where
    /// tafl's rules judged it `played.status`.
    #[must_use]
    pub fn judge(&self, after: &Position, played: &PlayedMove) -> Status {
        let mover = after.side_to_move().opponent();
        let repetition_ends = matches!(played.status.reason(), None | Some(EndReason::Repetition));
        if played.repetitions >= 3 && repetition_ends {
            let reason = EndReason::Repetition;
            return match self.repetition {
                Repetition::Ignored => played.status,
                Repetition::Draw => Status::Drawn { reason },
                Repetition::RepeaterLoses => Status::Won {
                    winner: mover.opponent(),
                    reason,
                },
                Repetition::RepeaterWins => Status::Won {
                    winner: mover,
                    reason,
                },
            };
        }
        if self.encirclement
            && played.status == Status::Ongoing
            && mover == Side::Attackers
            && after.defenders_encircled()
        {
            return Status::Won {
                winner: Side::Attackers,
                reason: EndReason::Encircled,
            };
        }
        played.status
    }
}

impl GameRules {
    /// Reads an OTN rules record.
    ///
    /// # Errors
    /// [`RulesError`] when the record is malformed, or describes a game
    /// other than Copenhagen, Fetlar or Tablut on a 9, 11 or 13 board.
    pub fn parse(record: &str) -> Result<GameRules, RulesError> {
        let entries: Vec<&str> = record.split_whitespace().collect();
        let size_text = entries
            .first()
            .and_then(|entry| entry.strip_prefix("dim:"))
            .ok_or(RulesError::MissingSize)?;
        let size = size_text
            .parse()
            .ok()
            .and_then(BoardSize::new)
            .ok_or_else(|| RulesError::Size(size_text.to_owned()))?;
        let last = entries.last().copied().unwrap_or_default();
        let (ranks, from_top) = if let Some(ranks) = last.strip_prefix("starti:") {
            (ranks, true)
        } else if let Some(ranks) = last.strip_prefix("start:") {
            (ranks, false)
        } else {
            return Err(RulesError::MissingStart);
        };

        let mut options = Options::defaults(size);
        for entry in &entries[1..entries.len() - 1] {
            let (key, value) = entry
                .split_once(':')
                .ok_or_else(|| RulesError::Entry((*entry).to_owned()))?;
            options.set(size, key, value)?;
        }
        let first_side = if options.get("atkf") == "n" {
            Side::Defenders
        } else {
            Side::Attackers
        };
        let setup = position_text(ranks, from_top, first_side).map_err(RulesError::Start)?;
        if setup.size() != size {
            return Err(RulesError::Start(format!(
                "{} ranks on a dim:{} board",
                setup.size().get(),
                size.get()
            )));
        }

        let differences = |rules| options.differences(rules, size);
        let rules = match Rules::ALL
            .iter()
            .find(|&&rules| differences(rules).is_empty())
        {
            Some(&rules) => rules,
            None => {
                let nearest = Rules::ALL
                    .into_iter()
                    .min_by_key(|&rules| differences(rules).len())
                    .unwrap_or(Rules::Copenhagen);
                return Err(RulesError::Unsupported {
                    nearest,
                    differences: differences(nearest),
                });
            }
        };
        let variant = Variant::new(rules, size);
        let start = Position::from_setup(&setup, variant).map_err(RulesError::Setup)?;
        let host = HostRules {
            repetition: Repetition::from_otn(options.get("tfr")),
            encirclement: options.get("surf") == "y" && !rules.has_encirclement(),
        };
        Ok(GameRules {
            variant,
            start,
            host,
        })
    }
}

/// The rules record that describes `variant` from `start` to OpenTafl: only
/// the options that differ from OTN's defaults, as OpenTafl writes them.
#[must_use]
pub fn rules_record(variant: Variant, start: &Position) -> String {
    let defaults = Options::defaults(variant.size);
    let ours = Options::of(variant);
    let mut record = format!("dim:{} name:{}", variant.size.get(), variant.rules);
    if start.side_to_move() == Side::Defenders {
        record.push_str(" atkf:n");
    }
    for (key, _) in COMPARED {
        if ours.get(key) != defaults.get(key) {
            record.push_str(&format!(" {key}:{}", ours.get(key)));
        }
    }
    record.push_str(" start:");
    record.push_str(&position_record(start));
    record
}

/// The board as an OTN position record: ranks from rank 1 up.
#[must_use]
pub fn position_record(position: &Position) -> String {
    let text = position.to_string();
    let board = text.split_whitespace().next().unwrap_or_default();
    let ranks: Vec<&str> = board.trim_matches('/').split('/').rev().collect();
    format!("/{}/", ranks.join("/"))
}

/// Whether an OTN position record shows the same board as `position`,
/// read from rank 1 up as the notation spec says, or from the top down as
/// `starti:` has it (OTN has used both). Taking either misses a difference
/// only when OpenTafl's board is the exact mirror image of tafl's.
///
/// # Errors
/// Why the record cannot be read.
pub fn same_board(record: &str, position: &Position) -> Result<bool, String> {
    let ours = PositionText::from(position);
    let side = position.side_to_move();
    Ok(position_text(record, false, side)? == ours || position_text(record, true, side)? == ours)
}

/// Reads an OTN move record (simple `e1-e4` or full, with a capture list,
/// piece letters and the `+`/`-` marks) as our move text. Only the king
/// has a letter among the pieces we play, and he is never in a capture list
/// of ours: a captured king is the game's end, not a capture.
///
/// # Errors
/// Why the record is no move of a game we play.
pub fn move_text(record: &str) -> Result<MoveText, String> {
    let record = record.strip_prefix('K').unwrap_or(record);
    if record.contains(['^', '=']) {
        return Err(format!(
            "{record:?} is a jump or berserk move, which tafl does not play"
        ));
    }
    let (moved, captures) = match record.split_once('x') {
        Some((moved, captures)) => (moved, Some(captures)),
        None => (record, None),
    };
    let text = match captures {
        None => moved.to_owned(),
        Some(captures) => {
            let (list, marks) = split_marks(captures);
            let squares: Vec<&str> = list
                .split('/')
                .filter(|square| !square.starts_with('K'))
                .collect();
            if squares.is_empty() {
                format!("{moved}{marks}")
            } else {
                format!("{moved}x{}{marks}", squares.join("/"))
            }
        }
    };
    text.parse()
        .map_err(|error: ParseMoveError| format!("{record:?}: {error}"))
}

/// Splits the `+`, `++`, `-`, `--` marks off the end of a capture list.
fn split_marks(captures: &str) -> (&str, &str) {
    let list = captures.trim_end_matches(['+', '-']);
    (list, &captures[list.len()..])
}

/// Our position text from an OTN position record.
fn position_text(record: &str, from_top: bool, side: Side) -> Result<PositionText, String> {
    if let Some(piece) = record.chars().find(|c| "kncmgNCMG".contains(*c)) {
        return Err(format!(
            "the piece {piece:?} (a special piece of other tafl games): tafl plays \
             taflmen (t, T) and one king (K)"
        ));
    }
    let ranks: Vec<&str> = record.trim_matches('/').split('/').collect();
    let top_first: Vec<&str> = if from_top {
        ranks
    } else {
        ranks.into_iter().rev().collect()
    };
    let side = match side {
        Side::Attackers => 'a',
        Side::Defenders => 'd',
    };
    format!("/{}/ {side}", top_first.join("/"))
        .parse()
        .map_err(|error| format!("{record:?}: {error}"))
}

/// The OTN options that bear on how a game of ours is judged, normalized so
/// that equal rules compare equal. The others are accepted whatever they
/// say: `name`, `atkf` (the start's side to move), the jumps of pieces we
/// refuse anyway (`nj`, `cj`, `mj`, `gj`), passing or re-entering a corner
/// (nobody passes one; the game ends on one), and the fortresses'
/// properties (fortresses themselves are refused).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Options(BTreeMap<&'static str, String>);

/// Every entry OTN defines besides `dim`, `start` and `starti`, and its
/// default.
const OTN_DEFAULTS: [(&str, &str); 39] = [
    ("name", ""),
    ("esc", "c"),
    ("surf", "y"),
    ("atkf", "y"),
    ("tfr", "d"),
    ("ka", "y"),
    ("ks", "s"),
    ("kj", "n"),
    ("nj", "c"),
    ("cj", "j"),
    ("mj", "n"),
    ("gj", "n"),
    ("cor", "default"),
    ("cen", "default"),
    ("afor", ""),
    ("dfor", ""),
    ("corh", "tcnkmTCNKM"),
    ("cenh", "tcnkm"),
    ("cenhe", "tcnkmTCNKM"),
    ("aforh", "TCNKM"),
    ("dforh", "tcnkm"),
    ("corp", "K"),
    ("cenp", "tcnkmTCNKM"),
    ("aforp", "tcnkmTCNKM"),
    ("dforp", "TCNKM"),
    ("cors", "K"),
    ("cens", "K"),
    ("afors", "tcnkmTCNKM"),
    ("dfors", "TCNKM"),
    ("corre", "K"),
    ("cenre", "K"),
    ("aforre", "tcnkmTCNKM"),
    ("dforre", "TCNKM"),
    ("sw", "n"),
    ("swf", "y"),
    ("efe", "n"),
    ("linc", "n"),
    ("ber", "n"),
    ("spd", ""),
];

/// Values a ruleset of ours is played under besides its own, OpenTafl
/// judging the ends they change ([`HostRules`]): OpenTafl's own Fetlar
/// (encirclement wins), and tafl's Tablut record as OpenTafl sends it back
/// (its parser reads `tfr:i` as `d` and writes no `tfr` for a draw).
const ALSO_ACCEPTED: [(Rules, &str, &str); 2] =
    [(Rules::Fetlar, "surf", "y"), (Rules::Tablut, "tfr", "d")];

/// The entries that matter, with the pieces each piece list is compared on
/// (the ones whose presence in the list changes a game of ours), or `""`
/// for entries compared whole.
const COMPARED: [(&str, &str); 21] = [
    ("esc", ""),
    ("surf", ""),
    ("tfr", ""),
    ("ka", ""),
    ("ks", ""),
    ("kj", ""),
    ("cor", ""),
    ("cen", ""),
    ("afor", ""),
    ("dfor", ""),
    ("corh", "tTK"),
    ("cenh", "tT"), // the king is the only piece ever on the throne
    ("cenhe", "tTK"),
    ("cenp", "tTK"),
    ("cors", "tTK"),
    ("cens", "tTK"),
    ("cenre", "K"), // only the king may stand there at all
    ("sw", ""),
    ("efe", ""),
    ("linc", ""),
    ("ber", ""),
];

impl Options {
    /// OTN's defaults on a board of `size`.
    fn defaults(size: BoardSize) -> Options {
        let mut options = Options(BTreeMap::new());
        for (key, value) in OTN_DEFAULTS {
            options.insert(size, key, value);
        }
        options
    }

    /// What `variant`'s rules say in OTN terms (RULES.md). Copenhagen's
    /// repetition rule (the attackers win, whoever repeats) has no OTN
    /// value: `tfr:w`, OpenTafl's own Copenhagen setting, is played as
    /// OpenTafl judges it. Tablut's king, taken when every square beside
    /// him is hostile (three attackers on the edge), is OTN's middleweight
    /// king (`ks:m`).
    fn of(variant: Variant) -> Options {
        let mut options = Options::defaults(variant.size);
        let changes: &[(&str, &str)] = match variant.rules {
            Rules::Copenhagen => &[("tfr", "w"), ("sw", "s"), ("efe", "y")],
            Rules::Fetlar => &[("surf", "n")],
            Rules::Tablut => &[
                ("surf", "n"),
                ("tfr", "i"),
                ("ks", "m"),
                ("cenh", "tT"),
                ("cenp", "K"),
            ],
        };
        for &(key, value) in changes {
            options.insert(variant.size, key, value);
        }
        options
    }

    fn get(&self, key: &str) -> &str {
        self.0.get(key).map_or("", String::as_str)
    }

    /// Sets an entry read from a record.
    fn set(&mut self, size: BoardSize, key: &str, value: &str) -> Result<(), RulesError> {
        let (known, _) = OTN_DEFAULTS
            .iter()
            .find(|(known, _)| *known == key)
            .ok_or_else(|| RulesError::Entry(format!("{key}:{value}")))?;
        self.insert(size, known, value);
        Ok(())
    }

    fn insert(&mut self, size: BoardSize, key: &'static str, value: &str) {
        self.0.insert(key, normalize(size, key, value));
    }

    /// `key:given (key:wanted)` for every compared entry that differs from
    /// `rules` on a board of `size` (and is not [`ALSO_ACCEPTED`]);
    /// shieldwall flanking only counts where there are shieldwalls.
    fn differences(&self, rules: Rules, size: BoardSize) -> Vec<String> {
        let wanted = Options::of(Variant::new(rules, size));
        let flanking = (wanted.get("sw") != "n").then_some(("swf", ""));
        COMPARED
            .into_iter()
            .chain(flanking)
            .filter(|(key, _)| {
                let given = self.get(key);
                given != wanted.get(key) && !ALSO_ACCEPTED.contains(&(rules, *key, given))
            })
            .map(|(key, _)| format!("{key}:{} ({key}:{})", self.get(key), wanted.get(key)))
            .collect()
    }
}

/// A value in the form [`Options`] compares: square lists sorted (`default`
/// spelt out), piece lists cut to the pieces that matter for the key.
fn normalize(size: BoardSize, key: &str, value: &str) -> String {
    let n = size.get();
    let last_file = char::from(b'a' + n - 1);
    let squares = match (key, value) {
        ("cor", "default") => format!("a1,a{n},{last_file}1,{last_file}{n}"),
        ("cen", "default") => format!("{}{}", char::from(b'a' + n / 2), n / 2 + 1),
        ("cor" | "cen" | "afor" | "dfor", list) => list.to_owned(),
        _ => {
            return match COMPARED.iter().find(|(compared, _)| *compared == key) {
                Some((_, pieces)) if !pieces.is_empty() => pieces
                    .chars()
                    .filter(|&piece| value.contains(piece))
                    .collect(),
                _ => value.to_owned(),
            };
        }
    };
    let mut list: Vec<&str> = squares.split(',').filter(|s| !s.is_empty()).collect();
    list.sort_unstable();
    list.dedup();
    list.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIAMOND: &str = "/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/";

    #[test]
    fn every_variant_reads_back_from_its_record() {
        for variant in variants() {
            let start = Position::start(variant);
            let record = rules_record(variant, &start);
            let read = GameRules::parse(&record).unwrap_or_else(|e| panic!("{record}: {e}"));
            assert_eq!(read.variant, variant, "{record}");
            assert!(read.start.same_placement(&start), "{record}");
        }
    }

    #[test]
    fn the_records_in_the_guide_are_the_ones_tafl_writes() {
        let guide = include_str!("../../../docs/otep.md");
        for rules in Rules::ALL {
            let variant = Variant::standard(rules);
            let record = rules_record(variant, &Position::start(variant));
            assert!(guide.contains(&record), "docs/otep.md lacks {record}");
        }
    }

    #[test]
    fn opentafls_own_records_are_read_with_opentafls_endings() {
        let read = |record: String| {
            let rules = GameRules::parse(&record).unwrap_or_else(|e| panic!("{record}: {e}"));
            (rules.variant, rules.host)
        };
        let host = |repetition, encirclement| HostRules {
            repetition,
            encirclement,
        };
        // OpenTafl's Copenhagen: the side that makes the third repetition loses.
        assert_eq!(
            read(format!(
                "dim:11 name:Copenhagen atkf:y tfr:w sw:s efe:y start:{DIAMOND}"
            )),
            (
                Variant::standard(Rules::Copenhagen),
                host(Repetition::RepeaterLoses, false)
            )
        );
        // OpenTafl's Fetlar: surrounding is fatal by default.
        assert_eq!(
            read(format!(
                "dim:11 name:Fetlar atkf:y nj:n cj:n start:{DIAMOND}"
            )),
            (
                Variant::standard(Rules::Fetlar),
                host(Repetition::Draw, true)
            )
        );
        // tafl's Tablut record as OpenTafl sends it back: no tfr, a draw.
        let tablut = "/3ttt3/4t4/4T4/t3T3t/ttTTKTTtt/t3T3t/4T4/4t4/3ttt3/";
        assert_eq!(
            read(format!(
                "dim:9 name:tablut surf:n atkf:y ks:m cenp:K cenh:tT start:{tablut}"
            )),
            (
                Variant::standard(Rules::Tablut),
                host(Repetition::Draw, false)
            )
        );
    }

    #[test]
    fn the_host_judges_the_ends_its_rules_add() {
        // Copenhagen 9x9, the attackers' b3 and the king shuttling: the
        // position after a3-b3 stands the third time after the attackers'
        // ninth ply.
        let record = "dim:9 tfr:w sw:s efe:y start:/9/9/t8/9/4K4/9/9/3T5/9/";
        let rules = GameRules::parse(record).unwrap();
        let mut game = tafl::rules::Game::from_position(rules.start);
        let mut last = None;
        for text in [
            "a3-b3", "e5-e6", "b3-b2", "e6-e5", "b2-b3", "e5-e6", "b3-b2", "e6-e5", "b2-b3",
        ] {
            let played = game.play(text).unwrap();
            last = Some((played.status, rules.host.judge(game.position(), &played)));
        }
        let won = |winner| Status::Won {
            winner,
            reason: EndReason::Repetition,
        };
        // tafl's rule gives it to the attackers; OpenTafl's tfr:w to the
        // side that did not repeat.
        assert_eq!(last, Some((won(Side::Attackers), won(Side::Defenders))));
    }

    #[test]
    fn a_difference_that_changes_the_game_is_refused_by_name() {
        let record = format!("dim:11 name:Copenhagen tfr:d sw:s efe:y start:{DIAMOND}");
        assert_eq!(
            GameRules::parse(&record).unwrap_err().to_string(),
            "rules not supported: the nearest tafl plays is copenhagen, which differs in tfr:d (tfr:w)"
        );
        let record = format!("dim:11 surf:n ber:c start:{DIAMOND}");
        assert!(
            GameRules::parse(&record)
                .unwrap_err()
                .to_string()
                .ends_with("which differs in ber:c (ber:n)")
        );
        let record = format!("dim:11 surf:n bogus:1 start:{DIAMOND}");
        assert_eq!(
            GameRules::parse(&record).unwrap_err(),
            RulesError::Entry("bogus:1".to_owned())
        );
    }

    #[test]
    fn start_lists_rank_1_first_and_starti_the_top_rank_first() {
        // A king on e2 and an attacker on e8 of 9x9, nothing else.
        let from_bottom = "dim:9 surf:n start:/9/4K4/9/9/9/9/9/4t4/9/";
        let from_top = "dim:9 surf:n starti:/9/4t4/9/9/9/9/9/4K4/9/";
        let bottom = GameRules::parse(from_bottom).unwrap().start;
        let top = GameRules::parse(from_top).unwrap().start;
        assert!(bottom.same_placement(&top));
        assert_eq!(
            bottom.king().map(|king| king.to_string()),
            Some("e2".to_owned())
        );
        assert_eq!(position_record(&bottom), "/9/4K4/9/9/9/9/9/4t4/9/");
        assert_eq!(same_board("/9/4K4/9/9/9/9/9/4t4/9/", &bottom), Ok(true));
        assert_eq!(same_board("/9/4t4/9/9/9/9/9/4K4/9/", &bottom), Ok(true));
        assert_eq!(same_board("/9/4t4/9/9/9/9/9/3K5/9/", &bottom), Ok(false));
    }

    #[test]
    fn special_pieces_are_refused() {
        let berserk = "dim:11 surf:n start:/3ttttt3/5c5/11/t4T4t/t3NTT3t/tc1TTKTT1ct/t3TTT3t/t4T4t/11/5c5/3ttttt3/";
        assert!(
            GameRules::parse(berserk)
                .unwrap_err()
                .to_string()
                .contains("the piece 'c'")
        );
    }

    #[test]
    fn move_records_in_either_notation() {
        let read = |record| move_text(record).map(|text| text.to_string());
        assert_eq!(read("e5-e8"), Ok("e5-e8".to_owned()));
        assert_eq!(read("e5-e8xe9"), Ok("e5-e8xe9".to_owned()));
        assert_eq!(read("e5-e8xe9/f8+"), Ok("e5-e8xe9/f8".to_owned()));
        assert_eq!(read("Ke5-e1-"), Ok("e5-e1".to_owned()));
        assert_eq!(read("e3-e4xKe5++"), Ok("e3-e4".to_owned()));
        assert!(read("Ne6^=e8xce7").is_err());
        assert!(read("e5").is_err());
    }
}
