//! The judge protocol through the real binary: what goes to stdout, what
//! goes to stderr, and that no input at all can crash it.

use crate::assert_lines_eq;
use crate::util::{run, text};
use reversi_core::bitboard::Square;
use reversi_core::protocol::{parse, Session};

const BLACK_SETUP: &str = "START\nPLACE d 5 1\nPLACE e 5 2\nPLACE e 4 1\nPLACE d 4 2\nDONE\n";

#[test]
fn stdout_holds_only_the_replies() {
    let input = format!("{BLACK_SETUP}BEGIN\nPASS\nEND\n");
    let out = run(&["--depth", "3"], input.as_bytes());
    assert!(out.status.success());
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{stdout}");
    assert_eq!(lines[0], "OK");
    for reply in &lines[1..] {
        let b = reply.as_bytes();
        assert!(
            b.len() == 3 && (b'a'..=b'h').contains(&b[0]) && b[1] == b' ',
            "{reply}"
        );
    }
    // The board and the legal moves go to stderr.
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("black to move, legal: d3 c4 f5 e6"),
        "{stderr}"
    );
    assert!(stderr.contains("  a b c d e f g h"), "{stderr}");
}

/// The start as the judge sets it up for a bot playing white.
const WHITE_SETUP: &str = "START\nPLACE d 4 1\nPLACE e 4 2\nPLACE d 5 2\nPLACE e 5 1\nDONE\n";

#[test]
fn the_book_answers_a_known_opening_by_default_and_not_when_off() {
    // Black opens c4 (f5 turned about the board); the book's answer to f5
    // is d6 (`reversi book show f5`), which turned the same way is e3.
    let input = format!("{WHITE_SETUP}TURN c 4\nEND\n");
    for args in [&["--depth", "2", "--book", "on"][..], &["--depth", "2"]] {
        let out = run(args, input.as_bytes());
        assert_eq!(text(&out.stdout).lines().collect::<Vec<_>>(), ["OK", "e 3"]);
        let stderr = text(&out.stderr);
        assert!(stderr.contains("played e 3: book score"), "{stderr}");
    }
    // Off: searched.
    let out = run(&["--depth", "2", "--book", "off"], input.as_bytes());
    assert_eq!(text(&out.stdout).lines().count(), 2);
    let stderr = text(&out.stderr);
    assert!(stderr.contains(": depth 2"), "{stderr}");
    assert!(!stderr.contains("book"), "{stderr}");
}

#[test]
fn no_input_at_all_exits_cleanly_and_silently() {
    let out = run(&[], b"");
    assert!(out.status.success());
    assert!(out.stdout.is_empty());
}

#[test]
fn same_input_same_replies_at_fixed_depth() {
    let input = format!("{BLACK_SETUP}BEGIN\nPASS\nPASS\nEND\n");
    let a = run(&["--depth", "6"], input.as_bytes());
    let b = run(&["--depth", "6"], input.as_bytes());
    assert_lines_eq!(
        text(&a.stdout).lines().collect::<Vec<_>>(),
        text(&b.stdout).lines().collect::<Vec<_>>()
    );
}

/// Random garbage between valid commands: the bot must never panic, must
/// exit 0, and every line it writes must be OK, PASS or a square.
#[test]
fn garbage_never_crashes_the_bot() {
    let mut rng = fastrand::Rng::with_seed(4242);
    let words = [
        "START", "PLACE", "DONE", "BEGIN", "TURN", "PASS", "d", "5", "1", "2", "z", "99", "\t",
        "\r", "\u{0}", "é", "",
    ];
    for _ in 0..25 {
        let mut input = Vec::new();
        input.extend_from_slice(BLACK_SETUP.as_bytes());
        for _ in 0..40 {
            if rng.bool() {
                let n = rng.usize(0..5);
                let line: Vec<&str> = (0..n).map(|_| words[rng.usize(..words.len())]).collect();
                input.extend_from_slice(line.join(" ").as_bytes());
            } else {
                for _ in 0..rng.usize(0..30) {
                    input.push(rng.u8(..));
                }
            }
            input.push(b'\n');
        }
        let out = run(&["--depth", "2"], &input);
        let stderr = text(&out.stderr);
        assert!(out.status.success(), "{stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        for line in text(&out.stdout).lines() {
            let b = line.as_bytes();
            let square =
                b.len() == 3 && Square::from_letter_digit(b[0], b[2]).is_some() && b[1] == b' ';
            assert!(
                line == "OK" || line == "PASS" || square,
                "bad stdout line {line:?}"
            );
        }
    }
}

/// Each kind of bad line leaves exactly one message on stderr.
#[test]
fn each_bad_line_gets_one_message() {
    let cases = [
        ("HELLO", "unknown command"),
        // Lower case, a tab and a CR, on a line that is then ignored: its
        // one message says so (no "accepted" for what was not).
        ("hello\tthere\r", "unknown command"),
        ("PLACE i 9 1", "bad PLACE"),
        ("PLACE d 5 3", "owner must be 1 or 2"),
        ("TURN z 9", "bad TURN"),
        ("", "blank line"),
    ];
    for (bad, expected) in cases {
        let input = format!("{BLACK_SETUP}{bad}\nEND\n");
        let out = run(&["--depth", "1", "--log", "quiet"], input.as_bytes());
        let stderr = text(&out.stderr);
        assert_eq!(stderr.lines().count(), 1, "{bad:?}: {stderr}");
        assert!(stderr.contains(expected), "{bad:?}: {stderr}");
    }
}

#[test]
fn session_keeps_the_position_the_judge_describes() {
    let mut s = Session::new();
    for line in BLACK_SETUP.lines() {
        s.apply_parsed(&parse(line).0);
    }
    let before = s.board();
    // An occupied square is refused, the board is unchanged.
    s.apply_parsed(&parse("TURN d 4").0);
    assert_eq!(s.board(), before);
    assert!(!s.warnings.is_empty());
    // A move that flips nothing still puts the disc down.
    s.apply_parsed(&parse("TURN a 1").0);
    assert_eq!(s.theirs & 1, 1);
    assert_eq!(s.mine, before.player);
}

/// A harness may hand the bot a non-blocking stdin: an empty one is then
/// "try again", not the end of input.
#[cfg(target_os = "linux")]
#[test]
fn a_non_blocking_input_is_waited_on() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let (reader, mut writer) = crate::util::non_blocking_pipe();
    let child = Command::new(crate::util::bin())
        .args(["--depth", "2"])
        .stdin(reader)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("binary starts");
    // Each line comes after the bot has found its input empty.
    for line in [BLACK_SETUP, "BEGIN\n", "END\n"] {
        std::thread::sleep(std::time::Duration::from_millis(150));
        writer.write_all(line.as_bytes()).expect("the bot reads on");
    }
    drop(writer);
    let out = child.wait_with_output().expect("binary runs");
    assert!(out.status.success());
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert_eq!(lines[0], "OK");
    assert!(["d 3", "c 4", "f 5", "e 6"].contains(&lines[1]), "{stdout}");
}
