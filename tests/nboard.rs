//! `reversi nboard`: scripted NBoard sessions, every reply checked, with
//! each line sent once the replies to the one before are in (as the GUI
//! does), so that a `ping` meets a search in progress only where the test
//! means it to.

use crate::util::{clean_match, fixture, ntest_game_with_a_pass, run, text, Conversation};
use reversi_core::bitboard::{squares, Square};
use std::time::Duration;

/// Long enough for any reply on a loaded 2-core machine.
const PATIENCE: Duration = Duration::from_secs(60);

fn engine() -> Conversation {
    Conversation::start(&["nboard"])
}

fn is(expected: &'static str) -> impl Fn(&str) -> bool {
    move |line| line == expected
}

/// After d3 c5: black to move.
const D3_C5: &str = "(;GM[Othello]BO[8 -------- -------- -------- ---O*--- ---*O--- -------- -------- -------- *]B[d3]W[c5];)";

fn legal_names(game: &str, extra: &[&str]) -> Vec<String> {
    let game = reversi::records::ggf::parse(game).unwrap().remove(0);
    let mut board = *game.positions().unwrap().last().unwrap();
    for m in extra {
        let sq = Square::parse(m).unwrap();
        assert!(board.is_legal(sq));
        board = board.play(sq);
    }
    squares(board.moves()).map(|s| s.to_string()).collect()
}

