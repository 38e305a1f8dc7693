//! `reversi bridge --gtp CMD` and `--nboard CMD`: a judge-protocol
//! program made of a GTP or NBoard engine, so that the referee plays any
//! engine (Edax, Egaroucid, NTest, our own `reversi gtp` and `reversi
//! nboard`) exactly as it plays a judge-protocol program: the arena runs a
//! player written `gtp:CMD` or `nboard:CMD` through this bridge, and every
//! rule check, clock and verdict stays the referee's.
//!
//! The judge sets a game up by placing discs. NBoard takes the position
//! itself (`set game` with the placed discs as the GGF start); GTP only
//! moves from the start, so for GTP the bridge finds moves that lead from
//! the start to the placed discs (a search over legal moves that only
//! places discs where the position has them: quick for the openings of a
//! match, refused past a bound) and plays them into the engine. Then it
//! relays each move: the opponent's (`play` / `move`), and ours (`genmove`
//! / `go`, whose move NBoard then hears back with `move`, as the GUI does).

use crate::arena::program::resolve_self;
use crate::records::ggf::GgfGame;
use reversi_core::bitboard::{squares, Square};
use reversi_core::board::{Board, Color};
use reversi_core::protocol::{parse, Command, MoveReply, Owner};
use std::io::{self, BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};

/// The most positions the search for a line to the placed discs visits.
const MAX_SEARCH: u64 = 2_000_000;

/// The longest answer taken from the engine (`showboard` is under 1 KB).
const MAX_REPLY: usize = 64 * 1024;

/// The most lines an engine may write before its answer (NBoard's
/// `status`, `search`, `nodestats` before `===`; a GTP engine's warnings
/// before `=`); the referee's clock bounds the time, this the loop.
const MAX_LINES_BEFORE_ANSWER: usize = 100_000;

/// The depth an NBoard engine is set to unless the player says another
/// (`nboard@DEPTH:COMMAND`).
pub const NBOARD_DEPTH: u32 = 12;

/// The protocol the engine speaks, and for NBoard the depth it is set to
/// (NBoard has no clock: an engine searches to its depth).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    Gtp,
    Nboard { depth: u32 },
}

/// An engine, started as a shell runs its command line.
struct Engine {
    protocol: Protocol,
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

impl Engine {
    fn start(command: &str, protocol: Protocol) -> io::Result<Engine> {
        let mut child = std::process::Command::new("sh")
            .arg("-c")
            .arg(resolve_self(command))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let input = child.stdin.take().expect("piped");
        let output = BufReader::new(child.stdout.take().expect("piped"));
        let mut engine = Engine {
            protocol,
            child,
            input,
            output,
        };
        let greeted = match protocol {
            Protocol::Gtp => engine.ask("boardsize 8").map(drop),
            Protocol::Nboard { depth } => {
                // Edax takes version 1 only; NTest any.
                engine
                    .tell("nboard 1")
                    .and_then(|()| engine.tell(&format!("set depth {depth}")))
                    .and_then(|()| engine.ask_ping())
            }
        };
        match greeted {
            Ok(()) => Ok(engine),
            Err(e) => Err(engine.why_not_started(e)),
        }
    }

    /// Why the engine did not answer its first lines: the shell's own
    /// verdict where it found no such program (127) or could not run it
    /// (126), as an error of kind `NotFound` or `PermissionDenied`, so that
    /// the bridge exits as the shell did and the referee knows the engine
    /// never started; else `e`.
    fn why_not_started(&mut self, e: io::Error) -> io::Error {
        let status = (0..50).find_map(|_| match self.child.try_wait() {
            Ok(Some(status)) => Some(status),
            _ => {
                std::thread::sleep(std::time::Duration::from_millis(10));
                None
            }
        });
        match status.and_then(|s| s.code()) {
            Some(127) => io::Error::new(
                io::ErrorKind::NotFound,
                "the engine could not start: the shell found no such program (exit status 127)",
            ),
            Some(126) => io::Error::new(
                io::ErrorKind::PermissionDenied,
                "the engine could not start: the shell could not run it (exit status 126)",
            ),
            _ => e,
        }
    }

    /// An NBoard engine's answer to a ping: that it runs and reads.
    fn ask_ping(&mut self) -> io::Result<()> {
        self.tell("ping 1")?;
        loop {
            if self.line("ping 1")? == "pong 1" {
                return Ok(());
            }
        }
    }

    fn tell(&mut self, line: &str) -> io::Result<()> {
        writeln!(self.input, "{line}")?;
        self.input.flush()
    }

