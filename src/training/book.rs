//! `reversi book build`: the opening book from the game archives.
//!
//! 1. Replay every game of both archives (read as `reversi train` reads
//!    them) and count, by canonical form, the positions of its first
//!    `plies` moves; keep those that at least `min_games` games reach.
//! 2. Search each kept position to a fixed depth with the bot's own search
//!    (ProbCut on), each from an empty table, so the scores are the same
//!    whatever the number of jobs.
//! 3. Negamax through the book: from the fullest boards back to the start,
//!    a position's score becomes the better of its own search and the
//!    value of each move into another book position.
//! 4. Write the records in canonical order (the format: `reversi_core::book`).
//!
//! This sits outside the playing core, as `train` does: the bot only
//! reads the result.

use crate::records::archive::{self, ArchiveRun, Game};
use crate::util::parallel::Progress;
use reversi_core::board::Board;
use reversi_core::book::{canonical, value_after, RECORD};
use reversi_core::eval::Score;
use reversi_core::search::{Limits, Searcher};
use std::collections::HashMap;
use std::io::{self, Write};

/// Options of `reversi book build`.
pub struct Options<'a> {
    /// The archives, the output, the threads.
    pub run: ArchiveRun<'a>,
    /// Positions after at most this many moves.
    pub plies: u32,
    /// Kept when at least this many games reach them.
    pub min_games: u32,
    /// Each position's search depth.
    pub depth: u32,
}

/// Table size of each job's searcher, MiB: a fixed-depth search of an
/// opening position fills little of it.
const HASH_MB: usize = 16;

/// The positions of the first `plies` moves reached by at least
/// `min_games` of `games`, one board each (the canonical form's), in
/// canonical order. A game counts once for a position.
#[must_use]
pub fn frequent_positions(games: &[Game], plies: u32, min_games: u32) -> Vec<Board> {
    let mut counts: HashMap<(u64, u64), u32> = HashMap::new();
    for game in games {
        let Some(positions) = archive::replay(game) else {
            continue;
        };
        for (board, _) in positions.iter().take(plies as usize + 1) {
            if board.has_moves() {
                *counts.entry(canonical(board)).or_default() += 1;
            }
        }
    }
    let mut kept: Vec<(u64, u64)> = counts
        .into_iter()
        .filter(|&(_, n)| n >= min_games)
        .map(|(key, _)| key)
        .collect();
    kept.sort_unstable();
    kept.into_iter().map(|(p, o)| Board::new(p, o)).collect()
}

/// The score of `board` (which has a move) searched to `depth` plies from
/// an empty table, side to move's view. A forced move is played and the
/// position after it searched, as the search itself does not score one.
fn searched(searcher: &mut Searcher, board: &Board, depth: u32) -> Score {
    let moves = board.moves();
    if moves.count_ones() == 1 {
        let after = board.play_index(moves.trailing_zeros() as usize);
        return if after.has_moves() {
            -searched(searcher, &after, depth)
        } else if after.is_game_over() {
            -after.final_score() * reversi_core::eval::DISC
        } else {
            searched(searcher, &after.pass(), depth)
        };
    }
    searcher.new_game();
    searcher.search(board, &Limits::depth(depth)).score
}

/// Negamax through the book: each position's score becomes the better of
/// its own and the value of each move into the book, children first (a
/// move adds a disc, so the fullest boards go first).
#[must_use]
pub fn negamax(own: &[(Board, Score)]) -> Vec<(Board, Score)> {
    let mut order: Vec<usize> = (0..own.len()).collect();
    order.sort_by_key(|&i| own[i].0.empty_count());
    let mut known: HashMap<(u64, u64), Score> = HashMap::with_capacity(own.len());
    for i in order {
        let (board, mut score) = own[i];
        for sq in reversi_core::bitboard::squares(board.moves()) {
            if let Some(value) = value_after(&board.play(sq), |b| known.get(&canonical(b)).copied())
            {
                score = score.max(value);
            }
        }
        known.insert(canonical(&board), score);
    }
    own.iter()
        .map(|(board, _)| (*board, known[&canonical(board)]))
        .collect()
}

/// Searches every position with `jobs` threads, printing progress to `log`.
pub fn search_all(
    positions: &[Board],
    depth: u32,
    jobs: usize,
    log: &mut impl Write,
) -> Vec<(Board, Score)> {
    let mut scores = vec![0; positions.len()];
    let mut progress = Progress::new("searched", positions.len(), "positions");
    let mut done = 0;
    crate::util::parallel::run(
        jobs,
        positions,
        || Searcher::new(HASH_MB, reversi_core::eval::Evaluator::Pattern),
        |searcher, board| searched(searcher, board, depth),
        |i, score| {
            scores[i] = score;
            done += 1;
            progress.report(done, log);
        },
    );
    positions.iter().copied().zip(scores).collect()
}

