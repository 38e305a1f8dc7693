//! The opening book: positions of the first plies that the game archives
//! reach often, each with a score (built by `reversi book build`).
//!
//! A position's score is the better of its own deep search and what its
//! book children are worth (negamax through the book's tree), so the book
//! knows which of its moves is best and whether the best lies outside it.
//! In play (on unless `--book off`), a position whose best move leads to
//! another book position is answered at once with that move; any other
//! is searched as usual.
//!
//! Positions are stored in a canonical form, the least of the board's 8
//! symmetries (as a (player, opponent) pair), so a position reached in any
//! orientation finds its entry. Colours need no such care: a board names
//! the side to move and the other side, not black and white, so the same
//! discs with colours and turn exchanged are the same board.
//!
//! The file (`book/openings.book`, embedded in the binary and read in
//! place, so start-up costs nothing): a text header saying what produced
//! it, a blank line, then one record per position in increasing canonical
//! order, each the player's and the opponent's square sets (`u64`) and the
//! score (`i16`, hundredths of a disc, the side to move's view), all
//! little-endian.

use crate::bitboard::{self, Square};
use crate::board::Board;
use crate::eval::Score;

/// Bytes per record: two square sets and a score.
pub const RECORD: usize = 18;

/// The book embedded in the binary.
#[cfg(not(bundle))]
const BOOK_FILE: &[u8] = include_bytes!("book/openings.book");
/// The bundle has no room for a book beside the packed evaluation: it
/// searches every move, `--book on` or not.
#[cfg(bundle)]
const BOOK_FILE: &[u8] = b"";

/// The least of the 8 symmetries of `board`: one key for every orientation.
#[must_use]
pub fn canonical(board: &Board) -> (u64, u64) {
    (0..8)
        .map(|sym| {
            let b = board.transform(sym);
            (b.player, b.opponent)
        })
        .min()
        .expect("8 symmetries")
}

/// What a move that led to `after` is worth to the side that played it,
/// given the `score` (side to move's view) of the positions known: minus
/// the score of `after`, or, when the side now to move must pass, the
/// score of the position after the pass (the archives' games record
/// passes that way). `None` when the position is not known or the game
/// is over.
pub fn value_after(after: &Board, score: impl Fn(&Board) -> Option<Score>) -> Option<Score> {
    if after.has_moves() {
        score(after).map(|s| -s)
    } else if after.is_game_over() {
        None
    } else {
        score(&after.pass())
    }
}

/// An opening book: a header and sorted records, borrowed from the
/// embedded file or one read from disk.
#[derive(Clone, Copy)]
pub struct Book<'a> {
    header: &'a str,
    records: &'a [u8],
}

/// A book move and what it is worth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookMove {
    /// The move.
    pub square: Square,
    /// The position's book score, in hundredths of a disc.
    pub score: Score,
    /// How many of the position's legal moves lead into the book.
    pub known: u32,
    /// How many legal moves the position has.
    pub moves: u32,
}

/// Why a file is not a book.
#[derive(Debug, PartialEq, Eq)]
pub struct BadBook(pub String);

impl std::fmt::Display for BadBook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl<'a> Book<'a> {
    /// Reads a book file: a header, a blank line, whole sorted records.
    pub fn parse(file: &'a [u8]) -> Result<Book<'a>, BadBook> {
        let start = crate::eval::pattern::tables_start(file)
            .ok_or_else(|| BadBook("no blank line after the header".into()))?;
        let header = std::str::from_utf8(&file[..start - 2])
            .map_err(|_| BadBook("the header is not text".into()))?;
        if !header.starts_with("reversi opening book v1") {
            return Err(BadBook("not a reversi opening book (v1)".into()));
        }
        let records = &file[start..];
        if !records.len().is_multiple_of(RECORD) {
            return Err(BadBook(format!(
                "{} bytes of records, not a whole number of {RECORD}-byte records",
                records.len()
            )));
        }
        let book = Book { header, records };
        if (1..book.len()).any(|i| book.key(i - 1) >= book.key(i)) {
            return Err(BadBook("records out of order".into()));
        }
        Ok(book)
    }

    /// What produced the book.
    #[must_use]
    pub fn header(&self) -> &'a str {
        self.header
    }

    /// Positions in the book.
    #[must_use]
    pub fn len(&self) -> usize {
        self.records.len() / RECORD
    }

    /// Whether the book holds no position.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    fn word(&self, at: usize) -> u64 {
        let bytes: [u8; 8] = self.records[at..at + 8].try_into().expect("8 bytes");
        u64::from_le_bytes(bytes)
    }

    fn key(&self, i: usize) -> (u64, u64) {
        (self.word(i * RECORD), self.word(i * RECORD + 8))
    }

    fn score_at(&self, i: usize) -> Score {
        let at = i * RECORD + 16;
        Score::from(i16::from_le_bytes([self.records[at], self.records[at + 1]]))
    }

    /// The book score of `board` (side to move's view), if it is there.
    #[must_use]
    pub fn score(&self, board: &Board) -> Option<Score> {
        let key = canonical(board);
        let (mut low, mut high) = (0, self.len());
        while low < high {
            let mid = (low + high) / 2;
            match self.key(mid).cmp(&key) {
                std::cmp::Ordering::Less => low = mid + 1,
                std::cmp::Ordering::Greater => high = mid,
                std::cmp::Ordering::Equal => return Some(self.score_at(mid)),
            }
        }
        None
    }

    /// [`value_after`] with this book's scores.
    #[must_use]
    pub fn value_after(&self, after: &Board) -> Option<Score> {
        value_after(after, |b| self.score(b))
    }

    /// The book's move in `board`: the move to the book position worth the
    /// most (the lowest square on a tie), when that is worth the position's
    /// own book score, that is when no move outside the book was found
    /// better. `None` when the position is not in the book or its best
    /// move leaves it.
    #[must_use]
    pub fn choose(&self, board: &Board) -> Option<BookMove> {
        let score = self.score(board)?;
        let moves = board.moves();
        let mut best: Option<(Square, Score)> = None;
        let mut known = 0;
        for sq in bitboard::squares(moves) {
            if let Some(value) = self.value_after(&board.play(sq)) {
                known += 1;
                if best.is_none_or(|(_, b)| value > b) {
                    best = Some((sq, value));
                }
            }
        }
        let (square, value) = best?;
        (value >= score).then_some(BookMove {
            square,
            score,
            known,
            moves: moves.count_ones(),
        })
    }
}

