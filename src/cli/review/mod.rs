//! `tafl review`: a game reviewed ply by ply (the engine's `Review`), printed
//! as annotated text as each ply is judged (`12. e4-e7?? blunder (−41%), best
//! d2-d7`), then a summary; `--svg FILE` also draws the evaluation graph
//! (`svg.rs`).

mod svg;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use anyhow::{Context, bail};
use tafl::lab::{GameRecord, RecordedResult};
use tafl::rules::{Game, Move, MoveText, Rules, Side, Variant};
use tafl::search::{
    Control, Engine, EngineConfig, Level, MoveClass, PlyReview, Review, ReviewBudget, ReviewSummary,
};

use super::{PositionSearchArgs, VariantArgs};

/// `tafl review` arguments.
#[derive(clap::Args, Clone, Debug)]
pub struct ReviewArgs {
    /// The game: its moves (`tafl review d1-d3 e5-e2 ...`, quoted or not), or a file of them
    /// (spaces or new lines between moves), both of the variant --rules and --size name; or a
    /// file of game records (`moves,_,_,result` a line, as tests/data/copenhagen-games.csv holds
    /// them: Copenhagen 11×11 from the start), --line picking the game.
    #[arg(required = true, value_name = "GAME")]
    pub game: Vec<String>,
    /// The line of a record file to review, from 1.
    #[arg(long, default_value_t = 1)]
    pub line: usize,
    #[command(flatten)]
    pub variant: VariantArgs,
    #[command(flatten)]
    pub search: PositionSearchArgs,
    /// 1 (beginner) ..= 10 (strongest): each search within that level's depth, node and time
    /// bounds (level 10 has none of its own).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=10))]
    pub level: u32,
    /// Passed to every search.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// The review's transposition table, MiB.
    #[arg(long, default_value_t = 16)]
    pub hash_mb: usize,
    /// Also write the evaluation graph here (SVG: the attackers' chance of winning ply by ply,
    /// the mistakes marked).
    #[arg(long)]
    pub svg: Option<PathBuf>,
}

/// Reviews the game, printing each ply as it is judged and the summary, and writes the graph.
pub fn run(args: &ReviewArgs) -> anyhow::Result<()> {
    let game = read_game(args)?;
    let level = Level::new(args.level).context("--level: use 1 (beginner) to 10 (strongest)")?;
    let limits = args.search.limits();
    let engine = Engine::new(EngineConfig {
        hash_mb: args.hash_mb,
        ..EngineConfig::default()
    });
    let budget = ReviewBudget::new(&limits, level, args.seed);
    let first_mover = game.start.position().side_to_move();
    let mut review = Review::new(&engine, game.start, game.moves, budget)?;
    // Opened before the review, so that a path it cannot write stops it before, not after.
    let mut graph_file = args
        .svg
        .as_ref()
        .map(|path| {
            std::fs::File::create(path)
                .with_context(|| format!("cannot write the graph to {}", path.display()))
                .map(|file| (path, file))
        })
        .transpose()?;
    let started = Instant::now();
    let stop = AtomicBool::new(false);
    while !review.is_finished() {
        if let Some(ply) = review.step(&engine, Control::new(&stop))? {
            println!("{}", annotation(&ply, first_mover));
        }
    }
    let summary = review.summary();
    print!("{}", summary_text(&summary, review.judged(), first_mover));
    if let Some(recorded) = &game.recorded {
        println!("recorded: {recorded}");
    }
    eprintln!(
        "{} plies reviewed in {:.1} s, {} nodes",
        summary.plies_reviewed,
        started.elapsed().as_secs_f64(),
        review.nodes()
    );
    if let Some((path, file)) = &mut graph_file {
        let result = match (&game.recorded, summary.status.is_over()) {
            (Some(recorded), false) => recorded.clone(),
            _ => summary.status.to_string(),
        };
        let drawing = svg::graph(review.judged(), &summary, first_mover, &game.title, &result);
        file.write_all(drawing.as_bytes())
            .with_context(|| format!("cannot write the graph to {}", path.display()))?;
    }
    Ok(())
}

/// The game to review.
struct GameToReview {
    start: Game,
    /// Up to where the rules end the game.
    moves: Vec<Move>,
    /// What the graph is titled: the file's name (and line), or the variant of moves given.
    title: String,
    /// A record's result in words ("defenders won, on time"): a game may end off the board.
    recorded: Option<String>,
}

