//! `tafl otep` as OpenTafl drives it: a scripted host session on the real
//! binary's stdin and stdout, line by line as the OpenTafl Engine Protocol
//! has them (docs/otep.md).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// A `tafl otep` process and the lines it writes.
struct Engine {
    child: Child,
    stdin: ChildStdin,
    replies: mpsc::Receiver<String>,
}

impl Engine {
    fn start() -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tafl"))
            .args(["otep", "--hash-mb", "1", "--movetime-ms", "200"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("tafl otep starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (sender, replies) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = sender.send(line);
            }
        });
        Engine {
            child,
            stdin,
            replies,
        }
    }

    /// Sends host lines, as OpenTafl does, without closing stdin.
    fn send(&mut self, lines: &[&str]) {
        for line in lines {
            writeln!(self.stdin, "{line}").unwrap();
        }
        self.stdin.flush().unwrap();
    }

    /// The next line the engine writes.
    fn reply(&self) -> String {
        self.replies
            .recv_timeout(Duration::from_secs(60))
            .expect("the engine answers")
    }

    /// Waits for the process to end on its own; its exit status.
    fn wait(mut self) -> std::process::ExitStatus {
        for _ in 0..600 {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        panic!("the engine did not stop");
    }
}

/// Copenhagen on 9x9 from a start where the attackers' only legal move,
/// a3-a2, takes b2 (c2 stands beyond it), and the defenders' answer b3-b2
/// takes c2. Position records list rank 1 first.
const RULES: &str = "rules dim:9 name:Test tfr:w sw:s efe:y \
                     start:/2T6/1TtT5/tTT6/T8/4K4/9/9/9/9/";

#[test]
fn a_scripted_game_with_captures_on_both_sides() {
    let mut engine = Engine::start();
    assert_eq!(engine.reply(), "hello");
    engine.send(&[
        "hello",
        RULES,
        "side attackers",
        "start",
        "play attackers",
        "clock 60000 60000 0 0 0",
    ]);
    assert_eq!(engine.reply(), "status tafl plays copenhagen 9x9");
    assert_eq!(engine.reply(), "move a3-a2xb2");

    engine.send(&[
        // OpenTafl accepts the move and shows the board after it.
        "move /2T6/t1tT5/1TT6/T8/4K4/9/9/9/9/",
        // The defenders take c2 (in OTN's full notation, with the capture).
        "opponent-move b3-b2xc2 /2T6/tT1T5/2T6/T8/4K4/9/9/9/9/",
        // Some OpenTafl versions send the clock before play.
        "clock 59000 60000 0 0 0",
        "play attackers",
    ]);
    // a2's only move; no capture.
    assert_eq!(engine.reply(), "move a2-a3");

    engine.send(&["move /2T6/1T1T5/t1T6/T8/4K4/9/9/9/9/", "finish 3"]);
    assert_eq!(
        engine.reply(),
        "status OpenTafl judged a defenders' win; by tafl's rules the game stands: ongoing"
    );
    // goodbye ends the engine with stdin still open.
    engine.send(&["goodbye"]);
    assert!(engine.wait().success());
}

#[test]
fn a_move_tafl_would_not_allow_is_a_critical_error() {
    let mut engine = Engine::start();
    assert_eq!(engine.reply(), "hello");
    engine.send(&[
        RULES,
        "side defenders",
        "start",
        // The attackers' only legal move is a3-a2: c2 cannot move.
        "opponent-move c2-h2 /2T6/1T1T3t1/tTT6/T8/4K4/9/9/9/9/",
    ]);
    assert_eq!(engine.reply(), "status tafl plays copenhagen 9x9");
    let reply = engine.reply();
    assert!(
        reply.starts_with("error -1 the opponent's move c2-h2: "),
        "{reply}"
    );
    engine.send(&["goodbye"]);
    assert!(engine.wait().success());
}

#[test]
fn a_board_that_differs_from_tafls_is_a_critical_error() {
    let mut engine = Engine::start();
    assert_eq!(engine.reply(), "hello");
    engine.send(&[
        RULES,
        // a3-a2 played, but the host's board kept b2: its rules differ.
        "opponent-move a3-a2 /2T6/tTtT5/1TT6/T8/4K4/9/9/9/9/",
    ]);
    assert_eq!(engine.reply(), "status tafl plays copenhagen 9x9");
    let reply = engine.reply();
    assert!(
        reply.starts_with("error -1 OpenTafl's board /2T6/tTtT5/"),
        "{reply}"
    );
    // The engine will not play on from a board it doubts.
    engine.send(&["play defenders"]);
    assert_eq!(
        engine.reply(),
        "error -1 no game: no rules tafl plays came, or an error ended the game"
    );
    drop(engine.stdin);
    assert!(engine.child.wait().unwrap().success());
}

#[test]
fn rules_tafl_does_not_play_are_refused_with_the_reason() {
    let mut engine = Engine::start();
    assert_eq!(engine.reply(), "hello");
    engine.send(&[
        // OpenTafl's Brandub: a 7x7 board.
        "rules dim:7 ks:n cenhe: cenh: start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/",
        // Sea Battle: edge escape, unarmed king, no corners.
        "rules dim:9 esc:e ka:n cen: cenhe: cor: start:/3ttt3/4t4/4T4/t3T3t/ttTTKTTtt/t3T3t/4T4/4t4/3ttt3/",
        "play attackers",
    ]);
    assert_eq!(
        engine.reply(),
        "error -1 dim:7: tafl plays 9x9, 11x11 and 13x13 boards"
    );
    let reply = engine.reply();
    assert!(
        reply.starts_with("error -1 rules not supported: the nearest tafl plays is ")
            && reply.contains("esc:e (esc:c)"),
        "{reply}"
    );
    assert_eq!(
        engine.reply(),
        "error -1 no game: no rules tafl plays came, or an error ended the game"
    );
    drop(engine.stdin);
    assert!(engine.child.wait().unwrap().success());
}
