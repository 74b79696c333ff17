//! ReviewGame: a whole game judged ply by ply (`search/review/`), streamed
//! as each ply is judged, then a summary.
//!
//! A review holds a place of the review pool for as long as it runs (its
//! table, kept from one position's search to the next, is what the place
//! stands for); the review places are shared out per connection like the
//! search places, and no connection holds more than half of them. Each
//! position's search computes on the cores in turn with every other search
//! (`exec/cores.rs`), so a review beside a flood of searches progresses at
//! its connection's share of the cores. A review waiting for its reader
//! (its updates buffered, the reader's window shut) gives its place and its
//! table back after [`READER_GRACE`], and takes a place again once the reader
//! reads; it ends at its deadline (the call's, or the server's cap on a
//! review) with what it has and a summary marked partial, waiting or not;
//! it stops when the stream goes away (the caller cancelled), within the few
//! hundred nodes its search takes to look at the stop flag.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tokio::sync::mpsc;
use tonic::Status;
use tracing::Instrument;

use crate::search::{ClassCounts, Control, MoveClass, PlyReview, Review, ReviewSummary};
use crate::service::exec::{Admission, ExecError, Place, Usage, Work};

use super::call::Call;
use super::caps::{level_from_proto, review_budget};
use super::convert;
use super::replay::record_game;
use super::run_search::{StopOnDrop, record_usage};
use super::state::State;
use super::update_stream::UpdateStream;
use super::validate_game::accepted_plies;
use crate::service::error::ServiceError;
use crate::service::pb;

/// Updates waiting for a slow reader before the review waits for it.
const UPDATES_BUFFERED: usize = 16;

/// How long a review waits for its reader while holding its place and its
/// table; past that it gives both back until the reader reads.
pub const READER_GRACE: Duration = Duration::from_secs(1);

#[tracing::instrument(
    name = "ReviewGame",
    skip_all,
    fields(
        variant,
        board_size,
        ply,
        level,
        plies_reviewed,
        partial,
        nodes,
        wait_ms,
        cpu_ms
    )
)]
pub(super) async fn handle(
    state: Arc<State>,
    mut call: Call<pb::ReviewGameRequest>,
) -> Result<UpdateStream<pb::ReviewGameResponse>, ServiceError> {
    let level = level_from_proto(call.message.level)?;
    let caps = &state.config.caps;
    let cap_end = Instant::now() + caps.max_review_time;
    let deadline = call
        .deadline
        .map_or(cap_end, |deadline| deadline.min(cap_end));
    let (budget, _) = review_budget(
        call.message.limits.as_ref(),
        level,
        call.message.seed,
        state.caps,
        Some(deadline),
    );
    // The review's place is asked for before the game is read, as every search's is. It may
    // wait for one until its deadline: a review that starts late still judges what it can.
    let first = state
        .reviews
        .admit(call.connection, review_work(deadline), None)?;
    let game = call.message.game.take();
    let judged = accepted_plies(&state, game).await?;
    let span = record_game(&judged.game);
    span.record("level", i64::from(level.get()));
    let moves = judged.plies.iter().map(|played| played.played);
    let review = Review::new(&state.engine, judged.start, moves, budget)
        .map_err(|error| ServiceError::Internal(format!("a judged ply was refused: {error}")))?;
    let (sender, updates) = mpsc::channel(UPDATES_BUFFERED);
    let stop = StopOnDrop::default();
    let reviewing = Reviewing {
        state,
        review: Arc::new(Mutex::new(review)),
        stop: stop.flag(),
        connection: call.connection,
        deadline,
        sender,
        usage: Usage::default(),
    };
    tokio::spawn(reviewing.run(first).instrument(span));
    Ok(UpdateStream::new(updates, stop))
}

/// What a review asks of the review pool: a place until its deadline (which the review keeps
/// itself, waiting for a place or not).
fn review_work(deadline: Instant) -> Work {
    Work::bounded(
        crate::service::exec::WorkKind::Search,
        deadline.saturating_duration_since(Instant::now()),
    )
}

