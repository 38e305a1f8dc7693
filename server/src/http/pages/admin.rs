//! The organiser's page, `/admin` (logged in with the token): every
//! contest with the buttons its state allows (start, pause, resume), a
//! form that makes a contest, one that enters a team in an Elo pool, and
//! every team's programs with their messages and a button that retires
//! an active one. Each form does what the API's request of the same name
//! does, through the same code.

use super::page;
use super::session::{self, check_csrf, csrf_field, who, with_cookie, Who};
use crate::http::api::{blocking, NewContest};
use crate::http::Refusal;
use crate::App;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::Form;
use reversi::study::show::escape_html;
use serde::Deserialize;
use std::sync::Arc;

/// Whether the request is the organiser's; else the way to log in.
async fn organiser(app: &Arc<App>, headers: &HeaderMap) -> Result<(), Response> {
    match who(app, headers).await {
        Ok(Some(Who::Organiser)) => Ok(()),
        Ok(Some(Who::Team(_))) => Err((
            StatusCode::FORBIDDEN,
            Html(page(
                "Refused",
                "<p><b>Refused:</b> this page is the organiser's. <a href=\"/login\">Log in</a> as the organiser.</p>",
            )),
        )
            .into_response()),
        Ok(None) => Err(super::to_login()),
        Err(refusal) => Err(refusal.into_response()),
    }
}

/// A one-button form posting to `action`.
fn button(csrf: &str, action: &str, label: &str) -> String {
    format!(
        "<form method=\"post\" action=\"{action}\" class=\"inline\">{}<button>{label}</button></form>",
        csrf_field(csrf)
    )
}

/// The page's body, `said` at its top.
async fn body(app: &Arc<App>, csrf: &str, said: &str) -> Result<String, Refusal> {
    let worker = Arc::clone(app);
    let (contests, programs) =
        blocking(move || Ok((worker.store.contests()?, worker.store.programs(None)?))).await?;
    let mut rows = String::new();
    for (id, name, format, state) in &contests {
        let actions = match state.as_str() {
            "waiting" => button(csrf, &format!("/admin/contests/{id}/start"), "Start"),
            "running" => button(csrf, &format!("/admin/contests/{id}/pause"), "Pause"),
            "paused" => button(csrf, &format!("/admin/contests/{id}/resume"), "Resume"),
            _ => String::new(),
        };
        rows.push_str(&format!(
            "<tr><td>{id}</td><td><a href=\"/contests/{id}\">{}</a></td><td>{format}</td>\
             <td class=\"state\">{state}</td><td>{actions}</td></tr>",
            escape_html(name)
        ));
    }
    let mut listed = String::new();
    for p in &programs {
        let retire = if p.state == "active" {
            button(csrf, &format!("/admin/programs/{}/retire", p.id), "Retire")
        } else {
            String::new()
        };
        let logs: String = [
            ("compiler", &p.compile_log),
            ("check's stderr", &p.check_log),
        ]
        .iter()
        .filter(|(_, log)| !log.is_empty())
        .map(|(what, log)| {
            format!(
                "<details><summary>{what}</summary><pre>{}</pre></details>",
                escape_html(log)
            )
        })
        .collect();
        listed.push_str(&format!(
            "<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"state\">{}</td><td>{}{logs}</td><td>{retire}</td></tr>",
            p.id,
            escape_html(&p.team),
            escape_html(&p.language),
            escape_html(&p.state),
            escape_html(&p.reason),
        ));
    }
    let field = csrf_field(csrf);
    Ok(format!(
        "<h1>The organiser</h1>{logout}{said}\
         <h2>Contests</h2><table><tr><th>id</th><th>name</th><th>format</th><th>state</th><th></th></tr>{rows}</table>\
         <h2>A new contest</h2>\
         <form method=\"post\" action=\"/admin/contests\">{field}\
         <p><label>Name <input name=\"name\" required maxlength=\"80\"></label> \
         <label>Format <select name=\"format\"><option value=\"knockout\">knockout</option><option value=\"elo\">elo</option><option value=\"ladder\">ladder</option></select></label></p>\
         <p><label>Entrants (team names, one a line or by commas)<br><textarea name=\"entrants\" rows=\"3\" cols=\"60\"></textarea></label></p>\
         <p><label>ms a move <input name=\"move_time_ms\" type=\"number\" value=\"1000\" min=\"10\"></label> \
         <label>Setup ms <input name=\"setup_ms\" type=\"number\" value=\"5000\" min=\"0\"></label> \
         <label>Seed <input name=\"seed\" type=\"number\" value=\"1\" min=\"0\"></label> \
         <label>Games (Elo; ladder: rounds) <input name=\"games\" type=\"number\" min=\"0\"></label> \
         <label>Games a pair (ladder) <input name=\"per_pair\" type=\"number\" min=\"1\"></label></p>\
         <p><label>Openings (XOT lines; none: the start)<br><textarea name=\"openings\" rows=\"3\" cols=\"60\"></textarea></label></p>\
         <p><button>Make it</button> (it waits to be started)</p></form>\
         <h2>A new entrant of an Elo pool</h2>\
         <form method=\"post\" action=\"/admin/entrants\">{field}\
         <p><label>Contest <input name=\"contest\" type=\"number\" required min=\"1\"></label> \
         <label>Team <input name=\"team\" required></label> <button>Enter</button></p></form>\
         <h2>Programs</h2><table><tr><th>program</th><th>team</th><th>language</th><th>state</th><th>why</th><th></th></tr>{listed}</table>",
        logout = super::login::logout_form(csrf),
    ))
}

