//! `reversi-server`: the arena server. Teams register, the organiser
//! registers hosted programs and creates games and contests (knockout,
//! Elo pool, ladder), remote bots play over HTTP (`reversi connect`
//! bridges any judge-protocol program), hosted programs are played by the
//! server itself, and every move is stored (in SQLite, or in PostgreSQL
//! shared by several server processes) before it is acknowledged.
//!
//! | concern | module |
//! | --- | --- |
//! | storage, schema migrations, a lease's terms | [`store`] |
//! | a stored game's position, the referee's rules, its GGF | [`game`] |
//! | contests: the tournament rules over the server's games | [`contest`] |
//! | hosted programs, played by the server itself on the cores shared out | [`hosted`] |
//! | the online judge: submissions built, checked and made active | [`judge`] |
//! | work any server process may take on, held for a lease | [`lease`] |
//! | finished games analysed in the background | [`analysis`] |
//! | team secrets hashed and checked, and the price of wrong ones | [`auth`] |
//! | the routes, the API, the pages, connections and the rate limit | [`http`] |
//! | the GGS service that engines join with their own clients | [`ggs`] |
//!
//! This file holds what they share: the server's state ([`App`]), its
//! signals, and the judging of a move ([`App::submit`]).
//!
//! Dependencies point one way: `reversi-core` <- `reversi` (the tools:
//! GGF, the game page, the tournament rules, the seat) <- this crate;
//! within it store <- {game, hosted} <- {judge, contest, analysis} <-
//! {lease, http} and http <- ggs (`tools/module_cycles.py` finds any circle).

pub mod analysis;
pub mod auth;
pub mod contest;
pub mod game;
pub mod ggs;
pub mod hosted;
pub mod http;
pub mod judge;
pub mod lease;
pub mod store;

use axum::http::{HeaderMap, StatusCode};
use std::sync::Arc;
use std::time::Duration;
use store::{GameRow, Store, StoreError};

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
    pub checked: auth::secret::Checked,
    /// Raised after every stored move or ending of a game, for the turn
    /// requests waiting on that game (only those: one signal for all
    /// games woke every waiting request on every move, and under 200
    /// games at once the reloads starved the turns).
    pub moved: Signals,
    pub rate: http::rate::Limiter,
    /// The turn requests waiting, by team ([`http::MAX_WAITS`] each at most).
    pub waits: Tally<String>,
    /// Argon2 runs on these, a few at a time: each takes 19 MB and tens
    /// of milliseconds (see [`auth`]). Checks of secrets, taken in turn by
    /// client address; registrations' hashes, on a queue of their own.
    pub checks: auth::FairQueue,
    pub registrations: auth::FairQueue,
    /// Wrong secrets, counted by client and by team.
    pub failures: auth::Failures,
    /// The games with a move under the server's own handling (its secret
    /// checked, its storing): their clocks are not the bot's to lose.
    pub handling: Tally<i64>,
    /// Games whose last move could not be stored: their side's clock is
    /// stopped until the store works again (see [`sweep_late_games`]).
    pub stalled: std::sync::Mutex<std::collections::HashSet<i64>>,
    /// The hosted programs' seats being played, by game and side.
    pub seats: Running<(i64, usize)>,
    /// The contests being run.
    pub contests: Running<i64>,
    /// This process's name as a holder of leases (see [`lease`]).
    pub holder: String,
    /// Hosted programs run in this sandbox, if set (`--sandbox`).
    pub sandbox: Option<reversi::arena::sandbox::Sandbox>,
    /// The online judge, if this server takes submissions (it needs the
    /// sandbox).
    pub judge: Option<judge::Judge>,
    /// The submitted programs this process is judging.
    pub judging: Running<i64>,
    /// The languages, as found on first asking where there is no judge.
    pub languages: std::sync::OnceLock<Vec<judge::languages::Offered>>,
    /// The cores, shared out between hosted games.
    pub cores: hosted::cores::Cores,
}

