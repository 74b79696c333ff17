//! `tafl match`: a match between two players, this build's engine with some
//! settings or another build behind a tafl server, perhaps on a clock,
//! printing each game as it ends and the score with its 95% interval. The
//! players are made here from the flags; the lab plays the games
//! (`tafl::lab::matchplay::play_match`).

use std::fmt;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use super::VariantArgs;
use super::remote_player::{RemotePlayer, Unreachable};
use tafl::lab::matchplay::{
    ClockUse, Contestant, Ending, EnginePlayer, FinishedGame, MatchConfig, MatchSummary, Openings,
    OpeningsError, Player, TimeControl, a_attacks, elo, play_match,
};
use tafl::lab::{GameRecord, real_games};
use tafl::rules::Variant;
use tafl::search::{
    Engine, EngineConfig, Level, Network, NetworkFileError, Networks, Weights, WeightsError,
};

/// `tafl match` arguments.
#[derive(clap::Args, Clone, Debug)]
pub struct MatchArgs {
    /// Player A: `level=N` plus optional `,depth=D`, `,nodes=N`, `,movetime=MS`, `,seed=N` (every
    /// move with this seed, not the game's and ply's own: no variety from game to game),
    /// `,weights=FILE` (evaluation weights as `tafl tune` prints them), `,net=FILE` (an
    /// evaluation network as `tafl train` writes it) or `,eval=classic` (the hand-set
    /// evaluation, whatever the default).
    /// Or `,server=http://HOST:PORT`: another build's moves, from a tafl server's SuggestMove with
    /// the same level, limits and seeds (not with weights, net or eval: it plays its own). Its
    /// illegal or missing move loses the game; no answer (the server down, an error, or nothing
    /// 10 s past the move time) abandons the game unscored. On a `--clock`, `,clock=fraction:N`
    /// gives the player a fixed time a move, an Nth of its time left plus the increment, never more
    /// than the clock holds less the move overhead and a safety margin (for a build that knows no
    /// clock: a server is sent it as `max_time_ms`); without it the engine's
    /// own allocation decides (a server is sent the clock; level 10, full strength, as level 0).
    /// A player's move time does not apply on a clock.
    #[arg(long, default_value = "level=10")]
    pub a: PlayerSpec,
    /// Player B, as A.
    #[arg(long, default_value = "level=7")]
    pub b: PlayerSpec,
    /// Games to play (rounded up to an even number: both colours per opening).
    #[arg(long, default_value_t = 40)]
    pub games: u32,
    /// The first game to play, from 1: a match stopped after game N goes on with `--from-game
    /// N+1` and the same other options, playing the games (openings, colours and seeds) the
    /// whole match would have; the score counts only the games this run plays.
    #[arg(long, default_value_t = 1)]
    pub from_game: u32,
    /// Time per move, ms, for both players (0: the levels' own budgets); not used on a `--clock`.
    #[arg(long, default_value_t = 200)]
    pub movetime: u64,
    /// Both players on a clock: `MAIN+INCREMENT` in milliseconds (`60000+1000`: a minute and a
    /// second a move). The time a move used runs from the request to the answer; a player whose
    /// clock runs out loses the game on time.
    #[arg(long)]
    pub clock: Option<TimeControlArg>,
    #[command(flatten)]
    pub variant: VariantArgs,
    /// Where the games start, each opening played twice (both colours): `random` (the standard
    /// start, then the start plus 2 to 4 seeded random plies) or `real` (the first plies of real
    /// games, Copenhagen 11×11 only: opening N is the N-th distinct position still going).
    #[arg(long, value_enum, default_value_t = OpeningKind::Random)]
    pub openings: OpeningKind,
    /// The real games for `--openings real`, one a line (`moves,_,_,result`); default: the
    /// real games built in (tests/data/copenhagen-games.csv).
    #[arg(long)]
    pub openings_file: Option<PathBuf>,
    /// Plies of a real game each opening keeps (default: 4 to 8, in turn by opening).
    #[arg(long)]
    pub opening_plies: Option<usize>,
    /// A game still going after this many plies is a draw.
    #[arg(long, default_value_t = 300)]
    pub max_plies: usize,
    /// Transposition table size, MiB.
    #[arg(long, default_value_t = 16)]
    pub hash_mb: usize,
    /// Games played at once, each on its own thread.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Print only the final score (and, on stderr, any game forfeited or abandoned), not every
    /// game's result as it ends.
    #[arg(long)]
    pub quiet: bool,
    /// Append every game to this file, one a line in the real games' format (`moves,,,result`
    /// with result Black, White, Draw or Ongoing; a forfeit is the other side's win, an abandoned
    /// game Ongoing), for `tafl tune --games`.
    #[arg(long)]
    pub record: Option<PathBuf>,
    /// Append every move's time to this file, a CSV line a move
    /// (`game,ply,side,player,used_ms,left_ms`; `left_ms`, what the mover's clock held after the
    /// move, empty without a clock), for plotting (examples/plot-move-times.py).
    #[arg(long)]
    pub move_times: Option<PathBuf>,
}

