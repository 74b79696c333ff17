//! The API: one handler per RPC. The [`TaflService`](pb::tafl_service_server::TaflService)
//! implementation below takes each request's [`Call`] once and hands it to
//! its handler; the handler converts the message into rules types
//! (`convert.rs`), does the work (searches on the pool, within `caps.rs`),
//! and converts back; one responder maps every result to the wire
//! (`service/error.rs` maps the errors).

mod analyze;
mod apply_move;
mod call;
mod caps;
mod convert;
mod evaluate;
mod find_puzzles;
mod legal_moves;
mod replay;
mod replay_cache;
mod review_game;
mod run_search;
mod state;
mod suggest_move;
mod threats;
mod update_stream;
mod validate_game;
mod with_game;
mod with_legal_moves;

use std::future::Future;
use std::sync::Arc;

use tonic::{Request, Response, Status};

use self::call::Call;
use self::replay::{CarriesGame, off_the_runtime};
use self::update_stream::UpdateStream;
use crate::service::error::ServiceError;
use crate::service::pb;

pub use self::state::State;
pub use self::with_game::{ApplyMoveQuery, LegalMovesQuery};
pub use self::with_legal_moves::{ApplyMoveReply, LegalMovesReply};

/// The `tafl.v1.TaflService` implementation.
#[derive(Clone, Debug)]
pub struct TaflApi {
    state: Arc<State>,
}

impl TaflApi {
    /// The service over shared state.
    pub fn new(state: Arc<State>) -> TaflApi {
        TaflApi { state }
    }

    /// The one responder: takes the call's parts, runs its handler, and
    /// maps the result to the wire.
    async fn respond<M, R, Answer>(
        &self,
        request: Request<M>,
        handler: impl FnOnce(Arc<State>, Call<M>) -> Answer,
    ) -> Result<Response<R>, Status>
    where
        Answer: Future<Output = Result<R, ServiceError>>,
    {
        let call = Call::take(request, &self.state.config.caps);
        handler(Arc::clone(&self.state), call)
            .await
            .map(Response::new)
            .map_err(Status::from)
    }

    /// Responds to a call the rules alone answer: judged at once when its
    /// game is short, on the replay pool when long.
    async fn judge<M, R>(
        &self,
        request: Request<M>,
        handler: fn(&State, M) -> Result<R, ServiceError>,
    ) -> Result<Response<R>, Status>
    where
        M: CarriesGame + Send + 'static,
        R: Send + 'static,
    {
        self.respond(request, |state, call| async move {
            let plies = call.message.plies();
            off_the_runtime(&state, plies, move |state| handler(state, call.message)).await
        })
        .await
    }
}

#[tonic::async_trait]
impl pb::tafl_service_server::TaflService for TaflApi {
    async fn legal_moves(
        &self,
        request: Request<LegalMovesQuery>,
    ) -> Result<Response<LegalMovesReply>, Status> {
        self.judge(request, legal_moves::handle).await
    }

    async fn apply_move(
        &self,
        request: Request<ApplyMoveQuery>,
    ) -> Result<Response<ApplyMoveReply>, Status> {
        self.judge(request, apply_move::handle).await
    }

    async fn evaluate(
        &self,
        request: Request<pb::EvaluateRequest>,
    ) -> Result<Response<pb::EvaluateResponse>, Status> {
        self.respond(request, evaluate::handle).await
    }

    async fn suggest_move(
        &self,
        request: Request<pb::SuggestMoveRequest>,
    ) -> Result<Response<pb::SuggestMoveResponse>, Status> {
        self.respond(request, suggest_move::handle).await
    }

    async fn validate_game(
        &self,
        request: Request<pb::ValidateGameRequest>,
    ) -> Result<Response<pb::ValidateGameResponse>, Status> {
        self.judge(request, validate_game::handle).await
    }

    type AnalyzeStream = UpdateStream<pb::AnalyzeResponse>;

    async fn analyze(
        &self,
        request: Request<pb::AnalyzeRequest>,
    ) -> Result<Response<Self::AnalyzeStream>, Status> {
        self.respond(request, analyze::handle).await
    }

    async fn threats(
        &self,
        request: Request<pb::ThreatsRequest>,
    ) -> Result<Response<pb::ThreatsResponse>, Status> {
        self.respond(request, threats::handle).await
    }

    type ReviewGameStream = UpdateStream<pb::ReviewGameResponse>;

    async fn review_game(
        &self,
        request: Request<pb::ReviewGameRequest>,
    ) -> Result<Response<Self::ReviewGameStream>, Status> {
        self.respond(request, review_game::handle).await
    }

    async fn find_puzzles(
        &self,
        request: Request<pb::FindPuzzlesRequest>,
    ) -> Result<Response<pb::FindPuzzlesResponse>, Status> {
        self.respond(request, find_puzzles::handle).await
    }
}
