//! `Game::previewed_moves` checked the slow way: each legal move previewed
//! alone with `Game::preview`, which plays it out in full.

use tafl::rules::{Game, PlayedMove};

/// The previews of `previewed_moves`, checked; `Err` names the first move
/// whose preview among them is not what `Game::preview` says of it alone,
/// or the moves when the lists differ.
pub fn check_previews(game: &Game) -> Result<Vec<PlayedMove>, String> {
    let previews: Vec<PlayedMove> = game.previewed_moves(None).collect();
    let legal = if game.status().is_over() {
        Vec::new()
    } else {
        game.position().legal_moves_by_file().to_vec()
    };
    let moves: Vec<_> = previews.iter().map(|preview| preview.played).collect();
    if moves != legal {
        return Err(format!(
            "previewed moves: expected the {} legal moves, got {}",
            legal.len(),
            moves.len()
        ));
    }
    for &preview in &previews {
        let alone = game.preview(preview.played).map_err(|e| e.to_string())?;
        if preview != alone {
            return Err(format!(
                "preview of {}: among all moves {preview:?}, alone {alone:?}",
                preview.played
            ));
        }
    }
    Ok(previews)
}
