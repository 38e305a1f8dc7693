//! What the GGS service writes: the `/os` messages as the engines' GGS
//! clients read them. There is no written GGS specification; these follow
//! what the clients parse (Edax's `src/ggs.c` for the board form, NTest's
//! `src/odk` for the GGF form), line for line.
//!
//! Every line starts with `/os:`, `:` or `|`: never with a team's name,
//! so that no client takes a line for a message from one of its admins.

use crate::store::GameRow;
use reversi::records::ggf::GgfGame;
use reversi_core::bitboard::Square;
use reversi_core::board::{Board, Color};

/// The game's id as GGS writes it.
pub fn id(game: i64) -> String {
    format!(".{game}")
}

/// A time as GGS writes a clock (see [`reversi::records::ggf::clock`]).
pub fn clock(ms: i64) -> String {
    reversi::records::ggf::clock(ms.max(0) as u64)
}

/// A move as GGS writes it: the square in capitals, `PA` a pass.
pub fn move_name(square: Option<&str>) -> String {
    square.map_or_else(|| "PA".to_string(), str::to_ascii_uppercase)
}

/// `/os: + match` (or `-`): the match's id, each player's rating and
/// name, black first, the board type and `U` (unrated).
pub fn match_line(row: &GameRow, on: bool) -> String {
    format!(
        "/os: {} match {} 1500.0 {} 1500.0 {} 8 U",
        if on { '+' } else { '-' },
        id(row.id),
        row.black,
        row.white
    )
}

/// `/os: end`: the game's result for black (discs, or the loser's
/// forfeit as -64/+64).
pub fn end_line(row: &GameRow, black_net: i32) -> String {
    format!(
        "/os: end {} ( {} vs. {} ) {black_net:+}.00",
        id(row.id),
        row.black,
        row.white
    )
}

/// The positions of `row`: the start and after each ply, with the side
/// to move.
pub fn positions(row: &GameRow) -> Vec<(Board, Color)> {
    let mut board = Board::start();
    let mut to_move = Color::Black;
    let mut out = vec![(board, to_move)];
    for m in &row.moves {
        board = match m.as_deref().and_then(Square::parse) {
            Some(sq) if board.is_legal(sq) => board.play(sq),
            _ => board.pass(),
        };
        to_move = to_move.other();
        out.push((board, to_move));
    }
    out
}

fn cell(c: char) -> char {
    match c {
        'b' => '*',
        'w' => 'O',
        _ => '-',
    }
}

fn color_char(color: Color) -> char {
    if color == Color::Black {
        '*'
    } else {
        'O'
    }
}

/// The board and the side to move, as the board form's 8 rows, with the
/// lines around them.
fn board_lines(out: &mut Vec<String>, board: &Board, to_move: Color, before: usize) {
    for _ in 0..before {
        out.push("|".into());
    }
    out.push("|    A B C D E F G H".into());
    let cells: Vec<char> = reversi::study::show::cells(board, to_move)
        .chars()
        .collect();
    for row in 0..8 {
        let mut line = format!("| {} ", row + 1);
        for col in 0..8 {
            line.push(cell(cells[row * 8 + col]));
            line.push(' ');
        }
        line.push_str(&(row + 1).to_string());
        out.push(line);
    }
    out.push("|    A B C D E F G H".into());
    out.push("|".into());
    out.push(format!("|{} to move", color_char(to_move)));
}

/// The players' lines: name, rating, colour, the clock of the move.
fn player_lines(out: &mut Vec<String>, row: &GameRow) {
    let time = clock(row.move_time_ms);
    out.push(format!("|{} (1500.0) * {time}//0:00", row.black));
    out.push(format!("|{} (1500.0) O {time}//0:00", row.white));
}

/// The line of ply `n` (from 1): its number and move.
fn move_line(n: usize, square: Option<&str>) -> String {
    format!("|{n:3}: {}", move_name(square))
}

/// `/os: join` in the board form: the start, every move, then the game
/// as it stands.
pub fn join_board(row: &GameRow) -> String {
    let all = positions(row);
    let (now, to_move) = *all.last().expect("the start at least");
    let mut out = vec![format!("/os: join {} 8 K?", id(row.id))];
    out.push(format!("|{} move(s)", row.moves.len()));
    if row.moves.is_empty() {
        out.push(move_line(0, None));
    } else {
        // Four lines, the start's board, then the moves: the last move's
        // line is also the first of the game as it stands.
        let (start, first) = all[0];
        board_lines(&mut out, &start, first, 3);
        for (i, m) in row.moves.iter().enumerate() {
            out.push(move_line(i + 1, m.as_deref()));
        }
    }
    player_lines(&mut out, row);
    board_lines(&mut out, &now, to_move, 1);
    out.join("\n")
}

