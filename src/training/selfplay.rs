//! `reversi selfplay`: games of the bot against itself for training data,
//! from XOT openings, with random moves mixed in so that the games reach
//! positions the archives lack.
//!
//! Each game is the same whatever the number of jobs: its opening and its
//! random moves come from a generator seeded by the run's seed and the
//! game's number, and every search is to a fixed depth from an empty
//! table. Games are written one a line in the Logistello archive's format
//! (`+d3-c3+c4...: -04`, black's moves `+`, white's `-`, then black's disc
//! count minus white's with empty squares not counted), which
//! `reversi train --extra-games FILE` reads.
//!
//! With `--out FILE` a run appends to FILE instead, after a first line that
//! says what made its games ([`provenance`]): a run stopped half way is
//! resumed by the same command, which plays on from the first game the
//! file lacks, and a run with other options or another evaluation is
//! refused rather than mixed in. The file grows game by game, so a stop
//! loses only the games in flight.

use crate::util::parallel::Progress;
use reversi_core::bitboard::{self, Square};
use reversi_core::board::{Board, Color};
use reversi_core::eval::Evaluator;
use reversi_core::search::{Limits, Searcher};
use std::io::{self, Write};

/// Options of `reversi selfplay`.
pub struct Options {
    pub games: usize,
    /// XOT lines to start from (the standard start without any).
    pub openings: Vec<String>,
    /// Each move's search depth.
    pub depth: u32,
    /// The chance of a uniformly random move instead of the search's, in
    /// percent, at each of the first `random_plies` moves after the opening.
    pub random_percent: u32,
    pub random_plies: u32,
    pub seed: u64,
    pub jobs: usize,
    /// The first game's number: the games before it are already written.
    pub first: usize,
}

/// Table size of each job's searcher, MiB.
const HASH_MB: usize = 16;

/// One game: its moves from the start (the opening's first) and black's
/// disc count minus white's at the end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Played {
    pub moves: Vec<(Color, Square)>,
    pub black_minus_white: i32,
}

impl Played {
    /// The game in the Logistello archive's format.
    #[must_use]
    pub fn line(&self) -> String {
        let mut line: String = self
            .moves
            .iter()
            .map(|&(color, sq)| format!("{}{sq}", if color == Color::Black { '+' } else { '-' }))
            .collect();
        line.push_str(&format!(": {:+03}", self.black_minus_white));
        line
    }
}

