//! `reversi-server`: the arena server. Teams register, the organiser
//! registers hosted programs and creates games and contests (knockout,
//! Elo pool, ladder), remote bots play over HTTP (`reversi connect`
//! bridges any judge-protocol program), hosted programs are played by the
//! server itself, and every move is stored (in SQLite, or in PostgreSQL
//! shared by several server processes) before it is acknowledged.
//!
//! | concern | module |
//! | --- | --- |
//! | storage, schema migrations | [`store`] |
//! | a stored game's position and the referee's rules | [`game`] |
//! | contests: the tournament rules over the server's games | [`contest`] |
//! | hosted programs, played by the server itself | [`hosted`] |
//! | work any server process may take on, held for a lease | [`lease`] |
//! | team secrets, hashed | [`secret`] |
//! | the HTTP API | [`api`] |
//! | the web pages: the games, each game's page and GGF | [`pages`] |
//! | a limit on each client's requests | [`rate`] |
//!
//! Dependencies point one way: `reversi-core` <- `reversi` (the tools:
//! GGF, the game page, the tournament rules, the seat) <- this crate;
//! within it store, game <- hosted <- contest <- lease <- api, pages.

pub mod api;
pub mod contest;
pub mod game;
pub mod hosted;
pub mod lease;
pub mod pages;
pub mod rate;
pub mod secret;
pub mod store;

use axum::extract::DefaultBodyLimit;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::{get, post};
use axum::Router;
use std::sync::Arc;
use std::time::Duration;
use store::{GameRow, Store, StoreError};

/// The largest request body taken (a move or a registration is tiny).
pub const MAX_BODY: usize = 16 * 1024;

/// The most turn requests of one team that may wait at once (a bot
/// needs one a game it plays).
pub const MAX_WAITS: usize = 16;

/// The most games a contest's page and JSON list (the latest): an Elo
/// pool left running for a term plays thousands, and live pages ask for
/// them every second.
pub const SHOWN_GAMES: usize = 200;

/// How often games whose side to move has run out of time are ended.
const SWEEP_EVERY: Duration = Duration::from_millis(50);

/// Milliseconds since the epoch.
#[must_use]
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// The server's state.
pub struct App {
    pub store: Store,
    /// The organiser's token; `None`: the organiser's calls are refused.
    admin_token: Option<String>,
    pub checked: secret::Checked,
    /// Raised after every stored move or ending of a game, for the turn
    /// requests waiting on that game (only those: one signal for all
    /// games woke every waiting request on every move, and under 200
    /// games at once the reloads starved the turns).
    pub moved: Signals,
    pub rate: rate::Limiter,
    pub waits: Waits,
    /// Argon2 runs here, two at a time: each takes 19 MB and tens of
    /// milliseconds, and a burst of first requests (or of wrong secrets)
    /// would otherwise take memory without bound.
    pub hashers: secret::Hashers,
    /// The hosted programs' seats being played, by game and side.
    pub seats: Running<(i64, usize)>,
    /// The contests being run.
    pub contests: Running<i64>,
    /// This process's name as a holder of leases (see [`lease`]).
    pub holder: String,
}

/// Argon2 computations at once.
pub const HASHING_AT_ONCE: usize = 2;

/// One signal a game, made when first waited on, for the turn requests;
/// and a count of every change, which the server's own threads (hosted
/// programs, contests) wait on.
#[derive(Default)]
pub struct Signals {
    games: std::sync::Mutex<std::collections::HashMap<i64, Arc<tokio::sync::Notify>>>,
    changes: std::sync::Mutex<u64>,
    changed: std::sync::Condvar,
}

impl Signals {
    /// Game `id`'s signal.
    pub fn of(&self, id: i64) -> Arc<tokio::sync::Notify> {
        let mut signals = self.games.lock().unwrap_or_else(|e| e.into_inner());
        Arc::clone(signals.entry(id).or_default())
    }