    /// One line of the engine's output, bounded as the referee reads a
    /// program: at most 4096 bytes, any bytes.
    fn line(&mut self, after: &str) -> io::Result<String> {
        let mut cut = false;
        match reversi_core::lines::read_line(&mut self.output, &mut cut)? {
            Some(line) => Ok(line.trim_end().to_string()),
            None => Err(io::Error::other(format!("the engine ended at '{after}'"))),
        }
    }

    /// Sends a GTP command and returns its answer (`= answer`), or the
    /// error (`? why`, or the engine gone).
    fn ask(&mut self, command: &str) -> io::Result<String> {
        self.tell(command)?;
        let mut reply: Option<String> = None;
        let mut skipped = 0;
        loop {
            let line = self.line(command)?;
            match &mut reply {
                // Before the answer, anything that is not one is skipped
                // (Edax warns there: `*** SEARCH STILL RUNNING ? (1) ***`).
                None if !line.starts_with(['=', '?']) => {
                    skipped += 1;
                    if skipped > MAX_LINES_BEFORE_ANSWER {
                        return Err(io::Error::other(format!(
                            "no answer to '{command}' in {MAX_LINES_BEFORE_ANSWER} lines"
                        )));
                    }
                }
                None => reply = Some(line),
                Some(_) if line.is_empty() => break,
                Some(text) if text.len() > MAX_REPLY => {
                    return Err(io::Error::other(format!(
                        "the engine's answer to '{command}' runs past {MAX_REPLY} bytes"
                    )));
                }
                Some(text) => {
                    text.push('\n');
                    text.push_str(&line);
                }
            }
        }
        let reply = reply.unwrap_or_default();
        match reply.strip_prefix('=') {
            Some(answer) => Ok(answer
                .trim_start_matches(|c: char| c.is_ascii_digit())
                .trim()
                .to_string()),
            None => Err(io::Error::other(format!(
                "the engine refused '{command}': {reply}"
            ))),
        }
    }

    /// Sets the engine's game to `start` (the placed discs, black to move).
    fn set_up(&mut self, start: &GgfGame) -> io::Result<()> {
        match self.protocol {
            Protocol::Gtp => {
                let line = line_to(start.black, start.white, Color::Black).ok_or_else(|| {
                    io::Error::other("no line of moves from the start reaches the placed discs")
                })?;
                self.ask("clear_board")?;
                let mut color = Color::Black;
                for m in line {
                    self.play(color, m)?;
                    color = color.other();
                }
                Ok(())
            }
            Protocol::Nboard { .. } => self.tell(&format!("set game {}", start.render())),
        }
    }

    /// Tells the engine that `color` played `square` (`None`: passed).
    fn play(&mut self, color: Color, square: Option<Square>) -> io::Result<()> {
        match self.protocol {
            Protocol::Gtp => {
                let text = square.map_or("pass".to_string(), |s| s.to_string());
                self.ask(&format!("play {} {text}", gtp_color(color)))
                    .map(drop)
            }
            Protocol::Nboard { .. } => {
                let text = square.map_or("PA".to_string(), |s| s.to_string());
                self.tell(&format!("move {text}"))
            }
        }
    }