/// A review under way: what its task needs between searches.
struct Reviewing {
    state: Arc<State>,
    /// Shared with the search thread for the length of each search.
    review: Arc<Mutex<Review>>,
    stop: Arc<AtomicBool>,
    connection: u64,
    deadline: Instant,
    sender: mpsc::Sender<Result<pb::ReviewGameResponse, Status>>,
    /// What its searches had of the pools so far.
    usage: Usage,
}

/// How a review stopped before its last ply.
enum Ended {
    /// Its deadline, the stop flag or the server shutting down: the summary says partial.
    Early,
    /// The caller went away: nobody to tell.
    CallerGone,
    /// A bug, or a refusal to tell the caller.
    Failed(ServiceError),
}

impl Reviewing {
    /// Searches position after position, sending each judged ply, then the summary.
    async fn run(mut self, first: Admission) {
        let ended = self.review_plies(first).await;
        match ended {
            Ok(()) | Err(Ended::Early) => {}
            Err(Ended::CallerGone) => return,
            Err(Ended::Failed(error)) => {
                let _ = self.sender.send(Err(error.into())).await;
                return;
            }
        }
        let summary = lock(&self.review).summary();
        let span = tracing::Span::current();
        span.record("plies_reviewed", summary.plies_reviewed as i64);
        span.record("partial", summary.partial);
        span.record("nodes", lock(&self.review).nodes() as i64);
        record_usage(&self.usage);
        let update = pb::review_game_response::Update::Summary(summary_to_proto(&summary));
        let _ = self.send(update, None).await;
    }

    /// Judges the plies, holding a place of the review pool while it computes.
    async fn review_plies(&mut self, first: Admission) -> Result<(), Ended> {
        let mut admission = Some(first);
        let mut place: Option<Place> = None;
        while !lock(&self.review).is_finished() && !self.stop.load(Ordering::Relaxed) {
            let held = match place.take() {
                Some(held) => held,
                None => self.take_place(admission.take()).await?,
            };
            let review = Arc::clone(&self.review);
            let state = Arc::clone(&self.state);
            let stop = Arc::clone(&self.stop);
            let ran = held
                .run(Arc::clone(&self.stop), move |turn| {
                    let control = Control::new(&stop).sharing(turn);
                    lock(&review).step(&state.engine, control)
                })
                .await;
            let judged = match ran {
                Ok((Ok(judged), cores)) => {
                    self.usage.cores.cpu += cores.cpu;
                    self.usage.cores.waited += cores.waited;
                    judged
                }
                Ok((Err(_stopped), _)) => return Err(Ended::Early),
                Err(error) => return Err(ended_by(error)),
            };
            place = Some(held);
            if let Some(ply) = judged {
                let update = pb::review_game_response::Update::Ply(ply_to_proto(&ply));
                if !self.send(update, Some(&mut place)).await? {
                    return Err(Ended::Early);
                }
            }
        }
        Ok(())
    }

    /// A place of the review pool: the one admitted at the start, else a new
    /// admission, trying again after the pool's hint while the deadline allows.
    async fn take_place(&mut self, admitted: Option<Admission>) -> Result<Place, Ended> {
        let reviews = &self.state.reviews;
        let mut admitted = admitted;
        loop {
            let admission = match admitted.take() {
                Some(admission) => Ok(admission),
                None => reviews.admit(self.connection, review_work(self.deadline), None),
            };
            let held = match admission {
                Ok(admission) => {
                    let deadline = tokio::time::Instant::from(self.deadline);
                    tokio::time::timeout_at(deadline, reviews.hold(admission, &self.stop))
                        .await
                        .map_err(|_| Ended::Early)?
                }
                Err(error) => Err(error),
            };
            let wait = match held {
                Ok(place) => {
                    self.usage.queued += place.queued();
                    return Ok(place);
                }
                Err(error) => error,
            };
            match wait {
                ExecError::Busy(busy) => {
                    let until = (Instant::now() + busy.retry_after).min(self.deadline);
                    tokio::time::sleep_until(until.into()).await;
                    if Instant::now() >= self.deadline {
                        return Err(Ended::Early);
                    }
                }
                error => return Err(ended_by(error)),
            }
        }
    }

