//! `reversi nboard`: the bot as an engine for NBoard (the protocol NTest
//! and Edax speak to the NBoard GUI). One command a line; the engine
//! answers:
//!
//! | command | answer |
//! | --- | --- |
//! | `nboard 2` | `set myname reversi` |
//! | `set depth N` | `set myname reversiN` (the depth of `hint`, `go` and `analyze`, 1 to 60) |
//! | `set contempt N` | (taken, not used: the bot plays for discs) |
//! | `set game GGF` | (the game's positions become the game; the last is the position) |
//! | `move F5[/eval/time]` | (played for the side to move; `PA` a pass) |
//! | `hint N` | `status`, then for each depth a `search MOVE EVAL 0 DEPTH` line for each of the best N moves and `nodestats NODES SECONDS`, then `status` |
//! | `go` | `status`, `nodestats NODES SECONDS`, `=== MOVE/EVAL/TIME`, `status` (the move is not played: the GUI sends it back with `move`) |
//! | `analyze` | `status`, an `analysis N EVAL` line for each position of the game from the last back to the start (N moves played, passes counted; EVAL for the side to move), `status` |
//! | `ping N` | `pong N`, once any search in progress has stopped |
//! | `learn` | `learned` |
//! | `quit` | the engine exits |
//!
//! A line that arrives while the engine thinks stops the thought, as in
//! NTest (the GUI speaks then only to change something: a `ping` before a
//! new position, a `move`, a `quit`), and is then carried out. A stopped
//! `go` still answers with the best move found so far (a GUI waits for
//! it); a stopped `hint` or `analyze` says no more. The end of the input does
//! not stop a thought: a script's last `hint` is answered before the
//! engine exits. A line the engine cannot read or carry
//! out gets one note on stderr; the engine goes on with the game it has.

