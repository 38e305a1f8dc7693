//! Games and positions written down: the forms games are kept in, read
//! and written here and nowhere else.
//!
//! | module | what it owns |
//! | --- | --- |
//! | [`ggf`] | GGF, the Othello servers' game files |
//! | [`transcript`] | a judge session, line by line, as `match --record` keeps it |
//! | [`read`] | a recorded game in any form users have: GGF, transcript, move list |
//! | [`obf`] | OBF positions (the FFO test suite's form) and solving them |
//! | [`archive`] | the game archives of human play (WTHOR, Logistello) |

pub mod archive;
pub mod ggf;
pub mod obf;
pub mod read;
pub mod transcript;
