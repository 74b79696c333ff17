//! Notation (docs/RULES.md, "Notation"): what move and position text is
//! accepted, how it prints, and the exact error for what is not.

use tafl::rules::{Game, MoveText, Position, PositionText, Rules, Variant};

#[test]
fn move_text_accepts_every_written_form() {
    for (text, canonical) in [
        ("e1-e4", "e1-e4"),
        ("e1e4", "e1-e4"),
        ("E1-E4", "e1-e4"),
        ("e1-e4xe5", "e1-e4xe5"),
        ("e1-e4xe5/f5", "e1-e4xe5/f5"),
        ("e1-e4xf5xe5", "e1-e4xe5/f5"),
        ("e1-e4xe5xe5", "e1-e4xe5"),
        ("e1-e4XE10/e5", "e1-e4xe5/e10"),
        ("a13-m13+", "a13-m13"),
        ("a1-a2++", "a1-a2"),
        ("a1-a2-", "a1-a2"),
        ("a1a2--", "a1-a2"),
    ] {
        let parsed: MoveText = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(parsed.to_string(), canonical, "{text}");
    }
}

#[test]
fn move_text_errors_say_what_is_wrong() {
    for (text, error) in [
        ("", "the move is empty: expected a move such as e1-e4"),
        (
            "z1-z4",
            "the square the move starts from: 'z' is not a file: files run from a to m",
        ),
        (
            "e0-e4",
            "the square the move starts from: \"0\" is not a rank: ranks run from 1 to 13",
        ),
        (
            "e1-e14",
            "the square the move goes to: \"14\" is not a rank: ranks run from 1 to 13",
        ),
        (
            "e1-",
            "the square the move goes to: expected a square such as e4",
        ),
        (
            "e1-e",
            "the square the move goes to: the square has no rank",
        ),
        ("e1-e4x", "the capture list: expected a square such as e4"),
        (
            "e1-e4xe5/",
            "the capture list: expected a square such as e4",
        ),
        (
            "e1-e4!",
            "unexpected \"!\" after the move: only a capture list and +, ++, -, -- may follow",
        ),
        (
            "e1-e4+++",
            "unexpected \"+++\" after the move: only a capture list and +, ++, -, -- may follow",
        ),
        (
            "ё1-e4",
            "the square the move starts from: 'ё' is not a file: files run from a to m",
        ),
    ] {
        assert_eq!(
            text.parse::<MoveText>().unwrap_err().to_string(),
            error,
            "{text:?}"
        );
    }
}

#[test]
fn position_text_round_trips_and_errors_name_the_rank() {
    let start = "/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/ a";
    assert_eq!(
        Position::start(Variant::standard(Rules::Copenhagen)).to_string(),
        start
    );
    let without_slashes: PositionText = start
        .trim_start_matches('/')
        .replace("/ a", " a")
        .parse()
        .unwrap();
    assert_eq!(without_slashes.to_string(), start);
    for (text, error) in [
        ("", "the position text is empty"),
        (
            "/3ttt3/4t4/4T4/t3T3t/ttTTKTTtt/t3T3t/4T4/4t4/3ttt3/",
            "the position text has no side to move: end it with a space and a or d",
        ),
        (
            "/3ttt3/4t4/4T4/t3T3t/ttTTKTTtt/t3T3t/4T4/4t4/3ttt3/ x",
            "\"x\" is not a side to move: expected a or d",
        ),
        (
            "/3ttt3/4t4/4T4/t3T3t/ttTTKTTtt/t3T3t/4T4/4t4/3ttt3/ a d",
            "unexpected \"d\" after the side to move",
        ),
        (
            "/3ttt3/4t4/4T4/t3T3t/ttTTKTTtt/t3T3t/4T4/4t4/ a",
            "the board has 8 ranks: it must have 9, 11 or 13",
        ),
        (
            "/3ttt3/4t4/4T4/t3T3t/ttTTKTTtt/t3T3t/4T4/4t4/3tqt3/ a",
            "rank 1: 'q' is not t, T, K or a number",
        ),
        (
            "/3ttt3/4t4/4T4/t3T3t/ttTTKTTtt/t3T3t/4T4/4t4/3ttt03/ a",
            "rank 1: a run of empty squares must be a number from 1 to 13",
        ),
        (
            "/3ttt3/4t4/4T4/t3T3t/ttTTKTTtt/t3T3t/4T4/4t4/3ttt4/ a",
            "rank 1 has 10 squares, expected 9",
        ),
        (
            "/3ttt3/4t4/4T4/t3T3t/ttTTKTTtt/t3T3t/4T4/4t4/99999999999999999999/ a",
            "rank 1: a run of empty squares must be a number from 1 to 13",
        ),
    ] {
        assert_eq!(
            text.parse::<PositionText>().unwrap_err().to_string(),
            error,
            "{text:?}"
        );
    }
}

