//! `reversi nboard`: the bot as an engine for NBoard (the protocol NTest
//! and Edax speak to the NBoard GUI). One command a line; the engine
//! answers:
//!
//! | command | answer |
//! | --- | --- |
//! | `nboard 2` | `set myname reversi` |
//! | `set depth N`, `set contempt N` | (the depth of `hint` and `go`, 1 to 60; contempt is taken and not used) |
//! | `set game GGF` | (the game's final position becomes the position) |
//! | `move F5[/eval/time]` | (played for the side to move; `PA` a pass) |
//! | `hint N` | `status` thinking, a `search MOVE EVAL 0 DEPTH` line for each of the best N moves, `nodestats`, then `status` |
//! | `go` | `status` thinking, `nodestats NODES SECONDS`, `=== MOVE/EVAL/TIME`, then `status` |
//! | `ping N` | `pong N` (searches run to their end before the next line is read, so none is in progress) |
//! | `learn` | `learned` |
//! | `quit` | the engine exits |
//!
//! A line it cannot read or carry out gets one note on stderr; the engine
//! goes on with the position it has.

use crate::ggf;
use reversi_core::bitboard::{squares, Square};
use reversi_core::board::{Board, Color};
use reversi_core::clock::Deadline;
use reversi_core::eval::{Evaluator, DISC};
use reversi_core::search::{Limits, Searcher, Stop, MIDGAME_T};
use std::io::{self, BufRead, Write};
use std::time::{Duration, Instant};

/// The empties from which `hint` solves each move exactly.
const EXACT_HINT_EMPTIES: u32 = 14;

/// The depth of `hint` and `go` before `set depth` says another.
const DEFAULT_DEPTH: u32 = 12;

/// The engine's state: the position, whose move it is, the depth asked for.
struct Engine {
    board: Board,
    to_move: Color,
    depth: u32,
    searcher: Searcher,
    limit: Duration,
}

impl Engine {
    /// Plays `square` (`None`: a pass) for the side to move.
    fn play(&mut self, square: Option<Square>) -> Result<(), String> {
        self.board = match square {
            None if self.board.has_moves() => return Err("a pass with a move to play".into()),
            None => self.board.pass(),
            Some(sq) if self.board.is_legal(sq) => self.board.play(sq),
            Some(sq) => return Err(format!("{sq} is not legal here")),
        };
        self.to_move = self.to_move.other();
        Ok(())
    }

    /// Each legal move's score for the side to move, best first, in discs:
    /// exact near the end, else a search of `depth` plies.
    fn move_scores(&mut self) -> (Vec<(Square, f64)>, String) {
        let board = self.board;
        if board.empty_count() <= EXACT_HINT_EMPTIES {
            let scores = self.searcher.move_scores(&board);
            let mut scored: Vec<(Square, f64)> =
                scores.into_iter().map(|(s, v)| (s, f64::from(v))).collect();
            scored.sort_by(|a, b| b.1.total_cmp(&a.1));
            return (scored, "100%".into());
        }
        let depth = self.depth.max(1);
        let mut scored: Vec<(Square, f64)> = squares(board.moves())
            .map(|sq| {
                let score = -self.searcher.midgame_score(&board.play(sq), depth - 1);
                (sq, f64::from(score) / f64::from(DISC))
            })
            .collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1));
        (scored, depth.to_string())
    }
}

