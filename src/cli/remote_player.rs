//! A `tafl match` player whose moves come from a tafl server's SuggestMove
//! (`server=http://HOST:PORT`): another build of this project, older or
//! newer, played against this one.
//!
//! It sends only what SuggestMove has taken since the first version of the
//! API (the game from the standard start, limits, level, seed), and on a
//! clock the clock itself unless the player is given a fixed share of it
//! (`clock=fraction:N`, for a build that knows no clock), and reads only
//! `best_move`'s squares, so servers built before later additions to the
//! proto take part. Our own rules judge the move; the server's word on
//! captures and status is not needed.

use std::error::Error;
use std::time::Duration;

use tafl::lab::matchplay::{Contestant, NoMove, Player, Turn};
use tafl::rules::{Move, Square, Variant};
use tafl::search::{Clock, Level};
use tafl::service::pb;
use tafl::service::pb::tafl_service_client::TaflServiceClient;
use tokio::runtime::Runtime;
use tonic::transport::{Channel, Endpoint};

/// How long past its move time a server may take to answer (the game and
/// the search's start and end, on a loaded machine) before the game is
/// abandoned.
const ANSWER_MARGIN: Duration = Duration::from_secs(10);

/// How long a server may take to answer a search bounded by level, depth
/// or nodes alone (a server caps any search at 10 s by default).
const UNTIMED_PATIENCE: Duration = Duration::from_secs(60);

/// How long connecting may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// Why a server's player cannot take part.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot reach the server {server}: {reason}")]
pub struct Unreachable {
    pub server: String,
    pub reason: String,
}

/// One connection to a tafl server, asked for the moves of one player.
pub struct RemotePlayer {
    /// A runtime of its own with one worker, which keeps the connection
    /// answering the server's keepalive pings while this player's opponent
    /// thinks.
    runtime: Runtime,
    client: TaflServiceClient<Channel>,
    address: String,
    player: Player,
    variant: pb::Variant,
    /// How long a call may take before the game is abandoned, off a clock.
    patience: Duration,
}

impl RemotePlayer {
    /// Connects to the server at `address`, to play `variant` as `player` says.
    ///
    /// # Errors
    /// [`Unreachable`] when the connection cannot be made.
    pub fn connect(
        address: &str,
        player: Player,
        variant: Variant,
    ) -> Result<RemotePlayer, Unreachable> {
        let unreachable = |reason: String| Unreachable {
            server: address.to_string(),
            reason,
        };
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .map_err(|error| unreachable(error.to_string()))?;
        let endpoint = Endpoint::from_shared(address.to_string())
            .map_err(|error| unreachable(error.to_string()))?
            .connect_timeout(CONNECT_TIMEOUT);
        let channel = runtime
            .block_on(endpoint.connect())
            .map_err(|error| unreachable(format!("{error}{}", root_cause(&error))))?;
        Ok(RemotePlayer {
            runtime,
            client: TaflServiceClient::new(channel),
            address: address.to_string(),
            patience: player
                .movetime
                .map_or(UNTIMED_PATIENCE, |movetime| movetime + ANSWER_MARGIN),
            player,
            variant: pb::Variant::from(variant),
        })
    }

    /// The SuggestMove request for the turn.
    fn request(&self, turn: &Turn<'_>) -> pb::SuggestMoveRequest {
        let player = &self.player;
        // On a clock: the player's share of it, or the clock itself.
        let (movetime, clock) = match &turn.clock {
            None => (player.movetime, None),
            Some(clock) => match player.clock.fixed_time(clock) {
                Some(time) => (Some(time), None),
                None => (None, Some(clock_to_proto(clock))),
            },
        };
        let limits = pb::SearchLimits {
            max_depth: player.max_depth.unwrap_or(0),
            // 0 would be no bound at all: a spent share asks for the least time there is.
            max_time_ms: movetime.map_or(0, |movetime| {
                u32::try_from(movetime.as_millis()).map_or(u32::MAX, |ms| ms.max(1))
            }),
            max_nodes: player.max_nodes.unwrap_or(0),
        };
        let bounded = limits != pb::SearchLimits::default();
        // Full strength on the clock's time is level 0 (level 10 keeps to its second), as a
        // local player's level 10 spends the clock.
        let level = if clock.is_some() && player.level == Level::STRONGEST {
            0
        } else {
            player.level.get()
        };
        pb::SuggestMoveRequest {
            game: Some(pb::Game {
                variant: Some(self.variant),
                start: String::new(),
                moves: turn.moves.to_vec(),
            }),
            // No bound at all: the level's own budget, as for a local player.
            limits: bounded.then_some(limits),
            level,
            seed: player.seed(turn.seed),
            clock,
        }
    }
}

