//! Whether a built program is an "effective AI" (VG101, section 3.3: able
//! to play at least one feasible step): it is seated, in the sandbox, at a
//! game kept here against a plain opponent that plays the first legal
//! square, once as black and once as white, and must answer each of its
//! first [`MOVES`] turns with a legal move inside the move time, as it
//! must in a game. A program that fails never enters a contest, and its
//! team is told why.

use reversi::arena::program::Trust;
use reversi::arena::sandbox::Sandbox;
use reversi::arena::seat::{self, Stop, Table, View};
use reversi_core::bitboard::Squares;
use reversi_core::board::Color;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The legal moves asked of each side.
pub const MOVES: usize = 2;

/// A game kept in memory for one seat, the other side played here.
struct Trial {
    color: Color,
    limit: Duration,
    game: Mutex<Game>,
}

struct Game {
    moves: Vec<String>,
    /// When the seat's side was offered its turn.
    since: Instant,
    /// Its legal moves so far.
    legal: usize,
    ending: Option<String>,
    /// Why it failed, if it did.
    failure: Option<String>,
}

impl Trial {
    fn lock(&self) -> std::sync::MutexGuard<'_, Game> {
        self.game.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The opponent's move: the first legal square, or a pass.
fn first_legal(moves: &[String]) -> Option<String> {
    let (board, _) = seat::position_after(moves)?;
    if board.is_game_over() {
        return None;
    }
    Some(
        Squares(board.moves())
            .next()
            .map_or_else(|| "pass".into(), |sq| sq.to_string()),
    )
}

impl Table for Trial {
    fn look(&self, _wait: Duration) -> Result<View, String> {
        let mut game = self.lock();
        let to_move = |g: &Game| {
            if g.moves.len().is_multiple_of(2) {
                Color::Black
            } else {
                Color::White
            }
        };
        if game.ending.is_none() && to_move(&game) != self.color {
            match first_legal(&game.moves) {
                Some(m) => {
                    game.moves.push(m);
                    game.since = Instant::now();
                }
                None => game.ending = Some("the game is over".into()),
            }
        }
        Ok(View {
            moves: game.moves.clone(),
            color: self.color,
            ending: game.ending.clone(),
            my_turn: game.ending.is_none() && to_move(&game) == self.color,
            move_time: self.limit,
        })
    }

    fn send(&self, text: &str) -> Result<(), String> {
        let mut game = self.lock();
        if game.ending.is_some() {
            return Ok(());
        }
        let took = game.since.elapsed();
        let ply = game.moves.len() + 1;
        let mut after = game.moves.clone();
        after.push(text.to_string());
        let failure = if took > self.limit {
            Some(format!(
                "its move {ply} came after {} ms (the limit is {} ms)",
                took.as_millis(),
                self.limit.as_millis()
            ))
        } else if seat::position_after(&after).is_none() {
            Some(format!(
                "its reply {} at move {ply} is not a legal move",
                reversi_core::protocol::quote(text)
            ))
        } else {
            None
        };
        if let Some(why) = failure {
            game.ending = Some(why.clone());
            game.failure = Some(why);
            return Ok(());
        }
        game.moves = after;
        game.legal += 1;
        if game.legal >= MOVES {
            game.ending = Some("checked".into());
        }
        Ok(())
    }
}

/// Checks the program `command` runs, in `sandbox`, at `limit` a move:
/// `Ok` if it plays legal moves as both colours, else why not. What it
/// wrote to stderr comes back either way (for its team's eyes only).
pub fn check(command: &str, sandbox: &Sandbox, limit: Duration) -> (Result<(), String>, String) {
    let mut stderr = String::new();
    for color in [Color::Black, Color::White] {
        let trial = Trial {
            color,
            limit,
            game: Mutex::new(Game {
                moves: Vec::new(),
                since: Instant::now(),
                legal: 0,
                ending: None,
                failure: None,
            }),
        };
        let sitting = seat::sit(&trial, command, Trust::Hosted, Some(sandbox));
        stderr.push_str(&sitting.stderr);
        let name = color.name();
        let failed = match sitting.outcome {
            Err(Stop::Program(why) | Stop::Table(why)) => Some(why),
            Ok(_) => trial.lock().failure.take(),
        };
        if let Some(why) = failed {
            return (Err(format!("as {name}: {why}")), stderr);
        }
    }
    (Ok(()), stderr)
}