/// Speaks NBoard on `input`/`output`, notes to `log`. `limit` caps the
/// time of `go` (the bot's `--move-time`, else the judge's second).
pub fn run(
    input: &mut impl BufRead,
    output: &mut impl Write,
    log: &mut impl Write,
    eval: Evaluator,
    hash_mb: usize,
    limit: Duration,
) -> io::Result<()> {
    let mut engine = Engine {
        board: Board::start(),
        to_move: Color::Black,
        depth: DEFAULT_DEPTH,
        searcher: Searcher::new(hash_mb, eval),
        limit,
    };
    let send = |output: &mut dyn Write, text: &str| -> io::Result<()> {
        writeln!(output, "{text}")?;
        output.flush()
    };
    loop {
        let mut cut = false;
        let Some(line) = reversi_core::lines::read_line(input, &mut cut)? else {
            return Ok(());
        };
        let line = line.trim();
        let (command, rest) = line.split_once(' ').unwrap_or((line, ""));
        let rest = rest.trim();
        let mut note = |text: String| {
            let _ = writeln!(log, "nboard: {text}");
        };
        match command {
            "" => {}
            "nboard" => send(output, "set myname reversi")?,
            "set" => {
                let (what, value) = rest.split_once(' ').unwrap_or((rest, ""));
                match what {
                    "depth" => match value.trim().parse::<u32>() {
                        Ok(d) if (1..=60).contains(&d) => engine.depth = d,
                        _ => note(format!("set depth takes 1 to 60, not '{value}'")),
                    },
                    "contempt" => {}
                    "game" => match ggf::parse(value) {
                        Ok(games) if games.len() == 1 => match games[0].positions() {
                            Ok(positions) => {
                                let game = &games[0];
                                engine.board = *positions.last().expect("the start at least");
                                engine.to_move = if game.moves.len() % 2 == 0 {
                                    game.to_move
                                } else {
                                    game.to_move.other()
                                };
                                engine.searcher.new_game();
                            }
                            Err(e) => note(format!("set game: {e}")),
                        },
                        Ok(_) => note("set game: not one game".into()),
                        Err(e) => note(format!("set game: {e}")),
                    },
                    other => note(format!("unknown setting '{other}'")),
                }
            }
            "move" => {
                let place = rest
                    .split('/')
                    .next()
                    .unwrap_or("")
                    .trim()
                    .to_ascii_lowercase();
                let square = match place.as_str() {
                    "pa" | "pass" => Ok(None),
                    p => Square::parse(p)
                        .map(Some)
                        .ok_or(format!("'{p}' is not a move")),
                };
                if let Err(e) = square.and_then(|sq| engine.play(sq)) {
                    note(format!("move: {e}"));
                }
            }
            "hint" => {
                let wanted = rest.parse::<usize>().unwrap_or(1).max(1);
                send(output, "status reversi is thinking")?;
                let started = Instant::now();
                let before = engine.searcher.nodes();
                let (scores, depth) = engine.move_scores();
                for (square, score) in scores.iter().take(wanted) {
                    send(output, &format!("search {square} {score:.2} 0 {depth}"))?;
                }
                if scores.is_empty() {
                    send(output, &format!("search PA 0.00 0 {depth}"))?;
                }
                let nodes = engine.searcher.nodes().saturating_sub(before);
                send(
                    output,
                    &format!("nodestats {nodes} {:.2}", started.elapsed().as_secs_f64()),
                )?;
                send(output, "status")?;
            }
            "go" => {
                send(output, "status reversi is thinking")?;
                let started = Instant::now();
                let limits = Limits {
                    stop: Stop::Depth(engine.depth),
                    deadline: Deadline::for_limit(started, engine.limit),
                    solver: true,
                    probcut_t: Some(MIDGAME_T),
                };
                let result = engine.searcher.search(&engine.board, &limits);
                let seconds = started.elapsed().as_secs_f64();
                send(output, &format!("nodestats {} {seconds:.2}", result.nodes))?;
                let place = result.best.map_or("PA".to_string(), |s| s.to_string());
                let eval = f64::from(result.score) / f64::from(DISC);
                send(output, &format!("=== {place}/{eval:.2}/{seconds:.2}"))?;
                if let Err(e) = engine.play(result.best) {
                    note(format!("go: {e}"));
                }
                send(output, "status")?;
            }
            "ping" => send(output, &format!("pong {rest}"))?,
            "learn" => send(output, "learned")?,
            "quit" => return Ok(()),
            other => note(format!("unknown command '{other}'")),
        }
    }
}
