//! The commands around the bot, used as a careless or hostile user would:
//! each case here once panicked, aborted, hung, lost data or gave a wrong
//! verdict or exit code. Now each ends with the exit code the README gives
//! and, on a failure, one line that names what failed.

use crate::util::{bin, run, scratch, text};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs the binary through `sh -c` (for `ulimit` and redirections);
/// `SELF` in `script` is the binary.
fn shell(script: &str) -> std::process::Output {
    Command::new("sh")
        .arg("-c")
        .arg(script.replace("SELF", &format!("'{}'", bin())))
        .stdin(Stdio::null())
        .output()
        .expect("sh runs")
}

/// Exit code and stderr, asserting no panic and at most one line.
fn one_line(out: &std::process::Output) -> (i32, String) {
    let stderr = text(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(stderr.lines().count() <= 1, "{stderr}");
    (out.status.code().expect("exited"), stderr)
}

#[test]
fn values_too_large_are_refused_not_a_panic_an_abort_or_a_hang() {
    let obf = "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X\n";
    for args in [
        &["solve", "--time", "1e30"][..],
        &["solve", "--time", "18446744073709551616"],
        &["match", "true", "true", "--games", "1152921504606846976"],
        &["match", "true", "true", "--games", "1000000000"],
        &[
            "tournament",
            "--players",
            "x",
            "--format",
            "ladder",
            "--pair-games",
            "1000000000",
        ],
        &["--move-time", "18446744073709551615"],
        &["perft", "2", "foo"],
        &["perft", "-1"],
        &["solve", "--depth-limit", "0"],
        &[
            "tournament",
            "--players",
            "x",
            "--format",
            "knockout",
            "--games",
            "4",
        ],
    ] {
        let (code, stderr) = one_line(&run(args, obf.as_bytes()));
        assert_eq!(code, 2, "{args:?}: {stderr}");
    }
}

#[test]
fn a_failed_write_to_stdout_is_one_line_and_a_closed_one_ends_quietly() {
    let (code, stderr) = one_line(&shell("SELF --help >/dev/full"));
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("stdout"), "{stderr}");
    // A tournament whose reader has gone: the games finish, exit 0.
    let dir = scratch("closed");
    let players = dir.write(
        "players.txt",
        "a: self --player random --seed 1\nb: self --player random --seed 2\nc: self --player greedy --seed 3\n",
    );
    let mut child = Command::new(bin())
        .args([
            "tournament",
            "--players",
            players.to_str().unwrap(),
            "--move-time",
            "100",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stderr), "");
}