/// The book embedded in the binary (an empty one if the file were
/// damaged; a test checks that it is not).
#[must_use]
pub fn embedded() -> Book<'static> {
    static BOOK: std::sync::OnceLock<Book<'static>> = std::sync::OnceLock::new();
    *BOOK.get_or_init(|| {
        Book::parse(BOOK_FILE).unwrap_or(Book {
            header: "",
            records: &[],
        })
    })
}

/// The book file: header, blank line, records in canonical order (what
/// `reversi book build` writes and [`Book::parse`] reads).
#[cfg(not(bundle))]
#[must_use]
pub fn to_bytes(header: &str, scored: &[(Board, Score)]) -> Vec<u8> {
    let mut records: Vec<((u64, u64), Score)> =
        scored.iter().map(|(b, s)| (canonical(b), *s)).collect();
    records.sort_unstable();
    let mut bytes = format!("{header}\n\n").into_bytes();
    bytes.reserve(records.len() * RECORD);
    for ((player, opponent), score) in records {
        let score = score.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16;
        bytes.extend_from_slice(&player.to_le_bytes());
        bytes.extend_from_slice(&opponent.to_le_bytes());
        bytes.extend_from_slice(&score.to_le_bytes());
    }
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn after(moves: &str) -> Board {
        let mut board = Board::start();
        for i in (0..moves.len()).step_by(2) {
            let sq = Square::parse(&moves[i..i + 2]).expect("square");
            assert!(board.is_legal(sq), "{moves}");
            board = board.play(sq);
        }
        board
    }

    #[test]
    fn every_orientation_has_one_key() {
        // The four first moves are one position turned about the board.
        let keys: Vec<_> = ["f5", "e6", "d3", "c4"]
            .iter()
            .map(|m| canonical(&after(m)))
            .collect();
        assert!(keys.iter().all(|&k| k == keys[0]));
        let board = after("f5d6c3d3c4");
        for sym in 0..8 {
            assert_eq!(canonical(&board.transform(sym)), canonical(&board));
        }
        assert_ne!(canonical(&after("f5d6")), canonical(&after("f5f6")));
    }

    /// A book of `entries` (position, score), as the builder writes one.
    fn book_bytes(entries: &[(Board, Score)]) -> Vec<u8> {
        to_bytes("reversi opening book v1\ntest", entries)
    }

    #[test]
    fn the_best_book_child_is_played_only_when_nothing_outside_beats_it() {
        let root = after("f5");
        let (d6, f6) = (after("f5d6"), after("f5f6"));
        // d6 worth -10 to black (so +10 for white who played it), f6 +30.
        let bytes = book_bytes(&[(root, 30), (d6, -10), (f6, -30)]);
        let book = Book::parse(&bytes).unwrap();
        assert_eq!(book.len(), 3);
        let chosen = book.choose(&root).expect("in book");
        assert_eq!(chosen.square, Square::parse("f6").unwrap());
        assert_eq!((chosen.score, chosen.known, chosen.moves), (30, 2, 3));
        // The same position turned about the board gets the turned move.
        let turned = root.transform(1);
        let chosen = book.choose(&turned).expect("in book");
        assert_eq!(
            root.transform(1).play(chosen.square),
            f6.transform(1),
            "the move turns with the board"
        );
        // A root worth more than any book child: its best move is outside.
        let bytes = book_bytes(&[(root, 50), (d6, -10), (f6, -30)]);
        assert_eq!(Book::parse(&bytes).unwrap().choose(&root), None);
        // Not in the book at all.
        assert_eq!(book.choose(&after("f5d6c3")), None);
    }

    #[test]
    fn damaged_files_are_refused() {
        let good = book_bytes(&[(after("f5"), 0), (after("f5d6"), 0)]);
        assert!(Book::parse(&good).is_ok());
        assert!(Book::parse(&good[..good.len() - 1]).is_err());
        assert!(Book::parse(b"reversi opening book v1\n").is_err());
        assert!(Book::parse(b"something else\n\n").is_err());
        let mut swapped = good.clone();
        let start = swapped.len() - 2 * RECORD;
        let (a, b) = swapped[start..].split_at_mut(RECORD);
        a.swap_with_slice(b);
        assert!(Book::parse(&swapped).is_err());
    }

    #[test]
    fn the_embedded_book_is_whole_and_answers_the_start() {
        let book = embedded();
        assert!(book.len() > 1000, "{} positions", book.len());
        assert!(book.header().starts_with("reversi opening book v1"));
        // The first move's four choices are one position: the start is in
        // the book, and its move (if any) is legal.
        let start = Board::start();
        assert!(book.score(&start).is_some());
        if let Some(m) = book.choose(&start) {
            assert!(start.is_legal(m.square));
        }
    }
}