/// The `search` lines of one `hint`, grouped by depth as sent.
fn hint_groups(lines: &[String]) -> Vec<Vec<(String, f64, String)>> {
    let mut groups = vec![Vec::new()];
    for line in lines {
        if line.starts_with("nodestats ") {
            groups.push(Vec::new());
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.first() == Some(&"search") {
            assert_eq!(words.len(), 5, "{line}");
            assert_eq!(words[3], "0", "{line}");
            let eval: f64 = words[2].parse().unwrap();
            groups
                .last_mut()
                .unwrap()
                .push((words[1].to_string(), eval, words[4].to_string()));
        }
    }
    groups.retain(|g| !g.is_empty());
    groups
}

#[test]
fn hint_go_ping_and_bad_lines() {
    let mut e = engine();
    e.say("nboard 2");
    e.until(PATIENCE, is("set myname reversi"));
    e.say("set depth 4");
    e.until(PATIENCE, is("set myname reversi4"));
    e.say(&format!("set game {D3_C5}"));
    e.say("hint 3");
    let lines = e.until(PATIENCE, is("status"));
    assert_eq!(lines[0], "status reversi is thinking");
    // Depths 2 then 4, each with three of black's legal moves, best first.
    let groups = hint_groups(&lines);
    let legal = legal_names(D3_C5, &[]);
    assert_eq!(groups.len(), 2, "{lines:#?}");
    for (group, depth) in groups.iter().zip(["2", "4"]) {
        assert_eq!(group.len(), 3, "{lines:#?}");
        for (place, _, d) in group {
            assert!(legal.contains(place), "{place} in {lines:#?}");
            assert_eq!(d, depth);
        }
        assert!(group.windows(2).all(|w| w[0].1 >= w[1].1), "{lines:#?}");
    }
    // Bad lines get notes; the ping after them shows they were read.
    for bad in ["frobnicate", "move z9", "move c5", "set depth 0", "hint x"] {
        e.say(bad);
    }
    e.say("ping 7");
    e.until(PATIENCE, is("pong 7"));
    // White to move after f6; `go` answers a legal move and does not play
    // it: the GUI sends it back.
    e.say("move F6/0.50/1.2");
    e.say("go");
    let lines = e.until(PATIENCE, |l| l.starts_with("=== "));
    let go = lines.last().unwrap();
    let fields: Vec<&str> = go.trim_start_matches("=== ").split('/').collect();
    assert_eq!(fields.len(), 3, "{go}");
    let white_moves = legal_names(D3_C5, &["f6"]);
    assert!(white_moves.contains(&fields[0].to_string()), "{go}");
    assert!(
        lines.iter().any(|l| l.starts_with("nodestats ")),
        "{lines:#?}"
    );
    e.until(PATIENCE, is("status"));
    e.say("hint 1");
    let lines = e.until(PATIENCE, is("status"));
    for (place, _, _) in hint_groups(&lines).concat() {
        assert!(
            white_moves.contains(&place),
            "still white's move: {lines:#?}"
        );
    }
    e.say(&format!("move {}", fields[0]));
    e.say("learn");
    e.until(PATIENCE, is("learned"));
    e.say("quit");
    let (status, rest, stderr) = e.finish();
    assert!(status.success());
    assert!(rest.is_empty(), "nothing after quit: {rest:#?}");
    for expected in [
        "unknown command 'frobnicate'",
        "'z9' is not a move",
        "c5 is not legal here",
        "set depth takes 1 to 60",
        "hint takes a count of moves, not 'x'",
    ] {
        assert!(stderr.contains(expected), "{stderr}");
    }
    assert!(
        !stderr.contains("move: f"),
        "the moves were legal: {stderr}"
    );
}

#[test]
fn ping_stops_a_search_in_progress() {
    let mut e = Conversation::start(&["nboard", "--move-time", "600000"]);
    e.say("set depth 40");
    e.until(PATIENCE, is("set myname reversi40"));
    // A hint of depth 40 from the start would run for hours: the ping
    // stops it after its first depths.
    e.say("hint 3");
    e.until(PATIENCE, |l| l.starts_with("nodestats "));
    e.say("ping 9");
    let lines = e.until(Duration::from_secs(10), is("pong 9"));
    assert_eq!(lines[lines.len() - 2], "status", "{lines:#?}");
    // So does a `go` with ten minutes, and the move found so far is still
    // given, before the pong (as NTest does): a GUI waiting for it never
    // hangs.
    e.say("go");
    e.until(PATIENCE, is("status reversi is thinking"));
    std::thread::sleep(Duration::from_millis(300));
    e.say("ping 10");
    let lines = e.until(Duration::from_secs(10), is("pong 10"));
    let answer = lines
        .iter()
        .find(|l| l.starts_with("=== "))
        .expect("an answer");
    let place = answer[4..6].to_ascii_lowercase();
    assert!(
        ["d3", "c4", "f5", "e6"].contains(&place.as_str()),
        "{lines:#?}"
    );
    assert_eq!(&lines[lines.len() - 2..], ["status", "pong 10"]);
    e.say("quit");
    let (status, _, _) = e.finish();
    assert!(status.success());
}

/// The GUI's case: a deep `go` on a 33-empty position, and a setting sent
/// 0.25 s later. The answer comes.
#[test]
fn a_line_that_comes_while_go_thinks_does_not_lose_its_answer() {
    let text = std::fs::read_to_string(fixture("ggf/lost-to-edax.ggf")).unwrap();
    let game = reversi::records::ggf::parse(&text).unwrap().remove(0);
    let mut early = game.clone();
    early
        .moves
        .truncate(game.start().empty_count() as usize - 33);
    let board = *early.positions().unwrap().last().unwrap();
    assert_eq!(board.empty_count(), 33);
    let mut e = Conversation::start(&["nboard", "--move-time", "600000"]);
    e.say("nboard 2");
    e.say("set depth 24");
    e.until(PATIENCE, is("set myname reversi24"));
    e.say(&format!("set game {}", early.render()));
    e.say("go");
    e.until(PATIENCE, is("status reversi is thinking"));
    std::thread::sleep(Duration::from_millis(250));
    e.say("set contempt 0");
    let lines = e.until(Duration::from_secs(10), |l| l.starts_with("=== "));
    let answer = lines.last().unwrap();
    let place = answer[4..6].to_ascii_lowercase();
    let legal: Vec<String> = squares(board.moves()).map(|s| s.to_string()).collect();
    assert!(legal.contains(&place), "{answer} not in {legal:?}");
    e.say("quit");
    let (status, _, _) = e.finish();
    assert!(status.success());
}

/// Once a hint's moves are solved, deeper depths would repeat them: one
/// block is given, not one a depth.
#[test]
fn a_solved_hint_is_not_repeated() {
    let text = std::fs::read_to_string(fixture("ggf/lost-to-edax.ggf")).unwrap();
    let mut game = reversi::records::ggf::parse(&text).unwrap().remove(0);
    game.moves
        .truncate(game.start().empty_count() as usize - 18);
    let mut e = engine();
    e.say("nboard 2");
    e.say(&format!("set game {}", game.render()));
    // Solved once at depth 20; then a hint at depth 12 finds every move
    // solved from its first depth.
    e.say("set depth 20");
    e.say("hint 2");
    e.until(PATIENCE, is("status"));
    e.say("set depth 12");
    e.say("hint 2");
    e.until(PATIENCE, is("status reversi is thinking"));
    let lines = e.until(PATIENCE, is("status"));
    let blocks = hint_groups(&lines);
    assert!(!blocks.is_empty(), "{lines:#?}");
    for pair in blocks.windows(2) {
        assert_ne!(pair[0], pair[1], "the same block twice: {lines:#?}");
    }
    assert!(
        blocks
            .last()
            .unwrap()
            .iter()
            .all(|(_, _, depth)| depth == "100%"),
        "{lines:#?}"
    );
    e.say("quit");
    assert!(e.finish().0.success());
}

#[test]
fn a_forced_pass_a_finished_game_and_analyze() {
    let game = ntest_game_with_a_pass();
    let pass_at = game.moves.iter().position(|m| m.square.is_none()).unwrap();
    let mut before = game.clone();
    before.moves.truncate(pass_at);
    let mut e = engine();
    e.say("nboard 2");
    e.say(&format!("set game {}", before.render()));
    e.say("hint 2");
    let lines = e.until(PATIENCE, is("status"));
    let hinted = lines
        .iter()
        .rev()
        .find_map(|l| l.strip_prefix("search PA "))
        .unwrap_or_else(|| panic!("{lines:#?}"));
    let hinted = hinted.split_whitespace().next().unwrap().to_string();
    e.say("go");
    let lines = e.until(PATIENCE, |l| l.starts_with("=== "));
    // The pass is valued as the hint valued it.
    let answer = lines.last().unwrap();
    assert!(
        answer.starts_with(&format!("=== PA/{hinted}/")),
        "{answer} after hint {hinted}"
    );
    e.until(PATIENCE, is("status"));

    // The whole game: nobody can move; `go` gets a note, `analyze` a value
    // for every position, from the last back to the start.
    e.say(&format!("set game {}", game.render()));
    e.say("go");
    e.say("analyze");
    let lines = e.until(PATIENCE, is("status"));
    let analysis: Vec<(usize, f64)> = lines
        .iter()
        .filter_map(|l| l.strip_prefix("analysis "))
        .map(|rest| {
            let (n, eval) = rest.split_once(' ').unwrap();
            (n.parse().unwrap(), eval.parse().unwrap())
        })
        .collect();
    let positions = game.positions().unwrap();
    let numbers: Vec<usize> = analysis.iter().map(|a| a.0).collect();
    assert_eq!(numbers, (0..positions.len()).rev().collect::<Vec<_>>());
    let last = positions.last().unwrap();
    assert_eq!(analysis[0].1, f64::from(last.final_score()));
    // Where both are exact (16 empties and fewer), the mover's best is at
    // least what the move played was worth: value(n) >= -value(n + 1).
    let value = |n: usize| analysis.iter().find(|a| a.0 == n).unwrap().1;
    for (n, position) in positions.iter().enumerate().take(positions.len() - 1) {
        if position.empty_count() <= 16 {
            assert!(value(n) >= -value(n + 1), "position {n}: {analysis:?}");
        }
    }
    e.say("quit");
    let (status, _, stderr) = e.finish();
    assert!(status.success());
    assert!(stderr.contains("go: the game is over"), "{stderr}");
}

#[test]
fn the_referee_plays_an_nboard_engine_through_the_bridge_to_the_end() {
    // Our own NBoard engine as player B, from XOT openings (set up in the
    // engine with `set game` from the placed discs), at depth 4.
    let openings = fixture("../../shared/data/openings/xot-small.txt");
    let openings = openings.to_str().unwrap();
    let args = [
        "self --depth 2",
        "nboard@4:self nboard",
        "--games",
        "4",
        "--openings",
        openings,
    ];
    clean_match(&args, "B", 4);
}

#[test]
fn engines_behind_the_bridge_keep_the_referees_clock() {
    // At 300 ms a move, our GTP and NBoard engines (clocked, not at a fixed
    // depth) hear the limit from the referee and answer within it.
    let args = [
        "nboard:self nboard",
        "gtp:self gtp",
        "--games",
        "2",
        "--move-time",
        "300",
    ];
    clean_match(&args, "A", 2);
    clean_match(&args, "B", 2);
}

#[test]
fn a_bridge_with_a_bad_depth_or_no_engine_is_a_usage_error() {
    for args in [
        &["bridge"][..],
        &["bridge", "--nboard", "x", "--depth", "0"],
        &["bridge", "--gtp", "x", "--depth", "3"],
    ] {
        let out = run(args, b"");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(text(&out.stderr).trim().lines().count(), 1, "{args:?}");
    }
}

/// A `gtp:` or `nboard:` engine that cannot start is the run's error
/// (exit 1, "could not start"), as a plain program that cannot start is:
/// not a forfeit scored as a win.
#[test]
fn an_engine_that_cannot_start_is_an_error_not_a_forfeit() {
    for player in [
        "gtp:/nonexistent/engine -gtp",
        "nboard:/nonexistent/engine",
        "gtp:/etc/passwd",
    ] {
        let out = run(&["match", "self", player, "--games", "1"], b"");
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{player}: {stderr}");
        assert!(stderr.contains("could not start B"), "{player}: {stderr}");
    }
}