use crate::records::ggf;
use crate::study::value::{move_value, value, Reach, Value};
use reversi_core::bitboard::{squares, Square};
use reversi_core::board::Board;
use reversi_core::clock::Deadline;
use reversi_core::eval::{Evaluator, DISC};
use reversi_core::search::{Limits, Searcher, Stop, MIDGAME_T};
use std::collections::VecDeque;
use std::io::{self, BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// From this many empties on, `hint` and `analyze` solve exactly.
const EXACT_EMPTIES: u32 = 16;

/// The depth of `hint`, `go` and `analyze` before `set depth` says another.
const DEFAULT_DEPTH: u32 = 12;

/// What the engine's main loop hears: the GUI's lines from the reader
/// thread, and a search's lines and its end from the thinking thread.
enum Event {
    Line(String),
    /// The GUI closed the engine's input.
    Closed,
    Say(String),
    Thought,
}

/// What the engine is asked to think about.
#[derive(Clone, Copy)]
enum Task {
    Hint(usize),
    Go,
    Analyze,
}

/// The engine's game: every position from the game's start (the last is
/// the current one), the depth asked for.
struct Engine {
    positions: Vec<Board>,
    /// The last `set game` was refused: the GUI's game is not known, so
    /// nothing is played or searched until one is set (an answer for the
    /// old position would be a move in another game).
    lost: bool,
    depth: u32,
    limit: Duration,
}

impl Engine {
    fn board(&self) -> Board {
        *self.positions.last().expect("the start at least")
    }

    /// Plays `square` (`None`: a pass) for the side to move.
    fn play(&mut self, square: Option<Square>) -> Result<(), String> {
        let board = self.board();
        let next = match square {
            None if board.has_moves() => return Err("a pass with a move to play".into()),
            None if board.is_game_over() => return Err("the game is over".into()),
            None => board.pass(),
            Some(sq) if board.is_legal(sq) => board.play(sq),
            Some(sq) => return Err(format!("{sq} is not legal here")),
        };
        self.positions.push(next);
        Ok(())
    }

    fn reach(&self) -> Reach {
        Reach {
            depth: self.depth,
            exact_from: EXACT_EMPTIES,
            solve_time: None,
        }
    }
}

/// Speaks NBoard: lines from `input` (read on a thread of their own, so a
/// line can stop a search), answers to `output`, notes to `log`. `limit`
/// caps the time of `go` (the bot's `--move-time`, else the judge's second).
pub fn run(
    input: impl BufRead + Send + 'static,
    output: &mut impl Write,
    log: &mut impl Write,
    eval: Evaluator,
    hash_mb: usize,
    limit: Duration,
) -> io::Result<()> {
    let (events_in, events) = mpsc::channel();
    let reader = events_in.clone();
    std::thread::spawn(move || read_lines(input, &reader));
    let mut engine = Engine {
        positions: vec![Board::start()],
        lost: false,
        depth: DEFAULT_DEPTH,
        limit,
    };
    let mut searcher = Searcher::new(hash_mb, eval);
    let interrupt = Arc::new(AtomicBool::new(false));
    searcher.interrupt_on(Arc::clone(&interrupt));
    // Lines that arrived while the engine thought, to carry out next.
    let mut waiting: VecDeque<String> = VecDeque::new();
    // The input closed while the engine thought: end once `waiting` is done.
    let mut closed = false;
    let send = |output: &mut dyn Write, text: &str| -> io::Result<()> {
        writeln!(output, "{text}")?;
        output.flush()
    };
    loop {
        let line = match waiting.pop_front() {
            Some(line) => line,
            None if closed => return Ok(()),
            None => match events.recv() {
                Ok(Event::Line(line)) => line,
                Ok(Event::Closed) | Err(_) => return Ok(()),
                Ok(Event::Say(_) | Event::Thought) => continue,
            },
        };
        let line = line.trim();
        let (command, rest) = line.split_once(' ').unwrap_or((line, ""));
        let rest = rest.trim();
        let mut note = |text: String| {
            let _ = writeln!(log, "nboard: {text}");
        };
        let task = match command {
            "" => None,
            "nboard" => {
                send(output, "set myname reversi")?;
                None
            }
            "move" | "hint" | "go" | "analyze" if engine.lost => {
                note(format!(
                    "{command}: no position (the last set game was refused)"
                ));
                None
            }
            "set" => {
                let (what, value) = rest.split_once(' ').unwrap_or((rest, ""));
                match what {
                    "depth" => match value.trim().parse::<u32>() {
                        Ok(d) if (1..=60).contains(&d) => {
                            engine.depth = d;
                            send(output, &format!("set myname reversi{d}"))?;
                        }
                        _ => note(format!("set depth takes 1 to 60, not '{value}'")),
                    },
                    "contempt" => {}
                    "game" => match set_game(value) {
                        Ok(positions) => {
                            engine.positions = positions;
                            engine.lost = false;
                            searcher.new_game();
                        }
                        Err(e) => {
                            engine.lost = true;
                            note(format!(
                                "set game: {e}; no position until the next set game"
                            ));
                        }
                    },
                    other => note(format!("unknown setting '{other}'")),
                }
                None
            }
            "move" => {
                if let Err(e) = parse_move(rest).and_then(|sq| engine.play(sq)) {
                    note(format!("move: {e}"));
                }
                None
            }
            "hint" => match rest.parse::<usize>() {
                Ok(n) if n >= 1 => Some(Task::Hint(n)),
                _ if rest.is_empty() => Some(Task::Hint(1)),
                _ => {
                    note(format!("hint takes a count of moves, not '{rest}'"));
                    None
                }
            },
            "go" if engine.board().is_game_over() => {
                note("go: the game is over".into());
                None
            }
            "go" => Some(Task::Go),
            "analyze" => Some(Task::Analyze),
            "ping" => {
                send(output, &format!("pong {rest}"))?;
                None
            }
            "learn" => {
                send(output, "learned")?;
                None
            }
            "quit" => return Ok(()),
            other => {
                note(format!("unknown command '{other}'"));
                None
            }
        };
        let Some(task) = task else { continue };
        send(output, "status reversi is thinking")?;
        interrupt.store(false, Ordering::Relaxed);
        std::thread::scope(|scope| -> io::Result<()> {
            let said = events_in.clone();
            let engine = &engine;
            let searcher = &mut searcher;
            scope.spawn(move || {
                think(task, engine, searcher, &said);
                let _ = said.send(Event::Thought);
            });
            loop {
                match events.recv() {
                    Ok(Event::Say(text)) => send(output, &text)?,
                    Ok(Event::Thought) | Err(_) => return Ok(()),
                    Ok(Event::Line(line)) => {
                        interrupt.store(true, Ordering::Relaxed);
                        waiting.push_back(line);
                    }
                    // The end of a script: the thought is finished first.
                    Ok(Event::Closed) => closed = true,
                }
            }
        })?;
        send(output, "status")?;
    }
}

/// The reader thread: every line of `input` (bounded as the bot reads the
/// judge's), then `Closed`.
fn read_lines(mut input: impl BufRead, events: &Sender<Event>) {
    let mut cut = false;
    while let Ok(Some(line)) = reversi_core::lines::read_line(&mut input, &mut cut) {
        if events.send(Event::Line(line)).is_err() {
            return;
        }
    }
    let _ = events.send(Event::Closed);
}

/// `set game`'s value: one GGF game, replayed.
fn set_game(text: &str) -> Result<Vec<Board>, String> {
    let games = ggf::parse(text).map_err(|e| e.to_string())?;
    match games.as_slice() {
        [game] => game.positions(),
        _ => Err(format!("{} games where one was expected", games.len())),
    }
}

/// `move`'s value: `F5`, `f5/1.23/0.5`, `PA`.
fn parse_move(text: &str) -> Result<Option<Square>, String> {
    let place = text.split('/').next().unwrap_or("").trim();
    match place.to_ascii_lowercase().as_str() {
        "pa" | "pass" => Ok(None),
        p => Square::parse(p)
            .map(Some)
            .ok_or(format!("'{place}' is not a move")),
    }
}

/// Runs `task` on the engine's position, saying its lines as it goes;
/// returns early, saying nothing more, once the search is interrupted.
fn think(task: Task, engine: &Engine, searcher: &mut Searcher, said: &Sender<Event>) {
    let say = |text: String| {
        let _ = said.send(Event::Say(text));
    };
    let started = Instant::now();
    let nodestats =
        |nodes: u64| format!("nodestats {nodes} {:.2}", started.elapsed().as_secs_f64());
    let board = engine.board();
    match task {
        Task::Go => {
            let limits = Limits {
                stop: Stop::Depth(engine.depth),
                deadline: Deadline::for_limit(started, engine.limit),
                solver: true,
                probcut_t: Some(MIDGAME_T),
            };
            // A forced pass is valued as `hint` values it: the position
            // after it, from the mover's side.
            if !board.has_moves() {
                let mut nodes = 0u64;
                let eval = move_value(searcher, &board, None, engine.reach(), &mut nodes)
                    .map_or(0.0, |v| v.discs());
                let seconds = started.elapsed().as_secs_f64();
                say(nodestats(nodes));
                say(format!("=== PA/{eval:.2}/{seconds:.2}"));
                return;
            }
            let result = searcher.search(&board, &limits);
            // A line that came while it thought stopped the search, as the
            // clock may: the best move found so far is still the answer
            // (a GUI waits for it), and a legal one where none was found.
            let place = result
                .best
                .or_else(|| squares(board.moves()).next())
                .map_or("PA".to_string(), |s| s.to_string());
            let eval = f64::from(result.score) / f64::from(DISC);
            let seconds = started.elapsed().as_secs_f64();
            say(nodestats(result.nodes));
            say(format!("=== {place}/{eval:.2}/{seconds:.2}"));
        }
        Task::Hint(wanted) => {
            let moves: Vec<Option<Square>> = if board.has_moves() {
                squares(board.moves()).map(Some).collect()
            } else {
                vec![None]
            };
            let mut nodes = 0u64;
            let exact = board.empty_count() <= EXACT_EMPTIES;
            // Shallow depths first, of the final depth's parity, so that
            // the GUI has an answer at once and a better one as it comes.
            let depths: Vec<u32> = if exact {
                vec![engine.depth]
            } else {
                (1..=engine.depth)
                    .filter(|d| d % 2 == engine.depth % 2)
                    .collect()
            };
            for depth in depths {
                let reach = Reach {
                    depth,
                    ..engine.reach()
                };
                let mut scored: Vec<(Option<Square>, Value)> = Vec::new();
                for &m in &moves {
                    let Some(v) = move_value(searcher, &board, m, reach, &mut nodes) else {
                        return;
                    };
                    scored.push((m, v));
                }
                scored.sort_by(|a, b| b.1.discs().total_cmp(&a.1.discs()));
                for (m, v) in scored.iter().take(wanted) {
                    let place = m.map_or("PA".to_string(), |s| s.to_string());
                    let depth = if v.is_exact() {
                        "100%".to_string()
                    } else {
                        depth.to_string()
                    };
                    say(format!("search {place} {:.2} 0 {depth}", v.discs()));
                }
                say(nodestats(nodes));
                // Solved: a deeper depth would say the same again.
                if scored.iter().take(wanted).all(|(_, v)| v.is_exact()) {
                    break;
                }
            }
        }
        Task::Analyze => {
            let mut nodes = 0u64;
            for (n, position) in engine.positions.iter().enumerate().rev() {
                let Some(v) = value(searcher, position, engine.reach(), &mut nodes) else {
                    return;
                };
                say(format!("analysis {n} {:.2}", v.discs()));
            }
            say(nodestats(nodes));
        }
    }
}
