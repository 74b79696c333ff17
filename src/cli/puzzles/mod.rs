//! `tafl puzzles GAMES…`: the puzzles of every game in the files given
//! (the engine's `find_puzzles`), appended to a CSV file one puzzle a line
//! (docs/puzzles.md, "The puzzle file"), with a progress bar on a terminal
//! and, with `--svg DIR`, a drawing of each puzzle's board
//! (`svg.rs`).
//!
//! Resumable: the games mined to the end are listed, one a line, in a file
//! beside the CSV (its name with `.mined` added); a rerun skips them and
//! appends only the puzzles the CSV lacks.

mod svg;

use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use anyhow::Context;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use tafl::lab::GameRecord;
use tafl::rules::{Game, Move, Variant};
use tafl::search::{Control, Engine, EngineConfig, Puzzle, PuzzleBudget, find_puzzles};

use super::{PositionSearchArgs, VariantArgs};

/// `tafl puzzles` arguments.
#[derive(clap::Args, Clone, Debug)]
pub struct PuzzlesArgs {
    /// Game files: game records (`moves,_,_,result` a line, as tests/data/copenhagen-games.csv
    /// and `tafl match --record` write them), each line a game; or a move list (`d1-d3 e5-e2
    /// ...`), one game. Both are played by --rules and --size.
    #[arg(required = true)]
    pub games: Vec<PathBuf>,
    /// The puzzle file (CSV): created with its header, else appended to.
    #[arg(long, short, default_value = "puzzles.csv")]
    pub out: PathBuf,
    #[command(flatten)]
    pub variant: VariantArgs,
    #[command(flatten)]
    pub search: PositionSearchArgs,
    /// The longest solution, in the solver's moves (1 to 4).
    #[arg(long, default_value_t = tafl::search::DEFAULT_SOLVER_MOVES,
          value_parser = clap::value_parser!(u32).range(1..=i64::from(tafl::search::MAX_SOLVER_MOVES)))]
    pub max_moves: u32,
    /// Each search's transposition table, MiB.
    #[arg(long, default_value_t = 16)]
    pub hash_mb: usize,
    /// Games mined at once, each on its own thread (the file then lists them in the order they
    /// end).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Also draw each puzzle's board into this directory, as `ID.svg` (the id's `:` made `-`).
    #[arg(long)]
    pub svg: Option<PathBuf>,
}

/// The CSV header (docs/puzzles.md says what each column holds).
const HEADER: &str =
    "id,game,source_ply,rules,board_size,start,solver,solution,goal,themes,rating,found_in_game";

/// One game of a file.
struct GameEntry {
    /// `FILE:LINE` for a record, `FILE` for a move list.
    id: String,
    start: Game,
    /// Up to where the rules end the game.
    moves: Vec<Move>,
}

/// Mines every game not mined yet, appending its puzzles.
pub fn run(args: &PuzzlesArgs) -> anyhow::Result<()> {
    let variant = args.variant.variant();
    let games = read_games(&args.games, variant)?;
    let mut file = PuzzleFile::open(&args.out, args.svg.clone())?;
    let to_mine: Vec<&GameEntry> = games
        .iter()
        .filter(|game| !file.mined.contains(&game.id))
        .collect();
    let limits = args.search.limits();
    let budget = PuzzleBudget::new(&limits, args.max_moves);
    let engine = Engine::new(EngineConfig {
        hash_mb: args.hash_mb,
        ..EngineConfig::default()
    });
    let progress = progress_bar(to_mine.len() as u64);
    let started = Instant::now();
    let (mut found, mut added) = (0, 0);
    let next = AtomicUsize::new(0);
    let (sender, results) = mpsc::channel();
    std::thread::scope(|scope| -> anyhow::Result<()> {
        for _ in 0..args.threads.max(1) {
            let (sender, next, to_mine) = (sender.clone(), &next, &to_mine);
            let (engine, budget) = (&engine, &budget);
            scope.spawn(move || {
                while let Some(game) = to_mine.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let stop = AtomicBool::new(false);
                    let mined = find_puzzles(
                        engine,
                        &game.start,
                        &game.moves,
                        budget,
                        Control::new(&stop),
                    );
                    if sender.send((game.id.as_str(), mined)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        for (id, mined) in results {
            let puzzles = mined
                .with_context(|| format!("{id}: a ply checked on reading was refused"))?
                .puzzles;
            found += puzzles.len();
            added += file.record(id, &puzzles)?;
            progress.set_message(id.to_owned());
            progress.inc(1);
        }
        Ok(())
    })?;
    progress.finish_and_clear();
    eprintln!(
        "{} games mined in {:.1} s: {found} puzzles, {added} added to {}",
        progress.position(),
        started.elapsed().as_secs_f64(),
        args.out.display()
    );
    Ok(())
}

/// The puzzle file, the list of the games mined into it, and where boards are drawn.
struct PuzzleFile {
    out: File,
    /// Its puzzles' ids.
    written: HashSet<String>,
    mined_file: File,
    /// The games mined to the end.
    mined: HashSet<String>,
    svg: Option<PathBuf>,
}

impl PuzzleFile {
    /// The file at `path` (created with its header when new) and its list of mined games.
    fn open(path: &Path, svg: Option<PathBuf>) -> anyhow::Result<PuzzleFile> {
        let mined_path = PathBuf::from(format!("{}.mined", path.display()));
        let written = read_lines(path)?
            .iter()
            .skip(1)
            .filter_map(|line| line.split(',').next().map(str::to_owned))
            .collect();
        if let Some(dir) = &svg {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
        }
        Ok(PuzzleFile {
            out: open_csv(path)?,
            written,
            mined: read_lines(&mined_path)?.into_iter().collect(),
            mined_file: append(&mined_path)?,
            svg,
        })
    }

    /// Appends the puzzles of game `game` the file lacks, draws them, and lists the game as
    /// mined; returns how many were added.
    fn record(&mut self, game: &str, puzzles: &[Puzzle]) -> anyhow::Result<usize> {
        let mut added = 0;
        for puzzle in puzzles {
            let id = format!("{game}:{}", puzzle.source_ply);
            if let Some(dir) = &self.svg {
                let path = dir.join(format!("{}.svg", id.replace([':', '/'], "-")));
                std::fs::write(&path, svg::board(puzzle))
                    .with_context(|| format!("cannot write {}", path.display()))?;
            }
            if self.written.insert(id.clone()) {
                writeln!(self.out, "{}", csv_line(&id, game, puzzle))?;
                added += 1;
            }
        }
        // The puzzles first: a game listed as mined has all its puzzles in the file.
        self.out.flush()?;
        writeln!(self.mined_file, "{game}")?;
        self.mined_file.flush()?;
        Ok(added)
    }
}

/// A bar on a terminal (stderr); nothing elsewhere, so a log stays clean.
fn progress_bar(games: u64) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::with_draw_target(Some(games), ProgressDrawTarget::hidden());
    }
    let bar = ProgressBar::new(games);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} games, {eta} left  {msg}")
            .expect("a valid template"),
    );
    bar
}

