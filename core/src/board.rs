//! The position: two square sets, side to move first, played by copy-make.
//!
//! `Board` never knows which colour is to move; whoever holds it does (the
//! protocol session, a game record). That keeps the search free of colour
//! logic: the player to move is always `player`.

use crate::bitboard::{self, Square};
use crate::movegen;
use std::fmt;

/// Black or white. Black moves first from the standard position.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Color {
    /// Moves first from the standard start.
    Black,
    /// Moves second.
    White,
}

impl Color {
    /// The opponent's colour.
    #[must_use]
    pub fn other(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// `X` for black, `O` for white, as in the 64-character boards.
    #[must_use]
    pub fn symbol(self) -> char {
        match self {
            Color::Black => 'X',
            Color::White => 'O',
        }
    }

    /// `black` or `white`, as the referee and the server write it.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Color::Black => "black",
            Color::White => "white",
        }
    }

    /// 0 for black, 1 for white: the index of per-side pairs.
    #[must_use]
    pub fn index(self) -> usize {
        match self {
            Color::Black => 0,
            Color::White => 1,
        }
    }
}

/// A position seen from the side to move.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Board {
    /// Discs of the side to move.
    pub player: u64,
    /// Discs of the other side.
    pub opponent: u64,
}

/// Why a 64-character board did not parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseBoardError(pub String);

impl fmt::Display for ParseBoardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bad board: {}", self.0)
    }
}

impl std::error::Error for ParseBoardError {}

impl Board {
    /// The standard start, black to move: d4 and e5 white, d5 and e4 black.
    #[must_use]
    pub fn start() -> Board {
        let sq = |s: &str| Square::parse(s).expect("valid square").bit();
        Board {
            player: sq("d5") | sq("e4"),
            opponent: sq("d4") | sq("e5"),
        }
    }

    /// The position with these discs, `player` to move; the sets must not overlap.
    #[must_use]
    pub fn new(player: u64, opponent: u64) -> Board {
        debug_assert_eq!(player & opponent, 0);
        Board { player, opponent }
    }

    /// The legal moves of the side to move, as a square set.
    #[inline]
    #[must_use]
    pub fn moves(&self) -> u64 {
        movegen::legal_moves(self.player, self.opponent)
    }

    /// Whether the side to move has a legal move (else it must pass).
    #[inline]
    #[must_use]
    pub fn has_moves(&self) -> bool {
        self.moves() != 0
    }

    /// Whether `sq` is a legal move for the side to move.
    #[inline]
    #[must_use]
    pub fn is_legal(&self, sq: Square) -> bool {
        self.moves() & sq.bit() != 0
    }

    /// Plays a legal move and hands the turn over. The caller guarantees
    /// legality: the search only plays moves from `moves()`.
    #[inline]
    #[must_use]
    pub fn play(&self, sq: Square) -> Board {
        self.play_index(sq.index())
    }

    /// [`Board::play`] by square index.
    #[inline]
    #[must_use]
    pub fn play_index(&self, index: usize) -> Board {
        let flipped = movegen::flips(index, self.player, self.opponent);
        debug_assert!(flipped != 0, "illegal move {index}");
        self.play_flips(index, flipped)
    }

    /// Plays `index` with its flips already computed.
    #[inline]
    #[must_use]
    pub fn play_flips(&self, index: usize, flipped: u64) -> Board {
        Board {
            player: self.opponent & !flipped,
            opponent: self.player | flipped | (1u64 << index),
        }
    }

    /// The turn passes without a move.
    #[inline]
    #[must_use]
    pub fn pass(&self) -> Board {
        Board {
            player: self.opponent,
            opponent: self.player,
        }
    }

    /// Neither side can move.
    #[must_use]
    pub fn is_game_over(&self) -> bool {
        !self.has_moves() && !self.pass().has_moves()
    }

    /// The empty squares.
    #[inline]
    #[must_use]
    pub fn empties(&self) -> u64 {
        !(self.player | self.opponent)
    }

    /// How many squares are empty.
    #[inline]
    #[must_use]
    pub fn empty_count(&self) -> u32 {
        self.empties().count_ones()
    }

    /// Disc difference, side to move minus the other, with empty squares
    /// going to the winner: the score of a finished game (a wipe-out is 64).
    #[inline]
    #[must_use]
    pub fn final_score(&self) -> i32 {
        let p = self.player.count_ones() as i32;
        let o = self.opponent.count_ones() as i32;
        let e = 64 - p - o;
        let diff = p - o;
        if diff > 0 {
            diff + e
        } else if diff < 0 {
            diff - e
        } else {
            0
        }
    }

    /// A well-mixed 64-bit hash of the two square sets: where a table
    /// (the transposition table, perft's memo) keeps the position.
    #[inline]
    #[must_use]
    pub fn hash(&self) -> u64 {
        let h = self
            .player
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .rotate_left(29)
            ^ self.opponent.wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
        h ^ (h >> 32)
    }

    /// One of the 8 symmetries of the board (0 is the identity).
    #[must_use]
    pub fn transform(&self, symmetry: u8) -> Board {
        Board {
            player: bitboard::transform(self.player, symmetry),
            opponent: bitboard::transform(self.opponent, symmetry),
        }
    }

