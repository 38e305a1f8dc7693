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
//! | `GET /api/games/{id}/turn?wait=S` | a player | waits up to S s (at most 30) for its turn or the end: the game, with `"your_turn"`; [`crate::http::MAX_WAITS`] of a team's at once |
//! | `POST /api/games/{id}/move` `{"move"}` | the side to move | judged and stored, then answered: the game after it |
//! | `GET /api/games/{id}/log?side=S` | organiser, or side S's team | what a hosted program wrote to stderr in the game |
//! | `GET /api/languages` | anyone | the languages a submission may be in: compiler version, build and run commands |
//! | `POST /api/programs` `{"language","source"}` | a team | submits a program (201, `{"id","state"}`; see [`programs`]) |
//! | `GET /api/programs` | a team (its own), the organiser (all) | the programs, newest first |
//! | `GET /api/programs/{id}` | its team, the organiser | its state, the compiler's messages, why |
//! | `GET /api/programs/{id}/source` | its team, the organiser | its source, as a file |
//! | `POST /api/programs/{id}/retire` | organiser | retires an active program |
//! | `POST /api/teams` `{"name","command"}` | organiser | registers a hosted program (201) |
//! | `POST /api/contests` `{"name","format","entrants",...}` | organiser | creates a contest and starts it (201, `{"id"}`) |
//! | `GET /api/contests/{id}` | anyone | the contest: state, entrants, standings, games |
//! | `GET /api/contests/{id}/next?wait=S` | an entrant | its next game in progress (`{"game","finished"}`) |
//! | `POST /api/contests/{id}/pause`, `.../resume` | organiser | holds or lets go the contest's new games |
//! | `POST /api/contests/{id}/entrants` `{"team"}` | organiser | a new entrant of an Elo pool |

pub mod programs;

use crate::auth::Full;
use crate::game::Position;
use crate::http::conn::Client;
use crate::http::{refuse, Refusal};
use crate::store::{GameRow, StoreError};
use crate::{now_ms, App};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};
use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The longest a turn request waits.
pub const MAX_WAIT_S: u64 = 30;

/// The longest team name, secret, hosted command and contest name taken.
const MAX_NAME: usize = 40;
const MAX_SECRET: usize = 200;
const MAX_COMMAND: usize = 1000;
const MAX_CONTEST_NAME: usize = 80;

/// The most entrants a contest takes.
const MAX_ENTRANTS: usize = 256;

/// The most games an Elo pool may be asked for, and ladder rounds.
const MAX_GAMES: i64 = 1_000_000;

/// The per-move limits a game may have, in milliseconds.
const MOVE_TIME_MS: (i64, i64) = (10, 600_000);

/// A side's setup allowance (see [`crate::store::GameRow::setup_until_ms`]):
/// what `reversi match` gives a program to start, unless a game or a
/// contest says otherwise, and the range it may say.
pub const SETUP_MS: i64 = 5000;
const SETUP_RANGE_MS: (i64, i64) = (0, 60_000);

/// `setup_ms` as asked for (the default without), or why not.
fn setup_of(asked: Option<i64>) -> Result<i64, Refusal> {
    let setup = asked.unwrap_or(SETUP_MS);
    if (SETUP_RANGE_MS.0..=SETUP_RANGE_MS.1).contains(&setup) {
        Ok(setup)
    } else {
        Err(refuse(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("setup_ms is {} to {}", SETUP_RANGE_MS.0, SETUP_RANGE_MS.1),
        ))
    }
}

/// Runs a store call off the async threads (SQLite waits for the disk).
pub(crate) async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, Refusal> + Send + 'static,
) -> Result<T, Refusal> {
    tokio::task::spawn_blocking(work)
        .await
        .unwrap_or_else(|e| Err(refuse(StatusCode::INTERNAL_SERVER_ERROR, e.to_string())))
}

#[derive(Deserialize)]
pub struct NewTeam {
    name: String,
    secret: Option<String>,
    command: Option<String>,
}