/// Every game of the files, in order: each record a game, or each move list one.
fn read_games(paths: &[PathBuf], variant: Variant) -> anyhow::Result<Vec<GameEntry>> {
    let mut games = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |name| name.to_string_lossy().into_owned(),
        );
        if text.lines().next().is_some_and(|line| line.contains(',')) {
            let records =
                GameRecord::parse_all(&text).with_context(|| path.display().to_string())?;
            for (index, record) in records.iter().enumerate() {
                let id = format!("{name}:{}", index + 1);
                games.extend(game_entry(id, variant, &record.moves));
            }
        } else {
            let texts: Vec<String> = text.split_whitespace().map(str::to_owned).collect();
            games.extend(game_entry(name, variant, &texts));
        }
    }
    Ok(games)
}

/// The game `texts` play, up to where the rules end it; `None` (said on stderr) when a move is
/// refused before.
fn game_entry(id: String, variant: Variant, texts: &[String]) -> Option<GameEntry> {
    let start = Game::new(variant);
    let mut game = start.clone();
    let mut moves = Vec::with_capacity(texts.len());
    for text in texts {
        if game.status().is_over() {
            break;
        }
        match game.play(text) {
            Ok(played) => moves.push(played.played),
            Err(error) => {
                eprintln!("{id}: {error}; the game is left out");
                return None;
            }
        }
    }
    Some(GameEntry { id, start, moves })
}

/// The file's lines; none when it does not exist.
fn read_lines(path: &Path) -> anyhow::Result<Vec<String>> {
    match File::open(path) {
        Ok(file) => BufReader::new(file)
            .lines()
            .collect::<Result<_, _>>()
            .with_context(|| format!("cannot read {}", path.display())),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(error) => Err(error).with_context(|| format!("cannot read {}", path.display())),
    }
}

fn append(path: &Path) -> anyhow::Result<File> {
    OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .with_context(|| format!("cannot write {}", path.display()))
}

/// The puzzle file, its header written when it is new.
fn open_csv(path: &Path) -> anyhow::Result<File> {
    let mut file = append(path)?;
    if file.metadata()?.len() == 0 {
        writeln!(file, "{HEADER}")?;
    }
    Ok(file)
}

/// One puzzle as a line of the file (no field holds a comma: squares, moves and words).
fn csv_line(id: &str, game: &str, puzzle: &Puzzle) -> String {
    let variant = puzzle.start.variant();
    let solution: Vec<String> = puzzle.solution.iter().map(ToString::to_string).collect();
    let themes: Vec<&str> = puzzle.themes.iter().map(|theme| theme.name()).collect();
    format!(
        "{id},{game},{},{},{},{},{},{},{},{},{},{}",
        puzzle.source_ply,
        variant.rules,
        variant.size.get(),
        puzzle.start,
        puzzle.solver,
        solution.join(" "),
        puzzle.goal.name(),
        themes.join(" "),
        puzzle.rating,
        puzzle.found_in_game
    )
}
