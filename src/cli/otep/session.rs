//! One conversation with OpenTafl: what the engine does with each command.

use std::io::{self, BufRead, Write};
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use tafl::rules::{Game, Move, Side, Status};
use tafl::search::{Control, Engine, Level, Limits, MAX_LINES, Score};

use super::clock::{MAX_CLOCK, OpenTaflClock};
use super::hosted_game::HostedGame;
use super::lines::{Input, read_lines};
use super::otn::{self, GameRules};

/// How long after `play` the engine waits for the `clock` that OpenTafl
/// sends right behind it, when none came since the last move (the protocol
/// text says after `play`, OpenTafl 0.4.8 sends it just before, and an
/// untimed game sends none).
const CLOCK_GRACE: Duration = Duration::from_millis(200);

/// Said when a move is asked for, or announced, outside a game.
const NO_GAME: &str = "no game: no rules tafl plays came, or an error ended the game";

/// Moves with more captures than this go out without their capture list:
/// OpenTafl's move reader takes at most four (a shieldwall can take more).
const MAX_LISTED_CAPTURES: u32 = 4;

/// One engine process's conversation with OpenTafl: the game as the engine
/// knows it, and what OpenTafl last said about the clock.
pub struct Session {
    engine: Engine,
    level: Level,
    movetime: Duration,
    /// Taken off every time the clock gives a move.
    move_overhead: Duration,
    seed: u64,
    game: Option<HostedGame>,
    /// The game after the engine's last move, until OpenTafl accepts it.
    proposed: Option<HostedGame>,
    clock: Option<OpenTaflClock>,
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
    /// A session that plays at `level`, `movetime` a move when the game has no clock, and with
    /// `move_overhead` taken off every time the clock gives a move.
    #[must_use]
    pub fn new(
        engine: Engine,
        level: Level,
        movetime: Duration,
        move_overhead: Duration,
        seed: u64,
    ) -> Session {
        Session {
            engine,
            level,
            movetime: movetime.min(MAX_CLOCK),
            move_overhead: move_overhead.min(MAX_CLOCK),
            seed,
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
            "clock" => match OpenTaflClock::parse(args) {
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
        // On a clock, the engine's allocation (as SuggestMove's); else the move time, and never
        // past twice it.
        let limits = match self.clock {
            Some(clock) => Limits::on_clock(clock.allocate(to_move, self.move_overhead)),
            None => Limits {
                max_time: Some(self.movetime),
                deadline: Some(Instant::now() + self.movetime * 2),
                ..Limits::default()
            },
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
            .analyse(
                game,
                limits,
                lines,
                Control::new(&AtomicBool::new(false)),
                |_| {},
            )
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
    /// When OpenTafl's own player ends the game with its move, OpenTafl
    /// never sends that move: a game still going here agrees if one of the
    /// moves of the side to move ends it as OpenTafl says.
    fn finished(&mut self, code: &str) -> Reply {
        self.settle_proposal();
        let Some(hosted) = self.game.take() else {
            return Reply::Nothing;
        };
        let (expected, judged): (&str, fn(Status) -> bool) = match code.trim() {
            "1" => ("a draw", |status| matches!(status, Status::Drawn { .. })),
            "2" => ("an attackers' win", |status| {
                status.winner() == Some(Side::Attackers)
            }),
            "3" => ("a defenders' win", |status| {
                status.winner() == Some(Side::Defenders)
            }),
            _ => return Reply::Nothing,
        };
        let agrees = judged(hosted.status)
            || (hosted.status == Status::Ongoing && hosted.some_move_ends(judged));
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
