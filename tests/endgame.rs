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
        lines[2].contains("estimate") && lines[2].contains("(depth 16)"),
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
    use reversi::protocol::{place_commands, Command as Line};
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};
    let (cells, rest) = obf.split_once(' ').unwrap();
    let (board, _) = reversi::board::Board::parse(cells, &rest.trim_start()[..1]).unwrap();
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
    // #1-#19 (14-16 empties), and the twelve of #20-#39 with room to spare
    // on a slow machine running other tests beside this one:
    // - #20-#22 (6, 15 and 17 empties), solved exactly within 100 ms,
    //   idle or busy;
    // - #23 (18 empties), #24 and #25 (19), #30 (20) and #36 (21), whose
    //   best moves are exactly the moves that keep the best outcome (win,
    //   draw or loss), so that even a win/draw/loss solve, which the bot
    //   runs first when an exact one does not fit, finds one; solved
    //   within 200 ms on an idle machine, 320 ms with both cores busy;
    // - #27 and #29 (20), solved exactly within 140 ms idle, 240 ms busy;
    // - #31 (20) and #35 (21), solved exactly within 240 ms idle or busy
    //   since the null-window solver.
    // The other eight are found at 1 s too, idle and busy (BENCHMARKS.md),
    // but by solves of 330-500 ms under load, or by the midgame's move
    // beside a proven loss (#37) or the selective search (#38, #39): at
    // half the time, with both cores busy, two of them were missed. Under
    // the default 1-second limit.
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
    for number in [20, 21, 22, 23, 24, 25, 27, 29, 30, 31, 35, 36] {
        lines.push(later[number - 20].clone());
    }
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
