//! The referee: plays two judge-protocol programs against each other the way
//! the judge does, checks every move with its own rules and times every
//! reply.
//!
//! A side loses at once ("forfeit") for an illegal or malformed reply, a
//! reply later than the limit, a crash, no `OK` after `DONE` within
//! [`SETUP_LIMIT`], or output nobody asked for (a line already waiting when
//! a request is about to be sent, or written after `END`). A game played to
//! its end is still forfeited by a side that then does not exit with status
//! 0 within [`EXIT_LIMIT`] of `END`, as the handout requires. `replay`
//! holds programs to the same rules.

use crate::arena::program::{Failure, Program, EXIT_LIMIT, EXTRA_LINES_KEPT, SETUP_LIMIT};
use crate::records::transcript::{Direction, Transcript};
use reversi_core::bitboard::Square;
use reversi_core::board::{Board, Color};
use reversi_core::protocol::{place_commands, quote, Command, MoveReply};
use std::path::PathBuf;
use std::time::Duration;

/// How a game went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// Played to the end; discs of black and white.
    Finished { black: u32, white: u32 },
    /// `loser` lost on a technicality.
    Forfeit { loser: Color, reason: String },
    /// Both sides failed before the game could start (each side's setup
    /// is checked, so neither is blamed for being checked first): both
    /// lose, black's reason first. Each format scores it as its rules
    /// score a double forfeit (docs/referee.md, "Both sides at fault").
    DoubleForfeit { reasons: [String; 2] },
}

/// One game's record.
#[derive(Clone, Debug)]
pub struct Game {
    pub ending: Ending,
    /// The moves in order, `None` for a pass.
    pub moves: Vec<Option<Square>>,
    /// Reply times of black and of white (move replies only).
    pub times: [Vec<Duration>; 2],
    /// Legal replies (moves or due passes) of black and of white.
    pub legal: [u32; 2],
    /// What each side saw and said: black's, white's.
    pub transcripts: [Transcript; 2],
}

impl Game {
    /// The side that could not be started at all, and why, if the game
    /// was lost so: the process could not be created, or the shell found
    /// no such program (exit status 127) or could not run it (126) before
    /// its first reply.
    #[must_use]
    pub fn unstarted(&self) -> Option<(Color, &str)> {
        let (loser, reason) = match &self.ending {
            Ending::Forfeit { loser, reason } => (loser, reason),
            // Black's is named; a run that fails on it names white's next.
            Ending::DoubleForfeit { reasons } => (&Color::Black, &reasons[0]),
            Ending::Finished { .. } => return None,
        };
        let shell_refused = ["exit status: 127", "exit status: 126"]
            .iter()
            .any(|status| reason.contains(status));
        let unstarted = reason.starts_with("could not start")
            || (shell_refused && self.legal[loser.index()] == 0);
        unstarted.then_some((*loser, reason.as_str()))
    }

    /// Black's disc difference; a forfeit counts as a 64-0 wipe-out.
    #[must_use]
    pub fn black_margin(&self) -> i32 {
        match &self.ending {
            Ending::Finished { black, white } => *black as i32 - *white as i32,
            Ending::Forfeit {
                loser: Color::Black,
                ..
            } => -64,
            Ending::Forfeit { .. } => 64,
            Ending::DoubleForfeit { .. } => 0,
        }
    }

    /// Whether `color` lost on a technicality (alone or with the other).
    #[must_use]
    pub fn forfeited_by(&self, color: Color) -> bool {
        match &self.ending {
            Ending::Finished { .. } => false,
            Ending::Forfeit { loser, .. } => *loser == color,
            Ending::DoubleForfeit { .. } => true,
        }
    }

    /// The winner, `None` for a draw or a double forfeit.
    #[must_use]
    pub fn winner(&self) -> Option<Color> {
        match self.black_margin() {
            m if m > 0 => Some(Color::Black),
            m if m < 0 => Some(Color::White),
            _ => None,
        }
    }

    /// `33-31`, or `black forfeits: REASON`.
    #[must_use]
    pub fn result_text(&self) -> String {
        match &self.ending {
            Ending::Finished { black, white } => format!("{black}-{white}"),
            Ending::Forfeit { loser, reason } => format!("{} forfeits: {reason}", loser.name()),
            Ending::DoubleForfeit { reasons } => {
                format!("both forfeit: black {}; white {}", reasons[0], reasons[1])
            }
        }
    }

