//! What the GGS service writes: the `/os` messages as the engines' GGS
//! clients read them. There is no written GGS specification; these follow
//! what the clients parse (Edax's `src/ggs.c` for the board form, NTest's
//! `src/odk` for the GGF form), line for line.
//!
//! Every line starts with `/os:`, `:` or `|`: never with a team's name,
//! so that no client takes a line for a message from one of its admins.

use crate::store::GameRow;
use reversi::records::ggf::GgfGame;
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

/// The game as it stands, with the side to move. The store holds only
/// moves the referee accepted, so they replay; a record that did not would
/// be shown from the start rather than not at all.
fn now(row: &GameRow) -> (Board, Color) {
    crate::game::Position::of(row).map_or((Board::start(), Color::Black), |p| (p.board, p.to_move))
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
    let (board, to_move) = now(row);
    let mut out = vec![format!("/os: join {} 8 K?", id(row.id))];
    out.push(format!("|{} move(s)", row.moves.len()));
    if row.moves.is_empty() {
        out.push(move_line(0, None));
    } else {
        // Four lines, the start's board, then the moves: the last move's
        // line is also the first of the game as it stands.
        board_lines(&mut out, &Board::start(), Color::Black, 3);
        for (i, m) in row.moves.iter().enumerate() {
            out.push(move_line(i + 1, m.as_deref()));
        }
    }
    player_lines(&mut out, row);
    board_lines(&mut out, &board, to_move, 1);
    out.join("\n")
}

/// `/os: update` in the board form, after the last move of `row`.
pub fn update_board(row: &GameRow) -> String {
    let (board, to_move) = now(row);
    let n = row.moves.len();
    let last = row.moves.last().and_then(|m| m.as_deref());
    let mut out = vec![format!("/os: update {} 8 K?", id(row.id))];
    out.push(move_line(n, last));
    player_lines(&mut out, row);
    board_lines(&mut out, &board, to_move, 1);
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
