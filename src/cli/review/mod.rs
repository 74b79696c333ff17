//! `tafl review`: a game reviewed ply by ply (the engine's `Review`), printed
//! as annotated text as each ply is judged (`12. e4-e7?? blunder (−41%), best
//! d2-d7`), then a summary; `--svg FILE` also draws the evaluation graph
//! (`svg.rs`).

mod svg;

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use tafl::lab::{GameRecord, RecordedResult};
use tafl::rules::{Game, Move, Rules, Side, Variant};
use tafl::search::{
    Engine, EngineConfig, Level, Limits, MoveClass, PlyReview, Review, ReviewBudget, ReviewSummary,
};

use super::VariantArgs;

/// `tafl review` arguments.
#[derive(clap::Args, Clone, Debug)]
pub struct ReviewArgs {
    /// The game: a line of game records (`moves,_,_,result`, as tests/data/copenhagen-games.csv
    /// holds them: Copenhagen 11×11 from the start), or a move list (`d1-d3 e5-e2 ...`, spaces
    /// or new lines between moves, of the variant --rules and --size name).
    pub game: PathBuf,
    /// The line of a record file to review, from 1.
    #[arg(long, default_value_t = 1)]
    pub line: usize,
    #[command(flatten)]
    pub variant: VariantArgs,
    /// Each position's search: at most this many nodes (none of --nodes, --depth, --time-ms and
    /// --level: the review's default, 50,000).
    #[arg(long)]
    pub nodes: Option<u64>,
    /// Each position's search: at most this many plies.
    #[arg(long)]
    pub depth: Option<u32>,
    /// Each position's search: at most this long (the review is then no longer the same
    /// every time).
    #[arg(long)]
    pub time_ms: Option<u64>,
    /// 1 (beginner) ..= 10 (strongest): that level's depth and node bounds.
    #[arg(long, default_value_t = 10)]
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
    let text = std::fs::read_to_string(&args.game)
        .with_context(|| format!("cannot read the game {}", args.game.display()))?;
    let game = read_game(&text, args)?;
    let level = Level::new(args.level).context("--level: use 1 (beginner) to 10 (strongest)")?;
    let limits = Limits {
        max_depth: args.depth,
        max_nodes: args.nodes,
        max_time: args.time_ms.map(Duration::from_millis),
        deadline: None,
    };
    let engine = Engine::new(EngineConfig {
        hash_mb: args.hash_mb,
        ..EngineConfig::default()
    });
    let budget = ReviewBudget::new(&limits, level, args.seed);
    let first_mover = game.start.position().side_to_move();
    let mut review = Review::new(&engine, game.start, game.moves, budget)?;
    let started = Instant::now();
    let stop = AtomicBool::new(false);
    while !review.is_finished() {
        if let Some(ply) = review.step(&engine, &stop)? {
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
    if let Some(path) = &args.svg {
        let result = match (&game.recorded, summary.status.is_over()) {
            (Some(recorded), false) => recorded.clone(),
            _ => summary.status.to_string(),
        };
        let drawing = svg::graph(review.judged(), &summary, first_mover, &game.title, &result);
        std::fs::write(path, drawing)
            .with_context(|| format!("cannot write the graph to {}", path.display()))?;
    }
    Ok(())
}

/// A game read from a file.
struct GameFile {
    start: Game,
    /// Up to where the rules end the game.
    moves: Vec<Move>,
    /// What the graph is titled: the file's name (and line).
    title: String,
    /// A record's result in words ("defenders won, on time"): a game may end off the board.
    recorded: Option<String>,
}

/// The game a file holds: its start and its moves, up to where the rules end it (a record may
/// go on after a third repetition; those moves are left out, and said so).
fn read_game(text: &str, args: &ReviewArgs) -> anyhow::Result<GameFile> {
    let name = args.game.file_name().map_or_else(
        || "game".to_owned(),
        |name| name.to_string_lossy().into_owned(),
    );
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
            format!("{name}, line {}", args.line),
            Some(format!("{result}{clock}")),
        )
    } else {
        let texts = text.split_whitespace().map(str::to_owned).collect();
        (args.variant.variant(), texts, name, None)
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
    Ok(GameFile {
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
