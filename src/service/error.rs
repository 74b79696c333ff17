//! The one place where the service's errors become gRPC statuses.
//!
//! Every error a caller can cause carries a sentence saying why, and the
//! field-level ones a `google.rpc.BadRequest` or `google.rpc.PreconditionFailure`
//! naming the field. Internal details are logged here, once, and never sent.

use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};

/// Longest piece of caller text quoted back in an error message.
const MAX_QUOTE_CHARS: usize = 40;

/// What went wrong with a call, before it becomes a [`Status`].
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// A field the caller sent is unreadable or breaks the rules.
    #[error("{field}: {description}")]
    InvalidArgument { field: String, description: String },

    /// A move (or a search) was asked for after the game ended.
    #[error("{subject}: {description}")]
    GameOver {
        subject: String,
        description: String,
    },

    /// More searches are waiting than the server accepts.
    #[error(
        "the server is busy: {waiting} searches are already running or waiting; try again later"
    )]
    Busy {
        waiting: usize,
        /// The wait worth trying after (RetryInfo, `grpc-retry-pushback-ms`).
        retry_after: std::time::Duration,
    },

    /// Not even a depth-1 search fits the call's deadline.
    #[error("the deadline leaves no time for even a depth-1 search")]
    DeadlineTooShort,

    /// The server is shutting down.
    #[error("the server is shutting down")]
    ShuttingDown,

    /// A bug on our side; the text is logged, not sent.
    #[error("internal error: {0}")]
    Internal(String),
}

impl ServiceError {
    /// An INVALID_ARGUMENT naming `field`.
    pub fn invalid(field: impl Into<String>, description: impl Into<String>) -> Self {
        ServiceError::InvalidArgument {
            field: field.into(),
            description: description.into(),
        }
    }

    /// A FAILED_PRECONDITION about `subject` because the game is over.
    pub fn game_over(subject: impl Into<String>, description: impl Into<String>) -> Self {
        ServiceError::GameOver {
            subject: subject.into(),
            description: description.into(),
        }
    }

    /// The gRPC code this error is sent with.
    pub fn code(&self) -> Code {
        match self {
            ServiceError::InvalidArgument { .. } => Code::InvalidArgument,
            ServiceError::GameOver { .. } => Code::FailedPrecondition,
            ServiceError::Busy { .. } => Code::ResourceExhausted,
            ServiceError::DeadlineTooShort => Code::DeadlineExceeded,
            ServiceError::ShuttingDown => Code::Unavailable,
            ServiceError::Internal(_) => Code::Internal,
        }
    }
}

/// The precondition type named in `PreconditionFailure` for moves after the end.
pub const GAME_OVER: &str = "GAME_OVER";

impl From<ServiceError> for Status {
    fn from(error: ServiceError) -> Status {
        let code = error.code();
        match error {
            ServiceError::InvalidArgument { field, description } => Status::with_error_details(
                code,
                format!("{field}: {description}"),
                ErrorDetails::with_bad_request_violation(field, description),
            ),
            ServiceError::GameOver {
                subject,
                description,
            } => Status::with_error_details(
                code,
                format!("{subject}: {description}"),
                ErrorDetails::with_precondition_failure_violation(GAME_OVER, subject, description),
            ),
            ServiceError::Busy { retry_after, .. } => {
                let message = error.to_string();
                let mut status = Status::with_error_details(
                    code,
                    message,
                    ErrorDetails::with_retry_info(Some(retry_after)),
                );
                // gRPC clients' own retry logic reads this trailer.
                let pushback_ms = retry_after.as_millis().max(1).to_string();
                if let Ok(value) = pushback_ms.parse() {
                    status
                        .metadata_mut()
                        .insert("grpc-retry-pushback-ms", value);
                }
                status
            }
            ServiceError::Internal(detail) => {
                tracing::error!(%detail, "internal error");
                super::telemetry::mark_server_fault();
                Status::internal("internal error")
            }
            other => Status::new(code, other.to_string()),
        }
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

    #[test]
    fn bad_request_names_the_field() {
        let status = Status::from(ServiceError::invalid("game.moves[3]", "e1-e9 is blocked"));
        assert_eq!(status.code(), Code::InvalidArgument);
        assert_eq!(status.message(), "game.moves[3]: e1-e9 is blocked");
        let bad_request = status.get_details_bad_request().expect("bad request");
        assert_eq!(bad_request.field_violations[0].field, "game.moves[3]");
    }

    #[test]
    fn game_over_is_a_precondition_failure() {
        let status = Status::from(ServiceError::game_over("next_move", "the game is over"));
        assert_eq!(status.code(), Code::FailedPrecondition);
        let failure = status.get_details_precondition_failure().expect("details");
        assert_eq!(failure.violations[0].subject, "next_move");
        assert_eq!(failure.violations[0].r#type, GAME_OVER);
    }

    #[test]
    fn busy_says_when_to_retry() {
        let status = Status::from(ServiceError::Busy {
            waiting: 3,
            retry_after: std::time::Duration::from_millis(1500),
        });
        assert_eq!(status.code(), Code::ResourceExhausted);
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
