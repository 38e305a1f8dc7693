//! `reversi --protocol codingame`, driven turn by turn as CodinGame's
//! arena drives a bot: every answer must be one of the listed actions,
//! within the turn's budget (2 s for the first turn, 150 ms after).

use crate::util::{bin, text};
use reversi_core::bitboard::{self, Square};
use reversi_core::board::Board;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// One scripted turn: what the arena sends to player `id` (0 black, 1
/// white) to move in `board`.
pub fn turn_lines_for(board: &Board, id: u32) -> String {
    let (ours, theirs) = if id == 0 { ('0', '1') } else { ('1', '0') };
    let mut lines = String::new();
    for row in 0..8 {
        for col in 0..8 {
            let bit = 1u64 << (row * 8 + col);
            lines.push(if board.player & bit != 0 {
                ours
            } else if board.opponent & bit != 0 {
                theirs
            } else {
                '.'
            });
        }
        lines.push('\n');
    }
    let moves: Vec<Square> = bitboard::squares(board.moves()).collect();
    lines.push_str(&format!("{}\n", moves.len()));
    for sq in moves {
        lines.push_str(&format!("{sq}\n"));
    }
    lines
}

/// [`turn_lines_for`] black (player 0).
fn turn_lines(board: &Board) -> String {
    turn_lines_for(board, 0)
}

/// The positions black meets in a seeded game of moves chosen by a simple
/// rule, with whether white passed just before: black's turns only, as
/// player 0 sees them.
fn black_turns(seed: u64) -> Vec<(Board, bool)> {
    let mut board = Board::start();
    let mut black = true;
    let mut turns = Vec::new();
    let mut state = seed;
    let mut white_passed = false;
    while !board.is_game_over() {
        if !board.has_moves() {
            white_passed = !black;
            board = board.pass();
            black = !black;
            continue;
        }
        if black {
            turns.push((board, white_passed));
        }
        white_passed = false;
        let moves: Vec<Square> = bitboard::squares(board.moves()).collect();
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        board = board.play(moves[(state >> 33) as usize % moves.len()]);
        black = !black;
    }
    turns
}

#[test]
fn every_answer_is_listed_and_within_the_budget_including_a_pass_and_the_last_move() {
    // A game in which white passes while black still plays, and black plays
    // the last move: found by trying seeds in order.
    let (seed, turns) = (0..10_000u64)
        .map(|seed| (seed, black_turns(seed)))
        .find(|(_, turns)| {
            let last = turns.last().expect("black moves");
            turns.iter().any(|&(_, passed)| passed) && last.0.empty_count() == 1
        })
        .expect("such a game among the seeds");
    // The turns that matter, and a few others: the first, the pass, the
    // last two.
    let pass = turns.iter().position(|&(_, passed)| passed).expect("found");
    let mut chosen = vec![
        0,
        1,
        pass.saturating_sub(1),
        pass,
        turns.len() - 2,
        turns.len() - 1,
    ];
    chosen.dedup();

    // Each reply is timed against CodinGame's 150 ms.
    let _cores = reversi_testkit::cores();
    let mut child = crate::util::spawn(&["--protocol", "codingame"]);
    let mut stdin = child.stdin.take().expect("piped");
    let mut stdout = BufReader::new(child.stdout.take().expect("piped"));
    stdin.write_all(b"0\n8\n").expect("writes");
    for (k, &i) in chosen.iter().enumerate() {
        let board = turns[i].0;
        let budget = if k == 0 { 2000 } else { 150 };
        let sent = Instant::now();
        stdin
            .write_all(turn_lines(&board).as_bytes())
            .expect("writes");
        stdin.flush().expect("flushes");
        let mut answer = String::new();
        stdout.read_line(&mut answer).expect("reads");
        let took = sent.elapsed();
        let square = Square::parse(answer.trim());
        assert!(
            square.is_some_and(|sq| board.is_legal(sq)),
            "seed {seed}, turn {i}: {answer:?} is not a listed action"
        );
        assert!(
            took < Duration::from_millis(budget),
            "seed {seed}, turn {i}: answered in {took:?}, over {budget} ms"
        );
    }
    drop(stdin);
    let output = child.wait_with_output().expect("exits");
    assert!(output.status.success());
    assert!(output.stdout.is_empty(), "nothing more on stdout");
    let log = text(&output.stderr);
    assert_eq!(log.matches("played ").count(), chosen.len(), "{log}");
}

#[test]
fn a_non_blocking_input_is_waited_on() {
    let (reader, mut writer) = crate::util::non_blocking_pipe();
    let child = Command::new(bin())
        .args(["--protocol", "codingame", "--depth", "2"])
        .stdin(reader)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("binary starts");
    // Each part comes after the bot has found its input empty.
    let board = Board::start();
    for part in ["0\n8\n".to_string(), turn_lines(&board)] {
        std::thread::sleep(Duration::from_millis(150));
        writer.write_all(part.as_bytes()).expect("the bot reads on");
    }
    drop(writer);
    let out = child.wait_with_output().expect("binary runs");
    assert!(out.status.success());
    let answer = text(&out.stdout);
    assert!(
        Square::parse(answer.trim()).is_some_and(|sq| board.is_legal(sq)),
        "{answer:?}"
    );
}

#[test]
fn the_first_turn_budget_and_the_turn_budget_are_flags() {
    let board = Board::start();
    let output = crate::util::run(
        &[
            "--protocol",
            "codingame",
            "--first-move-time",
            "300",
            "--move-time",
            "50",
            // searched, not answered from the book, so that it is timed
            "--book",
            "off",
        ],
        format!("0\n8\n{}", turn_lines(&board)).as_bytes(),
    );
    assert!(output.status.success());
    let answer = text(&output.stdout);
    assert!(
        Square::parse(answer.trim()).is_some_and(|sq| board.is_legal(sq)),
        "{answer:?}"
    );
    let log = text(&output.stderr);
    // the search line says how long it searched: under the 300 ms given
    let ms: f64 = log
        .split("time ")
        .nth(1)
        .and_then(|rest| rest.split("ms").next())
        .and_then(|n| n.parse().ok())
        .expect("a search line with its time");
    assert!(ms < 300.0, "{log}");
    let wrong = crate::util::run(&["--protocol", "judge", "--first-move-time", "300"], b"");
    assert_eq!(wrong.status.code(), Some(2));
    let wrong = crate::util::run(&["--protocol", "arena"], b"");
    assert_eq!(wrong.status.code(), Some(2));
}
