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

/// Spreads `set` along a line in both directions, `shift` bits a step,
/// to the edges of the board: Kogge-Stone fills, three doubling steps each
/// way. `up_edge` is the file a step up (a left shift) may not land on,
/// because it came round from the other side; `down_edge` the same for a
/// step down (none for the vertical line).
#[inline]
fn spread(set: u64, shift: u32, up_edge: u64, down_edge: u64) -> u64 {
    let (mut up, mut down) = (set, set);
    let (mut up_open, mut down_open) = (!up_edge, !down_edge);
    for step in [shift, 2 * shift, 4 * shift] {
        up |= up_open & (up << step);
        up_open &= up_open << step;
        down |= down_open & (down >> step);
        down_open &= down_open >> step;
    }
    up | down
}

/// The squares on full lines (no empty square left on them), one set per
/// direction: ranks, files, a1-h8 diagonals, h1-a8 diagonals. An empty
/// square spread along a line marks every square of it.
fn full_lines(occupied: u64) -> (u64, u64, u64, u64) {
    let empty = !occupied;
    (
        !spread(empty, 1, FILE_A, FILE_H),
        !spread(empty, 8, 0, 0),
        !spread(empty, 9, FILE_A, FILE_H),
        !spread(empty, 7, FILE_H, FILE_A),
    )
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

    /// The full lines by walking each line's squares.
    fn naive_full_lines(occupied: u64) -> [u64; 4] {
        let at = |f: i32, r: i32| 1u64 << (r * 8 + f);
        let mut full = [0u64; 4];
        for (d, (df, dr)) in [(1, 0), (0, 1), (1, 1), (-1, 1)].into_iter().enumerate() {
            for sq in 0..64 {
                let (f0, r0) = (sq % 8, sq / 8);
                let mut line = 0u64;
                for dir in [-1, 1] {
                    let (mut f, mut r) = (f0, r0);
                    while (0..8).contains(&f) && (0..8).contains(&r) {
                        line |= at(f, r);
                        f += dir * df;
                        r += dir * dr;
                    }
                }
                if occupied & line == line {
                    full[d] |= at(f0, r0);
                }
            }
        }
        full
    }

    #[test]
    fn full_lines_agree_with_walking_the_lines() {
        let mut rng = fastrand::Rng::with_seed(15);
        for _ in 0..3000 {
            // mostly full boards, where lines are full
            let occupied = !(rng.u64(..) & rng.u64(..) & rng.u64(..) & rng.u64(..));
            let (a, b, c, d) = full_lines(occupied);
            assert_eq!([a, b, c, d], naive_full_lines(occupied), "{occupied:#x}");
        }
        assert_eq!(
            full_lines(u64::MAX),
            (u64::MAX, u64::MAX, u64::MAX, u64::MAX)
        );
    }

    #[test]
    fn a_corner_is_stable() {
        assert_eq!(stable_discs(1, 2), 1);
        assert_eq!(stable_discs(0b11, 1 << 8), 0b11);
    }
}
