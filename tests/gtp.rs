//! `reversi gtp`: scripted GTP sessions, every reply checked.

use crate::util::{clean_match, fixture, ntest_game_with_a_pass, run, text};

/// The replies of a session, one string each (`= ...` or `? ...`), as
/// the blank lines delimit them.
fn replies(input: &str, args: &[&str]) -> Vec<String> {
    let mut all = vec!["gtp"];
    all.extend_from_slice(args);
    let out = run(&all, input.as_bytes());
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout)
        .split("\n\n")
        .filter(|r| !r.is_empty())
        .map(str::to_string)
        .collect()
}

#[test]
fn a_session_with_bad_lines_ids_and_undo() {
    let input = "protocol_version\n\
        7 name\n\
        boardsize 9\n\
        boardsize 8\n\
        komi 0\n\
        play b d3\n\
        play b c5\n\
        play w z9\n\
        frobnicate\n\
        play\n\
        12 genmove w\n\
        undo\n\
        undo\n\
        undo\n\
        known_command genmove\n\
        known_command frobnicate\n\
        final_score\n\
        quit\n\
        name\n";
    let got = replies(input, &["--depth", "2", "--book", "off"]);
    let expected = [
        "= 2",
        "=7 reversi",
        "? unacceptable size",
        "=",
        "=",
        "=",
        "? wrong color",
        "? syntax error (not a move)",
        "? unknown command",
        "? syntax error (wrong or missing color)",
    ];
    assert_eq!(got[..expected.len()], expected, "{got:#?}");
    // genmove answers a legal reply to d3 under its id.
    let reply = got[10].strip_prefix("=12 ").expect("an answer with its id");
    assert!(["c3", "c5", "e3"].contains(&reply), "{reply}");
    assert_eq!(
        got[11..],
        ["=", "=", "? cannot undo", "= true", "= false", "= 0", "="],
        "{got:#?}"
    );
    // Nothing after quit.
    assert_eq!(got.len(), 18);
}

#[test]
fn a_whole_game_with_a_pass_ends_with_its_recorded_score() {
    // NTest's first test game that has a pass: its moves played in, the
    // engine asked to move where the record passes (it must pass too).
    let game = ntest_game_with_a_pass();
    let mut input = String::new();
    let mut expected = Vec::new();
    for m in &game.moves {
        let color = if m.color == reversi_core::board::Color::Black {
            "b"
        } else {
            "w"
        };
        match m.square {
            Some(sq) => {
                input.push_str(&format!("play {color} {sq}\n"));
                expected.push("=".to_string());
            }
            None => {
                input.push_str(&format!("genmove {color}\n"));
                expected.push("= pass".to_string());
            }
        }
    }
    input.push_str("final_score\n");
    let result: f64 = game.tag("RE").unwrap().parse().unwrap();
    let result = result as i32;
    expected.push(match result {
        0 => "= 0".to_string(),
        r if r > 0 => format!("= B+{r}"),
        r => format!("= W+{}", -r),
    });
    let got = replies(&input, &["--depth", "1"]);
    assert_eq!(got, expected);
}

#[test]
fn the_referee_plays_a_gtp_engine_through_the_bridge_to_the_end() {
    // Our own GTP engine as player B, from XOT openings (set up in the
    // engine by a line of moves the bridge finds to the placed discs).
    let openings = fixture("../../shared/data/openings/xot-small.txt");
    let openings = openings.to_str().unwrap();
    let args = [
        "self --depth 2",
        "gtp:self gtp --depth 2",
        "--games",
        "4",
        "--openings",
        openings,
    ];
    clean_match(&args, "B", 4);
}
