//! The command line's exit codes, as the README documents them: 2 for wrong
//! usage, 1 for a failed run or bad data; one line on stderr either way.

use crate::util::{run, text};

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
    ] {
        let (code, stderr) = exit(args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stderr.starts_with("reversi: "), "{args:?}: {stderr}");
    }
}

#[test]
fn a_missing_file_or_bad_data_exits_1() {
    let bad = std::env::temp_dir().join(format!("reversi-bad-{}.txt", std::process::id()));
    std::fs::write(&bad, "not a line of any of these formats\n").unwrap();
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
    ] {
        let (code, stderr) = exit(args);
        assert_eq!(code, 1, "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    }
    let _ = std::fs::remove_file(bad);
}
