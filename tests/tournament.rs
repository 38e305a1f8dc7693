//! `reversi tournament` end to end, with built-in players on a few fast
//! games, including one that crashes and one that is always late.

use crate::util::{run, scratch, text};
use std::path::Path;

fn tournament(format: &str, file: &Path, extra: &[&str]) -> String {
    let mut args = vec![
        "tournament",
        "--players",
        file.to_str().unwrap(),
        "--format",
        format,
        "--move-time",
        "300",
    ];
    args.extend_from_slice(extra);
    let out = run(&args, b"");
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout)
}

const CRASHER: &str = "crasher: sh -c 'while read l; do case \"$l\" in DONE) echo OK;; BEGIN|TURN*|PASS) exit 1;; esac; done'";
const SLEEPER: &str = "sleeper: sh -c 'while read l; do case \"$l\" in DONE) echo OK;; BEGIN|TURN*|PASS) sleep 1; echo PASS;; esac; done'";

#[test]
fn knockout_with_a_crasher_and_a_late_player() {
    let dir = scratch("ko");
    let file = dir.write(
        "players.txt",
        &format!("bot: self --depth 2\ngreedy: self --player greedy --seed 1\n{CRASHER}\n{SLEEPER}\nrandom: self --player random --seed 2\n"),
    );
    let out_dir = dir.join("out");
    let out = tournament(
        "knockout",
        &file,
        &[
            "--seed",
            "3",
            "--jobs",
            "2",
            "--out",
            out_dir.to_str().unwrap(),
        ],
    );
    assert!(out.contains("has the bye"), "{out}");
    assert!(out.contains("winner: "), "{out}");
    assert!(out.contains("top points scorer: "), "{out}");
    // The crasher and the sleeper fail at their first request: each game is
    // restarted once, then lost.
    // With five players the lowest number has the bye, twice here; the
    // crasher and the sleeper are numbered by the seed, so both play.
    assert!(out.contains("restarted for crasher"), "{out}");
    assert!(out.contains("restarted for sleeper"), "{out}");
    assert!(out.contains("no reply within 300 ms"), "{out}");
    assert!(out.contains("crashed or closed its output"), "{out}");
    assert!(
        !out.contains("winner: crasher") && !out.contains("winner: sleeper"),
        "{out}"
    );
    // A restart costs a point and the technical loss scores nothing.
    for name in ["crasher", "sleeper"] {
        let row: Vec<&str> = out
            .lines()
            .skip_while(|l| !l.starts_with("rank"))
            .find(|l| l.split_whitespace().nth(1) == Some(name))
            .unwrap()
            .split_whitespace()
            .collect();
        assert_eq!(row[3], "-1", "{name} points:\n{out}");
        assert_eq!(row[10], "1", "{name} restarts:\n{out}");
    }
    for file in ["standings.csv", "standings.json", "bracket.svg"] {
        assert!(out_dir.join(file).exists(), "{file}");
    }
    let svg = std::fs::read_to_string(out_dir.join("bracket.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("Winner:"));
    // Each pairing played links to its game's page, which is there: one
    // link a game that counted (four pairings over three rounds with five
    // players, the byes unlinked).
    let links: Vec<&str> = svg
        .split("<a href=\"")
        .skip(1)
        .map(|rest| rest.split('"').next().unwrap())
        .collect();
    assert_eq!(links.len(), 4, "{svg}");
    for link in &links {
        let page = std::fs::read_to_string(out_dir.join(link)).unwrap();
        assert!(page.contains("id=\"board\""), "{link}");
    }
    let csv = std::fs::read_to_string(out_dir.join("standings.csv")).unwrap();
    assert_eq!(csv.lines().count(), 6, "{csv}");
    assert!(std::fs::read_dir(out_dir.join("games")).unwrap().count() >= 8);
}

#[test]
fn elo_pool_prints_the_table() {
    let dir = scratch("elo");
    let file = dir.write(
        "players.txt",
        "a: self --depth 1\nb: self --player greedy --seed 3\nc: self --player random --seed 4\n",
    );
    let out = tournament("elo", &file, &["--games", "6", "--jobs", "1"]);
    let table: Vec<&str> = out.lines().skip_while(|l| !l.contains("rating")).collect();
    assert_eq!(table.len(), 4, "{out}");
    let games: u32 = table[1..]
        .iter()
        .map(|l| l.split_whitespace().nth(3).unwrap().parse::<u32>().unwrap())
        .sum();
    assert_eq!(games, 12, "6 games, 2 players each:\n{out}");
}

#[test]
fn ladder_plays_neighbours_and_reorders() {
    let dir = scratch("ladder");
    let file = dir.write(
        "players.txt",
        &format!("{CRASHER}\nbot: self --depth 2\nrandom: self --player random --seed 5\n"),
    );
    let out = tournament(
        "ladder",
        &file,
        &["--rounds", "2", "--pair-games", "2", "--jobs", "2"],
    );
    // Round 1: the bot beats its two neighbours; the crasher and random lose
    // everything and tie at 0, so they keep their order. Round 2: random
    // now meets the crasher, beats it, and climbs over it.
    assert!(
        out.contains("after round 1: bot > crasher > random"),
        "{out}"
    );
    assert!(
        out.contains("after round 2: bot > random > crasher"),
        "{out}"
    );
    let table: Vec<Vec<&str>> = out
        .lines()
        .skip_while(|l| !l.starts_with("rank"))
        .skip(1)
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(table[0][..3], ["1", "bot", "100.0"], "{out}");
    assert_eq!(table[1][..3], ["2", "random", "50.0"], "{out}");
    assert_eq!(table[2][..3], ["3", "crasher", "0.0"], "{out}");
}

#[test]
fn tournaments_judge_how_a_program_ends_as_match_does() {
    // A program that plays well and then says a word after END, and one
    // that exits 1: each forfeits every game it plays to the end (black's
    // fault is the one reported when both are at fault).
    let bot = format!("'{}' --depth 1", crate::util::bin());
    let dir = scratch("endings");
    let file = dir.write(
        "players.txt",
        &format!("bot: {bot}\nbye: {bot}; echo bye\nexit1: {bot}; exit 1\n"),
    );
    let out = tournament(
        "elo",
        &file,
        &["--games", "6", "--jobs", "2", "--seed", "7"],
    );
    let games: Vec<&str> = out.lines().filter(|l| l.starts_with("game ")).collect();
    assert_eq!(games.len(), 6, "{out}");
    for game in games {
        let black = game
            .split(" (black)")
            .next()
            .and_then(|s| s.rsplit(' ').next());
        let white = game
            .split(" (white)")
            .next()
            .and_then(|s| s.rsplit(' ').next());
        let (loser, name) = if black != Some("bot") {
            ("black", black)
        } else {
            ("white", white)
        };
        let reason = match name {
            Some("bye") => "after END: output nobody asked for: 'bye'",
            Some("exit1") => "at END: exit status: 1",
            _ => panic!("two bots cannot meet here: {game}"),
        };
        assert!(
            game.ends_with(&format!("{loser} forfeits: {reason}")),
            "{game}"
        );
    }
}

#[test]
fn standings_files_parse_back_for_any_player_names() {
    // Names that a hand-written writer got wrong: bare numbers in JSON, a
    // quote, a letter outside ASCII.
    let names = ["007", "1.", "a\"b", "é"];
    let lines: String = names
        .iter()
        .enumerate()
        .map(|(i, n)| format!("{n}: self --player random --seed {i}\n"))
        .collect();
    let dir = scratch("names");
    let file = dir.write("players.txt", &lines);
    let out_dir = dir.join("out");
    tournament(
        "ladder",
        &file,
        &[
            "--rounds",
            "1",
            "--pair-games",
            "1",
            "--out",
            out_dir.to_str().unwrap(),
        ],
    );
    let json = std::fs::read_to_string(out_dir.join("standings.json")).unwrap();
    let table: serde_json::Value = serde_json::from_str(&json).expect("standings.json parses");
    let mut from_json: Vec<&str> = table
        .as_array()
        .expect("an array of players")
        .iter()
        .map(|row| row["player"].as_str().expect("a name is a string"))
        .collect();
    from_json.sort_unstable();
    let csv = std::fs::read_to_string(out_dir.join("standings.csv")).unwrap();
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let column = reader
        .headers()
        .unwrap()
        .iter()
        .position(|h| h == "player")
        .expect("a player column");
    let mut from_csv: Vec<String> = reader
        .records()
        .map(|r| r.expect("standings.csv parses")[column].to_string())
        .collect();
    from_csv.sort_unstable();
    let mut expected = names.to_vec();
    expected.sort_unstable();
    assert_eq!(from_json, expected);
    assert_eq!(from_csv, expected);
}