    /// Wakes the requests waiting on game `id`, and the server's threads.
    pub fn raise(&self, id: i64) {
        let signal = self
            .games
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&id)
            .cloned();
        if let Some(signal) = signal {
            signal.notify_waiters();
        }
        self.poke();
    }

    /// Wakes every request waiting on a game, and the server's threads:
    /// notices of other processes' changes may have been missed.
    pub fn raise_all(&self) {
        let signals: Vec<_> = self
            .games
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .cloned()
            .collect();
        for signal in signals {
            signal.notify_waiters();
        }
        self.poke();
    }

    /// Wakes the server's threads: something changed (a contest paused, an
    /// entrant added).
    pub fn poke(&self) {
        *self.changes.lock().unwrap_or_else(|e| e.into_inner()) += 1;
        self.changed.notify_all();
    }

    /// The changes so far, to wait past.
    pub fn seen(&self) -> u64 {
        *self.changes.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits until there has been a change since `seen`, or `timeout`.
    pub fn wait_past(&self, seen: u64, timeout: Duration) {
        let changes = self.changes.lock().unwrap_or_else(|e| e.into_inner());
        let _ = self
            .changed
            .wait_timeout_while(changes, timeout, |now| *now == seen);
    }

    /// Forgets game `id`'s signal (the game ended; late waiters make a new one).
    pub fn forget(&self, id: i64) {
        self.games
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&id);
    }
}

/// Work that runs on threads of its own, one at a time for each key (a
/// contest, a hosted side of a game): the keys whose thread runs, and
/// those of them whose lease another process has taken over, whose work
/// is to stop.
pub struct Running<K> {
    running: Arc<std::sync::Mutex<std::collections::HashSet<K>>>,
    given_up: Arc<std::sync::Mutex<std::collections::HashSet<K>>>,
}

/// The set, even if a thread panicked holding its lock (a set of keys is
/// whole whatever the thread was doing).
fn lock<T>(set: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    set.lock().unwrap_or_else(|e| e.into_inner())
}

impl<K> Default for Running<K> {
    fn default() -> Self {
        Running {
            running: Arc::default(),
            given_up: Arc::default(),
        }
    }
}

/// Takes a key out of both sets when its thread ends, however it ends.
struct Ended<K: Eq + std::hash::Hash> {
    key: K,
    running: Arc<std::sync::Mutex<std::collections::HashSet<K>>>,
    given_up: Arc<std::sync::Mutex<std::collections::HashSet<K>>>,
}

impl<K: Eq + std::hash::Hash> Drop for Ended<K> {
    fn drop(&mut self) {
        lock(&self.running).remove(&self.key);
        lock(&self.given_up).remove(&self.key);
    }
}

impl<K: Eq + std::hash::Hash + Clone + Send + 'static> Running<K> {
    /// Runs `work` on a thread named `name`, unless `key`'s runs already;
    /// `false` when no thread could be had.
    pub fn spawn(&self, key: K, name: String, work: impl FnOnce() + Send + 'static) -> bool {
        if !lock(&self.running).insert(key.clone()) {
            return true;
        }
        let ended = Ended {
            key: key.clone(),
            running: Arc::clone(&self.running),
            given_up: Arc::clone(&self.given_up),
        };
        let spawned = std::thread::Builder::new().name(name).spawn(move || {
            let _ended = ended;
            work();
        });
        spawned.is_ok()
    }

    /// The keys whose work runs.
    pub fn keys(&self) -> Vec<K> {
        lock(&self.running).iter().cloned().collect()
    }

    /// Tells `key`'s work to stop: another process holds its lease now.
    pub fn give_up(&self, key: K) {
        if lock(&self.running).contains(&key) {
            lock(&self.given_up).insert(key);
        }
    }

    /// Whether `key`'s work is to stop.
    pub fn given_up(&self, key: &K) -> bool {
        lock(&self.given_up).contains(key)
    }
}

/// The turn requests waiting, by team.
#[derive(Default)]
pub struct Waits(std::sync::Mutex<std::collections::HashMap<String, usize>>);

/// One waiting request, counted until it is dropped.
pub struct Waiting<'a> {
    waits: &'a Waits,
    team: String,
}

impl Waits {
    /// Counts a request of `team`'s in, unless [`MAX_WAITS`] wait already.
    pub fn enter(&self, team: &str) -> Option<Waiting<'_>> {
        let mut counts = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let count = counts.entry(team.to_string()).or_insert(0);
        if *count >= MAX_WAITS {
            return None;
        }
        *count += 1;
        Some(Waiting {
            waits: self,
            team: team.to_string(),
        })
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        let mut counts = self.waits.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(count) = counts.get_mut(&self.team) {
            *count -= 1;
            if *count == 0 {
                counts.remove(&self.team);
            }
        }
    }
}

impl App {
    #[must_use]
    pub fn new(store: Store, admin_token: Option<String>, rate: rate::Limiter) -> App {
        App {
            store,
            admin_token,
            checked: secret::Checked::default(),
            moved: Signals::default(),
            rate,
            waits: Waits::default(),
            hashers: secret::Hashers::new(HASHING_AT_ONCE),
            seats: Running::default(),
            contests: Running::default(),
            holder: lease::holder_name(),
        }
    }

