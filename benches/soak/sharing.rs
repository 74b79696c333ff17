//! The soak's second part: the attacks on the processor's
//! sharing, one after another, each beside the normal traffic, with the
//! victim measured alone first in the same run:
//!
//! 1. a matchmaking client's level-5 SuggestMove (5 s deadline) back to back,
//!    alone; then beside two clients looping 10 s SuggestMove searches; then
//!    beside two clients reviewing the longest real game (341 plies) at 10 s
//!    a position;
//! 2. two connections that shut their stream window and never read, each
//!    holding game reviews; a fresh client's review of 80 plies must be
//!    answered in full;
//! 3. eight connections looping level-10 searches with a 10 s limit; a
//!    review of 80 plies at the default budget must complete.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use prost::Message;
use tafl::service::pb::{
    ReviewGameRequest, SearchLimits, SuggestMoveRequest, review_game_response::Update,
};
use tokio::task::JoinSet;
use tonic::Code;

use crate::{Tally, how, summary};
use common::client::connect;
use common::server::{copenhagen_moves, real_game_review};
use common::{raw_h2, real_game};

/// How long the victim is measured in each setting.
const VICTIM_SECS: u64 = 20;
/// The attackers' search time, and their reviews' per position.
const ATTACK_MS: u32 = 10_000;

/// What the victim got in one setting.
pub struct Victim {
    pub setting: &'static str,
    pub latencies: Vec<Duration>,
    pub asked: usize,
}

impl Victim {
    pub fn print(&self) {
        let answered = self.latencies.len();
        println!(
            "  level-5 moves {}: {answered} of {} answered ({:.1}%), {}",
            self.setting,
            self.asked,
            100.0 * answered as f64 / self.asked.max(1) as f64,
            summary(self.latencies.clone())
        );
    }
}

/// Runs the three parts; prints as it goes.
pub async fn run(addr: SocketAddr, tally: Arc<Tally>) {
    let alone = victim(addr, "alone").await;
    alone.print();
    let searches = {
        let _attack = long_searches(addr, 2).await;
        victim(addr, "beside two clients' 10 s searches").await
    };
    searches.print();
    let reviews = {
        let _attack = long_reviews(addr, 2).await;
        victim(addr, "beside two clients' reviews at 10 s a position").await
    };
    reviews.print();

    let (plies, partial, took) = {
        let _attack = unread_reviews(addr).await;
        review(addr, real_game_review(79, 2_000), Duration::from_secs(120)).await
    };
    println!(
        "  a fresh client's review of 80 plies beside two window-0 connections' reviews: {plies} plies judged, partial {partial}, in {took:?}"
    );
    if plies != 80 || partial {
        tally.normal_failed(
            "ReviewGame",
            "not answered in full beside unread reviews".into(),
        );
    }

    let (plies, partial, took) = {
        let _attack = long_searches(addr, 8).await;
        let default_budget = ReviewGameRequest {
            limits: None,
            ..real_game_review(79, 0)
        };
        review(addr, default_budget, Duration::from_secs(300)).await
    };
    println!(
        "  a review of 80 plies at the default budget beside 8 connections' 10 s searches: {plies} plies judged, partial {partial}, in {took:?}"
    );
    if plies != 80 || partial {
        tally.normal_failed(
            "ReviewGame",
            "did not complete beside the search flood".into(),
        );
    }
}

/// The matchmaking client: level-5 moves from a real game's middlegame, back to back, each with
/// a 5 s deadline, for [`VICTIM_SECS`].
async fn victim(addr: SocketAddr, setting: &'static str) -> Victim {
    let mut client = connect(addr).await;
    let moves = real_game::real_game_moves(30);
    let until = Instant::now() + Duration::from_secs(VICTIM_SECS);
    let (mut latencies, mut asked) = (Vec::new(), 0);
    for seed in 0.. {
        if Instant::now() >= until {
            break;
        }
        let plies = 10 + seed as usize % 20;
        let mut request = tonic::Request::new(SuggestMoveRequest {
            game: Some(copenhagen_moves(moves[..plies].to_vec())),
            limits: None,
            level: 5,
            seed,
            clock: None,
        });
        request.set_timeout(Duration::from_secs(5));
        asked += 1;
        let started = Instant::now();
        if client.suggest_move(request).await.is_ok() {
            latencies.push(started.elapsed());
        }
    }
    Victim {
        setting,
        latencies,
        asked,
    }
}

