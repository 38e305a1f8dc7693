//! `reversi gtp`: the bot as a GTP engine (the Go Text Protocol, as Edax
//! and Egaroucid speak it for Othello), for GoGui, Quarry and any
//! controller that drives engines by GTP.
//!
//! One command a line, an optional numeric id first; each answered with
//! `= [id] result` or `? [id] error`, then a blank line. Moves are written
//! `f5` (any case read), a pass `pass`. A command that cannot be carried
//! out gets `?` and changes nothing; the engine never stops but at `quit`
//! or the end of its input.
//!
//! The time for each move: what `time_left` last said (the seconds left
//! over the stones left, or, with no stones, over the moves the side has
//! left at most), else the bot's `--move-time` (the judge's second).

use reversi_core::bitboard::Square;
use reversi_core::board::{Board, Color};
use reversi_core::player::Player;
use std::io::{self, BufRead, Write};
use std::time::{Duration, Instant};

/// The commands answered, as `list_commands` lists them.
const COMMANDS: &[&str] = &[
    "protocol_version",
    "name",
    "version",
    "known_command",
    "list_commands",
    "boardsize",
    "clear_board",
    "komi",
    "play",
    "genmove",
    "undo",
    "showboard",
    "final_score",
    "time_settings",
    "time_left",
    "quit",
];

/// A game as GTP sees it: the position, who is to move, and every earlier
/// one for `undo`.
struct Game {
    board: Board,
    to_move: Color,
    history: Vec<(Board, Color)>,
    /// Seconds per move from `time_settings` with stones (byo-yomi), kept
    /// for `time_left`'s with none.
    stones: Option<(f64, u32)>,
}

impl Game {
    fn new() -> Game {
        Game {
            board: Board::start(),
            to_move: Color::Black,
            history: Vec::new(),
            stones: None,
        }
    }

    /// Plays `square` (`None`: a pass) for `color`, passing first for the
    /// other side if it has no move and it is its turn; refused if the
    /// move is not legal.
    fn play(&mut self, color: Color, square: Option<Square>) -> Result<(), &'static str> {
        let (mut board, mut to_move) = (self.board, self.to_move);
        if color != to_move {
            if board.has_moves() {
                return Err("wrong color");
            }
            board = board.pass();
            to_move = color;
        }
        let next = match square {
            None if board.has_moves() => return Err("illegal move (a move can be played)"),
            None => board.pass(),
            Some(sq) if board.is_legal(sq) => board.play(sq),
            Some(_) => return Err("illegal move"),
        };
        self.history.push((self.board, self.to_move));
        self.board = next;
        self.to_move = to_move.other();
        Ok(())
    }
}

/// `b`, `black`, `w`, `white` (any case).
fn color(word: Option<&str>) -> Option<Color> {
    match word?.to_ascii_lowercase().as_str() {
        "b" | "black" => Some(Color::Black),
        "w" | "white" => Some(Color::White),
        _ => None,
    }
}

/// A move: a square or `pass` (`pa`, as some write it).
fn square(word: Option<&str>) -> Result<Option<Square>, &'static str> {
    let word = word
        .ok_or("syntax error (missing move)")?
        .to_ascii_lowercase();
    match word.as_str() {
        "pass" | "pa" => Ok(None),
        w => Square::parse(w)
            .map(Some)
            .ok_or("syntax error (not a move)"),
    }
}

/// Black's discs less white's: at the end of the game with the empty
/// squares to the winner (the score that decides an Othello game), before
/// it the discs on the board.
fn final_score(board: &Board, to_move: Color) -> i32 {
    let own = if board.is_game_over() {
        board.final_score()
    } else {
        board.player.count_ones() as i32 - board.opponent.count_ones() as i32
    };
    if to_move == Color::Black {
        own
    } else {
        -own
    }
}

