//! A limit on each client's requests, by its address: a bucket of
//! [`BURST`] requests that refills at [`PER_SECOND`]. A client past it gets
//! 429 at once, without a look at the database, so that one that floods
//! costs the others little.

use crate::api::Refusal;
use crate::App;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Requests a client may make at once...
pub const BURST: f64 = 200.0;
/// ... and each second after that.
pub const PER_SECOND: f64 = 100.0;

/// Clients remembered; past this, those with a full bucket are forgotten.
const MAX_CLIENTS: usize = 10_000;

#[derive(Default)]
pub struct Limiter {
    buckets: Mutex<HashMap<IpAddr, (f64, Instant)>>,
}

impl Limiter {
    /// Takes a request from `client`'s bucket; false when it is empty.
    pub fn take(&self, client: IpAddr, now: Instant) -> bool {
        let mut buckets = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        if buckets.len() > MAX_CLIENTS {
            buckets.retain(|_, (tokens, at)| {
                *tokens + now.duration_since(*at).as_secs_f64() * PER_SECOND < BURST
            });
        }
        let (tokens, at) = buckets.entry(client).or_insert((BURST, now));
        *tokens = (*tokens + now.duration_since(*at).as_secs_f64() * PER_SECOND).min(BURST);
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
    let client = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .copied();
    if let Some(ConnectInfo(addr)) = client {
        if !app.rate.take(addr.ip(), Instant::now()) {
            return Refusal::new(
                StatusCode::TOO_MANY_REQUESTS,
                "too many requests: slow down",
            )
            .into_response();
        }
    }
    next.run(request).await
}
