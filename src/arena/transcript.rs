//! Recorded judge sessions, and replaying them against a program.
//!
//! Format, one entry a line (UTF-8 text):
//! - `> TEXT` a line sent to the program, `< TEXT` a line it replied;
//! - `# key: value` a header (`args` gives the flags to replay our own bot
//!   with; `exact: yes` asks for byte-for-byte replies), `#` alone or
//!   followed by other text a comment; blank lines are ignored.
//!
//! TEXT is escaped so that any byte a judge might send survives: `\\`, `\r`,
//! `\t`, `\n` and `\xHH` for other control characters.

use crate::arena::program::{Failure, Program, EXIT_LIMIT, EXTRA_LINES_KEPT, SETUP_LIMIT};
pub use reversi_core::protocol::escape;
use reversi_core::protocol::{parse, MoveReply, Reply, Session};
use std::fmt::Write as _;
use std::time::Duration;

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
    game: &crate::ggf::GgfGame,
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

/// One problem found in a replay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// The index in the transcript's entries of the line sent.
    pub entry: usize,
    pub text: String,
}

#[derive(Clone, Debug, Default)]
pub struct ReplayReport {
    pub problems: Vec<Problem>,
    /// Every reply received, in order, with its time.
    pub replies: Vec<(String, Duration)>,
    pub exit_ok: bool,
    /// The lines sent and the replies received, as they happened.
    pub transcript: Transcript,
}

impl ReplayReport {
    /// A line per problem, then `PATH: N replies, slowest T ms, K
    /// problem(s)`.
    #[must_use]
    pub fn summary(&self, path: &str) -> String {
        let mut out = String::new();
        for p in &self.problems {
            let _ = writeln!(out, "{path}: entry {}: {}", p.entry + 1, p.text);
        }
        let _ = writeln!(
            out,
            "{path}: {} replies, slowest {} ms, {} problem(s)",
            self.replies.len(),
            self.slowest().as_millis(),
            self.problems.len()
        );
        out
    }

    #[must_use]
    pub fn slowest(&self) -> Duration {
        self.replies.iter().map(|r| r.1).max().unwrap_or_default()
    }
}

/// Feeds the transcript's sent lines to `command`, one at a time, and checks
/// each reply: that one comes within `limit` when the protocol calls for one,
/// that it is legal in the position the lines describe, that nothing else is
/// written, that the program exits with status 0 at the end; and, with
/// `exact`, that each reply is the recorded one byte for byte.
pub fn replay(
    command: &str,
    transcript: &Transcript,
    limit: Duration,
    exact: bool,
) -> ReplayReport {
    let mut report = ReplayReport::default();
    let mut program = match Program::spawn_with_limit(command, None, Some(limit)) {
        Ok(p) => p,
        Err(e) => {
            report.problems.push(Problem {
                entry: 0,
                text: format!("could not start '{command}': {e}"),
            });
            return report;
        }
    };
    let mut tracker = Session::new();
    let problem = |entry: usize, text: String| Problem { entry, text };
    let entries = &transcript.entries;
    let mut ended = false;
    for (i, entry) in entries.iter().enumerate() {
        if entry.direction != Direction::Sent {
            continue;
        }
        let recorded: Vec<&str> = entries[i + 1..]
            .iter()
            .take_while(|e| e.direction == Direction::Received)
            .map(|e| e.text.as_str())
            .collect();
        if let Some(unasked) = program.unasked() {
            report.transcript.push(Direction::Received, &unasked);
            report.problems.push(problem(
                i,
                format!(
                    "before '{}': {}",
                    escape(&entry.text),
                    Failure::Unasked(unasked)
                ),
            ));
        }
        if exact && recorded.len() > 1 {
            report.problems.push(problem(
                i,
                format!(
                    "the transcript records {} replies to '{}'; one at most is due",
                    recorded.len(),
                    escape(&entry.text)
                ),
            ));
        }
        report.transcript.push(Direction::Sent, &entry.text);
        let sent = match program.send(&entry.text) {
            Ok(at) => at,
            Err(f) => {
                report.problems.push(problem(i, format!("program {f}")));
                break;
            }
        };
        let due = tracker.apply_parsed(&parse(&entry.text).0);
        if due == Reply::Exit {
            ended = true;
            break;
        }
        if due == Reply::Nothing {
            if !recorded.is_empty() && exact {
                report.problems.push(problem(
                    i,
                    "transcript records a reply where none is due".into(),
                ));
            }
            continue;
        }
        let limit = if due == Reply::Ok { SETUP_LIMIT } else { limit };
        let (reply, took) = match program.receive(sent, limit) {
            Ok(r) => r,
            Err(f @ Failure::Late(_)) => {
                report
                    .problems
                    .push(problem(i, format!("after '{}': {f}", escape(&entry.text))));
                break;
            }
            Err(f) => {
                report.problems.push(problem(
                    i,
                    format!("after '{}': program {f}", escape(&entry.text)),
                ));
                break;
            }
        };
        report.replies.push((reply.clone(), took));
        report.transcript.push(Direction::Received, &reply);
        match due {
            Reply::Ok if reply != "OK" => {
                report
                    .problems
                    .push(problem(i, format!("expected OK, got '{}'", escape(&reply))));
            }
            Reply::Move => match MoveReply::parse(&reply, &tracker.board()) {
                Ok(MoveReply::Play(sq)) => tracker.own_move(sq),
                Ok(MoveReply::Pass) => {}
                Err(why) => report
                    .problems
                    .push(problem(i, format!("illegal reply: {why}"))),
            },
            _ => {}
        }
        if exact && recorded.first() != Some(&reply.as_str()) {
            report.problems.push(problem(
                i,
                format!(
                    "reply '{}' differs from the recorded '{}'",
                    escape(&reply),
                    recorded.first().map_or("(none)".to_string(), |r| escape(r))
                ),
            ));
        }
    }
    if !ended {
        program.close_input();
    }
    let extra = program.drain(EXIT_LIMIT, EXTRA_LINES_KEPT);
    for line in extra {
        report.problems.push(problem(
            entries.len(),
            format!("after the last line: {}", Failure::Unasked(line)),
        ));
    }
    match program.finish(EXIT_LIMIT) {
        Some(status) if status.success() => report.exit_ok = true,
        Some(status) => report
            .problems
            .push(problem(entries.len(), format!("exited with {status}"))),
        None => report.problems.push(problem(
            entries.len(),
            format!(
                "did not exit within {} ms of the end; killed",
                EXIT_LIMIT.as_millis()
            ),
        )),
    }
    report
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