    /// The moves as `f5d6..`, `--` for a pass.
    #[must_use]
    pub fn move_text(&self) -> String {
        self.moves
            .iter()
            .map(|m| m.map_or("--".to_string(), |sq| sq.to_string()))
            .collect()
    }
}

/// One side of a game while it is played.
struct Side {
    program: Program,
    transcript: Transcript,
    color: Color,
}

impl Side {
    /// Sends `line`, unless output nobody asked for is waiting.
    fn send(&mut self, line: &str) -> Result<std::time::Instant, Failure> {
        let sent = self.program.request(line);
        if let Err(Failure::Unasked(unasked)) = &sent {
            self.transcript.push(Direction::Received, unasked);
        } else {
            self.transcript.push(Direction::Sent, line);
        }
        sent
    }

    fn receive(
        &mut self,
        sent: std::time::Instant,
        limit: Duration,
    ) -> Result<(String, Duration), Failure> {
        let received = self.program.receive(sent, limit);
        if let Ok((line, _)) | Err(Failure::Unasked(line)) = &received {
            self.transcript.push(Direction::Received, line);
        }
        received
    }
}

/// The judge's setup of a position for the side playing `color`: `START`,
/// a `PLACE` for each disc (black's discs `black`, white's `white`), `DONE`.
#[must_use]
pub fn setup_lines(black: u64, white: u64, color: Color) -> Vec<Command> {
    let (mine, theirs) = match color {
        Color::Black => (black, white),
        Color::White => (white, black),
    };
    let mut lines = vec![Command::Start];
    lines.extend(place_commands(mine, theirs));
    lines.push(Command::Done);
    lines
}

/// What the referee needs to start a game.
pub struct GameSetup<'a> {
    /// Command lines of black and white.
    pub commands: [&'a str; 2],
    /// The position to start from and the side to move (black's "BEGIN").
    pub start: Board,
    pub to_move: Color,
    pub limit: Duration,
    /// Where each side's stderr goes (black, white), if kept.
    pub stderr: [Option<PathBuf>; 2],
    /// The sandbox both programs run in, if any.
    pub sandbox: Option<&'a super::sandbox::Sandbox>,
}

/// A move as the referee accepts it, for whoever watches the game.
pub struct Played<'a> {
    /// Who played.
    pub color: Color,
    /// `None` for a pass.
    pub square: Option<Square>,
    /// The position after it, `color.other()` to move.
    pub board: &'a Board,
    /// How long the reply took.
    pub took: Duration,
}

