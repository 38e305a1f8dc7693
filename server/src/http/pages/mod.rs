//! The web pages, readable with scripts off and live with them on: the
//! contests and games, each contest's page (standings, a knockout's
//! bracket, its games), each game's page (the viewer of `reversi show
//! --html`: the board with a slider, the moves) and its GGF, and a team's
//! page for its submissions ([`team`]), the login ([`login`]) and the
//! organiser's page ([`admin`]). A page of a game or contest still going
//! reloads itself when its stream says it changed ([`live`]).

pub mod admin;
pub mod live;
pub mod login;
pub mod session;
pub mod team;

use crate::http::api::{blocking, load};
use crate::http::Refusal;
use crate::store::GameRow;
use crate::App;
use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use reversi::study::show::escape_html;
use std::sync::Arc;

pub async fn game_page(
    State(app): State<Arc<App>>,
    Path(id): Path<i64>,
) -> Result<Html<String>, Refusal> {
    let row = load(&app, id).await?;
    let worker = Arc::clone(&app);
    let analysis = blocking(move || Ok(worker.store.analysis(id)?)).await?;
    let analysis: Option<serde_json::Value> =
        analysis.and_then(|text| serde_json::from_str(&text).ok());
    let mut game = crate::game::ggf_of(&row);
    if let Some(moves) = analysis.as_ref().and_then(|a| a.as_array()) {
        // Each move's worth to its player, as `reversi analyze --ggf`
        // writes it: the viewer draws the graph from them.
        for (m, a) in game.moves.iter_mut().zip(moves) {
            if let Some(discs) = a["played_value"]["discs"].as_f64() {
                m.eval = format!("{discs:.2}");
            }
        }
    }
    let mut page = reversi::study::show::html_page(&game)
        .map_err(|e| Refusal::new(StatusCode::INTERNAL_SERVER_ERROR, &e))?;
    // The viewer says how a finished game ended (its comment): said once.
    let status = if row.ending.is_some() {
        String::new()
    } else {
        ": in progress".into()
    };
    let links = format!(
        "<p>Game {id}{status}. <a href=\"/games/{id}/ggf\">GGF</a> · <a href=\"/\">all games</a></p>"
    );
    // The tab names the players and the result, as a list of tabs needs.
    let title = format!(
        "<title>Game {id}: {} vs {}, {}</title>",
        escape_html(&row.black),
        escape_html(&row.white),
        row.ending
            .as_deref()
            .map_or("in progress".into(), escape_html)
    );
    if let (Some(from), Some(to)) = (page.find("<title>"), page.find("</title>")) {
        page.replace_range(from..to + "</title>".len(), &title);
    }
    let mistakes = mistakes_html(&row, analysis.as_ref());
    page = page.replacen(
        "<div class=\"controls\">",
        &format!("{links}{mistakes}<div class=\"controls\">"),
        1,
    );
    if row.ending.is_none() {
        let script = live::game_script(row.moves.len(), None);
        page = page.replacen("</body>", &format!("{script}</body>"), 1);
    }
    Ok(Html(page))
}

pub async fn game_ggf(
    State(app): State<Arc<App>>,
    Path(id): Path<i64>,
) -> Result<Response, Refusal> {
    let row = load(&app, id).await?;
    let text = crate::game::ggf_of(&row).render() + "\n";
    Ok(([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], text).into_response())
}

/// The page's frame: its title, and its body.
pub(crate) fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width\"><title>{title}</title>\
         <style>body{{font-family:sans-serif;margin:1.5em}}td,th{{padding:2px 10px;text-align:left}}\
         table{{border-collapse:collapse;display:block;overflow-x:auto;max-width:100%}}\
         tr:nth-child(even){{background:#f2f2f2}}svg,textarea,input,select,pre{{max-width:100%;box-sizing:border-box}}\
         svg{{height:auto}}pre{{overflow-x:auto}}:focus-visible{{outline:3px solid #1565c0;outline-offset:2px}}\
         @media (max-width:480px){{body{{margin:.5em}}}}</style></head>\
         <body>{body}</body></html>\n",
        title = escape_html(title)
    )
}

/// Rows of a games table: number, black, white, moves, result.
fn game_rows(games: &[GameRow]) -> String {
    let mut rows = String::new();
    for g in games {
        let status = g
            .ending
            .as_deref()
            .map_or("in progress".to_string(), escape_html);
        rows.push_str(&format!(
            "<tr><td><a href=\"/games/{id}\">{id}</a></td><td>{}</td><td>{}</td><td>{}</td><td>{status}</td></tr>",
            escape_html(&g.black),
            escape_html(&g.white),
            // Moves played on squares: a pass is none.
            g.moves.iter().flatten().count(),
            id = g.id,
        ));
    }
    rows
}