pub async fn register(
    State(app): State<Arc<App>>,
    Client(client): Client,
    headers: HeaderMap,
    body: Result<Json<NewTeam>, axum::extract::rejection::JsonRejection>,
) -> Result<Response, Refusal> {
    let Json(team) = body.map_err(|e| refuse(StatusCode::BAD_REQUEST, e.body_text()))?;
    check_name(&team.name)?;
    if let Some(command) = team.command {
        return register_hosted(app, &headers, team.name, command).await;
    }
    let name = add_team(&app, client, team.name, team.secret.unwrap_or_default()).await?;
    Ok((StatusCode::CREATED, Json(json!({ "name": name }))).into_response())
}

/// Refuses a team name that is not 1 to [`MAX_NAME`] ASCII letters,
/// digits, `-`, `_` or `.`.
fn check_name(name: &str) -> Result<(), Refusal> {
    // ASCII only: `alpha` and `аlpha` (a Cyrillic а) must not be two teams
    // a spectator cannot tell apart; the store also refuses a name that
    // differs from another only in case.
    let name_ok = !name.is_empty()
        && name.len() <= MAX_NAME
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
    if name_ok {
        Ok(())
    } else {
        Err(refuse(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("a team name is 1 to {MAX_NAME} ASCII letters, digits, '-', '_' or '.'"),
        ))
    }
}

/// Registers remote team `name` with `secret` (the API's and the sign-up
/// page's): its name once stored.
pub(crate) async fn add_team(
    app: &Arc<App>,
    client: IpAddr,
    name: String,
    secret: String,
) -> Result<String, Refusal> {
    check_name(&name)?;
    if secret.len() < 8 || secret.len() > MAX_SECRET {
        return Err(refuse(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("a secret is 8 to {MAX_SECRET} bytes"),
        ));
    }
    let hashing = secret.clone();
    let hashed = app
        .registrations
        .run(client, move || crate::auth::secret::hash(&hashing))
        .await
        .map_err(busy)?
        .ok_or_else(|| {
            refuse(
                StatusCode::INTERNAL_SERVER_ERROR,
                "the hashing threads are gone",
            )
        })?
        .map_err(|e| refuse(StatusCode::INTERNAL_SERVER_ERROR, e))?;
    let app = Arc::clone(app);
    blocking(move || {
        app.store.add_team(&name, &hashed, now_ms())?;
        // The secret is known good: the team's first requests need no
        // second Argon2 run (a class's bots all starting at once queued
        // behind each other's checks, and their first moves came late).
        app.checked.remember(&name, &secret);
        Ok(name)
    })
    .await
}

/// A full queue of Argon2 work, as a refusal: this client's share is
/// taken (429), or everyone's (503); either way, try again shortly.
fn busy(full: Full) -> Refusal {
    match full {
        Full::Client => refuse(
            StatusCode::TOO_MANY_REQUESTS,
            "this address has secrets waiting to be checked already: slow down",
        ),
        Full::All => refuse(
            StatusCode::SERVICE_UNAVAILABLE,
            "the server has too many secrets to check: try again shortly",
        ),
    }
}

/// A hosted program: the organiser's command line, run as a shell runs it.
async fn register_hosted(
    app: Arc<App>,
    headers: &HeaderMap,
    name: String,
    command: String,
) -> Result<Response, Refusal> {
    app.check_admin(headers)?;
    let command = command.trim().to_string();
    if command.is_empty() || command.len() > MAX_COMMAND {
        return Err(refuse(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("a command is 1 to {MAX_COMMAND} bytes"),
        ));
    }
    // `self` and the bridge's prefixes mean the `reversi` executable to the
    // tools; here they would run the server.
    if ["self", "gtp:", "nboard:", "nboard@"]
        .iter()
        .any(|p| command.starts_with(p))
    {
        return Err(refuse(
            StatusCode::UNPROCESSABLE_ENTITY,
            "the server runs a command as given: name the program by its path",
        ));
    }
    blocking(move || {
        app.store.add_hosted(&name, &command, now_ms())?;
        Ok((
            StatusCode::CREATED,
            Json(json!({ "name": name, "command": command })),
        )
            .into_response())
    })
    .await
}