/// `--clock`: `MAIN+INCREMENT`, milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeControlArg(pub TimeControl);

impl std::str::FromStr for TimeControlArg {
    type Err = String;
    fn from_str(text: &str) -> Result<TimeControlArg, String> {
        let bad = || format!("{text:?}: expected MAIN+INCREMENT in milliseconds (60000+1000)");
        let (main, increment) = text.split_once('+').ok_or_else(bad)?;
        let millis = |word: &str| {
            word.trim()
                .parse()
                .map(Duration::from_millis)
                .map_err(|_| bad())
        };
        let control = TimeControl {
            main: millis(main)?,
            increment: millis(increment)?,
        };
        if control.main.is_zero() && control.increment.is_zero() {
            return Err(format!("{text:?}: a clock of no time"));
        }
        Ok(TimeControlArg(control))
    }
}

/// `--openings`: where the games start.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum OpeningKind {
    /// The standard start, then seeded random plies from it.
    Random,
    /// Real games' first plies.
    Real,
}

/// Why a match cannot start.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MatchError {
    #[error(
        "player {0:?}: expected level=N[,depth=D][,nodes=N][,movetime=MS][,seed=N][,clock=fraction:N][,weights=FILE][,net=FILE|,eval=classic|,server=http://HOST:PORT]"
    )]
    BadPlayer(String),
    #[error(
        "player {0:?}: weights=, net= and eval= set this build's evaluation; a server= player plays with its own"
    )]
    ServerWithEvaluation(String),
    #[error("player {0:?}: server= takes http://HOST:PORT")]
    BadServer(String),
    #[error(transparent)]
    Unreachable(#[from] Unreachable),
    #[error("openings file {path}: {reason}")]
    OpeningsFile { path: String, reason: String },
    #[error(transparent)]
    Openings(#[from] OpeningsError),
    #[error("network file {path}: {reason}")]
    BadNetwork { path: String, reason: String },
    #[error("weights file {path}: {reason}")]
    BadWeights { path: String, reason: String },
    #[error("cannot write to {path}: {reason}")]
    Record { path: String, reason: String },
    #[error("--from-game {from}: the match has games 1 to {games}")]
    FromGame { from: u32, games: u32 },
}

/// A player as the command line gives it: how it searches, and what searches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerSpec {
    pub player: Player,
    pub source: Source,
}

/// What chooses a player's moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// This build's engine.
    Local {
        /// A file of evaluation weights; `None`: the built-in ones.
        weights: Option<PathBuf>,
        evaluation: Evaluation,
    },
    /// A tafl server's SuggestMove, at this address (`http://HOST:PORT`).
    Server(String),
}

/// Which evaluation a player uses.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum Evaluation {
    /// The engine's default.
    #[default]
    Default,
    /// The hand-set terms.
    Classic,
    /// A network file.
    Network(PathBuf),
}

