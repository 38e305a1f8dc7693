//! The British Informatics Olympiad 1997, round one, question 2: the
//! program that plays Othello by one of two fixed strategies
//! (`../shared/seeds/bio97-othello.txt`).
//!
//! Its rules differ from the judge's: white moves first, a move needs only
//! an occupied neighbour ([`Rules::Neighbour`]), and the game ends when the
//! board is full. Its coordinates are (x, y) with (1, 1) bottom-left, so
//! y = 8 is the engine's rank 1 (the top row).

pub mod rules;

use crate::bio97::rules::Rules;
use reversi_core::bitboard::{self, Square};
use reversi_core::board::{Board, Color};
use std::io::{self, BufRead, Write};

const RULES: Rules = Rules::Neighbour;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// Turn over the most discs.
    MostTurned,
    /// Keep the most discs after the opponent's best reply.
    BestAfterReply,
}

/// The engine square for BIO coordinates, if on the board.
#[must_use]
pub fn square(x: i64, y: i64) -> Option<Square> {
    if (1..=8).contains(&x) && (1..=8).contains(&y) {
        Square::from_file_rank((x - 1) as u8, (8 - y) as u8)
    } else {
        None
    }
}

/// The order in which the question breaks ties: lowest on the screen first
/// (y = 1 is the bottom row), then rightmost. The first best move in this
/// order is played.
fn tie_break_order() -> impl Iterator<Item = Square> {
    (1..=8).flat_map(|y| {
        (1..=8)
            .rev()
            .map(move |x| square(x, y).expect("on the board"))
    })
}

/// The move `strategy` plays, `None` when the board is full.
#[must_use]
pub fn choose(board: &Board, strategy: Strategy) -> Option<Square> {
    let moves = RULES.moves(board);
    let mut best: Option<(Square, i64)> = None;
    for sq in tie_break_order().filter(|sq| moves & sq.bit() != 0) {
        let (after, turned) = RULES.play(board, sq);
        let value = match strategy {
            Strategy::MostTurned => i64::from(turned),
            Strategy::BestAfterReply => {
                let replies = RULES.moves(&after);
                if replies == 0 {
                    // The last move of the game: no reply to fear, so it is
                    // chosen as strategy 1 would.
                    i64::from(turned)
                } else {
                    // Our discs after the reply that leaves us fewest
                    // (`after` has the opponent to move: ours are its
                    // `opponent`).
                    bitboard::squares(replies)
                        .map(|r| i64::from(RULES.play(&after, r).0.player.count_ones()))
                        .min()
                        .expect("replies is not empty")
                }
            }
        };
        if best.is_none_or(|(_, v)| value > v) {
            best = Some((sq, value));
        }
    }
    best.map(|(sq, _)| sq)
}

/// The board as the question prints it: `*` black, `0` white, `.` empty,
/// top row (y = 8) first, then a blank line.
#[must_use]
pub fn render(board: &Board, to_move: Color) -> String {
    let (black, white) = board.colors(to_move);
    let mut out = String::with_capacity(80);
    for rank in 0..8 {
        for file in 0..8 {
            let bit = 1u64 << (rank * 8 + file);
            out.push(if black & bit != 0 {
                '*'
            } else if white & bit != 0 {
                '0'
            } else {
                '.'
            });
        }
        out.push('\n');
    }
    out.push('\n');
    out
}

/// `White wins by 4.`, `Black wins by N.` or `Black and White draw.`
#[must_use]
pub fn result_line(board: &Board, to_move: Color) -> String {
    let (black, white) = board.colors(to_move);
    let (b, w) = (black.count_ones(), white.count_ones());
    if b > w {
        format!("Black wins by {}.", b - w)
    } else if w > b {
        format!("White wins by {}.", w - b)
    } else {
        "Black and White draw.".to_string()
    }
}

/// The next line of input as text, read as the judge protocol reads
/// its lines: bytes that are not UTF-8 replaced, an overlong line cut;
/// `None` at the end of input.
fn text_line(input: &mut impl BufRead) -> io::Result<Option<String>> {
    let mut cut = false;
    reversi_core::lines::read_line(input, &mut cut)
}

