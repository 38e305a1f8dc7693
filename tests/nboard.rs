//! `reversi nboard`: scripted NBoard sessions, every reply checked.

use crate::util::{ntest_game_with_a_pass, run, text};

fn session(input: &str) -> (Vec<String>, String) {
    let out = run(&["nboard", "--book", "off"], input.as_bytes());
    assert!(out.status.success(), "{}", text(&out.stderr));
    (
        text(&out.stdout).lines().map(str::to_string).collect(),
        text(&out.stderr),
    )
}

#[test]
fn hint_go_ping_and_bad_lines() {
    let input = "nboard 2\n\
        set depth 4\n\
        set game (;GM[Othello]BO[8 -------- -------- -------- ---O*--- ---*O--- -------- -------- -------- *]B[d3]W[c5];)\n\
        hint 3\n\
        ping 7\n\
        frobnicate\n\
        move z9\n\
        set depth 0\n\
        move f6\n\
        go\n\
        learn\n\
        quit\n\
        ping 8\n";
    let (lines, stderr) = session(input);
    assert_eq!(lines[0], "set myname reversi");
    assert_eq!(lines[1], "status reversi is thinking");
    // hint 3: three of black's legal moves after d3 c5, best first.
    let hints: Vec<&String> = lines.iter().filter(|l| l.starts_with("search ")).collect();
    assert_eq!(hints.len(), 3, "{lines:#?}");
    let evals: Vec<f64> = hints
        .iter()
        .map(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            assert!(["b6", "c6", "d6", "e6", "f6"].contains(&words[1]), "{l}");
            assert_eq!((words[3], words[4]), ("0", "4"), "{l}");
            words[2].parse().unwrap()
        })
        .collect();
    assert!(evals.windows(2).all(|w| w[0] >= w[1]), "{evals:?}");
    let at = |prefix: &str| lines.iter().position(|l| l.starts_with(prefix)).unwrap();
    // ping after the hint finished, then go: white's move to the position.
    assert!(at("pong 7") > at("search "));
    assert_eq!(lines[at("pong 7") - 1], "status");
    let go = &lines[at("=== ")];
    let place = go.trim_start_matches("=== ").split('/').next().unwrap();
    assert!(
        ["e3", "f4", "f5", "f6", "c3", "d6", "e6", "g5", "g6"].contains(&place) || place.len() == 2,
        "{go}"
    );
    assert!(lines.contains(&"learned".to_string()));
    assert!(!lines.contains(&"pong 8".to_string()), "nothing after quit");
    for expected in [
        "unknown command 'frobnicate'",
        "'z9' is not a move",
        "set depth takes 1 to 60",
    ] {
        assert!(stderr.contains(expected), "{stderr}");
    }
}

#[test]
fn a_forced_pass_and_a_finished_game() {
    let game = ntest_game_with_a_pass();
    let pass_at = game.moves.iter().position(|m| m.square.is_none()).unwrap();
    let mut before = game.clone();
    before.moves.truncate(pass_at);
    let whole = game.clone();
    let input = format!(
        "nboard 2\nset game {}\nhint 2\ngo\nset game {}\ngo\nquit\n",
        before.render(),
        whole.render()
    );
    let (lines, _) = session(&input);
    let goes: Vec<&String> = lines.iter().filter(|l| l.starts_with("=== ")).collect();
    assert_eq!(goes.len(), 2, "{lines:#?}");
    // The side to move must pass, and at the end nobody can move.
    assert!(goes[0].starts_with("=== PA/"), "{lines:#?}");
    assert!(goes[1].starts_with("=== PA/"), "{lines:#?}");
    assert!(
        lines.iter().any(|l| l.starts_with("search PA ")),
        "{lines:#?}"
    );
}
