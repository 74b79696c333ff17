//! The service's errors, and the one place where they become gRPC statuses:
//! the handlers' (`api/`) and the transport layers' (`transport/`) alike.
//!
//! Every error a caller can cause carries a sentence saying why, a
//! `google.rpc.ErrorInfo` a program can read (a fixed [`Reason`] and its
//! [`Kind`], the field and the ply at fault), and the field-level ones a
//! `google.rpc.BadRequest` or `google.rpc.PreconditionFailure` naming the
//! field. Internal details are logged here, once, and never sent.

use std::collections::BTreeMap;

use prost::Message as _;
use tonic::{Code, Status};
use tonic_types::{ErrorDetails, FieldViolation, StatusExt};

use crate::service::exec::{Busy, ExecError};

/// The `ErrorInfo.domain` of every error.
pub const DOMAIN: &str = "tafl.v1";

/// Why a call failed, as `ErrorInfo.reason` and `FieldViolation.reason` spell
/// it. The list is part of the contract: clients match on these names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, strum::IntoStaticStr, strum::EnumIter)]
#[strum(serialize_all = "SCREAMING_SNAKE_CASE")]
pub enum Reason {
    /// Move text unreadable (also `e1-e1`, off-board squares).
    MalformedMove,
    /// Start text unreadable.
    MalformedPosition,
    /// Unknown rules value, a size other than 0/9/11/13, a start of another size.
    BadVariant,
    /// A start that breaks the rules' boards.
    ImpossibleStart,
    /// LegalMoves' `square` unreadable or off the board.
    BadSquare,
    /// A level above 10, multi_pv above 8.
    BadLimits,
    /// More moves than the configured cap.
    GameTooLong,
    /// The request's bytes are not the method's protobuf message.
    MalformedMessage,
    /// Nothing on the from square.
    NoPiece,
    /// The piece belongs to the side not to move.
    NotYourPiece,
    /// Not along a rank or a file.
    NotStraight,
    /// A piece stands in the way (or on the target).
    Blocked,
    /// Stops on the throne or a corner (not the king), or passes the throne where forbidden.
    RestrictedSquare,
    /// The move's capture list differs from what it takes.
    CapturesMismatch,
    /// A move (or a search) after the end.
    GameOver,
    /// More searches waiting than the server accepts.
    Overloaded,
    /// The call's deadline passed, or leaves no time, before the server could answer.
    DeadlineExceeded,
}

/// Who must act on an error: `ErrorInfo.metadata["kind"]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, strum::IntoStaticStr)]
#[strum(serialize_all = "snake_case")]
pub enum Kind {
    /// A player's illegal move: the game server tells its player.
    IllegalMove,
    /// The caller's own mistake.
    BadRequest,
    /// A move or a search after the end.
    GameOver,
    /// The server is busy: worth trying again later.
    Overloaded,
}

impl Reason {
    /// The reason as sent: `"NOT_YOUR_PIECE"`.
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// Who must act on it.
    pub fn kind(self) -> Kind {
        match self {
            Reason::MalformedMove
            | Reason::MalformedPosition
            | Reason::BadVariant
            | Reason::ImpossibleStart
            | Reason::BadSquare
            | Reason::BadLimits
            | Reason::GameTooLong
            | Reason::MalformedMessage => Kind::BadRequest,
            Reason::NoPiece
            | Reason::NotYourPiece
            | Reason::NotStraight
            | Reason::Blocked
            | Reason::RestrictedSquare
            | Reason::CapturesMismatch => Kind::IllegalMove,
            Reason::GameOver => Kind::GameOver,
            Reason::Overloaded | Reason::DeadlineExceeded => Kind::Overloaded,
        }
    }
}

/// Longest piece of caller text quoted back in an error message.
const MAX_QUOTE_CHARS: usize = 40;

