//! Who is using the pages: a team logged in with its name and secret, or
//! the organiser with the token, each held by a session cookie
//! (`HttpOnly`, `SameSite=Strict`); the database keeps only the token's
//! hash, so a copy of it opens no session.
//!
//! Every form carries a CSRF token that must equal the `arena_csrf`
//! cookie (the double-submit pattern): another site can make a browser
//! post a form here, but cannot read the cookie to put in the form. The
//! cookie is given with the first page that holds a form.

use crate::http::api::blocking;
use crate::http::Refusal;
use crate::App;
use axum::http::header::{COOKIE, SET_COOKIE};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use sha2::{Digest, Sha256};
use std::io::Read;
use std::sync::Arc;

const SESSION_COOKIE: &str = "arena_session";
const CSRF_COOKIE: &str = "arena_csrf";

/// How long a login lasts.
const SESSION_FOR_S: i64 = 12 * 3600;

/// Who a page is for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Who {
    Team(String),
    Organiser,
}

/// 32 random bytes from the system, as hex: a token nobody can guess.
fn random_token() -> Result<String, Refusal> {
    let mut bytes = [0u8; 32];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .map_err(|e| {
            Refusal::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                &format!("randomness: {e}"),
            )
        })?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

fn hash(token: &str) -> String {
    Sha256::digest(token.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Cookie `name` of the request, if it is a token's shape.
fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(n, _)| *n == name)
        .map(|(_, v)| v.to_string())
        .filter(|v| v.len() == 64 && v.bytes().all(|b| b.is_ascii_hexdigit()))
}

fn set_cookie(name: &str, value: &str, max_age_s: i64) -> HeaderValue {
    HeaderValue::from_str(&format!(
        "{name}={value}; Path=/; HttpOnly; SameSite=Strict; Max-Age={max_age_s}"
    ))
    .expect("a token is plain ASCII")
}

/// Whose session the request carries, if any.
pub async fn who(app: &Arc<App>, headers: &HeaderMap) -> Result<Option<Who>, Refusal> {
    let Some(token) = cookie(headers, SESSION_COOKIE) else {
        return Ok(None);
    };
    let worker = Arc::clone(app);
    let found = blocking(move || Ok(worker.store.session(&hash(&token), crate::now_ms())?)).await?;
    Ok(found.map(|team| team.map_or(Who::Organiser, Who::Team)))
}

/// Opens a session for `who`: the cookie that carries it.
pub async fn open(app: &Arc<App>, who: Who) -> Result<HeaderValue, Refusal> {
    let token = random_token()?;
    let hashed = hash(&token);
    let worker = Arc::clone(app);
    blocking(move || {
        let team = match &who {
            Who::Team(team) => Some(team.as_str()),
            Who::Organiser => None,
        };
        let now = crate::now_ms();
        Ok(worker
            .store
            .add_session(&hashed, team, now, now + SESSION_FOR_S * 1000)?)
    })
    .await?;
    Ok(set_cookie(SESSION_COOKIE, &token, SESSION_FOR_S))
}

/// Ends the request's session, if any: the cookie that clears it.
pub async fn close(app: &Arc<App>, headers: &HeaderMap) -> Result<HeaderValue, Refusal> {
    if let Some(token) = cookie(headers, SESSION_COOKIE) {
        let worker = Arc::clone(app);
        blocking(move || Ok(worker.store.end_session(&hash(&token))?)).await?;
    }
    Ok(set_cookie(SESSION_COOKIE, "", 0))
}

/// The CSRF token for the forms of a page: the request's cookie, or a new
/// one with the cookie to set.
pub fn csrf(headers: &HeaderMap) -> Result<(String, Option<HeaderValue>), Refusal> {
    match cookie(headers, CSRF_COOKIE) {
        Some(token) => Ok((token, None)),
        None => {
            let token = random_token()?;
            let set = set_cookie(CSRF_COOKIE, &token, SESSION_FOR_S);
            Ok((token, Some(set)))
        }
    }
}

/// The hidden field that carries `token` in a form.
#[must_use]
pub fn csrf_field(token: &str) -> String {
    format!("<input type=\"hidden\" name=\"csrf\" value=\"{token}\">")
}

/// Refuses (403) a form whose CSRF token is not the cookie's.
pub fn check_csrf(headers: &HeaderMap, sent: &str) -> Result<(), Refusal> {
    match cookie(headers, CSRF_COOKIE) {
        Some(token) if crate::same(token.as_bytes(), sent.as_bytes()) => Ok(()),
        _ => Err(Refusal::new(
            StatusCode::FORBIDDEN,
            "the form's CSRF token is missing or wrong: load the page again and resend",
        )),
    }
}

/// Adds `set` (a cookie to set) to `headers`, if any.
pub fn with_cookie(headers: &mut HeaderMap, set: Option<HeaderValue>) {
    if let Some(set) = set {
        headers.append(SET_COOKIE, set);
    }
}
