//! A logged-in team's page, `/team`: a form that submits a program (a
//! file chosen, or the source pasted), the team's programs with their
//! states, reasons and compiler messages, its games, each with its own
//! program's stderr, and its rating in each Elo pool as it went. It works
//! with scripts off (an ordinary form post); with them on, a chosen file
//! fills the source box. What the page shows
//! a team is what the API shows it: only its own.

use super::page;
use super::session::{self, check_csrf, csrf_field, who, with_cookie, Who};
use crate::http::api::blocking;
use crate::http::api::programs::store;
use crate::http::Refusal;
use crate::store::programs::ProgramRow;
use crate::store::{GameRow, RatingHistory};
use crate::App;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::Form;
use reversi::study::show::escape_html;
use serde::Deserialize;
use std::sync::Arc;

/// Fills the source box from the file chosen.
const READ_FILE: &str = "<script>document.getElementById('file').addEventListener('change',\
function(e){var f=e.target.files[0];if(!f)return;var r=new FileReader();\
r.onload=function(){document.getElementById('source').value=r.result;};r.readAsText(f);});</script>";

/// The team's page: the submission form, `said` above it, then
/// `below` (its programs and games).
fn team_body(app: &App, team: &str, csrf: &str, said: &str, below: &str) -> String {
    let mut options = String::new();
    for l in app.offered() {
        if l.toolchain.is_some() {
            let id = escape_html(&l.language.id);
            options.push_str(&format!("<option value=\"{id}\">{id}</option>"));
        }
    }
    let judging = if app.judge.is_some() {
        ""
    } else {
        "<p><b>This server takes no submissions</b> (it runs without <code>--sandbox</code>): the page shows your programs only.</p>"
    };
    format!(
        "<h1>Team {team}</h1>{logout}{judging}{said}\
         <h2>Submit a program</h2>\
         <form method=\"post\" action=\"/team\">{csrf}\
         <p><label>Language <select name=\"language\">{options}</select></label> \
         <label>File <input id=\"file\" type=\"file\"></label></p>\
         <p><label for=\"source\">Source</label><br><textarea id=\"source\" name=\"source\" rows=\"12\" cols=\"90\" \
         required placeholder=\"your program's source (choose a file, or paste it)\"></textarea></p>\
         <p><button>Submit</button></p>\
         </form>{READ_FILE}{below}",
        team = escape_html(team),
        logout = super::login::logout_form(csrf),
        csrf = csrf_field(csrf),
    )
}

/// The team's games, newest first, each with a link to its own program's
/// stderr where the server played its side.
fn games_table(team: &str, games: &[GameRow]) -> String {
    if games.is_empty() {
        return "<p>No games yet.</p>".into();
    }
    let mut table = String::from(
        "<table><tr><th>game</th><th>black</th><th>white</th><th>result</th><th>your program's stderr</th></tr>",
    );
    for g in games {
        let side = usize::from(g.black != team);
        let log = if g.programs[side].is_some() {
            format!(
                "<a href=\"/games/{}/log/{}\">stderr</a>",
                g.id,
                if side == 0 { "black" } else { "white" }
            )
        } else {
            String::new()
        };
        table.push_str(&format!(
            "<tr><td><a href=\"/games/{id}\">{id}</a></td><td>{}</td><td>{}</td><td>{}</td><td>{log}</td></tr>",
            escape_html(&g.black),
            escape_html(&g.white),
            g.ending.as_deref().map_or("in progress".into(), escape_html),
            id = g.id,
        ));
    }
    table.push_str("</table>");
    table
}

/// The team's rating in each Elo pool it played in, as it went: a plot
/// a pool, over the games the pool had played.
fn ratings_plots(history: &[RatingHistory]) -> String {
    if history.is_empty() {
        return "<p>No rated games yet (ratings come from Elo pools).</p>".into();
    }
    let (width, height, pad) = (600.0, 160.0, 14.0);
    let mut out = String::new();
    for h in history {
        let last = h.points.last().map_or(1, |p| p.0).max(1) as f64;
        let low = h.points.iter().map(|p| p.1).min().unwrap_or(0) as f64;
        let high = h.points.iter().map(|p| p.1).max().unwrap_or(0) as f64;
        let (low, high) = if high - low < 20.0 {
            (low - 10.0, high + 10.0)
        } else {
            (low, high)
        };
        let x = |seq: i64| 40.0 + seq as f64 / last * (width - 50.0);
        let y = |r: i64| pad + (high - r as f64) / (high - low) * (height - 2.0 * pad);
        let points: Vec<String> = h
            .points
            .iter()
            .map(|&(seq, r)| format!("{:.1},{:.1}", x(seq), y(r)))
            .collect();
        let now = h.points.last().map_or(0, |p| p.1);
        out.push_str(&format!(
            "<h3><a href=\"/contests/{id}\">{name}</a>: {now} now</h3>\
             <svg class=\"ratings\" viewBox=\"0 0 {width} {height}\" width=\"{width}\" height=\"{height}\" \
             role=\"img\" aria-label=\"rating after each round of contest {id}, {first} to {now}\">\
             <rect width=\"{width}\" height=\"{height}\" fill=\"#fafafa\"/>\
             <text x=\"2\" y=\"{top}\" font-size=\"10\">{high:.0}</text>\
             <text x=\"2\" y=\"{bottom}\" font-size=\"10\">{low:.0}</text>\
             <text x=\"{right}\" y=\"{foot}\" font-size=\"10\" text-anchor=\"end\">{last:.0} games</text>\
             <polyline points=\"{line}\" fill=\"none\" stroke=\"#1565c0\" stroke-width=\"2\"/></svg>",
            id = h.contest,
            name = escape_html(&h.name),
            first = h.points.first().map_or(0, |p| p.1),
            top = pad + 3.0,
            bottom = height - pad + 3.0,
            right = width - 4.0,
            foot = height - 2.0,
            line = points.join(" "),
        ));
    }
    out
}

