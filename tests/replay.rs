//! Every recorded session in `fixtures/transcripts/` replayed through the
//! real binary: each reply legal, one line, within the 1-second limit (the
//! wide margin a judge allows), the exit clean; and, for fixed-depth
//! transcripts, byte for byte what was recorded.

use crate::util::{bin, fixture, run, scratch, text};
use reversi::arena::replay::replay;
use reversi::records::transcript::Transcript;
use std::time::Duration;

#[test]
fn every_transcript_replays_legally_on_time_and_exactly() {
    let dir = fixture("transcripts");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("fixtures/transcripts exists")
        .map(|e| e.expect("readable").path())
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 10,
        "expected the fixture set, found {}",
        files.len()
    );
    let mut failures = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).expect("readable");
        let t = Transcript::parse(&text).expect("valid transcript");
        let command = format!("'{}' {}", bin(), t.header("args").unwrap_or(""));
        let exact = t.header("exact") == Some("yes");
        let report = replay(&command, &t, Duration::from_secs(1), exact);
        let expected_replies = t
            .entries
            .iter()
            .filter(|e| e.direction == reversi::records::transcript::Direction::Received)
            .count();
        if exact && report.replies.len() != expected_replies {
            failures.push(format!(
                "{}: {} replies, recorded {}",
                path.display(),
                report.replies.len(),
                expected_replies
            ));
        }
        for p in &report.problems {
            failures.push(format!(
                "{}: entry {}: {}",
                path.display(),
                p.entry + 1,
                p.text
            ));
        }
        assert!(report.slowest() < Duration::from_secs(1));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_wrong_recorded_reply_is_reported() {
    // The replay must be able to fail: change one recorded reply.
    let text = std::fs::read_to_string(fixture("transcripts/no-start.txt")).unwrap();
    let mut t = Transcript::parse(&text).unwrap();
    let first_reply = t
        .entries
        .iter_mut()
        .find(|e| e.direction == reversi::records::transcript::Direction::Received)
        .unwrap();
    first_reply.text = if first_reply.text == "d 3" {
        "c 4".into()
    } else {
        "d 3".into()
    };
    let command = format!("'{}' --depth 2", bin());
    let report = replay(&command, &t, Duration::from_secs(1), true);
    assert!(report.problems.iter().any(|p| p.text.contains("differs")));
}

#[test]
fn an_illegal_program_is_caught() {
    // A "bot" that always answers a 1: illegal from the start position.
    let t = Transcript::parse("> START\n> PLACE d 5 1\n> PLACE e 5 2\n> PLACE e 4 1\n> PLACE d 4 2\n> DONE\n> BEGIN\n> END\n").unwrap();
    let script =
        "read a; read b; read c; read d; read e; read f; echo OK; read g; echo 'a 1'; read h";
    let report = replay(
        &format!("sh -c \"{script}\""),
        &t,
        Duration::from_secs(1),
        false,
    );
    assert!(
        report
            .problems
            .iter()
            .any(|p| p.text.contains("illegal reply")),
        "{:?}",
        report.problems
    );
}

/// The standard start for black, then BEGIN and END.
const ONE_MOVE: &str =
    "> START\n> PLACE d 5 1\n> PLACE e 5 2\n> PLACE e 4 1\n> PLACE d 4 2\n> DONE\n< OK\n> BEGIN\n< f 5\n> END\n";

#[test]
fn two_recorded_replies_to_one_request_fail_an_exact_replay() {
    let doubled = ONE_MOVE.replace("< f 5\n", "< f 5\n< f 5\n");
    let t = Transcript::parse(&doubled).unwrap();
    let command = format!("'{}' --depth 1", bin());
    let report = replay(&command, &t, Duration::from_secs(1), true);
    assert!(
        report
            .problems
            .iter()
            .any(|p| p.text.contains("records 2 replies to 'BEGIN'")),
        "{:?}",
        report.problems
    );
    // Without --exact the recorded replies are not checked.
    let report = replay(&command, &t, Duration::from_secs(1), false);
    assert!(report.problems.is_empty(), "{:?}", report.problems);
}

