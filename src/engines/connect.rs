//! `reversi connect URL --team T --secret S (--game N | --contest C) --
//! CMD`: plays the arena server's (`reversi-server`) games with any
//! judge-protocol program, through a [`crate::arena::seat`] whose table is the
//! server's HTTP API: one game, or every game the team is given in a
//! contest until the contest ends.
//!
//! The server may go away (a restart): every request is tried again for
//! [`RECONNECT_FOR`], and a move that was stored before the answer was
//! lost is recognised in the game's moves rather than sent twice. A
//! server that slows us (429), cannot store (503) or does not take our
//! move is asked again after a wait that doubles each time ([`Backoff`]).
//!
//! The server is trusted with nothing it did not earn: the team's secret
//! goes to the URL given and nowhere else (a redirect is not followed),
//! and what the server says is printed with its control characters
//! escaped, so that it cannot drive the terminal.

use crate::arena::seat::{self, Backoff, Stop, Table, View};
use crate::util::escape_controls;
use reversi_core::board::Color;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// How long the server may be unreachable before the bridge gives up.
pub const RECONNECT_FOR: Duration = Duration::from_secs(60);

/// How long one request may wait on the server (its own cap on a
/// long poll is 30 s).
const WAIT_S: u64 = 20;

/// How often a bot waiting for its contest to be made asks again.
const CONTEST_LOOK_EVERY: Duration = Duration::from_secs(1);

/// What to play.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Play {
    Game(i64),
    /// Every game of the contest, one after the other, until it ends.
    Contest(i64),
}

pub struct Options {
    pub url: String,
    pub team: String,
    pub secret: String,
    pub play: Play,
    pub command: String,
}

/// The server, as the team.
struct Server {
    agent: ureq::Agent,
    url: String,
    team: String,
    secret: String,
}

/// A request's failure: the server's refusal (its status and reason), or
/// no answer at all.
enum Failure {
    Refused(u16, String),
    Unreachable(String),
}

impl Server {
    fn new(options: &Options) -> Server {
        let config = ureq::Agent::config_builder()
            .timeout_global(Some(Duration::from_secs(WAIT_S + 10)))
            .http_status_as_error(false)
            .max_redirects(0)
            .build();
        Server {
            agent: config.into(),
            url: options.url.trim_end_matches('/').to_string(),
            team: options.team.clone(),
            secret: options.secret.clone(),
        }
    }

    fn request(&self, path: &str, body: Option<&Value>) -> Result<Value, Failure> {
        let url = format!("{}{path}", self.url);
        let response = match body {
            Some(body) => self
                .agent
                .post(&url)
                .header("x-team", &self.team)
                .header("x-secret", &self.secret)
                .send_json(body),
            None => self
                .agent
                .get(&url)
                .header("x-team", &self.team)
                .header("x-secret", &self.secret)
                .call(),
        };
        let mut response = response.map_err(|e| Failure::Unreachable(e.to_string()))?;
        let status = response.status().as_u16();
        let value = response.body_mut().read_json::<Value>();
        match (status, value) {
            (200..=299, Ok(value)) => Ok(value),
            (200..=299, Err(e)) => Err(Failure::Unreachable(e.to_string())),
            (_, value) => {
                let why = value
                    .ok()
                    .and_then(|v| v["error"].as_str().map(str::to_string))
                    .unwrap_or_default();
                Err(Failure::Refused(status, why))
            }
        }
    }

    /// `request`, tried again while the server cannot be reached, slows
    /// us down, or cannot store (for [`RECONNECT_FOR`] in all).
    fn patient(&self, path: &str, body: Option<&Value>) -> Result<Value, String> {
        self.patient_for(path, body, |_| false)
    }

    /// `patient`, waiting also while the server refuses with a status
    /// `wait_on` accepts (a contest not made yet, say).
    fn patient_for(
        &self,
        path: &str,
        body: Option<&Value>,
        mut wait_on: impl FnMut(u16) -> bool,
    ) -> Result<Value, String> {
        let since = Instant::now();
        let method = if body.is_some() { "POST" } else { "GET" };
        let mut backoff = Backoff::new();
        loop {
            match self.request(path, body) {
                Ok(value) => return Ok(value),
                // Slowed down (several bots behind one address share its
                // rate), or the server could not store: wait, ask again.
                Err(Failure::Refused(429 | 503, _)) if since.elapsed() < RECONNECT_FOR => {
                    backoff.wait();
                }
                Err(Failure::Refused(code, _)) if wait_on(code) => {
                    std::thread::sleep(CONTEST_LOOK_EVERY);
                }
                Err(Failure::Refused(code @ 300..=399, _)) => {
                    return Err(format!(
                        "{method} {path}: the server redirects ({code}); not followed, so that the secret goes nowhere else: give the URL it names"
                    ))
                }
                Err(Failure::Refused(code, why)) => {
                    return Err(format!(
                        "{method} {path}: the server refused ({code}) {why}"
                    ))
                }
                Err(Failure::Unreachable(why)) if since.elapsed() >= RECONNECT_FOR => {
                    return Err(format!("{method} {path}: {why}"))
                }
                // Not an answer: a server restarting offers every turn
                // anew, and the bot must be back within the move's time.
                Err(Failure::Unreachable(_)) => std::thread::sleep(Duration::from_millis(200)),
            }
        }
    }
}

