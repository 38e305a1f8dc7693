//! The folded readings' indices, kept up to date move by move, as Edax
//! keeps its features. Gathering a reading's discs from the board (PEXT,
//! then a table that turns the bits into the pattern's index) costs more
//! than the weight it finds: about 90 ns an evaluation on the 2-core
//! machine, against about 60 ns this way (BENCHMARKS.md).
//! A move changes only the squares it places and flips, and a disc on a
//! square adds a fixed amount to each reading through that square (its
//! digit's power of 3, once for the side to move, twice for the other).
//! So each square has a vector of those amounts, one lane per reading,
//! and a move adds a handful of vectors to its parent's indices.
//!
//! Both sides' views are kept, because the side to move changes with every
//! move and an index is not symmetric in the two colours: the child's view
//! is the parent's other view with the mover's new discs added.

use super::{
    folded, stage, with_mobility, OFFSETS, READINGS_PER_PATTERN, STAGE_SIZE, STAGE_SPAN, TABLE_SPAN,
};
use crate::bitboard;
use crate::board::Board;
use crate::eval::Score;

/// Lanes in a vector: the 46 readings, padded to a multiple of 16 bytes.
const LANES: usize = 48;

/// One number per reading, aligned for whole vector loads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(32))]
pub(super) struct Lanes(pub(super) [u16; LANES]);

impl Lanes {
    pub(super) const ZERO: Lanes = Lanes([0; LANES]);

    /// `self + k * a + b`, lane by lane (indices never leave `u16`; the
    /// wrapping only lets a subtraction be written as an addition).
    #[inline]
    fn plus(&self, k: u16, a: &Lanes, b: &Lanes) -> Lanes {
        let mut out = self.0;
        for ((x, &a), &b) in out.iter_mut().zip(&a.0).zip(&b.0) {
            *x = x.wrapping_add(k.wrapping_mul(a)).wrapping_add(b);
        }
        Lanes(out)
    }

    #[inline]
    fn add(&mut self, a: &Lanes) {
        for (x, &a) in self.0.iter_mut().zip(&a.0) {
            *x = x.wrapping_add(a);
        }
    }

    #[inline]
    fn negated(&self) -> Lanes {
        Lanes(self.0.map(u16::wrapping_neg))
    }
}

/// Every reading's index in one position, from the side to move's view
/// (`own`, the one its evaluation reads) and from the opponent's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Indices {
    own: Lanes,
    other: Lanes,
}

impl Indices {
    /// From the discs themselves, square by square: where a search starts.
    #[must_use]
    pub fn new(board: &Board) -> Indices {
        let digits = &folded().digits;
        let (mine, theirs) = (
            digit_sum(digits, board.player),
            digit_sum(digits, board.opponent),
        );
        Indices {
            own: mine.plus(2, &theirs, &Lanes::ZERO),
            other: theirs.plus(2, &mine, &Lanes::ZERO),
        }
    }

    /// The indices of `child`, the position after the side to move plays
    /// square `index` in `board`.
    #[inline(always)]
    #[must_use]
    pub fn play(&self, board: &Board, index: usize, child: &Board) -> Indices {
        let digits = &folded().digits;
        let flipped = digit_sum(digits, flipped(board, child));
        let placed = &digits[index];
        // The mover's view (which becomes the child's `other`): the placed
        // square goes from empty to 1, each flipped one from 2 to 1. The
        // opponent's (the child's `own`): empty to 2, and 1 to 2.
        Indices {
            own: self.other.plus(2, placed, &flipped),
            other: self.own.plus(1, placed, &flipped.negated()),
        }
    }

    /// The indices after a pass: the same discs, the views swapped.
    #[must_use]
    pub fn pass(&self) -> Indices {
        Indices {
            own: self.other,
            other: self.own,
        }
    }

    /// The pattern evaluation of `board` (whose indices these are), with
    /// the side to move's legal moves `moves`: the same score as
    /// [`super::evaluate_with_moves`].
    #[inline]
    #[must_use]
    pub fn evaluate(&self, board: &Board, moves: u64) -> Score {
        evaluate_lanes(&self.own, board, moves)
    }

    /// The evaluation of `child`, the position after square `index` in
    /// `board`, with its side to move's moves `replies`: [`Indices::play`]
    /// then [`Indices::evaluate`], without the view a leaf never needs.
    #[inline(always)]
    #[must_use]
    pub fn evaluate_after(
        &self,
        board: &Board,
        index: usize,
        child: &Board,
        replies: u64,
    ) -> Score {
        let digits = &folded().digits;
        let flipped = digit_sum(digits, flipped(board, child));
        let own = self.other.plus(2, &digits[index], &flipped);
        evaluate_lanes(&own, child, replies)
    }
}

