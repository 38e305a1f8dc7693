//! Connections: accepted, counted and timed, so that no client can hold
//! the server by being slow or by being many.
//!
//! - A request's head and body must arrive within
//!   [`Limits::request_timeout`] of its first byte: a slow client gets
//!   408 and is closed.
//! - A connection with no request under way is closed after
//!   [`Limits::idle_timeout`].
//! - Each client address may hold [`Limits::per_client`] connections open,
//!   and the server [`Limits::total`] in all; past either, a new
//!   connection is answered (429 or 503) and closed at once.
//!
//! A request's own waiting (a long poll for the turn) is the server's,
//! not the client's, and no timeout here runs during it.
//!
//! Behind a reverse proxy every connection comes from the proxy: with its
//! address in [`Proxies`], a request's [`Client`] is the last address the
//! proxy appended to `X-Forwarded-For`, and the per-client connection cap
//! is left to the proxy.

use axum::body::Body;
use axum::extract::{FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Router;
use hyper_util::rt::TokioIo;
use std::collections::HashMap;
use std::convert::Infallible;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::os::fd::AsRawFd;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::time::Instant;
use tower::ServiceExt;

/// The bounds on connections.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// From a request's first byte to its last.
    pub request_timeout: Duration,
    /// A connection's wait for its next request.
    pub idle_timeout: Duration,
    /// Connections open from one client address (0: no cap).
    pub per_client: usize,
    /// Connections open in all.
    pub total: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            request_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            per_client: 64,
            total: 4096,
        }
    }
}

/// The largest request head taken, with its buffer (hyper's floor is 8 KB).
const HEAD_BUFFER: usize = 64 * 1024;

/// The reverse proxies whose `X-Forwarded-For` is believed.
pub type Proxies = Arc<Vec<IpAddr>>;

/// The address a request comes from: the peer's, or behind a trusted
/// proxy the one the proxy names. Unknown (a request not made through
/// [`serve`]): the unspecified address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Client(pub IpAddr);

impl<S: Send + Sync> FromRequestParts<S> for Client {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Client, Infallible> {
        Ok(parts
            .extensions
            .get::<Client>()
            .copied()
            .unwrap_or(Client(IpAddr::V4(Ipv4Addr::UNSPECIFIED))))
    }
}

/// The client of a request from `peer` with `headers`: behind a trusted
/// proxy, the last address in the last `X-Forwarded-For` (the one the
/// proxy itself added; those before it are the client's word).
#[must_use]
pub fn client_of(peer: IpAddr, headers: &HeaderMap, proxies: &[IpAddr]) -> IpAddr {
    if !proxies.contains(&peer) {
        return peer;
    }
    headers
        .get_all("x-forwarded-for")
        .iter()
        .next_back()
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.rsplit(',').next())
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(peer)
}

/// Where a connection is in its cycle, and until when it may stay there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    /// Waiting for a request's first byte.
    Idle,
    /// A request's head arriving.
    Head,
    /// Its body arriving (the body's reader keeps this deadline).
    Body,
    /// The server's own work, and the answer being written.
    Handling,
}

struct Phase {
    at: Mutex<(Stage, Instant)>,
    limits: Limits,
}

impl Phase {
    fn new(limits: Limits) -> Phase {
        Phase {
            at: Mutex::new((Stage::Idle, Instant::now() + limits.idle_timeout)),
            limits,
        }
    }

