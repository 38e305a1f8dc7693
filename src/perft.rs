//! Perft: the number of move sequences of a given length, the standard check
//! of a move generator.
//!
//! Two conventions are in circulation (see `fixtures/perft.txt`). Both count a
//! forced pass as a ply; they differ in what a game that ends early counts:
//! - [`Convention::GamesDropped`] (OEIS A124004, Edax): nothing. The default.
//! - [`Convention::GamesKept`] (Aart Bik): one leaf at every deeper depth.
//!
//! They agree up to depth 9 and split from depth 10.

use crate::board::Board;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Convention {
    /// [A]: a game over before the last ply contributes 0.
    GamesDropped,
    /// [B]: a game over before the last ply contributes 1.
    GamesKept,
}

/// Leaf count of `depth` plies from `board`.
#[must_use]
pub fn perft(board: &Board, depth: u32, convention: Convention) -> u64 {
    match convention {
        Convention::GamesDropped => dropped(board, depth),
        Convention::GamesKept => kept(board, depth, false),
    }
}

fn dropped(board: &Board, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = board.moves();
    if moves == 0 {
        let passed = board.pass();
        return if passed.has_moves() {
            dropped(&passed, depth - 1)
        } else {
            0
        };
    }
    if depth == 1 {
        return u64::from(moves.count_ones());
    }
    crate::bitboard::squares(moves)
        .map(|sq| dropped(&board.play(sq), depth - 1))
        .sum()
}

fn kept(board: &Board, depth: u32, passed: bool) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = board.moves();
    if moves == 0 {
        return if passed {
            1
        } else {
            kept(&board.pass(), depth - 1, true)
        };
    }
    if depth == 1 {
        return u64::from(moves.count_ones());
    }
    crate::bitboard::squares(moves)
        .map(|sq| kept(&board.play(sq), depth - 1, false))
        .sum()
}

/// `reversi perft N`: the count, time and speed for each depth 1..=N from
/// the start position, a line each on stdout.
pub fn print_table(depth: u32, convention: Convention) {
    let board = Board::start();
    for d in 1..=depth {
        let start = std::time::Instant::now();
        let count = perft(&board, d, convention);
        let secs = start.elapsed().as_secs_f64();
        println!(
            "perft {d:2} {count:>16} {:>9.3}s {:>8.1} Mleaves/s",
            secs,
            count as f64 / secs.max(1e-9) / 1e6
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shallow_counts() {
        let b = Board::start();
        let a: Vec<u64> = (1..=6)
            .map(|d| perft(&b, d, Convention::GamesDropped))
            .collect();
        assert_eq!(a, vec![4, 12, 56, 244, 1396, 8200]);
        let k: Vec<u64> = (1..=6)
            .map(|d| perft(&b, d, Convention::GamesKept))
            .collect();
        assert_eq!(a, k);
    }
}