#[derive(Deserialize)]
pub struct NewGame {
    black: String,
    white: String,
    move_time_ms: Option<i64>,
    setup_ms: Option<i64>,
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
    let setup = setup_of(game.setup_ms)?;
    if game.black == game.white {
        return Err(refuse(
            StatusCode::UNPROCESSABLE_ENTITY,
            "a team cannot play itself",
        ));
    }
    blocking(move || {
        for team in [&game.black, &game.white] {
            if !app.store.has_team(team)? {
                return Err(refuse(StatusCode::NOT_FOUND, format!("no team '{team}'")));
            }
        }
        let id = app
            .store
            .create_game(&game.black, &game.white, limit, setup, now_ms())?;
        if let Some(row) = app.store.game(id)? {
            crate::hosted::seat(&app, &row);
        }
        Ok((StatusCode::CREATED, Json(json!({ "id": id }))).into_response())
    })
    .await
}

/// The game as JSON, from `team`'s view when a team asks.
pub(crate) fn game_json(row: &GameRow, team: Option<&str>) -> Result<Value, Refusal> {
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
        "programs": { "black": row.programs[0], "white": row.programs[1] },
    });
    if let Some(team) = team {
        value["your_turn"] = json!(row.ending.is_none() && mover == team);
        value["your_color"] = json!(if row.black == team { "black" } else { "white" });
    }
    Ok(value)
}

/// Game `id`, or a 404.
pub(crate) async fn load(app: &Arc<App>, id: i64) -> Result<GameRow, Refusal> {
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

/// The team the headers name, if their secret is its own (see
/// [`crate::auth`] for what a wrong one costs, and whom).
pub(crate) async fn team_of(
    app: &Arc<App>,
    client: IpAddr,
    headers: &HeaderMap,
) -> Result<String, Refusal> {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
            .ok_or_else(|| refuse(StatusCode::UNAUTHORIZED, format!("no {name} header")))
    };
    let (team, secret) = (header("x-team")?, header("x-secret")?);
    check_team(app, client, team, secret).await
}

/// Who asks: `None` for the organiser (the headers carry its token), else
/// the team the headers name, if their secret is its own.
pub(crate) async fn asker(
    app: &Arc<App>,
    client: IpAddr,
    headers: &HeaderMap,
) -> Result<Option<String>, Refusal> {
    if app.is_admin(headers) {
        return Ok(None);
    }
    team_of(app, client, headers).await.map(Some)
}

/// `team`, if `secret` is its own (as [`team_of`], for a form's fields).
pub(crate) async fn check_team(
    app: &Arc<App>,
    client: IpAddr,
    team: String,
    secret: String,
) -> Result<String, Refusal> {
    if app.checked.known(&team, &secret) {
        return Ok(team);
    }
    let wrong = || refuse(StatusCode::UNAUTHORIZED, "wrong team or secret");
    let now = Instant::now();
    if let Some(wait) = app.failures.refused(client, &team, now) {
        return Err(refuse(
            StatusCode::TOO_MANY_REQUESTS,
            format!("too many wrong secrets from this address: wait {wait} s"),
        ));
    }
    if app.checked.has(&team) {
        app.failures.record(client, &team, now);
        return Err(wrong());
    }
    let worker = Arc::clone(app);
    let name = team.clone();
    let Some(hash) = blocking(move || Ok(worker.store.secret_hash(&name)?)).await? else {
        app.failures.record(client, &team, now);
        return Err(wrong());
    };
    let checking = secret.clone();
    let good = app
        .checks
        .run(client, move || {
            crate::auth::secret::matches(&checking, &hash)
        })
        .await
        .map_err(busy)?
        .ok_or_else(|| {
            refuse(
                StatusCode::INTERNAL_SERVER_ERROR,
                "the hashing threads are gone",
            )
        })?;
    if good {
        app.checked.remember(&team, &secret);
        Ok(team)
    } else {
        app.failures.record(client, &team, Instant::now());
        Err(wrong())
    }
}

