//! `reversi bio97` against the question's published marking tests, byte for
//! byte, and its handling of bad moves.

use crate::util::{fixture, run, text};

fn read(name: &str) -> String {
    std::fs::read_to_string(fixture(&format!("bio97/{name}"))).expect("fixture")
}

#[test]
fn test1_with_both_strategies() {
    for n in ["1", "2"] {
        let out = run(&["bio97", "--strategy", n], read("test1.in").as_bytes());
        assert!(out.status.success());
        let expected = read("test1.expected").replace("Strategy N", &format!("Strategy {n}"));
        assert_eq!(text(&out.stdout), expected, "strategy {n}");
    }
}

#[test]
fn test2_with_each_strategy() {
    for n in ["1", "2"] {
        let out = run(&["bio97", "--strategy", n], read("test2.in").as_bytes());
        assert!(out.status.success());
        assert_eq!(
            text(&out.stdout),
            read(&format!("test2-strategy{n}.expected")),
            "strategy {n}"
        );
    }
}

#[test]
fn bad_moves_change_nothing_and_are_reported() {
    // Off the board, occupied, no neighbour; words that are not numbers are
    // ignored; then a good move.
    let input = "....\n.*0.\n.0*.\n....\n0\n9 9\n0\n4 4\nhello\n0\n1 1\n0\n3 5\n-1\n";
    let out = run(&["bio97", "--strategy", "1"], input.as_bytes());
    assert!(out.status.success());
    let stderr = text(&out.stderr);
    assert!(stderr.contains("(9, 9) is off the board"), "{stderr}");
    assert!(stderr.contains("(4, 4) is occupied"), "{stderr}");
    assert!(
        stderr.contains("(1, 1) has no occupied neighbour"),
        "{stderr}"
    );
    // Only the start board and the board after the good move (3, 5): the
    // same two boards test 1 shows first.
    let expected: String = read("test1.expected")
        .replace("Strategy N", "Strategy 1")
        .split_inclusive('\n')
        .take(1 + 9 + 9)
        .collect();
    assert_eq!(text(&out.stdout), expected);
}
