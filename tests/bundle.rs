//! `reversi bundle`: each bundle fits CodinGame's 100,000 characters,
//! builds with plain `rustc` (no cargo, no crates, no warning), and plays:
//! the judge bundle a refereed match against the full binary, the
//! CodinGame bundle a scripted turn.

use crate::util::{bin, match_counts, run, scratch, text};
use reversi_core::bitboard::Square;
use reversi_core::board::Board;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Writes the bundle for `protocol` to `dir`, checks its size, builds it
/// with `rustc` and returns the program's path.
fn build(dir: &Path, protocol: &str) -> PathBuf {
    let source = dir.join(format!("{protocol}.rs"));
    let out = run(
        &[
            "bundle",
            "--protocol",
            protocol,
            "--out",
            source.to_str().expect("utf-8"),
        ],
        b"",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let chars = std::fs::read_to_string(&source)
        .expect("written")
        .chars()
        .count();
    assert!(chars <= 100_000, "{protocol} bundle: {chars} characters");
    let program = dir.join(protocol);
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
    let cores = reversi_testkit::cores();
    let built = Command::new(rustc)
        .args(["--edition", "2021", "-O", "-o"])
        .arg(&program)
        .arg(&source)
        .output()
        .expect("rustc runs");
    drop(cores);
    assert!(built.status.success(), "{}", text(&built.stderr));
    assert!(
        built.stderr.is_empty(),
        "rustc said: {}",
        text(&built.stderr)
    );
    program
}

#[test]
fn the_judge_bundle_builds_with_rustc_and_plays_the_full_binary_without_a_fault() {
    let dir = scratch("bundle-judge");
    let program = build(&dir, "judge");
    // 500 ms a reply: the bundle then keeps the judge's own margin, 150
    // ms, for a loaded machine (at 300 ms it kept 90, and its first reply
    // came late once in CI with every core busy); its opponent answers at
    // depth 1, so the test stays short.
    let cores = reversi_testkit::cores();
    let out = run(
        &[
            "match",
            program.to_str().expect("utf-8"),
            &format!("{} --log quiet --depth 1", bin()),
            "--games",
            "2",
            "--move-time",
            "500",
            "--jobs",
            "1",
        ],
        b"",
    );
    drop(cores);
    let report = text(&out.stdout);
    assert!(out.status.success(), "{report}{}", text(&out.stderr));
    assert!(!report.contains(" forfeits:"), "{report}");
    // both games played to the end: two results between them
    let [wins, draws, losses, forfeits] = match_counts(&report, "A");
    assert_eq!(wins + draws + losses, 2, "{report}");
    assert_eq!(forfeits, 0, "no forfeit: {report}");
}

#[test]
fn the_codingame_bundle_builds_and_answers_a_listed_action() {
    let dir = scratch("bundle-codingame");
    let program = build(&dir, "codingame");
    let board = Board::start().play(Square::parse("d3").expect("square"));
    // white (player 1) to move after d3
    let turn = format!("1\n8\n{}", crate::codingame::turn_lines_for(&board, 1));
    let moves: Vec<Square> = reversi_core::bitboard::squares(board.moves()).collect();
    let mut child = Command::new(&program)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("bundle starts");
    std::io::Write::write_all(child.stdin.as_mut().expect("piped"), turn.as_bytes())
        .expect("writes");
    drop(child.stdin.take());
    let out = child.wait_with_output().expect("runs");
    let answer = text(&out.stdout);
    assert_eq!(answer.lines().count(), 1, "{answer}");
    let square = Square::parse(answer.trim()).expect("a square");
    assert!(moves.contains(&square), "{answer} not among {moves:?}");
}

#[test]
fn a_bundle_over_the_limit_is_not_written_and_the_excess_is_named() {
    let dir = scratch("bundle-limit");
    let source = dir.join("small.rs");
    let out = run(
        &[
            "bundle",
            "--max-chars",
            "1000",
            "--out",
            source.to_str().expect("utf-8"),
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(1));
    let message = text(&out.stderr);
    assert!(message.contains("over the limit of 1000"), "{message}");
    assert_eq!(message.lines().count(), 1, "{message}");
    assert!(!source.exists());
}
