//! `reversi book show`: what the book knows about a position.

use super::Book;
use crate::bitboard::{self, Square};
use crate::board::{Board, Color};
use crate::eval::{Score, DISC};
use std::io::{self, Write};

/// The position after `moves` (squares written one after another, `f5d6`),
/// passing wherever the side to move has no move, and who is to move
/// there; an error names the first move that cannot be played.
pub fn position_after(moves: &str) -> Result<(Board, Color), String> {
    let (mut board, mut color) = (Board::start(), Color::Black);
    let bytes = moves.as_bytes();
    if !bytes.len().is_multiple_of(2) {
        return Err(format!(
            "'{moves}': moves are two characters each, like f5d6"
        ));
    }
    for (i, pair) in bytes.chunks(2).enumerate() {
        let text = std::str::from_utf8(pair).unwrap_or("??");
        let Some(sq) = Square::parse(text) else {
            return Err(format!("move {}: '{text}' is not a square", i + 1));
        };
        if !board.has_moves() && board.pass().has_moves() {
            board = board.pass();
            color = color.other();
        }
        if !board.is_legal(sq) {
            return Err(format!("move {}: {text} is not legal there", i + 1));
        }
        board = board.play(sq);
        color = color.other();
    }
    if !board.has_moves() && board.pass().has_moves() {
        board = board.pass();
        color = color.other();
    }
    Ok((board, color))
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