/// The game's text and, from a file, the file's name: moves given as arguments are the text when
/// every word is a move, else one argument names a file.
fn game_text(args: &ReviewArgs) -> anyhow::Result<(String, Option<String>)> {
    let words = || args.game.iter().flat_map(|arg| arg.split_whitespace());
    let not_a_move = words().find(|word| word.parse::<MoveText>().is_err());
    match (args.game.as_slice(), not_a_move) {
        ([path], _) if Path::new(path).is_file() || not_a_move.is_some() => {
            let path = Path::new(path);
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read the game {}", path.display()))?;
            let name = path.file_name().map_or_else(
                || "game".to_owned(),
                |name| name.to_string_lossy().into_owned(),
            );
            Ok((text, Some(name)))
        }
        (_, None) => Ok((words().collect::<Vec<_>>().join(" "), None)),
        (_, Some(word)) => bail!("{word:?} is not a move (d1-d3); a file is named alone"),
    }
}

/// The game to review: its start and its moves, up to where the rules end it (a record may go
/// on after a third repetition; those moves are left out, and said so).
fn read_game(args: &ReviewArgs) -> anyhow::Result<GameToReview> {
    let (text, name) = game_text(args)?;
    let text = text.as_str();
    let is_record = text.lines().next().is_some_and(|line| line.contains(','));
    let (variant, texts, title, recorded) = if is_record {
        let records = GameRecord::parse_all(text)?;
        let Some(record) = records.get(args.line.wrapping_sub(1)) else {
            bail!(
                "--line {}: the file holds {} games",
                args.line,
                records.len()
            );
        };
        let result = match record.result {
            RecordedResult::Won(side) => format!("{side} won"),
            RecordedResult::Draw => "drawn".to_owned(),
            RecordedResult::Ongoing => "unfinished".to_owned(),
        };
        let clock = if record.timed_out { ", on time" } else { "" };
        (
            Variant::standard(Rules::Copenhagen),
            record.moves.clone(),
            format!("{}, line {}", name.as_deref().unwrap_or("game"), args.line),
            Some(format!("{result}{clock}")),
        )
    } else {
        let variant = args.variant.variant();
        let texts = text.split_whitespace().map(str::to_owned).collect();
        (
            variant,
            texts,
            name.unwrap_or_else(|| variant.to_string()),
            None,
        )
    };
    let start = Game::new(variant);
    let mut game = start.clone();
    let mut moves = Vec::with_capacity(texts.len());
    for text in &texts {
        if game.status().is_over() {
            eprintln!(
                "the game ended at ply {} ({}); the {} moves after it are left out",
                game.ply(),
                game.status(),
                texts.len() - game.ply()
            );
            break;
        }
        moves.push(game.play(text)?.played);
    }
    Ok(GameToReview {
        start,
        moves,
        title,
        recorded,
    })
}

/// "12." for the attackers' twelfth move, "12..." for the defenders' reply.
fn move_number(ply: usize, side: Side, first_mover: Side) -> String {
    let full_move = (ply + usize::from(first_mover == Side::Defenders)) / 2 + 1;
    match side {
        Side::Attackers => format!("{full_move}."),
        Side::Defenders => format!("{full_move}..."),
    }
}

/// The annotation's sign: `??` for a blunder or a missed win, `?` a mistake, `?!` an
/// inaccuracy, `!` a found win.
fn mark(class: MoveClass) -> &'static str {
    match class {
        MoveClass::Blunder | MoveClass::MissedWin => "??",
        MoveClass::Mistake => "?",
        MoveClass::Inaccuracy => "?!",
        MoveClass::FoundWin => "!",
        MoveClass::Best | MoveClass::Excellent | MoveClass::Good => "",
    }
}

/// A class in words: "missed win".
fn class_words(class: MoveClass) -> String {
    class.name().replace('_', " ")
}

/// One ply: `12. e4-e7?? blunder (−41%), best d2-d7`.
fn annotation(ply: &PlyReview, first_mover: Side) -> String {
    let mut line = format!(
        "{} {}{} {}",
        move_number(ply.ply, ply.side, first_mover),
        ply.played,
        mark(ply.class),
        class_words(ply.class)
    );
    // A best move lost under a point: neither that nor another move as good is worth a word.
    if ply.class == MoveClass::Best {
        return with_critical(line, ply);
    }
    let percent = (100.0 * ply.loss).round();
    if percent > 0.0 {
        line.push_str(&format!(" (−{percent}%)"));
    }
    if let Some(best) = ply.best_line.first()
        && best.played != ply.played.played
    {
        line.push_str(&format!(", best {best}"));
    }
    with_critical(line, ply)
}

/// `line`, and ", critical" if the position before the ply was.
fn with_critical(mut line: String, ply: &PlyReview) -> String {
    if ply.critical {
        line.push_str(", critical");
    }
    line
}

