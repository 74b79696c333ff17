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

    /// A started engine that has said hello.
    fn greeted() -> Engine {
        let engine = Engine::start();
        assert_eq!(engine.reply(), "hello");
        engine
    }

    /// Says goodbye, which ends the engine with stdin still open.
    fn goodbye(mut self) {
        self.send(&["goodbye"]);
        assert!(self.wait().success());
    }

    /// Sends host lines, as OpenTafl does, without closing stdin.
    fn send(&mut self, lines: &[&str]) {
        for line in lines {
            self.send_bytes(format!("{line}\n").as_bytes());
        }
    }

    /// Sends raw bytes, whatever they are.
    fn send_bytes(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).unwrap();
        self.stdin.flush().unwrap();
    }

    /// The next line the engine writes.
    fn reply(&self) -> String {
        self.replies
            .recv_timeout(Duration::from_secs(60))
            .expect("the engine answers")
    }

    /// Closes stdin, as a host that goes away does; every line the engine
    /// wrote that was not read yet, once it has ended (successfully).
    fn close(self) -> Vec<String> {
        let Engine {
            mut child,
            stdin,
            replies,
        } = self;
        drop(stdin);
        assert!(child.wait().unwrap().success());
        replies.iter().collect()
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
    let mut engine = Engine::greeted();
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

    // OpenTafl's player wins with b2-a2, taking the last attacker, and does
    // not send it: one of the defenders' moves ends the game so, and the
    // engine agrees in silence. OpenTafl says finish again on quitting (twice
    // after a resignation): nothing more is said.
    engine.send(&[
        "move /2T6/1T1T5/t1T6/T8/4K4/9/9/9/9/",
        "finish 3",
        "finish 3",
        "finish 0",
        "goodbye",
    ]);
    assert_eq!(engine.close(), Vec::<String>::new());
}

/// The king one step from a corner (a2, beside a1), the attackers to move:
/// whatever they play, the king's next move wins.
const CORNER_NEXT: &str = "rules dim:9 name:Test tfr:w sw:s efe:y start:/9/K8/9/9/3t5/9/9/9/9/";

/// A session that has played the attackers' first move of [`CORNER_NEXT`].
fn attackers_who_moved_beside_the_corner() -> Engine {
    let mut engine = Engine::greeted();
    engine.send(&[
        "hello",
        CORNER_NEXT,
        "side attackers",
        "start",
        "play attackers",
        "clock 60000 60000 0 0 0",
    ]);
    assert_eq!(engine.reply(), "status tafl plays copenhagen 9x9");
    assert!(engine.reply().starts_with("move "));
    engine
}

#[test]
fn a_game_opentafl_ended_with_a_move_it_did_not_send_is_not_disputed() {
    // OpenTafl's own player wins with its move and OpenTafl says `finish`
    // without sending that move: one of the defenders' moves wins, so the
    // engine agrees in silence (it used to say the game stood "ongoing").
    let mut engine = attackers_who_moved_beside_the_corner();
    engine.send(&["finish 3", "goodbye"]);
    assert_eq!(engine.close(), Vec::<String>::new());

    // No defenders' move could give the attackers the game: that is said.
    let mut engine = attackers_who_moved_beside_the_corner();
    engine.send(&["finish 2"]);
    assert_eq!(
        engine.reply(),
        "status OpenTafl judged an attackers' win; by its rules as tafl reads them the game \
         stands: ongoing"
    );
    engine.goodbye();
}

#[test]
fn nothing_but_hello_before_the_host_connects_the_game() {
    // OpenTafl 0.4.8 dies of a status or an error that comes before the
    // first play, clock or opponent-move: a host that leaves first hears
    // nothing else, whether the rules were played or refused.
    let setup = [
        "hello",
        "side attackers",
        "start",
        "position /9/9/9/9/4K4/9/9/9/9/",
    ];
    for rules in [RULES, "rules dim:7 start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/"] {
        let mut engine = Engine::start();
        engine.send(&[&[rules][..], &setup[..]].concat());
        assert_eq!(engine.close(), ["hello"], "{rules}");
    }
    // Each of the three connects it: what was held comes first.
    for first in [
        "clock 60000 60000 0 0 0",
        "play defenders",
        "opponent-move a3-a2 /2T6/t1tT5/1TT6/T8/4K4/9/9/9/9/",
    ] {
        let mut engine = Engine::greeted();
        engine.send(&[RULES, first]);
        assert_eq!(
            engine.reply(),
            "status tafl plays copenhagen 9x9",
            "{first}"
        );
    }
    // Refused rules: the refusal comes at the first play, and answers it.
    let mut engine = Engine::start();
    engine.send(&[
        "rules dim:7 start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/",
        "play attackers",
    ]);
    let replies = engine.close();
    assert_eq!(
        replies,
        [
            "hello",
            "error -1 dim:7: tafl plays 9x9, 11x11 and 13x13 boards"
        ]
    );
}

