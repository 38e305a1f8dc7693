//! `reversi ggs --host H --port P --login L [-- CMD]`: plays on a GGS
//! server (the Generic Game Server's protocol, the arena's `--ggs-addr`
//! included) with any judge-protocol program, through a [`crate::arena::seat`]
//! whose table is the GGS connection.
//!
//! It logs in (the password from `REVERSI_SECRET`), asks the `/os`
//! service for games as GGF records (`client +`), and plays each game it
//! joins with a fresh program, in a thread of its own. The server is
//! trusted with nothing: lines are bounded, what it says is printed with
//! its control characters escaped, and a game it describes badly is
//! left, not played.

use crate::arena::seat::{self, Stop, Table, View};
use crate::util::escape_controls;
use reversi_core::board::Color;
use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// A line from the server, at most (bytes): a GGF record of a whole game
/// is under 2 KB.
const MAX_LINE: u64 = 64 * 1024;

/// How long a sent move may wait for the server's update.
const MOVE_ANSWERED_WITHIN: Duration = Duration::from_secs(5);

/// How often an idle client tells the server it is still there.
const KEEP_ALIVE: Duration = Duration::from_secs(60);

pub struct Options {
    pub host: String,
    pub port: u16,
    pub login: String,
    pub password: String,
    pub command: String,
    /// Games to play before leaving (0: until the server closes).
    pub games: usize,
}

/// One game as the server has told it.
#[derive(Clone, Debug, Default)]
struct Known {
    moves: Vec<String>,
    color: Option<Color>,
    move_time: Duration,
    ending: Option<String>,
}

/// What the reader has learnt, shared with the games' threads.
#[derive(Default)]
struct Games {
    known: Mutex<HashMap<String, Known>>,
    changed: Condvar,
}

/// The connection's writing end.
struct Writer(Mutex<TcpStream>);

impl Writer {
    fn send(&self, line: &str) -> Result<(), String> {
        let mut stream = self.0.lock().unwrap_or_else(|e| e.into_inner());
        stream
            .write_all(format!("{line}\n").as_bytes())
            .and_then(|()| stream.flush())
            .map_err(|e| format!("the server: {e}"))
    }
}

/// One game, as its seat sees it.
struct Game {
    id: String,
    games: Arc<Games>,
    writer: Arc<Writer>,
}

impl Games {
    /// Waits until `done` holds of what is known (it returns `Some`), or
    /// `until`; then what `done` gave, or `None`.
    fn wait_for<T>(
        &self,
        until: Instant,
        mut done: impl FnMut(&HashMap<String, Known>) -> Option<T>,
    ) -> Option<T> {
        let mut known = self.known.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(found) = done(&known) {
                return Some(found);
            }
            let now = Instant::now();
            if now >= until {
                return None;
            }
            known = self
                .changed
                .wait_timeout(known, until - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }
}

impl Game {
    /// The game as the seat sees it now.
    fn view(&self, known: &HashMap<String, Known>) -> Result<View, String> {
        let game = known
            .get(&self.id)
            .ok_or_else(|| format!("game {}: the server forgot it", self.id))?;
        let color = game
            .color
            .ok_or_else(|| format!("game {}: we play neither side", self.id))?;
        let to_move = if game.moves.len().is_multiple_of(2) {
            Color::Black
        } else {
            Color::White
        };
        Ok(View {
            moves: game.moves.clone(),
            color,
            ending: game.ending.clone(),
            my_turn: to_move == color && game.ending.is_none(),
            move_time: game.move_time,
        })
    }
}

impl Table for Game {
    fn look(&self, wait: Duration) -> Result<View, String> {
        let until = Instant::now() + wait;
        let settled = self.games.wait_for(until, |known| match self.view(known) {
            Ok(view) if !view.my_turn && view.ending.is_none() => None,
            other => Some(other),
        });
        match settled {
            Some(view) => view,
            None => self.view(&self.games.known.lock().unwrap_or_else(|e| e.into_inner())),
        }
    }

