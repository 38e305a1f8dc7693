//! The hand-written evaluation: the classic features of Othello strategy,
//! weighted by judgement. A trained evaluation is meant to replace it.

use super::{stability::stable_discs, Score, EVAL_LIMIT};
use crate::bitboard::CORNERS;
use crate::board::Board;
use crate::movegen::{legal_moves, potential_moves};

/// Per move of mobility difference.
const MOBILITY: Score = 70;
/// Per square of potential-mobility difference.
const POTENTIAL_MOBILITY: Score = 20;
/// Per corner held.
const CORNER: Score = 400;
/// Per X-square (diagonally next to an empty corner) held: it gives the
/// corner away.
const X_SQUARE: Score = -200;
/// Per C-square (next to an empty corner along the edge) held.
const C_SQUARE: Score = -60;
/// Per stable disc.
const STABLE: Score = 80;
/// For having the last move in the game (odd number of empties), late on.
const PARITY: Score = 60;
/// Parity counts from this many empties down.
const PARITY_EMPTIES: u32 = 20;

/// (corner, its X-square, its two C-squares)
const CORNER_REGIONS: [(u64, u64, u64); 4] = [
    (1 << 0, 1 << 9, (1 << 1) | (1 << 8)),
    (1 << 7, 1 << 14, (1 << 6) | (1 << 15)),
    (1 << 56, 1 << 49, (1 << 57) | (1 << 48)),
    (1 << 63, 1 << 54, (1 << 62) | (1 << 55)),
];

/// The hand-written evaluation of `board` for its side to move, in hundredths of a disc.
#[must_use]
pub fn evaluate(board: &Board) -> Score {
    let (p, o) = (board.player, board.opponent);
    let mobility =
        legal_moves(p, o).count_ones() as Score - legal_moves(o, p).count_ones() as Score;
    let potential =
        potential_moves(p, o).count_ones() as Score - potential_moves(o, p).count_ones() as Score;
    let corners = (p & CORNERS).count_ones() as Score - (o & CORNERS).count_ones() as Score;
    let mut x_squares = 0;
    let mut c_squares = 0;
    for (corner, x, c) in CORNER_REGIONS {
        if (p | o) & corner == 0 {
            x_squares += (p & x).count_ones() as Score - (o & x).count_ones() as Score;
            c_squares += (p & c).count_ones() as Score - (o & c).count_ones() as Score;
        }
    }
    let stable =
        stable_discs(p, o).count_ones() as Score - stable_discs(o, p).count_ones() as Score;
    let empties = board.empty_count();
    let parity = if empties <= PARITY_EMPTIES {
        if empties % 2 == 1 {
            PARITY
        } else {
            -PARITY
        }
    } else {
        0
    };
    let score = MOBILITY * mobility
        + POTENTIAL_MOBILITY * potential
        + CORNER * corners
        + X_SQUARE * x_squares
        + C_SQUARE * c_squares
        + STABLE * stable
        + parity;
    score.clamp(-EVAL_LIMIT, EVAL_LIMIT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symmetric_positions_score_the_same() {
        let mut rng = fastrand::Rng::with_seed(3);
        for _ in 0..200 {
            let mut b = Board::start();
            for _ in 0..rng.usize(0..50) {
                let m = b.moves();
                if m == 0 {
                    break;
                }
                let list: Vec<usize> = crate::bitboard::squares(m).map(|s| s.index()).collect();
                b = b.play_index(list[rng.usize(..list.len())]);
            }
            let e = evaluate(&b);
            for s in 1..8 {
                assert_eq!(evaluate(&b.transform(s)), e);
            }
        }
    }

    #[test]
    fn a_corner_is_good() {
        let b = Board::start();
        let with_corner = Board::new(b.player | 1, b.opponent);
        assert!(evaluate(&with_corner) > evaluate(&b));
    }
}
