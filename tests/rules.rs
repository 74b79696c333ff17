//! The rule tests: every case in `tests/data/rules/*.txt` (format in that
//! folder's README.md) is played through the public rules API and compared
//! with what docs/RULES.md says. All failures are collected and reported together.
//!
//! This is the `rules` test binary: the other rules tests (the cross-check
//! against the reference, notation, perft, properties, replays) are its
//! modules in tests/rules/.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

// The shared helpers (tests/common/), as `crate::common` for the modules below too.
pub use common;

/// In tests/rules/.
mod rules {
    mod lockstep;
    mod notation;
    mod perft;
    mod properties;
    mod replay;
}

use common::captures::check_capturing_moves;
use common::previews::check_previews;
use tafl::rules::{
    BoardSize, EndReason, Game, Position, PositionText, Rules, Side, Status, Variant,
};

/// Every rule id a case may name; each needs a case where it fires and one
/// where it does not, on at least two board sizes.
const RULE_IDS: &[&str] = &[
    "1",
    "2",
    "3",
    "4",
    "5",
    "6",
    "7",
    "8",
    "9",
    "10",
    "11",
    "12",
    "fetlar-no-shieldwall",
    "fetlar-no-exit-fort",
    "fetlar-no-encirclement",
    "fetlar-king-capture",
    "fetlar-repetition",
    "fetlar-no-moves",
    "tablut-throne",
    "tablut-corners",
    "tablut-king-capture",
    "tablut-no-shieldwall",
    "tablut-no-exit-fort",
    "tablut-no-encirclement",
    "tablut-repetition",
    "tablut-no-moves",
    "capture-list",
    "custom-start",
];

/// What the last move (or the start, without moves) must lead to.
#[derive(Debug)]
enum Expected {
    Outcome {
        captures: BTreeSet<String>,
        result: String,
        repetitions: Option<u32>,
    },
    Error(String),
}

#[derive(Debug)]
struct Case {
    file: String,
    line: usize,
    name: String,
    rules: Vec<String>,
    fires: bool,
    ruleset: Rules,
    side: char,
    size: usize,
    /// Ranks from the top, each as N cells.
    board: Vec<Vec<char>>,
    moves: Vec<String>,
    expected: Expected,
}

impl Case {
    fn label(&self) -> String {
        format!("{}:{}: {}", self.file, self.line, self.name)
    }

    /// The diagram as position text: ranks top to bottom joined by '/',
    /// runs of empty squares as numbers, then the side to move.
    fn position_text(&self) -> String {
        let ranks: Vec<String> = self
            .board
            .iter()
            .map(|rank| {
                let mut text = String::new();
                let mut empty = 0;
                for &cell in rank {
                    if cell == '.' {
                        empty += 1;
                    } else {
                        if empty > 0 {
                            write!(text, "{empty}").unwrap();
                            empty = 0;
                        }
                        text.push(cell);
                    }
                }
                if empty > 0 {
                    write!(text, "{empty}").unwrap();
                }
                text
            })
            .collect();
        format!("{} {}", ranks.join("/"), self.side)
    }
}

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/rules")
}