#[test]
fn setups_the_rules_refuse() {
    let nine = Variant::standard(Rules::Tablut);
    for (text, variant, error) in [
        (
            "/3ttt3/4t4/4T4/t3T3t/ttTTKTTtt/t3T3t/4T4/4t4/3ttt3/ a",
            Variant::standard(Rules::Copenhagen),
            "the position is 9×9 but the game is played on 11×11",
        ),
        (
            "/3ttt3/4t4/4T4/t3T3t/ttTTTTTtt/t3T3t/4K4/4t4/3ttt3/ a",
            nine,
            "a soldier stands on the throne e5, where only the king may stand",
        ),
        (
            "/3ttt3/4t4/4T4/t3T3t/ttTT1TTtt/t3T3t/4T4/4t4/3ttt3/ a",
            nine,
            "there is no king: there must be exactly one",
        ),
        (
            "/3ttt3/4t4/4T4/t3T3t/ttTTKTTtt/t3T3t/4T4/4t4/3tKt3/ a",
            nine,
            "there are 2 kings: there must be exactly one",
        ),
        (
            "/K8/9/9/9/9/9/9/9/8t/ a",
            nine,
            "the king stands on the corner a9: the game would already be over",
        ),
        (
            "/t8/9/9/9/9/9/9/9/1K7/ a",
            nine,
            "a soldier stands on the corner a9, where only the king may stand",
        ),
    ] {
        let setup: PositionText = text.parse().unwrap();
        assert_eq!(
            Position::from_setup(&setup, variant)
                .unwrap_err()
                .to_string(),
            error,
            "{text}"
        );
    }
}

#[test]
fn game_errors_name_the_ply() {
    let mut game = Game::new(Variant::standard(Rules::Copenhagen));
    for text in ["d1-d3", "e5-e2", "g1-g3", "f4-c4"] {
        game.play(text).unwrap();
    }
    for (text, error) in [
        (
            "g3-e3xe2/e4",
            "ply 5: g3-e3 captures e2, but the move says it captures e2/e4",
        ),
        (
            "g3-e3xf5",
            "ply 5: g3-e3 captures e2, but the move says it captures f5",
        ),
        ("f2-f9", "ply 5: f2-f9 is blocked at f5"),
        ("k6-k12", "ply 5: k6-k12: k12 is not on the 11×11 board"),
        (
            "c4-c5",
            "ply 5: c4-c5: the piece on c4 is not one of the attackers, who are to move",
        ),
        ("c5-c6", "ply 5: c5-c6: there is no piece on c5"),
        (
            "c4-d5",
            "ply 5: c4-d5: the piece on c4 is not one of the attackers, who are to move",
        ),
        ("d3-e4", "ply 5: d3-e4 is not along a rank or a file"),
        ("d3-d3", "ply 5: d3-d3 does not move"),
        (
            "a4-a1",
            "ply 5: a4-a1 ends on a1: only the king may stop on the throne or a corner",
        ),
        ("e1-e3", "ply 5: e1-e3 is blocked at e2"),
        (
            "f2-f3xf4",
            "ply 5: f2-f3 captures nothing, but the move says it captures f4",
        ),
        ("k6-k1", "ply 5: k6-k1 is blocked at k5"),
    ] {
        assert_eq!(game.play(text).unwrap_err().to_string(), error, "{text}");
    }
    assert_eq!(game.play("g3-e3xe2").unwrap().to_string(), "g3-e3xe2");
}