/// What went wrong with a call, before it becomes a [`Status`].
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// A field the caller sent is unreadable or breaks the rules.
    #[error("{field}: {description}")]
    InvalidArgument {
        field: String,
        description: String,
        reason: Reason,
        /// The index into `game.moves` of the ply at fault, if one is.
        ply: Option<usize>,
    },

    /// The request's bytes do not decode as the method's message.
    #[error("the message is not valid protobuf: {0}")]
    MalformedMessage(String),

    /// A move (or a search) was asked for after the game ended.
    #[error("{subject}: {description}")]
    GameOver {
        subject: String,
        description: String,
        /// The index into `game.moves` of the move refused, if a move was.
        ply: Option<usize>,
    },

    /// A pool holds as much work as it takes, or the work could not start
    /// in time: what it holds, and the wait worth trying after (RetryInfo,
    /// `grpc-retry-pushback-ms`).
    #[error(
        "the server is busy ({pool}: {running} running, {waiting} waiting); try again later",
        pool = .0.pool,
        running = .0.running,
        waiting = .0.waiting
    )]
    Busy(Busy),

    /// The requests being read at once already fill the connection's or the
    /// server's budget.
    #[error(
        "the server is busy: requests already being read fill its request memory; try again later"
    )]
    BusyReading {
        /// The wait worth trying after (RetryInfo, `grpc-retry-pushback-ms`).
        retry_after: std::time::Duration,
    },

    /// The large responses waiting for their callers to read them already
    /// fill the connection's or the server's budget.
    #[error(
        "the server is busy: responses waiting to be read fill its response memory; try again later"
    )]
    BusySending {
        /// The wait worth trying after (RetryInfo, `grpc-retry-pushback-ms`).
        retry_after: std::time::Duration,
    },

    /// The server holds as many open calls as it takes.
    #[error("the server is busy: it holds as many open calls as it takes; try again later")]
    BusyCalls {
        /// The wait worth trying after (RetryInfo, `grpc-retry-pushback-ms`).
        retry_after: std::time::Duration,
    },

    /// Not even a depth-1 search fits the call's deadline.
    #[error("the deadline leaves no time for even a depth-1 search")]
    DeadlineTooShort,

    /// The call's deadline passed before its answer was ready.
    #[error("the deadline passed before the answer was ready")]
    DeadlineExpired,

    /// The server is shutting down.
    #[error("the server is shutting down")]
    ShuttingDown,

    /// A bug on our side; the text is logged, not sent.
    #[error("internal error: {0}")]
    Internal(String),
}

impl ServiceError {
    /// An INVALID_ARGUMENT naming `field`, for `reason`.
    pub fn invalid(
        field: impl Into<String>,
        reason: Reason,
        description: impl Into<String>,
    ) -> Self {
        ServiceError::InvalidArgument {
            field: field.into(),
            description: description.into(),
            reason,
            ply: None,
        }
    }

    /// A FAILED_PRECONDITION about `subject` because the game is over.
    pub fn game_over(subject: impl Into<String>, description: impl Into<String>) -> Self {
        ServiceError::GameOver {
            subject: subject.into(),
            description: description.into(),
            ply: None,
        }
    }

    /// The same error, blaming the ply `index` into `game.moves`.
    #[must_use]
    pub fn at_ply(mut self, index: usize) -> Self {
        if let ServiceError::InvalidArgument { ply, .. } | ServiceError::GameOver { ply, .. } =
            &mut self
        {
            *ply = Some(index);
        }
        self
    }

    /// The machine-readable reason, for the errors a caller causes.
    pub fn reason(&self) -> Option<Reason> {
        match self {
            ServiceError::InvalidArgument { reason, .. } => Some(*reason),
            ServiceError::MalformedMessage(_) => Some(Reason::MalformedMessage),
            ServiceError::GameOver { .. } => Some(Reason::GameOver),
            ServiceError::Busy(_)
            | ServiceError::BusyReading { .. }
            | ServiceError::BusySending { .. }
            | ServiceError::BusyCalls { .. } => Some(Reason::Overloaded),
            ServiceError::DeadlineTooShort | ServiceError::DeadlineExpired => {
                Some(Reason::DeadlineExceeded)
            }
            ServiceError::ShuttingDown | ServiceError::Internal(_) => None,
        }
    }

    /// The sentence without the field prefix.
    pub fn description(&self) -> String {
        match self {
            ServiceError::InvalidArgument { description, .. }
            | ServiceError::GameOver { description, .. } => description.clone(),
            other => other.to_string(),
        }
    }