impl std::str::FromStr for PlayerSpec {
    type Err = MatchError;
    fn from_str(text: &str) -> Result<PlayerSpec, MatchError> {
        let bad = || MatchError::BadPlayer(text.to_string());
        let mut player = Player {
            level: Level::STRONGEST,
            max_depth: None,
            max_nodes: None,
            movetime: None,
            clock: ClockUse::Native,
            seed: None,
        };
        let (mut weights, mut evaluation, mut server) = (None, None, None);
        for part in text
            .split(',')
            .map(str::trim)
            .filter(|part| !part.is_empty())
        {
            let (key, value) = part.split_once('=').ok_or_else(bad)?;
            let value = value.trim();
            match key.trim() {
                "weights" => weights = Some(PathBuf::from(value)),
                "net" => evaluation = Some(Evaluation::Network(PathBuf::from(value))),
                "eval" if value == "classic" => evaluation = Some(Evaluation::Classic),
                "server" => server = Some(server_address(value, text)?),
                "level" => {
                    player.level = value.parse().ok().and_then(Level::new).ok_or_else(bad)?;
                }
                "depth" => player.max_depth = Some(value.parse().map_err(|_| bad())?),
                "nodes" => player.max_nodes = Some(value.parse().map_err(|_| bad())?),
                "movetime" => {
                    player.movetime =
                        Some(Duration::from_millis(value.parse().map_err(|_| bad())?));
                }
                "seed" => player.seed = Some(value.parse().map_err(|_| bad())?),
                "clock" => {
                    let share = value.strip_prefix("fraction:").ok_or_else(bad)?;
                    let n = share.parse().ok().filter(|&n| n > 0).ok_or_else(bad)?;
                    player.clock = ClockUse::Fraction(n);
                }
                _ => return Err(bad()),
            }
        }
        let source = match server {
            None => Source::Local {
                weights,
                evaluation: evaluation.unwrap_or_default(),
            },
            Some(_) if weights.is_some() || evaluation.is_some() => {
                return Err(MatchError::ServerWithEvaluation(text.to_string()));
            }
            Some(address) => Source::Server(address),
        };
        Ok(PlayerSpec { player, source })
    }
}

/// `server=`'s value, if it is an address a client can connect to without TLS.
fn server_address(value: &str, spec: &str) -> Result<String, MatchError> {
    let usable = value.starts_with("http://")
        && tonic::transport::Endpoint::from_shared(value.to_string())
            .is_ok_and(|endpoint| endpoint.uri().host().is_some_and(|host| !host.is_empty()));
    if usable {
        Ok(value.to_string())
    } else {
        Err(MatchError::BadServer(spec.to_string()))
    }
}

/// The spec as it would be given: `level=7,depth=3,movetime=200,weights=w.txt`.
impl fmt::Display for PlayerSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let player = &self.player;
        write!(f, "level={}", player.level)?;
        if let Some(depth) = player.max_depth {
            write!(f, ",depth={depth}")?;
        }
        if let Some(nodes) = player.max_nodes {
            write!(f, ",nodes={nodes}")?;
        }
        if let Some(movetime) = player.movetime {
            write!(f, ",movetime={}", movetime.as_millis())?;
        }
        if let Some(seed) = player.seed {
            write!(f, ",seed={seed}")?;
        }
        if let ClockUse::Fraction(n) = player.clock {
            write!(f, ",clock=fraction:{n}")?;
        }
        match &self.source {
            Source::Local {
                weights,
                evaluation,
            } => {
                if let Some(weights) = weights {
                    write!(f, ",weights={}", weights.display())?;
                }
                match evaluation {
                    Evaluation::Default => {}
                    Evaluation::Classic => write!(f, ",eval=classic")?,
                    Evaluation::Network(path) => write!(f, ",net={}", path.display())?,
                }
            }
            Source::Server(address) => write!(f, ",server={address}")?,
        }
        Ok(())
    }
}

