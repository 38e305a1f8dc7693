//! Perft from the start position against `fixtures/perft.txt`, depths 1-9
//! (deeper ones are in `make bench`).

use crate::util::{fixture, run, text};

/// (depth, games dropped, games kept) rows of the table.
fn table() -> Vec<(u32, u64, Option<u64>)> {
    let data = std::fs::read_to_string(fixture("perft.txt")).expect("fixture");
    let mut rows = Vec::new();
    let mut in_table = false;
    for line in data.lines() {
        let words: Vec<&str> = line.trim_start_matches('#').split_whitespace().collect();
        if words.first() == Some(&"depth") {
            in_table = true;
            continue;
        }
        if !in_table {
            continue;
        }
        let Some(depth) = words.first().and_then(|w| w.parse::<u32>().ok()) else {
            if rows.is_empty() {
                continue;
            }
            break;
        };
        let dropped: u64 = words[1].parse().expect("a count");
        let kept = words.get(2).and_then(|w| w.parse::<u64>().ok());
        rows.push((depth, dropped, kept));
    }
    rows
}

#[test]
fn library_perft_matches_both_conventions_to_depth_9() {
    use reversi::bench::perft::{perft, Convention};
    let start = reversi_core::board::Board::start();
    let rows = table();
    assert!(rows.len() >= 16);
    for &(depth, dropped, kept) in rows.iter().filter(|r| r.0 <= 9) {
        assert_eq!(
            perft(&start, depth, Convention::GamesDropped),
            dropped,
            "depth {depth}"
        );
        assert_eq!(
            perft(&start, depth, Convention::GamesKept),
            kept.unwrap(),
            "depth {depth}"
        );
    }
}

#[test]
fn perft_command_prints_the_table() {
    let out = run(&["perft", "8"], b"");
    assert!(out.status.success());
    let printed = text(&out.stdout);
    for &(depth, dropped, _) in table().iter().filter(|r| r.0 <= 8) {
        let line = printed
            .lines()
            .find(|l| l.split_whitespace().nth(1) == Some(&depth.to_string()))
            .unwrap_or_else(|| panic!("no line for depth {depth}:\n{printed}"));
        assert_eq!(
            line.split_whitespace().nth(2),
            Some(dropped.to_string().as_str())
        );
    }
}
