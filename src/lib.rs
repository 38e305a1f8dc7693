//! `reversi`: the tools around the playing core (`reversi_core`). Every
//! module here uses the core; nothing in the core uses them.
//!
//! | concern | module |
//! | --- | --- |
//! | the command line: one `clap` command per tool | [`cli`] |
//! | child programs, the referee, `reversi match`, a program in its seat at a game kept elsewhere | [`arena`] |
//! | knockout, Elo pool, ladder | [`tournament`] |
//! | the bot as a GTP or NBoard engine; other engines as judge programs; the arena server and GGS as tables | [`engines`] |
//! | GGF, transcripts, move lists, OBF positions, the game archives | [`records`] |
//! | looking at games: the terminal, the HTML page, each move's cost, a position's worth | [`study`] |
//! | fitting the evaluation, self-play games, the opening book | [`training`] |
//! | ProbCut's margins, least squares | [`tuning`] |
//! | the one-file bundle and its packed evaluation | [`bundle`] |
//! | the benchmark and perft | [`bench`](mod@bench) |
//! | the BIO'97 Othello program and its rule | [`bio97`] |
//! | files written whole, jobs on threads, a command's report | [`util`] |
//!
//! Dependencies point one way: core <- util <- records <- study <- arena
//! <- {tournament, engines}; records <- {training, tuning} <- bundle; and
//! cli above them all (`tools/module_cycles.py`, run by `make test`, finds
//! any circle).

pub mod arena;
pub mod bench;
pub mod bio97;
pub mod bundle;
pub mod cli;
pub mod engines;
pub mod records;
pub mod study;
pub mod tournament;
pub mod training;
pub mod tuning;
pub mod util;