    fn get(&self) -> (Stage, Instant) {
        *self.at.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn set(&self, stage: Stage, deadline: Instant) {
        *self.at.lock().unwrap_or_else(|e| e.into_inner()) = (stage, deadline);
    }

    /// Bytes came in: the first of a request starts its clock.
    fn bytes_read(&self) {
        let mut at = self.at.lock().unwrap_or_else(|e| e.into_inner());
        if at.0 == Stage::Idle {
            *at = (Stage::Head, Instant::now() + self.limits.request_timeout);
        }
    }

    /// A request's head is in: its body has what is left of its time.
    fn head_read(&self) {
        let (stage, deadline) = self.get();
        // A pipelined request's bytes came in while the one before it
        // was handled: its clock starts now.
        let deadline = if stage == Stage::Head {
            deadline
        } else {
            Instant::now() + self.limits.request_timeout
        };
        self.set(Stage::Body, deadline);
    }

    fn body_read(&self) {
        self.set(
            Stage::Handling,
            Instant::now() + Duration::from_secs(86_400),
        );
    }

    fn answered(&self) {
        self.set(Stage::Idle, Instant::now() + self.limits.idle_timeout);
    }

    /// Waits until the connection has been idle too long, or a request's
    /// head too slow; says which. It looks at least every quarter of the
    /// request timeout (a stage's change is not signalled: on every
    /// request that cost more than the looks), so a deadline is kept to
    /// within that.
    async fn expired(&self) -> Stage {
        let look_every = (self.limits.request_timeout / 4)
            .clamp(Duration::from_millis(100), Duration::from_secs(5));
        loop {
            let (stage, deadline) = self.get();
            let now = Instant::now();
            match stage {
                Stage::Idle | Stage::Head if now >= deadline => return stage,
                Stage::Idle | Stage::Head => {
                    tokio::time::sleep_until(deadline.min(now + look_every)).await;
                }
                Stage::Body | Stage::Handling => tokio::time::sleep(look_every).await,
            }
        }
    }
}

/// The deadline of the request being read, for the body's reader.
#[derive(Clone)]
struct BodyClock(Arc<Phase>);

/// The connections open, by client and in all.
#[derive(Default)]
pub(crate) struct Open {
    by_client: Mutex<HashMap<IpAddr, usize>>,
    total: std::sync::atomic::AtomicUsize,
}

/// One connection counted in until it is dropped.
pub(crate) struct Admitted {
    open: Arc<Open>,
    client: Option<IpAddr>,
}

impl Drop for Admitted {
    fn drop(&mut self) {
        self.open
            .total
            .fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
        if let Some(client) = self.client {
            let mut by_client = self
                .open
                .by_client
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            if let Some(n) = by_client.get_mut(&client) {
                *n -= 1;
                if *n == 0 {
                    by_client.remove(&client);
                }
            }
        }
    }
}

impl Open {
    /// Counts a connection from `peer` in, or says why not. A trusted
    /// proxy's connections are counted only in the total.
    pub(crate) fn admit(
        self: &Arc<Self>,
        peer: IpAddr,
        limits: &Limits,
        proxies: &[IpAddr],
    ) -> Result<Admitted, (StatusCode, &'static str)> {
        use std::sync::atomic::Ordering;
        if self.total.fetch_add(1, Ordering::SeqCst) >= limits.total {
            self.total.fetch_sub(1, Ordering::SeqCst);
            return Err((
                StatusCode::SERVICE_UNAVAILABLE,
                "the server has too many connections open: try again shortly",
            ));
        }
        let mut admitted = Admitted {
            open: Arc::clone(self),
            client: None,
        };
        if limits.per_client > 0 && !proxies.contains(&peer) {
            let mut by_client = self.by_client.lock().unwrap_or_else(|e| e.into_inner());
            let n = by_client.entry(peer).or_insert(0);
            if *n >= limits.per_client {
                return Err((
                    StatusCode::TOO_MANY_REQUESTS,
                    "too many connections open from this address",
                ));
            }
            *n += 1;
            admitted.client = Some(peer);
        }
        Ok(admitted)
    }
}

/// A connection's stream, telling its [`Phase`] when bytes come in.
struct Watched {
    stream: TcpStream,
    phase: Arc<Phase>,
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.stream).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.phase.bytes_read();
        }
        polled
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

/// A whole HTTP answer with a JSON error, for a connection about to be
/// closed outside any request.
fn closing_answer(status: StatusCode, why: &str) -> Vec<u8> {
    let body = serde_json::json!({ "error": why }).to_string();
    format!(
        "HTTP/1.1 {} {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        status.as_str(),
        status.canonical_reason().unwrap_or(""),
        body.len()
    )
    .into_bytes()
}

/// Writes what fits of `bytes` to the socket `fd` without waiting.
fn send_now(fd: std::os::fd::RawFd, bytes: &[u8]) {
    // SAFETY: `fd` belongs to a stream that the caller keeps open for the
    // call; MSG_DONTWAIT never blocks and MSG_NOSIGNAL never raises
    // SIGPIPE on a peer that has gone.
    unsafe {
        libc::send(
            fd,
            bytes.as_ptr().cast(),
            bytes.len(),
            libc::MSG_DONTWAIT | libc::MSG_NOSIGNAL,
        );
    }
}

