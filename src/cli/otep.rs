//! `tafl otep`: the engine as OpenTafl's AI, over the OpenTafl Engine
//! Protocol (OTEP) on stdin and stdout (docs/otep.md).
//!
//! OpenTafl is the arbiter: it sends the rules, the opponent's moves with the
//! board after them, and asks for a move with `play`. The engine keeps its
//! own game to search from, and checks it against every board OpenTafl
//! sends: if the two ever disagree, the rules differ somewhere, and the
//! engine says so with a critical error instead of playing on a board that
//! is not the real one.

use std::io::{self, BufRead, Write};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use tafl::rules::{Game, Position, Side, Status};
use tafl::search::{Engine, EngineConfig, Level, Limits};

use super::otn::{self, GameRules};

/// How long after `play` the engine waits for the `clock` that OpenTafl
/// sends right behind it, when none came since the last move (the protocol
/// text says after `play`, some OpenTafl versions send it just before, and
/// an untimed game may send none).
const CLOCK_GRACE: Duration = Duration::from_millis(200);

/// Said when a move is asked for, or announced, outside a game.
const NO_GAME: &str = "no game: no rules tafl plays came, or an error ended the game";

/// The least a move is given to think, whatever the clock says.
const MIN_THINKING: Duration = Duration::from_millis(20);

/// Kept off the clock's remaining time.
const CLOCK_MARGIN: Duration = Duration::from_millis(100);

/// Moves with more captures than this go out without their capture list:
/// OpenTafl's move reader takes at most four (a shieldwall can take more).
const MAX_LISTED_CAPTURES: u32 = 4;

/// `tafl otep`'s flags.
#[derive(Clone, Debug, clap::Args)]
pub struct OtepArgs {
    /// Strength, 1 (beginner) to 10 (strongest).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=10))]
    pub level: u32,
    /// Thinking time per move when the game has no clock (milliseconds).
    #[arg(long, default_value_t = 2000)]
    pub movetime_ms: u64,
    /// Transposition table size in MiB.
    #[arg(long, default_value_t = 64)]
    pub hash_mb: usize,
    /// Seed of the weaker levels' randomness.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Print the OTN rules record of every ruleset and board tafl plays (to
    /// add them to OpenTafl) and exit.
    #[arg(long)]
    pub print_rules: bool,
}

/// Speaks OTEP on stdin and stdout until OpenTafl says goodbye.
///
/// # Errors
/// Only when stdout cannot be written.
pub fn run(args: &OtepArgs) -> io::Result<()> {
    if args.print_rules {
        let mut stdout = io::stdout();
        for variant in otn::variants() {
            let record = otn::rules_record(variant, &Position::start(variant));
            writeln!(stdout, "{record}")?;
        }
        return Ok(());
    }
    Session::new(args).serve(io::BufReader::new(io::stdin()), io::stdout())
}

/// The time left on OpenTafl's clock, as its last `clock` said.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Clock {
    /// Main time left, or what is left of the current overtime period.
    left: [Duration; 2],
    /// Whether `left` is an overtime period's.
    in_overtime: [bool; 2],
    overtime: Duration,
    overtimes: [u32; 2],
}

impl Clock {
    /// `<attacker-ms>[*] <defender-ms>[*] <overtime-s> <attacker-overtimes> <defender-overtimes>`;
    /// `None` for an untimed game (negative times) or unreadable text.
    fn parse(args: &str) -> Option<Clock> {
        let words: Vec<&str> = args.split_whitespace().collect();
        let time = |word: &str| {
            let millis = word.trim_end_matches('*');
            millis
                .parse::<u64>()
                .ok()
                .map(|ms| (Duration::from_millis(ms), millis.len() < word.len()))
        };
        let (attackers, attackers_overtime) = time(words.first()?)?;
        let (defenders, defenders_overtime) = time(words.get(1)?)?;
        let count = |index: usize| words.get(index).and_then(|w| w.parse().ok()).unwrap_or(0);
        Some(Clock {
            left: [attackers, defenders],
            in_overtime: [attackers_overtime, defenders_overtime],
            overtime: Duration::from_secs(count(2).into()),
            overtimes: [count(3), count(4)],
        })
    }

