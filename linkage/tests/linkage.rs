//! The `linkage` binary as the contest runs it: an id line when given an
//! argument; with none, `input.txt` to `order.txt` in its own folder,
//! whatever the input; and its runner.

use linkage::files::read_input;
use linkage::rules::{all_placements, Move};
use reversi_testkit::{scratch, Scratch};
use std::path::Path;
use std::process::{Command, Output};

fn fixture(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn linkage() -> &'static str {
    env!("CARGO_BIN_EXE_linkage")
}

/// A folder of its own with a copy of the bot, as the runner makes one.
fn bot_folder(name: &str) -> Scratch {
    let dir = scratch(&format!("linkage-{name}"));
    std::fs::copy(linkage(), dir.join("linkage")).expect("copies");
    dir
}

/// Runs a copy of the bot just written. A test thread that forks while
/// another copies holds the copy open for writing until its child execs
/// (Linux then refuses to run the file: "Text file busy"), so that is
/// waited out.
fn run_copy(command: &mut Command) -> Output {
    for _ in 0..50 {
        match command.output() {
            Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            other => return other.expect("runs"),
        }
    }
    command.output().expect("runs")
}

/// Runs the bot in `dir` from another working directory (it must use its
/// own folder), thinking 200 ms; its output and its order.
fn turn(dir: &Path, input: Option<&str>) -> (Output, Option<String>) {
    let _ = std::fs::remove_file(dir.join("order.txt"));
    if let Some(input) = input {
        std::fs::write(dir.join("input.txt"), input).expect("writes");
    }
    let out = run_copy(
        Command::new(dir.join("linkage"))
            .current_dir(std::env::temp_dir())
            .env("LINKAGE_THINK_MS", "200"),
    );
    let order = std::fs::read_to_string(dir.join("order.txt")).ok();
    (out, order)
}

/// Checks `order` is one legal order for `input` as the bot reads it.
fn assert_legal(input: &str, order: &str) {
    let (position, _) = read_input(input);
    let mv = Move::parse_order(order.trim()).unwrap_or_else(|| panic!("{order:?} is no order"));
    assert!(
        position.is_legal(mv, &all_placements())
            || (mv == Move::Skip && position.moves(&all_placements()).is_empty()),
        "{order:?} is not legal in\n{input}"
    );
    assert_eq!(order.lines().count(), 1, "one order: {order:?}");
}

#[test]
fn any_argument_gives_the_id_line() {
    // Any argument but the runner's two commands, which always mean the
    // runner (alone, they are wrong usage: see below).
    for arg in ["id", "--version", "matches"] {
        let out = Command::new(linkage()).arg(arg).output().expect("runs");
        assert!(out.status.success());
        let line = text(&out.stdout);
        assert_eq!(line.lines().count(), 1, "{line}");
        assert!(line.starts_with("linkage"), "{line}");
    }
}