/// Each side's accuracy and mistakes, the turning points and the result.
fn summary_text(summary: &ReviewSummary, plies: &[PlyReview], first_mover: Side) -> String {
    let mut text = String::new();
    for side in [Side::Attackers, Side::Defenders] {
        let classes = &summary.classes[side];
        let errors: Vec<String> = classes
            .iter()
            .filter(|(class, _)| class.is_error())
            .map(|(class, count)| format!("{count} {}", class_words(class)))
            .collect();
        text.push_str(&format!(
            "{side}: accuracy {:.1}; {}\n",
            summary.accuracy[side],
            errors.join(", ")
        ));
    }
    let turning: Vec<String> = summary
        .turning_points
        .iter()
        .filter_map(|&index| plies.get(index))
        .map(|ply| {
            format!(
                "{} {} (−{:.0}%)",
                move_number(ply.ply, ply.side, first_mover),
                ply.played,
                100.0 * ply.loss
            )
        })
        .collect();
    if !turning.is_empty() {
        text.push_str(&format!("turning points: {}\n", turning.join(", ")));
    }
    let partial = if summary.partial { " (partial)" } else { "" };
    text.push_str(&format!("result: {}{partial}\n", summary.status));
    text
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use clap::{CommandFactory, Parser};

    use super::*;
    use crate::cli::{Cli, Command};

    fn review_args(words: &[&str]) -> ReviewArgs {
        let cli = Cli::try_parse_from(["tafl", "review"].iter().chain(words)).expect("parses");
        match cli.command {
            Some(Command::Review(args)) => args,
            other => panic!("{other:?}"),
        }
    }

    fn moves(game: &GameToReview) -> Vec<String> {
        game.moves.iter().map(Move::to_string).collect()
    }

    #[test]
    fn moves_are_read_from_the_arguments_or_from_a_file() {
        for words in [
            &["d1-d3", "e5-e2", "g1-g3"][..],
            &["d1-d3 e5-e2 g1-g3"],
            &["d1-d3 e5-e2", "g1-g3", "--line", "1"],
        ] {
            let game = read_game(&review_args(words)).expect("a game");
            assert_eq!(moves(&game), ["d1-d3", "e5-e2", "g1-g3"], "{words:?}");
            assert_eq!(game.title, "copenhagen 11×11");
        }
        let tablut = read_game(&review_args(&["--rules", "tablut", "d1-d3"])).expect("a game");
        assert_eq!(
            tablut.start.position().variant(),
            Variant::standard(Rules::Tablut)
        );
        let path = std::env::temp_dir().join(format!("tafl-review-{}.txt", std::process::id()));
        std::fs::write(&path, "d1-d3\ne5-e2\n").expect("a file");
        let from_file = read_game(&review_args(&[path.to_str().expect("utf-8")]));
        std::fs::remove_file(&path).expect("removed");
        assert_eq!(moves(&from_file.expect("a game")), ["d1-d3", "e5-e2"]);
    }

    #[test]
    fn a_missing_file_and_a_word_that_is_no_move_are_named() {
        let missing = read_game(&review_args(&["/nonexistent/game.txt"])).err();
        let missing = format!("{:#}", missing.expect("no such file"));
        assert!(
            missing.starts_with("cannot read the game /nonexistent/game.txt: "),
            "{missing}"
        );
        let stray = read_game(&review_args(&["d1-d3", "e5-e2?"])).err();
        let stray = stray.expect("not a move").to_string();
        assert_eq!(
            stray,
            r#""e5-e2?" is not a move (d1-d3); a file is named alone"#
        );
    }

    #[test]
    fn a_graph_that_cannot_be_written_stops_the_review_before_it_begins() {
        // Forty plies: seconds of searching, were the review to run first.
        let games = tafl::lab::real_games();
        let long = games
            .iter()
            .find(|game| game.moves.len() >= 40)
            .expect("a long game");
        let moves = long.moves[..40].join(" ");
        let args = review_args(&[&moves, "--hash-mb", "1", "--svg", "/nonexistent/graph.svg"]);
        let started = Instant::now();
        let error = format!("{:#}", run(&args).expect_err("no such directory"));
        assert!(
            error.starts_with("cannot write the graph to /nonexistent/graph.svg: "),
            "{error}"
        );
        assert!(
            started.elapsed() < Duration::from_secs(1),
            "the review ran first"
        );
    }

    #[test]
    fn the_help_states_the_review_s_own_default_and_the_levels() {
        assert_eq!(tafl::search::DEFAULT_REVIEW_NODES, 50_000);
        let mut command = Cli::command();
        let help = command
            .find_subcommand_mut("review")
            .expect("review")
            .render_long_help()
            .to_string();
        assert!(
            help.contains("50,000 nodes by default, unless --depth"),
            "{help}"
        );
        assert!(help.contains("[default: 10]"), "{help}");
        assert!(Cli::try_parse_from(["tafl", "review", "d1-d3", "--level", "11"]).is_err());
    }
}