#[test]
fn a_program_that_answers_twice_or_after_the_end_is_reported() {
    let t = Transcript::parse(ONE_MOVE).unwrap();
    // f5 twice in two writes: reported before END if the copy has arrived
    // by then, else after the end (replay sends END at once, and a busy
    // machine may stop the shell between its two writes).
    let twice = "sh -c 'while read l; do case \"$l\" in DONE) echo OK;; BEGIN) echo \"f 5\"; echo \"f 5\";; END) exit 0;; esac; done'";
    let report = replay(twice, &t, Duration::from_secs(1), false);
    assert!(
        report
            .problems
            .iter()
            .any(|p| p.text.contains("output nobody asked for: 'f 5'")),
        "{:?}",
        report.problems
    );
    let bye = "sh -c 'while read l; do case \"$l\" in DONE) echo OK;; BEGIN) echo \"f 5\";; END) echo bye; exit 0;; esac; done'";
    let report = replay(bye, &t, Duration::from_secs(1), false);
    assert!(
        report.problems.iter().any(|p| p
            .text
            .contains("after the last line: output nobody asked for: 'bye'")),
        "{:?}",
        report.problems
    );
}

#[test]
fn the_move_time_of_a_replay_reaches_the_bot() {
    // A clocked search (no --depth): told the limit, the bot answers
    // within 400 ms; left to its default second it would take 850 ms and
    // the replay would fail as late.
    let dir = scratch("replay-time");
    let path = dir.write(
        "session.txt",
        "# args: --book off\n> START\n> DONE\n< OK\n> BEGIN\n< d 3\n> TURN c 3\n< c 4\n> END\n",
    );
    let out = run(
        &["replay", path.to_str().unwrap(), "--move-time", "400"],
        b"",
    );
    let report = text(&out.stdout);
    assert!(out.status.success(), "{report}{}", text(&out.stderr));
    assert!(report.contains(" 0 problem(s)"), "{report}");
}

#[test]
fn ntest_ggf_test_games_are_all_read_and_replayed_legally() {
    let text = std::fs::read_to_string(fixture("ggf/TestGames.ggf")).unwrap();
    let games = reversi::records::ggf::parse(&text).expect("NTest's games parse");
    assert_eq!(games.len(), 12);
    let mut passes = 0;
    for (i, game) in games.iter().enumerate() {
        let positions = game
            .positions()
            .unwrap_or_else(|e| panic!("game {}: {e}", i + 1));
        passes += game.moves.iter().filter(|m| m.square.is_none()).count();
        // What we write, we read back as the same game.
        assert_eq!(
            reversi::records::ggf::parse(&game.render()).unwrap(),
            vec![game.clone()]
        );
        assert_eq!(game.tag("GM"), Some("Othello"));
        assert!(positions.len() > 1);
    }
    assert!(passes >= 5, "{passes} passes");
}

#[test]
fn a_recorded_match_writes_each_game_as_ggf_that_reads_back_to_the_same_game() {
    let folder = scratch("ggf");
    let dir = folder.join("games");
    let out = run(
        &[
            "match",
            "self --depth 2",
            "self --player greedy --seed 1",
            "--games",
            "2",
            "--record",
            dir.to_str().unwrap(),
        ],
        b"",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    for number in 1..=2 {
        let ggf = std::fs::read_to_string(dir.join(format!("game-{number:04}.ggf"))).unwrap();
        let games = reversi::records::ggf::parse(&ggf).expect("our GGF parses");
        assert_eq!(games.len(), 1);
        let game = &games[0];
        let positions = game.positions().expect("every move legal");
        assert!(positions.last().unwrap().is_game_over());
        // The same moves as the transcript's header, passes as `--`.
        let transcript =
            std::fs::read_to_string(dir.join(format!("game-{number:04}-black.txt"))).unwrap();
        let moves: String = game
            .moves
            .iter()
            .map(|m| m.square.map_or("--".to_string(), |s| s.to_string()))
            .collect();
        assert!(
            transcript.contains(&format!("# moves: {moves}")),
            "{moves}\n{transcript}"
        );
        // The result is black's disc difference.
        let last = positions.last().unwrap();
        let black_to_move = game.moves.len().is_multiple_of(2);
        let score = if black_to_move {
            last.final_score()
        } else {
            -last.final_score()
        };
        assert_eq!(game.tag("RE"), Some(format!("{score:+}").as_str()));
    }
}
