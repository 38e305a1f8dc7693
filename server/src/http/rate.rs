//! A limit on each client's requests, by its address: a bucket of
//! [`BURST`] requests that refills at [`PER_SECOND`] (by default; `--rate`
//! sets another, for a class whose bots all run on one machine). A client past it gets
//! 429 at once, without a look at the database, so that one that floods
//! costs the others little.

use crate::http::conn::Client;
use crate::http::Refusal;
use crate::App;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Requests a client may make each second by default (`--rate`), and at
/// once twice that.
pub const PER_SECOND: f64 = 100.0;
pub const BURST: f64 = 2.0 * PER_SECOND;

/// Clients remembered; past this, those with a full bucket are forgotten.
const MAX_CLIENTS: usize = 10_000;

pub struct Limiter {
    /// Requests a second; `None`: no limit.
    per_second: Option<f64>,
    buckets: Mutex<HashMap<IpAddr, (f64, Instant)>>,
}

impl Default for Limiter {
    fn default() -> Limiter {
        Limiter::new(Some(PER_SECOND))
    }
}

impl Limiter {
    /// A limit of `per_second` requests a second a client (a burst of
    /// twice that), or none.
    #[must_use]
    pub fn new(per_second: Option<f64>) -> Limiter {
        Limiter {
            per_second,
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Takes a request from `client`'s bucket; false when it is empty.
    pub fn take(&self, client: IpAddr, now: Instant) -> bool {
        let Some(rate) = self.per_second else {
            return true;
        };
        let burst = 2.0 * rate;
        let mut buckets = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        if buckets.len() > MAX_CLIENTS {
            buckets.retain(|_, (tokens, at)| {
                *tokens + now.duration_since(*at).as_secs_f64() * rate < burst
            });
        }
        let (tokens, at) = buckets.entry(client).or_insert((burst, now));
        *tokens = (*tokens + now.duration_since(*at).as_secs_f64() * rate).min(burst);
        *at = now;
        if *tokens >= 1.0 {
            *tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

pub async fn limit(State(app): State<Arc<App>>, request: Request, next: Next) -> Response {
    let client = request.extensions().get::<Client>().copied();
    if let Some(Client(addr)) = client {
        if !app.rate.take(addr, Instant::now()) {
            return Refusal::new(
                StatusCode::TOO_MANY_REQUESTS,
                "too many requests: slow down",
            )
            .into_response();
        }
    }
    next.run(request).await
}