/// One signal a game, made when first waited on, for the turn requests;
/// and a count of every change, which the server's own threads (hosted
/// programs, contests) wait on.
#[derive(Default)]
pub struct Signals {
    games: std::sync::Mutex<std::collections::HashMap<i64, Arc<tokio::sync::Notify>>>,
    changes: std::sync::Mutex<u64>,
    changed: std::sync::Condvar,
    /// Every change, for the live pages' streams.
    any: tokio::sync::Notify,
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
        self.any.notify_waiters();
    }

    /// A future that completes at the next change anywhere (made before
    /// looking, so that no change slips in between).
    pub fn next_change(&self) -> tokio::sync::futures::Notified<'_> {
        self.any.notified()
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

/// Requests under way, counted by a key (a team's turn requests, a
/// game's moves being handled).
pub struct Tally<K>(std::sync::Mutex<std::collections::HashMap<K, usize>>);

impl<K> Default for Tally<K> {
    fn default() -> Self {
        Tally(std::sync::Mutex::default())
    }
}

/// One request counted in `tally` under `key` until it is dropped.
pub struct Counted<'a, K: Eq + std::hash::Hash> {
    tally: &'a Tally<K>,
    key: K,
}

impl<K: Eq + std::hash::Hash + Clone> Tally<K> {
    /// Counts a request under `key` in.
    pub fn enter(&self, key: K) -> Counted<'_, K> {
        *lock(&self.0).entry(key.clone()).or_insert(0) += 1;
        Counted { tally: self, key }
    }

    /// Counts a request under `key` in, unless `most` are counted already.
    pub fn enter_below(&self, key: K, most: usize) -> Option<Counted<'_, K>> {
        let mut counts = lock(&self.0);
        let count = counts.entry(key.clone()).or_insert(0);
        if *count >= most {
            return None;
        }
        *count += 1;
        Some(Counted { tally: self, key })
    }

    /// Whether a request under `key` is under way.
    pub fn busy(&self, key: &K) -> bool {
        lock(&self.0).contains_key(key)
    }
}

impl<K: Eq + std::hash::Hash> Drop for Counted<'_, K> {
    fn drop(&mut self) {
        let mut counts = lock(&self.tally.0);
        if let Some(count) = counts.get_mut(&self.key) {
            *count -= 1;
            if *count == 0 {
                counts.remove(&self.key);
            }
        }
    }
}

impl App {
    #[must_use]
    pub fn new(
        store: Store,
        admin_token: Option<String>,
        rate: http::rate::Limiter,
        auth_limits: auth::Limits,
    ) -> App {
        App {
            store,
            admin_token,
            checked: auth::secret::Checked::default(),
            moved: Signals::default(),
            rate,
            waits: Tally::default(),
            checks: auth::FairQueue::new(
                auth::CHECKING_THREADS,
                auth::WAITING_PER_CLIENT,
                auth::WAITING,
            ),
            registrations: auth::FairQueue::new(
                auth::REGISTERING_THREADS,
                auth::WAITING_PER_CLIENT,
                auth::WAITING / 4,
            ),
            failures: auth::Failures::new(auth_limits),
            handling: Tally::default(),
            stalled: std::sync::Mutex::default(),
            seats: Running::default(),
            contests: Running::default(),
            holder: store::lease::holder_name(),
            sandbox: None,
            judge: None,
            judging: Running::default(),
            languages: std::sync::OnceLock::new(),
            cores: hosted::cores::Cores::new(hosted::cores::default_judges()),
        }
    }