/// `team`'s bot has asked for game `row`: if its side had not shown up,
/// it has now (its clock may start). Whether that changed the game.
async fn show_up(app: &Arc<App>, row: &GameRow, team: &str) -> Result<bool, Refusal> {
    let side = usize::from(row.black != team);
    if row.setup_until_ms[side].is_none() || row.ending.is_some() {
        return Ok(false);
    }
    let worker = Arc::clone(app);
    let id = row.id;
    blocking(move || Ok(worker.store.show_up(id, side, now_ms())?)).await?;
    Ok(true)
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

/// A place among `team`'s waiting requests ([`crate::http::MAX_WAITS`] at
/// most; past them 429, naming them as `requests`), and the deadline of a
/// wait of `asked` seconds ([`MAX_WAIT_S`] at most).
fn wait_slot<'a>(
    app: &'a App,
    team: &str,
    asked: Option<u64>,
    requests: &str,
) -> Result<(crate::Counted<'a, String>, tokio::time::Instant), Refusal> {
    let waiting = app
        .waits
        .enter_below(team.to_string(), crate::http::MAX_WAITS)
        .ok_or_else(|| {
            refuse(
                StatusCode::TOO_MANY_REQUESTS,
                format!(
                    "{} {requests} of '{team}' wait already",
                    crate::http::MAX_WAITS
                ),
            )
        })?;
    let deadline = tokio::time::Instant::now()
        + Duration::from_secs(asked.unwrap_or(MAX_WAIT_S).min(MAX_WAIT_S));
    Ok((waiting, deadline))
}

#[derive(Deserialize)]
pub struct Wait {
    wait: Option<u64>,
}

