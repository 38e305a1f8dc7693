//! The HTTP side of the server: the routes, the API's JSON, the pages,
//! and the connections they come on.
//!
//! | module | what it owns |
//! | --- | --- |
//! | [`api`] | the HTTP API: teams, games, moves, contests, programs |
//! | [`pages`] | the web pages: games, contests, a team's page, the organiser's |
//! | [`conn`] | connections: counted, timed, and whose address a request has |
//! | [`rate`] | a limit on each client's requests |
//! | [`ready`] | `reversi-server wait URL`: waiting until a server answers |

pub mod api;
pub mod conn;
pub mod pages;
pub mod rate;
pub mod ready;

use crate::store::StoreError;
use crate::App;
use axum::extract::DefaultBodyLimit;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::json;
use std::sync::Arc;

/// The largest request body taken (a move or a registration is tiny).
pub const MAX_BODY: usize = 16 * 1024;

/// The most turn requests of one team that may wait at once (a bot
/// needs one a game it plays).
pub const MAX_WAITS: usize = 16;

/// The most games a contest's page and JSON list (the latest): an Elo
/// pool left running for a term plays thousands, and live pages ask for
/// them every second.
pub const SHOWN_GAMES: usize = 200;

/// A refusal: its status and one line.
pub struct Refusal(StatusCode, String);

impl Refusal {
    #[must_use]
    pub fn new(status: StatusCode, why: &str) -> Refusal {
        Refusal(status, why.to_string())
    }

    /// Its status and its line, for a page that says it.
    #[must_use]
    pub fn parts(&self) -> (StatusCode, &str) {
        (self.0, &self.1)
    }
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        (self.0, Json(json!({ "error": self.1 }))).into_response()
    }
}

pub(crate) fn refuse(status: StatusCode, why: impl Into<String>) -> Refusal {
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

/// The routes, served by [`conn::serve`], which gives each request its
/// client's address (the rate limit and the count of wrong secrets need
/// it) and the deadline for its body.
pub fn router(app: Arc<App>) -> Router {
    // A submission's body is a source file: it has a limit of its own.
    let submissions = Router::new()
        .route(
            "/api/programs",
            post(api::programs::submit).get(api::programs::list),
        )
        .route(
            "/team",
            get(pages::team::team_page).post(pages::team::team_post),
        )
        .layer(DefaultBodyLimit::max(api::programs::MAX_BODY))
        .layer(axum::middleware::from_fn(|request, next| {
            conn::read_body(request, next, api::programs::MAX_BODY)
        }));
    Router::new()
        .route("/", get(pages::index))
        .route("/contests/{id}", get(pages::contest_page))
        .route("/games/{id}", get(pages::game_page))
        .route("/games/{id}/ggf", get(pages::game_ggf))
        .route("/games/{id}/log/{side}", get(pages::game_log_page))
        .route("/games/{id}/events", get(pages::live::game_events))
        .route("/contests/{id}/events", get(pages::live::contest_events))
        .route(
            "/login",
            get(pages::login::login_form).post(pages::login::login),
        )
        .route("/signup", post(pages::login::signup))
        .route("/logout", post(pages::login::logout))
        .route("/admin/login", post(pages::login::admin_login))
        .route("/admin", get(pages::admin::admin_page))
        .route("/admin/contests", post(pages::admin::new_contest))
        .route(
            "/admin/contests/{id}/{action}",
            post(pages::admin::contest_action),
        )
        .route("/admin/entrants", post(pages::admin::new_entrant))
        .route("/admin/programs/{id}/retire", post(pages::admin::retire))
        .route("/api/teams", post(api::register))
        .route("/api/games", post(api::create_game))
        .route("/api/games/{id}", get(api::show_game))
        .route("/api/games/{id}/turn", get(api::turn))
        .route("/api/games/{id}/move", post(api::play))
        .route("/api/games/{id}/log", get(api::game_log))
        .route("/api/languages", get(api::languages))
        .route("/api/contests", post(api::create_contest))
        .route("/api/contests/{id}", get(api::show_contest))
        .route("/api/contests/{id}/next", get(api::next_game))
        .route("/api/contests/{id}/start", post(api::start_contest))
        .route("/api/contests/{id}/pause", post(api::pause_contest))
        .route("/api/contests/{id}/resume", post(api::resume_contest))
        .route("/api/contests/{id}/entrants", post(api::add_entrant))
        .route("/api/programs/{id}", get(api::programs::show))
        .route("/api/programs/{id}/source", get(api::programs::source))
        .route("/api/programs/{id}/retire", post(api::programs::retire))
        .fallback(api::not_found)
        // Innermost first: the body read whole within the request's
        // deadline, the rate limit before that, and every refusal (axum's
        // own included) as the API's JSON.
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .layer(axum::middleware::from_fn(|request, next| {
            conn::read_body(request, next, MAX_BODY)
        }))
        .merge(submissions)
        .layer(axum::middleware::from_fn_with_state(
            Arc::clone(&app),
            rate::limit,
        ))
        .layer(axum::middleware::from_fn(api::json_errors))
        .with_state(app)
}