/// The clock as SuggestMove takes it.
fn clock_to_proto(clock: &Clock) -> pb::Clock {
    let millis = |time: Duration| u64::try_from(time.as_millis()).unwrap_or(u64::MAX);
    pb::Clock {
        remaining_ms: millis(clock.remaining),
        opponent_remaining_ms: millis(clock.opponent_remaining),
        increment_ms: millis(clock.increment),
        overtime_ms: millis(clock.overtime),
        overtime_periods: clock.overtime_periods,
        moves_to_go: clock.moves_to_go,
    }
}

impl Contestant for RemotePlayer {
    fn choose(&mut self, turn: &Turn<'_>) -> Result<Move, NoMove> {
        let mut request = tonic::Request::new(self.request(turn));
        // On a clock the runner judges the time: wait until well past the clock's end, then the
        // game is lost on time, not abandoned.
        let patience = turn
            .clock
            .map_or(self.patience, |clock| clock.remaining + ANSWER_MARGIN);
        // The server stops searching once we stop waiting.
        request.set_timeout(patience);
        let call = self.client.suggest_move(request);
        let answer = self
            .runtime
            .block_on(async { tokio::time::timeout(patience, call).await });
        let address = &self.address;
        let answer = answer
            .map_err(|_| NoMove::Unanswered(format!("{address}: no answer in {patience:?}")))?
            .map_err(|status| {
                NoMove::Unanswered(format!(
                    "{address}: {:?}: {}{}",
                    status.code(),
                    status.message(),
                    root_cause(&status)
                ))
            })?
            .into_inner();
        let best = answer
            .best_move
            .ok_or_else(|| NoMove::Unplayable(format!("{address} answered without a move")))?;
        match (
            best.from_square.parse::<Square>(),
            best.to_square.parse::<Square>(),
        ) {
            (Ok(from), Ok(to)) => Ok(Move { from, to }),
            _ => Err(NoMove::Unplayable(format!(
                "{address} answered the unreadable move {:?}-{:?}",
                best.from_square, best.to_square
            ))),
        }
    }
}

