//! Submissions (see [`crate::judge`]): a team sends one source file, and
//! follows its program through the judge's states. A team sees its own
//! programs, their sources and their compilers' messages; no other team
//! does; the organiser sees all of them and can download every source
//! (for plagiarism checks), and retires a version.

use super::{asker, blocking, team_of};
use crate::http::conn::Client;
use crate::http::{refuse, Refusal};
use crate::judge::{MAX_SOURCE, MOST_WAITING};
use crate::store::programs::ProgramRow;
use crate::store::StoreError;
use crate::{now_ms, App};
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};
use std::net::IpAddr;
use std::sync::Arc;

/// The largest submission's body: its source, escaped as JSON.
pub const MAX_BODY: usize = 4 * MAX_SOURCE;

#[derive(Deserialize)]
pub struct NewProgram {
    language: String,
    source: String,
}

fn program_json(row: &ProgramRow) -> Value {
    json!({
        "id": row.id,
        "team": row.team,
        "language": row.language,
        "state": row.state,
        "compile_log": row.compile_log,
        "reason": row.reason,
        "check_log": row.check_log,
        "submitted_ms": row.created_ms,
        "active_ms": row.active_ms,
        "builds": row.builds,
        "judged_by": row.judged_by,
    })
}

/// `POST /api/programs` `{"language", "source"}` (a team): the program is
/// stored, queued for the judge, and answered 201 `{"id", "state"}`.
pub async fn submit(
    State(app): State<Arc<App>>,
    Client(client): Client,
    headers: HeaderMap,
    body: Result<Json<NewProgram>, axum::extract::rejection::JsonRejection>,
) -> Result<Response, Refusal> {
    let team = team_of(&app, client, &headers).await?;
    let Json(program) = body.map_err(|e| refuse(StatusCode::BAD_REQUEST, e.body_text()))?;
    let id = store(&app, team, program.language, program.source).await?;
    Ok((
        StatusCode::CREATED,
        Json(json!({ "id": id, "state": "queued" })),
    )
        .into_response())
}

/// Stores `team`'s submission of `source` in `language`, queued for the
/// judge; its id, or why not (the API and the team's page say the same).
pub(crate) async fn store(
    app: &Arc<App>,
    team: String,
    language: String,
    source: String,
) -> Result<i64, Refusal> {
    let Some(judge) = &app.judge else {
        return Err(refuse(
            StatusCode::SERVICE_UNAVAILABLE,
            "this server takes no submissions: it runs without --sandbox",
        ));
    };
    let Some(offered) = judge.language(&language) else {
        let ids: Vec<&str> = judge
            .languages
            .iter()
            .map(|l| l.language.id.as_str())
            .collect();
        return Err(refuse(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!(
                "no language '{}': one of {}",
                reversi_core::protocol::quote(&language),
                ids.join(", ")
            ),
        ));
    };
    if offered.toolchain.is_none() {
        return Err(refuse(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!(
                "this server has no {} for {}",
                offered.language.tool, offered.language.id
            ),
        ));
    }
    if source.trim().is_empty() {
        return Err(refuse(
            StatusCode::UNPROCESSABLE_ENTITY,
            "the source is empty",
        ));
    }
    if source.len() > MAX_SOURCE {
        return Err(refuse(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "the source is {} bytes; the most taken is {MAX_SOURCE}",
                source.len()
            ),
        ));
    }
    let worker = Arc::clone(app);
    let id = blocking(move || {
        match worker
            .store
            .add_program(&team, &language, &source, MOST_WAITING, now_ms())
        {
            Err(StoreError::Exists) => Err(refuse(
                StatusCode::TOO_MANY_REQUESTS,
                format!(
                    "'{team}' has {MOST_WAITING} programs still to judge: wait for their verdicts"
                ),
            )),
            other => Ok(other?),
        }
    })
    .await?;
    app.moved.poke();
    Ok(id)
}

/// Program `id`, if the headers are the organiser's or its team's.
async fn visible(
    app: &Arc<App>,
    client: IpAddr,
    headers: &HeaderMap,
    id: i64,
) -> Result<ProgramRow, Refusal> {
    let asking = asker(app, client, headers).await?;
    let worker = Arc::clone(app);
    let row = blocking(move || Ok(worker.store.program(id)?))
        .await?
        .ok_or_else(|| refuse(StatusCode::NOT_FOUND, format!("no program {id}")))?;
    match asking {
        Some(team) if team != row.team => Err(refuse(
            StatusCode::FORBIDDEN,
            "a program is its team's and the organiser's",
        )),
        _ => Ok(row),
    }
}

/// `GET /api/programs/{id}` (its team, the organiser).
pub async fn show(
    State(app): State<Arc<App>>,
    Client(client): Client,
    Path(id): Path<i64>,
    headers: HeaderMap,
) -> Result<Json<Value>, Refusal> {
    let row = visible(&app, client, &headers, id).await?;
    Ok(Json(program_json(&row)))
}

/// `GET /api/programs/{id}/source` (its team, the organiser): the source
/// as a file to save.
pub async fn source(
    State(app): State<Arc<App>>,
    Client(client): Client,
    Path(id): Path<i64>,
    headers: HeaderMap,
) -> Result<Response, Refusal> {
    let row = visible(&app, client, &headers, id).await?;
    let worker = Arc::clone(&app);
    let source = blocking(move || Ok(worker.store.program_source(id)?))
        .await?
        .unwrap_or_default();
    let file = app
        .offered()
        .iter()
        .find(|l| l.language.id == row.language)
        .map_or("source.txt", |l| l.language.source);
    let disposition = format!(
        "attachment; filename=\"{}-{id}-{file}\"",
        row.team.replace(|c: char| !c.is_ascii_alphanumeric(), "_")
    );
    Ok((
        [
            (
                header::CONTENT_TYPE,
                "text/plain; charset=utf-8".to_string(),
            ),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        source,
    )
        .into_response())
}

/// `GET /api/programs`: a team's own programs, or every team's to the
/// organiser, newest first.
pub async fn list(
    State(app): State<Arc<App>>,
    Client(client): Client,
    headers: HeaderMap,
) -> Result<Json<Value>, Refusal> {
    let team = asker(&app, client, &headers).await?;
    let worker = Arc::clone(&app);
    let rows = blocking(move || Ok(worker.store.programs(team.as_deref())?)).await?;
    Ok(Json(json!(rows
        .iter()
        .map(program_json)
        .collect::<Vec<_>>())))
}

/// `POST /api/programs/{id}/retire` (the organiser): an active program is
/// retired; its team plays no more games until it has another.
pub async fn retire(
    State(app): State<Arc<App>>,
    Path(id): Path<i64>,
    headers: HeaderMap,
) -> Result<Json<Value>, Refusal> {
    app.check_admin(&headers)?;
    retire_program(&app, id).await?;
    let worker = Arc::clone(&app);
    let row = blocking(move || Ok(worker.store.program(id)?)).await?;
    Ok(Json(row.as_ref().map_or(Value::Null, program_json)))
}

/// Retires active program `id` (the organiser's word); 409 if it is not
/// active.
pub(crate) async fn retire_program(app: &Arc<App>, id: i64) -> Result<(), Refusal> {
    let worker = Arc::clone(app);
    let retired = blocking(move || Ok(worker.store.retire(id)?)).await?;
    if !retired {
        return Err(refuse(
            StatusCode::CONFLICT,
            format!("program {id} is not active"),
        ));
    }
    app.moved.poke();
    Ok(())
}
