//! Other protocols and other tables: the bot as a GTP or NBoard engine,
//! any GTP or NBoard engine as a judge-protocol program, and a
//! judge-protocol program playing the arena server's games over HTTP or
//! a GGS server's over its text protocol.
//!
//! | module | what it owns |
//! | --- | --- |
//! | [`gtp`] | the bot speaking the Go Text Protocol's Othello dialect |
//! | [`nboard`] | the bot speaking NBoard's engine protocol |
//! | [`bridge`] | a GTP or NBoard engine made a judge-protocol program |
//! | [`connect`] | a judge-protocol program at the arena server, over HTTP |
//! | [`ggs`] | a judge-protocol program at a GGS server |

pub mod bridge;
pub mod connect;
pub mod ggs;
pub mod gtp;
pub mod nboard;
