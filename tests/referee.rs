//! The referee (`reversi match`): real games, and programs that misbehave.

use crate::util::{run, scratch, text};

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
    let folder = scratch("record");
    let dir = folder.join("games");
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

/// Our own bot at depth 1, by path (for command lines that wrap it).
fn bot() -> String {
    format!("'{}' --depth 1", env!("CARGO_BIN_EXE_reversi"))
}

#[test]
fn an_answer_before_the_request_is_output_nobody_asked_for() {
    // Each program writes its two lines at once, so that both have arrived
    // before the next request (a line that comes after it is taken as the
    // answer, as a judge would take it).
    let early = "sh -c 'while read l; do case \"$l\" in DONE) printf \"OK\\nc 4\\n\";; END) exit 0;; esac; done'";
    let out = play("self --depth 1", early, &["--games", "2"]);
    assert_eq!(
        out.matches("output nobody asked for: 'c 4'").count(),
        2,
        "{out}"
    );
}

#[test]
fn a_move_printed_twice_is_output_nobody_asked_for() {
    // Our bot, every reply but OK echoed twice, in two writes. The second
    // is caught if it arrives before the program's next request, so the
    // opponent takes 50 ms a reply: room for a busy machine to run the
    // echoing shell (a copy that came later would be taken as the answer).
    let twice = format!(
        "{} | while read l; do echo \"$l\"; [ \"$l\" = OK ] || echo \"$l\"; done",
        bot()
    );
    let slow = format!("{} | while read l; do sleep 0.05; echo \"$l\"; done", bot());
    let out = play(&slow, &twice, &["--games", "2"]);
    let verdicts: Vec<&str> = out.lines().filter(|l| l.contains(" forfeits:")).collect();
    assert_eq!(verdicts.len(), 2, "{out}");
    for verdict in verdicts {
        assert!(
            verdict.contains("white forfeits: at TURN")
                || verdict.contains("black forfeits: at TURN"),
            "{out}"
        );
        assert!(verdict.contains("output nobody asked for: '"), "{out}");
    }
}

#[test]
fn endless_output_is_cut_off_in_little_memory() {
    let endless = "sh -c 'while read l; do case \"$l\" in DONE) echo OK; yes;; esac; done'";
    // Ten games one after another: the peak of the first is seen while
    // the others are played.
    let (out, kib) = crate::util::run_with_peak_memory(&[
        "match",
        "self --depth 1",
        endless,
        "--games",
        "10",
        "--jobs",
        "1",
    ]);
    let out = text(&out.stdout);
    // Its first 'y' is output nobody asked for, or taken as its answer if
    // it came after the request: a forfeit either way, every game.
    let verdicts = out.lines().filter(|l| l.contains(" forfeits: ")).count();
    assert_eq!(verdicts, 10, "{out}");
    assert_eq!(out.matches("'y'").count(), 10, "{out}");
    eprintln!("the referee peaked at {kib} KiB");
    assert!(
        kib > 0 && kib < 16 * 1024,
        "the referee peaked at {kib} KiB"
    );
}

#[test]
fn what_a_program_does_after_end_counts() {
    // A line after END, exit status 1, and no exit at all: each forfeits
    // a game it had played to the end.
    for (command, verdict) in [
        (
            format!("{}; echo bye", bot()),
            "after END: output nobody asked for: 'bye'",
        ),
        (format!("{}; exit 1", bot()), "at END: exit status: 1"),
        (
            format!("{}; sleep 5", bot()),
            "did not exit within 1000 ms of END",
        ),
    ] {
        let out = play("self --depth 1", &command, &["--games", "1"]);
        assert!(
            out.contains(&format!("white forfeits: {verdict}")),
            "{command}: {out}"
        );
    }
}

#[test]
fn a_huge_line_is_cut_and_quoted_short() {
    let huge = fake("head -c 10000000 /dev/zero | tr \"\\\\0\" x; echo");
    let out = play("self --depth 1", &huge, &["--games", "1"]);
    let line = out
        .lines()
        .find(|l| l.contains("forfeits"))
        .expect("a verdict");
    assert!(
        line.contains("is not a move") || line.contains("bytes"),
        "{line}"
    );
    assert!(line.len() < 300, "{} bytes: {}", line.len(), &line[..300]);
}

