//! `reversi connect URL --team T --secret S --game N -- CMD`: plays a game
//! of the arena server (`reversi-server`) with any judge-protocol program.
//! The program hears the judge's lines as under our referee (the start
//! placed, `BEGIN` or the opponent's `TURN`/`PASS`, `END`), and each of its
//! replies goes to the server as the team's move; the server judges it.
//!
//! The server may go away (a restart): every request is tried again for
//! [`RECONNECT_FOR`], and a move that was stored before the answer was
//! lost is recognised in the game's moves rather than sent twice.

use crate::arena::program::{Program, EXIT_LIMIT, SETUP_LIMIT};
use reversi_core::bitboard::Square;
use reversi_core::protocol::{Command, Owner};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// How long the server may be unreachable before the bridge gives up.
pub const RECONNECT_FOR: Duration = Duration::from_secs(60);

/// How long one turn request waits on the server (its own cap is 30 s).
const WAIT_S: u64 = 20;

pub struct Options {
    pub url: String,
    pub team: String,
    pub secret: String,
    pub game: i64,
    pub command: String,
}

struct Server {
    agent: ureq::Agent,
    options: Options,
}

/// A request's failure: the server's refusal (its status and reason), or
/// no answer at all.
enum Failure {
    Refused(u16, String),
    Unreachable(String),
}

impl Server {
    fn request(&self, method: &str, path: &str, body: Option<&Value>) -> Result<Value, Failure> {
        let url = format!("{}{path}", self.options.url.trim_end_matches('/'));
        let response = match (method, body) {
            ("POST", Some(body)) => self
                .agent
                .post(&url)
                .header("x-team", &self.options.team)
                .header("x-secret", &self.options.secret)
                .send_json(body),
            _ => self
                .agent
                .get(&url)
                .header("x-team", &self.options.team)
                .header("x-secret", &self.options.secret)
                .call(),
        };
        match response {
            Ok(mut r) => r
                .body_mut()
                .read_json::<Value>()
                .map_err(|e| Failure::Unreachable(e.to_string())),
            Err(ureq::Error::StatusCode(code)) => Err(Failure::Refused(code, String::new())),
            Err(e) => Err(Failure::Unreachable(e.to_string())),
        }
    }

    /// `request`, tried again while the server cannot be reached.
    fn patient(&self, method: &str, path: &str, body: Option<&Value>) -> Result<Value, String> {
        let since = Instant::now();
        loop {
            match self.request(method, path, body) {
                Ok(value) => return Ok(value),
                Err(Failure::Refused(code, why)) => {
                    return Err(format!(
                        "{method} {path}: the server refused ({code}) {why}"
                    ))
                }
                Err(Failure::Unreachable(why)) if since.elapsed() >= RECONNECT_FOR => {
                    return Err(format!("{method} {path}: {why}"))
                }
                Err(Failure::Unreachable(_)) => std::thread::sleep(Duration::from_millis(200)),
            }
        }
    }
}