/// Serves `router` on `listener` under `limits`, for ever: a failed
/// accept (out of descriptors, say) is waited out.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: Limits,
    proxies: Proxies,
) -> std::io::Result<()> {
    let open = Arc::new(Open::default());
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            // Out of descriptors, or a connection that went before it was
            // taken: the others go on.
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(20)).await;
                continue;
            }
        };
        match open.admit(peer.ip(), &limits, &proxies) {
            Ok(admitted) => {
                let router = router.clone();
                let proxies = Arc::clone(&proxies);
                tokio::spawn(async move {
                    connection(stream, peer, router, limits, proxies).await;
                    drop(admitted);
                });
            }
            Err((status, why)) => {
                // What the client sent already is read first: a socket
                // closed with unread input is reset, and the answer lost.
                let mut sent = [0u8; 16 * 1024];
                let _ = stream.try_read(&mut sent);
                send_now(stream.as_raw_fd(), &closing_answer(status, why));
            }
        }
    }
}

/// One connection, from its first byte to its close.
async fn connection(
    stream: TcpStream,
    peer: SocketAddr,
    router: Router,
    limits: Limits,
    proxies: Proxies,
) {
    let _ = stream.set_nodelay(true);
    let fd = stream.as_raw_fd();
    let phase = Arc::new(Phase::new(limits));
    let io = Watched {
        stream,
        phase: Arc::clone(&phase),
    };
    let serving = Arc::clone(&phase);
    let service = hyper::service::service_fn(move |request: Request<hyper::body::Incoming>| {
        let phase = Arc::clone(&serving);
        let router = router.clone();
        let proxies = Arc::clone(&proxies);
        async move {
            phase.head_read();
            let mut request = request.map(Body::new);
            let client = client_of(peer.ip(), request.headers(), &proxies);
            let extensions = request.extensions_mut();
            extensions.insert(Client(client));
            extensions.insert(BodyClock(Arc::clone(&phase)));
            let response = router.oneshot(request).await;
            phase.answered();
            response
        }
    });
    let mut http = hyper::server::conn::http1::Builder::new();
    http.header_read_timeout(None).max_buf_size(HEAD_BUFFER);
    let serving = http.serve_connection(TokioIo::new(io), service);
    // The watch runs as a task of its own: its looks do not poll the
    // connection.
    let (expired, ended) = tokio::sync::oneshot::channel();
    let watch = tokio::spawn(async move {
        let _ = expired.send(phase.expired().await);
    });
    tokio::pin!(serving);
    tokio::select! {
        _ = &mut serving => {}
        Ok(stage) = ended => {
            if stage == Stage::Head {
                let why = format!(
                    "the request did not arrive within {} s",
                    limits.request_timeout.as_secs_f64()
                );
                // The stream is still open: `serving` owns it until the
                // end of this function.
                send_now(fd, &closing_answer(StatusCode::REQUEST_TIMEOUT, &why));
            }
        }
    }
    watch.abort();
}

/// The request's body, read whole (at most `most` bytes) before the
/// handler runs, within the request's deadline: a slow body is 408, a
/// long one 413, each as the API's JSON error, and the connection closes.
pub async fn read_body(request: Request, next: Next, most: usize) -> Response {
    let clock = request.extensions().get::<BodyClock>().cloned();
    let deadline = clock.as_ref().map_or_else(
        || Instant::now() + Limits::default().request_timeout,
        |c| c.0.get().1,
    );
    let closing = |status: StatusCode, why: String| {
        let mut response = crate::http::Refusal::new(status, &why).into_response();
        response.headers_mut().insert(
            axum::http::header::CONNECTION,
            axum::http::HeaderValue::from_static("close"),
        );
        response
    };
    let too_long = || {
        closing(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("a request's body is at most {most} bytes"),
        )
    };
    let declared = request
        .headers()
        .get(axum::http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > most as u64) {
        return too_long();
    }
    let (parts, body) = request.into_parts();
    let read = tokio::time::timeout_at(deadline, axum::body::to_bytes(body, most)).await;
    let bytes = match read {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(_)) => return too_long(),
        Err(_) => {
            return closing(
                StatusCode::REQUEST_TIMEOUT,
                "the request's body did not arrive in time".into(),
            )
        }
    };
    if let Some(clock) = clock {
        clock.0.body_read();
    }
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

/// Raises this process's limit on open files to what the system allows
/// and returns it (the connection cap must stay below it).
#[must_use]
pub fn raise_open_files() -> u64 {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit only read and write `limit`.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            return 1024;
        }
        if limit.rlim_cur < limit.rlim_max {
            let raised = libc::rlimit {
                rlim_cur: limit.rlim_max,
                rlim_max: limit.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                limit = raised;
            }
        }
    }
    limit.rlim_cur
}