    /// Parses a 64-character board (a1..h1, a2.. h8; `X` black, `O` white,
    /// `-` empty; `x`, `o`, `*`, `0`, `.` are accepted too) and the side to
    /// move (`X`/`O`, `B`/`W`).
    pub fn parse(cells: &str, side: &str) -> Result<(Board, Color), ParseBoardError> {
        let cells = cells.as_bytes();
        if cells.len() != 64 {
            return Err(ParseBoardError(format!(
                "expected 64 squares, got {}",
                cells.len()
            )));
        }
        let (mut black, mut white) = (0u64, 0u64);
        for (i, c) in cells.iter().enumerate() {
            match c {
                b'X' | b'x' | b'*' | b'B' | b'b' => black |= 1 << i,
                b'O' | b'o' | b'0' | b'W' | b'w' => white |= 1 << i,
                b'-' | b'.' => {}
                other => {
                    return Err(ParseBoardError(format!(
                        "unexpected '{}' at square {}",
                        *other as char,
                        Square::new(i as u8).expect("i < 64")
                    )))
                }
            }
        }
        let color = match side.trim() {
            "X" | "x" | "B" | "b" | "*" => Color::Black,
            "O" | "o" | "W" | "w" | "0" => Color::White,
            other => return Err(ParseBoardError(format!("unknown side to move '{other}'"))),
        };
        Ok((Board::from_colors(black, white, color), color))
    }

    /// The board with `to_move` to play.
    #[must_use]
    pub fn from_colors(black: u64, white: u64, to_move: Color) -> Board {
        match to_move {
            Color::Black => Board::new(black, white),
            Color::White => Board::new(white, black),
        }
    }

    /// (black, white) when `to_move` is the side to move.
    #[must_use]
    pub fn colors(&self, to_move: Color) -> (u64, u64) {
        match to_move {
            Color::Black => (self.player, self.opponent),
            Color::White => (self.opponent, self.player),
        }
    }

    /// The 64-character form with `to_move` as the side to move.
    #[must_use]
    pub fn to_text(&self, to_move: Color) -> String {
        let (black, white) = self.colors(to_move);
        (0..64)
            .map(|i| {
                let bit = 1u64 << i;
                if black & bit != 0 {
                    'X'
                } else if white & bit != 0 {
                    'O'
                } else {
                    '-'
                }
            })
            .collect()
    }

    /// A compact diagram for stderr: 9 lines, `X` black, `O` white, `*` a
    /// legal move of the side to move, `.` empty.
    #[must_use]
    pub fn diagram(&self, to_move: Color) -> String {
        self.diagram_marking(to_move, None)
    }

    /// [`Board::diagram`], with `marked` (the move just played) set in
    /// brackets: `5 . . . X X[X]. .`.
    #[must_use]
    pub fn diagram_marking(&self, to_move: Color, marked: Option<Square>) -> String {
        let (black, white) = self.colors(to_move);
        let moves = self.moves();
        let marked = marked.map_or(0, Square::bit);
        let mut out = String::with_capacity(9 * 20);
        out.push_str("  a b c d e f g h\n");
        for rank in 0..8 {
            out.push((b'1' + rank as u8) as char);
            for file in 0..8 {
                let bit = 1u64 << (rank * 8 + file);
                out.push(if bit == marked {
                    '['
                } else if file > 0 && bit >> 1 == marked {
                    ']'
                } else {
                    ' '
                });
                out.push(if black & bit != 0 {
                    'X'
                } else if white & bit != 0 {
                    'O'
                } else if moves & bit != 0 {
                    '*'
                } else {
                    '.'
                });
            }
            if marked >> (rank * 8) == 1 << 7 {
                out.push(']');
            }
            out.push('\n');
        }
        out
    }
}

/// The legal moves of a set, as `d3 c4 ...`.
#[must_use]
pub fn move_names(set: u64) -> String {
    let names: Vec<String> = bitboard::squares(set).map(|s| s.to_string()).collect();
    names.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_marked_square_is_bracketed_on_any_file() {
        let b = Board::start();
        let rows = |marked: &str| -> Vec<String> {
            b.diagram_marking(Color::Black, Square::parse(marked))
                .lines()
                .map(String::from)
                .collect()
        };
        assert_eq!(rows("d4")[4], "4 . . *[O]X . . .");
        assert_eq!(rows("a1")[1], "1[.]. . . . . . .");
        assert_eq!(rows("h8")[8], "8 . . . . . . .[.]");
        // Nothing marked: the plain diagram, and no stray bracket.
        assert_eq!(
            b.diagram_marking(Color::Black, None),
            b.diagram(Color::Black)
        );
        assert!(!b.diagram(Color::Black).contains(['[', ']']));
    }

    #[test]
    fn start_position_has_the_four_classic_moves() {
        let b = Board::start();
        assert_eq!(move_names(b.moves()), "d3 c4 f5 e6");
        assert_eq!(b.final_score(), 0);
        assert_eq!(b.empty_count(), 60);
    }

    #[test]
    fn text_round_trip() {
        let text = "---------------------------OX------XO---------------------------";
        let (b, side) = Board::parse(text, "X").unwrap();
        assert_eq!(b, Board::start());
        assert_eq!(side, Color::Black);
        assert_eq!(b.to_text(Color::Black), text);
        assert!(Board::parse(&text[1..], "X").is_err());
        assert!(Board::parse(text, "Z").is_err());
    }

    #[test]
    fn final_score_gives_empties_to_the_winner() {
        let b = Board::new(0b111, 0b1000);
        assert_eq!(b.final_score(), 3 - 1 + 60);
        assert_eq!(b.pass().final_score(), -62);
        assert_eq!(Board::new(1, 2).final_score(), 0);
    }

    #[test]
    fn play_flips_and_hands_over() {
        let b = Board::start().play(Square::parse("d3").unwrap());
        // Now white to move; black has d3, d4, d5, e4.
        assert_eq!(b.opponent.count_ones(), 4);
        assert_eq!(b.player.count_ones(), 1);
    }
}