/// Reads the 4x4 centre: four lines of `*`, `0`, `.`.
fn read_centre(input: &mut impl BufRead, log: &mut impl Write) -> io::Result<Option<(u64, u64)>> {
    let (mut black, mut white) = (0u64, 0u64);
    let mut rows = 0;
    while rows < 4 {
        let Some(line) = text_line(input)? else {
            return Ok(None);
        };
        let cells: Vec<char> = line.trim().chars().collect();
        if cells.len() != 4 || cells.iter().any(|c| !matches!(c, '*' | '0' | '.')) {
            let _ = writeln!(
                log,
                "bio97: ignoring '{}': a row is 4 of * 0 .",
                line.trim()
            );
            continue;
        }
        let y = 6 - rows as i64;
        for (i, c) in cells.iter().enumerate() {
            let sq = square(3 + i as i64, y).expect("centre square");
            match c {
                '*' => black |= sq.bit(),
                '0' => white |= sq.bit(),
                _ => {}
            }
        }
        rows += 1;
    }
    Ok(Some((black, white)))
}

/// The program: reads the centre, then commands, and writes what the
/// question asks for.
pub fn run(
    input: &mut impl BufRead,
    output: &mut impl Write,
    log: &mut impl Write,
    strategy: Strategy,
) -> io::Result<()> {
    let Some((black, white)) = read_centre(input, log)? else {
        let _ = writeln!(log, "bio97: input ended before the 4x4 centre was read");
        return Ok(());
    };
    if black | white == 0 {
        let _ = writeln!(
            log,
            "bio97: the centre must hold at least one disc; playing on anyway"
        );
    }
    let number = match strategy {
        Strategy::MostTurned => 1,
        Strategy::BestAfterReply => 2,
    };
    writeln!(output, "Strategy {number}")?;
    let mut to_move = Color::White;
    let mut board = Board::from_colors(black, white, to_move);
    write!(output, "{}", render(&board, to_move))?;

    let mut words = Words::new(input);
    let is_over = |b: &Board| RULES.moves(b) == 0;
    while let Some(n) = words.next_integer()? {
        match n {
            -1 => break,
            0 => {
                let (Some(x), Some(y)) = (words.next_integer()?, words.next_integer()?) else {
                    break;
                };
                let legal = RULES.moves(&board);
                match square(x, y) {
                    Some(sq) if legal & sq.bit() != 0 => {
                        board = RULES.play(&board, sq).0;
                        to_move = to_move.other();
                        write!(output, "{}", render(&board, to_move))?;
                    }
                    Some(sq) if (board.player | board.opponent) & sq.bit() != 0 => {
                        let _ = writeln!(log, "bio97: ({x}, {y}) is occupied: move ignored");
                        continue;
                    }
                    Some(_) => {
                        let _ = writeln!(
                            log,
                            "bio97: ({x}, {y}) has no occupied neighbour: move ignored"
                        );
                        continue;
                    }
                    None => {
                        let _ = writeln!(log, "bio97: ({x}, {y}) is off the board: move ignored");
                        continue;
                    }
                }
            }
            n if n > 0 => {
                for _ in 0..n {
                    let Some(sq) = choose(&board, strategy) else {
                        break;
                    };
                    board = RULES.play(&board, sq).0;
                    to_move = to_move.other();
                }
                write!(output, "{}", render(&board, to_move))?;
            }
            _ => continue, // other input is ignored
        }
        if is_over(&board) {
            writeln!(output, "{}", result_line(&board, to_move))?;
            break;
        }
    }
    output.flush()
}

/// Whitespace-separated words from the input; anything that is not an
/// integer is skipped, as the question says.
struct Words<'a, R: BufRead> {
    input: &'a mut R,
    pending: std::collections::VecDeque<String>,
}

impl<'a, R: BufRead> Words<'a, R> {
    fn new(input: &'a mut R) -> Self {
        Words {
            input,
            pending: std::collections::VecDeque::new(),
        }
    }

    fn next_integer(&mut self) -> io::Result<Option<i64>> {
        loop {
            while let Some(word) = self.pending.pop_front() {
                if let Ok(n) = word.parse::<i64>() {
                    return Ok(Some(n));
                }
            }
            let Some(line) = text_line(self.input)? else {
                return Ok(None);
            };
            self.pending
                .extend(line.split_whitespace().map(str::to_string));
        }
    }
}

