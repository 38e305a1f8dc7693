//! `reversi`: the tools around the playing core (`reversi_core`). Every
//! module here uses the core; nothing in the core uses them.
//!
//! | concern | module |
//! | --- | --- |
//! | the command line: one `clap` command per tool | [`cli`] |
//! | child programs, the referee, transcripts, entrants and openings | [`arena`] |
//! | `reversi match`: two programs, a series of games | [`r#match`] |
//! | knockout, Elo pool, ladder | [`tournament`] |
//! | the game archives (WTHOR, Logistello) | [`archive`] |
//! | fitting the evaluation, self-play games | [`training`] |
//! | ProbCut's margins, least squares | [`tuning`] |
//! | building and showing the opening book | [`book`] |
//! | the one-file bundle and its packed evaluation | [`bundle`] |
//! | perft, OBF positions, the benchmark | [`perft`], [`obf`], [`bench`] |
//! | the BIO'97 Othello program and its rule | [`bio97`] |
//! | independent jobs on threads, progress bars | [`parallel`] |
//! | GGF, the Othello servers' game files | [`ggf`] |
//! | a recorded game in any form: GGF, transcript, move list | [`record`] |
//! | looking at a game: the terminal, the HTML page; each move's cost | [`show`], [`analyze`] |
//! | a position's worth by search (hints, analysis) | [`value`] |
//! | the bot as a GTP or NBoard engine; any GTP engine as a judge-protocol program | [`gtp`], [`nboard`], [`bridge`] |
//! | a judge-protocol program in its seat at a game kept elsewhere; on the arena server over HTTP | [`seat`], [`connect`] |
//! | a long command's report on stdout | [`report`] |
//! | writing a result whole or not at all | [`files`] |
//!
//! Dependencies point one way: core <- {archive, parallel} <- {training,
//! tuning, book, bundle, bench} and core <- arena <- {match, tournament}
//! <- cli.

pub mod analyze;
pub mod archive;
pub mod arena;
pub mod bench;
pub mod bio97;
pub mod book;
pub mod bridge;
pub mod bundle;
pub mod cli;
pub mod connect;
pub mod files;
pub mod ggf;
pub mod ggs;
pub mod gtp;
pub mod r#match;
pub mod nboard;
pub mod obf;
pub mod parallel;
pub mod perft;
pub mod record;
pub mod report;
pub mod seat;
pub mod show;
pub mod tournament;
pub mod training;
pub mod tuning;
pub mod value;
pub mod viewer;
