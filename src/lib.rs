//! `reversi`: an Othello engine that plays through an online judge's
//! stdin/stdout protocol, and the tools around it.
//!
//! Conventions everywhere: square a1 is bit 0 and the top-left corner, h1 is
//! bit 7, a8 is bit 56; moves are written file letter then rank digit
//! (`d3`); black moves first.
//!
//! The playing core, each layer using only those above it:
//!
//! | concern | module |
//! | --- | --- |
//! | squares, square sets, symmetries | [`bitboard`] |
//! | legal moves and flips | [`movegen`] |
//! | the position, copy-make | [`board`] |
//! | rule sets (Othello, BIO'97) | [`rules`] |
//! | static evaluation | [`eval`] |
//! | transposition table | [`tt`] |
//! | time per move | [`clock`] |
//! | midgame search, endgame solver, one front door | [`search`] |
//! | the opening book, read in place | [`book`] |
//! | the bot, random and greedy players | [`player`] |
//! | reading a judge's lines | [`lines`] |
//! | the judge protocol and its wire vocabulary | [`protocol`] |
//! | CodinGame's Othello protocol | [`codingame`] |
//!
//! The harness on top, which nothing in the core uses:
//!
//! | concern | module |
//! | --- | --- |
//! | independent jobs on threads | [`parallel`] |
//! | child programs, transcripts, the referee | [`program`], [`transcript`], [`referee`] |
//! | entrants, openings, batches of refereed games | [`arena`] |
//! | `reversi match` | [`duel`] |
//! | knockout, Elo pool, ladder | [`tournament`] |
//! | perft, solve, bench, train, BIO'97 | [`perft`], [`solve`], [`bench`], [`train`], [`bio97`] |
//! | building and showing the book | [`book::build`], [`book::inspect`] |
//! | the one-file bundle, its packed evaluation | [`bundle`], [`pack`] |
//!
//! And a second game, for the `linkage` binary: [`linkage`] (its rules,
//! files, players and runner), which shares only the ladder
//! ([`tournament::ladder`]) and running child programs ([`program`]).
//! | self-play games for training | [`selfplay`] |
//! | the command line | [`cli`] |
//!
//! Dependencies point one way: bitboard <- movegen <- board <- {rules,
//! eval, tt, clock, book} <- search <- player <- {protocol, codingame}
//! (both read through lines) <- program <-
//! transcript <- referee <- arena <- {duel, tournament} <- cli (the book's
//! builder, like `train`, sits with the tools and uses the search).

pub mod arena;
pub mod bench;
pub mod bio97;
pub mod bitboard;
pub mod board;
pub mod book;
pub mod bundle;
pub mod cli;
pub mod clock;
pub mod codingame;
pub mod duel;
pub mod eval;
pub mod lines;
pub mod linkage;
pub mod movegen;
pub mod movelist;
pub mod pack;
pub mod parallel;
pub mod perft;
pub mod player;
pub mod program;
pub mod protocol;
pub mod referee;
pub mod rules;
pub mod search;
pub mod selfplay;
pub mod solve;
#[cfg(test)]
pub(crate) mod testing;
pub mod tournament;
pub mod train;
pub mod transcript;
pub mod tt;
