//! `tafl otep`: the engine as OpenTafl's AI, over the OpenTafl Engine
//! Protocol (OTEP) on stdin and stdout (docs/otep.md).
//!
//! OpenTafl is the arbiter: it sends the rules, the opponent's moves with the
//! board after them, and asks for a move with `play`. The engine keeps its
//! own game to search from, and checks it against every board OpenTafl
//! sends: if the two ever disagree, the rules differ somewhere, and the
//! engine says so with a critical error instead of playing on a board that
//! is not the real one. Where the record OpenTafl sent ends a game
//! otherwise than tafl's ruleset (its repetition rule, its encirclement),
//! the engine judges the game, and chooses its moves, as OpenTafl does.

use std::io::{self, BufRead, Write};
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use tafl::rules::{
    BySide, EndReason, Game, GameError, LookAhead, Move, PlayedMove, Position, Side, Status,
};
use tafl::search::{Engine, EngineConfig, Level, Limits, MAX_LINES, Score};

use super::otn::{self, GameRules, HostRules};

/// How long after `play` the engine waits for the `clock` that OpenTafl
/// sends right behind it, when none came since the last move (the protocol
/// text says after `play`, OpenTafl 0.4.8 sends it just before, and an
/// untimed game sends none).
const CLOCK_GRACE: Duration = Duration::from_millis(200);

/// Said when a move is asked for, or announced, outside a game.
const NO_GAME: &str = "no game: no rules tafl plays came, or an error ended the game";

/// The least a move is given to think, whatever the clock says.
const MIN_THINKING: Duration = Duration::from_millis(20);

/// Kept off the clock's remaining time.
const CLOCK_MARGIN: Duration = Duration::from_millis(100);

/// The most time a `clock` may give a side (or an overtime period): more
/// is refused, so that no move is ever budgeted days.
const MAX_CLOCK: Duration = Duration::from_secs(24 * 60 * 60);

/// Moves with more captures than this go out without their capture list:
/// OpenTafl's move reader takes at most four (a shieldwall can take more).
const MAX_LISTED_CAPTURES: u32 = 4;

/// The longest line read from OpenTafl (its longest, a 13x13 `opponent-move`,
/// is a few hundred bytes); the rest of a longer one is skipped unread.
const MAX_LINE: usize = 64 * 1024;

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

/// One line from OpenTafl, or why it is none the engine can read.
#[derive(Debug)]
enum Input {
    Line(String),
    Unreadable(String),
}

/// Reads `input` line by line into `lines`, at most [`MAX_LINE`] bytes of
/// each, until its end or until nobody listens.
fn read_lines(mut input: impl BufRead, lines: &Sender<Input>) {
    let mut line = Vec::new();
    let mut too_long = false;
    loop {
        let (used, ended) = match input.fill_buf() {
            // The end: a last line without its newline is a line too.
            Ok([]) => (0, !line.is_empty() || too_long),
            Ok(buffer) => {
                let end = buffer.iter().position(|&byte| byte == b'\n');
                let chunk = &buffer[..end.unwrap_or(buffer.len())];
                too_long |= line.len() + chunk.len() > MAX_LINE;
                if !too_long {
                    line.extend_from_slice(chunk);
                }
                (chunk.len() + usize::from(end.is_some()), end.is_some())
            }
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => (0, false),
        };
        if used == 0 && !ended {
            return;
        }
        input.consume(used);
        if ended {
            let read = if std::mem::take(&mut too_long) {
                Input::Unreadable(format!("a line longer than {MAX_LINE} bytes"))
            } else {
                match String::from_utf8(std::mem::take(&mut line)) {
                    Ok(text) => Input::Line(text),
                    Err(error) => Input::Unreadable(format!(
                        "a line that is not UTF-8 (byte {})",
                        error.utf8_error().valid_up_to() + 1
                    )),
                }
            };
            line.clear();
            if lines.send(read).is_err() {
                return;
            }
        }
    }
}