/// Copenhagen 9x9 under OpenTafl's repetition rule (`tfr:w`: the side that
/// makes the third repetition loses): one attacker on a3, the king on his
/// throne, a defender on d8.
const SHUTTLE: &str = "rules dim:9 name:Copenhagen atkf:y tfr:w sw:s efe:y \
                       start:/9/9/t8/9/4K4/9/9/3T5/9/";

/// Eight plies after which the attackers' b2-b3 would make the position
/// after a3-b3 stand the third time (attacker b2, king e5, defender d8).
const EIGHT_PLIES: &str = "opponent-move a3-b3|e5-e6|b3-b2|e6-e5|b2-b3|e5-e6|b3-b2|e6-e5 \
                           /9/1t7/9/9/4K4/9/9/3T5/9/";

#[test]
fn the_engine_never_makes_the_third_repetition_that_loses_it() {
    // tafl's own Copenhagen rule gives the attackers the third repetition,
    // whoever makes it; OpenTafl's gives it to the other side.
    let mut engine = Engine::greeted();
    engine.send(&[SHUTTLE, EIGHT_PLIES, "play attackers"]);
    assert_eq!(engine.reply(), "status tafl plays copenhagen 9x9");
    let reply = engine.reply();
    assert!(reply.starts_with("move b2-"), "{reply}");
    assert_ne!(reply, "move b2-b3");
    engine.goodbye();
}

#[test]
fn the_third_repetition_is_judged_as_the_host_judges_it() {
    // The attackers (OpenTafl's side here) make the third repetition: by
    // tfr:w the defenders win, and the engine agrees in silence.
    let mut engine = Engine::greeted();
    engine.send(&[
        SHUTTLE,
        EIGHT_PLIES,
        "opponent-move b2-b3 /9/9/1t7/9/4K4/9/9/3T5/9/",
        "finish 3",
    ]);
    assert_eq!(engine.close(), ["status tafl plays copenhagen 9x9"]);

    // Had OpenTafl said the attackers won, the engine would say otherwise.
    let mut engine = Engine::greeted();
    engine.send(&[
        SHUTTLE,
        "opponent-move a3-b3|e5-e6|b3-b2|e6-e5|b2-b3|e5-e6|b3-b2|e6-e5|b2-b3 \
         /9/9/1t7/9/4K4/9/9/3T5/9/",
        "finish 2",
    ]);
    assert_eq!(
        engine.close(),
        [
            "status tafl plays copenhagen 9x9",
            "status OpenTafl judged an attackers' win; by its rules as tafl reads them the game \
             stands: defenders win: the position stood for the third time"
        ]
    );
}

/// OpenTafl's own Fetlar (`surf:y`: encircled defenders lose) on 9x9: the
/// king on his throne inside a diamond of attackers open at e3, which the
/// attacker on h3 can close.
const RING: &str = "rules dim:9 name:Fetlar atkf:y nj:n cj:n \
                    start:/9/9/7t1/3t1t3/2t1K1t2/3t1t3/4t4/9/9/";

#[test]
fn opentafls_encirclement_is_played_and_judged_in_its_fetlar() {
    let mut engine = Engine::greeted();
    engine.send(&[RING, "play attackers"]);
    assert_eq!(engine.reply(), "status tafl plays fetlar 9x9");
    assert_eq!(engine.reply(), "move h3-e3");
    engine.goodbye();

    // As the defenders: every king move inside the ring lets h3-e3 close
    // it (and Fetlar's search knows nothing of it), so the king leaves.
    let mut engine = Engine::greeted();
    engine.send(&[&RING.replace("atkf:y", "atkf:n"), "play defenders"]);
    assert_eq!(engine.reply(), "status tafl plays fetlar 9x9");
    let reply = engine.reply();
    assert!(
        ["move e5-e3", "move e5-e2", "move e5-e1"].contains(&reply.as_str()),
        "{reply}"
    );
    engine.goodbye();

    // OpenTafl's attackers close it: its attackers' win is tafl's too.
    let mut engine = Engine::greeted();
    engine.send(&[
        RING,
        "opponent-move h3-e3 /9/9/4t4/3t1t3/2t1K1t2/3t1t3/4t4/9/9/",
        "finish 2",
    ]);
    assert_eq!(engine.close(), ["status tafl plays fetlar 9x9"]);
}