/// Plays one game, handing each move to `watch` as it is played.
pub fn play_watched(setup: &GameSetup, watch: &mut dyn FnMut(&Played)) -> Game {
    let (black, white) = setup.start.colors(setup.to_move);
    let mut game = Game {
        ending: Ending::Finished { black: 0, white: 0 },
        moves: Vec::new(),
        times: [Vec::new(), Vec::new()],
        legal: [0, 0],
        transcripts: [Transcript::default(), Transcript::default()],
    };
    let mut sides: Vec<Side> = Vec::new();
    for (i, color) in [Color::Black, Color::White].into_iter().enumerate() {
        match Program::spawn_in(
            setup.commands[i],
            setup.stderr[i].as_deref(),
            Some(setup.limit),
            super::program::Trust::Own,
            setup.sandbox,
        ) {
            Ok(program) => sides.push(Side {
                program,
                transcript: Transcript::default(),
                color,
            }),
            Err(e) => {
                game.ending = Ending::Forfeit {
                    loser: color,
                    reason: format!("could not start: {e}"),
                };
                return game;
            }
        }
    }
    let forfeit = |game: &mut Game, sides: Vec<Side>, loser: Color, reason: String| {
        game.ending = Ending::Forfeit { loser, reason };
        close(game, sides);
    };

    // Setup: both sides get the position, then each must answer OK. Both
    // are checked before either is blamed: two that fail forfeit together.
    // `sides` holds black, then white.
    let sides_color = |i: usize| [Color::Black, Color::White][i];
    let mut failed: [Option<String>; 2] = [None, None];
    let mut sent_done = [None, None];
    for i in 0..2 {
        for line in &setup_lines(black, white, sides[i].color) {
            match sides[i].send(&line.to_string()) {
                Ok(at) => sent_done[i] = Some(at),
                Err(f) => {
                    failed[i] = Some(format!("during setup: {f}"));
                    break;
                }
            }
        }
    }
    for i in 0..2 {
        if failed[i].is_some() {
            continue;
        }
        let sent = sent_done[i].expect("DONE was sent");
        failed[i] = match sides[i].receive(sent, SETUP_LIMIT) {
            Ok((reply, _)) if reply == "OK" => None,
            Ok((reply, _)) => Some(format!("answered {} to DONE, not OK", quote(&reply))),
            Err(f) => Some(format!("after DONE: {f}")),
        };
    }
    match failed {
        [None, None] => {}
        [Some(black_reason), Some(white_reason)] => {
            game.ending = Ending::DoubleForfeit {
                reasons: [black_reason, white_reason],
            };
            close(&mut game, sides);
            return game;
        }
        [Some(reason), None] => {
            forfeit(&mut game, sides, sides_color(0), reason);
            return game;
        }
        [None, Some(reason)] => {
            forfeit(&mut game, sides, sides_color(1), reason);
            return game;
        }
    }

    let mut board = setup.start;
    let mut to_move = setup.to_move;
    // What the side to move is told: BEGIN at the start, then the
    // opponent's move or PASS.
    let mut last: Option<Option<Square>> = None;
    while !board.is_game_over() {
        let i = to_move.index();
        let message = match last {
            None => Command::Begin,
            Some(None) => Command::Pass,
            Some(Some(sq)) => Command::Turn(sq),
        }
        .to_string();
        let sent = match sides[i].send(&message) {
            Ok(at) => at,
            Err(f) => {
                forfeit(&mut game, sides, to_move, format!("at {message}: {f}"));
                return game;
            }
        };
        let (reply, took) = match sides[i].receive(sent, setup.limit) {
            Ok(r) => r,
            Err(f) => {
                forfeit(&mut game, sides, to_move, format!("at {message}: {f}"));
                return game;
            }
        };
        game.times[i].push(took);
        let played = match MoveReply::parse(&reply, &board) {
            Ok(played) => played.square(),
            Err(why) => {
                forfeit(&mut game, sides, to_move, format!("at {message}: {why}"));
                return game;
            }
        };
        game.legal[i] += 1;
        board = match played {
            Some(sq) => board.play(sq),
            None => board.pass(),
        };
        game.moves.push(played);
        watch(&Played {
            color: to_move,
            square: played,
            board: &board,
            took,
        });
        last = Some(played);
        to_move = to_move.other();
    }
    let (b, w) = board.colors(to_move);
    game.ending = Ending::Finished {
        black: b.count_ones(),
        white: w.count_ones(),
    };
    close(&mut game, sides);
    game
}

/// Sends END to both and collects their transcripts. In a game played to
/// its end, a side that then breaks the rules (output nobody asked for,
/// not exiting with status 0 within [`EXIT_LIMIT`]) forfeits it; black's
/// fault is found first.
fn close(game: &mut Game, sides: Vec<Side>) {
    let finished = matches!(game.ending, Ending::Finished { .. });
    let mut fault = None;
    // After a forfeit nothing a program does counts: no waiting on it.
    let grace = if finished { EXIT_LIMIT } else { Duration::ZERO };
    for (i, mut side) in sides.into_iter().enumerate() {
        // A program that exited before END, with status 0, could not be
        // sent it: no fault of its own.
        let unasked = match side.send(&Command::End.to_string()) {
            Err(Failure::Unasked(line)) => {
                Some(format!("at END: output nobody asked for: {}", quote(&line)))
            }
            _ => None,
        };
        let extra = side.program.drain(grace, EXTRA_LINES_KEPT);
        for line in &extra {
            side.transcript.push(Direction::Received, line);
        }
        let status = side.program.finish(grace);
        let problem = unasked
            .or_else(|| {
                extra
                    .first()
                    .map(|line| format!("after END: output nobody asked for: {}", quote(line)))
            })
            .or_else(|| match status {
                Some(status) if status.success() => None,
                Some(status) => Some(format!("at END: {status}")),
                None => Some(format!(
                    "did not exit within {} ms of END",
                    EXIT_LIMIT.as_millis()
                )),
            });
        if finished && fault.is_none() {
            fault = problem.map(|reason| (side.color, reason));
        }
        game.transcripts[i] = std::mem::take(&mut side.transcript);
    }
    if let Some((loser, reason)) = fault {
        game.ending = Ending::Forfeit { loser, reason };
    }
}