    /// The gRPC code this error is sent with.
    pub fn code(&self) -> Code {
        match self {
            ServiceError::InvalidArgument { .. } | ServiceError::MalformedMessage(_) => {
                Code::InvalidArgument
            }
            ServiceError::GameOver { .. } => Code::FailedPrecondition,
            ServiceError::Busy(_)
            | ServiceError::BusyReading { .. }
            | ServiceError::BusySending { .. }
            | ServiceError::BusyCalls { .. } => Code::ResourceExhausted,
            ServiceError::DeadlineTooShort | ServiceError::DeadlineExpired => {
                Code::DeadlineExceeded
            }
            ServiceError::ShuttingDown => Code::Unavailable,
            ServiceError::Internal(_) => Code::Internal,
        }
    }
}

impl From<ExecError> for ServiceError {
    fn from(error: ExecError) -> ServiceError {
        match error {
            ExecError::Busy(busy) => ServiceError::Busy(busy),
            ExecError::DeadlinePassed => ServiceError::DeadlineTooShort,
            ExecError::ShuttingDown => ServiceError::ShuttingDown,
            ExecError::Failed(detail) => ServiceError::Internal(detail),
        }
    }
}

/// The precondition type named in `PreconditionFailure` for moves after the end.
pub const GAME_OVER: &str = "GAME_OVER";

/// `google.rpc.ErrorInfo` as tonic-types has it, but with its metadata in key
/// order: the same error is then the same bytes on every call (tonic-types'
/// map is a `HashMap`, whose order changes from one process to the next).
#[derive(Clone, PartialEq, prost::Message)]
struct OrderedErrorInfo {
    #[prost(string, tag = "1")]
    reason: String,
    #[prost(string, tag = "2")]
    domain: String,
    #[prost(btree_map = "string, string", tag = "3")]
    metadata: BTreeMap<String, String>,
}

/// The `Any` type URLs of `google.rpc.ErrorInfo` and of its readable copy.
const ERROR_INFO_TYPE: &str = "type.googleapis.com/google.rpc.ErrorInfo";
const STRUCT_TYPE: &str = "type.googleapis.com/google.protobuf.Struct";

/// `ErrorInfo` for `reason`, with the metadata clients read.
fn error_info(reason: Reason, field: Option<&str>, ply: Option<usize>) -> OrderedErrorInfo {
    let mut metadata =
        BTreeMap::from([("kind".to_owned(), <&str>::from(reason.kind()).to_owned())]);
    if let Some(field) = field {
        metadata.insert("field".to_owned(), field.to_owned());
    }
    if let Some(ply) = ply {
        metadata.insert("ply".to_owned(), ply.to_string());
    }
    OrderedErrorInfo {
        reason: reason.as_str().to_owned(),
        domain: DOMAIN.to_owned(),
        metadata,
    }
}

/// `info` as a `google.protobuf.Struct`: generic tools that decode only the
/// well-known types (`buf curl` prints such a detail as JSON) show the reason
/// and metadata from it; programs read the `ErrorInfo` itself.
fn readable_copy(info: &OrderedErrorInfo) -> prost_types::Struct {
    let text = |s: &str| prost_types::Value {
        kind: Some(prost_types::value::Kind::StringValue(s.to_owned())),
    };
    let mut fields = BTreeMap::new();
    fields.insert("reason".to_owned(), text(&info.reason));
    fields.insert("domain".to_owned(), text(&info.domain));
    let metadata = info
        .metadata
        .iter()
        .map(|(key, value)| (key.clone(), text(value)))
        .collect();
    fields.insert(
        "metadata".to_owned(),
        prost_types::Value {
            kind: Some(prost_types::value::Kind::StructValue(prost_types::Struct {
                fields: metadata,
            })),
        },
    );
    prost_types::Struct { fields }
}

/// A status carrying `info` first, then `details`, then `info`'s readable copy.
fn with_details(
    code: Code,
    message: String,
    info: OrderedErrorInfo,
    details: ErrorDetails,
) -> Status {
    let status = Status::with_error_details(code, message, details);
    let Ok(mut rpc_status) = tonic_types::pb::Status::decode(status.details()) else {
        return status;
    };
    let readable = readable_copy(&info);
    rpc_status.details.insert(
        0,
        prost_types::Any {
            type_url: ERROR_INFO_TYPE.to_owned(),
            value: info.encode_to_vec(),
        },
    );
    rpc_status.details.push(prost_types::Any {
        type_url: STRUCT_TYPE.to_owned(),
        value: readable.encode_to_vec(),
    });
    Status::with_details(code, status.message(), rpc_status.encode_to_vec().into())
}