    /// Judges `text`, sent `arrived_ms` by the side to move of game `row`,
    /// stores what it does (the move, or the forfeit) and wakes whoever
    /// waits on the game. The caller has checked that the game goes on and
    /// that the sender is its side to move.
    pub fn submit(&self, row: &GameRow, text: &str, arrived_ms: i64) -> Result<(), StoreError> {
        let position = game::Position::of(row).map_err(StoreError::Other)?;
        let verdict = game::judge(
            &position,
            text,
            arrived_ms - row.turn_since_ms,
            row.move_time_ms,
        );
        match &verdict {
            game::Verdict::Play { square, ending } => self.store.play(
                row.id,
                position.ply,
                square.as_deref(),
                ending.as_deref(),
                now_ms(),
            )?,
            game::Verdict::Forfeit(ending) => {
                self.store
                    .end(row.id, position.ply, position.to_move.name(), ending)?
            }
        }
        self.moved.raise(row.id);
        Ok(())
    }

    fn check_admin(&self, headers: &HeaderMap) -> Result<(), api::Refusal> {
        let given = headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "));
        match (&self.admin_token, given) {
            (Some(token), Some(given)) if same(token.as_bytes(), given.as_bytes()) => Ok(()),
            (None, _) => Err(api_refusal(
                StatusCode::FORBIDDEN,
                "this server has no organiser token",
            )),
            _ => Err(api_refusal(
                StatusCode::UNAUTHORIZED,
                "wrong organiser token",
            )),
        }
    }
}

fn api_refusal(status: StatusCode, why: &str) -> api::Refusal {
    api::Refusal::new(status, why)
}

/// Compares in time that does not depend on where the bytes differ.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The routes. Served with the client's address
/// (`into_make_service_with_connect_info::<SocketAddr>`), which the rate
/// limit needs.
pub fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/", get(pages::index))
        .route("/contests/{id}", get(pages::contest_page))
        .route("/games/{id}", get(pages::game_page))
        .route("/games/{id}/ggf", get(pages::game_ggf))
        .route("/api/teams", post(api::register))
        .route("/api/games", post(api::create_game))
        .route("/api/games/{id}", get(api::show_game))
        .route("/api/games/{id}/turn", get(api::turn))
        .route("/api/games/{id}/move", post(api::play))
        .route("/api/contests", post(api::create_contest))
        .route("/api/contests/{id}", get(api::show_contest))
        .route("/api/contests/{id}/next", get(api::next_game))
        .route("/api/contests/{id}/pause", post(api::pause_contest))
        .route("/api/contests/{id}/resume", post(api::resume_contest))
        .route("/api/contests/{id}/entrants", post(api::add_entrant))
        .fallback(api::not_found)
        // The length a request declares is checked before its body is read.
        .layer(tower_http::limit::RequestBodyLimitLayer::new(MAX_BODY))
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .layer(axum::middleware::from_fn_with_state(
            Arc::clone(&app),
            rate::limit,
        ))
        .with_state(app)
}

/// Ends, every [`SWEEP_EVERY`], the games whose side to move has let its
/// time run out: a bot that stops answering loses as it would under our
/// referee, without anyone having to ask.
pub async fn sweep_late_games(app: Arc<App>) {
    loop {
        tokio::time::sleep(SWEEP_EVERY).await;
        let worker = Arc::clone(&app);
        let ended = tokio::task::spawn_blocking(move || end_late_games(&worker))
            .await
            .unwrap_or_default();
        for id in ended {
            app.moved.raise(id);
            app.moved.forget(id);
        }
    }
}

/// Ends the games whose side to move is out of time; returns them.
fn end_late_games(app: &App) -> Vec<i64> {
    let now = now_ms();
    let Ok(ids) = app.store.late_games(now, &app.holder) else {
        return Vec::new();
    };
    let mut ended = Vec::new();
    for id in ids {
        let Ok(Some(row)) = app.store.game(id) else {
            continue;
        };
        // Looked at again: a move may have come in since the question.
        if row.ending.is_some() || now - row.turn_since_ms <= row.move_time_ms {
            continue;
        }
        let Ok(position) = game::Position::of(&row) else {
            continue;
        };
        let ending = format!(
            "{} forfeits: no move within {} ms",
            position.to_move.name(),
            row.move_time_ms
        );
        if app
            .store
            .end(id, position.ply, position.to_move.name(), &ending)
            .is_ok()
        {
            ended.push(id);
        }
    }
    ended
}
