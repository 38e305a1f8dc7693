//! Property tests of every parser the tools have (`proptest`): on any
//! input none of them panics, and what one accepts writes back to the same
//! thing. The number of cases each runs is `PROPTEST_CASES` (CI: the
//! default below); BENCHMARKS.md, "Fuzzing the parsers", gives the counts
//! and times.

use proptest::prelude::*;
use reversi::arena::{parse_entrants, Openings};
use reversi::records::archive::{parse_logistello, parse_wthor, Game};
use reversi::records::ggf;
use reversi::records::obf::{parse_obf, ObfPosition};
use reversi::records::transcript::Transcript;
use reversi_core::bitboard::{squares, Square};
use reversi_core::board::Board;
use std::path::Path;

/// Cases per property unless `PROPTEST_CASES` says otherwise.
const CASES: u32 = 10_000;

fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(CASES);
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Text that looks like the formats more often than chance would: their
/// own characters and words, mixed with anything at all.
fn texty() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        any::<String>(),
        "[-XOxo.* ;:+0-9a-hA-H\\n\\r\\t#%>]{0,80}",
        Just("START\n".to_string()),
        Just("> PLACE d 4 1\n".to_string()),
        Just("< OK\n".to_string()),
        Just("# args: --depth 1\n".to_string()),
        Just("name: self --depth 1\n".to_string()),
        Just("f5d6c3d3c4\n".to_string()),
    ];
    prop::collection::vec(piece, 0..8).prop_map(|parts| parts.concat())
}