/// What a logged-in team sees below the form.
async fn below(app: &Arc<App>, team: &str) -> Result<String, Refusal> {
    let worker = Arc::clone(app);
    let asking = team.to_string();
    let (programs, games, ratings) = blocking(move || {
        Ok((
            worker.store.programs(Some(&asking))?,
            worker.store.games_of(&asking, crate::http::SHOWN_GAMES)?,
            worker.store.rating_history(&asking)?,
        ))
    })
    .await?;
    Ok(format!(
        "<h2>Your programs</h2>{}<h2>Your games</h2>{}<h2>Your rating</h2>{}",
        programs_table(&programs),
        games_table(team, &games),
        ratings_plots(&ratings),
    ))
}

/// The logged-in team, or the way to the login page.
async fn team_of(app: &Arc<App>, headers: &HeaderMap) -> Result<String, Response> {
    match who(app, headers).await {
        Ok(Some(Who::Team(team))) => Ok(team),
        Ok(_) => Err(super::to_login()),
        Err(refusal) => Err(refusal.into_response()),
    }
}

/// `GET /team`: the logged-in team's page (else the login page).
pub async fn team_page(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
    let team = match team_of(&app, &headers).await {
        Ok(team) => team,
        Err(response) => return response,
    };
    let shown = async {
        let (csrf, set) = session::csrf(&headers)?;
        let below = below(&app, &team).await?;
        Ok::<_, Refusal>((team_body(&app, &team, &csrf, "", &below), set))
    };
    match shown.await {
        Ok((body, set)) => {
            let mut response = Html(page(&format!("Team {team}"), &body)).into_response();
            with_cookie(response.headers_mut(), set);
            response
        }
        Err(refusal) => refusal.into_response(),
    }
}

#[derive(Deserialize)]
pub struct Sent {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    language: String,
    #[serde(default)]
    source: String,
}

/// The team's programs as a table, newest first, with the compiler's
/// messages under each that has any.
fn programs_table(rows: &[ProgramRow]) -> String {
    if rows.is_empty() {
        return "<p>No programs yet.</p>".into();
    }
    let mut table =
        String::from("<table><tr><th>program</th><th>language</th><th>state</th><th>why</th></tr>");
    for p in rows {
        table.push_str(&format!(
            "<tr><td>{}</td><td>{}</td><td class=\"state\">{}</td><td>{}</td></tr>",
            p.id,
            escape_html(&p.language),
            escape_html(&p.state),
            escape_html(&p.reason)
        ));
        for (what, log) in [
            ("the compiler", &p.compile_log),
            ("stderr, checked", &p.check_log),
        ] {
            if !log.is_empty() {
                table.push_str(&format!(
                    "<tr><td colspan=\"4\">{what}:<pre>{}</pre></td></tr>",
                    escape_html(log)
                ));
            }
        }
    }
    table.push_str("</table>");
    table
}

/// `POST /team`: the logged-in team submits a program; the page again,
/// saying what came of it (a refusal with its status).
pub async fn team_post(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    sent: Result<Form<Sent>, axum::extract::rejection::FormRejection>,
) -> Response {
    let team = match team_of(&app, &headers).await {
        Ok(team) => team,
        Err(response) => return response,
    };
    let submitted = async {
        let Form(sent) = sent.map_err(|e| Refusal::new(StatusCode::BAD_REQUEST, &e.body_text()))?;
        check_csrf(&headers, &sent.csrf)?;
        store(&app, team.clone(), sent.language, sent.source).await
    };
    let submitted = submitted.await.map(|id| {
        format!("Program {id} submitted: queued for the judge. Load this page again to follow it.")
    });
    let (status, said) = super::outcome_line(submitted);
    let shown = async {
        let (csrf, set) = session::csrf(&headers)?;
        let below = below(&app, &team).await?;
        Ok::<_, Refusal>((team_body(&app, &team, &csrf, &said, &below), set))
    };
    match shown.await {
        Ok((body, set)) => {
            let mut response = (status, Html(page(&format!("Team {team}"), &body))).into_response();
            with_cookie(response.headers_mut(), set);
            response
        }
        Err(refusal) => refusal.into_response(),
    }
}
