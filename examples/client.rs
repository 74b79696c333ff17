//! A caller of the tafl service: plays one game turn by turn against a
//! running server, asking `SuggestMove` for each side's move, judging it with
//! `ApplyMove` and listing the next position's moves with `LegalMoves`, then
//! shows what a refused move looks like.
//!
//! ```sh
//! cargo run --release &                                   # the server, on 127.0.0.1:50051
//! cargo run --release --example client -- --plies 20      # this client
//! cargo run --release --example client -- --addr 127.0.0.1:50051 --rules tablut
//! ```
//!
//! The request carries the whole game every time: the service keeps nothing
//! between calls, so the caller holds the move list.

use std::error::Error;
use std::process::ExitCode;

use clap::Parser;
use tafl::service::pb::tafl_service_client::TaflServiceClient;
use tafl::service::pb::{
    ApplyMoveRequest, Game, GameResult, LegalMovesRequest, Rules, SuggestMoveRequest, Variant,
};
use tonic::{Code, Status};
use tonic_types::StatusExt;

#[derive(Debug, Parser)]
struct Args {
    /// The server's address: host:port, as `tafl serve --listen` takes it, or a URL.
    #[arg(long, default_value = "127.0.0.1:50051")]
    addr: String,
    /// copenhagen, fetlar or tablut.
    #[arg(long, default_value = "copenhagen")]
    rules: String,
    /// The AI's strength for both sides, 1..10; below 10 the game is the same every run.
    #[arg(long, default_value_t = 3)]
    level: u32,
    /// Stop after this many plies if the game is not over by then.
    #[arg(long, default_value_t = 40)]
    plies: usize,
}

#[tokio::main]
async fn main() -> ExitCode {
    match play(Args::parse()).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            // A call the server refused or could not answer: its code and sentence, not a dump.
            match error.downcast_ref::<Status>() {
                Some(status) => eprintln!("client: {:?}: {}", status.code(), status.message()),
                None => eprintln!("client: {error}"),
            }
            ExitCode::FAILURE
        }
    }
}

async fn play(args: Args) -> Result<(), Box<dyn Error>> {
    let rules = Rules::from_str_name(&format!("RULES_{}", args.rules.to_ascii_uppercase()))
        .ok_or_else(|| format!("--rules {}: use copenhagen, fetlar or tablut", args.rules))?;
    // tonic wants a URL; the other clients and `--listen` take host:port.
    let url = if args.addr.contains("://") {
        args.addr.clone()
    } else {
        format!("http://{}", args.addr)
    };
    let mut client = TaflServiceClient::connect(url.clone())
        .await
        .map_err(|error| {
            format!(
                "no tafl server answers at {url} ({}); start one with `cargo run --release`, \
                 or name another with --addr",
                with_causes(&error)
            )
        })?;
    let mut game = Game {
        variant: Some(Variant {
            rules: rules.into(),
            board_size: 0,
        }),
        start: String::new(),
        moves: Vec::new(),
    };

    while game.moves.len() < args.plies {
        let legal = client
            .legal_moves(LegalMovesRequest {
                game: Some(game.clone()),
                square: String::new(),
            })
            .await?
            .into_inner();
        if legal
            .status
            .is_some_and(|status| status.result() != GameResult::Ongoing)
        {
            break;
        }
        let suggested = client
            .suggest_move(SuggestMoveRequest {
                game: Some(game.clone()),
                limits: None,
                level: args.level,
                // A seed per ply: the same game every run, not the same noise every move.
                seed: game.moves.len() as u64,
                clock: None,
            })
            .await?
            .into_inner();
        let best = suggested.best_move.ok_or("SuggestMove sent no move")?;
        let applied = client
            .apply_move(ApplyMoveRequest {
                game: Some(game.clone()),
                next_move: best.text.clone(),
                include_legal_moves: false,
            })
            .await?
            .into_inner();
        let position = applied.position.ok_or("ApplyMove sent no position")?;
        let played = applied.played.ok_or("ApplyMove sent no move")?;
        println!(
            "ply {:>3}  {:<10} of {:>3} legal  score {:>6}  {}",
            position.ply,
            played.text,
            legal.moves.len(),
            suggested.score,
            position.text
        );
        game.moves.push(played.text);
        if let Some(status) = applied.status
            && status.result() != GameResult::Ongoing
        {
            println!(
                "game over: {} ({})",
                status.result().as_str_name(),
                status.reason().as_str_name()
            );
            break;
        }
    }

    // A move the rules refuse: the status names the field and says why.
    let refused = client
        .apply_move(ApplyMoveRequest {
            game: Some(game.clone()),
            next_move: "a1-a2".into(),
            include_legal_moves: false,
        })
        .await
        .expect_err("a move from a corner is never legal");
    println!("a1-a2 refused: {:?}: {}", refused.code(), refused.message());
    // ErrorInfo when the server sends one (a stable reason to branch on),
    // else the field-level details.
    if let Some(info) = refused.get_details_error_info() {
        let mut metadata: Vec<_> = info.metadata.into_iter().collect();
        metadata.sort();
        println!("  reason {} ({}) {metadata:?}", info.reason, info.domain);
    } else if let Some(bad_request) = refused.get_details_bad_request() {
        for violation in bad_request.field_violations {
            println!("  field {}: {}", violation.field, violation.description);
        }
    } else if let Some(precondition) = refused.get_details_precondition_failure() {
        for violation in precondition.violations {
            println!(
                "  {} {}: {}",
                violation.r#type, violation.subject, violation.description
            );
        }
    }
    assert!(matches!(
        refused.code(),
        Code::InvalidArgument | Code::FailedPrecondition
    ));
    Ok(())
}

/// An error and the errors that caused it, on one line ("transport error: tcp
/// connect error: Connection refused (os error 111)"); hyper wraps some in a
/// layer that says the same, said once here.
fn with_causes(error: &dyn Error) -> String {
    let mut text = error.to_string();
    let mut said = text.clone();
    let mut cause = error.source();
    while let Some(inner) = cause {
        let this = inner.to_string();
        if this != said {
            text = format!("{text}: {this}");
        }
        said = this;
        cause = inner.source();
    }
    text
}