fn data_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(data_dir())
        .expect("tests/data/rules exists")
        .map(|entry| entry.expect("readable directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "txt"))
        .collect();
    files.sort();
    assert!(
        !files.is_empty(),
        "no rule data files in {}",
        data_dir().display()
    );
    files
}

/// Fields of one case as written, before they are checked.
#[derive(Default)]
struct RawCase {
    line: usize,
    fields: BTreeMap<String, (usize, String)>,
    board: Vec<(usize, String)>,
}

fn parse_file(path: &Path) -> Vec<Case> {
    let file = path.file_name().unwrap().to_string_lossy().into_owned();
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{file}: cannot read: {e}"));
    let mut raws: Vec<RawCase> = Vec::new();
    let mut in_board = false;
    for (index, raw_line) in text.lines().enumerate() {
        let number = index + 1;
        let line = raw_line.split('#').next().unwrap().trim();
        if line.is_empty() {
            // A blank line ends a diagram; a comment-only line does not.
            if raw_line.trim().is_empty() {
                in_board = false;
            }
            continue;
        }
        if let Some(name) = line.strip_prefix("case:") {
            let mut raw = RawCase {
                line: number,
                ..RawCase::default()
            };
            raw.fields
                .insert("case".into(), (number, name.trim().to_string()));
            raws.push(raw);
            in_board = false;
            continue;
        }
        let current = raws.last_mut().unwrap_or_else(|| {
            panic!("{file}:{number}: text before the first `case:` line: {raw_line:?}")
        });
        if let Some((key, value)) = line.split_once(':') {
            let key = key.trim();
            if key.chars().all(|c| c.is_ascii_lowercase()) && !key.is_empty() {
                in_board = key == "board";
                if !in_board {
                    let old = current
                        .fields
                        .insert(key.to_string(), (number, value.trim().to_string()));
                    assert!(
                        old.is_none(),
                        "{file}:{number}: `{key}:` given twice in one case"
                    );
                } else {
                    assert!(
                        value.trim().is_empty(),
                        "{file}:{number}: the diagram starts on the line after `board:`"
                    );
                }
                continue;
            }
        }
        assert!(
            in_board,
            "{file}:{number}: not a `key: value` line and not inside a diagram: {raw_line:?}"
        );
        current.board.push((number, line.to_string()));
    }
    raws.into_iter().map(|raw| build_case(&file, raw)).collect()
}

fn build_case(file: &str, raw: RawCase) -> Case {
    let at = |key: &str| raw.fields.get(key).map_or(raw.line, |(line, _)| *line);
    let get = |key: &str| raw.fields.get(key).map(|(_, value)| value.as_str());
    let need =
        |key: &str| get(key).unwrap_or_else(|| panic!("{file}:{}: case has no `{key}:`", raw.line));
    let known = [
        "case",
        "rule",
        "fires",
        "rules",
        "side",
        "moves",
        "captures",
        "result",
        "repetitions",
        "error",
    ];
    for (key, (line, _)) in &raw.fields {
        assert!(
            known.contains(&key.as_str()),
            "{file}:{line}: unknown key `{key}:`"
        );
    }

    let rules: Vec<String> = need("rule")
        .split([' ', ','])
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect();
    for rule in &rules {
        assert!(
            RULE_IDS.contains(&rule.as_str()),
            "{file}:{}: unknown rule id {rule:?}",
            at("rule")
        );
    }
    let fires = match need("fires") {
        "yes" => true,
        "no" => false,
        other => panic!(
            "{file}:{}: `fires:` must be yes or no, not {other:?}",
            at("fires")
        ),
    };
    let ruleset: Rules = need("rules")
        .parse()
        .unwrap_or_else(|e| panic!("{file}:{}: bad `rules:`: {e}", at("rules")));
    let side = match need("side") {
        "a" => 'a',
        "d" => 'd',
        other => panic!(
            "{file}:{}: `side:` must be a or d, not {other:?}",
            at("side")
        ),
    };

    let board = parse_board(file, raw.line, &raw.board);
    let size = board.len();

    let moves: Vec<String> = match get("moves") {
        None | Some("-") => Vec::new(),
        Some(text) => text.split_whitespace().map(String::from).collect(),
    };
    let expected = match get("error") {
        Some(text) => {
            for key in ["captures", "result", "repetitions"] {
                assert!(
                    get(key).is_none(),
                    "{file}:{}: `error:` and `{key}:` exclude each other",
                    at(key)
                );
            }
            assert!(
                !moves.is_empty(),
                "{file}:{}: `error:` needs a move to refuse",
                at("error")
            );
            Expected::Error(text.to_string())
        }
        None => {
            let captures: BTreeSet<String> = match get("captures").unwrap_or("none") {
                "none" => BTreeSet::new(),
                text => text
                    .split_whitespace()
                    .map(|s| s.to_ascii_lowercase())
                    .collect(),
            };
            let result = need("result")
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            check_result_syntax(file, at("result"), &result);
            let repetitions = get("repetitions").map(|text| {
                text.parse().unwrap_or_else(|_| {
                    panic!("{file}:{}: bad `repetitions:` {text:?}", at("repetitions"))
                })
            });
            Expected::Outcome {
                captures,
                result,
                repetitions,
            }
        }
    };
    Case {
        file: file.to_string(),
        line: raw.line,
        name: need("case").to_string(),
        rules,
        fires,
        ruleset,
        side,
        size,
        board,
        moves,
        expected,
    }
}

fn check_result_syntax(file: &str, line: usize, result: &str) {
    const REASONS: [&str; 6] = [
        "king-escaped",
        "exit-fort",
        "king-captured",
        "encircled",
        "no-moves",
        "repetition",
    ];
    let words: Vec<&str> = result.split(' ').collect();
    let ok = match words.as_slice() {
        ["ongoing"] => true,
        ["attackers" | "defenders" | "draw", reason] => REASONS.contains(reason),
        _ => false,
    };
    assert!(ok, "{file}:{line}: bad `result:` {result:?}");
}

/// Reads the diagram: N ranks of N cells, top rank first, each optionally
/// led by its rank number; an optional last line of file letters.
fn parse_board(file: &str, case_line: usize, lines: &[(usize, String)]) -> Vec<Vec<char>> {
    let mut ranks: Vec<(usize, Vec<&str>)> = lines
        .iter()
        .map(|(line, text)| (*line, text.split_whitespace().collect()))
        .collect();
    if let Some((line, tokens)) = ranks.last()
        && tokens.first() == Some(&"a")
    {
        let expected: Vec<String> = (b'a'..)
            .take(tokens.len())
            .map(|b| (b as char).to_string())
            .collect();
        assert!(
            tokens.iter().eq(expected.iter()),
            "{file}:{line}: bad file letters line"
        );
        assert_eq!(
            tokens.len(),
            ranks.len() - 1,
            "{file}:{line}: file letters do not match the board size"
        );
        ranks.pop();
    }
    let size = ranks.len();
    assert!(
        [9, 11, 13].contains(&size),
        "{file}:{case_line}: the diagram has {size} ranks: it must have 9, 11 or 13"
    );
    ranks
        .into_iter()
        .enumerate()
        .map(|(index, (line, mut tokens))| {
            let rank = size - index;
            if tokens
                .first()
                .is_some_and(|t| t.chars().all(|c| c.is_ascii_digit()))
            {
                let number: usize = tokens[0].parse().unwrap();
                assert_eq!(
                    number, rank,
                    "{file}:{line}: this line is rank {rank}, not {number}"
                );
                tokens.remove(0);
            }
            assert_eq!(
                tokens.len(),
                size,
                "{file}:{line}: rank {rank} has {} cells, expected {size}",
                tokens.len()
            );
            tokens
                .iter()
                .map(|token| match *token {
                    "." | "+" => '.',
                    "t" => 't',
                    "T" => 'T',
                    "K" => 'K',
                    other => panic!("{file}:{line}: {other:?} is not a cell: use . t T K or +"),
                })
                .collect()
        })
        .collect()
}

fn result_text(status: Status) -> String {
    let reason = |reason: EndReason| match reason {
        EndReason::KingEscaped => "king-escaped",
        EndReason::ExitFort => "exit-fort",
        EndReason::KingCaptured => "king-captured",
        EndReason::Encircled => "encircled",
        EndReason::NoMoves => "no-moves",
        EndReason::Repetition => "repetition",
    };
    match status {
        Status::Ongoing => "ongoing".to_string(),
        Status::Won {
            winner: Side::Attackers,
            reason: r,
        } => format!("attackers {}", reason(r)),
        Status::Won {
            winner: Side::Defenders,
            reason: r,
        } => format!("defenders {}", reason(r)),
        Status::Drawn { reason: r } => format!("draw {}", reason(r)),
    }
}

fn set_text(set: &BTreeSet<String>) -> String {
    if set.is_empty() {
        "none".to_string()
    } else {
        set.iter().cloned().collect::<Vec<_>>().join(" ")
    }
}

/// Plays one case; `Err` says how the engine disagrees with the data.
fn run_case(case: &Case) -> Result<(), String> {
    let size = BoardSize::new(case.size as u32).ok_or("unsupported board size")?;
    let variant = Variant::new(case.ruleset, size);
    let text = case.position_text();
    let setup: PositionText = text
        .parse()
        .map_err(|e| format!("position text {text:?} refused: {e}"))?;
    let start = Position::from_setup(&setup, variant)
        .map_err(|e| format!("setup {text:?} refused as a {variant} start: {e}"))?;
    let mut game = Game::from_position(start);
    let Some((last, earlier)) = case.moves.split_last() else {
        let Expected::Outcome {
            captures,
            result,
            repetitions,
        } = &case.expected
        else {
            unreachable!("checked while parsing")
        };
        let mut problems = Vec::new();
        if !captures.is_empty() {
            problems.push("`captures:` given without a move".to_string());
        }
        let got = result_text(game.status());
        if &got != result {
            problems.push(format!("result: expected {result}, got {got}"));
        }
        if let Some(expected) = repetitions
            && game.repetitions() != *expected
        {
            problems.push(format!(
                "repetitions: expected {expected}, got {}",
                game.repetitions()
            ));
        }
        return if problems.is_empty() {
            Ok(())
        } else {
            Err(problems.join("; "))
        };
    };
    for text in earlier {
        game.play(text)
            .map_err(|e| format!("earlier move {text} refused: {e}"))?;
    }
    // Every case's position before its last move (each capture rule, shieldwalls included).
    check_capturing_moves(game.position())?;
    // And every move's preview, as a board UI asks for it, the last move's too.
    let previews = check_previews(&game)?;
    match (&case.expected, game.play(last)) {
        (Expected::Error(wanted), Err(error)) => {
            let message = error.to_string();
            if message.contains(wanted.as_str()) {
                Ok(())
            } else {
                Err(format!(
                    "{last}: expected an error containing {wanted:?}, got {message:?}"
                ))
            }
        }
        (Expected::Error(wanted), Ok(played)) => Err(format!(
            "{last}: expected an error containing {wanted:?}, but it was accepted as {played} ({})",
            result_text(played.status)
        )),
        (Expected::Outcome { .. }, Err(error)) => Err(format!("{last} refused: {error}")),
        (
            Expected::Outcome {
                captures,
                result,
                repetitions,
            },
            Ok(played),
        ) => {
            let mut problems = Vec::new();
            let previewed = previews
                .iter()
                .find(|preview| preview.played == played.played);
            if previewed != Some(&played) {
                problems.push(format!("previewed as {previewed:?}, played as {played:?}"));
            }
            let got: BTreeSet<String> = played
                .captures
                .iter()
                .map(|square| square.to_string())
                .collect();
            if &got != captures {
                problems.push(format!(
                    "captures: expected {}, got {}",
                    set_text(captures),
                    set_text(&got)
                ));
            }
            let got = result_text(game.status());
            if &got != result {
                problems.push(format!("result: expected {result}, got {got}"));
            }
            if played.status != game.status() {
                problems.push(format!(
                    "the played move says {} but the game says {}",
                    result_text(played.status),
                    result_text(game.status())
                ));
            }
            if let Some(expected) = repetitions
                && (game.repetitions() != *expected || played.repetitions != *expected)
            {
                problems.push(format!(
                    "repetitions: expected {expected}, got {} (played move says {})",
                    game.repetitions(),
                    played.repetitions
                ));
            }
            if problems.is_empty() {
                Ok(())
            } else {
                Err(format!("{last}: {}", problems.join("; ")))
            }
        }
    }
}

fn all_cases() -> Vec<Case> {
    data_files()
        .iter()
        .flat_map(|path| parse_file(path))
        .collect()
}

#[test]
fn rule_cases() {
    let cases = all_cases();
    let mut per_file: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut failures = Vec::new();
    for case in &cases {
        let entry = per_file.entry(&case.file).or_default();
        entry.0 += 1;
        // A panic inside the engine is one more failure, not the end of the run.
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_case(case)))
            .unwrap_or_else(|panic| {
                let message = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                Err(format!("panicked: {message}"))
            });
        if let Err(problem) = outcome {
            entry.1 += 1;
            failures.push(format!(
                "{} [rule {}]: {problem}",
                case.label(),
                case.rules.join(" ")
            ));
        }
    }
    println!("rule cases per file (cases, failed):");
    for (file, (count, failed)) in &per_file {
        println!("  {file:<24} {count:>4} {failed:>4}");
    }
    println!("  {:<24} {:>4} {:>4}", "total", cases.len(), failures.len());
    assert!(
        failures.is_empty(),
        "{} of {} rule cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn rule_coverage() {
    let cases = all_cases();
    let mut problems = Vec::new();
    for &rule in RULE_IDS {
        let of_rule: Vec<&Case> = cases
            .iter()
            .filter(|case| case.rules.iter().any(|r| r == rule))
            .collect();
        let fires = of_rule.iter().filter(|case| case.fires).count();
        let near_misses = of_rule.len() - fires;
        let sizes: BTreeSet<usize> = of_rule.iter().map(|case| case.size).collect();
        println!("rule {rule:<24} {fires:>3} fire {near_misses:>3} do not, sizes {sizes:?}");
        if fires == 0 {
            problems.push(format!("rule {rule}: no case where it fires"));
        }
        if near_misses == 0 {
            problems.push(format!("rule {rule}: no case where it does not fire"));
        }
        if sizes.len() < 2 {
            problems.push(format!(
                "rule {rule}: cases on fewer than two board sizes: {sizes:?}"
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "coverage gaps:\n{}",
        problems.join("\n")
    );
}
