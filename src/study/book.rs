//! `reversi book show`: what the book knows about a position.

use crate::records::read::replay_moves;
use reversi_core::bitboard;
use reversi_core::board::{Board, Color};
use reversi_core::book::Book;
use reversi_core::eval::{Score, DISC};
use std::io::{self, Write};

/// The position after `moves` ([`replay_moves`]), passing at the end too
/// where the side to move has no move, so the position shown is the one
/// the book would be asked about.
pub fn position_after(moves: &str) -> Result<(Board, Color), String> {
    let (board, color) = replay_moves(moves)?;
    Ok(if !board.has_moves() && board.pass().has_moves() {
        (board.pass(), color.other())
    } else {
        (board, color)
    })
}

fn discs(score: Score) -> String {
    format!("{:+.2}", f64::from(score) / f64::from(DISC))
}

/// Writes the book's size and header, then, for the position after
/// `moves` (checked with [`position_after`] first: its error, if any, is
/// the only thing returned), its score, every legal move's value where the book has it, and
/// the move the bot would play from the book.
pub fn show(book: &Book, name: &str, moves: &str, out: &mut dyn Write) -> io::Result<()> {
    let (board, color) = position_after(moves).map_err(io::Error::other)?;
    writeln!(out, "book: {name}, {} positions", book.len())?;
    for line in book.header().lines() {
        writeln!(out, "  {line}")?;
    }
    let shown = if moves.is_empty() { "the start" } else { moves };
    write!(out, "after {shown} ({} to move): ", color.name())?;
    match book.score(&board) {
        Some(score) => writeln!(out, "book score {}", discs(score))?,
        None => writeln!(out, "not in the book")?,
    }
    for sq in bitboard::squares(board.moves()) {
        match book.value_after(&board.play(sq)) {
            Some(value) => writeln!(out, "  {sq} {}", discs(value))?,
            None => writeln!(out, "  {sq} -")?,
        }
    }
    match book.choose(&board) {
        Some(chosen) => writeln!(out, "book move: {}", chosen.square),
        None => writeln!(out, "book move: none (searched instead)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_are_replayed_with_passes_and_checked() {
        let (board, color) = position_after("f5d6").unwrap();
        assert_eq!(color, Color::Black);
        assert_eq!(board.empty_count(), 58);
        assert_eq!(position_after("").unwrap().0, Board::start());
        assert!(position_after("f5d").is_err());
        assert!(position_after("f5z9").is_err());
        assert_eq!(
            position_after("f5a1"),
            Err("move 2: a1 is not legal there".to_string())
        );
    }
}
