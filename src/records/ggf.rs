//! GGF, the Generic Game Format of the Othello servers (GGS) and of NBoard,
//! Edax, NTest and Zebra's game files: `(;GM[Othello]...;)`, one game in
//! parentheses, several games a file (GGS writes a count before each, as
//! in `1 (;...;)`: text between games is skipped).
//!
//! The tags read and written: `GM` (the game), `PC` (the place), `DT`
//! (the date), `PB`/`PW` (the players), `RB`/`RW` (their ratings), `TI`
//! (the time control), `TY` (the type: `8` for the standard board), `RE`
//! (the result, black's disc difference), `BO` (the start: the board size,
//! 64 cells `-` `*` `O` row by row, then `*` or `O` to move), and the
//! moves `B[d3/eval/time]`, `W[...]`, a pass written `PA` (or `pass`).
//! Any other tag is kept as it was read, in its place among the tags.

use reversi_core::bitboard::Square;
use reversi_core::board::{Board, Color};
use std::fmt;

/// One move of a game: who, where (`None`: a pass), and the evaluation
/// and time written after it, as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GgfMove {
    pub color: Color,
    pub square: Option<Square>,
    pub eval: String,
    pub time: String,
}

/// One game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GgfGame {
    /// The tags other than `BO` and the moves, in the order read.
    pub tags: Vec<(String, String)>,
    /// The start position: discs by colour and the side to move.
    pub black: u64,
    pub white: u64,
    pub to_move: Color,
    pub moves: Vec<GgfMove>,
}

/// Why a GGF text was refused: the game (counted from 1) and the reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GgfError {
    pub game: usize,
    pub reason: String,
}

impl fmt::Display for GgfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "game {}: {}", self.game, self.reason)
    }
}

impl std::error::Error for GgfError {}

impl GgfGame {
    /// A game from the standard start, with no tags but `GM` and `TY`.
    #[must_use]
    pub fn standard() -> GgfGame {
        let start = Board::start();
        GgfGame {
            tags: vec![("GM".into(), "Othello".into()), ("TY".into(), "8".into())],
            // The board is the side to move's (black's) view at the start.
            black: start.player,
            white: start.opponent,
            to_move: Color::Black,
            moves: Vec::new(),
        }
    }

    /// The value of tag `name`, if the game has it.
    #[must_use]
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Sets tag `name` (in its place, or at the end).
    pub fn set_tag(&mut self, name: &str, value: &str) {
        match self.tags.iter_mut().find(|(n, _)| n == name) {
            Some(tag) => tag.1 = value.to_string(),
            None => self.tags.push((name.to_string(), value.to_string())),
        }
    }

    /// The start position, for the side to move.
    #[must_use]
    pub fn start(&self) -> Board {
        Board::from_colors(self.black, self.white, self.to_move)
    }

    /// Replays the moves with our rules: the position before each move and
    /// the final one, or the first move that is not legal (a pass only
    /// where the side has no move; a move by the wrong side).
    pub fn positions(&self) -> Result<Vec<Board>, String> {
        let mut board = self.start();
        let mut to_move = self.to_move;
        let mut boards = vec![board];
        for (i, m) in self.moves.iter().enumerate() {
            if m.color != to_move {
                return Err(format!(
                    "move {}: {} moved out of turn",
                    i + 1,
                    m.color.name()
                ));
            }
            board = match m.square {
                None if !board.has_moves() => board.pass(),
                None => return Err(format!("move {}: a pass with a move to play", i + 1)),
                Some(sq) if board.is_legal(sq) => board.play(sq),
                Some(sq) => return Err(format!("move {}: {sq} is not legal", i + 1)),
            };
            to_move = to_move.other();
            boards.push(board);
        }
        Ok(boards)
    }