/// The time left on OpenTafl's clock, as its last `clock` said.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Clock {
    /// Main time left, or what is left of the current overtime period.
    left: BySide<Duration>,
    /// Whether `left` is an overtime period's.
    in_overtime: BySide<bool>,
    overtime: Duration,
    overtimes: BySide<u32>,
}

impl Clock {
    /// `<attacker-ms>[*] <defender-ms>[*] <overtime-s> <attacker-overtimes> <defender-overtimes>`;
    /// `None` for an untimed game (a negative time).
    ///
    /// # Errors
    /// Text that is no clock, or a time above [`MAX_CLOCK`].
    fn parse(args: &str) -> Result<Option<Clock>, String> {
        let words: Vec<&str> = args.split_whitespace().collect();
        let [attackers, defenders, counts @ ..] = words.as_slice() else {
            return Err("expected the attackers' and the defenders' times".to_owned());
        };
        if attackers.starts_with('-') || defenders.starts_with('-') {
            return Ok(None);
        }
        let time = |word: &str| {
            let millis = word.trim_end_matches('*');
            let time = millis
                .parse()
                .map(Duration::from_millis)
                .map_err(|_| format!("{word:?} is not a time in milliseconds"))?;
            if time > MAX_CLOCK {
                return Err(format!("{millis} ms is more than a day"));
            }
            Ok((time, millis.len() < word.len()))
        };
        let count = |index: usize| {
            counts.get(index).map_or(Ok(0), |word| {
                word.parse::<u64>()
                    .map_err(|_| format!("{word:?} is not a count"))
            })
        };
        let (attackers, attackers_overtime) = time(attackers)?;
        let (defenders, defenders_overtime) = time(defenders)?;
        let overtime = Duration::from_secs(count(0)?);
        if overtime > MAX_CLOCK {
            return Err(format!(
                "{} s of overtime is more than a day",
                overtime.as_secs()
            ));
        }
        let overtimes = |index| count(index).map(|n| u32::try_from(n).unwrap_or(u32::MAX));
        Ok(Some(Clock {
            left: BySide {
                attackers,
                defenders,
            },
            in_overtime: BySide {
                attackers: attackers_overtime,
                defenders: defenders_overtime,
            },
            overtime,
            overtimes: BySide {
                attackers: overtimes(1)?,
                defenders: overtimes(2)?,
            },
        }))
    }