#[test]
fn fixture_positions_get_legal_orders() {
    let dir = bot_folder("fixtures");
    let cases = [
        ("start.txt", None),
        ("skip.txt", Some("Skip")),
        ("last-domino.txt", Some("YA1B1")),
        ("one-colour.txt", None),
        ("game-over.txt", Some("Skip")),
    ];
    for (name, expected) in cases {
        let input = std::fs::read_to_string(fixture(name)).expect("fixture");
        let (out, order) = turn(&dir, Some(&input));
        assert!(out.status.success(), "{name}");
        let order = order.unwrap_or_else(|| panic!("{name}: no order.txt"));
        assert_legal(&input, &order);
        if let Some(expected) = expected {
            assert_eq!(order.trim(), expected, "{name}");
        }
        if name == "one-colour.txt" {
            assert!(order.starts_with('B'), "only blue is left: {order}");
        }
        if name == "game-over.txt" {
            assert!(
                text(&out.stderr).contains("game is over"),
                "{}",
                text(&out.stderr)
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_input_files_are_noted_and_still_answered() {
    let dir = bot_folder("bad");
    let start = std::fs::read_to_string(fixture("start.txt")).expect("fixture");
    let cases = [
        ("truncated", "M6666\n.......\n..R"),
        (
            "bad characters",
            "M6666\n..?....\n.......\n.......\n...X...\n.......\n.......\n.......\n",
        ),
        (
            "wrong counts",
            "M99z9\n.......\n.......\n.......\n...X...\n.......\n.......\n.......\n",
        ),
        (
            "no side",
            "6666\n.......\n.......\n.......\n...X...\n.......\n.......\n.......\n",
        ),
        ("empty", ""),
        ("binary", "\u{0}\u{1}\u{2}\u{ff}"),
    ];
    for (what, input) in cases {
        let (out, order) = turn(&dir, Some(input));
        assert!(out.status.success(), "{what}");
        let stderr = text(&out.stderr);
        assert!(
            stderr.lines().any(|l| l.starts_with("linkage: input.txt:")),
            "{what}: {stderr}"
        );
        assert_legal(input, &order.unwrap_or_else(|| panic!("{what}: no order")));
    }
    // no input.txt at all: noted, and the start position answered
    let _ = std::fs::remove_file(dir.join("input.txt"));
    let (out, order) = turn(&dir, None);
    assert!(
        text(&out.stderr).contains("cannot read"),
        "{}",
        text(&out.stderr)
    );
    assert_legal(&start, &order.expect("an order"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_runner_plays_the_bot_as_a_program_and_logs_every_order() {
    let dir = scratch("linkage-runner");
    let out = Command::new(linkage())
        .args([
            "match", "self", "random", "--games", "2", "--think", "100", "--dir",
        ])
        .arg(&*dir)
        .output()
        .expect("runs");
    let report = text(&out.stdout);
    assert!(out.status.success(), "{report}{}", text(&out.stderr));
    let first = report.lines().next().unwrap_or("");
    assert!(
        first.starts_with("A: self: linkage (reversi project)"),
        "the id: {report}"
    );
    let row = report
        .lines()
        .find(|l| l.starts_with("A "))
        .expect("A's row");
    let words: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(words[4], "0", "no fault: {report}");
    for game in ["game-001.txt", "game-002.txt"] {
        let log = std::fs::read_to_string(dir.join(game)).expect("a log per game");
        assert!(
            log.lines()
                .filter(|l| l.starts_with("M ") || l.starts_with("F "))
                .count()
                >= 10,
            "{log}"
        );
        assert!(log.contains("end: "), "{log}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_ladder_runs_from_a_file_of_bots() {
    let dir = scratch("linkage-ladder");
    let bots = dir.join("bots.txt");
    std::fs::write(
        &bots,
        "# top first\nrandom\ngreedy  # the greedy one\nrandom\n",
    )
    .expect("writes");
    let out = Command::new(linkage())
        .args(["ladder", "--rounds", "2", "--games-per-pair", "2", "--bots"])
        .arg(&bots)
        .arg("--dir")
        .arg(dir.join("run"))
        .output()
        .expect("runs");
    let report = text(&out.stdout);
    assert!(out.status.success(), "{report}{}", text(&out.stderr));
    assert!(report.contains("after round 2:"), "{report}");
    for column in ["rating", "as-More", "as-Fewer"] {
        assert!(report.contains(column), "{report}");
    }
    // 2 rounds of 2 neighbouring pairs playing 2 games: 16 seats in all
    let rows: Vec<Vec<&str>> = report
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|w| w.len() == 7 && w[0].parse::<u32>().is_ok())
        .collect();
    assert_eq!(rows.len(), 3, "{report}");
    let seats: u32 = rows
        .iter()
        .map(|w| w[5].parse::<u32>().expect("games"))
        .sum();
    assert_eq!(seats, 16, "{report}");
    let missing = Command::new(linkage())
        .args(["ladder", "--bots", "/nonexistent/bots.txt"])
        .output()
        .expect("runs");
    assert_eq!(missing.status.code(), Some(1));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn wrong_usage_of_the_runner_exits_2() {
    for args in [
        &["match"][..],
        &["ladder"],
        &["ladder", "--rounds", "1"],
        &["ladder", "--bots", "x", "--rounds", "0"],
        &["ladder", "extra", "--bots", "x"],
        &["match", "self", "--games", "2"],
        &["match", "self", "random", "--games", "0"],
        &["match", "self", "random", "--fast"],
        &["match", "self", "random", "--think"],
    ] {
        let out = Command::new(linkage()).args(args).output().expect("runs");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = text(&out.stderr);
        assert!(
            stderr.starts_with("linkage: ") && stderr.lines().count() == 1,
            "{args:?}: {stderr}"
        );
    }
}

#[test]
fn output_that_cannot_be_written_fails_with_one_line() {
    // The id line to a full device.
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("'{}' id >/dev/full", linkage()))
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr).lines().count(),
        1,
        "{}",
        text(&out.stderr)
    );
    // order.txt where a folder stands in its way.
    let dir = bot_folder("unwritable");
    std::fs::create_dir_all(dir.join("order.txt")).unwrap();
    let out = run_copy(Command::new(dir.join("linkage")).env("LINKAGE_THINK_MS", "100"));
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("cannot write"),
        "{}",
        text(&out.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_runner_folder_that_cannot_be_made_is_named() {
    let out = Command::new(linkage())
        .args([
            "match",
            "random",
            "greedy",
            "--games",
            "1",
            "--dir",
            "/dev/full",
        ])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("/dev/full"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}
