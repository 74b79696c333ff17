//! Compiles `proto/` with protox (pure Rust, no system `protoc`) and generates
//! the tonic server and client, plus the descriptor set served by reflection.

#[cfg(feature = "service")]
use std::{env, fs, path::PathBuf};

// Without the `service` feature the crate is the rules and the search alone: nothing to generate.
#[cfg(not(feature = "service"))]
fn main() {}

#[cfg(feature = "service")]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let proto = "proto/tafl/v1/tafl.proto";
    println!("cargo:rerun-if-changed={proto}");

    let mut compiler = protox::Compiler::new(["proto"])?;
    // Source info keeps the proto comments, so reflection clients see the docs.
    compiler.include_imports(true).include_source_info(true);
    compiler.open_files([proto])?;

    let out_dir = PathBuf::from(env::var("OUT_DIR")?);
    fs::write(
        out_dir.join("tafl_descriptor.bin"),
        compiler.encode_file_descriptor_set(),
    )?;

    // The messages and the client, as prost writes them.
    tonic_prost_build::configure()
        .build_server(false)
        .build_client(true)
        // Our codec answers undecodable requests with INVALID_ARGUMENT, not INTERNAL.
        .codec_path("crate::service::transport::codec::TaflCodec")
        .compile_fds(compiler.file_descriptor_set())?;
    // The server, on those messages, except that LegalMoves and ApplyMove, the
    // calls of every turn, read their games' moves into one buffer each and
    // answer with replies encoded straight from the rules' types: no string
    // a move, allocated, copied and freed.
    let server_dir = out_dir.join("server");
    fs::create_dir_all(&server_dir)?;
    tonic_prost_build::configure()
        .build_server(true)
        .build_client(false)
        .codec_path("crate::service::transport::codec::TaflCodec")
        .extern_path(".tafl.v1", "crate::service::pb")
        .extern_path(
            ".tafl.v1.LegalMovesRequest",
            "crate::service::api::LegalMovesQuery",
        )
        .extern_path(
            ".tafl.v1.ApplyMoveRequest",
            "crate::service::api::ApplyMoveQuery",
        )
        .extern_path(
            ".tafl.v1.LegalMovesResponse",
            "crate::service::api::LegalMovesReply",
        )
        .extern_path(
            ".tafl.v1.ApplyMoveResponse",
            "crate::service::api::ApplyMoveReply",
        )
        .out_dir(server_dir)
        .compile_fds(compiler.file_descriptor_set())?;
    Ok(())
}
