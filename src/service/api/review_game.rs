//! ReviewGame: a whole game judged ply by ply (`search/review.rs`), streamed
//! as each ply is judged, then a summary.
//!
//! Each position's search is a search like any other: admitted by the pool,
//! run on a slot, and the slot given back before the next position, so a
//! long review never holds a slot that waiting calls need, and the pool's
//! scheduler decides when its next search runs. A refused admission waits
//! the pool's retry hint and tries again. The review ends at its deadline
//! (the call's, or the server's cap on a review) with what it has and a
//! summary marked partial; it stops when the stream goes away (the caller
//! cancelled), within the few hundred nodes its search takes to look at the
//! stop flag, and its slot is then freed.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tokio::sync::mpsc;
use tonic::Status;
use tracing::Instrument;

use crate::search::{ClassCounts, MoveClass, PlyReview, Review, ReviewSummary};
use crate::service::exec::{ExecError, Work};

use super::call::Call;
use super::caps::{level_from_proto, review_budget};
use super::convert;
use super::replay::record_game;
use super::run_search::StopOnDrop;
use super::state::State;
use super::update_stream::UpdateStream;
use super::validate_game::accepted_plies;
use crate::service::error::ServiceError;
use crate::service::pb;

/// Updates waiting for a slow reader before the review waits for it (it holds no slot then).
const UPDATES_BUFFERED: usize = 16;

#[tracing::instrument(
    name = "ReviewGame",
    skip_all,
    fields(variant, board_size, ply, level, plies_reviewed, partial, nodes)
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
    let (budget, work) = review_budget(
        call.message.limits.as_ref(),
        level,
        call.message.seed,
        state.caps,
        Some(deadline),
    );
    // The first position's search is admitted before the game is read, as every search is.
    let first = call.admit(&state, work)?;
    let game = call.message.game.take();
    let plies = game.as_ref().map_or(0, |game| game.moves.len());
    let judged = accepted_plies(&state, game).await?;
    let span = record_game(&judged.game);
    span.record("level", i64::from(level.get()));
    let place = state
        .reviews
        .enter(state.config.exec.max_active_reviews())
        .ok_or(ServiceError::Busy {
            waiting: state.pool.admitted(),
            retry_after: (work.bound * u32::try_from(plies + 1).unwrap_or(u32::MAX))
                .min(caps.max_review_time),
        })?;
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
        work,
        deadline,
        sender,
    };
    tokio::spawn(
        async move {
            let _place = place;
            reviewing.run(first).await;
        }
        .instrument(span),
    );
    Ok(UpdateStream::new(updates, stop))
}

/// A review under way: what its task needs between searches.
struct Reviewing {
    state: Arc<State>,
    /// Shared with the search thread for the length of each search.
    review: Arc<Mutex<Review>>,
    stop: Arc<std::sync::atomic::AtomicBool>,
    connection: u64,
    /// What one position's searches are expected to hold its slot for.
    work: Work,
    deadline: Instant,
    sender: mpsc::Sender<Result<pb::ReviewGameResponse, Status>>,
}

/// What one position's turn on the pool came to.
enum Turn {
    /// The search ran; the ply it judged, if any.
    Searched(Option<PlyReview>),
    /// The pool refused it for now: try again after this long.
    Refused(Duration),
    /// The review ends here: the deadline, the stop flag, the server shutting down.
    Over,
    /// A bug: the search panicked.
    Failed(ServiceError),
}

impl Reviewing {
    /// Searches position after position, sending each judged ply, then the summary.
    async fn run(self, first: crate::service::exec::Admission) {
        let mut admission = Some(first);
        while !lock(&self.review).is_finished() && !self.stop.load(Ordering::Relaxed) {
            let turn = match admission.take() {
                Some(admission) => self.search(admission).await,
                None => match self
                    .state
                    .pool
                    .admit(self.connection, self.work, Some(self.deadline))
                {
                    Ok(admission) => self.search(admission).await,
                    Err(error) => refused(error),
                },
            };
            match turn {
                Turn::Searched(None) => {}
                Turn::Searched(Some(ply)) => {
                    if !self
                        .send(pb::review_game_response::Update::Ply(ply_to_proto(&ply)))
                        .await
                    {
                        return;
                    }
                }
                Turn::Refused(wait) => {
                    let until = (Instant::now() + wait).min(self.deadline);
                    tokio::time::sleep_until(until.into()).await;
                    if Instant::now() >= self.deadline {
                        break;
                    }
                }
                Turn::Over => break,
                Turn::Failed(error) => {
                    let _ = self.sender.send(Err(error.into())).await;
                    return;
                }
            }
        }
        let summary = lock(&self.review).summary();
        let span = tracing::Span::current();
        span.record("plies_reviewed", summary.plies_reviewed as i64);
        span.record("partial", summary.partial);
        span.record("nodes", lock(&self.review).nodes() as i64);
        self.send(pb::review_game_response::Update::Summary(summary_to_proto(
            &summary,
        )))
        .await;
    }

    /// One position's search on an admitted slot.
    async fn search(&self, admission: crate::service::exec::Admission) -> Turn {
        let review = Arc::clone(&self.review);
        let state = Arc::clone(&self.state);
        let stop = Arc::clone(&self.stop);
        // The pool raises its own flag at the end of the shutdown's grace period.
        let pool_stop = Arc::clone(&self.stop);
        let ran = self
            .state
            .pool
            .run(admission, pool_stop, move || {
                lock(&review).step(&state.engine, &stop)
            })
            .await;
        match ran {
            Ok(Ok(judged)) => Turn::Searched(judged),
            Ok(Err(_stopped)) => Turn::Over,
            Err(error) => refused(error),
        }
    }

    /// Sends an update; false once the caller has gone.
    async fn send(&self, update: pb::review_game_response::Update) -> bool {
        let response = pb::ReviewGameResponse {
            update: Some(update),
        };
        self.sender.send(Ok(response)).await.is_ok()
    }
}

/// What a refusal of the pool means for a review.
fn refused(error: ExecError) -> Turn {
    match error {
        ExecError::Busy { retry_after, .. } => Turn::Refused(retry_after),
        ExecError::DeadlinePassed | ExecError::ShuttingDown => Turn::Over,
        ExecError::Failed(_) => Turn::Failed(error.into()),
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
