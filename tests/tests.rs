//! Integration tests: they drive the real binary, as a judge would.

mod util;

mod bio97;
mod cli;
mod endgame;
mod perft;
mod protocol;
mod referee;
mod replay;
mod tournament;
