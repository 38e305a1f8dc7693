//! A team's page, `/team`: a form that submits a program (a file chosen,
//! or the source pasted) and shows the team's programs with their states,
//! reasons and compiler messages. It works with scripts off (an ordinary
//! form post, the team's name and secret among its fields); with them on,
//! a chosen file fills the source box. What the page shows a team is what
//! the API shows it: only its own programs.

use super::page;
use crate::api::programs::store;
use crate::api::{blocking, check_team, Refusal};
use crate::conn::Client;
use crate::store::programs::ProgramRow;
use crate::App;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use axum::Form;
use reversi::show::escape_html;
use serde::Deserialize;
use std::sync::Arc;

/// Fills the source box from the file chosen.
const READ_FILE: &str = "<script>document.getElementById('file').addEventListener('change',\
function(e){var f=e.target.files[0];if(!f)return;var r=new FileReader();\
r.onload=function(){document.getElementById('source').value=r.result;};r.readAsText(f);});</script>";

/// The form, with `team` filled in and `said` above it.
fn form(app: &App, team: &str, said: &str) -> String {
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
        "<p><b>This server takes no submissions</b> (it runs without <code>--sandbox</code>): the form shows your programs only.</p>"
    };
    format!(
        "<h1>Your team</h1>{judging}{said}\
         <form method=\"post\" action=\"/team\">\
         <p><label>Team <input name=\"team\" value=\"{team}\" required></label> \
         <label>Secret <input name=\"secret\" type=\"password\" required></label></p>\
         <p><label>Language <select name=\"language\">{options}</select></label> \
         <label>File <input id=\"file\" type=\"file\"></label></p>\
         <p><textarea id=\"source\" name=\"source\" rows=\"12\" cols=\"90\" \
         placeholder=\"your program's source (choose a file, or paste it)\"></textarea></p>\
         <p><button name=\"action\" value=\"submit\">Submit</button> \
         <button name=\"action\" value=\"show\" formnovalidate>Show my programs</button></p>\
         </form>{READ_FILE}",
        team = escape_html(team)
    )
}

pub async fn team_page(State(app): State<Arc<App>>) -> Html<String> {
    Html(page("Your team", &form(&app, "", "")))
}

#[derive(Deserialize)]
pub struct Sent {
    team: String,
    secret: String,
    #[serde(default)]
    language: String,
    #[serde(default)]
    source: String,
    action: Option<String>,
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

/// `POST /team`: the form sent. Submits the program (unless only asked to
/// show), then shows the team's programs; a refusal is said on the page,
/// with its status.
pub async fn team_post(
    State(app): State<Arc<App>>,
    Client(client): Client,
    sent: Result<Form<Sent>, axum::extract::rejection::FormRejection>,
) -> Response {
    let answer = async {
        let Form(sent) = sent.map_err(|e| Refusal::new(StatusCode::BAD_REQUEST, &e.body_text()))?;
        let team = check_team(&app, client, sent.team.clone(), sent.secret).await?;
        let said = if sent.action.as_deref() == Some("show") {
            String::new()
        } else {
            let id = store(&app, team.clone(), sent.language, sent.source).await?;
            format!("<p class=\"said\">Program {id} submitted: queued for the judge. Show your programs again to follow it.</p>")
        };
        let worker = Arc::clone(&app);
        let asking = team.clone();
        let rows = blocking(move || Ok(worker.store.programs(Some(&asking))?)).await?;
        Ok::<_, Refusal>(format!(
            "{}<h2>Your programs</h2>{}",
            form(&app, &team, &said),
            programs_table(&rows)
        ))
    }
    .await;
    match answer {
        Ok(body) => Html(page("Your team", &body)).into_response(),
        Err(refusal) => {
            let (status, why) = refusal.parts();
            let said = format!(
                "<p class=\"refused\"><b>Refused:</b> {}</p>",
                escape_html(why)
            );
            (status, Html(page("Your team", &form(&app, "", &said)))).into_response()
        }
    }
}