    /// The game as GGF text, one line: what [`parse`] reads back.
    #[must_use]
    pub fn render(&self) -> String {
        let mut out = String::from("(;");
        for (name, value) in &self.tags {
            out.push_str(&format!("{name}[{}]", escape(value)));
        }
        out.push_str("BO[8");
        for row in 0..8 {
            out.push(' ');
            for file in 0..8 {
                let bit = 1u64 << (row * 8 + file);
                out.push(if self.black & bit != 0 {
                    '*'
                } else if self.white & bit != 0 {
                    'O'
                } else {
                    '-'
                });
            }
        }
        out.push_str(if self.to_move == Color::Black {
            " *]"
        } else {
            " O]"
        });
        for m in &self.moves {
            let square = m.square.map_or("PA".to_string(), |s| s.to_string());
            let side = if m.color == Color::Black { 'B' } else { 'W' };
            if m.eval.is_empty() && m.time.is_empty() {
                out.push_str(&format!("{side}[{square}]"));
            } else {
                out.push_str(&format!("{side}[{square}/{}/{}]", m.eval, m.time));
            }
        }
        out.push_str(";)");
        out
    }
}

/// A time limit as GGS writes a clock (`TI`): `M:SS`, with `.mmm` where
/// it has milliseconds (`0:01` for a second, `0:00.850`).
#[must_use]
pub fn clock(ms: u64) -> String {
    let (minutes, seconds, rest) = (ms / 60_000, ms / 1000 % 60, ms % 1000);
    if rest == 0 {
        format!("{minutes}:{seconds:02}")
    } else {
        format!("{minutes}:{seconds:02}.{rest:03}")
    }
}

/// A moment as GGS dates a game (`DT`), in UTC: `2026.11.27_02:49:15.UTC`.
#[must_use]
pub fn date(at: std::time::SystemTime) -> String {
    let secs = at
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rest) = (secs / 86_400, secs % 86_400);
    // The civil date of a day count from 1970-01-01 (Howard Hinnant's
    // algorithm, in whole eras of 400 years).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year}.{month:02}.{day:02}_{:02}:{:02}:{:02}.UTC",
        rest / 3600,
        rest / 60 % 60,
        rest % 60
    )
}

/// `]` and `\` escaped with a backslash, as GGF writes them in a value.
fn escape(value: &str) -> String {
    value.replace('\\', "\\\\").replace(']', "\\]")
}

/// Every game of a GGF text, in order.
pub fn parse(text: &str) -> Result<Vec<GgfGame>, GgfError> {
    let mut games = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("(;") {
        let number = games.len() + 1;
        let error = |reason: String| GgfError {
            game: number,
            reason,
        };
        let (game, after) = parse_game(&rest[start + 2..]).map_err(error)?;
        games.push(game);
        rest = after;
    }
    Ok(games)
}

/// One game after its `(;`, and the text after its `;)`.
fn parse_game(text: &str) -> Result<(GgfGame, &str), String> {
    let mut tags = Vec::new();
    let mut board: Option<(u64, u64, Color)> = None;
    let mut moves = Vec::new();
    let mut rest = text.trim_start();
    loop {
        if let Some(after) = rest.strip_prefix(";)") {
            let (black, white, to_move) = board.ok_or("no BO[...] start position")?;
            let game = GgfGame {
                tags,
                black,
                white,
                to_move,
                moves,
            };
            return Ok((game, after));
        }
        let open = rest.find('[').ok_or("the game does not end with ;)")?;
        let name = rest[..open].trim();
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_uppercase()) {
            return Err(format!(
                "'{}' is not a tag",
                name.chars().take(20).collect::<String>()
            ));
        }
        let (value, after) = value(&rest[open + 1..]).ok_or(format!("{name}[ is never closed"))?;
        match name {
            "BO" => board = Some(parse_board(&value)?),
            "B" | "W" => {
                let color = if name == "B" {
                    Color::Black
                } else {
                    Color::White
                };
                moves.push(parse_move(color, &value)?);
            }
            _ => tags.push((name.to_string(), value)),
        }
        rest = after.trim_start();
    }
}

/// A tag's value up to its closing `]` (with `\]` and `\\` unescaped), and
/// the text after it.
fn value(text: &str) -> Option<(String, &str)> {
    let mut out = String::new();
    let mut chars = text.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            ']' => return Some((out, &text[i + 1..])),
            '\\' => out.push(chars.next()?.1),
            c => out.push(c),
        }
    }
    None
}

