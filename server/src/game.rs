//! A stored game's position and what a move does to it: the referee's
//! rules (`reversi match`) on the server's side. A move must be legal for
//! the side to move, a pass only where it has none; anything else, or a
//! move past the time limit, loses the game.

use crate::store::GameRow;
use reversi::records::ggf::{GgfGame, GgfMove};
use reversi_core::bitboard::{squares, Square};
use reversi_core::board::{Board, Color};

/// Where a stored game stands.
pub struct Position {
    pub board: Board,
    pub to_move: Color,
    /// The moves so far (plies, passes included).
    pub ply: usize,
}

impl Position {
    /// Replays `row`'s moves from the start. The store only ever holds
    /// moves this module accepted, so they replay.
    pub fn of(row: &GameRow) -> Result<Position, String> {
        let mut board = Board::start();
        let mut to_move = Color::Black;
        for (i, m) in row.moves.iter().enumerate() {
            board = match m.as_deref().map(Square::parse) {
                None if !board.has_moves() => board.pass(),
                Some(Some(sq)) if board.is_legal(sq) => board.play(sq),
                _ => {
                    return Err(format!(
                        "game {}: stored move {} does not replay",
                        row.id,
                        i + 1
                    ))
                }
            };
            to_move = to_move.other();
        }
        Ok(Position {
            board,
            to_move,
            ply: row.moves.len(),
        })
    }

    /// The legal moves' names (`["pass"]` when the side must pass).
    pub fn legal(&self) -> Vec<String> {
        if self.board.is_game_over() {
            return Vec::new();
        }
        if !self.board.has_moves() {
            return vec!["pass".into()];
        }
        squares(self.board.moves()).map(|s| s.to_string()).collect()
    }

    /// The board as 64 characters, as the viewer draws it.
    pub fn cells(&self) -> String {
        reversi::study::show::cells(&self.board, self.to_move)
    }

    /// The result when the game is over on the board: `black 40-24`,
    /// `white 33-31`, `draw 32-32` (discs as counted, empties not given).
    pub fn final_result(&self) -> Option<String> {
        if !self.board.is_game_over() {
            return None;
        }
        let (black, white) = self.board.colors(self.to_move);
        let (b, w) = (black.count_ones(), white.count_ones());
        let who = match b.cmp(&w) {
            std::cmp::Ordering::Greater => "black",
            std::cmp::Ordering::Less => "white",
            std::cmp::Ordering::Equal => "draw",
        };
        Some(format!("{who} {b}-{w}"))
    }
}

/// What a move sent by the side to move does.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Stored as `square` (`None` a pass); the game then ends with the
    /// ending given, if it does.
    Play {
        square: Option<String>,
        ending: Option<String>,
    },
    /// The mover loses: the ending to store.
    Forfeit(String),
}

/// Judges `text` (`d3`, `D3`, `pass`) sent by the side to move of
/// `position`, `elapsed_ms` after its turn was offered, with
/// `limit_ms` allowed. A text that is no move is quoted in the ending
/// when `quote` (a remote bot's own words), else only said to be none (a
/// hosted program's output is kept for its owner, not published).
pub fn judge(
    position: &Position,
    text: &str,
    elapsed_ms: i64,
    limit_ms: i64,
    quote: bool,
) -> Verdict {
    let mover = position.to_move.name();
    if elapsed_ms > limit_ms {
        return Verdict::Forfeit(format!(
            "{mover} forfeits: no move within {limit_ms} ms ({elapsed_ms} ms)"
        ));
    }
    let word = text.trim().to_ascii_lowercase();
    let board = position.board;
    let square = match word.as_str() {
        "pass" | "pa" if !board.has_moves() => None,
        "pass" | "pa" => {
            return Verdict::Forfeit(format!("{mover} forfeits: a pass with a move to play"))
        }
        w => match Square::parse(w) {
            Some(sq) if board.is_legal(sq) => Some(sq),
            Some(sq) => {
                return Verdict::Forfeit(format!("{mover} forfeits: {sq} is not legal"));
            }
            None if quote => {
                let shown: String = text
                    .chars()
                    .take(20)
                    .map(|c| if c.is_control() { '?' } else { c })
                    .collect();
                return Verdict::Forfeit(format!("{mover} forfeits: '{shown}' is not a move"));
            }
            None => return Verdict::Forfeit(format!("{mover} forfeits: its reply is not a move")),
        },
    };
    let next = Position {
        board: square.map_or_else(|| board.pass(), |sq| board.play(sq)),
        to_move: position.to_move.other(),
        ply: position.ply + 1,
    };
    Verdict::Play {
        square: square.map(|s| s.to_string()),
        ending: next.final_result(),
    }
}
/// Why a team may not send the next move of a stored game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotItsMove {
    /// The team plays neither side.
    NotAPlayer,
    /// The team's submitted program plays its side: the moves are the
    /// program's.
    ItsProgramPlays,
    /// The game is over, or the other side is to move.
    NotItsTurn,
}

impl NotItsMove {
    /// The reason, as the API and the GGS service say it.
    #[must_use]
    pub fn why(self) -> &'static str {
        match self {
            NotItsMove::NotAPlayer => "not a player of this game",
            NotItsMove::ItsProgramPlays => {
                "your submitted program plays this game: its moves are its own"
            }
            NotItsMove::NotItsTurn => "not your turn",
        }
    }
}

/// Whether `team` may send the next move of `row`, over HTTP or GGS: it
/// plays the game, no submitted program of its plays its side, and the
/// game goes on with its side to move.
pub fn may_move(row: &GameRow, team: &str) -> Result<(), NotItsMove> {
    if row.black != team && row.white != team {
        return Err(NotItsMove::NotAPlayer);
    }
    if row.programs[usize::from(row.black != team)].is_some() {
        return Err(NotItsMove::ItsProgramPlays);
    }
    // A pass is stored as a move, so the side to move alternates.
    let to_move = if row.moves.len().is_multiple_of(2) {
        &row.black
    } else {
        &row.white
    };
    if row.ending.is_some() || to_move != team {
        return Err(NotItsMove::NotItsTurn);
    }
    Ok(())
}

/// The stored game as GGF: the players, every move, the ending as a
/// comment and, when it ended on the board, `RE` (black's disc difference).
#[must_use]
pub fn ggf_of(row: &GameRow) -> GgfGame {
    let mut game = GgfGame::standard();
    game.set_tag("PC", "reversi-server");
    game.set_tag("PB", &row.black);
    game.set_tag("PW", &row.white);
    game.set_tag(
        "TI",
        &reversi::records::ggf::clock(row.move_time_ms.max(0) as u64),
    );
    for (i, m) in row.moves.iter().enumerate() {
        game.moves.push(GgfMove {
            color: if i.is_multiple_of(2) {
                Color::Black
            } else {
                Color::White
            },
            square: m.as_deref().and_then(Square::parse),
            eval: String::new(),
            time: String::new(),
        });
    }
    if let Some(ending) = &row.ending {
        game.set_tag("C", ending);
        if let Ok(positions) = game.positions() {
            let last = positions.last().expect("the start at least");
            if last.is_game_over() {
                let to_move = if row.moves.len().is_multiple_of(2) {
                    Color::Black
                } else {
                    Color::White
                };
                let (black, white) = last.colors(to_move);
                let diff = black.count_ones() as i32 - white.count_ones() as i32;
                game.set_tag("RE", &format!("{diff:+}"));
            }
        }
    }
    game
}