/// The squares `board`'s side to move flipped to reach `child`.
#[inline]
fn flipped(board: &Board, child: &Board) -> u64 {
    board.opponent & !child.player
}

/// The sum of the digit vectors of `squares`: what discs there add.
#[inline(always)]
fn digit_sum(digits: &[Lanes], squares: u64) -> Lanes {
    let mut sum = Lanes::ZERO;
    for sq in bitboard::squares(squares) {
        sum.add(&digits[sq.index()]);
    }
    sum
}

/// The evaluation of `board` from its side to move's indices `own`: one
/// weight a reading in `board`'s stage, then the mobility. Each pattern's
/// table starts at a constant offset in a span of [`STAGE_SPAN`] weights,
/// and a `u16` index cannot leave [`TABLE_SPAN`], so once the loop over
/// the patterns is unrolled no read needs a bounds check: the checks cost
/// the midgame search a sixth of its time (BENCHMARKS.md). Never inlined:
/// inside the search's AVX2 path the compiler would take each index out
/// of the vector registers one at a time, which ran the search at 8.9 M
/// nodes/s against 15.5 M with the indices read from memory.
#[inline(never)]
fn evaluate_lanes(own: &Lanes, board: &Board, moves: u64) -> Score {
    let folded = folded();
    let base = stage(board.empty_count()) * STAGE_SIZE;
    let Some(span) = folded
        .weights
        .get(base..)
        .and_then(<[i16]>::first_chunk::<STAGE_SPAN>)
    else {
        return 0; // no weights: a test (`weights_fit`) catches this
    };
    let mut sum = 0i32;
    let mut lane = 0;
    for (p, &count) in READINGS_PER_PATTERN.iter().enumerate() {
        sum += pattern_sum(span, OFFSETS[p], &own.0[lane..lane + count]);
        lane += count;
    }
    with_mobility(&span[..STAGE_SIZE], sum, moves, board)
}

/// The weights one pattern's readings (`indices`) find in its table at
/// `offset` of a stage's `span`.
#[inline(always)]
fn pattern_sum(span: &[i16; STAGE_SPAN], offset: usize, indices: &[u16]) -> i32 {
    let Some(table) = span[offset..].first_chunk::<TABLE_SPAN>() else {
        return 0; // every pattern's table fits (`STAGE_SPAN` is the last one's end)
    };
    indices
        .iter()
        .map(|&index| i32::from(table[usize::from(index)]))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::pattern::evaluate_with_moves;
    use crate::testing::random_position;

    #[test]
    fn moves_keep_the_indices_and_scores_of_a_fresh_count() {
        // Random games: after every move and pass the updated indices
        // equal those counted afresh, and every evaluation through them
        // equals the evaluation from the discs.
        let mut rng = fastrand::Rng::with_seed(21);
        for _ in 0..200 {
            let mut board = Board::start();
            let mut indices = Indices::new(&board);
            loop {
                let moves = board.moves();
                assert_eq!(indices, Indices::new(&board));
                assert_eq!(
                    indices.evaluate(&board, moves),
                    evaluate_with_moves(&board, moves)
                );
                if moves == 0 {
                    if !board.pass().has_moves() {
                        break;
                    }
                    board = board.pass();
                    indices = indices.pass();
                    continue;
                }
                let squares: Vec<usize> = bitboard::squares(moves).map(|s| s.index()).collect();
                for &index in &squares {
                    let child = board.play_index(index);
                    let replies = child.moves();
                    assert_eq!(
                        indices.evaluate_after(&board, index, &child, replies),
                        evaluate_with_moves(&child, replies)
                    );
                }
                let index = squares[rng.usize(..squares.len())];
                let child = board.play_index(index);
                indices = indices.play(&board, index, &child);
                board = child;
            }
        }
    }

    #[test]
    fn positions_in_the_middle_of_a_game_count_alike() {
        // The same on positions reached by random play (the test above
        // starts every game at the start position).
        let mut rng = fastrand::Rng::with_seed(5);
        for _ in 0..500 {
            let empties = 10 + rng.u32(..45);
            let board = random_position(&mut rng, empties);
            let moves = board.moves();
            let indices = Indices::new(&board);
            assert_eq!(
                indices.evaluate(&board, moves),
                evaluate_with_moves(&board, moves)
            );
            assert_eq!(
                indices.pass().evaluate(&board.pass(), board.pass().moves()),
                evaluate_with_moves(&board.pass(), board.pass().moves())
            );
        }
    }
}