/// `: ` and the deepest cause of `error`, if it has one: the words that say
/// what went wrong (a transport error's own text is only "transport error").
fn root_cause(error: &(dyn Error + 'static)) -> String {
    let mut deepest = None;
    let mut source = error.source();
    while let Some(cause) = source {
        deepest = Some(cause);
        source = cause.source();
    }
    deepest
        .map(|cause| format!(": {cause}"))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::VariantArgs;
    use crate::cli::matchplay::{MatchArgs, OpeningKind, TimeControlArg, run};
    use std::net::SocketAddr;
    use tafl::lab::matchplay::{ClockUse, TimeControl};
    use tafl::rules::{Game, Rules};
    use tafl::service::{Config, ExecConfig, Server, TransportConfig};

    fn player() -> Player {
        Player {
            level: Level::STRONGEST,
            max_depth: Some(2),
            max_nodes: None,
            movetime: Some(Duration::from_millis(300)),
            clock: ClockUse::Native,
            seed: None,
        }
    }

    #[test]
    fn an_unreachable_server_stops_the_match_before_it_starts() {
        // A port that was free a moment ago: nothing listens there now.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port")
            .port();
        let address = format!("http://127.0.0.1:{port}");
        let error = RemotePlayer::connect(&address, player(), Variant::default())
            .err()
            .expect("nothing listens");
        let text = error.to_string();
        assert!(
            text.starts_with(&format!("cannot reach the server {address}: ")),
            "{text}"
        );
    }

    #[test]
    fn requests_carry_the_game_the_limits_given_the_level_and_the_seed() {
        let runtime = Runtime::new().expect("a runtime");
        let server = runtime.block_on(start_server());
        let mut remote = RemotePlayer::connect(
            &format!("http://{}", server.local_addr()),
            player(),
            Variant::default(),
        )
        .expect("connects");
        let moves = vec!["d1-d3".to_string()];
        let mut game = Game::new(Variant::default());
        game.play("d1-d3").expect("legal");
        let turn = Turn {
            game: &game,
            moves: &moves,
            seed: 7,
            clock: None,
        };
        let request = remote.request(&turn);
        assert_eq!(
            request.limits,
            Some(pb::SearchLimits {
                max_depth: 2,
                max_time_ms: 300,
                max_nodes: 0
            })
        );
        assert_eq!((request.level, request.seed), (10, 7));
        let sent = request.game.expect("a game");
        assert_eq!((sent.start.as_str(), sent.moves), ("", moves.clone()));
        assert_eq!(remote.patience, Duration::from_millis(10_300));
        let mv = remote.choose(&turn).expect("a move");
        // On a clock: the clock itself, at level 0 for full strength, and the move time gone.
        let clock = Clock {
            remaining: Duration::from_secs(60),
            opponent_remaining: Duration::from_secs(59),
            increment: Duration::from_secs(1),
            ..Clock::default()
        };
        let on_clock = remote.request(&Turn {
            clock: Some(clock),
            ..turn
        });
        assert_eq!(on_clock.clock, Some(clock_to_proto(&clock)));
        assert_eq!(on_clock.clock.map(|sent| sent.remaining_ms), Some(60_000));
        assert_eq!(on_clock.level, 0);
        assert_eq!(on_clock.limits.map(|limits| limits.max_time_ms), Some(0));
        // A build that knows no clock is sent a thirtieth of it and the increment.
        remote.player.clock = ClockUse::Fraction(30);
        let fraction = remote.request(&Turn {
            clock: Some(clock),
            ..turn
        });
        assert_eq!((fraction.clock, fraction.level), (None, 10));
        assert_eq!(fraction.limits.map(|limits| limits.max_time_ms), Some(3000));
        game.play_move(mv).expect("the server's move is legal");
        // An open connection would hold the graceful shutdown for its whole grace period.
        drop(remote);
        runtime.block_on(server.shutdown()).expect("clean shutdown");
    }

    #[test]
    fn a_remote_match_plays_real_openings_to_the_end() {
        let runtime = Runtime::new().expect("a runtime");
        let server = runtime.block_on(start_server());
        let summary = run(&MatchArgs {
            a: "level=10,depth=1".parse().expect("a player"),
            b: format!("server=http://{},level=10,depth=1", server.local_addr())
                .parse()
                .expect("a player"),
            games: 2,
            from_game: 1,
            movetime: 0,
            variant: VariantArgs {
                rules: Rules::Copenhagen,
                size: None,
            },
            openings: OpeningKind::Real,
            openings_file: None,
            opening_plies: None,
            max_plies: 40,
            hash_mb: 1,
            threads: 2,
            quiet: true,
            record: None,
            clock: None,
            move_times: None,
        })
        .expect("a match");
        assert_eq!(summary.games, 2);
        assert_eq!(
            (
                summary.abandoned,
                summary.forfeits_by_a,
                summary.forfeits_by_b
            ),
            (0, 0, 0)
        );
        runtime.block_on(server.shutdown()).expect("clean shutdown");
    }

    /// Both players on a clock, one of them a server sent it: every move's time is written, and
    /// nobody loses on time (a depth-2 search takes nowhere near the clock's seconds).
    #[test]
    fn a_remote_match_on_a_clock_keeps_both_clocks() {
        let runtime = Runtime::new().expect("a runtime");
        let server = runtime.block_on(start_server());
        let times =
            std::env::temp_dir().join(format!("tafl-move-times-{}.csv", std::process::id()));
        let _ = std::fs::remove_file(&times);
        let summary = run(&MatchArgs {
            a: "level=10,depth=2".parse().expect("a player"),
            b: format!("server=http://{},level=10,depth=2", server.local_addr())
                .parse()
                .expect("a player"),
            games: 2,
            from_game: 1,
            movetime: 200,
            clock: Some(TimeControlArg(TimeControl {
                main: Duration::from_secs(30),
                increment: Duration::from_millis(100),
            })),
            variant: VariantArgs {
                rules: Rules::Tablut,
                size: None,
            },
            openings: OpeningKind::Random,
            openings_file: None,
            opening_plies: None,
            max_plies: 30,
            hash_mb: 1,
            threads: 1,
            quiet: true,
            record: None,
            move_times: Some(times.clone()),
        })
        .expect("a match");
        assert_eq!(summary.games, 2);
        assert_eq!((summary.time_losses_by_a, summary.time_losses_by_b), (0, 0));
        let lines = std::fs::read_to_string(&times).expect("the move times");
        let _ = std::fs::remove_file(&times);
        assert!(lines.lines().count() >= 2, "{lines}");
        for line in lines.lines() {
            let fields: Vec<&str> = line.split(',').collect();
            assert_eq!(fields.len(), 6, "{line}");
            assert!(["A", "B"].contains(&fields[3]), "{line}");
            let used: f64 = fields[4].parse().expect("ms used");
            let left: u64 = fields[5].parse().expect("ms left");
            assert!(used >= 0.0 && left > 0, "{line}");
        }
        runtime.block_on(server.shutdown()).expect("clean shutdown");
    }

    /// The real server on a free loopback port, small.
    async fn start_server() -> Server {
        Server::start(Config {
            transport: TransportConfig {
                listen: SocketAddr::from(([127, 0, 0, 1], 0)),
                ..TransportConfig::default()
            },
            exec: ExecConfig {
                search_threads: 2,
                hash_mb: 4,
                ..ExecConfig::default()
            },
            ..Config::default()
        })
        .await
        .expect("the server starts")
    }
}