#[test]
fn a_table_that_cannot_be_had_shrinks_and_the_bot_plays_on() {
    let out =
        shell("ulimit -v 1000000; printf 'START\\nDONE\\nBEGIN\\n' | SELF --hash 4096 --log quiet");
    assert_eq!(text(&out.stdout), "OK\nd 3\n", "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("--hash 4096: that much memory could not be had"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn an_announced_limit_is_checked_and_a_bad_one_noted() {
    for value in ["18446744073709551615", "abc", "-1", "0"] {
        let started = Instant::now();
        let out = Command::new(bin())
            .args(["--log", "quiet", "--book", "off"])
            .env("REVERSI_MOVE_TIME", value)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .and_then(|mut child| {
                use std::io::Write;
                child
                    .stdin
                    .take()
                    .unwrap()
                    .write_all(b"START\nDONE\nBEGIN\nEND\n")?;
                child.wait_with_output()
            })
            .unwrap();
        assert_eq!(text(&out.stdout), "OK\nd 3\n", "{value}");
        assert!(started.elapsed() < Duration::from_secs(5), "{value}");
        assert!(
            text(&out.stderr).contains("REVERSI_MOVE_TIME"),
            "{value}: {}",
            text(&out.stderr)
        );
    }
}

#[test]
fn a_damaged_archive_is_refused_and_nothing_is_written() {
    let dir = scratch("archive");
    std::fs::create_dir_all(dir.join("wthor")).unwrap();
    // 100 KB of noise named as a WTHOR file.
    let mut rng = fastrand::Rng::with_seed(7);
    let noise: Vec<u8> = (0..100_000).map(|_| rng.u8(..)).collect();
    std::fs::write(dir.join("wthor/WTH_2000.wtb"), noise).unwrap();
    let out = dir.join("result.bin");
    std::fs::write(&out, b"good").unwrap();
    for command in [&["train"][..], &["pack"], &["book", "build"]] {
        let mut args = command.to_vec();
        args.extend([
            "--games-dir",
            dir.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        let (code, stderr) = one_line(&run(&args, b""));
        assert_eq!(code, 1, "{args:?}: {stderr}");
        assert!(stderr.contains("WTH_2000.wtb: header"), "{stderr}");
        assert_eq!(std::fs::read(&out).unwrap(), b"good", "{args:?}");
    }
    // No archive at all: the folder is named.
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let (code, stderr) = one_line(&run(
        &["train", "--games-dir", empty.to_str().unwrap()],
        b"",
    ));
    assert_eq!(code, 1);
    assert!(stderr.contains(&empty.display().to_string()), "{stderr}");
}

#[test]
fn a_record_that_cannot_be_written_fails_the_run_naming_it() {
    let dir = scratch("unwritable");
    std::os::unix::fs::symlink("/dev/full", dir.join("game-0001-white.txt")).unwrap();
    let random = "self --player random --seed 1";
    let (code, stderr) = {
        let out = run(
            &[
                "match",
                random,
                random,
                "--games",
                "1",
                "--move-time",
                "100",
                "--record",
                dir.to_str().unwrap(),
            ],
            b"",
        );
        (out.status.code(), text(&out.stderr))
    };
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("game-0001-white.txt"), "{stderr}");
    // A file where the folder should be.
    let (code, stderr) = one_line(&run(
        &[
            "match",
            random,
            random,
            "--games",
            "1",
            "--record",
            "/dev/full",
        ],
        b"",
    ));
    assert_eq!(code, 1);
    assert!(
        stderr.contains("/dev/full: exists and is not a folder"),
        "{stderr}"
    );
    let readme = concat!(env!("CARGO_MANIFEST_DIR"), "/README.md");
    let (code, stderr) = one_line(&run(
        &["match", random, random, "--games", "1", "--record", readme],
        b"",
    ));
    assert_eq!(code, 1);
    assert!(
        stderr.contains("README.md: exists and is not a folder"),
        "{stderr}"
    );
}

#[test]
fn a_program_that_exits_while_its_child_holds_the_pipe_is_reported_as_ended() {
    let out = run(
        &[
            "match",
            "self --depth 1",
            // Reads the setup through (so that it was all delivered, however
            // slow the machine), then leaves a child holding its output.
            "sh -c 'while read l; do [ \"$l\" = DONE ] && break; done; sleep 30 & exit 0'",
            "--games",
            "1",
            "--move-time",
            "300",
        ],
        b"",
    );
    let report = text(&out.stdout);
    assert!(
        report
            .contains("white forfeits: after DONE: crashed or closed its output (exit status: 0)"),
        "{report}"
    );
}

#[test]
fn what_a_program_started_in_a_session_of_its_own_ends_with_the_game() {
    let dir = scratch("setsid");
    let pid_file = dir.join("pid");
    let program = format!(
        "setsid sh -c 'echo $$ > {}; exec sleep 60' & exec {} --depth 1",
        pid_file.display(),
        bin()
    );
    let out = run(&["match", "self --depth 1", &program, "--games", "1"], b"");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let pid = std::fs::read_to_string(&pid_file).expect("the grandchild's pid");
    let stat = std::path::Path::new("/proc").join(pid.trim()).join("stat");
    let ended = |state: &str| state.is_empty() || state.contains(") Z");
    let mut state = String::new();
    for _ in 0..100 {
        state = std::fs::read_to_string(&stat).unwrap_or_default();
        if ended(&state) {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(ended(&state), "still running: {state}");
}

#[test]
fn solve_names_what_is_wrong_with_a_listed_move_or_score() {
    let board = "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X";
    let (code, stderr) = one_line(&run(&["solve"], format!("{board}; C1:+18;\n").as_bytes()));
    assert_eq!(code, 1);
    assert!(
        stderr.contains("'C1' cannot be played here: the square is taken"),
        "{stderr}"
    );
    let (code, stderr) = one_line(&run(&["solve"], format!("{board}; G8:+10;\n").as_bytes()));
    assert_eq!(code, 1);
    assert!(
        stderr.contains("disagrees with the scores listed"),
        "{stderr}"
    );
    // The side to move must pass: --all still gives the score.
    let pass = format!("-X{} X\n", "O".repeat(62));
    let out = run(&["solve", "--all"], pass.as_bytes());
    assert!(
        text(&out.stdout).contains("exact -64 best pass"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn bio97_reads_bytes_that_are_not_utf8_as_unknown_words() {
    let out = run(&["bio97"], b"ab\xff\xfe\n");
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn a_game_both_sides_fail_is_a_double_forfeit_not_a_win_for_one() {
    // One exits at once, the other never reads: before, the side checked
    // first took the blame and the crashed program won 3 points.
    let dir = scratch("double");
    let players = dir.write(
        "players.txt",
        "quitter: sh -c 'exit 0'\nsleeper: sleep 30\n",
    );
    let out = run(
        &[
            "tournament",
            "--players",
            players.to_str().unwrap(),
            "--move-time",
            "200",
        ],
        b"",
    );
    let report = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(report.contains("both forfeit"), "{report}");
    let rows: Vec<Vec<&str>> = report
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("rank"))
        .skip(1)
        .map(|l| l.split_whitespace().collect())
        .collect();
    // rank player number points games wins draws losses ...
    for row in &rows {
        assert_eq!((row[3], row[5], row[7]), ("-1", "0", "1"), "{report}");
    }
}

#[test]
fn a_side_never_played_has_no_rating_not_a_zero() {
    // One game a pair: one of the two never plays black.
    let dir = scratch("sides");
    let players = dir.write(
        "players.txt",
        "a: self --player greedy --seed 1\nb: self --player random --seed 2\n",
    );
    let out = run(
        &[
            "tournament",
            "--players",
            players.to_str().unwrap(),
            "--format",
            "ladder",
            "--rounds",
            "1",
            "--pair-games",
            "1",
            "--move-time",
            "200",
        ],
        b"",
    );
    let report = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let rows: Vec<Vec<&str>> = report
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("rank"))
        .skip(1)
        .map(|l| l.split_whitespace().collect())
        .collect();
    // rank player rating as-black as-white games wins
    let unplayed: Vec<&str> = rows
        .iter()
        .flat_map(|r| [r[3], r[4]])
        .filter(|c| *c == "-")
        .collect();
    assert_eq!(unplayed.len(), 2, "{report}");
    assert!(
        !rows
            .iter()
            .any(|r| r[3] == "0.0" && r[4] == "-" && r[2] != "0.0"),
        "{report}"
    );
}
