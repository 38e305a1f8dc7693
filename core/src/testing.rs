//! Helpers for the unit tests of every layer: a reference solver and
//! random positions. Compiled for tests only.

use crate::bitboard;
use crate::board::Board;

/// Plain negamax to the end of the game: the reference every solver
/// layer is checked against.
pub fn negamax(board: &Board) -> i32 {
    let moves = board.moves();
    if moves == 0 {
        let passed = board.pass();
        return if passed.has_moves() {
            -negamax(&passed)
        } else {
            board.final_score()
        };
    }
    bitboard::squares(moves)
        .map(|sq| -negamax(&board.play(sq)))
        .max()
        .expect("moves is not empty")
}

/// A position reached by random play with about `empties` empties left.
pub fn random_position(rng: &mut fastrand::Rng, empties: u32) -> Board {
    loop {
        let mut b = Board::start();
        while b.empty_count() > empties {
            let moves = b.moves();
            if moves == 0 {
                if b.pass().has_moves() {
                    b = b.pass();
                    continue;
                }
                break;
            }
            let list: Vec<usize> = bitboard::squares(moves).map(|s| s.index()).collect();
            b = b.play_index(list[rng.usize(..list.len())]);
        }
        if b.empty_count() == empties {
            return b;
        }
    }
}