/// Plays the match, printing each game and the score.
///
/// # Errors
/// [`MatchError`] when a weights, network or openings file cannot be read, the openings do not
/// suit the variant, a server cannot be reached or the record file cannot be opened.
pub fn run(args: &MatchArgs) -> Result<MatchSummary, MatchError> {
    let variant = args.variant.variant();
    let time_control = args.clock.map(|TimeControlArg(control)| control);
    let movetime =
        (args.movetime > 0 && time_control.is_none()).then(|| Duration::from_millis(args.movetime));
    let [mut spec_a, mut spec_b] = [args.a.clone(), args.b.clone()];
    for spec in [&mut spec_a, &mut spec_b] {
        spec.player.movetime = spec.player.movetime.or(movetime);
    }
    let openings = openings(args, variant)?;
    let seats = [
        Seat::new(&spec_a, variant, args.hash_mb)?,
        Seat::new(&spec_b, variant, args.hash_mb)?,
    ];
    let games = args.games.div_ceil(2) * 2;
    if args.from_game == 0 || args.from_game > games.max(1) {
        return Err(MatchError::FromGame {
            from: args.from_game,
            games,
        });
    }
    let first = args.from_game - 1;
    let threads = args.threads.clamp(1, (games - first).max(1) as usize);
    // Each thread its own pair of players: a server player's connection is its thread's.
    let mut pairs = Vec::with_capacity(threads);
    for _ in 0..threads {
        pairs.push([
            seats[0].contestant(&spec_a.player, variant)?,
            seats[1].contestant(&spec_b.player, variant)?,
        ]);
    }
    println!(
        "match {spec_a} (A) vs {spec_b} (B), {variant}, {}, {} openings{}",
        if first == 0 {
            format!("{games} games")
        } else {
            format!("games {} to {games}", first + 1)
        },
        match args.openings {
            OpeningKind::Random => "random",
            OpeningKind::Real => "real",
        },
        time_control.map_or(String::new(), |control| format!(
            ", on a clock of {} ms + {} ms",
            control.main.as_millis(),
            control.increment.as_millis()
        ))
    );
    let mut record = args.record.as_deref().map(append_to).transpose()?;
    let mut move_times = args.move_times.as_deref().map(append_to).transpose()?;
    let config = MatchConfig {
        openings,
        games: first..games,
        max_plies: args.max_plies,
        time_control,
    };
    let summary = play_match(&config, pairs, |game: FinishedGame<'_>| {
        if let Some(file) = &mut record
            && let Err(error) = file.write_all(game.played.record().to_string().as_bytes())
        {
            eprintln!("cannot record game {}: {error}", game.index + 1);
        }
        if let Some(file) = &mut move_times
            && let Err(error) = file.write_all(move_time_lines(&game).as_bytes())
        {
            eprintln!(
                "cannot record game {}'s move times: {error}",
                game.index + 1
            );
        }
        print_game(&game, args.quiet);
    });
    print_summary(&summary, time_control.is_some());
    Ok(summary)
}

/// A file opened to append to.
fn append_to(path: &std::path::Path) -> Result<std::fs::File, MatchError> {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|error| MatchError::Record {
            path: path.display().to_string(),
            reason: error.to_string(),
        })
}

/// A game's `--move-times` lines: `game,ply,side,player,used_ms,left_ms`, from 1 the game and
/// the ply (the move number of the whole game, the opening's moves counted).
fn move_time_lines(game: &FinishedGame<'_>) -> String {
    let played = &game.played;
    let mut lines = String::new();
    // The side to move at the start moves at the even plies.
    let first = played.game.start().side_to_move();
    for (index, time) in played.move_times.iter().enumerate() {
        let ply = played.start_ply + index;
        let side = if ply.is_multiple_of(2) {
            first
        } else {
            first.opponent()
        };
        let a_moves = (side == tafl::rules::Side::Attackers) == a_attacks(game.index);
        lines.push_str(&format!(
            "{},{},{side},{},{:.1},{}\n",
            game.index + 1,
            ply + 1,
            if a_moves { "A" } else { "B" },
            time.used.as_secs_f64() * 1000.0,
            time.left
                .map_or(String::new(), |left| left.as_millis().to_string())
        ));
    }
    lines
}