    /// The engine's move for `color` (`None`: a pass), played in its game.
    fn genmove(&mut self, color: Color) -> io::Result<Option<Square>> {
        let answer = match self.protocol {
            Protocol::Gtp => self.ask(&format!("genmove {}", gtp_color(color)))?,
            Protocol::Nboard { .. } => {
                self.tell("go")?;
                let mut answer = None;
                for _ in 0..MAX_LINES_BEFORE_ANSWER {
                    let line = self.line("go")?;
                    if let Some(rest) = line.strip_prefix("===") {
                        // `=== D3/-1.34/0.00` (NTest) or `=== D3 -1.34 0.0` (Edax).
                        let first = rest.trim().split(['/', ' ']).next().unwrap_or("");
                        answer = Some(first.to_string());
                        break;
                    }
                }
                answer.ok_or_else(|| {
                    io::Error::other(format!(
                        "no answer to 'go' in {MAX_LINES_BEFORE_ANSWER} lines"
                    ))
                })?
            }
        };
        let square = match answer.to_ascii_lowercase().as_str() {
            "pass" | "pa" => None,
            text => Some(
                Square::parse(text)
                    .ok_or_else(|| io::Error::other(format!("the engine answered '{answer}'")))?,
            ),
        };
        if let Protocol::Nboard { .. } = self.protocol {
            // NBoard's `go` leaves the move to the GUI to play.
            self.play(color, square)?;
        }
        Ok(square)
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.tell("quit");
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Moves (with passes as `None`) that lead from the start to `target`
/// (black's and white's discs) with `to_move` to move, if the search finds
/// one within its bound.
#[must_use]
pub fn line_to(black: u64, white: u64, to_move: Color) -> Option<Vec<Option<Square>>> {
    let occupied = black | white;
    let start = Board::start();
    let mut line = Vec::new();
    let mut visited = 0u64;
    let found = search(
        start,
        Color::Black,
        (black, white, to_move),
        occupied,
        &mut line,
        &mut visited,
    );
    found.then_some(line)
}

fn search(
    board: Board,
    color: Color,
    target: (u64, u64, Color),
    occupied: u64,
    line: &mut Vec<Option<Square>>,
    visited: &mut u64,
) -> bool {
    *visited += 1;
    if *visited > MAX_SEARCH {
        return false;
    }
    let (black, white) = board.colors(color);
    if black | white == occupied {
        return (black, white, color) == target;
    }
    let moves = board.moves() & occupied;
    if board.moves() == 0 {
        let passed = board.pass();
        if !passed.has_moves() {
            return false;
        }
        line.push(None);
        if search(passed, color.other(), target, occupied, line, visited) {
            return true;
        }
        line.pop();
        return false;
    }
    for square in squares(moves) {
        line.push(Some(square));
        if search(
            board.play(square),
            color.other(),
            target,
            occupied,
            line,
            visited,
        ) {
            return true;
        }
        line.pop();
    }
    false
}

fn gtp_color(color: Color) -> &'static str {
    match color {
        Color::Black => "b",
        Color::White => "w",
    }
}

/// The bridge's game: the placed discs (ours, theirs), and once the first
/// request came, our colour.
struct Game {
    ours: u64,
    theirs: u64,
    us: Option<Color>,
}

/// Speaks the judge protocol on `input`/`output` for the engine `command`.
/// An engine that fails or refuses ends the bridge (the referee then
/// scores the game as it scores any program that stops).
pub fn run(
    command: &str,
    protocol: Protocol,
    input: &mut impl BufRead,
    output: &mut impl Write,
) -> io::Result<()> {
    let mut engine = Engine::start(command, protocol)?;
    let mut game = Game {
        ours: 0,
        theirs: 0,
        us: None,
    };
    let mut cut = false;
    while let Some(line) = reversi_core::lines::read_line(input, &mut cut)? {
        let (Ok(request), _) = parse(&line) else {
            continue;
        };
        let (opponent_move, black_to_begin) = match request {
            Command::Start => {
                game = Game {
                    ours: 0,
                    theirs: 0,
                    us: None,
                };
                continue;
            }
            Command::Place(square, owner) => {
                let bit = 1u64 << square.index();
                if owner == Owner::Mine {
                    game.ours |= bit;
                    game.theirs &= !bit;
                } else {
                    game.theirs |= bit;
                    game.ours &= !bit;
                }
                continue;
            }
            Command::Done => {
                writeln!(output, "OK")?;
                output.flush()?;
                continue;
            }
            Command::End => return Ok(()),
            Command::Begin => (None, true),
            Command::Turn(square) => (Some(Some(square)), false),
            Command::Pass => (Some(None), false),
        };
        let us = match game.us {
            Some(us) => us,
            None => {
                // The first request: BEGIN makes us black, a move or a pass
                // of the opponent white; the placed discs, with black to
                // move, are where the game starts.
                let us = if black_to_begin {
                    Color::Black
                } else {
                    Color::White
                };
                let mut start = GgfGame::standard();
                if game.ours | game.theirs != 0 {
                    (start.black, start.white) = match us {
                        Color::Black => (game.ours, game.theirs),
                        Color::White => (game.theirs, game.ours),
                    };
                }
                engine.set_up(&start)?;
                game.us = Some(us);
                us
            }
        };
        if let Some(m) = opponent_move {
            engine.play(us.other(), m)?;
        }
        let answer = engine.genmove(us)?.map_or(MoveReply::Pass, MoveReply::Play);
        writeln!(output, "{answer}")?;
        output.flush()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_found_to_an_opening_position() {
        // Play a known opening, then ask for a line to its discs.
        let moves = ["f5", "d6", "c3", "d3", "c4", "f4", "f6", "f3"];
        let mut board = Board::start();
        let mut color = Color::Black;
        for m in moves {
            board = board.play(Square::parse(m).unwrap());
            color = color.other();
        }
        let (black, white) = board.colors(color);
        let line = line_to(black, white, color).expect("a line");
        let mut replayed = Board::start();
        for m in &line {
            replayed = match m {
                Some(sq) => replayed.play(*sq),
                None => replayed.pass(),
            };
        }
        assert_eq!(replayed.colors(color), (black, white));
        // Discs no game can reach: none.
        assert_eq!(line_to(0xFF, 0xFF00, Color::Black), None);
    }
}
