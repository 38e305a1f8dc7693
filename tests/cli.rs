//! The command line's exit codes, as docs/commands.md documents them: 2 for wrong
//! usage, 1 for a failed run or bad data; one line on stderr either way.

use crate::util::{run, scratch, text};

fn exit(args: &[&str]) -> (i32, String) {
    let out = run(args, b"");
    (out.status.code().expect("exited"), text(&out.stderr))
}

#[test]
fn wrong_usage_exits_2() {
    for args in [
        &["frobnicate"][..],
        &["--depth", "3", "--nodes", "100"],
        &["--depth", "0"],
        &["--probcut", "maybe"],
        &["match", "self"],
        &["match", "self", "self", "--shw"],
        &["solve", "--wld", "--all"],
        &["tournament", "--players", "x", "--format", "swiss"],
        &["perft"],
        &["--book", "maybe"],
        &["book"],
        &["book", "frob"],
        &["book", "build", "--depth", "0"],
        &["book", "build", "--plies", "61"],
        &["book", "show", "f5", "d6"],
        &["book", "show", "f5z9"],
        &["book", "show", "f5a1"],
        &["selfplay"],
        &["selfplay", "--games", "2", "--random", "101"],
        &["selfplay", "--games", "1", "--depth", "0"],
        // Values out of range: refused, never a panic, an abort or a run
        // without end (each of these did one of those at commit 0c66dad).
        &["bench", "--endgame-curve", "--positions", "0"],
        &["bench", "--endgame-curve", "--from", "0"],
        &["bench", "--endgame-curve", "--from", "61"],
        &["bench", "--endgame-curve", "--from", "20", "--to", "12"],
        &["bench", "--probcut-errors", "--deep", "99"],
        &["bench", "--probcut-errors", "--deep", "8", "--step", "0"],
        &["bench", "--depth", "99999"],
        &["solve", "--hash", "100000"],
        &["--hash", "100000"],
        &["--hash", "0"],
        &["perft", "99"],
        &["perft", "0"],
        &["--depth", "61"],
        &["--nodes", "0"],
        &["--move-time", "0"],
        &["match", "self", "self", "--move-time", "0"],
        &["match", "self", "self", "--games", "0"],
        &["match", "self", "self", "--jobs", "0"],
        &[
            "tournament",
            "--players",
            "x",
            "--format",
            "ladder",
            "--rounds",
            "0",
        ],
        &["train", "--epochs", "0"],
        &["bundle"],
        &["bundle", "--out", "/tmp/x.rs", "--protocol", "arena"],
        &["bundle", "--out", "/tmp/x.rs", "--max-chars", "0"],
        &["pack", "--every", "0"],
        &["--protocol", "arena"],
        &["--first-move-time", "300"],
        &["--protocol", "codingame", "--first-move-time", "0"],
        &["selfplay", "--games", "0"],
    ] {
        let (code, stderr) = exit(args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stderr.starts_with("reversi: "), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

#[test]
fn help_is_asked_for_in_every_usual_way() {
    for args in [&["help"][..], &["--help"], &["-h"]] {
        let out = run(args, b"");
        assert!(out.status.success(), "{args:?}");
        assert!(text(&out.stdout).contains("Usage:"), "{args:?}");
        assert!(out.stderr.is_empty(), "{args:?}");
    }
}

#[test]
fn a_missing_file_or_bad_data_exits_1() {
    let dir = scratch("bad");
    let bad = dir.write("bad.txt", "not a line of any of these formats\n");
    let bad = bad.to_str().unwrap();
    for args in [
        &["tournament", "--players", "/nonexistent/players.txt"][..],
        &["tournament", "--players", bad],
        &["solve", "/nonexistent/positions.obf"],
        &["solve", bad],
        &["match", "self", "self", "--openings", bad],
        &["replay", bad],
        &["train", "--games-dir", "/nonexistent"],
        &["bench", "--probcut-errors", "--games-dir", "/nonexistent"],
        &["book", "build", "--games-dir", "/nonexistent"],
        &["book", "show", "--book", "/nonexistent/openings.book"],
        &["book", "show", "--book", bad],
        &[
            "selfplay",
            "--games",
            "1",
            "--openings",
            "/nonexistent/xot.txt",
        ],
        &["selfplay", "--games", "1", "--openings", bad],
        &["train", "--extra-games", "/nonexistent/games.txt"],
        &["pack", "--games-dir", "/nonexistent"],
        &["bundle", "--out", "/nonexistent/dir/bundle.rs"],
    ] {
        let (code, stderr) = exit(args);
        assert_eq!(code, 1, "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    }
}

#[test]
fn a_reader_that_stops_reading_ends_a_report_quietly() {
    // `reversi bench | head -1`: the reader's end of stdout is closed
    // before the first line is written (the bench searches for a while
    // first); the write fails with a broken pipe, which ends the command
    // as a success, with no panic on stderr.
    let mut child = std::process::Command::new(crate::util::bin())
        .arg("bench")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("binary starts");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("binary runs");
    assert!(out.status.success(), "{:?}", out.status);
    assert_eq!(text(&out.stderr), "");
}

#[test]
fn every_command_has_help_with_its_flags_and_the_version_is_printed() {
    for (command, flag) in [
        ("play", "--depth"),
        ("match", "--games"),
        ("tournament", "--format"),
        ("replay", "--side"),
        ("show", "--html"),
        ("analyze", "--exact-from"),
        ("bridge", "--nboard"),
        ("perft", "--convention"),
        ("solve", "--depth-limit"),
        ("bench", "--endgame-curve"),
        ("train", "--label-depth"),
        ("selfplay", "--random-plies"),
        ("book build", "--min-games"),
        ("book show", "--book"),
        ("pack", "--games-dir"),
        ("bundle", "--max-chars"),
        ("bio97", "--strategy"),
        ("gtp", "--move-time"),
        ("nboard", "--hash"),
    ] {
        let mut args: Vec<&str> = command.split(' ').collect();
        args.push("--help");
        let out = run(&args, b"");
        let help = text(&out.stdout);
        assert!(out.status.success(), "{command}: {}", text(&out.stderr));
        assert!(
            help.contains(&format!("Usage: reversi {command}")),
            "{command}: {help}"
        );
        assert!(help.contains(flag), "{command} --help lacks {flag}: {help}");
    }
    // The engines' help lists only what applies to them: the judge's
    // protocol flags are the bot's, and NBoard sets its own depth.
    let gtp = text(&run(&["gtp", "--help"], b"").stdout);
    for judge_only in ["--protocol", "--first-move-time", "--log"] {
        assert!(
            !gtp.contains(judge_only),
            "gtp --help lists {judge_only}: {gtp}"
        );
    }
    let nboard = text(&run(&["nboard", "--help"], b"").stdout);
    for not_nboard in [
        "--protocol",
        "--first-move-time",
        "--log",
        "--depth",
        "--player",
        "--book",
        "--nodes",
    ] {
        assert!(
            !nboard.contains(not_nboard),
            "nboard --help lists {not_nboard}: {nboard}"
        );
    }
    let out = run(&["nboard", "--depth", "3"], b"");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let out = run(&["--version"], b"");
    assert!(out.status.success());
    assert_eq!(
        text(&out.stdout).trim(),
        format!("reversi {}", env!("CARGO_PKG_VERSION"))
    );
    // The top-level help names every command, the judge's among them.
    let help = text(&run(&["--help"], b"").stdout);
    for command in [
        "match",
        "tournament",
        "bundle",
        "pack",
        "bio97",
        "show",
        "analyze",
        "gtp",
        "nboard",
        "--protocol",
    ] {
        assert!(help.contains(command), "--help lacks {command}");
    }
}

#[test]
fn a_misspelt_command_or_flag_gets_a_suggestion_and_exit_2() {
    for (args, suggested) in [
        (&["mach", "self", "self"][..], "'match'"),
        (&["tournment"], "'tournament'"),
        (&["match", "self", "self", "--game", "2"], "--games"),
        (&["solve", "--depth-limt", "3"], "--depth-limit"),
    ] {
        let (code, stderr) = exit(args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.contains(suggested), "{args:?}: {stderr}");
    }
}

#[test]
fn every_example_of_the_exit_code_table_exits_as_it_says() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/commands.md"))
        .expect("docs/commands.md");
    let table = readme
        .split("<!-- exit-codes -->")
        .nth(1)
        .and_then(|rest| rest.split("<!-- /exit-codes -->").next())
        .expect("the marked table");
    let bin_dir = std::path::Path::new(crate::util::bin()).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let dir = scratch("exit-table");
    let mut commands = std::collections::BTreeSet::new();
    let mut rows = 0;
    for line in table
        .lines()
        .filter(|l| l.starts_with("| ") && l.contains('`'))
    {
        // | command | `example` | exit | what happens |, pipes in the
        // example escaped as `\|`.
        let cells: Vec<String> = line
            .replace("\\|", "\u{0}")
            .split('|')
            .map(|c| c.trim().replace('\u{0}', "|"))
            .collect();
        let (command, example, exit) = (&cells[1], &cells[2], &cells[3]);
        let Some(example) = example.strip_prefix('`').and_then(|e| e.strip_suffix('`')) else {
            continue;
        };
        let expected: i32 = exit.parse().expect("an exit code");
        let out = std::process::Command::new("bash")
            .args(["-o", "pipefail", "-c", example])
            .current_dir(&dir)
            .env("PATH", &path)
            .stdin(std::process::Stdio::null())
            .output()
            .expect("bash runs");
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(expected), "{example}: {stderr}");
        assert!(!stderr.contains("panicked"), "{example}: {stderr}");
        if expected != 0 {
            assert!(stderr.starts_with("reversi: "), "{example}: {stderr}");
            assert_eq!(stderr.lines().count(), 1, "{example}: {stderr}");
        }
        commands.insert(command.trim_matches('`').to_string());
        rows += 1;
    }
    assert!(rows >= 20, "{rows} rows");
    for command in [
        "the bot",
        "match",
        "tournament",
        "replay",
        "perft",
        "solve",
        "bench",
        "train",
        "selfplay",
        "book build",
        "book show",
        "pack",
        "bundle",
        "bio97",
        "show",
        "analyze",
        "nboard",
        "bridge",
    ] {
        assert!(commands.contains(command), "no row for {command}");
    }
}