/// A game's line: how it ended and A's score so far.
fn print_game(game: &FinishedGame<'_>, quiet: bool) {
    let (index, played, summary) = (game.index, &game.played, game.summary);
    let line = format!(
        "game {:>3}: A {} opening {} -> {} {} after {} plies; A {:.1}/{}",
        index + 1,
        if a_attacks(index) {
            "attacks "
        } else {
            "defends "
        },
        index / 2,
        game.result,
        played.ending.reason(),
        played.game.ply() - played.start_ply,
        summary.points(),
        summary.games
    );
    // A player's failure is news even when only the score is wanted.
    if matches!(played.ending, Ending::Board(_)) {
        if !quiet {
            println!("{line}");
        }
    } else {
        eprintln!("{line}");
    }
    let _ = std::io::stdout().flush();
}

/// The openings `--openings` asks for.
fn openings(args: &MatchArgs, variant: Variant) -> Result<Openings, MatchError> {
    match args.openings {
        OpeningKind::Random => Ok(Openings::random(variant)),
        OpeningKind::Real => {
            let records = match &args.openings_file {
                None => real_games(),
                Some(path) => {
                    let bad = |reason: String| MatchError::OpeningsFile {
                        path: path.display().to_string(),
                        reason,
                    };
                    let text =
                        std::fs::read_to_string(path).map_err(|error| bad(error.to_string()))?;
                    GameRecord::parse_all(&text).map_err(|error| bad(error.to_string()))?
                }
            };
            Ok(Openings::real(variant, &records, args.opening_plies)?)
        }
    }
}

/// What plays for a spec: one engine that every thread shares, or a server each thread connects
/// to.
enum Seat {
    Engine(Engine),
    Server(String),
}

impl Seat {
    fn new(spec: &PlayerSpec, variant: Variant, hash_mb: usize) -> Result<Seat, MatchError> {
        match &spec.source {
            Source::Local {
                weights,
                evaluation,
            } => Ok(Seat::Engine(engine_for(
                weights.as_ref(),
                evaluation,
                variant,
                hash_mb,
            )?)),
            Source::Server(address) => Ok(Seat::Server(address.clone())),
        }
    }

    /// A player for one thread, searching as `player` says.
    fn contestant<'s>(
        &'s self,
        player: &'s Player,
        variant: Variant,
    ) -> Result<Box<dyn Contestant + Send + 's>, MatchError> {
        Ok(match self {
            Seat::Engine(engine) => Box::new(EnginePlayer { player, engine }),
            Seat::Server(address) => {
                Box::new(RemotePlayer::connect(address, player.clone(), variant)?)
            }
        })
    }
}

/// An engine with the player's evaluation (a network file must be of the match's variant).
fn engine_for(
    weights: Option<&PathBuf>,
    evaluation: &Evaluation,
    variant: Variant,
    hash_mb: usize,
) -> Result<Engine, MatchError> {
    let weights = match weights {
        None => Weights::default(),
        Some(path) => {
            let bad = |reason: String| MatchError::BadWeights {
                path: path.display().to_string(),
                reason,
            };
            let text = std::fs::read_to_string(path).map_err(|error| bad(error.to_string()))?;
            text.parse()
                .map_err(|error: WeightsError| bad(error.to_string()))?
        }
    };
    let networks = match evaluation {
        Evaluation::Default => Networks::built_in(),
        Evaluation::Classic => Networks::default(),
        Evaluation::Network(path) => {
            let network =
                Network::read_file_for(path, variant).map_err(|error: NetworkFileError| {
                    MatchError::BadNetwork {
                        path: path.display().to_string(),
                        reason: error.kind.to_string(),
                    }
                })?;
            Networks::from_iter([Arc::new(network)])
        }
    };
    Ok(Engine::new(EngineConfig {
        hash_mb,
        shared_hash_mb: hash_mb,
        weights,
        networks,
    }))
}