    /// Sends an update: at once while the reader keeps up, else giving the
    /// review's place (when it holds one) and table back after
    /// [`READER_GRACE`] and waiting, until the deadline at the latest.
    /// `Ok(false)` when the deadline came first; `Err` once the caller is gone.
    async fn send(
        &self,
        update: pb::review_game_response::Update,
        place: Option<&mut Option<Place>>,
    ) -> Result<bool, Ended> {
        let response = Ok(pb::ReviewGameResponse {
            update: Some(update),
        });
        let deadline = tokio::time::Instant::from(self.deadline);
        let grace = (tokio::time::Instant::now() + READER_GRACE).min(deadline);
        let permit = match tokio::time::timeout_at(grace, self.sender.reserve()).await {
            Ok(permit) => permit,
            Err(_) => {
                if let Some(place) = place {
                    *place = None;
                }
                lock(&self.review).release_table();
                match tokio::time::timeout_at(deadline, self.sender.reserve()).await {
                    Ok(permit) => permit,
                    Err(_) => return Ok(false),
                }
            }
        };
        let permit = permit.map_err(|_| Ended::CallerGone)?;
        permit.send(response);
        Ok(true)
    }
}

/// What a refusal of the pool means for a review.
fn ended_by(error: ExecError) -> Ended {
    match error {
        ExecError::Busy(_) | ExecError::DeadlinePassed | ExecError::ShuttingDown => Ended::Early,
        ExecError::Failed(_) => Ended::Failed(error.into()),
    }
}

/// The review, even if a search panicked while holding it (it is then as that search left it).
fn lock(review: &Mutex<Review>) -> MutexGuard<'_, Review> {
    review
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn class_to_proto(class: MoveClass) -> pb::MoveClass {
    match class {
        MoveClass::Best => pb::MoveClass::Best,
        MoveClass::Excellent => pb::MoveClass::Excellent,
        MoveClass::Good => pb::MoveClass::Good,
        MoveClass::Inaccuracy => pb::MoveClass::Inaccuracy,
        MoveClass::Mistake => pb::MoveClass::Mistake,
        MoveClass::Blunder => pb::MoveClass::Blunder,
        MoveClass::MissedWin => pb::MoveClass::MissedWin,
        MoveClass::FoundWin => pb::MoveClass::FoundWin,
    }
}

fn ply_to_proto(ply: &PlyReview) -> pb::PlyReview {
    pb::PlyReview {
        ply: ply.ply as u32,
        side: convert::side_to_proto(ply.side).into(),
        played: Some(convert::played_to_proto(&ply.played)),
        best_move: ply.best_line.first().map(convert::played_to_proto),
        best_line: ply.best_line.iter().map(convert::played_to_proto).collect(),
        score_before: ply.score_before.as_i32(),
        score_after: ply.score_after.as_i32(),
        win_chance_before: ply.win_chance_before,
        win_chance_after: ply.win_chance_after,
        classification: class_to_proto(ply.class).into(),
        critical: ply.critical,
        win_chance_loss: ply.loss,
    }
}

fn classes_to_proto(counts: &ClassCounts) -> std::collections::HashMap<String, u32> {
    counts
        .iter()
        .map(|(class, count)| (class_to_proto(class).as_str_name().to_owned(), count))
        .collect()
}

fn summary_to_proto(summary: &ReviewSummary) -> pb::ReviewSummary {
    pb::ReviewSummary {
        attackers_accuracy: summary.accuracy.attackers,
        defenders_accuracy: summary.accuracy.defenders,
        attackers_classes: classes_to_proto(&summary.classes.attackers),
        defenders_classes: classes_to_proto(&summary.classes.defenders),
        turning_points: summary
            .turning_points
            .iter()
            .map(|&ply| ply as u32)
            .collect(),
        status: Some(convert::status_to_proto(summary.status)),
        partial: summary.partial,
        plies_reviewed: summary.plies_reviewed as u32,
    }
}