const GAMES_HEAD: &str =
    "<tr><th>game</th><th>black</th><th>white</th><th>moves</th><th>result</th></tr>";

pub async fn index(State(app): State<Arc<App>>) -> Result<Html<String>, Refusal> {
    let worker = Arc::clone(&app);
    let (contests, games) =
        blocking(move || Ok((worker.store.contests()?, worker.store.recent_games(200)?))).await?;
    let mut listed = String::new();
    for (id, name, format, state) in &contests {
        listed.push_str(&format!(
            "<tr><td><a href=\"/contests/{id}\">{}</a></td><td>{format}</td><td>{state}</td></tr>",
            escape_html(name)
        ));
    }
    let contests = if contests.is_empty() {
        String::new()
    } else {
        format!("<h1>Contests</h1><table><tr><th>contest</th><th>format</th><th>state</th></tr>{listed}</table>")
    };
    Ok(Html(page(
        "Games",
        &format!(
            "{contests}<h1>Games</h1><table>{GAMES_HEAD}{}</table>",
            game_rows(&games)
        ),
    )))
}

/// A standings table from its JSON (`Table::to_json`): the keys of the
/// first row are the columns.
fn standings_html(json: &str) -> String {
    let Ok(serde_json::Value::Array(rows)) = serde_json::from_str::<serde_json::Value>(json) else {
        return String::new();
    };
    let Some(serde_json::Value::Object(first)) = rows.first() else {
        return String::new();
    };
    let columns: Vec<&String> = first.keys().collect();
    let mut html = String::from("<table class=\"standings\"><tr>");
    for c in &columns {
        html.push_str(&format!("<th>{}</th>", escape_html(c)));
    }
    html.push_str("</tr>");
    for row in &rows {
        html.push_str("<tr>");
        for c in &columns {
            let cell = match &row[c.as_str()] {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            html.push_str(&format!("<td>{}</td>", escape_html(&cell)));
        }
        html.push_str("</tr>");
    }
    html.push_str("</table>");
    html
}

pub async fn contest_page(
    State(app): State<Arc<App>>,
    Path(id): Path<i64>,
) -> Result<Html<String>, Refusal> {
    let (contest, games, games_played) = crate::http::api::load_contest_games(&app, id).await?;
    let worker = Arc::clone(&app);
    let entrants = blocking(move || {
        let now = crate::now_ms();
        Ok(worker
            .store
            .entrants(id)?
            .iter()
            .map(|e| (e.team.clone(), crate::contest::present(&worker, e, now)))
            .collect::<Vec<_>>())
    })
    .await?;
    let entrants: Vec<String> = entrants
        .iter()
        .map(|(team, present)| {
            format!(
                "<li>{}{}</li>",
                escape_html(team),
                if *present {
                    " (present)"
                } else {
                    " (not here)"
                }
            )
        })
        .collect();
    let standings = contest
        .standings
        .as_deref()
        .map(standings_html)
        .unwrap_or_default();
    let standings = if standings.is_empty() {
        "<p>No round has finished yet.</p>".to_string()
    } else {
        standings
    };
    // Our own SVG, from the names escaped as it writes them.
    let bracket = contest
        .bracket
        .as_deref()
        .map(|svg| format!("<h2>Bracket</h2><div class=\"bracket\">{svg}</div>"))
        .unwrap_or_default();
    let live = if contest.state == "finished" {
        String::new()
    } else {
        live::contest_script(&contest, &games)
    };
    Ok(Html(page(
        &contest.name,
        &format!(
            "<h1>{name}</h1><p>{format}, {state}, {ms} ms a move. <a href=\"/\">all contests and games</a></p>\
             <h2>Entrants</h2><ul>{entrants}</ul>\
             <h2>Standings</h2>{standings}{bracket}<h2>Games</h2>{shown}<table>{GAMES_HEAD}{rows}</table>{live}",
            shown = if games_played > games.len() {
                format!("<p>The latest {} of {games_played}.</p>", games.len())
            } else {
                String::new()
            },
            name = escape_html(&contest.name),
            entrants = entrants.concat(),
            format = contest.format,
            state = contest.state,
            ms = contest.move_time_ms,
            rows = game_rows(&games),
        ),
    )))
}

/// On to the login page (for a page that needs one).
pub(crate) fn to_login() -> Response {
    (
        StatusCode::SEE_OTHER,
        [(header::LOCATION, "/login")],
        "log in first",
    )
        .into_response()
}

/// `GET /games/{id}/log/{side}`: what the program that played `side`
/// wrote to stderr in the game, for its team or the organiser, logged in.
pub async fn game_log_page(
    State(app): State<Arc<App>>,
    Path((id, side)): Path<(i64, String)>,
    headers: axum::http::HeaderMap,
) -> Response {
    let index = match side.as_str() {
        "black" => 0,
        "white" => 1,
        _ => return Refusal::new(StatusCode::NOT_FOUND, "side is black or white").into_response(),
    };
    let who = match session::who(&app, &headers).await {
        Ok(Some(who)) => who,
        Ok(None) => return to_login(),
        Err(refusal) => return refusal.into_response(),
    };
    let shown = async {
        let row = load(&app, id).await?;
        let team = if index == 0 { &row.black } else { &row.white };
        if who != session::Who::Organiser && who != session::Who::Team(team.clone()) {
            return Err(Refusal::new(
                StatusCode::FORBIDDEN,
                "a game's log is its team's and the organiser's",
            ));
        }
        let worker = Arc::clone(&app);
        let log = blocking(move || Ok(worker.store.log(id, index)?)).await?;
        Ok(page(
            &format!("Game {id}: {side}'s stderr"),
            &format!(
                "<h1>Game {id}: {}'s program ({side}), its stderr</h1>\
                 <p><a href=\"/games/{id}\">the game</a></p><pre>{}</pre>",
                escape_html(team),
                log.as_deref().map_or("(nothing kept)".into(), escape_html)
            ),
        ))
    };
    match shown.await {
        Ok(body) => Html(body).into_response(),
        Err(refusal) => {
            let (status, why) = refusal.parts();
            (
                status,
                Html(page(
                    "Refused",
                    &format!("<p><b>Refused:</b> {}</p>", escape_html(why)),
                )),
            )
                .into_response()
        }
    }
}

/// A finished game's losing mistakes, side by side, from its analysis:
/// the move, the result it threw away, the best move and what the move
/// cost; or that the analysis is still to come.
fn mistakes_html(row: &GameRow, analysis: Option<&serde_json::Value>) -> String {
    if row.ending.is_none() {
        return String::new();
    }
    let Some(moves) = analysis.and_then(|a| a.as_array()) else {
        return "<p class=\"analysis\">The analysis of this game is still to come (the server analyses each finished game in turn).</p>".into();
    };
    let outcome = |v: &serde_json::Value| {
        let d = v["discs"].as_f64().unwrap_or(0.0);
        if d.abs() < 0.5 {
            "a draw"
        } else if d > 0.0 {
            "a win"
        } else {
            "a loss"
        }
    };
    let mut out = String::from("<section class=\"analysis\"><h2>Where the game was decided</h2>");
    for (color, team) in [("black", &row.black), ("white", &row.white)] {
        let lost: Vec<&serde_json::Value> = moves
            .iter()
            .filter(|m| m["color"] == color && m["lost_the_result"] == true)
            .collect();
        out.push_str(&format!("<h3>{color}: {}</h3>", escape_html(team)));
        if lost.is_empty() {
            out.push_str("<p>No move of this side changed the result.</p>");
            continue;
        }
        out.push_str("<ul class=\"mistakes\">");
        for m in lost {
            out.push_str(&format!(
                "<li><a href=\"#{n}\">move {n}</a>, {played}: {after}, where <b>{best}</b> kept {before}, {cost} discs better</li>",
                n = m["number"],
                played = m["played"].as_str().unwrap_or("pass"),
                before = outcome(&m["best_value"]),
                after = outcome(&m["played_value"]),
                best = m["best"].as_str().unwrap_or("pass"),
                cost = m["cost"],
            ));
        }
        out.push_str("</ul>");
    }
    out.push_str("</section>");
    out
}

/// What came of a form, as the line at the top of the page it shows
/// again, and that page's status: what was done, or the refusal and why.
pub(crate) fn outcome_line(done: Result<String, Refusal>) -> (StatusCode, String) {
    match done {
        Ok(said) => (
            StatusCode::OK,
            format!(
                "<p class=\"said\" role=\"status\">{}</p>",
                escape_html(&said)
            ),
        ),
        Err(refusal) => {
            let (status, why) = refusal.parts();
            (
                status,
                format!(
                    "<p class=\"refused\" role=\"alert\"><b>Refused:</b> {}</p>",
                    escape_html(why)
                ),
            )
        }
    }
}
