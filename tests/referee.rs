//! The referee (`reversi match`): real games, and programs that misbehave.

use crate::util::{run, text};

/// A fake judge-protocol program in shell: answers OK, and `reply` to every
/// request for a move.
fn fake(reply: &str) -> String {
    format!(
        "sh -c 'while read l; do case \"$l\" in DONE) echo OK;; BEGIN|TURN*|PASS) {reply};; END) exit 0;; esac; done'"
    )
}

fn play(a: &str, b: &str, extra: &[&str]) -> String {
    let mut args = vec!["match", a, b];
    args.extend_from_slice(extra);
    let out = run(&args, b"");
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout)
}

#[test]
fn an_illegal_move_loses() {
    let out = play(
        "self --player greedy --seed 1",
        &fake("echo \"a 1\""),
        &["--games", "2"],
    );
    assert_eq!(out.matches(" forfeits:").count(), 2, "{out}");
    assert!(out.contains("a1 is not a legal move"), "{out}");
    assert!(out.contains("A     2"), "{out}");
}

#[test]
fn a_late_reply_loses() {
    let out = play(
        &fake("sleep 1; echo PASS"),
        "self --player random --seed 2",
        &["--games", "1", "--move-time", "200"],
    );
    assert!(
        out.contains("black forfeits: at BEGIN: no reply within 200 ms"),
        "{out}"
    );
}

#[test]
fn a_crash_loses() {
    let out = play(
        "self --player random --seed 3",
        &fake("exit 3"),
        &["--games", "2"],
    );
    assert_eq!(out.matches("crashed").count(), 2, "{out}");
}

#[test]
fn recorded_games_replay_cleanly() {
    let dir = std::env::temp_dir().join(format!("reversi-record-{}", std::process::id()));
    let out = play(
        "self --depth 2",
        "self --player greedy --seed 5",
        &["--games", "2", "--record", dir.to_str().unwrap()],
    );
    assert!(!out.contains(" forfeits:"), "{out}");
    for name in ["game-0001-black.txt", "game-0002-white.txt"] {
        let path = dir.join(name);
        let replay = run(
            &[
                "replay",
                path.to_str().unwrap(),
                "--bot",
                "self --depth 2",
                "--exact",
            ],
            b"",
        );
        assert!(replay.status.success(), "{}", text(&replay.stdout));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The one timing test: a whole game at the judge's real 1-second limit;
/// every reply must come in under it (the bot stops searching at 850 ms).
#[test]
fn full_time_game_is_never_late() {
    let out = play(
        "self --log quiet",
        "self --player greedy --seed 9",
        &["--games", "1", "--move-time", "1000"],
    );
    assert!(!out.contains(" forfeits:"), "{out}");
    let row = out
        .lines()
        .find(|l| l.starts_with("A "))
        .expect("summary row");
    let slowest: u64 = row
        .split_whitespace()
        .find(|w| w.ends_with("ms") && !w.contains('.'))
        .and_then(|w| w.trim_end_matches("ms").parse().ok())
        .expect("slowest column");
    assert!(slowest < 1000, "{out}");
}

#[test]
fn parallel_games_give_the_same_results_as_one_at_a_time() {
    // Seeded players at fixed depth: each game's result does not depend on
    // which job played it or when.
    let args = ["--games", "6", "--move-time", "2000"];
    let one = play(
        "self --depth 2",
        "self --player greedy --seed 4",
        &[&args[..], &["--jobs", "1"]].concat(),
    );
    let three = play(
        "self --depth 2",
        "self --player greedy --seed 4",
        &[&args[..], &["--jobs", "3"]].concat(),
    );
    let games = |out: &str| {
        let mut lines: Vec<String> = out
            .lines()
            .filter(|l| l.starts_with("game "))
            .map(String::from)
            .collect();
        lines.sort();
        lines
    };
    assert_eq!(games(&one).len(), 6, "{one}");
    assert_eq!(games(&one), games(&three));
    let summary = |out: &str| {
        out.lines()
            .find(|l| l.starts_with("A "))
            .map(|l| l.split_whitespace().take(7).collect::<Vec<_>>().join(" "))
    };
    assert_eq!(summary(&one), summary(&three));
}
