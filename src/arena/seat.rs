//! A judge-protocol program in its seat at a game kept elsewhere: the arena
//! server's game, reached over HTTP by `reversi connect`, or from inside
//! the server for a hosted program. The program hears the judge's lines as
//! under our referee (the position placed, `BEGIN` or the opponent's
//! `TURN`/`PASS`, `END`); each reply goes to the table as the side's move,
//! and the table judges it.
//!
//! A program that joins a game already under way (it was restarted, or so
//! was the server) is given the position as it stands, which the judge
//! protocol's `PLACE` lines allow, and plays on from there.

use crate::arena::program::{Failure, Program, Trust, EXIT_LIMIT, SETUP_LIMIT};
use crate::arena::referee::setup_lines;
use crate::arena::sandbox::Sandbox;
use reversi_core::bitboard::Square;
use reversi_core::board::{Board, Color};
use reversi_core::protocol::Command;
use std::time::Duration;

/// A game as the seat sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct View {
    /// Every move from the standard start (the opening's included), as
    /// square names or `pass`.
    pub moves: Vec<String>,
    /// The side this seat plays.
    pub color: Color,
    /// How the game ended, once it has.
    pub ending: Option<String>,
    /// The seat's side is to move.
    pub my_turn: bool,
    pub move_time: Duration,
}

/// Where the game is kept.
pub trait Table {
    /// The game after waiting (at most `wait`) for the seat's turn or the
    /// end.
    fn look(&self, wait: Duration) -> Result<View, String>;
    /// Sends the seat's move as the program gave it (`d3`, `pass`, or its
    /// words as they were, which the table refuses). A move the table says
    /// came too late because the game moved on is not an error: the next
    /// look shows what happened.
    fn send(&self, text: &str) -> Result<(), String>;
    /// The program has set up (said `OK`): a table that gave it time to
    /// start may start its clock.
    fn ready(&self) {}
}

/// Waits that double from [`Backoff::FIRST`] up to [`Backoff::MOST`], each
/// drawn between half and the whole of its step, so that many bots told
/// to wait at once do not all come back at once.
pub struct Backoff {
    step: Duration,
}

impl Default for Backoff {
    fn default() -> Backoff {
        Backoff::new()
    }
}

impl Backoff {
    pub const FIRST: Duration = Duration::from_millis(100);
    /// A bot slowed by the server must still come back within a judge's
    /// second.
    pub const MOST: Duration = Duration::from_secs(1);

    #[must_use]
    pub fn new() -> Backoff {
        Backoff { step: Self::FIRST }
    }

    /// The next wait (and doubles the step).
    pub fn next_wait(&mut self) -> Duration {
        let step = self.step;
        self.step = (self.step * 2).min(Self::MOST);
        let half = step / 2;
        half + Duration::from_micros(fastrand::u64(..=half.as_micros() as u64))
    }

    pub fn wait(&mut self) {
        std::thread::sleep(self.next_wait());
    }
}

/// How long a table may go on not taking a move it says it is waiting
/// for before the seat gives up on it.
const UNTAKEN_FOR: Duration = Duration::from_secs(60);

/// How long one look waits.
const LOOK_FOR: Duration = Duration::from_secs(20);

/// A judge-protocol reply as the table takes a move: `d 3` -> `d3`,
/// `PASS` -> `pass`; anything else as it was (the table refuses it).
#[must_use]
pub fn table_move(reply: &str) -> String {
    if reply == "PASS" {
        return "pass".into();
    }
    let compact: String = reply.split_whitespace().collect();
    if Square::parse(&compact).is_some() {
        compact
    } else {
        reply.to_string()
    }
}

/// The position after `moves` from the standard start, and the side to
/// move; `None` where a move does not replay.
#[must_use]
pub fn position_after(moves: &[String]) -> Option<(Board, Color)> {
    let mut board = Board::start();
    let mut to_move = Color::Black;
    for m in moves {
        board = if m == "pass" {
            (!board.has_moves()).then(|| board.pass())?
        } else {
            let sq = Square::parse(m).filter(|&sq| board.is_legal(sq))?;
            board.play(sq)
        };
        to_move = to_move.other();
    }
    Some((board, to_move))
}