/// The score, and what players lost otherwise than on the board (on a clock, its losses on time
/// always: the clock's safety is a figure).
fn print_summary(summary: &MatchSummary, on_a_clock: bool) {
    if summary.games == 0 {
        println!("no game was scored");
    } else {
        print_score(summary);
    }
    if summary.forfeits_by_a + summary.forfeits_by_b > 0 {
        println!(
            "forfeits (an illegal or missing move, scored as a loss): A {}, B {}",
            summary.forfeits_by_a, summary.forfeits_by_b
        );
    }
    if on_a_clock {
        println!(
            "forfeits on time (a clock ran out, scored as a loss): A {}, B {}",
            summary.time_losses_by_a, summary.time_losses_by_b
        );
    }
    if summary.abandoned > 0 {
        println!(
            "abandoned (a player gave no answer; not scored): {}",
            summary.abandoned
        );
    }
}

/// A's points, their interval and the Elo difference they mean.
fn print_score(summary: &MatchSummary) {
    let score = summary.score();
    let margin = summary.margin();
    println!(
        "A: +{} ={} -{} (wins as attackers {}, as defenders {}): {:.1}/{} = {:.1}% ± {:.1}% (95%)",
        summary.wins,
        summary.draws,
        summary.losses,
        summary.wins_as_attackers,
        summary.wins_as_defenders,
        summary.points(),
        summary.games,
        100.0 * score,
        100.0 * margin
    );
    println!(
        "Elo A - B: {:+.0} (95%: {:+.0} .. {:+.0})",
        elo(score),
        elo((score - margin).max(0.0)),
        elo((score + margin).min(1.0))
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use tafl::rules::Rules;

    fn spec(text: &str) -> PlayerSpec {
        text.parse().expect("a player")
    }

    fn local(weights: Option<&str>, evaluation: Evaluation) -> Source {
        Source::Local {
            weights: weights.map(PathBuf::from),
            evaluation,
        }
    }

    #[test]
    fn players_read_every_key_and_refuse_the_rest() {
        let spec = spec("level=7, depth=3,nodes=500,movetime=20,seed=0,weights=w.txt");
        assert_eq!(
            self::spec("level=3,net=n.nnue").source,
            local(None, Evaluation::Network(PathBuf::from("n.nnue")))
        );
        assert_eq!(
            self::spec("level=3,eval=classic").source,
            local(None, Evaluation::Classic)
        );
        assert_eq!(spec.player.level, Level::new(7).expect("level"));
        assert_eq!(spec.player.max_depth, Some(3));
        assert_eq!(spec.player.max_nodes, Some(500));
        assert_eq!(spec.player.movetime, Some(Duration::from_millis(20)));
        assert_eq!(spec.player.seed, Some(0));
        assert_eq!(spec.source, local(Some("w.txt"), Evaluation::Default));
        assert_eq!(
            spec.to_string(),
            "level=7,depth=3,nodes=500,movetime=20,seed=0,weights=w.txt"
        );
        for bad in [
            "level=11",
            "level",
            "speed=3",
            "depth=x",
            "level=4294967297",
            "depth=-1",
            "seed=fixed",
            "eval=fancy",
        ] {
            assert!(bad.parse::<PlayerSpec>().is_err(), "{bad}");
        }
    }

    #[test]
    fn a_clock_is_main_and_increment_and_a_player_may_take_a_fixed_share() {
        let TimeControlArg(control) = "60000+1000".parse().expect("a clock");
        assert_eq!(
            control,
            TimeControl {
                main: Duration::from_secs(60),
                increment: Duration::from_secs(1),
            }
        );
        assert!("0+500".parse::<TimeControlArg>().is_ok());
        for bad in ["60000", "60000+", "+1000", "1m+1s", "0+0", "-1+0"] {
            assert!(bad.parse::<TimeControlArg>().is_err(), "{bad}");
        }
        let old = spec("level=10,clock=fraction:30,server=http://127.0.0.1:1");
        assert_eq!(old.player.clock, ClockUse::Fraction(30));
        assert_eq!(
            old.to_string(),
            "level=10,clock=fraction:30,server=http://127.0.0.1:1"
        );
        assert_eq!(spec("level=3").player.clock, ClockUse::Native);
        for bad in ["clock=fraction:0", "clock=30", "clock=fraction:x"] {
            assert!(bad.parse::<PlayerSpec>().is_err(), "{bad}");
        }
    }

    #[test]
    fn a_server_player_takes_the_search_keys_but_no_evaluation() {
        let spec = spec("server=http://127.0.0.1:50061, level=9,nodes=200,movetime=300");
        assert_eq!(
            spec.source,
            Source::Server("http://127.0.0.1:50061".to_string())
        );
        assert_eq!(spec.player.level, Level::new(9).expect("level"));
        assert_eq!(spec.player.max_nodes, Some(200));
        assert_eq!(
            spec.to_string(),
            "level=9,nodes=200,movetime=300,server=http://127.0.0.1:50061"
        );
        for mixed in [
            "server=http://localhost:1,weights=w.txt",
            "net=n.nnue,server=http://localhost:1",
            "level=3,server=http://localhost:1,eval=classic",
        ] {
            let error = mixed.parse::<PlayerSpec>().expect_err(mixed);
            assert_eq!(error, MatchError::ServerWithEvaluation(mixed.to_string()));
            assert!(error.to_string().contains("plays with its own"), "{error}");
        }
        for address in [
            "server=",
            "server=127.0.0.1:1",
            "server=https://host:1",
            "server=http://",
        ] {
            assert_eq!(
                address.parse::<PlayerSpec>(),
                Err(MatchError::BadServer(address.to_string())),
                "{address}"
            );
        }
    }

    fn args(a: &str, b: &str, games: u32, rules: Rules, threads: usize) -> MatchArgs {
        MatchArgs {
            a: spec(a),
            b: spec(b),
            games,
            from_game: 1,
            movetime: 0,
            variant: VariantArgs { rules, size: None },
            openings: OpeningKind::Random,
            openings_file: None,
            opening_plies: None,
            max_plies: 40,
            hash_mb: 1,
            threads,
            quiet: true,
            record: None,
            clock: None,
            move_times: None,
        }
    }

    #[test]
    fn a_match_on_two_threads_plays_every_game() {
        let summary = run(&args(
            "level=10,depth=1",
            "level=10,depth=2",
            3,
            Rules::Tablut,
            2,
        ))
        .expect("a match");
        assert_eq!(summary.games, 4);
        assert_eq!(summary.wins + summary.draws + summary.losses, 4);
    }

    #[test]
    fn a_resumed_match_plays_only_the_games_left() {
        let mut resumed = args("level=10,depth=1", "level=10,depth=1", 6, Rules::Tablut, 2);
        resumed.from_game = 5;
        let summary = run(&resumed).expect("games 5 and 6");
        assert_eq!(summary.games, 2);
        for from_game in [0, 7] {
            resumed.from_game = from_game;
            let error = run(&resumed).expect_err("no such game");
            assert_eq!(
                error,
                MatchError::FromGame {
                    from: from_game,
                    games: 6
                }
            );
            assert_eq!(
                error.to_string(),
                format!("--from-game {from_game}: the match has games 1 to 6")
            );
        }
    }

    #[test]
    fn an_unreadable_weights_file_is_named() {
        let args = args(
            "level=10,weights=/nonexistent/weights.txt",
            "level=1",
            2,
            Rules::Copenhagen,
            1,
        );
        let error = run(&args).expect_err("no such file");
        assert!(
            error.to_string().contains("/nonexistent/weights.txt"),
            "{error}"
        );
    }

    #[test]
    fn real_openings_need_copenhagen_and_a_readable_file() {
        let mut tablut = args("level=1", "level=1", 2, Rules::Tablut, 1);
        tablut.openings = OpeningKind::Real;
        let error = run(&tablut).expect_err("tablut has no real games here");
        assert!(matches!(
            error,
            MatchError::Openings(OpeningsError::Variant(_))
        ));
        let mut missing = args("level=1", "level=1", 2, Rules::Copenhagen, 1);
        missing.openings = OpeningKind::Real;
        missing.openings_file = Some(PathBuf::from("/nonexistent/games.csv"));
        let error = run(&missing).expect_err("no such file");
        assert!(
            error
                .to_string()
                .starts_with("openings file /nonexistent/games.csv: "),
            "{error}"
        );
    }
}