/// Question 2(b): the most discs one move can turn over, under the usual
/// flipping rule. For each square, the board that turns the most from it:
/// in every direction opponent discs up to the last square before the edge,
/// and one of the mover's discs on the edge. The lines from one square never
/// cross, so each such board exists.
#[must_use]
pub fn most_turned_in_one_move() -> u32 {
    let mut most = 0;
    for sq in bitboard::squares(u64::MAX) {
        let (mut mine, mut theirs) = (0u64, 0u64);
        for step in STEPS {
            let line: Vec<Square> = ray(sq, step).collect();
            if let Some((edge, inner)) = line.split_last() {
                if !inner.is_empty() {
                    mine |= edge.bit();
                    inner.iter().for_each(|s| theirs |= s.bit());
                }
            }
        }
        let turned = reversi_core::movegen::flips(sq.index(), mine, theirs).count_ones();
        most = most.max(turned);
    }
    most
}

/// The eight directions as (file, rank) steps.
const STEPS: [(i8, i8); 8] = [
    (1, 0),
    (-1, 0),
    (0, 1),
    (0, -1),
    (1, 1),
    (1, -1),
    (-1, 1),
    (-1, -1),
];

/// The squares from `sq` (not included) to the edge in direction `step`.
fn ray(sq: Square, (dx, dy): (i8, i8)) -> impl Iterator<Item = Square> {
    let (mut x, mut y) = (sq.file() as i8, sq.rank() as i8);
    std::iter::from_fn(move || {
        x += dx;
        y += dy;
        if (0..8).contains(&x) && (0..8).contains(&y) {
            Square::from_file_rank(x as u8, y as u8)
        } else {
            None
        }
    })
}

/// The possible ways the disc on `sq` (the mover's) was played, counted as
/// the published answer counts them: in each direction, from 0 up to L - 1
/// discs turned, where L is the run of the mover's discs next to it.
/// Returns, for each such way, the discs it turned.
fn ways_played(mover: u64, sq: Square) -> Vec<u64> {
    let mut ways = vec![0u64];
    for step in STEPS {
        let run: Vec<Square> = ray(sq, step).take_while(|s| mover & s.bit() != 0).collect();
        if run.len() < 2 {
            continue; // 0 turned is the only option in this direction
        }
        let mut next = Vec::new();
        for way in &ways {
            let mut turned = 0u64;
            next.push(*way);
            for s in &run[..run.len() - 1] {
                turned |= s.bit();
                next.push(way | turned);
            }
        }
        ways = next;
    }
    ways
}

/// Question 2(d): for a final position in which `last` (the mover's discs)
/// has just moved against `other`, the number of different last moves
/// (square and discs turned) and of different last two moves.
#[must_use]
pub fn last_moves(last: u64, other: u64) -> (u64, u64) {
    let mut one = 0u64;
    let mut two = 0u64;
    for sq in bitboard::squares(last) {
        for turned in ways_played(last, sq) {
            one += 1;
            // Undo it: the square empties (so it ends the other side's
            // runs) and the turned discs go back to the other side.
            let before_other = other | turned;
            for prev in bitboard::squares(before_other) {
                two += ways_played(before_other, prev).len() as u64;
            }
        }
    }
    (one, two)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinates_map_bottom_left_to_a8() {
        assert_eq!(square(1, 1).unwrap().to_string(), "a8");
        assert_eq!(square(8, 8).unwrap().to_string(), "h1");
        assert_eq!(square(0, 1), None);
        assert_eq!(square(1, 9), None);
    }

    #[test]
    fn question_2b_most_discs_turned_is_19() {
        assert_eq!(most_turned_in_one_move(), 19);
    }

    #[test]
    fn question_2d_last_moves_are_97_and_8037() {
        let rows = [
            "00**0*0*", "0****00*", "**0**0*0", "00*0000*", "*0*0**00", "0*0***0*", "***00**0",
            "**0**0*0",
        ];
        let cells: String = rows.concat();
        let (board, _) = Board::parse(&cells, "X").unwrap();
        // Black has just played: black's discs are `player` here.
        assert_eq!(last_moves(board.player, board.opponent), (97, 8037));
    }
}
