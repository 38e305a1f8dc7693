//! Static evaluation: how good a position is for the side to move, in
//! hundredths of a disc (so exact endgame scores, 100 per disc, compare with
//! it).

pub mod hand;
pub mod layout;
pub mod packed;
pub mod pattern;
pub mod stability;

use crate::board::Board;

/// A score of the search, in hundredths of a disc, side to move's view.
pub type Score = i32;

/// One disc of final disc difference.
pub const DISC: Score = 100;

/// Bounds every static evaluation, so a won or lost game (at least one disc
/// of difference) always outranks any guess.
pub const EVAL_LIMIT: Score = 63 * DISC;

/// Which evaluation the search uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Evaluator {
    /// Mobility, corners, X/C squares, stability and parity, weighted by hand.
    Hand,
    /// Pattern tables fitted to labelled positions from game archives.
    Pattern,
}

impl Evaluator {
    /// What the bot and the tools use unless told otherwise.
    pub const DEFAULT: Evaluator = Evaluator::Pattern;

    /// `board`'s value for its side to move, in hundredths of a disc.
    #[inline]
    #[must_use]
    pub fn evaluate(self, board: &Board) -> Score {
        match self {
            Evaluator::Hand => hand::evaluate(board),
            Evaluator::Pattern => pattern::evaluate(board),
        }
    }

    /// [`Evaluator::evaluate`] from the position's pattern indices, kept
    /// up to date by the search, when the side to move's legal moves
    /// (`moves`) are known already (the hand evaluation reads neither).
    #[inline(always)]
    #[must_use]
    pub fn evaluate_indexed(self, board: &Board, indices: &pattern::Indices, moves: u64) -> Score {
        match self {
            Evaluator::Hand => hand::evaluate(board),
            Evaluator::Pattern => indices.evaluate(board, moves),
        }
    }

    /// The evaluation of `child`, the position after square `index` in
    /// `board` (whose indices are `indices`), with `child`'s side to move's
    /// moves `replies`.
    #[inline(always)]
    #[must_use]
    pub fn evaluate_after(
        self,
        board: &Board,
        indices: &pattern::Indices,
        index: usize,
        child: &Board,
        replies: u64,
    ) -> Score {
        match self {
            Evaluator::Hand => hand::evaluate(child),
            Evaluator::Pattern => indices.evaluate_after(board, index, child, replies),
        }
    }

    /// The evaluator named `name` (`pattern` or `hand`), as `--eval` takes it.
    pub fn parse(name: &str) -> Option<Evaluator> {
        match name {
            "hand" => Some(Evaluator::Hand),
            "pattern" => Some(Evaluator::Pattern),
            _ => None,
        }
    }
}
