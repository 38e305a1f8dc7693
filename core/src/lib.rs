//! `reversi-core`: the playing core of the `reversi` Othello engine. The
//! bot runs it, and `reversi bundle` packs it into one source file for
//! judges, so it depends on `arrayvec` and `fastrand` alone and does no
//! I/O beyond the protocols' stdin and stdout.
//!
//! Conventions everywhere: square a1 is bit 0 and the top-left corner, h1 is
//! bit 7, a8 is bit 56; moves are written file letter then rank digit
//! (`d3`); black moves first.
//!
//! Each layer uses only those above it:
//!
//! | concern | module |
//! | --- | --- |
//! | squares, square sets, symmetries | [`bitboard`] |
//! | legal moves and flips | [`movegen`], [`movelist`] |
//! | the position, copy-make | [`board`] |
//! | static evaluation, its embedded weights | [`eval`] |
//! | transposition table | [`tt`] |
//! | time per move | [`clock`] |
//! | midgame search, endgame solver, one front door | [`search`] |
//! | the opening book, read in place | [`book`] |
//! | the bot, random and greedy players | [`player`] |
//! | reading a judge's lines | [`lines`] |
//! | the judge protocol and its wire vocabulary | [`protocol`] |
//! | CodinGame's Othello protocol | [`codingame`] |
//!
//! Dependencies point one way: bitboard <- movegen <- board <- {eval, tt,
//! clock, book} <- search <- player <- {protocol, codingame} (both read
//! through lines).

// Every public item says what it is: the core is what other crates,
// and the bundle's readers, build on.
#![deny(missing_docs)]

pub mod bitboard;
pub mod board;
pub mod book;
pub mod clock;
pub mod codingame;
pub mod eval;
pub mod lines;
pub mod movegen;
pub mod movelist;
pub mod player;
pub mod protocol;
pub mod search;
#[cfg(test)]
pub(crate) mod testing;
pub mod tt;
