//! Looking at games and positions: a game shown in the terminal or as a
//! page, each move's cost, what a position is worth, what the book knows.
//!
//! | module | what it owns |
//! | --- | --- |
//! | [`show`] | a game as text frames and as one HTML page with its evaluation graph |
//! | [`viewer`] | stepping through a game in a terminal |
//! | [`analyze`] | each move's cost, and the mistakes that lost a game |
//! | [`value`] | a position's and a move's worth by search, within a time |
//! | [`book`] | `reversi book show`: the opening book's view of a position |

pub mod analyze;
pub mod book;
pub mod show;
pub mod value;
pub mod viewer;
