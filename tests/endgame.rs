//! FFO #1-#19 solved exactly through `reversi solve`: every score right and
//! every best move among the best moves (the command itself checks both
//! against the scores listed in the OBF file and exits 1 on any mismatch).

use crate::util::{fixture, run, text};

#[test]
fn ffo_1_to_19_are_solved_exactly() {
    let path = fixture("endgame/fforum-1-19.obf");
    let out = run(&["solve", path.to_str().unwrap()], b"");
    let printed = text(&out.stdout);
    assert!(out.status.success(), "{printed}");
    assert_eq!(printed.matches(" ok").count(), 19, "{printed}");
    assert!(printed.contains("19 positions"), "{printed}");
}

#[test]
fn a_wrong_listed_score_is_reported() {
    // Position #1 is +18 for G8; claim +20 and the check must fail.
    let line = std::fs::read_to_string(fixture("endgame/fforum-1-19.obf"))
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .replace("G8:+18", "G8:+20");
    let out = run(&["solve"], line.as_bytes());
    assert!(!out.status.success());
    assert!(text(&out.stdout).contains("WRONG"));
}
