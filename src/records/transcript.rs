//! Recorded judge sessions (replayed against a program by
//! `crate::arena::replay`).
//!
//! Format, one entry a line (UTF-8 text):
//! - `> TEXT` a line sent to the program, `< TEXT` a line it replied;
//! - `# key: value` a header (`args` gives the flags to replay our own bot
//!   with; `exact: yes` asks for byte-for-byte replies), `#` alone or
//!   followed by other text a comment; blank lines are ignored.
//!
//! TEXT is escaped so that any byte a judge might send survives: `\\`, `\r`,
//! `\t`, `\n` and `\xHH` for other control characters.

pub use reversi_core::protocol::escape;
use reversi_core::protocol::MoveReply;
use std::fmt::Write as _;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// `>`: to the program.
    Sent,
    /// `<`: from the program.
    Received,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub direction: Direction,
    /// Unescaped.
    pub text: String,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Transcript {
    pub headers: Vec<(String, String)>,
    pub entries: Vec<Entry>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TranscriptError {
    pub line: usize,
    pub reason: String,
}

impl std::fmt::Display for TranscriptError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "transcript line {}: {}", self.line, self.reason)
    }
}

impl std::error::Error for TranscriptError {}

pub fn unescape(text: &str) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('\\') => out.push('\\'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('x') => {
                let hex: String = chars.by_ref().take(2).collect();
                let code =
                    u8::from_str_radix(&hex, 16).map_err(|_| format!("bad escape \\x{hex}"))?;
                out.push(code as char);
            }
            other => {
                return Err(format!(
                    "bad escape \\{}",
                    other.map_or(String::new(), String::from)
                ))
            }
        }
    }
    Ok(out)
}

impl Transcript {
    pub fn parse(text: &str) -> Result<Transcript, TranscriptError> {
        let mut t = Transcript::default();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.trim_end_matches('\r');
            let error = |reason: String| TranscriptError {
                line: i + 1,
                reason,
            };
            if line.trim().is_empty() {
                continue;
            }
            if let Some(rest) = line.strip_prefix('#') {
                if let Some((key, value)) = rest.split_once(':') {
                    let key = key.trim();
                    if !key.is_empty() && !key.contains(' ') {
                        t.headers.push((key.to_string(), value.trim().to_string()));
                    }
                }
                continue;
            }
            let (direction, rest) = if let Some(rest) = line.strip_prefix('>') {
                (Direction::Sent, rest)
            } else if let Some(rest) = line.strip_prefix('<') {
                (Direction::Received, rest)
            } else {
                return Err(error("expected '>', '<' or '#' at the start".into()));
            };
            let rest = rest.strip_prefix(' ').unwrap_or(rest);
            let text = unescape(rest).map_err(error)?;
            t.entries.push(Entry { direction, text });
        }
        Ok(t)
    }

    #[must_use]
    pub fn header(&self, key: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    pub fn push(&mut self, direction: Direction, text: &str) {
        self.entries.push(Entry {
            direction,
            text: text.to_string(),
        });
    }

    #[must_use]
    pub fn render(&self) -> String {
        let mut out = String::new();
        for (k, v) in &self.headers {
            let _ = writeln!(out, "# {k}: {v}");
        }
        for e in &self.entries {
            let mark = match e.direction {
                Direction::Sent => '>',
                Direction::Received => '<',
            };
            let _ = writeln!(out, "{mark} {}", escape(&e.text));
        }
        out
    }
}

/// A judge session that asks for the move in each position of `game`
/// where a side in `sides` is to move: each position set up afresh
/// (`START`, its discs placed, `DONE`, `BEGIN`), the recorded move written
/// as the reply due. Replayed, it checks a program's reply in every such
/// position (with `exact`, that it is the recorded one).
pub fn from_game(
    game: &crate::records::ggf::GgfGame,
    sides: &[reversi_core::board::Color],
) -> Result<Transcript, String> {
    use reversi_core::bitboard::squares;
    use reversi_core::protocol::{Command, Owner};
    let positions = game.positions()?;
    let mut t = Transcript::default();
    let mut to_move = game.to_move;
    for (board, played) in positions.iter().zip(&game.moves) {
        if sides.contains(&to_move) {
            t.push(Direction::Sent, &Command::Start.to_string());
            for (discs, owner) in [(board.player, Owner::Mine), (board.opponent, Owner::Theirs)] {
                for sq in squares(discs) {
                    t.push(Direction::Sent, &Command::Place(sq, owner).to_string());
                }
            }
            t.push(Direction::Sent, &Command::Done.to_string());
            t.push(Direction::Received, "OK");
            t.push(Direction::Sent, &Command::Begin.to_string());
            let reply = played.square.map_or(MoveReply::Pass, MoveReply::Play);
            t.push(Direction::Received, &reply.to_string());
        }
        to_move = to_move.other();
    }
    t.push(Direction::Sent, &Command::End.to_string());
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_round_trip() {
        let raw = "TURN\td 3\r\\ \u{1}";
        assert_eq!(unescape(&escape(raw)).unwrap(), raw);
        assert!(unescape("\\q").is_err());
    }

    #[test]
    fn parses_and_renders() {
        let text = "# args: --depth 2\n# a comment\n> START\n> DONE\n< OK\n\n>\n";
        let t = Transcript::parse(text).unwrap();
        assert_eq!(t.header("args"), Some("--depth 2"));
        assert_eq!(t.entries.len(), 4);
        assert_eq!(t.entries[3].text, "");
        assert_eq!(Transcript::parse(&t.render()).unwrap(), t);
        assert!(Transcript::parse("START\n").is_err());
    }
}
