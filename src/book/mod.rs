//! The opening book's tools: building it from the game archives and
//! showing an entry. The book itself, its format and its use in play are
//! the core's (`reversi_core::book`).

pub mod build;
pub mod show;