/// `/os: update` in the board form, after the last move of `row`.
pub fn update_board(row: &GameRow) -> String {
    let all = positions(row);
    let (now, to_move) = *all.last().expect("the start at least");
    let n = row.moves.len();
    let last = row.moves.last().and_then(|m| m.as_deref());
    let mut out = vec![format!("/os: update {} 8 K?", id(row.id))];
    out.push(move_line(n, last));
    player_lines(&mut out, row);
    board_lines(&mut out, &now, to_move, 1);
    out.join("\n")
}

/// `/os: join` in the GGF form (`client +`): the game so far as a GGF
/// record on one line.
pub fn join_ggf(row: &GameRow) -> String {
    let game: GgfGame = crate::game::ggf_of(row);
    format!(
        "/os: join {} {}",
        id(row.id),
        game.render().replace('\n', "")
    )
}

/// `/os: update` in the GGF form: the last move.
pub fn update_ggf(row: &GameRow) -> String {
    let last = row.moves.last().and_then(|m| m.as_deref());
    format!("/os: update {} {}", id(row.id), move_name(last))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(moves: &[Option<&str>]) -> GameRow {
        GameRow {
            id: 7,
            black: "edax".into(),
            white: "ours".into(),
            move_time_ms: 1000,
            turn_since_ms: 0,
            moves: moves.iter().map(|m| m.map(str::to_string)).collect(),
            ending: None,
            forfeit: None,
            contest: None,
            opening_plies: 0,
            programs: [None, None],
            setup_ms: 0,
            setup_until_ms: [None, None],
        }
    }

    #[test]
    fn clocks_are_written_as_ggs_does() {
        assert_eq!(clock(1000), "0:01");
        assert_eq!(clock(90_000), "1:30");
        assert_eq!(clock(850), "0:00.850");
    }

    /// The lines where Edax's parser (`ggs_board` in its `src/ggs.c`)
    /// looks: the move list's count on line 1, the board's rows with their
    /// squares at columns 4, 6, ..., the side to move at column 1 of the
    /// row three after the last board row, at least 17 lines.
    #[test]
    fn the_board_form_puts_each_thing_where_edax_reads_it() {
        let start = join_board(&row(&[]));
        let lines: Vec<&str> = start.lines().collect();
        assert!(lines.len() >= 17, "{start}");
        assert_eq!(lines[0], "/os: join .7 8 K?");
        assert_eq!(lines[1], "|0 move(s)");
        // ii = 2: the players on 3 and 4, the rows on 7..=14, the side
        // to move on 17.
        assert!(lines[3].starts_with("|edax (1500.0) * 0:01"), "{start}");
        assert!(lines[4].starts_with("|ours (1500.0) O 0:01"), "{start}");
        let row4: Vec<char> = lines[10].chars().collect();
        assert_eq!((row4[4 + 3 * 2], row4[4 + 4 * 2]), ('O', '*'), "{start}");
        assert_eq!(lines[17].chars().nth(1), Some('*'), "{start}");

        let two = join_board(&row(&[Some("d3"), Some("c5")]));
        let lines: Vec<&str> = two.lines().collect();
        assert_eq!(lines[1], "|2 move(s)");
        // The start's rows on 6..=13, its side on 16, the moves from 17
        // with the square at column 6.
        assert_eq!(lines[16].chars().nth(1), Some('*'));
        assert_eq!(&lines[17][6..8], "D3");
        assert_eq!(&lines[18][6..8], "C5");
        // The game as it stands, from the last move's line (18): players
        // 19 and 20, rows 23..=30, the side to move on 33.
        assert!(lines[19].starts_with("|edax"), "{two}");
        assert_eq!(lines[33].chars().nth(1), Some('*'), "{two}");
        assert!(lines.len() >= 2 + 30, "{two}");

        let update = update_board(&row(&[Some("d3")]));
        let lines: Vec<&str> = update.lines().collect();
        assert_eq!(lines.len(), 17, "{update}");
        assert_eq!(lines[1], "|  1: D3");
        assert_eq!(lines[16], "|O to move");
        let row3: Vec<char> = lines[8].chars().collect();
        assert_eq!(row3[4 + 3 * 2], '*', "d3 is black's: {update}");
    }

    #[test]
    fn the_ggf_form_is_one_line_a_ggf_reader_takes() {
        let join = join_ggf(&row(&[Some("d3"), None]));
        assert!(!join.contains('\n'));
        let record = join.strip_prefix("/os: join .7 ").unwrap();
        let game = reversi::records::ggf::parse(record).unwrap().remove(0);
        assert_eq!(game.tag("PB"), Some("edax"));
        assert_eq!(game.tag("TI"), Some("0:01"));
        assert_eq!(game.moves.len(), 2);
        assert_eq!(update_ggf(&row(&[Some("d3"), None])), "/os: update .7 PA");
    }
}
