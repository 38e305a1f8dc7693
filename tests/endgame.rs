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
fn wld_and_all_agree_with_the_listed_scores() {
    let path = fixture("endgame/fforum-1-19.obf");
    let out = run(&["solve", "--wld", path.to_str().unwrap()], b"");
    let printed = text(&out.stdout);
    assert!(out.status.success(), "{printed}");
    assert_eq!(printed.matches(" ok").count(), 19, "{printed}");
    // #1 is a win for black (+18), #4 a draw.
    assert!(
        printed
            .lines()
            .next()
            .unwrap()
            .contains("empties 14 win best"),
        "{printed}"
    );
    assert!(
        printed.lines().nth(3).unwrap().contains("draw"),
        "{printed}"
    );

    // --all: every legal move's score must equal the listed one (the
    // first five positions keep the test short).
    let five: String = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .take(5)
        .map(|l| format!("{l}\n"))
        .collect();
    let out = run(&["solve", "--all"], five.as_bytes());
    let printed = text(&out.stdout);
    assert!(out.status.success(), "{printed}");
    assert_eq!(printed.matches(" ok").count(), 5, "{printed}");
    assert!(
        printed.starts_with(
            "line   1: empties 14 g8:+18 h1:+12 a2:+6 h7:+6 a3:+4 b1:-4 a4:-22 g2:-24 "
        ),
        "{printed}"
    );
}

#[test]
fn a_depth_limit_leaves_deeper_positions_unsolved() {
    // #20 (6 empties) and #21 (15) are solved; #22 (17) only estimated.
    let three: String = std::fs::read_to_string(fixture("endgame/fforum-20-39.obf"))
        .unwrap()
        .lines()
        .take(3)
        .map(|l| format!("{l}\n"))
        .collect();
    let out = run(&["solve", "--depth-limit", "16"], three.as_bytes());
    let printed = text(&out.stdout);
    assert!(out.status.success(), "{printed}");
    let lines: Vec<&str> = printed.lines().collect();
    assert!(
        lines[0].contains("exact +6 best h5") && lines[0].ends_with(" ok"),
        "{printed}"
    );
    assert!(
        lines[1].contains("exact +0 best g5") && lines[1].ends_with(" ok"),
        "{printed}"
    );
    assert!(
        lines[2].contains("estimate") && lines[2].contains("(depth 16@"),
        "{printed}"
    );
    assert!(lines[3].ends_with("0 wrong, 1 not solved"), "{printed}");
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

/// Sets up an OBF position through the judge protocol (the side to move is
/// ours, so `BEGIN` asks for our move), and returns the reply and how long
/// it took from writing `BEGIN` to reading it.
fn reply_through_protocol(obf: &str) -> (String, std::time::Duration) {
    use reversi_core::protocol::{place_commands, Command as Line};
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};
    let (cells, rest) = obf.split_once(' ').unwrap();
    let (board, _) = reversi_core::board::Board::parse(cells, &rest.trim_start()[..1]).unwrap();
    let mut setup = format!("{}\n", Line::Start);
    for place in place_commands(board.player, board.opponent) {
        setup += &format!("{place}\n");
    }
    setup += &format!("{}\n", Line::Done);
    let mut child = Command::new(crate::util::bin())
        .args(["--log", "quiet"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    stdin.write_all(setup.as_bytes()).unwrap();
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    assert_eq!(line, "OK\n");
    let start = std::time::Instant::now();
    stdin
        .write_all(format!("{}\n", Line::Begin).as_bytes())
        .unwrap();
    line.clear();
    stdout.read_line(&mut line).unwrap();
    let took = start.elapsed();
    stdin
        .write_all(format!("{}\n", Line::End).as_bytes())
        .unwrap();
    assert!(child.wait().unwrap().success());
    (line.trim().replace(' ', ""), took)
}

/// The moves with the best listed score, lower case (`g8`).
fn best_moves(obf: &str) -> Vec<String> {
    let scores: Vec<(String, i32)> = obf
        .split(';')
        .skip(1)
        .filter_map(|p| p.split_once(':'))
        .map(|(m, s)| (m.trim().to_lowercase(), s.trim().parse().unwrap()))
        .collect();
    let top = scores.iter().map(|s| s.1).max().unwrap();
    scores
        .into_iter()
        .filter(|s| s.1 == top)
        .map(|s| s.0)
        .collect()
}

#[test]
fn in_play_the_bot_finds_the_best_move_of_ffo_positions_in_time() {
    // #1-#19 (14-16 empties) and all of #20-#39 (6-26 empties), under
    // the default 1-second limit. On the 2-core machine with both cores
    // kept busy (BENCHMARKS.md, "All of FFO #20-#39 in the test") every
    // one was found in two runs, the slowest exact solve taking 291 and
    // 490 ms (#33) of the 850 ms the search may use; at half the time
    // (REVERSI_MOVE_TIME=500) two runs found 19 and 20 of #20-#39 (#33's
    // solve cut off once). #37 (22 empties) is played by the midgame
    // search beside a proven loss when its exact solve (about 600 ms
    // idle) does not finish, #38 (24) and #39 (26) by the selective
    // search: their moves held in every run, idle, busy and at half the
    // time. The thinnest margin here, #33's, is under two.
    let mut lines: Vec<String> = std::fs::read_to_string(fixture("endgame/fforum-1-19.obf"))
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    let later: Vec<String> = std::fs::read_to_string(fixture("endgame/fforum-20-39.obf"))
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(later.len(), 20);
    lines.extend(later);
    for (i, obf) in lines.iter().enumerate() {
        let (reply, took) = reply_through_protocol(obf);
        let best = best_moves(obf);
        assert!(
            best.contains(&reply),
            "position {i}: played {reply}, best {best:?}"
        );
        assert!(
            took < std::time::Duration::from_millis(1000),
            "position {i}: {took:?}"
        );
    }
}

/// `solve --time`: a position the search takes to the end of the game is
/// solved, checked against the listed score, and counted so; one it
/// cannot is an estimate that says how selective it was.
#[test]
fn a_timed_solve_counts_what_it_proved() {
    let easy = fixture("endgame/fforum-1-19.obf");
    let out = run(&["solve", easy.to_str().unwrap(), "--time", "2"], b"");
    let report = text(&out.stdout);
    assert!(out.status.success(), "{report}");
    assert_eq!(report.matches(" exact ").count(), 19, "{report}");
    assert!(
        report.contains("19 positions") && report.contains(" 0 wrong, 0 not solved"),
        "{report}"
    );
    // FFO #39, 26 empties, in 10 ms: not solved, and not counted as such.
    let hard = fixture("endgame/fforum-20-39.obf");
    let last = std::fs::read_to_string(hard).unwrap();
    let line = last.lines().last().unwrap();
    let out = run(&["solve", "--time", "0.01"], line.as_bytes());
    let report = text(&out.stdout);
    assert!(report.contains(" estimate "), "{report}");
    assert!(
        report.contains('@') && report.contains("%) best"),
        "{report}"
    );
    assert!(report.contains(" 1 not solved"), "{report}");
}