/// A judge-protocol reply as the server takes a move: `d 3` -> `d3`,
/// `PASS` -> `pass`; anything else as it was (the server refuses it).
fn server_move(reply: &str) -> String {
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

fn moves_of(game: &Value) -> Vec<String> {
    game["moves"]
        .as_array()
        .map(|moves| {
            moves
                .iter()
                .filter_map(|m| m.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// Plays the game to its end; returns how it ended.
pub fn run(options: Options) -> Result<String, String> {
    let config = ureq::Agent::config_builder()
        .timeout_global(Some(Duration::from_secs(WAIT_S + 10)))
        .http_status_as_error(true)
        .build();
    let server = Server {
        agent: config.into(),
        options,
    };
    let id = server.options.game;
    let game = server.patient("GET", &format!("/api/games/{id}"), None)?;
    let black = game["black"].as_str() == Some(server.options.team.as_str());
    if !black && game["white"].as_str() != Some(server.options.team.as_str()) {
        return Err(format!(
            "team '{}' does not play game {id}",
            server.options.team
        ));
    }
    let limit = Duration::from_millis(game["move_time_ms"].as_u64().unwrap_or(1000));
    let mut program = Program::spawn_with_limit(&server.options.command, None, Some(limit))
        .map_err(|e| format!("could not start '{}': {e}", server.options.command))?;
    // The start, placed as the referee places it, from our side.
    let start = reversi_core::board::Board::start();
    let (ours, theirs) = if black {
        (start.player, start.opponent)
    } else {
        (start.opponent, start.player)
    };
    let mut setup = vec![Command::Start.to_string()];
    for (discs, owner) in [(ours, Owner::Mine), (theirs, Owner::Theirs)] {
        for sq in reversi_core::bitboard::squares(discs) {
            setup.push(Command::Place(sq, owner).to_string());
        }
    }
    setup.push(Command::Done.to_string());
    let mut sent = Instant::now();
    for line in &setup {
        sent = program.send(line).map_err(|f| format!("the program {f}"))?;
    }
    let (ok, _) = program
        .receive(sent, SETUP_LIMIT)
        .map_err(|f| format!("after DONE: the program {f}"))?;
    if ok != "OK" {
        return Err(format!("after DONE the program said '{ok}', not OK"));
    }
    // The moves of the game the program knows of, and our last move sent
    // to the server, until the server shows it.
    let mut relayed = 0usize;
    let mut pending: Option<String> = None;
    let ours_at = |ply: usize| ply.is_multiple_of(2) == black;
    loop {
        let game = server.patient("GET", &format!("/api/games/{id}/turn?wait={WAIT_S}"), None)?;
        let moves = moves_of(&game);
        if let Some(own) = pending.take() {
            if moves.len() > relayed && ours_at(relayed) && moves[relayed] == own {
                relayed += 1;
            } else if game["ending"].is_null() {
                // Not stored: the server refused it or never saw it.
                pending = Some(own);
            }
        }
        if let Some(ending) = game["ending"].as_str() {
            let _ = program.send("END");
            let _ = program.finish(EXIT_LIMIT);
            return Ok(ending.to_string());
        }
        if game["your_turn"] != json!(true) {
            continue;
        }
        if let Some(own) = pending.take() {
            // Our move was not stored, and it is our turn: send it again.
            post_move(&server, id, &own)?;
            pending = Some(own);
            continue;
        }
        let request = match moves.get(relayed) {
            None if relayed == 0 => "BEGIN".to_string(),
            None => {
                return Err(format!(
                    "game {id}: our turn, but no move of the opponent's"
                ))
            }
            Some(m) if m == "pass" => Command::Pass.to_string(),
            Some(m) => match Square::parse(m) {
                Some(sq) => Command::Turn(sq).to_string(),
                None => return Err(format!("game {id}: the server shows the move '{m}'")),
            },
        };
        relayed = moves.len();
        let sent = program
            .send(&request)
            .map_err(|f| format!("the program {f}"))?;
        // The server keeps the clock; ours only stops waiting on a
        // program that has plainly gone.
        let (reply, _) = program
            .receive(sent, limit + Duration::from_secs(5))
            .map_err(|f| format!("after {request}: the program {f}"))?;
        let own = server_move(&reply);
        post_move(&server, id, &own)?;
        pending = Some(own);
    }
}

/// Sends our move; a refusal because the game moved on (our move stored
/// before a restart, or the game ended) is left to the next look.
fn post_move(server: &Server, id: i64, own: &str) -> Result<(), String> {
    match server.patient(
        "POST",
        &format!("/api/games/{id}/move"),
        Some(&json!({ "move": own })),
    ) {
        Ok(_) => Ok(()),
        Err(e) if e.contains("(409)") => Ok(()),
        Err(e) => Err(e),
    }
}