    /// The soft budget for one move of `side`, and the latest it may end.
    fn budget(&self, side: Side) -> (Duration, Duration) {
        let left = self.left[side];
        let overtime = if self.overtimes[side] > 0 {
            self.overtime
        } else {
            Duration::ZERO
        };
        // In an overtime period: half of it. In main time: a fortieth of
        // it, plus most of an overtime period that would refill anyway.
        let soft = if self.in_overtime[side] {
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

/// The game the engine plays, and how it stands by the rules OpenTafl sent
/// (which may end it where tafl's ruleset does not, or otherwise).
#[derive(Clone, Debug)]
struct HostedGame {
    game: Game,
    host: HostRules,
    status: Status,
}

impl HostedGame {
    fn new(rules: &GameRules) -> HostedGame {
        HostedGame {
            game: Game::from_position(rules.start),
            host: rules.host,
            status: rules.start.status(),
        }
    }

    fn play_text(&mut self, text: &str) -> Result<(), GameError> {
        let played = self.game.play(text)?;
        self.status = self.host.judge(self.game.position(), &played);
        Ok(())
    }

    fn play_move(&mut self, mv: Move) -> Result<PlayedMove, GameError> {
        let played = self.game.play_move(mv)?;
        self.status = self.host.judge(self.game.position(), &played);
        Ok(played)
    }

    /// The legal moves whose worth OpenTafl's rules fix where tafl's do
    /// not, from the mover's view as a search scores it: those that end the
    /// game by OpenTafl's rules and not as tafl's would (a third
    /// repetition, an encirclement), and under OpenTafl's encirclement the
    /// defenders' moves that let the attackers encircle them at once.
    fn fixed_worths(&self) -> Vec<(Move, Score)> {
        let mover = self.game.position().side_to_move();
        let mut fixed = Vec::new();
        for &mv in &self.game.position().legal_moves() {
            let mut line = self.game.look_ahead();
            let Ok(played) = line.play(mv) else { continue };
            let status = self.host.judge(line.position(), &played);
            if status != played.status {
                fixed.push((mv, worth(status, mover, 1)));
            } else if self.host.encirclement
                && mover == Side::Defenders
                && !status.is_over()
                && self.encircling_reply(&line)
            {
                fixed.push((mv, worth(ENCIRCLED, mover, 2)));
            }
        }
        fixed
    }

    /// Whether the attackers, to move on `line`, can encircle the
    /// defenders by OpenTafl's rules.
    fn encircling_reply(&self, line: &LookAhead<'_>) -> bool {
        line.position().legal_moves().iter().any(|&reply| {
            let mut next = line.clone();
            next.play(reply).is_ok_and(|played| {
                played.status == Status::Ongoing
                    && self.host.judge(next.position(), &played) == ENCIRCLED
            })
        })
    }
}

/// The attackers' win by encircling every defender.
const ENCIRCLED: Status = Status::Won {
    winner: Side::Attackers,
    reason: EndReason::Encircled,
};

/// A game's end as a search scores it for `side`, `plies` ahead.
fn worth(status: Status, side: Side, plies: i32) -> Score {
    let won = Score::WON.as_i32() - plies;
    Score::new(match status.winner() {
        Some(winner) if winner == side => won,
        Some(_) => -won,
        None => 0,
    })
}

/// One engine process's conversation with OpenTafl: the game as the engine
/// knows it, and what OpenTafl last said about the clock.
pub struct Session {
    engine: Engine,
    level: Level,
    movetime: Duration,
    seed: u64,
    game: Option<HostedGame>,
    /// The game after the engine's last move, until OpenTafl accepts it.
    proposed: Option<HostedGame>,
    clock: Option<Clock>,
    /// Whether a `clock` came since the engine's last move.
    clock_is_fresh: bool,
    /// What the engine has to say before OpenTafl has connected the game to
    /// its screen (its first `play`, `clock` or `opponent-move`): OpenTafl
    /// 0.4.8 shows a `status` or `error` on a screen it has not yet, and
    /// dies of it. `None` once connected.
    held: Option<Vec<String>>,
    /// The last `rules` were refused: the refusal answers the `play` that follows.
    refused: bool,
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
            movetime: Duration::from_millis(args.movetime_ms).min(MAX_CLOCK),
            seed: args.seed,
            game: None,
            proposed: None,
            clock: None,
            clock_is_fresh: false,
            held: Some(Vec::new()),
            refused: false,
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
        std::thread::spawn(move || read_lines(input, &sender));
        send(&mut output, "hello")?;
        let mut next = None;
        while let Some(input) = next.take().or_else(|| lines.recv().ok()) {
            let line = match input {
                Input::Line(line) => line,
                Input::Unreadable(what) => {
                    self.say(&mut output, format!("error 0 ignored {what}"))?;
                    continue;
                }
            };
            let line = line.trim();
            let (command, args) = line.split_once(' ').unwrap_or((line, ""));
            if matches!(command, "play" | "clock" | "opponent-move") {
                self.connect(&mut output)?;
            }
            let reply = if command == "play" {
                if !self.clock_is_fresh {
                    next = self.read_clock(&lines, &mut output)?;
                }
                self.clock_is_fresh = false;
                self.play(args)
            } else {
                self.handle(command, args)
            };
            match reply {
                Reply::Nothing => {}
                Reply::Say(text) => self.say(&mut output, text)?,
                Reply::Fail(why) => {
                    // OpenTafl ends the game on a critical error; so does
                    // the engine, rather than play on a board it doubts.
                    self.game = None;
                    self.proposed = None;
                    self.say(&mut output, format!("error -1 {why}"))?;
                }
                Reply::Quit => break,
            }
        }
        Ok(())
    }

    /// Sends a line now, or holds it until OpenTafl is ready for it.
    fn say(&mut self, output: &mut impl Write, line: String) -> io::Result<()> {
        match &mut self.held {
            Some(held) => {
                held.push(line);
                Ok(())
            }
            None => send(output, &line),
        }
    }

    /// OpenTafl has connected the game to its screen: what was held goes out.
    fn connect(&mut self, output: &mut impl Write) -> io::Result<()> {
        for line in self.held.take().unwrap_or_default() {
            send(output, &line)?;
        }
        Ok(())
    }

    /// Waits briefly for the `clock` that follows `play`; any other line
    /// that comes instead is handed back, to be handled after the move.
    fn read_clock(
        &mut self,
        lines: &Receiver<Input>,
        output: &mut impl Write,
    ) -> io::Result<Option<Input>> {
        match lines.recv_timeout(CLOCK_GRACE) {
            Ok(Input::Line(line)) => match line.trim().strip_prefix("clock ") {
                Some(args) => {
                    if let Reply::Say(refusal) = self.handle("clock", args) {
                        self.say(output, refusal)?;
                    }
                    Ok(None)
                }
                None => Ok(Some(Input::Line(line))),
            },
            Ok(unreadable) => Ok(Some(unreadable)),
            Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => Ok(None),
        }
    }

    /// Every command but `play`.
    fn handle(&mut self, command: &str, args: &str) -> Reply {
        match command {
            "rules" => {
                // A game superseded before it began: what was held for it is moot.
                if let Some(held) = &mut self.held {
                    held.clear();
                }
                self.proposed = None;
                match GameRules::parse(args) {
                    Ok(rules) => {
                        self.game = Some(HostedGame::new(&rules));
                        self.refused = false;
                        Reply::Say(format!("status tafl plays {}", rules.variant))
                    }
                    Err(error) => {
                        self.refused = true;
                        Reply::Fail(error.to_string())
                    }
                }
            }
            "clock" => match Clock::parse(args) {
                Ok(clock) => {
                    self.clock = clock;
                    self.clock_is_fresh = true;
                    Reply::Nothing
                }
                // Ignored: the last good clock stands.
                Err(why) => Reply::Say(format!("error 0 ignored the clock: {why}")),
            },
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
        if self.game.is_none() && std::mem::take(&mut self.refused) {
            // The refusal of the rules is the answer.
            return Reply::Nothing;
        }
        let Some(hosted) = &self.game else {
            return Reply::Fail(NO_GAME.to_owned());
        };
        if hosted.status.is_over() {
            return Reply::Fail(format!(
                "by the rules OpenTafl sent, the game is over: {}",
                hosted.status
            ));
        }
        let to_move = hosted.game.position().side_to_move();
        if side != to_move.to_string() {
            return Reply::Fail(format!(
                "asked to play the {side}, but by tafl's board the {to_move} are to move"
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
        let best = match self.choose(hosted, &limits) {
            Ok(best) => best,
            Err(why) => return Reply::Fail(why),
        };
        let mut after = hosted.clone();
        let played = match after.play_move(best) {
            Ok(played) => played,
            Err(error) => return Reply::Fail(error.to_string()),
        };
        self.proposed = Some(after);
        let text = if played.captures.len() > MAX_LISTED_CAPTURES {
            best.to_string()
        } else {
            played.to_string()
        };
        Reply::Say(format!("move {text}"))
    }

    /// The move to play: the search's, unless the rules OpenTafl sent fix
    /// the worth of some moves otherwise than tafl's (a win to take, a
    /// third repetition that loses or draws).
    fn choose(&self, hosted: &HostedGame, limits: &Limits) -> Result<Move, String> {
        let fixed = hosted.fixed_worths();
        let best_fixed = fixed.iter().copied().max_by_key(|&(_, worth)| worth);
        if let Some((win, worth)) = best_fixed
            && worth.win_in().is_some()
        {
            return Ok(win);
        }
        let game = &hosted.game;
        let Some(report) = self.engine.search(game, limits, self.level, self.seed) else {
            return Err(match game.status() {
                Status::Ongoing => "no move found in time".to_owned(),
                status => format!("by tafl's rules the game is over: {status}"),
            });
        };
        let worth_of = |mv| {
            fixed
                .iter()
                .find(|&&(fixed, _)| fixed == mv)
                .map(|&(_, worth)| worth)
        };
        Ok(match (worth_of(report.best_move), best_fixed) {
            (None, Some((mv, worth))) if worth > report.score => mv,
            (None, _) => report.best_move,
            (Some(worth), _) if worth >= report.score => report.best_move,
            // The search's choice is worth less than it thought: the best
            // of the rest, by an analysis with room for every fixed move.
            (Some(_), Some(best_fixed)) => self.best_unfixed(game, limits, &fixed, best_fixed),
            (Some(_), None) => report.best_move,
        })
    }

    /// The best move by an analysis with a line for every fixed move and
    /// one more (up to [`MAX_LINES`]), against the best fixed move.
    fn best_unfixed(
        &self,
        game: &Game,
        limits: &Limits,
        fixed: &[(Move, Score)],
        (best_fixed, fixed_worth): (Move, Score),
    ) -> Move {
        let lines = (fixed.len() + 1).min(MAX_LINES);
        let analysed = self
            .engine
            .analyse(game, limits, lines, &AtomicBool::new(false), |_| {})
            .map(|update| update.lines)
            .unwrap_or_default();
        let is_fixed = |mv: Move| fixed.iter().any(|&(fixed, _)| fixed == mv);
        // The lines come best first.
        let unfixed = analysed.iter().find_map(|line| {
            let first = line.pv.first().copied().filter(|&mv| !is_fixed(mv))?;
            Some((first, line.score))
        });
        match unfixed {
            Some((mv, score)) if score >= fixed_worth => mv,
            Some(_) => best_fixed,
            // No line was free of a fixed move: any other beats a lost one.
            None if fixed_worth.loss_in().is_some() => game
                .position()
                .legal_moves()
                .iter()
                .copied()
                .find(|&mv| !is_fixed(mv))
                .unwrap_or(best_fixed),
            None => best_fixed,
        }
    }

    /// `move <position-record>`: OpenTafl accepted the engine's move.
    fn accepted(&mut self, record: &str) -> Reply {
        self.settle_proposal();
        self.game
            .as_ref()
            .map_or(Reply::Nothing, |hosted| check_board(record, &hosted.game))
    }

    /// `opponent-move <move-list> <position-record>`.
    fn opponent_moved(&mut self, args: &str) -> Reply {
        let Some((moves, record)) = args.split_once(' ') else {
            return Reply::Fail(format!(
                "opponent-move {args:?}: expected moves and a board"
            ));
        };
        self.settle_proposal();
        let Some(hosted) = &mut self.game else {
            return Reply::Fail(NO_GAME.to_owned());
        };
        // After a refused move OpenTafl repeats the last opponent move, whose
        // board the engine already has.
        if otn::same_board(record, hosted.game.position()) == Ok(true) {
            return Reply::Nothing;
        }
        for mv in moves.split('|') {
            let played = otn::move_text(mv).and_then(|text| {
                hosted
                    .play_text(&text.to_string())
                    .map_err(|error| format!("the opponent's move {mv}: {error}"))
            });
            if let Err(why) = played {
                return Reply::Fail(why);
            }
        }
        check_board(record, &hosted.game)
    }

    /// `finish <code>`: the game is over; says so if the engine judges it
    /// otherwise. OpenTafl may send it again (on quitting, after a
    /// resignation): only the first, while there is a game, is answered.
    fn finished(&mut self, code: &str) -> Reply {
        self.settle_proposal();
        let Some(hosted) = self.game.take() else {
            return Reply::Nothing;
        };
        let (expected, agrees) = match (code.trim(), hosted.status) {
            ("1", status) => ("a draw", matches!(status, Status::Drawn { .. })),
            ("2", status) => (
                "an attackers' win",
                status.winner() == Some(Side::Attackers),
            ),
            ("3", status) => ("a defenders' win", status.winner() == Some(Side::Defenders)),
            _ => return Reply::Nothing,
        };
        if agrees {
            Reply::Nothing
        } else {
            Reply::Say(format!(
                "status OpenTafl judged {expected}; by its rules as tafl reads them the game stands: {}",
                hosted.status
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

    fn clock(text: &str) -> Clock {
        Clock::parse(text).unwrap().unwrap()
    }

    #[test]
    fn a_clock_in_main_time_and_in_overtime() {
        let clock = clock("60000 30000* 10 2 1");
        assert_eq!(
            clock.left,
            BySide {
                attackers: Duration::from_secs(60),
                defenders: Duration::from_secs(30)
            }
        );
        assert_eq!(
            clock.in_overtime,
            BySide {
                attackers: false,
                defenders: true
            }
        );
        assert_eq!(clock.overtime, Duration::from_secs(10));
        assert_eq!(
            clock.overtimes,
            BySide {
                attackers: 2,
                defenders: 1
            }
        );
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
    fn an_untimed_game_has_no_clock_and_an_unreadable_one_is_refused() {
        assert_eq!(Clock::parse("-1 -1 0 0 0"), Ok(None));
        assert!(Clock::parse("").is_err());
        assert!(Clock::parse("60000 sixty 0 0 0").is_err());
        assert_eq!(
            Clock::parse("18446744073709551615 60000 0 0 0"),
            Err("18446744073709551615 ms is more than a day".to_owned())
        );
        assert!(Clock::parse("60000 60000 18446744073709551615 1 1").is_err());
        // A day is the most.
        assert!(Clock::parse("86400000 86400000* 86400 1 1").is_ok());
    }

    #[test]
    fn a_nearly_spent_clock_still_leaves_time_to_move() {
        let clock = clock("50 60000 0 0 0");
        let (soft, hard) = clock.budget(Side::Attackers);
        assert_eq!(soft, MIN_THINKING);
        assert!(hard >= soft);
    }

    fn read(bytes: &[u8]) -> Vec<String> {
        let (sender, lines) = mpsc::channel();
        read_lines(io::BufReader::with_capacity(16, bytes), &sender);
        drop(sender);
        lines
            .iter()
            .map(|input| match input {
                Input::Line(line) => line,
                Input::Unreadable(why) => format!("! {why}"),
            })
            .collect()
    }

    #[test]
    fn lines_are_read_whole_and_bad_ones_reported() {
        // A small buffer, so that lines span several reads.
        let mut bytes = b"play attackers\nclock 1 2\xff 0\n".to_vec();
        bytes.extend(std::iter::repeat_n(b'x', MAX_LINE + 1));
        bytes.extend(b"\ngoodbye\nunfinished");
        assert_eq!(
            read(&bytes),
            [
                "play attackers".to_owned(),
                "! a line that is not UTF-8 (byte 10)".to_owned(),
                format!("! a line longer than {MAX_LINE} bytes"),
                "goodbye".to_owned(),
                "unfinished".to_owned(),
            ]
        );
        // The longest line allowed is read.
        let longest = vec![b'y'; MAX_LINE];
        assert_eq!(read(&[&longest[..], b"\n"].concat())[0].len(), MAX_LINE);
    }
}