    /// Judges `text`, sent `arrived_ms` by the side to move of game `row`,
    /// stores what it does (the move, or the forfeit) and wakes whoever
    /// waits on the game. The caller has checked that the game goes on and
    /// that the sender is its side to move.
    /// A text that is no move is quoted in the ending when `quote`.
    pub fn submit(
        &self,
        row: &GameRow,
        text: &str,
        arrived_ms: i64,
        quote: bool,
    ) -> Result<(), StoreError> {
        let position = game::Position::of(row).map_err(StoreError::Other)?;
        // A side whose move the store failed to take lost no time since:
        // its clock stopped with the failure.
        let stalled = lock(&self.stalled).contains(&row.id);
        let elapsed = if stalled {
            0
        } else {
            arrived_ms - row.turn_since_ms
        };
        let verdict = game::judge(&position, text, elapsed, row.move_time_ms, quote);
        match &verdict {
            game::Verdict::Play { square, ending } => self.store.play(
                row.id,
                position.ply,
                square.as_deref(),
                ending.as_deref(),
                now_ms(),
            ),
            game::Verdict::Forfeit(ending) => {
                self.store
                    .end(row.id, position.ply, position.to_move.name(), ending)
            }
        }
        .inspect_err(|e| {
            if matches!(e, StoreError::Other(_)) {
                lock(&self.stalled).insert(row.id);
            }
        })?;
        lock(&self.stalled).remove(&row.id);
        self.moved.raise(row.id);
        Ok(())
    }

    /// The languages a submission may be in, with this machine's
    /// compilers.
    pub fn offered(&self) -> &[judge::languages::Offered] {
        match &self.judge {
            Some(judge) => &judge.languages,
            None => self.languages.get_or_init(judge::languages::offered),
        }
    }

    /// Whether `headers` carry the organiser's token.
    #[must_use]
    pub fn is_admin(&self, headers: &HeaderMap) -> bool {
        self.check_admin(headers).is_ok()
    }

    fn check_admin(&self, headers: &HeaderMap) -> Result<(), http::Refusal> {
        let given = headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "));
        self.check_admin_token(given)
    }

    /// Whether `given` is the organiser's token (the pages' login).
    pub(crate) fn check_admin_token(&self, given: Option<&str>) -> Result<(), http::Refusal> {
        match (&self.admin_token, given) {
            (Some(token), Some(given)) if same(token.as_bytes(), given.as_bytes()) => Ok(()),
            (None, _) => Err(http::refuse(
                StatusCode::FORBIDDEN,
                "this server has no organiser token",
            )),
            _ => Err(http::refuse(
                StatusCode::UNAUTHORIZED,
                "wrong organiser token",
            )),
        }
    }
}

/// Compares in time that does not depend on where the bytes differ.
pub(crate) fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Ends, every `SWEEP_EVERY`, the games whose side to move has let its
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

/// The time a side whose move the store failed to take is given, beyond
/// its move's, once the store works again: its bot may be waiting out a
/// back-off (`reversi connect` waits up to a second between tries).
const STALL_GRACE_MS: i64 = 2000;

/// Offers the turn anew in each game whose move the store failed to take,
/// once the store works again; returns those games.
fn restart_stalled(app: &App) -> Vec<i64> {
    let stalled: Vec<i64> = lock(&app.stalled).iter().copied().collect();
    let mut restarted = Vec::new();
    for id in stalled {
        if app
            .store
            .restart_turn(id, now_ms() + STALL_GRACE_MS)
            .is_ok()
        {
            lock(&app.stalled).remove(&id);
            restarted.push(id);
        }
    }
    restarted
}

/// Ends the games whose side to move is out of time; returns them (and
/// those whose stopped clocks were started again).
fn end_late_games(app: &App) -> Vec<i64> {
    let mut ended = restart_stalled(app);
    let now = now_ms();
    let Ok(ids) = app.store.late_games(now, &app.holder) else {
        return ended;
    };
    for id in ids {
        if lock(&app.stalled).contains(&id) {
            continue;
        }
        let Ok(Some(row)) = app.store.game(id) else {
            continue;
        };
        // Looked at again: a move may have come in since the question.
        // A move the server is still checking or storing was in time if
        // it arrived in time, which its own judging decides.
        if row.ending.is_some()
            || now - row.turn_since_ms <= row.move_time_ms
            || app.handling.busy(&id)
        {
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