    fn send(&self, text: &str) -> Result<(), String> {
        let word = if text.eq_ignore_ascii_case("pass") {
            "PA".to_string()
        } else {
            text.to_ascii_uppercase()
        };
        let sent_at = {
            let known = self.games.known.lock().unwrap_or_else(|e| e.into_inner());
            known.get(&self.id).map_or(0, |g| g.moves.len())
        };
        self.writer
            .send(&format!("tell /os play {} {word}", self.id))?;
        // As over HTTP, the move is sent once the server has it: the
        // seat looks again only after the server's update (or the end,
        // or a while, when the server refused it and said why).
        self.games
            .wait_for(Instant::now() + MOVE_ANSWERED_WITHIN, |known| {
                known
                    .get(&self.id)
                    .is_none_or(|g| g.moves.len() > sent_at || g.ending.is_some())
                    .then_some(())
            });
        Ok(())
    }
}

/// What the connection gave.
enum Heard {
    Line(String),
    /// Nothing for a moment.
    Quiet,
    Closed,
}

/// The server's lines, read with a timeout so that the client can do its
/// own work between them, keeping a line's start across timeouts.
struct Lines {
    stream: TcpStream,
    pending: Vec<u8>,
}

impl Lines {
    fn next(&mut self) -> Result<Heard, String> {
        loop {
            if let Some(at) = self.pending.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = self.pending.drain(..=at).collect();
                let text = String::from_utf8_lossy(&line);
                return Ok(Heard::Line(text.trim_end_matches(['\n', '\r']).to_string()));
            }
            if self.pending.len() as u64 > MAX_LINE {
                return Err(format!("the server sent a line over {MAX_LINE} bytes"));
            }
            let mut buffer = [0u8; 8192];
            match self.stream.read(&mut buffer) {
                Ok(0) => return Ok(Heard::Closed),
                Ok(n) => self.pending.extend_from_slice(&buffer[..n]),
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) =>
                {
                    return Ok(Heard::Quiet)
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(format!("the server: {e}")),
            }
        }
    }
}

/// A GGS clock (`M:SS`, `H:MM:SS`, seconds, with `.mmm`) as a duration.
fn parse_clock(text: &str) -> Option<Duration> {
    let main = text.split(['/', ',']).next()?;
    let mut seconds = 0.0f64;
    for part in main.split(':') {
        seconds = seconds * 60.0 + part.trim().parse::<f64>().ok()?;
    }
    (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds))
}

/// The game a GGF `join` describes, for `login`.
fn joined(record: &str, login: &str) -> Result<Known, String> {
    let game = crate::records::ggf::parse(record)
        .map_err(|e| format!("{e:?}"))?
        .into_iter()
        .next()
        .ok_or("no game in the record")?;
    if game.start() != reversi_core::board::Board::start() {
        return Err("only games from the standard start are played".into());
    }
    let color = if game.tag("PB") == Some(login) {
        Some(Color::Black)
    } else if game.tag("PW") == Some(login) {
        Some(Color::White)
    } else {
        None
    };
    let moves = game
        .moves
        .iter()
        .map(|m| {
            m.square
                .map_or_else(|| "pass".to_string(), |s| s.to_string())
        })
        .collect();
    Ok(Known {
        moves,
        color,
        move_time: game
            .tag("TI")
            .and_then(parse_clock)
            .unwrap_or(Duration::from_secs(1)),
        ending: None,
    })
}

/// A move as an update gives it (`D3/1.00/0.52`, `PA`): its square's
/// name or `pass`.
fn update_move(word: &str) -> Option<String> {
    let square = word.split('/').next()?.to_ascii_lowercase();
    if square == "pa" || square == "ps" || square == "pass" {
        return Some("pass".into());
    }
    reversi_core::bitboard::Square::parse(&square).map(|s| s.to_string())
}