/// `connections` clients looping 10 s full-strength searches, until the set is dropped.
async fn long_searches(addr: SocketAddr, connections: u64) -> JoinSet<()> {
    let mut attack = JoinSet::new();
    for seed in 0..connections {
        let mut client = connect(addr).await;
        attack.spawn(async move {
            loop {
                let request = SuggestMoveRequest {
                    game: None,
                    limits: Some(SearchLimits {
                        max_time_ms: ATTACK_MS,
                        ..SearchLimits::default()
                    }),
                    level: 10,
                    seed,
                    clock: None,
                };
                if let Err(status) = client.suggest_move(request).await
                    && status.code() == Code::ResourceExhausted
                {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            }
        });
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    attack
}

/// The longest real game's moves.
fn longest_real_game() -> Vec<String> {
    real_game::real_games()
        .into_iter()
        .max_by_key(Vec::len)
        .expect("real games")
}

/// `connections` clients each reviewing the longest real game at 10 s a position (read as it
/// comes), again whenever a review ends, until the set is dropped.
async fn long_reviews(addr: SocketAddr, connections: usize) -> JoinSet<()> {
    let mut attack = JoinSet::new();
    for _ in 0..connections {
        let mut client = connect(addr).await;
        let request = ReviewGameRequest {
            game: Some(copenhagen_moves(longest_real_game())),
            limits: Some(SearchLimits {
                max_time_ms: ATTACK_MS,
                ..SearchLimits::default()
            }),
            level: 0,
            seed: 0,
        };
        attack.spawn(async move {
            loop {
                match client.review_game(request.clone()).await {
                    Ok(stream) => {
                        let mut stream = stream.into_inner();
                        while let Ok(Some(_)) = stream.message().await {}
                    }
                    Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
                }
            }
        });
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    attack
}

/// Two connections that never read, each with two reviews of the longest real game on it
/// (their updates fill the window at once and wait); kept until the set is dropped.
async fn unread_reviews(addr: SocketAddr) -> JoinSet<()> {
    let body = real_game_review(300, 2_000).encode_to_vec();
    let mut attack = JoinSet::new();
    for _ in 0..2 {
        let (_, connection) = raw_h2::unread_calls(
            addr,
            "/tafl.v1.TaflService/ReviewGame",
            &body,
            2,
            Duration::from_millis(100),
        )
        .await;
        attack.spawn(async move {
            let _ = connection.await;
        });
    }
    // Their reviews judge the plies their buffers take, then wait for the readers.
    tokio::time::sleep(Duration::from_secs(3)).await;
    attack
}

/// A whole review on a connection of its own: the plies judged, whether the summary says
/// partial, and how long it took.
async fn review(
    addr: SocketAddr,
    request: ReviewGameRequest,
    timeout: Duration,
) -> (usize, bool, Duration) {
    let mut client = connect(addr).await;
    let mut request = tonic::Request::new(request);
    request.set_timeout(timeout);
    let started = Instant::now();
    let mut plies = 0;
    let stream = match client.review_game(request).await {
        Ok(stream) => stream,
        Err(status) => {
            println!("  the review was refused: {}", how(&status));
            return (0, true, started.elapsed());
        }
    };
    let mut stream = stream.into_inner();
    while let Ok(Some(update)) = stream.message().await {
        match update.update {
            Some(Update::Ply(_)) => plies += 1,
            Some(Update::Summary(summary)) => {
                return (plies, summary.partial, started.elapsed());
            }
            None => {}
        }
    }
    (plies, true, started.elapsed())
}