/// `8 -------- ... *`: the discs and the side to move.
fn parse_board(value: &str) -> Result<(u64, u64, Color), String> {
    let mut words = value.split_whitespace();
    if words.next() != Some("8") {
        return Err("BO: only the 8x8 board is played".into());
    }
    let cells: String = words.clone().take_while(|w| w.len() > 1).collect();
    let side = words.last().ok_or("BO: no side to move")?;
    if cells.chars().count() != 64 {
        return Err(format!("BO: {} cells, not 64", cells.chars().count()));
    }
    let (mut black, mut white) = (0u64, 0u64);
    // GGF's own signs only: `*` black, `O` white, `-` empty. An `X` is
    // black in some formats and white in none, but in GGF it is nothing,
    // and a guess at the side to move would replay the game wrongly.
    for (i, c) in cells.chars().enumerate() {
        match c {
            '*' => black |= 1 << i,
            'O' => white |= 1 << i,
            '-' => {}
            other => {
                return Err(format!(
                    "BO: '{other}' is not a GGF cell ('*' black, 'O' white, '-' empty)"
                ))
            }
        }
    }
    let to_move = match side {
        "*" => Color::Black,
        "O" => Color::White,
        other => {
            return Err(format!(
                "BO: '{other}' is not a GGF side to move ('*' black, 'O' white)"
            ))
        }
    };
    Ok((black, white, to_move))
}

/// `d3`, `d3/eval/time`, `PA`, `pass`.
fn parse_move(color: Color, value: &str) -> Result<GgfMove, String> {
    let mut parts = value.splitn(3, '/');
    let place = parts.next().unwrap_or("").trim();
    let square = if place.eq_ignore_ascii_case("pa") || place.eq_ignore_ascii_case("pass") {
        None
    } else {
        Some(Square::parse(place).ok_or(format!("'{place}' is not a move"))?)
    };
    Ok(GgfMove {
        color,
        square,
        eval: parts.next().unwrap_or("").to_string(),
        time: parts.next().unwrap_or("").to_string(),
    })
}

#[cfg(test)]
mod tests {

    #[test]
    fn dates_and_clocks_are_written_as_ggs_writes_them() {
        use std::time::{Duration, UNIX_EPOCH};
        let at = |secs: u64| date(UNIX_EPOCH + Duration::from_secs(secs));
        assert_eq!(at(0), "1970.01.01_00:00:00.UTC");
        assert_eq!(at(951_782_400), "2000.02.29_00:00:00.UTC");
        assert_eq!(at(1_795_747_755), "2026.11.27_02:49:15.UTC");
        assert_eq!(at(4_102_444_799), "2099.12.31_23:59:59.UTC");
        assert_eq!(clock(1000), "0:01");
        assert_eq!(clock(90_000), "1:30");
        assert_eq!(clock(850), "0:00.850");
    }

    use super::*;

    #[test]
    fn a_game_reads_and_writes_back() {
        let text = "1 (;GM[Othello]PB[a\\]b]TY[8]RE[+2.000]BO[8 -------- -------- -------- ---O*--- ---*O--- -------- -------- -------- *]B[d3//0.01]W[c5/1.5/2.0]B[PA];)";
        let games = parse(text).unwrap();
        assert_eq!(games.len(), 1);
        let g = &games[0];
        assert_eq!(g.tag("PB"), Some("a]b"));
        assert_eq!(g.start(), Board::start());
        assert_eq!(g.moves[1].eval, "1.5");
        assert_eq!(g.moves[2].square, None);
        assert_eq!(parse(&g.render()).unwrap(), games);
        // The pass is not legal here: black has moves after c5.
        assert!(g.positions().unwrap_err().contains("move 3"));
    }

    #[test]
    fn damaged_games_are_refused_with_the_game_and_the_reason() {
        for (text, reason) in [
            ("(;GM[Othello]B[d3];)", "no BO"),
            ("(;GM[Othello]BO[8 --- *]", "64"),
            ("(;GM[Othello", "never closed"),
            ("(;BO[8 -------- -------- -------- ---O*--- ---*O--- -------- -------- -------- *]B[z9];)", "not a move"),
        ] {
            let error = parse(text).unwrap_err();
            assert_eq!(error.game, 1);
            assert!(error.reason.contains(reason), "{text}: {error}");
        }
    }
}