#[test]
fn command_lines_run_as_a_shell_runs_them() {
    let dir = std::path::Path::new(env!("CARGO_BIN_EXE_reversi"))
        .parent()
        .expect("a directory");
    let cd = format!("cd '{}' && ./reversi --depth 1", dir.display());
    let var = format!("VAR=x {}", bot());
    let out = play(&cd, &var, &["--games", "2"]);
    assert!(!out.contains(" forfeits:"), "{out}");
}

#[test]
fn a_program_that_cannot_be_started_fails_the_run_naming_it() {
    // Not there: the shell's own message, and the match fails (exit 1)
    // with one line naming the program, after its report.
    let out = run(
        &[
            "match",
            "self --depth 1",
            "./no-such-bot-here",
            "--games",
            "2",
        ],
        b"",
    );
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    assert!(stdout.contains("exit status: 127"), "{stdout}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("reversi: could not start B ('./no-such-bot-here'")
            && stderr.contains("not found"),
        "{stderr}"
    );
    // Not executable (126), in a tournament.
    let dir = scratch("unstartable");
    let script = dir.write("bot.sh", "#!/bin/sh\necho OK\n");
    let players = dir.write(
        "players.txt",
        &format!("good: self --depth 1\nbroken: {}\n", script.display()),
    );
    let out = run(&["tournament", "--players", players.to_str().unwrap()], b"");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("could not start broken") && stderr.contains("126"),
        "{stderr}"
    );
    // A game a program lost by crashing after it had played is no such
    // failure: `a_crash_loses` exits 0.
}

#[test]
fn nothing_a_program_started_outlives_the_game() {
    let dir = scratch("fork");
    let pid_file = dir.join("pid");
    let forking = format!("sleep 30 & echo $! > '{}'; {}", pid_file.display(), bot());
    let out = play("self --depth 1", &forking, &["--games", "1"]);
    assert!(!out.contains(" forfeits:"), "{out}");
    let pid = std::fs::read_to_string(&pid_file).expect("the child's pid");
    let proc = std::path::Path::new("/proc").join(pid.trim());
    // Gone, or at most a zombie waiting for init, once the kill sent as
    // the match ended has been delivered (a busy machine may take a few
    // milliseconds; a sleep left alone would run for 30 s).
    let ended = |state: &str| state.is_empty() || state.contains(") Z");
    let mut state = String::new();
    for _ in 0..100 {
        state = std::fs::read_to_string(proc.join("stat")).unwrap_or_default();
        if ended(&state) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert!(ended(&state), "still running: {state}");
}

#[test]
fn show_prints_each_move_with_the_result_last() {
    let out = play(
        "self --depth 1",
        "self --player greedy --seed 1",
        &["--games", "1", "--show"],
    );
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].contains("[X] the disc just played"), "{out}");
    // Moves are numbered 1, 2, ... with passes left out of the count.
    let numbered: Vec<u32> = lines
        .iter()
        .filter(|l| l.contains(" ms)   black "))
        .filter_map(|l| l.split_once(". ").and_then(|(n, _)| n.trim().parse().ok()))
        .collect();
    assert!(!numbered.is_empty(), "{out}");
    assert_eq!(numbered, (1..=numbered.len() as u32).collect::<Vec<_>>());
    // Each move's diagram brackets the disc it placed.
    let first = lines.iter().position(|l| l.starts_with(" 1. ")).unwrap();
    let square = lines[first].split_whitespace().nth(2).unwrap();
    let rank: usize = square[1..].parse().unwrap();
    let row = lines[first + 1 + rank];
    let file = usize::from(square.as_bytes()[0] - b'a');
    assert_eq!(&row[1 + 2 * file..4 + 2 * file], "[X]", "{square}: {row}");
    // Every numbered move and pass came before the result line.
    let result = lines
        .iter()
        .rposition(|l| l.starts_with("game 1/1: A "))
        .unwrap();
    let last_move = lines
        .iter()
        .rposition(|l| l.contains(" passes (") || l.contains(" ms)   black "))
        .unwrap();
    assert!(last_move < result, "{out}");
    assert!(!out.contains("Elo"), "{out}");
}
