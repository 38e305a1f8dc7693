//! The contest's two files: `input.txt`, the position the runner writes
//! for the bot to move in, and `order.txt`, the bot's answer.
//!
//! `input.txt` is 8 lines: the side to move (`M` or `F`) and the dominoes
//! left of each colour in the order R B G Y (`F5632`), then the board, row 1
//! first, columns A-G: `R` `B` `G` `Y` played squares, `X` the centre, `x`
//! an empty square next to the opponent's last domino, `.` an empty square.
//!
//! Reading is lenient, as the judge protocol is: each problem is one note,
//! and the position is read as far as it can be, so that the bot still
//! answers with a legal order whenever one exists.

use super::rules::{Colour, Position, Side, CENTRE, PER_COLOUR};

/// The text of `input.txt` for `position`.
#[must_use]
pub fn input_text(position: &Position) -> String {
    let mut text = String::new();
    text.push(position.to_move.letter());
    for n in position.stock {
        text.push(char::from(b'0' + n));
    }
    text.push('\n');
    for row in 0..7 {
        for col in 0..7 {
            let bit = 1u64 << (row * 7 + col);
            let c = if bit & CENTRE != 0 {
                'X'
            } else if let Some(colour) = Colour::ALL
                .into_iter()
                .find(|&c| position.colours[c as usize] & bit != 0)
            {
                colour.letter()
            } else if position.forbidden & bit != 0 {
                'x'
            } else {
                '.'
            };
            text.push(c);
        }
        text.push('\n');
    }
    text
}

/// Reads `input.txt`: the position, and a note for each problem found.
#[must_use]
pub fn read_input(text: &str) -> (Position, Vec<String>) {
    let mut notes = Vec::new();
    let mut lines = text.lines();
    let first = lines.next().unwrap_or("").trim();
    let mut position = Position::start();
    // The board first: the counts and the side can be checked against it.
    let mut rows = 0;
    for (row, line) in lines.take(7).enumerate() {
        rows += 1;
        let cells: Vec<char> = line.trim_end().chars().collect();
        if cells.len() != 7 {
            notes.push(format!(
                "board row {} has {} characters, not 7: read as far as it goes",
                row + 1,
                cells.len()
            ));
        }
        for (col, &c) in cells.iter().take(7).enumerate() {
            let bit = 1u64 << (row * 7 + col);
            match c {
                _ if bit & CENTRE != 0 => {
                    if c != 'X' {
                        notes.push(format!(
                            "the centre D4 is {c:?}, not 'X': it is blocked all the same"
                        ));
                    }
                }
                'x' => position.forbidden |= bit,
                '.' => {}
                _ => match Colour::from_letter(c) {
                    Some(colour) => position.colours[colour as usize] |= bit,
                    None => notes.push(format!(
                        "row {} column {}: {c:?} is not one of R B G Y X x .: read as empty",
                        row + 1,
                        (b'A' + col as u8) as char
                    )),
                },
            }
        }
    }
    if rows < 7 {
        notes.push(format!(
            "the board has {rows} rows, not 7: the rest read as empty"
        ));
    }
    // Dominoes of each colour on the board, from the squares.
    let played: Vec<u8> = position
        .colours
        .iter()
        .map(|c| (c.count_ones() / 2) as u8)
        .collect();
    let mut chars = first.chars();
    position.to_move = match chars.next() {
        Some('M' | 'm') => Side::More,
        Some('F' | 'f') => Side::Fewer,
        other => {
            // Without skips, More moves when an even number is down.
            let down: u8 = played.iter().sum();
            let side = if down.is_multiple_of(2) {
                Side::More
            } else {
                Side::Fewer
            };
            notes.push(format!(
                "the first line should start with M or F, not {:?}: playing {side:?}, as {down} dominoes are down",
                other.map_or(String::new(), String::from)
            ));
            side
        }
    };
    let counts: Vec<char> = chars.collect();
    for colour in Colour::ALL {
        let i = colour as usize;
        let from_board = PER_COLOUR.saturating_sub(played[i]);
        let given = counts.get(i).and_then(|c| c.to_digit(10)).map(|d| d as u8);
        position.stock[i] = match given {
            Some(n) if n <= PER_COLOUR => n,
            _ => {
                notes.push(format!(
                    "no count of {} left in {first:?}{}: taking {from_board} from the board",
                    colour.letter(),
                    given.map_or(String::new(), |n| format!(" ({n} is over {PER_COLOUR})"))
                ));
                from_board
            }
        };
    }
    if counts.len() > 4 {
        notes.push(format!(
            "{first:?} has more than four counts: the rest ignored"
        ));
    }
    (position, notes)
}

#[cfg(test)]
mod tests {
    use super::super::rules::{all_placements, Move, Placement};
    use super::*;

    #[test]
    fn the_start_file_is_the_seeds() {
        let text = input_text(&Position::start());
        assert_eq!(
            text,
            "M6666\n.......\n.......\n.......\n...X...\n.......\n.......\n.......\n"
        );
        let (read, notes) = read_input(&text);
        assert!(notes.is_empty(), "{notes:?}");
        assert_eq!(read, Position::start());
    }

    #[test]
    fn positions_of_random_games_read_back() {
        let placements = all_placements();
        let mut rng = fastrand::Rng::with_seed(7);
        for _ in 0..100 {
            let mut position = Position::start();
            loop {
                let (read, notes) = read_input(&input_text(&position));
                assert!(notes.is_empty(), "{notes:?}");
                assert_eq!(read, position);
                let moves = position.moves(&placements);
                if moves.is_empty() {
                    break;
                }
                position = position.play(moves[rng.usize(..moves.len())]);
            }
        }
    }

    #[test]
    fn a_bad_file_is_read_as_far_as_it_goes() {
        // the seed's second example: More's domino on B4 C4 (here red)
        let text = "F56x6\n.......\n.......\n.xx....\nxRRX...\n.x?....\n...\n";
        let (position, notes) = read_input(text);
        assert_eq!(position.to_move, Side::Fewer);
        assert_eq!(
            position.stock,
            [5, 6, 6, 6],
            "the missing green count from the board"
        );
        let red = Placement::of_squares(22, 23).expect("B4C4");
        assert_eq!(position.colours[0], red.0);
        assert!(!position.is_legal(
            Move::Place(Colour::Blue, Placement::of_squares(8, 15).expect("B2B3")),
            &all_placements()
        ));
        for note in ["count of G", "'?'", "row 6 has 3", "6 rows"] {
            assert!(notes.iter().any(|n| n.contains(note)), "{note}: {notes:?}");
        }
        let (empty, notes) = read_input("");
        assert_eq!((empty.to_move, empty.stock), (Side::More, [6; 4]));
        assert!(!notes.is_empty());
    }
}