/// The judge's setup for `color` at the position after `moves` (`START`,
/// a `PLACE` a disc, `DONE`), and the side to move there.
#[must_use]
pub fn setup(moves: &[String], color: Color) -> Option<(Vec<Command>, Color)> {
    let (board, to_move) = position_after(moves)?;
    let (black, white) = board.colors(to_move);
    Some((setup_lines(black, white, color), to_move))
}

/// Why a seat stopped before the game's end.
#[derive(Debug, PartialEq, Eq)]
pub enum Stop {
    /// The program failed (it could not start, died, or went silent): the
    /// game is lost by its side. The reason, for the record.
    Program(String),
    /// The table failed (unreachable, refused, or showed a game that does
    /// not replay).
    Table(String),
}

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stop::Program(why) | Stop::Table(why) => f.write_str(why),
        }
    }
}

/// Plays the seat's side with the program `command`, one's own, until the
/// game ends; returns how it ended.
pub fn play(table: &dyn Table, command: &str) -> Result<String, Stop> {
    sit(table, command, Trust::Own, None).outcome
}

/// How a seat's program played: how the game ended for it, and the end of
/// what it wrote to stderr.
pub struct Sitting {
    pub outcome: Result<String, Stop>,
    pub stderr: String,
}

/// As [`play`], for a program of `trust`, in `sandbox` if given, keeping
/// its stderr.
pub fn sit(table: &dyn Table, command: &str, trust: Trust, sandbox: Option<&Sandbox>) -> Sitting {
    let mut kept = None;
    let outcome = play_as(table, command, trust, sandbox, &mut kept);
    let stderr = kept.map_or_else(String::new, |k: std::sync::Arc<_>| {
        k.text(Duration::from_millis(500))
    });
    Sitting { outcome, stderr }
}

/// A program's failure as the reason its side lost, `context` first. A
/// hosted program's output is not quoted: the reason is published.
fn failed(trust: Trust, context: &str, failure: &Failure) -> Stop {
    match failure {
        Failure::Unasked(_) if trust == Trust::Hosted => Stop::Program(format!(
            "{context}the program wrote output nobody asked for"
        )),
        f => Stop::Program(format!("{context}the program {f}")),
    }
}

