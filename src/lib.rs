//! `reversi`: an Othello engine that plays through an online judge's
//! stdin/stdout protocol, and the tools around it.
//!
//! Conventions everywhere: square a1 is bit 0 and the top-left corner, h1 is
//! bit 7, a8 is bit 56; moves are written file letter then rank digit
//! (`d3`); black moves first.
//!
//! | concern | module |
//! | --- | --- |
//! | squares, square sets, symmetries | [`bitboard`] |
//! | legal moves and flips | [`movegen`] |
//! | the position, copy-make | [`board`] |
//! | perft | [`perft`] |
//! | static evaluation | [`eval`] |
//! | transposition table | [`tt`] |
//! | time per move | [`clock`] |
//! | midgame search, endgame solver | [`search`] |
//! | the judge protocol | [`protocol`] |
//!
//! Dependencies point one way: bitboard <- movegen <- board <- {eval, tt}
//! <- search <- protocol.

pub mod arena;
pub mod bench;
pub mod bio97;
pub mod bitboard;
pub mod board;
pub mod cli;
pub mod clock;
pub mod duel;
pub mod eval;
pub mod movegen;
pub mod movelist;
pub mod parallel;
pub mod perft;
pub mod player;
pub mod program;
pub mod protocol;
pub mod referee;
pub mod rules;
pub mod search;
pub mod solve;
#[cfg(test)]
pub(crate) mod testing;
pub mod tournament;
pub mod train;
pub mod transcript;
pub mod tt;
