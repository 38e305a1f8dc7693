//! Rule sets: which squares a side may play. Flipping is the same in all of
//! them ([`reversi_core::movegen::flips`]); only the move rule differs.

use reversi_core::bitboard::{neighbours, Square};
use reversi_core::board::Board;
use reversi_core::movegen::{flips, legal_moves};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rules {
    /// Othello: a move must turn over at least one disc; a side without a
    /// move passes; the game ends when neither side can move.
    Othello,
    /// BIO'97: any empty square next to an occupied one, turning over what
    /// it turns over (possibly nothing); so nobody ever passes and the game
    /// ends when the board is full.
    Neighbour,
}

impl Rules {
    /// The squares the side to move may play.
    #[must_use]
    pub fn moves(self, board: &Board) -> u64 {
        match self {
            Rules::Othello => legal_moves(board.player, board.opponent),
            Rules::Neighbour => {
                let occupied = board.player | board.opponent;
                neighbours(occupied) & !occupied
            }
        }
    }

    /// Plays `sq`, which must be one of `moves`; returns the new position
    /// (other side to move) and the number of discs turned over.
    #[must_use]
    pub fn play(self, board: &Board, sq: Square) -> (Board, u32) {
        debug_assert!(self.moves(board) & sq.bit() != 0);
        let turned = flips(sq.index(), board.player, board.opponent);
        (board.play_flips(sq.index(), turned), turned.count_ones())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neighbour_rule_allows_moves_that_turn_nothing() {
        let b = Board::start();
        let othello = Rules::Othello.moves(&b);
        let neighbour = Rules::Neighbour.moves(&b);
        assert_eq!(
            othello & !neighbour,
            0,
            "every Othello move is a neighbour move"
        );
        assert_eq!(neighbour.count_ones(), 12);
        let c3 = Square::parse("c3").unwrap();
        let (after, turned) = Rules::Neighbour.play(&b, c3);
        assert_eq!(turned, 0);
        assert_eq!(after.opponent.count_ones(), 3);
    }
}