/// A game of random legal moves, `plies` long at most.
fn random_game(seed: u64, plies: usize) -> Game {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut board = Board::start();
    let mut game = Vec::new();
    while game.len() < plies && !board.is_game_over() {
        if !board.has_moves() {
            board = board.pass();
        }
        let moves: Vec<Square> = squares(board.moves()).collect();
        let square = moves[rng.usize(..moves.len())];
        board = board.play(square);
        game.push(square);
    }
    game
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn obf_lines(text in texty()) {
        for line in text.lines() {
            if let Ok(Some(position)) = parse_obf(line) {
                let again = parse_obf(&position.line()).expect("its own line parses");
                prop_assert_eq!(again, Some(position));
            }
        }
    }

    #[test]
    fn obf_positions_write_back(seed in any::<u64>(), plies in 0usize..60) {
        let game = random_game(seed, plies);
        let mut board = Board::start();
        for &square in &game {
            if !board.is_legal(square) {
                board = board.pass();
            }
            board = board.play(square);
        }
        let scores: Vec<(Square, i32)> = squares(board.moves()).map(|s| (s, (s.index() as i32 % 129) - 64)).collect();
        let position = ObfPosition { board, scores };
        prop_assert_eq!(parse_obf(&position.line()).unwrap(), Some(position));
    }

    #[test]
    fn transcripts(text in texty()) {
        if let Ok(transcript) = Transcript::parse(&text) {
            let again = Transcript::parse(&transcript.render()).expect("its own text parses");
            prop_assert_eq!(again, transcript);
        }
    }

    #[test]
    fn players_files(text in texty()) {
        if let Ok(entrants) = parse_entrants(&text) {
            let written: String = entrants.iter().map(|e| format!("{}: {}\n", e.name, e.command)).collect();
            prop_assert_eq!(parse_entrants(&written).expect("its own file parses"), entrants);
        }
    }

    #[test]
    fn openings_files(text in texty(), seed in any::<u64>()) {
        let _ = Openings::parse(&text, seed);
    }

    #[test]
    fn wthor_bytes(bytes in prop::collection::vec(any::<u8>(), 0..400), count in 0u32..4) {
        // Noise, and noise behind a header whose count matches its size.
        let _ = parse_wthor(Path::new("noise.wtb"), &bytes);
        let mut file = vec![0u8; 16];
        file[4..8].copy_from_slice(&count.to_le_bytes());
        file[12] = 8;
        file.extend(bytes.iter().cycle().take(68 * count as usize));
        let _ = parse_wthor(Path::new("noise.wtb"), &file);
    }

    #[test]
    fn wthor_games_write_back(seeds in prop::collection::vec(any::<u64>(), 0..5)) {
        let games: Vec<Game> = seeds.iter().map(|&s| random_game(s, 60)).collect();
        let mut file = vec![0u8; 16];
        file[4..8].copy_from_slice(&(games.len() as u32).to_le_bytes());
        file[12] = 8;
        for game in &games {
            let mut record = [0u8; 68];
            for (i, square) in game.iter().enumerate() {
                let (file_, rank) = (square.index() % 8, square.index() / 8);
                record[8 + i] = (10 * (rank + 1) + file_ + 1) as u8;
            }
            file.extend(record);
        }
        let read = parse_wthor(Path::new("games.wtb"), &file).expect("a well-formed file");
        let read: Vec<Game> = read.into_iter().map(|r| r.game).collect();
        prop_assert_eq!(read, games);
    }

    #[test]
    fn logistello_lines(text in texty()) {
        if let Ok(games) = parse_logistello(&text) {
            let written: String = games.iter().map(logistello_line).collect();
            prop_assert_eq!(parse_logistello(&written).expect("its own lines parse"), games);
        }
    }

    #[test]
    fn logistello_games_write_back(seeds in prop::collection::vec(any::<u64>(), 1..5)) {
        let games: Vec<Game> = seeds.iter().map(|&s| random_game(s, 60)).collect();
        let written: String = games.iter().map(logistello_line).collect();
        prop_assert_eq!(parse_logistello(&written).unwrap(), games);
    }

    #[test]
    fn ggf_texts(text in prop_oneof![
        texty(),
        "(\\(;)?([A-Z]{1,2}\\[[-*O a-h1-8/.0-9]{0,20}\\]){0,6}(;\\))?",
    ]) {
        if let Ok(games) = ggf::parse(&text) {
            let written: String = games.iter().map(|g| g.render() + "\n").collect();
            prop_assert_eq!(ggf::parse(&written).expect("its own text parses"), games);
        }
    }

    #[test]
    fn ggf_games_write_back(seed in any::<u64>(), plies in 0usize..60) {
        let mut game = ggf::GgfGame::standard();
        let mut board = Board::start();
        let mut color = reversi_core::board::Color::Black;
        for square in random_game(seed, plies) {
            if !board.is_legal(square) {
                game.moves.push(ggf::GgfMove { color, square: None, eval: String::new(), time: String::new() });
                board = board.pass();
                color = color.other();
            }
            game.moves.push(ggf::GgfMove { color, square: Some(square), eval: "1.5".into(), time: String::new() });
            board = board.play(square);
            color = color.other();
        }
        let read = ggf::parse(&game.render()).unwrap();
        prop_assert_eq!(read[0].positions().map(|p| p.len()), Ok(game.moves.len() + 1));
        prop_assert_eq!(read, vec![game]);
    }

    #[test]
    fn game_files_in_any_form(text in prop_oneof![
        texty(),
        "([a-h][1-8]|--|PA|pass| ){0,70}",
        "(> (START|DONE|BEGIN|END|TURN [a-h] [1-8]|PASS|PLACE [a-h] [1-8] [12])\n|< ([a-h] [1-8]|PASS|OK)\n|# moves: [a-h1-8-]{0,20}\n){0,30}",
    ]) {
        // Whatever is read is a game that replays, and renders as a page.
        if let Ok(games) = reversi::records::read::read_games(&text) {
            for game in games {
                if game.positions().is_ok() {
                    prop_assert!(reversi::study::show::html_page(&game).is_ok());
                }
            }
        }
    }

    #[test]
    fn move_lists_of_random_games_read_back(seed in any::<u64>(), plies in 0usize..60) {
        let squares = random_game(seed, plies);
        let list: String = squares.iter().map(|s| s.to_string()).collect();
        let read = if list.is_empty() {
            prop_assert!(reversi::records::read::move_list(&list).is_err());
            return Ok(());
        } else {
            reversi::records::read::move_list(&list).expect("a legal game reads")
        };
        let played: Vec<_> = read.moves.iter().filter_map(|m| m.square).collect();
        prop_assert_eq!(played, squares);
    }

    #[test]
    fn book_files(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let mut file = b"reversi opening book v1\n\n".to_vec();
        file.extend(&bytes);
        let _ = reversi_core::book::Book::parse(&bytes);
        let _ = reversi_core::book::Book::parse(&file);
    }
}

/// A game as a Logistello line (the colours alternate in the text; the
/// reader takes only the squares).
fn logistello_line(game: &Game) -> String {
    let moves: String = game
        .iter()
        .enumerate()
        .map(|(i, s)| format!("{}{s}", if i % 2 == 0 { '+' } else { '-' }))
        .collect();
    format!("{moves}: +00\n")
}