/// Speaks GTP on `input`/`output` with `player` choosing the moves;
/// `default_limit` is the time per move until `time_left` says otherwise.
/// Notes on bad lines go to `log`.
pub fn run(
    input: &mut impl BufRead,
    output: &mut impl Write,
    log: &mut impl Write,
    player: &mut dyn Player,
    default_limit: Duration,
) -> io::Result<()> {
    let mut game = Game::new();
    let mut limit = default_limit;
    player.new_game();
    loop {
        let mut cut = false;
        let Some(line) = reversi_core::lines::read_line(input, &mut cut)? else {
            return Ok(());
        };
        let started = Instant::now();
        let line = line.split('#').next().unwrap_or("").trim().to_string();
        if line.is_empty() {
            continue;
        }
        let mut words = line.split_whitespace();
        let first = words.next().unwrap_or("");
        let (id, command) = match first.parse::<u64>() {
            Ok(id) => (Some(id), words.next().unwrap_or("")),
            Err(_) => (None, first),
        };
        let id_text = id.map_or(String::new(), |id| id.to_string());
        let args: Vec<&str> = words.collect();
        let reply: Result<String, String> = match command {
            "protocol_version" => Ok("2".into()),
            "name" => Ok("reversi".into()),
            "version" => Ok(env!("CARGO_PKG_VERSION").into()),
            "known_command" => Ok(COMMANDS
                .contains(&args.first().copied().unwrap_or(""))
                .to_string()),
            "list_commands" => Ok(COMMANDS.join("\n")),
            "boardsize" => match args.first().map(|a| a.parse::<u32>()) {
                Some(Ok(8)) => Ok(String::new()),
                _ => Err("unacceptable size".into()),
            },
            "clear_board" => {
                game = Game::new();
                player.new_game();
                Ok(String::new())
            }
            "komi" => match args.first().map(|a| a.parse::<f64>()) {
                Some(Ok(_)) => Ok(String::new()),
                _ => Err("syntax error (komi takes a number)".into()),
            },
            "play" => match color(args.first().copied()) {
                None => Err("syntax error (wrong or missing color)".into()),
                Some(c) => square(args.get(1).copied())
                    .and_then(|sq| game.play(c, sq))
                    .map(|()| String::new())
                    .map_err(String::from),
            },
            "genmove" => match color(args.first().copied()) {
                None => Err("syntax error (wrong or missing color)".into()),
                Some(c) => {
                    let mut board = game.board;
                    if c != game.to_move && !board.has_moves() {
                        board = board.pass();
                    }
                    if c != game.to_move && board == game.board {
                        Err("wrong color".into())
                    } else {
                        player.set_limit(limit);
                        let choice = if board.has_moves() {
                            player.choose(&board, started).square
                        } else {
                            None
                        };
                        match game.play(c, choice) {
                            Ok(()) => Ok(choice.map_or("pass".to_string(), |s| s.to_string())),
                            Err(e) => Err(format!("the engine failed: {e}")),
                        }
                    }
                }
            },
            "undo" => match game.history.pop() {
                Some((board, to_move)) => {
                    game.board = board;
                    game.to_move = to_move;
                    Ok(String::new())
                }
                None => Err("cannot undo".into()),
            },
            "showboard" => Ok(format!("\n{}", game.board.diagram(game.to_move).trim_end())),
            "final_score" => {
                let score = final_score(&game.board, game.to_move);
                Ok(match score {
                    0 => "0".to_string(),
                    s if s > 0 => format!("B+{s}"),
                    s => format!("W+{}", -s),
                })
            }
            "time_settings" => {
                let numbers: Vec<f64> = args.iter().filter_map(|a| a.parse().ok()).collect();
                match numbers.as_slice() {
                    [main, byo, stones] if numbers.iter().all(|n| *n >= 0.0) => {
                        game.stones = (*stones >= 1.0).then_some((*byo, *stones as u32));
                        if let Some(per_move) = per_move(*main, 0, game.stones, &game.board) {
                            limit = per_move;
                        }
                        Ok(String::new())
                    }
                    _ => Err("syntax error (main time, byo-yomi time, stones)".into()),
                }
            }
            "time_left" => {
                let seconds = args.get(1).and_then(|a| a.parse::<f64>().ok());
                let stones = args.get(2).and_then(|a| a.parse::<u32>().ok()).unwrap_or(0);
                match (color(args.first().copied()), seconds) {
                    (Some(_), Some(s)) if s >= 0.0 => {
                        if let Some(per_move) = per_move(s, stones, game.stones, &game.board) {
                            limit = per_move;
                        }
                        Ok(String::new())
                    }
                    _ => Err("syntax error (color, seconds, stones)".into()),
                }
            }
            "quit" => {
                write_reply(output, '=', &id_text, "")?;
                return Ok(());
            }
            "" => Err("syntax error (no command)".into()),
            other => {
                let _ = writeln!(log, "gtp: unknown command '{other}'");
                Err("unknown command".into())
            }
        };
        match reply {
            Ok(text) => write_reply(output, '=', &id_text, &text)?,
            Err(text) => write_reply(output, '?', &id_text, &text)?,
        }
    }
}

/// The time for one move: `seconds` over the `stones` left (byo-yomi),
/// or over the moves the side may still have to play; a tenth of a second
/// at least. `None` when nothing is known.
fn per_move(
    seconds: f64,
    stones: u32,
    byo_yomi: Option<(f64, u32)>,
    board: &Board,
) -> Option<Duration> {
    let per_move = if stones > 0 {
        seconds / f64::from(stones)
    } else if seconds > 0.0 {
        // Each side plays about half the empty squares.
        seconds / f64::from(board.empty_count().div_ceil(2).max(1))
    } else {
        let (byo, stones) = byo_yomi?;
        byo / f64::from(stones.max(1))
    };
    (per_move.is_finite() && per_move >= 0.0)
        .then(|| Duration::from_secs_f64(per_move.clamp(0.1, 3600.0)))
}

/// `= id text` (or `?`), then the blank line that ends every GTP reply.
fn write_reply(output: &mut impl Write, mark: char, id: &str, text: &str) -> io::Result<()> {
    let head = if id.is_empty() {
        format!("{mark}")
    } else {
        format!("{mark}{id}")
    };
    if text.is_empty() {
        writeln!(output, "{head}\n")?;
    } else {
        writeln!(output, "{head} {text}\n")?;
    }
    output.flush()
}