pub async fn turn(
    State(app): State<Arc<App>>,
    Client(client): Client,
    Path(id): Path<i64>,
    Query(wait): Query<Wait>,
    headers: HeaderMap,
) -> Result<Json<Value>, Refusal> {
    let team = team_of(&app, client, &headers).await?;
    let (_waiting, deadline) = wait_slot(&app, &team, wait.wait, "turn requests")?;
    let mut first = true;
    loop {
        // Listen before looking, so that no move slips in between.
        let signal = app.moved.of(id);
        let changed = signal.notified();
        let mut row = load(&app, id).await?;
        player_of(&row, &team)?;
        if std::mem::take(&mut first) && show_up(&app, &row, &team).await? {
            row = load(&app, id).await?;
        }
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
    Client(client): Client,
    Path(id): Path<i64>,
    headers: HeaderMap,
    body: Result<Json<Move>, axum::extract::rejection::JsonRejection>,
) -> Result<Json<Value>, Refusal> {
    // Timed from arrival: the secret's check and the storing are the
    // server's time, not the bot's, and the sweep waits for them.
    let arrived = now_ms();
    let _handling = app.handling.enter(id);
    let team = team_of(&app, client, &headers).await?;
    let Json(m) = body.map_err(|e| refuse(StatusCode::BAD_REQUEST, e.body_text()))?;
    let row = load(&app, id).await?;
    player_of(&row, &team)?;
    crate::game::may_move(&row, &team).map_err(|not| refuse(StatusCode::CONFLICT, not.why()))?;
    let worker = Arc::clone(&app);
    blocking(move || match worker.submit(&row, &m.text, arrived, true) {
        Err(StoreError::Other(why)) => Err(refuse(
            StatusCode::SERVICE_UNAVAILABLE,
            format!(
                "the server could not store the move ({why}); your clock is stopped: send it again"
            ),
        )),
        other => Ok(other?),
    })
    .await?;
    let row = load(&app, id).await?;
    if row.ending.is_some() {
        app.moved.forget(id);
    }
    Ok(Json(game_json(&row, Some(&team))?))
}

#[derive(Deserialize)]
pub struct Side {
    side: String,
}

/// `GET /api/games/{id}/log?side=black` (the organiser, or the team
/// playing that side): what a hosted program wrote to stderr in the game.
pub async fn game_log(
    State(app): State<Arc<App>>,
    Client(client): Client,
    Path(id): Path<i64>,
    Query(side): Query<Side>,
    headers: HeaderMap,
) -> Result<Json<Value>, Refusal> {
    let index = match side.side.as_str() {
        "black" => 0,
        "white" => 1,
        _ => return Err(refuse(StatusCode::BAD_REQUEST, "side is black or white")),
    };
    let row = load(&app, id).await?;
    let team = if index == 0 { &row.black } else { &row.white };
    if asker(&app, client, &headers)
        .await?
        .is_some_and(|asking| asking != *team)
    {
        return Err(refuse(
            StatusCode::FORBIDDEN,
            "a game's log is its team's and the organiser's",
        ));
    }
    let worker = Arc::clone(&app);
    let log = blocking(move || Ok(worker.store.log(id, index)?)).await?;
    let log = log.ok_or_else(|| {
        refuse(
            StatusCode::NOT_FOUND,
            format!("no log of {} in game {id}", side.side),
        )
    })?;
    Ok(Json(
        json!({ "game": id, "side": side.side, "team": team, "log": log }),
    ))
}

/// `GET /api/languages`: each language a submission may be in, its
/// compiler's version on this server (or that it has none), and the exact
/// commands that build and run it.
pub async fn languages(State(app): State<Arc<App>>) -> Result<Json<Value>, Refusal> {
    let worker = Arc::clone(&app);
    let listed = blocking(move || {
        Ok(worker
            .offered()
            .iter()
            .map(|l| {
                let version = l.toolchain.as_ref().map(|t| t.version.clone());
                json!({
                    "id": l.language.id,
                    "source": l.language.source,
                    "build": l.language.build.join(" "),
                    "run": l.language.run_line(),
                    "available": version.is_some(),
                    "version": version,
                    "compiler": l.toolchain.as_ref().map(|t| t.program.display().to_string()),
                })
            })
            .collect::<Vec<_>>())
    })
    .await?;
    Ok(Json(json!({
        "judging": app.judge.is_some(),
        "languages": listed,
    })))
}

pub async fn not_found() -> Refusal {
    refuse(StatusCode::NOT_FOUND, "no such page")
}

/// Gives every refusal the API's form, `{"error": "one line"}` (a page's
/// own refusals, in HTML, stay pages): axum's own
/// (a path id that is not a number, a bad query, a wrong method) are
/// plain text.
pub async fn json_errors(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let response = next.run(request).await;
    let status = response.status();
    let json = response
        .headers()
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json") || v.starts_with("text/html"));
    if json || !(status.is_client_error() || status.is_server_error()) {
        return response;
    }
    let (parts, body) = response.into_parts();
    let text = axum::body::to_bytes(body, 4096).await.unwrap_or_default();
    let text = String::from_utf8_lossy(&text);
    let line = text.lines().next().unwrap_or("").trim();
    let why = if line.is_empty() {
        status.canonical_reason().unwrap_or("refused")
    } else {
        line
    };
    let mut refusal = refuse(status, why).into_response();
    for (name, value) in &parts.headers {
        if name != axum::http::header::CONTENT_TYPE && name != axum::http::header::CONTENT_LENGTH {
            refusal.headers_mut().insert(name, value.clone());
        }
    }
    refusal
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewContest {
    pub(crate) name: String,
    pub(crate) format: String,
    pub(crate) entrants: Vec<String>,
    pub(crate) move_time_ms: Option<i64>,
    pub(crate) seed: Option<u64>,
    /// Elo: games to play (0 or none: until stopped); ladder: rounds.
    pub(crate) games: Option<i64>,
    /// Ladder: games each pair plays a round.
    pub(crate) per_pair: Option<i64>,
    /// XOT lines; none: the standard start.
    pub(crate) openings: Option<String>,
    /// When it starts by itself (seconds since the epoch); none: when the
    /// organiser starts it.
    pub(crate) start_at: Option<i64>,
    /// Each side's setup allowance in its games, ms.
    pub(crate) setup_ms: Option<i64>,
}

/// `POST /api/contests` (organiser): creates the contest, waiting for its
/// start (`POST /api/contests/{id}/start`, or its `start_at`).
pub async fn create_contest(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    body: Result<Json<NewContest>, axum::extract::rejection::JsonRejection>,
) -> Result<Response, Refusal> {
    app.check_admin(&headers)?;
    let Json(c) = body.map_err(|e| refuse(StatusCode::BAD_REQUEST, e.body_text()))?;
    let id = make_contest(&app, c).await?;
    Ok((StatusCode::CREATED, Json(json!({ "id": id }))).into_response())
}

/// Makes contest `c` (the organiser's word: the API's or the organiser's
/// page), waiting for its start; its id.
pub(crate) async fn make_contest(app: &Arc<App>, c: NewContest) -> Result<i64, Refusal> {
    let unprocessable = |why: String| refuse(StatusCode::UNPROCESSABLE_ENTITY, why);
    if c.name.trim().is_empty()
        || c.name.chars().count() > MAX_CONTEST_NAME
        || c.name.chars().any(char::is_control)
    {
        return Err(unprocessable(format!(
            "a contest's name is 1 to {MAX_CONTEST_NAME} characters, none of them control characters"
        )));
    }
    if !crate::contest::FORMATS.contains(&c.format.as_str()) {
        return Err(unprocessable(format!(
            "the format is one of {}",
            crate::contest::FORMATS.join(", ")
        )));
    }
    let fewest = if c.format == "elo" { 0 } else { 2 };
    if c.entrants.len() < fewest || c.entrants.len() > MAX_ENTRANTS {
        return Err(unprocessable(format!(
            "a {} takes {fewest} to {MAX_ENTRANTS} entrants",
            c.format
        )));
    }
    let mut seen = std::collections::HashSet::new();
    if let Some(twice) = c.entrants.iter().find(|t| !seen.insert(t.as_str())) {
        return Err(unprocessable(format!("'{twice}' is entered twice")));
    }
    let limit = c.move_time_ms.unwrap_or(1000);
    if !(MOVE_TIME_MS.0..=MOVE_TIME_MS.1).contains(&limit) {
        return Err(unprocessable(format!(
            "move_time_ms is {} to {}",
            MOVE_TIME_MS.0, MOVE_TIME_MS.1
        )));
    }
    let games = c.games.unwrap_or(if c.format == "ladder" { 1 } else { 0 });
    let per_pair = c.per_pair.unwrap_or(2);
    let fewest_games = i64::from(c.format == "ladder");
    if !(fewest_games..=MAX_GAMES).contains(&games) || !(1..=100).contains(&per_pair) {
        return Err(unprocessable(format!(
            "games is {fewest_games} to {MAX_GAMES} for a {}, per_pair 1 to 100",
            c.format
        )));
    }
    let setup_ms = setup_of(c.setup_ms)?;
    let start_at_ms = match c.start_at {
        Some(at) if !(0..=i64::MAX / 1000).contains(&at) => {
            return Err(unprocessable(
                "start_at is a time in seconds since 1970".into(),
            ))
        }
        at => at.map(|at| at * 1000),
    };
    let openings = c.openings.unwrap_or_default();
    if let Err(e) = reversi::arena::Openings::parse(&openings, 0) {
        return Err(unprocessable(format!("openings: {e}")));
    }
    let moves_only = openings
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .all(|l| crate::contest::opening_moves(l).is_some());
    if !moves_only {
        return Err(unprocessable(
            "openings: the server takes openings as moves (f5d6c3...), not boards".into(),
        ));
    }
    let row = crate::store::ContestRow {
        id: 0,
        name: c.name.trim().to_string(),
        format: c.format,
        games,
        per_pair,
        move_time_ms: limit,
        // The databases' integers are signed: the seed keeps its bits.
        seed: c.seed.unwrap_or(1) as i64,
        openings,
        state: "waiting".into(),
        standings: None,
        bracket: None,
        start_at_ms,
        setup_ms,
    };
    let worker = Arc::clone(app);
    let id = blocking(move || {
        for team in &c.entrants {
            if !worker.store.has_team(team)? {
                return Err(refuse(StatusCode::NOT_FOUND, format!("no team '{team}'")));
            }
        }
        Ok(worker.store.create_contest(
            &row,
            &c.entrants,
            &worker.holder,
            crate::store::lease::until(),
            now_ms(),
        )?)
    })
    .await?;
    crate::contest::start(app, id);
    Ok(id)
}

async fn load_contest(app: &Arc<App>, id: i64) -> Result<crate::store::ContestRow, Refusal> {
    let app = Arc::clone(app);
    blocking(move || {
        app.store
            .contest(id)?
            .ok_or_else(|| refuse(StatusCode::NOT_FOUND, format!("no contest {id}")))
    })
    .await
}

/// Contest `id` (or a 404), its latest [`crate::http::SHOWN_GAMES`] games, and
/// how many games it has made in all.
pub(crate) async fn load_contest_games(
    app: &Arc<App>,
    id: i64,
) -> Result<(crate::store::ContestRow, Vec<GameRow>, usize), Refusal> {
    let app = Arc::clone(app);
    blocking(move || {
        let contest = app
            .store
            .contest(id)?
            .ok_or_else(|| refuse(StatusCode::NOT_FOUND, format!("no contest {id}")))?;
        let (games, made) = app.store.contest_games(id, crate::http::SHOWN_GAMES)?;
        Ok((contest, games, made))
    })
    .await
}

/// `GET /api/contests/{id}`: the contest, its entrants, standings and games.
pub async fn show_contest(
    State(app): State<Arc<App>>,
    Path(id): Path<i64>,
) -> Result<Json<Value>, Refusal> {
    let (contest, games, games_played) = load_contest_games(&app, id).await?;
    let worker = Arc::clone(&app);
    let (entrants, renewals, present) = blocking(move || {
        let entrants = worker.store.entrants(id)?;
        let now = now_ms();
        let present: Vec<String> = entrants
            .iter()
            .filter(|e| crate::contest::present(&worker, e, now))
            .map(|e| e.team.clone())
            .collect();
        Ok((entrants, worker.store.renewals(id)?, present))
    })
    .await?;
    let standings: Value = contest
        .standings
        .as_deref()
        .and_then(|s| serde_json::from_str(s).ok())
        .unwrap_or_else(|| json!([]));
    Ok(Json(json!({
        "id": contest.id,
        "name": contest.name,
        "format": contest.format,
        "state": contest.state,
        "move_time_ms": contest.move_time_ms,
        "setup_ms": contest.setup_ms,
        "start_at": contest.start_at_ms.map(|ms| ms / 1000),
        "entrants": entrants.iter().map(|e| e.team.clone()).collect::<Vec<_>>(),
        "present": present,
        "standings": standings,
        "games_played": games_played,
        "renewals": renewals.iter().map(|(seq, team, program)| json!({
            "before_game": seq, "team": team, "program": program,
        })).collect::<Vec<_>>(),
        "games": games.iter().map(|g| json!({
            "id": g.id,
            "seq": g.contest.map(|(_, seq)| seq),
            "black": g.black,
            "white": g.white,
            "moves": g.moves.len(),
            "ending": g.ending,
        })).collect::<Vec<_>>(),
    })))
}

/// `GET /api/contests/{id}/next?wait=S` (an entrant): the entrant's next
/// game in progress, waiting up to S s for one; `{"game": null}` when none
/// came, `"finished": true` once the contest is over.
pub async fn next_game(
    State(app): State<Arc<App>>,
    Client(client): Client,
    Path(id): Path<i64>,
    Query(wait): Query<Wait>,
    headers: HeaderMap,
) -> Result<Json<Value>, Refusal> {
    let team = team_of(&app, client, &headers).await?;
    let (_waiting, deadline) = wait_slot(&app, &team, wait.wait, "requests")?;
    // The bot is present while it waits (see `contest::present`): said
    // when it asks and every SEEN_EVERY of its wait.
    let mut said = None::<tokio::time::Instant>;
    loop {
        let worker = Arc::clone(&app);
        let asking = team.clone();
        let say = said.is_none_or(|at| at.elapsed() >= crate::contest::SEEN_EVERY);
        if say {
            said = Some(tokio::time::Instant::now());
        }
        let (state, entered, game) = blocking(move || {
            let contest = worker
                .store
                .contest(id)?
                .ok_or_else(|| refuse(StatusCode::NOT_FOUND, format!("no contest {id}")))?;
            let entered = worker.store.entrants(id)?.iter().any(|e| e.team == asking);
            if entered && say {
                worker.store.seen(id, &asking, now_ms())?;
            }
            let game = worker.store.next_game_of(id, &asking)?;
            Ok((contest.state, entered, game))
        })
        .await?;
        if !entered {
            return Err(refuse(
                StatusCode::FORBIDDEN,
                format!("'{team}' is not in contest {id}"),
            ));
        }
        let finished = state == "finished";
        if let Some(game) = game {
            // The game is known to the bot from here: its clock may start.
            let row = load(&app, game).await?;
            show_up(&app, &row, &team).await?;
        }
        if game.is_some() || finished || tokio::time::Instant::now() >= deadline {
            return Ok(Json(
                json!({ "game": game, "finished": finished, "state": state }),
            ));
        }
        tokio::time::sleep(NEXT_LOOK_EVERY).await;
    }
}

/// How often a wait for a contest's next game looks again.
const NEXT_LOOK_EVERY: Duration = Duration::from_millis(100);

async fn set_state(
    app: Arc<App>,
    headers: &HeaderMap,
    id: i64,
    from: &'static str,
    to: &'static str,
) -> Result<Json<Value>, Refusal> {
    app.check_admin(headers)?;
    change_state(&app, id, from, to).await?;
    Ok(Json(json!({ "id": id, "state": to })))
}

/// Moves contest `id` from state `from` to `to`; 404 no such contest, 409
/// (with its state) one not in `from`.
pub(crate) async fn change_state(
    app: &Arc<App>,
    id: i64,
    from: &str,
    to: &'static str,
) -> Result<(), Refusal> {
    load_contest(app, id).await?;
    let worker = Arc::clone(app);
    let asked = from.to_string();
    let changed = blocking(move || Ok(worker.store.set_contest_state(id, &asked, to)?)).await?;
    if !changed {
        let now = load_contest(app, id).await?.state;
        return Err(refuse(
            StatusCode::CONFLICT,
            format!("contest {id} is {now}, not {from}"),
        ));
    }
    app.moved.poke();
    Ok(())
}

/// `POST /api/contests/{id}/start` (organiser): a waiting contest starts.
pub async fn start_contest(
    State(app): State<Arc<App>>,
    Path(id): Path<i64>,
    headers: HeaderMap,
) -> Result<Json<Value>, Refusal> {
    set_state(app, &headers, id, "waiting", "running").await
}

/// `POST /api/contests/{id}/pause` (organiser): no new game starts; those
/// under way play on.
pub async fn pause_contest(
    State(app): State<Arc<App>>,
    Path(id): Path<i64>,
    headers: HeaderMap,
) -> Result<Json<Value>, Refusal> {
    set_state(app, &headers, id, "running", "paused").await
}

/// `POST /api/contests/{id}/resume` (organiser).
pub async fn resume_contest(
    State(app): State<Arc<App>>,
    Path(id): Path<i64>,
    headers: HeaderMap,
) -> Result<Json<Value>, Refusal> {
    set_state(app, &headers, id, "paused", "running").await
}

#[derive(Deserialize)]
pub struct NewEntrant {
    team: String,
}

/// `POST /api/contests/{id}/entrants` `{"team"}` (organiser): a new entrant
/// of an Elo pool, taken in at its next round (new entrants play first).
pub async fn add_entrant(
    State(app): State<Arc<App>>,
    Path(id): Path<i64>,
    headers: HeaderMap,
    body: Result<Json<NewEntrant>, axum::extract::rejection::JsonRejection>,
) -> Result<Response, Refusal> {
    app.check_admin(&headers)?;
    let Json(entrant) = body.map_err(|e| refuse(StatusCode::BAD_REQUEST, e.body_text()))?;
    enter(&app, id, entrant.team.clone()).await?;
    Ok((
        StatusCode::CREATED,
        Json(json!({ "contest": id, "team": entrant.team })),
    )
        .into_response())
}

/// Enters `team` in Elo pool `id` (the organiser's word).
pub(crate) async fn enter(app: &Arc<App>, id: i64, team: String) -> Result<(), Refusal> {
    let contest = load_contest(app, id).await?;
    if contest.format != "elo" || contest.state == "finished" {
        return Err(refuse(
            StatusCode::CONFLICT,
            "only an Elo pool still running takes new entrants",
        ));
    }
    let worker = Arc::clone(app);
    blocking(move || {
        if !worker.store.has_team(&team)? {
            return Err(refuse(StatusCode::NOT_FOUND, format!("no team '{team}'")));
        }
        if worker.store.entrants(id)?.len() >= MAX_ENTRANTS {
            return Err(refuse(
                StatusCode::UNPROCESSABLE_ENTITY,
                format!("a contest takes at most {MAX_ENTRANTS} entrants"),
            ));
        }
        worker.store.add_entrant(id, &team)?;
        worker.moved.poke();
        Ok(())
    })
    .await
}
