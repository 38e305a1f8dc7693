//! The HTTP API, JSON in and out. A bot names itself in two headers,
//! `X-Team` and `X-Secret`; the organiser's calls carry `Authorization:
//! Bearer TOKEN`. Every refusal is a 4xx with `{"error": "one line"}` and
//! changes nothing.
//!
//! | method and path | who | does |
//! | --- | --- | --- |
//! | `POST /api/teams` `{"name","secret"}` | anyone | registers a team (201) |
//! | `POST /api/games` `{"black","white","move_time_ms"}` | organiser | creates a game (201, `{"id"}`) |
//! | `GET /api/games/{id}` | anyone | the game: players, moves, board, side to move, legal moves, ending |
//! | `GET /api/games/{id}/turn?wait=S` | a player | waits up to S s (at most 30) for its turn or the end: the game, with `"your_turn"`; [`crate::MAX_WAITS`] of a team's at once |
//! | `POST /api/games/{id}/move` `{"move"}` | the side to move | judged and stored, then answered: the game after it |

use crate::game::{judge, Position, Verdict};
use crate::store::{GameRow, StoreError};
use crate::{now_ms, App};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

/// The longest a turn request waits.
pub const MAX_WAIT_S: u64 = 30;

/// The longest team name and secret taken.
const MAX_NAME: usize = 40;
const MAX_SECRET: usize = 200;

/// The per-move limits a game may have, in milliseconds.
const MOVE_TIME_MS: (i64, i64) = (10, 600_000);

/// A refusal: its status and one line.
pub struct Refusal(StatusCode, String);

impl Refusal {
    #[must_use]
    pub fn new(status: StatusCode, why: &str) -> Refusal {
        Refusal(status, why.to_string())
    }
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        (self.0, Json(json!({ "error": self.1 }))).into_response()
    }
}

fn refuse(status: StatusCode, why: impl Into<String>) -> Refusal {
    Refusal(status, why.into())
}

impl From<StoreError> for Refusal {
    fn from(e: StoreError) -> Refusal {
        match e {
            StoreError::Exists => refuse(StatusCode::CONFLICT, "a team of that name exists"),
            StoreError::Stale => refuse(StatusCode::CONFLICT, "the game has moved on"),
            StoreError::Other(why) => refuse(StatusCode::INTERNAL_SERVER_ERROR, why),
        }
    }
}

/// Runs a store call off the async threads (SQLite waits for the disk).
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, Refusal> + Send + 'static,
) -> Result<T, Refusal> {
    tokio::task::spawn_blocking(work)
        .await
        .unwrap_or_else(|e| Err(refuse(StatusCode::INTERNAL_SERVER_ERROR, e.to_string())))
}

#[derive(Deserialize)]
pub struct NewTeam {
    name: String,
    secret: String,
}

pub async fn register(
    State(app): State<Arc<App>>,
    body: Result<Json<NewTeam>, axum::extract::rejection::JsonRejection>,
) -> Result<Response, Refusal> {
    let Json(team) = body.map_err(|e| refuse(StatusCode::BAD_REQUEST, e.body_text()))?;
    let name_ok = !team.name.is_empty()
        && team.name.chars().count() <= MAX_NAME
        && team
            .name
            .chars()
            .all(|c| c.is_alphanumeric() || "-_.".contains(c));
    if !name_ok {
        return Err(refuse(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("a team name is 1 to {MAX_NAME} letters, digits, '-', '_' or '.'"),
        ));
    }
    if team.secret.len() < 8 || team.secret.len() > MAX_SECRET {
        return Err(refuse(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("a secret is 8 to {MAX_SECRET} bytes"),
        ));
    }
    let secret = team.secret.clone();
    let hashed = app
        .hashers
        .run(move || crate::secret::hash(&secret))
        .await
        .ok_or_else(|| {
            refuse(
                StatusCode::INTERNAL_SERVER_ERROR,
                "the hashing threads are gone",
            )
        })?
        .map_err(|e| refuse(StatusCode::INTERNAL_SERVER_ERROR, e))?;
    let app = Arc::clone(&app);
    blocking(move || {
        app.store.add_team(&team.name, &hashed, now_ms())?;
        Ok((StatusCode::CREATED, Json(json!({ "name": team.name }))).into_response())
    })
    .await
}