impl From<ServiceError> for Status {
    fn from(error: ServiceError) -> Status {
        let code = error.code();
        let message = error.to_string();
        let mut details = ErrorDetails::new();
        let info = match error {
            ServiceError::InvalidArgument {
                field,
                description,
                reason,
                ply,
            } => {
                let info = error_info(reason, Some(&field), ply);
                details.set_bad_request(vec![FieldViolation {
                    field,
                    description,
                    reason: reason.as_str().to_owned(),
                    localized_message: None,
                }]);
                info
            }
            ServiceError::GameOver {
                subject,
                description,
                ply,
            } => {
                let info = error_info(Reason::GameOver, Some(&subject), ply);
                details.add_precondition_failure_violation(GAME_OVER, subject, description);
                info
            }
            ServiceError::Busy(Busy { retry_after, .. })
            | ServiceError::BusyReading { retry_after }
            | ServiceError::BusySending { retry_after }
            | ServiceError::BusyCalls { retry_after } => {
                details.set_retry_info(Some(retry_after));
                let mut status = with_details(
                    code,
                    message,
                    error_info(Reason::Overloaded, None, None),
                    details,
                );
                // gRPC clients' own retry logic reads this trailer.
                if let Ok(value) = retry_after.as_millis().max(1).to_string().parse() {
                    status
                        .metadata_mut()
                        .insert("grpc-retry-pushback-ms", value);
                }
                return status;
            }
            ServiceError::Internal(detail) => {
                tracing::error!(%detail, "internal error");
                crate::service::telemetry::mark_server_fault();
                return Status::internal("internal error");
            }
            ServiceError::DeadlineTooShort | ServiceError::DeadlineExpired => {
                error_info(Reason::DeadlineExceeded, None, None)
            }
            ServiceError::MalformedMessage(_) => error_info(Reason::MalformedMessage, None, None),
            ServiceError::ShuttingDown => return Status::new(code, message),
        };
        with_details(code, message, info, details)
    }
}

