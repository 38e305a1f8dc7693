//! Stable discs: discs that can never be turned over again.
//!
//! A disc cannot be turned over along a line when the line is full, when it
//! stands on the edge that ends the line, or when its neighbour on that line
//! is a stable disc of its own colour (a run that turned it would have to
//! turn the neighbour too). A disc safe along all four lines is stable. The
//! fixed point is found from "nothing is stable" upwards, so whatever it
//! returns really is stable (it may miss some stable discs, never add one).

use crate::bitboard::{EDGES, FILE_A, FILE_H};

const RANK_1: u64 = 0xff;
const RANK_8: u64 = 0xff << 56;

/// Masks of the 15 a1-h8 diagonals and of the 15 h1-a8 diagonals.
const fn diagonal_masks(anti: bool) -> [u64; 15] {
    let mut masks = [0u64; 15];
    let mut sq = 0;
    while sq < 64 {
        let (file, rank) = (sq % 8, sq / 8);
        let k = if anti { file + rank } else { 7 + file - rank };
        masks[k] |= 1u64 << sq;
        sq += 1;
    }
    masks
}

const DIAGONALS: [u64; 15] = diagonal_masks(false);
const ANTI_DIAGONALS: [u64; 15] = diagonal_masks(true);

fn full_lines(occupied: u64) -> (u64, u64, u64, u64) {
    let mut rows = 0;
    for r in 0..8 {
        let row = RANK_1 << (8 * r);
        if occupied & row == row {
            rows |= row;
        }
    }
    let mut folded = occupied & (occupied >> 32);
    folded &= folded >> 16;
    folded &= folded >> 8;
    let columns = (folded & 0xff).wrapping_mul(0x0101_0101_0101_0101);
    let full = |masks: &[u64; 15]| {
        masks
            .iter()
            .filter(|&&m| occupied & m == m)
            .fold(0, |acc, m| acc | m)
    };
    (rows, columns, full(&DIAGONALS), full(&ANTI_DIAGONALS))
}

/// The stable discs of `player` (the other side's discs are `opponent`).
#[must_use]
pub fn stable_discs(player: u64, opponent: u64) -> u64 {
    // Without a corner no disc can be stable unless a line is full, which
    // needs a nearly full board; this shortcut saves most of the work.
    let occupied = player | opponent;
    if player & crate::bitboard::CORNERS == 0 && occupied.count_ones() < 40 {
        return 0;
    }
    let (rows, columns, diagonals, anti) = full_lines(occupied);
    let mut stable = 0u64;
    loop {
        let horizontal =
            rows | FILE_A | FILE_H | ((stable << 1) & !FILE_A) | ((stable >> 1) & !FILE_H);
        let vertical = columns | RANK_1 | RANK_8 | (stable << 8) | (stable >> 8);
        let diagonal = diagonals | EDGES | ((stable << 9) & !FILE_A) | ((stable >> 9) & !FILE_H);
        let anti_diagonal = anti | EDGES | ((stable << 7) & !FILE_H) | ((stable >> 7) & !FILE_A);
        let next = player & horizontal & vertical & diagonal & anti_diagonal;
        if next == stable {
            return stable;
        }
        stable = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;

    /// Whatever `stable_discs` calls stable must survive every continuation:
    /// checked along random games from random positions.
    #[test]
    fn stable_discs_are_never_flipped() {
        let mut rng = fastrand::Rng::with_seed(5);
        for _ in 0..400 {
            let mut board = Board::start();
            // (stable set, whose discs: true if the side to move at this ply
            // is the owner)
            let mut tracked: Vec<(u64, usize)> = Vec::new();
            let mut ply = 0usize;
            loop {
                let s = stable_discs(board.player, board.opponent);
                tracked.push((s, ply));
                // Each tracked set must still belong to its owner.
                for &(set, at) in &tracked {
                    let owner = if (ply - at).is_multiple_of(2) {
                        board.player
                    } else {
                        board.opponent
                    };
                    assert_eq!(set & owner, set, "a stable disc was flipped");
                }
                let moves = board.moves();
                if moves == 0 {
                    if board.pass().has_moves() {
                        board = board.pass();
                        ply += 1;
                        continue;
                    }
                    break;
                }
                let list: Vec<usize> = crate::bitboard::squares(moves).map(|s| s.index()).collect();
                board = board.play_index(list[rng.usize(..list.len())]);
                ply += 1;
            }
        }
    }

    #[test]
    fn a_corner_is_stable() {
        assert_eq!(stable_discs(1, 2), 1);
        assert_eq!(stable_discs(0b11, 1 << 8), 0b11);
    }
}