/// The whole build; progress goes to `log`.
pub fn run(options: &Options, log: &mut impl Write) -> io::Result<()> {
    reversi_core::eval::pattern::prepare();
    let games: Vec<archive::Game> =
        archive::read_games(options.run.games_dir, Vec::new(), options.run.every, log)?
            .into_iter()
            .map(|r| r.game)
            .collect();
    let positions = frequent_positions(&games, options.plies, options.min_games);
    writeln!(
        log,
        "{} positions of the first {} moves reached by at least {} games; searching each to depth {} with {} jobs",
        positions.len(),
        options.plies,
        options.min_games,
        options.depth,
        options.run.jobs
    )?;
    let own = search_all(&positions, options.depth, options.run.jobs, log);
    let scored = negamax(&own);
    let raised = own
        .iter()
        .zip(&scored)
        .filter(|((_, a), (_, b))| b > a)
        .count();
    let header = format!(
        "reversi opening book v1\ncommand: {}\ndata: {} (WTHOR, FFO; Logistello book, M. Buro), one game in {} used\npositions: {}, of the first {} moves, each reached by at least {} games\nscores: search to depth {} (pattern evaluation, ProbCut), negamaxed through the book; {} raised by a book move\nrecords: player u64, opponent u64, score i16 (1/100 disc), little-endian, {} bytes each",
        options.run.command,
        options.run.games_dir.display(),
        options.run.every.max(1),
        scored.len(),
        options.plies,
        options.min_games,
        options.depth,
        raised,
        RECORD
    );
    let bytes = reversi_core::book::to_bytes(&header, &scored);
    crate::util::files::write_atomically(options.run.out, &bytes)?;
    writeln!(
        log,
        "wrote {} ({} positions, {} bytes); {raised} scores raised by a book move",
        options.run.out.display(),
        scored.len(),
        bytes.len()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use reversi_core::book::Book;

    /// Three games of the Logistello archive: the first two share their
    /// first 30 moves, the third only its first move.
    const GAMES: &str = "\
+d3-c3+c4-e3+c2-b3+d2-e1+d1-c1+f4-d6+e6-g4+b2-f6+d7-c8+e7-d8+f3-f5+g5-h4+h6-f2+f7-h5+g6-c6+c5-c7+b6-b5+b4-e8+h3-g3+h2-e2+h7-g2+b1-a1+h1-a2+a3-g7+f8-h8+g8-a4+g1-f1+a6-a5+a7-a8+b8-b7: -04 10
+d3-c3+c4-e3+c2-b3+d2-e1+d1-c1+f4-d6+e6-g4+b2-f6+d7-c8+e7-d8+f3-f5+g5-h4+h6-f2+f7-h5+g6-c6+c5-c7+b6-b5+f8-a6+b4-a5+a4-e8+b8-h7+g8-b7+g2-g3+h2-a1+f1-e2+h3-a3+a8-a7+h8-g7+a2-b1-g1+h1: +00 10
+d3-c5+c6-c3+c4-e3+d2-c2+e2-b4+b5-d1+f4-d6+f5-f2+b3-f6+f3-a6+e6-g3+a5-e7+f8-g6+g5-a3+a7-d7+c8-h5+g4-f7+c1-h4+g8-b2+h3-h2+e1-a4+a1-a8+h7-f1+c7-h6+h1-d8+e8-b8+b6-b7+a2-b1+g7-h8+g1-g2: -02 10
";

    #[test]
    fn a_small_book_holds_what_the_games_share_and_negamaxes() {
        let games = archive::parse_logistello(GAMES).unwrap();
        // The first 10 moves' 11 positions of the first two games are
        // reached twice (the start and d3 three times); the third game's
        // 9 others once.
        let twice = frequent_positions(&games, 10, 2);
        assert_eq!(twice.len(), 11);
        let once = frequent_positions(&games, 10, 1);
        assert_eq!(once.len(), 11 + 9);
        let own = search_all(&once, 2, 2, &mut io::sink());
        let scored = negamax(&own);
        let bytes = reversi_core::book::to_bytes("reversi opening book v1\ntest", &scored);
        let book = Book::parse(&bytes).unwrap();
        assert_eq!(book.len(), once.len());
        for ((board, own_score), (_, score)) in own.iter().zip(&scored) {
            // never below its own search, never below a move into the book
            assert!(score >= own_score);
            for sq in reversi_core::bitboard::squares(board.moves()) {
                if let Some(value) = book.value_after(&board.play(sq)) {
                    assert!(*score >= value, "{board:?}");
                }
            }
            // and equal to one of them
            let raised_by_move = reversi_core::bitboard::squares(board.moves())
                .any(|sq| book.value_after(&board.play(sq)) == Some(*score));
            assert!(score == own_score || raised_by_move);
            if let Some(m) = book.choose(board) {
                assert_eq!(book.value_after(&board.play(m.square)), Some(*score));
            }
        }
        // The same games, searched again with one job: the same book.
        let again = reversi_core::book::to_bytes(
            "reversi opening book v1\ntest",
            &negamax(&search_all(&once, 2, 1, &mut io::sink())),
        );
        assert_eq!(again, bytes);
    }
}