    /// The soft budget for one move of `side`, and the latest it may end.
    fn budget(&self, side: Side) -> (Duration, Duration) {
        let index = side_index(side);
        let left = self.left[index];
        let overtime = if self.overtimes[index] > 0 {
            self.overtime
        } else {
            Duration::ZERO
        };
        // In an overtime period: half of it. In main time: a fortieth of
        // it, plus most of an overtime period that would refill anyway.
        let soft = if self.in_overtime[index] {
            left / 2
        } else {
            left / 40 + overtime * 3 / 4
        }
        .max(MIN_THINKING);
        // Never past the clock (less a margin for the pipe and OpenTafl's
        // own bookkeeping), nor much past the budget.
        let hard = (left + overtime)
            .saturating_sub(CLOCK_MARGIN)
            .clamp(soft, soft * 2);
        (soft, hard)
    }
}

fn side_index(side: Side) -> usize {
    match side {
        Side::Attackers => 0,
        Side::Defenders => 1,
    }
}

fn side_name(side: Side) -> &'static str {
    match side {
        Side::Attackers => "attackers",
        Side::Defenders => "defenders",
    }
}

/// One engine process's conversation with OpenTafl: the game as the engine
/// knows it, and what OpenTafl last said about the clock.
pub struct Session {
    engine: Engine,
    level: Level,
    movetime: Duration,
    seed: u64,
    game: Option<Game>,
    /// The game after the engine's last move, until OpenTafl accepts it.
    proposed: Option<Game>,
    clock: Option<Clock>,
    /// Whether a `clock` came since the engine's last move.
    clock_is_fresh: bool,
}

/// The engine's answer to one command.
#[derive(Debug, PartialEq, Eq)]
enum Reply {
    Nothing,
    Say(String),
    /// A critical error: OpenTafl shows it and ends the game.
    Fail(String),
    Quit,
}

impl Session {
    #[must_use]
    pub fn new(args: &OtepArgs) -> Session {
        Session {
            engine: Engine::new(EngineConfig {
                hash_mb: args.hash_mb,
                ..EngineConfig::default()
            }),
            level: Level::new(args.level).unwrap_or(Level::STRONGEST),
            movetime: Duration::from_millis(args.movetime_ms),
            seed: args.seed,
            game: None,
            proposed: None,
            clock: None,
            clock_is_fresh: false,
        }
    }