/// Plays game number `index` of a run (see the module doc).
#[must_use]
pub fn play_game(searcher: &mut Searcher, options: &Options, index: usize) -> Played {
    let mut rng =
        fastrand::Rng::with_seed(options.seed ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let opening = if options.openings.is_empty() {
        ""
    } else {
        options.openings[rng.usize(..options.openings.len())].as_str()
    };
    let (mut board, mut color) = (Board::start(), Color::Black);
    let mut moves = Vec::with_capacity(60);
    let mut play = |board: &mut Board, color: &mut Color, sq: Square| {
        moves.push((*color, sq));
        *board = board.play(sq);
        *color = color.other();
    };
    for pair in opening.as_bytes().chunks(2) {
        let Some(sq) = Square::from_letter_digit(pair[0], pair.get(1).copied().unwrap_or(0)) else {
            break;
        };
        if !board.is_legal(sq) {
            break;
        }
        play(&mut board, &mut color, sq);
    }
    searcher.new_game();
    let mut after_opening = 0;
    while !board.is_game_over() {
        if !board.has_moves() {
            board = board.pass();
            color = color.other();
            continue;
        }
        let legal: Vec<Square> = bitboard::squares(board.moves()).collect();
        let random =
            after_opening < options.random_plies && rng.u32(..100) < options.random_percent;
        let sq = if random || legal.len() == 1 {
            legal[rng.usize(..legal.len())]
        } else {
            searcher
                .search(&board, &Limits::depth(options.depth))
                .best
                .unwrap_or(legal[0])
        };
        play(&mut board, &mut color, sq);
        after_opening += 1;
    }
    let (black, white) = board.colors(color);
    Played {
        moves,
        black_minus_white: black.count_ones() as i32 - white.count_ones() as i32,
    }
}

/// Plays games `first..games` with `jobs` threads, writing each game to
/// `out` in game order as soon as those before it are written (flushed, so
/// that a stop keeps them), and progress to `log`.
pub fn run(options: &Options, out: &mut impl Write, log: &mut impl Write) -> io::Result<()> {
    reversi_core::eval::pattern::prepare();
    let first = options.first.min(options.games);
    let indices: Vec<usize> = (first..options.games).collect();
    let mut finished: Vec<Option<Played>> = vec![None; indices.len()];
    let mut written = 0;
    let mut result = Ok(());
    let mut progress = Progress::new("played", indices.len(), "games");
    crate::util::parallel::run(
        options.jobs,
        &indices,
        || Searcher::new(HASH_MB, Evaluator::Pattern),
        |searcher, &index| play_game(searcher, options, index),
        |index, played| {
            finished[index] = Some(played);
            while written < finished.len() {
                let Some(game) = finished[written].take() else {
                    break;
                };
                if result.is_ok() {
                    result = writeln!(out, "{}", game.line()).and_then(|()| out.flush());
                }
                written += 1;
            }
            progress.report(written, log);
        },
    );
    result?;
    out.flush()
}

/// The first line of a file that `--out` grows: everything a game depends
/// on (the options but the count and the jobs, the openings and the
/// evaluation that plays), so that only the same run is resumed into it.
#[must_use]
pub fn provenance(options: &Options) -> String {
    let openings = options.openings.join("\n");
    format!(
        "# reversi selfplay v1: depth {}, {}% random in {} moves after the opening, seed {}, {} openings (fnv {:016x}), evaluation fnv {:016x}",
        options.depth,
        options.random_percent,
        options.random_plies,
        options.seed,
        options.openings.len(),
        fnv(openings.as_bytes()),
        fnv(reversi_core::eval::pattern::tables()),
    )
}

/// FNV-1a, 64 bits: a fingerprint, not a defence against forgery.
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Where a run resumes in a file it grows.
#[derive(Debug, PartialEq, Eq)]
pub struct Resume {
    /// The whole games the file holds.
    pub games: usize,
    /// Its bytes to keep: a last line that a stop left half written is cut.
    pub keep: usize,
}

/// Reads a file that `--out` grows (`text`, empty if new) for the run whose
/// first line is `header`; an error says why the file is not this run's.
pub fn resume(text: &str, header: &str) -> Result<Resume, String> {
    if text.is_empty() {
        return Ok(Resume { games: 0, keep: 0 });
    }
    let Some((first, rest)) = text.split_once('\n') else {
        return Err("its first line is cut short: not a file of this command".into());
    };
    if first != header {
        return Err(format!(
            "made by another run ({first}); resume it with that run's options, or write to another file"
        ));
    }
    let mut games = 0;
    let mut keep = first.len() + 1;
    for (i, line) in rest.split_inclusive('\n').enumerate() {
        let Some(line) = line.strip_suffix('\n') else {
            break; // the half-written line of a stop
        };
        crate::records::archive::parse_logistello(line)
            .ok()
            .filter(|games| games.len() == 1 && line.contains(": "))
            .ok_or_else(|| format!("line {}: not a game (+d3-c3...: score)", i + 2))?;
        games += 1;
        keep += line.len() + 1;
    }
    Ok(Resume { games, keep })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(jobs: usize) -> Options {
        Options {
            games: 6,
            openings: vec!["f5d6c4d3c2b3b4b5".into(), "f5f6d3c5d6c7b5e3".into()],
            depth: 2,
            random_percent: 30,
            random_plies: 20,
            seed: 7,
            jobs,
            first: 0,
        }
    }

    #[test]
    fn games_are_legal_replay_from_their_lines_and_do_not_depend_on_jobs() {
        let mut one = Vec::new();
        run(&options(1), &mut one, &mut io::sink()).unwrap();
        let mut two = Vec::new();
        run(&options(2), &mut two, &mut io::sink()).unwrap();
        assert_eq!(one, two);
        let text = String::from_utf8(one).unwrap();
        let games = crate::records::archive::parse_logistello(&text).unwrap();
        assert_eq!(games.len(), 6);
        for (game, line) in games.iter().zip(text.lines()) {
            // Each line replays to the end with legal moves, and its score
            // is the final board's.
            let positions = crate::records::archive::replay(game).expect("legal");
            let (last, black_to_move) = *positions.last().unwrap();
            assert!(last.is_game_over());
            let (black, white) = last.colors(if black_to_move {
                Color::Black
            } else {
                Color::White
            });
            let diff = black.count_ones() as i32 - white.count_ones() as i32;
            assert!(line.ends_with(&format!(": {diff:+03}")), "{line}");
            assert!(line.starts_with("+f5"), "{line}");
        }
        // Random moves make the games differ, even from one opening.
        let distinct: std::collections::HashSet<_> = text.lines().collect();
        assert_eq!(distinct.len(), 6);
    }

    #[test]
    fn a_resumed_run_writes_what_one_run_writes() {
        let mut whole = Vec::new();
        run(&options(2), &mut whole, &mut io::sink()).unwrap();
        let whole = String::from_utf8(whole).unwrap();
        let header = provenance(&options(2));
        // Stopped after two games and half of the third.
        let cut = whole
            .lines()
            .take(2)
            .map(|l| format!("{l}\n"))
            .collect::<String>();
        let third = whole.lines().nth(2).unwrap();
        let stopped = format!("{header}\n{cut}{}", &third[..20]);
        let at = resume(&stopped, &header).unwrap();
        assert_eq!(at.games, 2);
        assert_eq!(at.keep, header.len() + 1 + cut.len());
        let mut file = stopped.as_bytes()[..at.keep].to_vec();
        let resumed = Options {
            first: at.games,
            ..options(1)
        };
        run(&resumed, &mut file, &mut io::sink()).unwrap();
        assert_eq!(
            String::from_utf8(file).unwrap(),
            format!("{header}\n{whole}")
        );
        // The archive reader skips the header line.
        let games =
            crate::records::archive::parse_logistello(&format!("{header}\n{whole}")).unwrap();
        assert_eq!(games.len(), 6);
    }

    #[test]
    fn a_file_of_another_run_or_not_of_games_is_refused() {
        let header = provenance(&options(1));
        let other = provenance(&Options {
            depth: 3,
            ..options(1)
        });
        assert_ne!(header, other);
        let err = resume(&format!("{other}\n"), &header).unwrap_err();
        assert!(err.contains("depth 3"), "{err}");
        let err = resume(&format!("{header}\n+f5-d6: +02\nhello\n"), &header).unwrap_err();
        assert!(err.starts_with("line 3:"), "{err}");
        assert!(resume("+f5-d6: +02\n", &header).is_err());
        assert_eq!(resume("", &header), Ok(Resume { games: 0, keep: 0 }));
    }
}