fn play_as(
    table: &dyn Table,
    command: &str,
    trust: Trust,
    sandbox: Option<&Sandbox>,
    kept: &mut Option<std::sync::Arc<crate::arena::program::Stderr>>,
) -> Result<String, Stop> {
    let first = table.look(Duration::ZERO).map_err(Stop::Table)?;
    if let Some(ending) = first.ending {
        return Ok(ending);
    }
    let (setup, to_move) = setup(&first.moves, first.color).ok_or_else(|| {
        Stop::Table(format!(
            "the game's moves do not replay: {}",
            first.moves.join(" ")
        ))
    })?;
    let limit = first.move_time;
    let mut program = Program::spawn_in(command, None, Some(limit), trust, sandbox)
        .map_err(|e| Stop::Program(format!("could not start '{command}': {e}")))?;
    *kept = Some(program.stderr_kept());
    let mut sent = std::time::Instant::now();
    for line in &setup {
        sent = program
            .send(&line.to_string())
            .map_err(|f| failed(trust, "", &f))?;
    }
    let (ok, _) = program
        .receive(sent, SETUP_LIMIT)
        .map_err(|f| failed(trust, "after DONE: ", &f))?;
    if ok != "OK" && trust == Trust::Hosted {
        return Err(Stop::Program(
            "after DONE the program did not say OK".into(),
        ));
    }
    if ok != "OK" {
        return Err(Stop::Program(format!(
            "after DONE the program said '{ok}', not OK"
        )));
    }
    table.ready();
    // The moves the program knows of; the position it was given is its
    // start, and it moves first there if its side is to move.
    let start = first.moves.len();
    let mut relayed = start;
    // Our last move sent, until the table shows it; since when it has been
    // sent again, and the wait before the next time.
    let mut pending: Option<String> = None;
    let mut untaken: Option<std::time::Instant> = None;
    let mut backoff = Backoff::new();
    let ours_at = |ply: usize| (to_move == first.color) == (ply - start).is_multiple_of(2);
    loop {
        let view = table.look(LOOK_FOR).map_err(Stop::Table)?;
        if let Some(own) = pending.take() {
            let stored = view.moves.len() > relayed && ours_at(relayed);
            if stored && view.moves[relayed] == own {
                relayed += 1;
            } else if view.ending.is_none() {
                // Not stored: refused, or never seen by the table.
                pending = Some(own);
            }
        }
        if let Some(ending) = view.ending {
            let _ = program.send("END");
            let _ = program.finish(EXIT_LIMIT);
            return Ok(ending);
        }
        if !view.my_turn {
            continue;
        }
        if let Some(own) = pending.take() {
            // Our move was not stored, and it is our turn: send it again,
            // after a wait that grows while the table goes on not taking it.
            let since = *untaken.get_or_insert_with(std::time::Instant::now);
            if since.elapsed() >= UNTAKEN_FOR {
                return Err(Stop::Table(format!(
                    "the table did not take the move {own} in {} s of asking",
                    UNTAKEN_FOR.as_secs()
                )));
            }
            backoff.wait();
            table.send(&own).map_err(Stop::Table)?;
            pending = Some(own);
            continue;
        }
        untaken = None;
        backoff = Backoff::new();
        let request = match view.moves.get(relayed) {
            None if relayed == start => Command::Begin,
            None => {
                return Err(Stop::Table(
                    "our turn, but no move of the opponent's".into(),
                ))
            }
            Some(m) if m == "pass" => Command::Pass,
            Some(m) => match Square::parse(m) {
                Some(sq) => Command::Turn(sq),
                None => return Err(Stop::Table(format!("the table shows the move '{m}'"))),
            },
        };
        relayed = view.moves.len();
        let sent = program
            .send(&request.to_string())
            .map_err(|f| failed(trust, "", &f))?;
        // The table keeps the clock; ours only stops waiting on a program
        // that has plainly gone.
        let (reply, _) = program
            .receive(sent, limit + Duration::from_secs(5))
            .map_err(|f| failed(trust, &format!("after {request}: "), &f))?;
        let own = table_move(&reply);
        table.send(&own).map_err(Stop::Table)?;
        pending = Some(own);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_become_table_moves() {
        assert_eq!(table_move("d 3"), "d3");
        assert_eq!(table_move("PASS"), "pass");
        assert_eq!(table_move("hello"), "hello");
    }

    #[test]
    fn a_seat_joining_mid_game_is_placed_its_own_discs() {
        let text = |lines: Vec<Command>| -> Vec<String> {
            lines.iter().map(ToString::to_string).collect::<Vec<_>>()
        };
        // After f5 white is to move: black has d5 e5 f5 e4, white d4.
        let moves = vec!["f5".to_string()];
        for color in [Color::Black, Color::White] {
            let (lines, to_move) = setup(&moves, color).expect("legal");
            assert_eq!(to_move, Color::White);
            let lines = text(lines);
            let (black, white) = if color == Color::Black {
                ("1", "2")
            } else {
                ("2", "1")
            };
            assert!(
                lines.contains(&format!("PLACE d 4 {white}")),
                "{color:?}: {lines:?}"
            );
            assert!(
                lines.contains(&format!("PLACE f 5 {black}")),
                "{color:?}: {lines:?}"
            );
            assert_eq!(lines.len(), 7);
        }
    }

    #[test]
    fn positions_replay_with_passes_named() {
        let moves: Vec<String> = ["f5", "d6"].iter().map(|s| s.to_string()).collect();
        let (board, to_move) = position_after(&moves).expect("legal");
        assert_eq!(to_move, Color::Black);
        assert_eq!((board.player | board.opponent).count_ones(), 6);
        assert!(position_after(&["pass".to_string()]).is_none());
        assert!(position_after(&["a1".to_string()]).is_none());
    }
}