/// Logs in, plays until `options.games` games have ended (or the server
/// closes); one line a game, how it ended.
pub fn run(options: &Options) -> Result<Vec<String>, String> {
    let address = format!("{}:{}", options.host, options.port);
    let stream = TcpStream::connect(&address).map_err(|e| format!("{address}: {e}"))?;
    let _ = stream.set_nodelay(true);
    let writer = Arc::new(Writer(Mutex::new(
        stream.try_clone().map_err(|e| e.to_string())?,
    )));
    stream
        .set_read_timeout(Some(Duration::from_millis(100)))
        .map_err(|e| e.to_string())?;
    let mut lines = Lines {
        stream,
        pending: Vec::new(),
    };
    let games = Arc::new(Games::default());
    let mut endings = Vec::new();
    let mut players: Vec<std::thread::JoinHandle<()>> = Vec::new();
    let (done_tx, done_rx) = std::sync::mpsc::channel::<String>();
    let mut last_said = Instant::now();
    let mut logged_in = false;
    loop {
        if last_said.elapsed() >= KEEP_ALIVE {
            writer.send("tell /os continue")?;
            last_said = Instant::now();
        }
        while let Ok(line) = done_rx.try_recv() {
            endings.push(line);
        }
        if options.games > 0 && endings.len() >= options.games {
            let _ = writer.send("quit");
            break;
        }
        let line = match lines.next()? {
            Heard::Line(line) => line,
            Heard::Quiet => continue,
            Heard::Closed if !logged_in => {
                return Err("the server closed the connection before the login ended".into())
            }
            Heard::Closed => break,
        };
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            [":", "Enter", "login", ..] => writer.send(&options.login)?,
            [":", "Enter", "your", "password."] => writer.send(&options.password)?,
            [":", "Refused:", ..] => {
                return Err(format!(
                    "the server refused the login: {}",
                    escape_controls(&line)
                ))
            }
            [":", "+", "/os", "1"] => {
                logged_in = true;
                for setup in ["tell /os trust +", "tell /os client +", "tell /os open 1"] {
                    writer.send(setup)?;
                }
            }
            ["/os:", "join", id, ..] => {
                let record = line.split_once(id).map_or("", |(_, rest)| rest).trim();
                match joined(record, &options.login) {
                    Ok(known) if known.color.is_some() => {
                        let mut all = games.known.lock().unwrap_or_else(|e| e.into_inner());
                        all.insert((*id).to_string(), known);
                        drop(all);
                        games.changed.notify_all();
                        let table = Game {
                            id: (*id).to_string(),
                            games: Arc::clone(&games),
                            writer: Arc::clone(&writer),
                        };
                        let command = options.command.clone();
                        let done = done_tx.clone();
                        players.push(std::thread::spawn(move || {
                            let ending = match seat::play(&table, &command) {
                                Ok(ending) => ending,
                                Err(Stop::Program(why) | Stop::Table(why)) => why,
                            };
                            let _ = done.send(format!(
                                "game {}: {}",
                                table.id,
                                escape_controls(&ending)
                            ));
                        }));
                    }
                    Ok(_) => {}
                    Err(why) => eprintln!(
                        "reversi ggs: game {} left: {}",
                        escape_controls(id),
                        escape_controls(&why)
                    ),
                }
            }
            ["/os:", "update", id, played, ..] => {
                let mut all = games.known.lock().unwrap_or_else(|e| e.into_inner());
                if let (Some(game), Some(m)) = (all.get_mut(*id), update_move(played)) {
                    game.moves.push(m);
                }
                drop(all);
                games.changed.notify_all();
            }
            ["/os:", "end", id, ..] => {
                let result = words.last().copied().unwrap_or_default();
                let mut all = games.known.lock().unwrap_or_else(|e| e.into_inner());
                if let Some(game) = all.get_mut(*id) {
                    game.ending = Some(format!("over, black {result}"));
                }
                drop(all);
                games.changed.notify_all();
            }
            _ => {}
        }
    }
    drop(done_tx);
    for player in players {
        let _ = player.join();
    }
    endings.extend(done_rx.try_iter());
    Ok(endings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clocks_read_as_ggs_writes_them() {
        assert_eq!(parse_clock("0:01"), Some(Duration::from_secs(1)));
        assert_eq!(parse_clock("1:30//2:00"), Some(Duration::from_secs(90)));
        assert_eq!(parse_clock("0:00.850"), Some(Duration::from_millis(850)));
        assert_eq!(parse_clock("soon"), None);
    }

    #[test]
    fn update_moves_read_with_or_without_their_eval_and_time() {
        assert_eq!(update_move("D3/1.00/0.52").as_deref(), Some("d3"));
        assert_eq!(update_move("PA").as_deref(), Some("pass"));
        assert_eq!(update_move("z9"), None);
    }

    #[test]
    fn a_join_says_our_colour_and_the_moves_so_far() {
        let record = "(;GM[Othello]PC[x]PB[edax]PW[ours]TI[0:01]TY[8]BO[8 -------- -------- -------- ---O*--- ---*O--- -------- -------- -------- *]B[d3]W[c5];)";
        let known = joined(record, "ours").unwrap();
        assert_eq!(known.color, Some(Color::White));
        assert_eq!(known.moves, ["d3", "c5"]);
        assert_eq!(known.move_time, Duration::from_secs(1));
        assert_eq!(joined(record, "nobody").unwrap().color, None);
        assert!(joined("(;GM[Othello]", "ours").is_err());
    }
}