    /// Greets OpenTafl, then answers its commands until `goodbye` or the
    /// end of the input.
    ///
    /// # Errors
    /// Only when `output` cannot be written.
    pub fn serve<R, W>(mut self, input: R, mut output: W) -> io::Result<()>
    where
        R: BufRead + Send + 'static,
        W: Write,
    {
        // A thread reads, so that `play` can wait a moment for its clock.
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in input.lines().map_while(Result::ok) {
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        send(&mut output, "hello")?;
        let mut held = None;
        while let Some(line) = held.take().or_else(|| lines.recv().ok()) {
            let line = line.trim();
            let (command, args) = line.split_once(' ').unwrap_or((line, ""));
            let reply = if command == "play" {
                if !self.clock_is_fresh {
                    held = self.read_clock(&lines);
                }
                self.clock_is_fresh = false;
                self.play(args)
            } else {
                self.handle(command, args)
            };
            match reply {
                Reply::Nothing => {}
                Reply::Say(text) => send(&mut output, &text)?,
                Reply::Fail(why) => {
                    // OpenTafl ends the game on a critical error; so does
                    // the engine, rather than play on a board it doubts.
                    self.game = None;
                    self.proposed = None;
                    send(&mut output, &format!("error -1 {why}"))?;
                }
                Reply::Quit => break,
            }
        }
        Ok(())
    }

    /// Waits briefly for the `clock` that follows `play`; any other line
    /// that comes instead is handed back, to be handled after the move.
    fn read_clock(&mut self, lines: &Receiver<String>) -> Option<String> {
        match lines.recv_timeout(CLOCK_GRACE) {
            Ok(line) => match line.trim().strip_prefix("clock ") {
                Some(args) => {
                    self.handle("clock", args);
                    None
                }
                None => Some(line),
            },
            Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => None,
        }
    }

    /// Every command but `play`.
    fn handle(&mut self, command: &str, args: &str) -> Reply {
        match command {
            "rules" => match GameRules::parse(args) {
                Ok(rules) => {
                    self.game = Some(Game::from_position(rules.start));
                    self.proposed = None;
                    Reply::Say(format!("status tafl plays {}", rules.variant))
                }
                Err(error) => Reply::Fail(error.to_string()),
            },
            "clock" => {
                self.clock = Clock::parse(args);
                self.clock_is_fresh = true;
                Reply::Nothing
            }
            "move" => self.accepted(args),
            "error" => {
                // OpenTafl refused the engine's move; it sends the board
                // again (opponent-move) and asks anew (play).
                self.proposed = None;
                Reply::Nothing
            }
            "opponent-move" => self.opponent_moved(args),
            "finish" => self.finished(args),
            "goodbye" => Reply::Quit,
            "analyze" => Reply::Say("error 0 tafl otep plays; it does not analyse".to_owned()),
            // hello, start, side, position: nothing to do; OTEP commands
            // are not acknowledged, and unknown ones are ignored.
            _ => Reply::Nothing,
        }
    }

    /// `play <side>`: searches the game and proposes the best move.
    fn play(&mut self, side: &str) -> Reply {
        self.settle_proposal();
        let Some(game) = &self.game else {
            return Reply::Fail(NO_GAME.to_owned());
        };
        let to_move = game.position().side_to_move();
        if side != side_name(to_move) {
            return Reply::Fail(format!(
                "asked to play the {side}, but by tafl's board the {} are to move",
                side_name(to_move)
            ));
        }
        let started = Instant::now();
        let (soft, hard) = self
            .clock
            .map_or((self.movetime, self.movetime * 2), |clock| {
                clock.budget(to_move)
            });
        let limits = Limits {
            max_time: Some(soft),
            deadline: Some(started + hard),
            ..Limits::default()
        };
        let Some(report) = self.engine.search(game, &limits, self.level, self.seed) else {
            return Reply::Fail(match game.status() {
                Status::Ongoing => "no move found in time".to_owned(),
                status => format!("by tafl's rules the game is over: {status}"),
            });
        };
        let mut after = game.clone();
        let played = match after.play_move(report.best_move) {
            Ok(played) => played,
            Err(error) => return Reply::Fail(error.to_string()),
        };
        self.proposed = Some(after);
        let text = if played.captures.len() > MAX_LISTED_CAPTURES {
            report.best_move.to_string()
        } else {
            played.to_string()
        };
        Reply::Say(format!("move {text}"))
    }

    /// `move <position-record>`: OpenTafl accepted the engine's move.
    fn accepted(&mut self, record: &str) -> Reply {
        self.settle_proposal();
        self.game
            .as_ref()
            .map_or(Reply::Nothing, |game| check_board(record, game))
    }

    /// `opponent-move <move-list> <position-record>`.
    fn opponent_moved(&mut self, args: &str) -> Reply {
        let Some((moves, record)) = args.split_once(' ') else {
            return Reply::Fail(format!(
                "opponent-move {args:?}: expected moves and a board"
            ));
        };
        self.settle_proposal();
        let Some(game) = &mut self.game else {
            return Reply::Fail(NO_GAME.to_owned());
        };
        // After a refused move OpenTafl repeats the last opponent move, whose
        // board the engine already has.
        if otn::same_board(record, game.position()) == Ok(true) {
            return Reply::Nothing;
        }
        for mv in moves.split('|') {
            let played = otn::move_text(mv).and_then(|text| {
                game.play(&text.to_string())
                    .map_err(|error| format!("the opponent's move {mv}: {error}"))
            });
            if let Err(why) = played {
                return Reply::Fail(why);
            }
        }
        check_board(record, game)
    }

    /// `finish <code>`: the game is over; says so if tafl's rules disagree.
    fn finished(&mut self, code: &str) -> Reply {
        self.settle_proposal();
        let game = self.game.take().map(|game| game.status());
        let expected = match code.trim() {
            "1" => "a draw",
            "2" => "an attackers' win",
            "3" => "a defenders' win",
            _ => return Reply::Nothing,
        };
        let agrees = match game {
            Some(Status::Drawn { .. }) => code.trim() == "1",
            Some(Status::Won { winner, .. }) => {
                code.trim() == if winner == Side::Attackers { "2" } else { "3" }
            }
            Some(Status::Ongoing) | None => false,
        };
        if agrees {
            Reply::Nothing
        } else {
            Reply::Say(format!(
                "status OpenTafl judged {expected}; by tafl's rules the game stands: {}",
                game.map_or_else(|| "unknown".to_owned(), |status| status.to_string())
            ))
        }
    }

    /// Puts the engine's proposed move into the game: OpenTafl's next word
    /// after it was not a refusal, so it was played.
    fn settle_proposal(&mut self) {
        if let Some(after) = self.proposed.take() {
            self.game = Some(after);
        }
    }
}

/// Whether OpenTafl's board is the engine's: a critical error if not.
fn check_board(record: &str, game: &Game) -> Reply {
    match otn::same_board(record, game.position()) {
        Ok(true) => Reply::Nothing,
        Ok(false) => Reply::Fail(format!(
            "OpenTafl's board {record} is not tafl's {} after the same moves: the rules differ",
            otn::position_record(game.position())
        )),
        Err(why) => Reply::Fail(format!("the board: {why}")),
    }
}

/// Writes one line, in the US-ASCII OpenTafl reads, and flushes it.
fn send(output: &mut impl Write, text: &str) -> io::Result<()> {
    let ascii: String = text
        .chars()
        .map(|c| match c {
            '×' => "x".to_owned(),
            '…' => "...".to_owned(),
            c if c.is_ascii() && !c.is_ascii_control() => c.to_string(),
            _ => "?".to_owned(),
        })
        .collect();
    writeln!(output, "{ascii}")?;
    output.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clock_in_main_time_and_in_overtime() {
        let clock = Clock::parse("60000 30000* 10 2 1").unwrap();
        assert_eq!(
            clock.left,
            [Duration::from_secs(60), Duration::from_secs(30)]
        );
        assert_eq!(clock.in_overtime, [false, true]);
        assert_eq!(clock.overtime, Duration::from_secs(10));
        assert_eq!(clock.overtimes, [2, 1]);
        // Main time: a fortieth of it plus three quarters of an overtime.
        assert_eq!(
            clock.budget(Side::Attackers),
            (Duration::from_millis(9_000), Duration::from_millis(18_000))
        );
        // In an overtime period: half of what is left of it.
        assert_eq!(
            clock.budget(Side::Defenders),
            (Duration::from_secs(15), Duration::from_secs(30))
        );
    }

    #[test]
    fn an_untimed_game_or_unreadable_clock_has_none() {
        assert_eq!(Clock::parse("-1 -1 0 0 0"), None);
        assert_eq!(Clock::parse(""), None);
    }

    #[test]
    fn a_nearly_spent_clock_still_leaves_time_to_move() {
        let clock = Clock::parse("50 60000 0 0 0").unwrap();
        let (soft, hard) = clock.budget(Side::Attackers);
        assert_eq!(soft, MIN_THINKING);
        assert!(hard >= soft);
    }
}
