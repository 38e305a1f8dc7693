//! `/login`: a team logs in with its name and secret, or signs up; the
//! organiser logs in with the token; `/logout` ends either. Each opens or
//! ends a session ([`super::session`]) and goes on to the team's or the
//! organiser's page.

use super::page;
use super::session::{self, check_csrf, csrf_field, with_cookie, Who};
use crate::http::api::check_team;
use crate::http::conn::Client;
use crate::http::Refusal;
use crate::App;
use axum::extract::State;
use axum::http::header::LOCATION;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::Form;
use serde::Deserialize;
use std::sync::Arc;

/// The organiser's wrong tokens are counted under this name, which no
/// team can have.
const ORGANISER: &str = "(organiser)";

/// The login page, `said` above its forms.
fn login_page(headers: &HeaderMap, status: StatusCode, said: &str) -> Response {
    let (token, set) = match session::csrf(headers) {
        Ok(csrf) => csrf,
        Err(refusal) => return refusal.into_response(),
    };
    let csrf = csrf_field(&token);
    let body = format!(
        "<h1>Log in</h1>{said}\
         <form method=\"post\" action=\"/login\">{csrf}\
         <p><label>Team <input name=\"team\" autocomplete=\"username\" required></label> \
         <label>Secret <input name=\"secret\" type=\"password\" autocomplete=\"current-password\" required></label> \
         <button>Log in</button></p></form>\
         <h2>A new team</h2>\
         <form method=\"post\" action=\"/signup\">{csrf}\
         <p><label>Team <input name=\"team\" required pattern=\"[A-Za-z0-9._-]{{1,40}}\"></label> \
         <label>Secret (8 or more characters) <input name=\"secret\" type=\"password\" autocomplete=\"new-password\" required minlength=\"8\"></label> \
         <button>Sign up</button></p></form>\
         <h2>The organiser</h2>\
         <form method=\"post\" action=\"/admin/login\">{csrf}\
         <p><label>Token <input name=\"token\" type=\"password\" required></label> \
         <button>Log in</button></p></form>\
         <p><a href=\"/\">the contests and games</a></p>"
    );
    let mut response = (status, Html(page("Log in", &body))).into_response();
    with_cookie(response.headers_mut(), set);
    response
}

pub async fn login_form(headers: HeaderMap) -> Response {
    login_page(&headers, StatusCode::OK, "")
}

/// Refused: the login page again, with why.
fn refused(headers: &HeaderMap, refusal: Refusal) -> Response {
    let (status, said) = super::outcome_line(Err(refusal));
    login_page(headers, status, &said)
}

/// On to `to`, with the session's cookie.
fn onward(to: &'static str, cookie: HeaderValue) -> Response {
    let mut response = StatusCode::SEE_OTHER.into_response();
    response
        .headers_mut()
        .insert(LOCATION, HeaderValue::from_static(to));
    response
        .headers_mut()
        .append(axum::http::header::SET_COOKIE, cookie);
    response
}

#[derive(Deserialize)]
pub struct TeamLogin {
    #[serde(default)]
    csrf: String,
    team: String,
    secret: String,
}

/// `POST /login`.
pub async fn login(
    State(app): State<Arc<App>>,
    Client(client): Client,
    headers: HeaderMap,
    sent: Result<Form<TeamLogin>, axum::extract::rejection::FormRejection>,
) -> Response {
    team_session(app, client, headers, sent, false).await
}

/// `POST /signup`: registers the team as `POST /api/teams` does, and
/// logs it in.
pub async fn signup(
    State(app): State<Arc<App>>,
    Client(client): Client,
    headers: HeaderMap,
    sent: Result<Form<TeamLogin>, axum::extract::rejection::FormRejection>,
) -> Response {
    team_session(app, client, headers, sent, true).await
}

/// Opens a session for the team the form names, once its secret is
/// checked (or, `new`, once it is registered with it): on to its page.
async fn team_session(
    app: Arc<App>,
    client: std::net::IpAddr,
    headers: HeaderMap,
    sent: Result<Form<TeamLogin>, axum::extract::rejection::FormRejection>,
    new: bool,
) -> Response {
    let done = async {
        let Form(sent) = sent.map_err(|e| Refusal::new(StatusCode::BAD_REQUEST, &e.body_text()))?;
        check_csrf(&headers, &sent.csrf)?;
        let team = if new {
            crate::http::api::add_team(&app, client, sent.team, sent.secret).await?
        } else {
            check_team(&app, client, sent.team, sent.secret).await?
        };
        session::open(&app, Who::Team(team)).await
    };
    match done.await {
        Ok(cookie) => onward("/team", cookie),
        Err(refusal) => refused(&headers, refusal),
    }
}

#[derive(Deserialize)]
pub struct OrganiserLogin {
    #[serde(default)]
    csrf: String,
    token: String,
}

/// `POST /admin/login`.
pub async fn admin_login(
    State(app): State<Arc<App>>,
    Client(client): Client,
    headers: HeaderMap,
    sent: Result<Form<OrganiserLogin>, axum::extract::rejection::FormRejection>,
) -> Response {
    let done = async {
        let Form(sent) = sent.map_err(|e| Refusal::new(StatusCode::BAD_REQUEST, &e.body_text()))?;
        check_csrf(&headers, &sent.csrf)?;
        // Counted as wrong secrets are: a guesser is slowed the same way.
        if app
            .failures
            .refused(client, ORGANISER, std::time::Instant::now())
            .is_some()
        {
            return Err(Refusal::new(
                StatusCode::TOO_MANY_REQUESTS,
                "too many wrong tokens or secrets from this address: wait a minute",
            ));
        }
        if let Err(refusal) = app.check_admin_token(Some(&sent.token)) {
            app.failures
                .record(client, ORGANISER, std::time::Instant::now());
            return Err(refusal);
        }
        session::open(&app, Who::Organiser).await
    };
    match done.await {
        Ok(cookie) => onward("/admin", cookie),
        Err(refusal) => refused(&headers, refusal),
    }
}

#[derive(Deserialize)]
pub struct Logout {
    #[serde(default)]
    csrf: String,
}

/// `POST /logout`.
pub async fn logout(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    sent: Result<Form<Logout>, axum::extract::rejection::FormRejection>,
) -> Response {
    let done = async {
        let Form(sent) = sent.map_err(|e| Refusal::new(StatusCode::BAD_REQUEST, &e.body_text()))?;
        check_csrf(&headers, &sent.csrf)?;
        session::close(&app, &headers).await
    };
    match done.await {
        Ok(cookie) => onward("/", cookie),
        Err(refusal) => refused(&headers, refusal),
    }
}

/// The logout button, for a page of a logged-in user.
#[must_use]
pub fn logout_form(csrf: &str) -> String {
    format!(
        "<form method=\"post\" action=\"/logout\" class=\"logout\">{}<button>Log out</button></form>",
        csrf_field(csrf)
    )
}
