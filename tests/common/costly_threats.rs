//! A position that makes Threats work hard, for the tests and the soak
//! benchmark that flood the server with it.

use tafl::service::pb;

/// A 13×13 Copenhagen position whose Threats is among the costliest
/// found (about 20 ms of CPU in an optimised build): the king has two
/// escapes, so nearly every defender move is a double threat the proof
/// checks against every attacker reply.
pub fn costly_threats_game() -> pb::Game {
    pb::Game {
        variant: Some(pb::Variant {
            rules: pb::Rules::Copenhagen.into(),
            board_size: 13,
        }),
        start: "/13/1t9T1/2t7T2/3t5T3/4t3T4/5t1T5/13/5T1t4K/4T3t4/3T5t3/2T7t2/1T9t1/13/ d"
            .to_owned(),
        moves: Vec::new(),
    }
}