/// One of the server's games, as the team's seat.
struct Game<'a> {
    server: &'a Server,
    id: i64,
}

impl Table for Game<'_> {
    fn look(&self, wait: Duration) -> Result<View, String> {
        let path = format!("/api/games/{}/turn?wait={}", self.id, wait.as_secs());
        let game = self.server.patient(&path, None)?;
        let color = match game["your_color"].as_str() {
            Some("black") => Color::Black,
            Some("white") => Color::White,
            _ => return Err(format!("game {}: the server names no colour", self.id)),
        };
        let moves = game["moves"]
            .as_array()
            .map(|moves| {
                moves
                    .iter()
                    .filter_map(|m| m.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        Ok(View {
            moves,
            color,
            ending: game["ending"].as_str().map(str::to_string),
            my_turn: game["your_turn"] == json!(true),
            move_time: Duration::from_millis(game["move_time_ms"].as_u64().unwrap_or(1000)),
        })
    }

    fn send(&self, text: &str) -> Result<(), String> {
        let path = format!("/api/games/{}/move", self.id);
        match self.server.patient(&path, Some(&json!({ "move": text }))) {
            Ok(_) => Ok(()),
            // Our move stored before a restart, or the game ended.
            Err(e) if e.contains("(409)") => Ok(()),
            Err(e) => Err(e),
        }
    }
}

/// Plays one game to its end; returns how it ended.
fn play_game(server: &Server, id: i64, command: &str) -> Result<String, String> {
    let game = server.patient(&format!("/api/games/{id}"), None)?;
    if game["black"].as_str() != Some(&server.team) && game["white"].as_str() != Some(&server.team)
    {
        return Err(format!("team '{}' does not play game {id}", server.team));
    }
    seat::play(&Game { server, id }, command).map_err(|stop| match stop {
        // The server ends the game when the side's time runs out.
        Stop::Program(why) => format!("game {id}: {why}"),
        Stop::Table(why) => format!("game {id}: {why}"),
    })
}

/// Plays what `options` asks; returns one line a game, how each ended,
/// with whatever the server said escaped ([`escape_controls`]).
pub fn run(options: &Options) -> Result<Vec<String>, String> {
    match play_all(options) {
        Ok(lines) => Ok(lines.iter().map(|l| escape_controls(l)).collect()),
        Err(e) => Err(escape_controls(&e)),
    }
}

fn play_all(options: &Options) -> Result<Vec<String>, String> {
    let server = Server::new(options);
    match options.play {
        Play::Game(id) => {
            let ending = play_game(&server, id, &options.command)?;
            Ok(vec![format!("game {id}: {ending}")])
        }
        Play::Contest(contest) => {
            let mut endings = Vec::new();
            // The game the program last failed in: it is left to the
            // server's clock rather than started again at once.
            let mut failed: Option<i64> = None;
            let mut told = false;
            loop {
                let path = format!("/api/contests/{contest}/next?wait={WAIT_S}");
                // A bot may be started before its contest is made: it waits
                // for it (and, through the long poll, for its start).
                let next = server.patient_for(&path, None, |code| {
                    if code == 404 && !std::mem::replace(&mut told, true) {
                        eprintln!("reversi connect: no contest {contest} yet: waiting for it");
                    }
                    code == 404
                })?;
                if let Some(id) = next["game"].as_i64() {
                    if failed == Some(id) {
                        std::thread::sleep(Duration::from_millis(500));
                        continue;
                    }
                    // A program that fails loses this game, not the contest.
                    let ending = match play_game(&server, id, &options.command) {
                        Ok(ending) => ending,
                        Err(e) => {
                            failed = Some(id);
                            format!("not played to the end here: {e}")
                        }
                    };
                    endings.push(format!("game {id}: {ending}"));
                } else if next["finished"] == json!(true) {
                    endings.push(format!("contest {contest}: finished"));
                    return Ok(endings);
                }
            }
        }
    }
}