#[test]
fn the_rules_records_in_the_guide_are_answered_as_it_says() {
    // docs/otep.md's table of the records OpenTafl sends: each row's record
    // (in backquotes) and what tafl does with it ("plays <variant>" or
    // "refuses").
    let guide = include_str!("../../docs/otep.md");
    let rows: Vec<(&str, &str)> = guide
        .lines()
        .filter(|line| line.starts_with("| ") && line.contains("`dim:"))
        .map(|row| {
            let cells: Vec<&str> = row.split(" | ").collect();
            let record = cells[1].trim_matches('`');
            (record, cells[2])
        })
        .collect();
    assert!(rows.len() >= 8, "the guide's table: {rows:?}");
    let mut engine = Engine::greeted();
    // A clock first, so that every answer comes at once.
    engine.send(&["clock 60000 60000 0 0 0"]);
    for (record, outcome) in rows {
        engine.send(&[&format!("rules {record}")]);
        let reply = engine.reply();
        match outcome.strip_prefix("plays ") {
            Some(played) => {
                let words: Vec<&str> = played.split([' ', ',']).take(2).collect();
                let variant = words.join(" ");
                assert_eq!(reply, format!("status tafl plays {variant}"), "{record}");
            }
            None => assert!(
                outcome.starts_with("refuses") && reply.starts_with("error -1 "),
                "{record}: {outcome} / {reply}"
            ),
        }
    }
    engine.goodbye();
}

#[test]
fn bad_lines_and_absurd_clocks_are_answered_and_the_session_goes_on() {
    let mut engine = Engine::greeted();
    engine.send(&[RULES, "clock 60000 60000 0 0 0"]);
    assert_eq!(engine.reply(), "status tafl plays copenhagen 9x9");
    engine.send_bytes(b"play \xffattackers\n");
    assert_eq!(
        engine.reply(),
        "error 0 ignored a line that is not UTF-8 (byte 6)"
    );
    // A line of a megabyte: read no further than 64 KiB of it.
    let mut long = vec![b'x'; 1 << 20];
    long.push(b'\n');
    engine.send_bytes(&long);
    assert_eq!(
        engine.reply(),
        "error 0 ignored a line longer than 65536 bytes"
    );
    // A clock of 585 million years is refused, and play still answers
    // (by the last good clock).
    engine.send(&[
        "clock 18446744073709551615 60000 0 0 0",
        "play attackers",
        "clock 60000 60000 18446744073709551615 0 0",
    ]);
    assert_eq!(
        engine.reply(),
        "error 0 ignored the clock: 18446744073709551615 ms is more than a day"
    );
    assert_eq!(engine.reply(), "move a3-a2xb2");
    assert_eq!(
        engine.reply(),
        "error 0 ignored the clock: 18446744073709551615 s of overtime is more than a day"
    );
    // An untimed game's fields are read too, and a clock has five of them.
    engine.send(&[
        "clock 99999999999999999999999 -5 0 0 0",
        "clock 1000 1000 0 0",
    ]);
    assert_eq!(
        engine.reply(),
        "error 0 ignored the clock: \"99999999999999999999999\" is not a time in milliseconds"
    );
    assert_eq!(
        engine.reply(),
        "error 0 ignored the clock: expected five fields (<attackers-ms>[*] <defenders-ms>[*] \
         <overtime-s> <attackers-overtimes> <defenders-overtimes>), not 4"
    );
    engine.goodbye();
}

#[test]
fn a_move_tafl_would_not_allow_is_a_critical_error() {
    let mut engine = Engine::greeted();
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
    engine.goodbye();
}

#[test]
fn a_board_that_differs_from_tafls_is_a_critical_error() {
    let mut engine = Engine::greeted();
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
    assert_eq!(engine.close(), Vec::<String>::new());
}

#[test]
fn rules_tafl_does_not_play_are_refused_with_the_reason() {
    let mut engine = Engine::greeted();
    engine.send(&[
        "clock 60000 60000 0 0 0",
        // OpenTafl's Brandub: a 7x7 board.
        "rules dim:7 ks:n cenhe: cenh: start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/",
        // Sea Battle: edge escape, unarmed king, no corners.
        "rules dim:9 esc:e ka:n cen: cenhe: cor: start:/3ttt3/4t4/4T4/t3T3t/ttTTKTTtt/t3T3t/4T4/4t4/3ttt3/",
        // Answered by the refusal; a second play has no game.
        "play attackers",
        "play attackers",
    ]);
    let replies = engine.close();
    assert_eq!(replies.len(), 3, "{replies:?}");
    assert_eq!(
        replies[0],
        "error -1 dim:7: tafl plays 9x9, 11x11 and 13x13 boards"
    );
    assert!(
        replies[1].starts_with("error -1 rules not supported: the nearest tafl plays is ")
            && replies[1].contains("esc:e (esc:c)"),
        "{replies:?}"
    );
    assert_eq!(
        replies[2],
        "error -1 no game: no rules tafl plays came, or an error ended the game"
    );
}