#[derive(Deserialize)]
pub struct NewGame {
    black: String,
    white: String,
    move_time_ms: Option<i64>,
}

pub async fn create_game(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    body: Result<Json<NewGame>, axum::extract::rejection::JsonRejection>,
) -> Result<Response, Refusal> {
    app.check_admin(&headers)?;
    let Json(game) = body.map_err(|e| refuse(StatusCode::BAD_REQUEST, e.body_text()))?;
    let limit = game.move_time_ms.unwrap_or(1000);
    if !(MOVE_TIME_MS.0..=MOVE_TIME_MS.1).contains(&limit) {
        return Err(refuse(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("move_time_ms is {} to {}", MOVE_TIME_MS.0, MOVE_TIME_MS.1),
        ));
    }
    if game.black == game.white {
        return Err(refuse(
            StatusCode::UNPROCESSABLE_ENTITY,
            "a team cannot play itself",
        ));
    }
    blocking(move || {
        for team in [&game.black, &game.white] {
            if app.store.secret_hash(team)?.is_none() {
                return Err(refuse(StatusCode::NOT_FOUND, format!("no team '{team}'")));
            }
        }
        let id = app
            .store
            .create_game(&game.black, &game.white, limit, now_ms())?;
        Ok((StatusCode::CREATED, Json(json!({ "id": id }))).into_response())
    })
    .await
}

/// The game as JSON, from `team`'s view when a team asks.
fn game_json(row: &GameRow, team: Option<&str>) -> Result<Value, Refusal> {
    let position = Position::of(row).map_err(|e| refuse(StatusCode::INTERNAL_SERVER_ERROR, e))?;
    let to_move = if row.ending.is_some() {
        Value::Null
    } else {
        json!(position.to_move.name())
    };
    let mover = if position.to_move == reversi_core::board::Color::Black {
        &row.black
    } else {
        &row.white
    };
    let mut value = json!({
        "id": row.id,
        "black": row.black,
        "white": row.white,
        "move_time_ms": row.move_time_ms,
        "moves": row.moves.iter().map(|m| m.clone().unwrap_or_else(|| "pass".into())).collect::<Vec<_>>(),
        "board": position.cells(),
        "to_move": to_move,
        "legal": if row.ending.is_some() { Vec::new() } else { position.legal() },
        "ending": row.ending,
    });
    if let Some(team) = team {
        value["your_turn"] = json!(row.ending.is_none() && mover == team);
        value["your_color"] = json!(if row.black == team { "black" } else { "white" });
    }
    Ok(value)
}

async fn load(app: &Arc<App>, id: i64) -> Result<GameRow, Refusal> {
    let app = Arc::clone(app);
    blocking(move || {
        app.store
            .game(id)?
            .ok_or_else(|| refuse(StatusCode::NOT_FOUND, format!("no game {id}")))
    })
    .await
}

pub async fn show_game(
    State(app): State<Arc<App>>,
    Path(id): Path<i64>,
) -> Result<Json<Value>, Refusal> {
    let row = load(&app, id).await?;
    Ok(Json(game_json(&row, None)?))
}

/// The team the headers name, if their secret is its own.
async fn team_of(app: &Arc<App>, headers: &HeaderMap) -> Result<String, Refusal> {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
            .ok_or_else(|| refuse(StatusCode::UNAUTHORIZED, format!("no {name} header")))
    };
    let (team, secret) = (header("x-team")?, header("x-secret")?);
    if app.checked.known(&team, &secret) {
        return Ok(team);
    }
    let worker = Arc::clone(app);
    app.hashers
        .run(move || {
            let stored = worker.store.secret_hash(&team)?;
            match stored {
                Some(hash) if crate::secret::matches(&secret, &hash) => {
                    worker.checked.remember(&team, &secret);
                    Ok(team)
                }
                _ => Err(refuse(StatusCode::UNAUTHORIZED, "wrong team or secret")),
            }
        })
        .await
        .unwrap_or_else(|| {
            Err(refuse(
                StatusCode::INTERNAL_SERVER_ERROR,
                "the hashing threads are gone",
            ))
        })
}

