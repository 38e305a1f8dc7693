//! Integration tests: they drive the real binary, as a judge would.

mod util;

mod bio97;
mod bundle;
mod cli;
mod codingame;
mod docs;
mod endgame;
mod fuzz;
mod games;
mod gtp;
mod hostile;
mod nboard;
mod perft;
mod protocol;
mod referee;
mod replay;
mod robustness;
mod sandbox;
mod tournament;