/// The page, with `said` and `status`.
async fn show(app: &Arc<App>, headers: &HeaderMap, status: StatusCode, said: &str) -> Response {
    let shown = async {
        let (csrf, set) = session::csrf(headers)?;
        Ok::<_, Refusal>((body(app, &csrf, said).await?, set))
    };
    match shown.await {
        Ok((body, set)) => {
            let mut response = (status, Html(page("The organiser", &body))).into_response();
            with_cookie(response.headers_mut(), set);
            response
        }
        Err(refusal) => refusal.into_response(),
    }
}

/// `GET /admin`.
pub async fn admin_page(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
    if let Err(response) = organiser(&app, &headers).await {
        return response;
    }
    show(&app, &headers, StatusCode::OK, "").await
}

/// Does `work` for the organiser once its form's CSRF token is checked;
/// the page again, saying what came of it.
async fn act(
    app: &Arc<App>,
    headers: &HeaderMap,
    csrf: &str,
    work: impl std::future::Future<Output = Result<String, Refusal>>,
) -> Response {
    if let Err(response) = organiser(app, headers).await {
        return response;
    }
    let done = async {
        check_csrf(headers, csrf)?;
        work.await
    };
    let (status, said) = super::outcome_line(done.await);
    show(app, headers, status, &said).await
}

#[derive(Deserialize)]
pub struct Csrf {
    #[serde(default)]
    csrf: String,
}

/// `POST /admin/contests/{id}/{start|pause|resume}`.
pub async fn contest_action(
    State(app): State<Arc<App>>,
    Path((id, action)): Path<(i64, String)>,
    headers: HeaderMap,
    sent: Result<Form<Csrf>, axum::extract::rejection::FormRejection>,
) -> Response {
    let csrf = sent.map(|Form(s)| s.csrf).unwrap_or_default();
    let change = match action.as_str() {
        "start" => Some(("waiting", "running")),
        "pause" => Some(("running", "paused")),
        "resume" => Some(("paused", "running")),
        _ => None,
    };
    let work = async {
        let (from, to) =
            change.ok_or_else(|| Refusal::new(StatusCode::NOT_FOUND, "no such action"))?;
        crate::http::api::change_state(&app, id, from, to).await?;
        Ok(format!("Contest {id} is {to}."))
    };
    act(&app, &headers, &csrf, work).await
}

#[derive(Deserialize)]
pub struct ContestForm {
    #[serde(default)]
    csrf: String,
    name: String,
    format: String,
    #[serde(default)]
    entrants: String,
    #[serde(default)]
    move_time_ms: String,
    #[serde(default)]
    setup_ms: String,
    #[serde(default)]
    seed: String,
    #[serde(default)]
    games: String,
    #[serde(default)]
    per_pair: String,
    #[serde(default)]
    openings: String,
}

/// A number field: empty is none; anything else but a number is refused.
fn number<T: std::str::FromStr>(field: &str, text: &str) -> Result<Option<T>, Refusal> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(None);
    }
    text.parse().map(Some).map_err(|_| {
        Refusal::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            &format!("{field} is a whole number"),
        )
    })
}

/// `POST /admin/contests`: makes the contest, waiting for its start.
pub async fn new_contest(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    sent: Result<Form<ContestForm>, axum::extract::rejection::FormRejection>,
) -> Response {
    let (csrf, contest) = match sent {
        Ok(Form(f)) => {
            let csrf = f.csrf.clone();
            (csrf, Ok(f))
        }
        Err(e) => (
            String::new(),
            Err(Refusal::new(StatusCode::BAD_REQUEST, &e.body_text())),
        ),
    };
    let work = async {
        let f = contest?;
        let c = NewContest {
            name: f.name,
            format: f.format,
            entrants: f
                .entrants
                .split([',', '\n'])
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .map(String::from)
                .collect(),
            move_time_ms: number("ms a move", &f.move_time_ms)?,
            seed: number("the seed", &f.seed)?,
            games: number("games", &f.games)?,
            per_pair: number("games a pair", &f.per_pair)?,
            openings: Some(f.openings).filter(|o| !o.trim().is_empty()),
            start_at: None,
            setup_ms: number("setup ms", &f.setup_ms)?,
        };
        let id = crate::http::api::make_contest(&app, c).await?;
        Ok(format!("Contest {id} made: it waits to be started."))
    };
    act(&app, &headers, &csrf, work).await
}

#[derive(Deserialize)]
pub struct EntrantForm {
    #[serde(default)]
    csrf: String,
    contest: String,
    team: String,
}

/// `POST /admin/entrants`.
pub async fn new_entrant(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    sent: Result<Form<EntrantForm>, axum::extract::rejection::FormRejection>,
) -> Response {
    let (csrf, entrant) = match sent {
        Ok(Form(f)) => (f.csrf.clone(), Ok(f)),
        Err(e) => (
            String::new(),
            Err(Refusal::new(StatusCode::BAD_REQUEST, &e.body_text())),
        ),
    };
    let work = async {
        let f = entrant?;
        let id: i64 = number("the contest", &f.contest)?
            .ok_or_else(|| Refusal::new(StatusCode::UNPROCESSABLE_ENTITY, "which contest?"))?;
        let team = f.team.trim().to_string();
        crate::http::api::enter(&app, id, team.clone()).await?;
        Ok(format!("{team} entered in contest {id}."))
    };
    act(&app, &headers, &csrf, work).await
}

/// `POST /admin/programs/{id}/retire`.
pub async fn retire(
    State(app): State<Arc<App>>,
    Path(id): Path<i64>,
    headers: HeaderMap,
    sent: Result<Form<Csrf>, axum::extract::rejection::FormRejection>,
) -> Response {
    let csrf = sent.map(|Form(s)| s.csrf).unwrap_or_default();
    let work = async {
        crate::http::api::programs::retire_program(&app, id).await?;
        Ok(format!("Program {id} retired."))
    };
    act(&app, &headers, &csrf, work).await
}