/// Caller text fit to quote in an error: at most a few dozen characters,
/// control characters escaped.
pub fn quote(text: &str) -> String {
    let mut quoted: String = text
        .chars()
        .take(MAX_QUOTE_CHARS)
        .flat_map(char::escape_debug)
        .collect();
    if text.chars().nth(MAX_QUOTE_CHARS).is_some() {
        quoted.push('…');
    }
    format!("\"{quoted}\"")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::exec::Pool;

    /// The same error is the same bytes on every call (the metadata in key order), and its
    /// readable copy, the last detail, says what its ErrorInfo says.
    #[test]
    fn error_details_are_stable_and_readable() {
        let status = || {
            Status::from(
                ServiceError::invalid("game.moves[3]", Reason::Blocked, "e1-e9 is blocked")
                    .at_ply(3),
            )
        };
        let details = status().details().to_vec();
        for _ in 0..20 {
            assert_eq!(status().details(), &details[..]);
        }
        let rpc_status =
            tonic_types::pb::Status::decode(&details[..]).expect("a google.rpc.Status");
        assert_eq!(rpc_status.details[0].type_url, ERROR_INFO_TYPE);
        let copy = rpc_status.details.last().expect("details");
        assert_eq!(copy.type_url, STRUCT_TYPE);
        let copy = prost_types::Struct::decode(&copy.value[..]).expect("a Struct");
        let text = |value: &prost_types::Value| match &value.kind {
            Some(prost_types::value::Kind::StringValue(text)) => text.clone(),
            other => panic!("not text: {other:?}"),
        };
        assert_eq!(text(&copy.fields["reason"]), "BLOCKED");
        assert_eq!(text(&copy.fields["domain"]), DOMAIN);
        let Some(prost_types::value::Kind::StructValue(metadata)) = &copy.fields["metadata"].kind
        else {
            panic!("no metadata");
        };
        let info = status().get_details_error_info().expect("error info");
        assert_eq!(metadata.fields.len(), info.metadata.len());
        for (key, value) in &info.metadata {
            assert_eq!(&text(&metadata.fields[key]), value, "{key}");
        }
    }

    #[test]
    fn bad_request_names_the_field_and_the_reason() {
        let error = ServiceError::invalid("game.moves[3]", Reason::Blocked, "e1-e9 is blocked");
        let status = Status::from(error.at_ply(3));
        assert_eq!(status.code(), Code::InvalidArgument);
        assert_eq!(status.message(), "game.moves[3]: e1-e9 is blocked");
        let bad_request = status.get_details_bad_request().expect("bad request");
        assert_eq!(bad_request.field_violations[0].field, "game.moves[3]");
        assert_eq!(bad_request.field_violations[0].reason, "BLOCKED");
        let info = status.get_details_error_info().expect("error info");
        assert_eq!(info.reason, "BLOCKED");
        assert_eq!(info.domain, DOMAIN);
        assert_eq!(info.metadata["kind"], "illegal_move");
        assert_eq!(info.metadata["field"], "game.moves[3]");
        assert_eq!(info.metadata["ply"], "3");
    }

    #[test]
    fn game_over_is_a_precondition_failure() {
        let status = Status::from(ServiceError::game_over("next_move", "the game is over"));
        assert_eq!(status.code(), Code::FailedPrecondition);
        let failure = status.get_details_precondition_failure().expect("details");
        assert_eq!(failure.violations[0].subject, "next_move");
        assert_eq!(failure.violations[0].r#type, GAME_OVER);
        let info = status.get_details_error_info().expect("error info");
        assert_eq!(info.reason, "GAME_OVER");
        assert_eq!(info.metadata["kind"], "game_over");
        assert!(!info.metadata.contains_key("ply"));
    }

    #[test]
    fn busy_is_overloaded() {
        let status = Status::from(ServiceError::Busy(Busy {
            pool: Pool::Reviews,
            why: crate::service::exec::Refusal::Full,
            running: 2,
            waiting: 0,
            retry_after: std::time::Duration::from_millis(1500),
        }));
        assert_eq!(
            status.message(),
            "the server is busy (game reviews: 2 running, 0 waiting); try again later"
        );
        assert_eq!(status.code(), Code::ResourceExhausted);
        let info = status.get_details_error_info().expect("error info");
        assert_eq!(info.reason, "OVERLOADED");
        assert_eq!(info.metadata["kind"], "overloaded");
        // And when to retry.
        let retry = status.get_details_retry_info().expect("retry info");
        assert_eq!(
            retry.retry_delay,
            Some(std::time::Duration::from_millis(1500))
        );
        assert_eq!(
            status.metadata().get("grpc-retry-pushback-ms").unwrap(),
            "1500"
        );
    }

    #[test]
    fn an_expired_deadline_says_so_with_error_info() {
        for error in [
            ServiceError::DeadlineExpired,
            ServiceError::DeadlineTooShort,
        ] {
            let sentence = error.to_string();
            let status = Status::from(error);
            assert_eq!(status.code(), Code::DeadlineExceeded);
            assert_eq!(status.message(), sentence);
            let info = status.get_details_error_info().expect("error info");
            assert_eq!(info.reason, "DEADLINE_EXCEEDED");
            assert_eq!(info.metadata["kind"], "overloaded");
        }
    }

    #[test]
    fn reasons_are_screaming_snake_case() {
        use strum::IntoEnumIterator;
        for reason in Reason::iter() {
            let name = reason.as_str();
            assert!(
                name.chars().all(|c| c.is_ascii_uppercase() || c == '_'),
                "{name}"
            );
        }
        assert_eq!(Reason::CapturesMismatch.as_str(), "CAPTURES_MISMATCH");
        assert_eq!(<&str>::from(Kind::IllegalMove), "illegal_move");
    }

    #[test]
    fn internal_details_stay_inside() {
        let status = Status::from(ServiceError::Internal("secret".into()));
        assert_eq!(status.code(), Code::Internal);
        assert!(!status.message().contains("secret"));
    }

    #[test]
    fn quotes_are_short_and_escaped() {
        assert_eq!(quote("e1-e4"), "\"e1-e4\"");
        assert_eq!(quote("a\nb"), "\"a\\nb\"");
        let long = "x".repeat(1_000_000);
        assert!(quote(&long).len() < 60);
    }
}