fn player_of(row: &GameRow, team: &str) -> Result<(), Refusal> {
    if row.black == team || row.white == team {
        Ok(())
    } else {
        Err(refuse(
            StatusCode::FORBIDDEN,
            format!("'{team}' does not play game {}", row.id),
        ))
    }
}

#[derive(Deserialize)]
pub struct Wait {
    wait: Option<u64>,
}

pub async fn turn(
    State(app): State<Arc<App>>,
    Path(id): Path<i64>,
    Query(wait): Query<Wait>,
    headers: HeaderMap,
) -> Result<Json<Value>, Refusal> {
    let team = team_of(&app, &headers).await?;
    let _waiting = app.waits.enter(&team).ok_or_else(|| {
        refuse(
            StatusCode::TOO_MANY_REQUESTS,
            format!(
                "{} turn requests of '{team}' wait already",
                crate::MAX_WAITS
            ),
        )
    })?;
    let deadline = tokio::time::Instant::now()
        + Duration::from_secs(wait.wait.unwrap_or(MAX_WAIT_S).min(MAX_WAIT_S));
    loop {
        // Listen before looking, so that no move slips in between.
        let signal = app.moved.of(id);
        let changed = signal.notified();
        let row = load(&app, id).await?;
        player_of(&row, &team)?;
        let value = game_json(&row, Some(&team))?;
        let settled = value["your_turn"] == json!(true) || row.ending.is_some();
        if settled || tokio::time::Instant::now() >= deadline {
            return Ok(Json(value));
        }
        let _ = tokio::time::timeout_at(deadline, changed).await;
    }
}

#[derive(Deserialize)]
pub struct Move {
    #[serde(rename = "move")]
    text: String,
}

pub async fn play(
    State(app): State<Arc<App>>,
    Path(id): Path<i64>,
    headers: HeaderMap,
    body: Result<Json<Move>, axum::extract::rejection::JsonRejection>,
) -> Result<Json<Value>, Refusal> {
    // Timed from arrival: the body's parsing and the secret's check are
    // the server's time, not the bot's.
    let arrived = now_ms();
    let team = team_of(&app, &headers).await?;
    let Json(m) = body.map_err(|e| refuse(StatusCode::BAD_REQUEST, e.body_text()))?;
    let row = load(&app, id).await?;
    player_of(&row, &team)?;
    let position = Position::of(&row).map_err(|e| refuse(StatusCode::INTERNAL_SERVER_ERROR, e))?;
    let mover = if position.to_move == reversi_core::board::Color::Black {
        &row.black
    } else {
        &row.white
    };
    if row.ending.is_some() || *mover != team {
        return Err(refuse(StatusCode::CONFLICT, "not your turn"));
    }
    let verdict = judge(
        &position,
        &m.text,
        arrived - row.turn_since_ms,
        row.move_time_ms,
    );
    let stored_app = Arc::clone(&app);
    let ply = position.ply;
    blocking(move || {
        match &verdict {
            Verdict::Play { square, ending } => {
                stored_app
                    .store
                    .play(id, ply, square.as_deref(), ending.as_deref(), now_ms())?
            }
            Verdict::Forfeit(ending) => stored_app.store.end(id, ply, ending)?,
        }
        Ok(())
    })
    .await?;
    app.moved.raise(id);
    let row = load(&app, id).await?;
    if row.ending.is_some() {
        app.moved.forget(id);
    }
    Ok(Json(game_json(&row, Some(&team))?))
}

pub async fn not_found() -> Refusal {
    refuse(StatusCode::NOT_FOUND, "no such page")
}
