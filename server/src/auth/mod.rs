//! Who is asking, and the price of asking wrongly. A bot names its team
//! and secret in every request; the first check of a secret runs Argon2
//! (tens of milliseconds, on purpose), later ones compare a keyed hash
//! ([`secret::Checked`]; [`secret`] owns the hashes). Argon2 is the one thing here a stranger
//! can make the server spend time on, so:
//!
//! - a known team's good secret never waits for Argon2 again, and a
//!   different secret for a team whose good one is known is refused
//!   without running it (secrets never change);
//! - wrong secrets are counted by client address and by team over a
//!   minute, and past [`Limits::failures_per_client`] the client (past
//!   [`Limits::failures_per_team`] every client that failed for that
//!   team) is answered 429 without a check;
//! - checks wait in a [`FairQueue`] taken in turn by client address, so
//!   a flood from one address delays another's check by one check at
//!   most; it is bounded by client and in all, and a check whose
//!   requester has gone is dropped unrun;
//! - registrations hash on a queue of their own, so they never delay a
//!   playing team's check.

pub mod secret;

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// How the failures are counted, and how much waiting is allowed.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Wrong secrets a client address may send in [`WINDOW`].
    pub failures_per_client: u32,
    /// Wrong secrets for one team, from anywhere, in [`WINDOW`].
    pub failures_per_team: u32,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            failures_per_client: 10,
            failures_per_team: 30,
        }
    }
}

/// The span over which failures are counted.
pub const WINDOW: Duration = Duration::from_secs(60);

/// Checks of one client waiting at once, and of all clients.
pub const WAITING_PER_CLIENT: usize = 4;
pub const WAITING: usize = 256;

/// Threads running checks, and registrations' hashes.
pub const CHECKING_THREADS: usize = 2;
pub const REGISTERING_THREADS: usize = 1;

/// Addresses and teams remembered; past this, spent windows are forgotten.
const REMEMBERED: usize = 10_000;

/// Failures within one window.
#[derive(Clone, Copy)]
struct Count {
    since: Instant,
    failures: u32,
}

impl Count {
    /// The failures still counted at `now`.
    fn at(&self, now: Instant) -> u32 {
        if now.duration_since(self.since) < WINDOW {
            self.failures
        } else {
            0
        }
    }
}

#[derive(Default)]
struct Counts {
    by_client: HashMap<IpAddr, Count>,
    by_team: HashMap<String, Count>,
}

fn count_one<K: std::hash::Hash + Eq>(map: &mut HashMap<K, Count>, key: K, now: Instant) {
    if map.len() > REMEMBERED {
        map.retain(|_, c| c.at(now) > 0);
    }
    let fresh = Count {
        since: now,
        failures: 0,
    };
    let count = map.entry(key).or_insert(fresh);
    // A spent window starts again.
    if count.at(now) == 0 {
        *count = fresh;
    }
    count.failures += 1;
}

/// The failures counted, and the limits on them.
pub struct Failures {
    limits: Limits,
    counts: Mutex<Counts>,
}

impl Failures {
    #[must_use]
    pub fn new(limits: Limits) -> Failures {
        Failures {
            limits,
            counts: Mutex::new(Counts::default()),
        }
    }

    /// Counts a wrong secret from `client` for `team`.
    pub fn record(&self, client: IpAddr, team: &str, now: Instant) {
        let mut counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        count_one(&mut counts.by_client, client, now);
        count_one(&mut counts.by_team, team.to_string(), now);
    }

    /// `Some(seconds to wait)` when `client` may not have a secret for
    /// `team` checked now: it failed too often, or the team is under a
    /// flood and this client took part in it.
    pub fn refused(&self, client: IpAddr, team: &str, now: Instant) -> Option<u64> {
        let counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        let mine = counts.by_client.get(&client).copied();
        let failed = mine.map_or(0, |c| c.at(now));
        let team_failed = counts.by_team.get(team).map_or(0, |c| c.at(now));
        let over = failed >= self.limits.failures_per_client
            || (failed > 0 && team_failed >= self.limits.failures_per_team);
        let wait = |c: Count| (WINDOW.saturating_sub(now.duration_since(c.since))).as_secs() + 1;
        over.then(|| mine.map_or(1, wait))
    }
}

/// Work waiting for a thread.
type Job = Box<dyn FnOnce() + Send>;

#[derive(Default)]
struct Queue {
    /// Clients with work waiting, in the order they are served.
    turns: VecDeque<IpAddr>,
    jobs: HashMap<IpAddr, VecDeque<Job>>,
    waiting: usize,
}

/// Why work was not queued.
#[derive(Debug, PartialEq, Eq)]
pub enum Full {
    /// This client has [`WAITING_PER_CLIENT`] waiting already.
    Client,
    /// The queue holds its most.
    All,
}

/// Threads that take work from clients in turn: one job of each client
/// that has work waiting, then round again.
pub struct FairQueue {
    state: Arc<(Mutex<Queue>, Condvar)>,
    per_client: usize,
    most: usize,
    /// The threads that could be started: with none, nothing is queued.
    threads: usize,
}

impl FairQueue {
    #[must_use]
    pub fn new(threads: usize, per_client: usize, most: usize) -> FairQueue {
        let state: Arc<(Mutex<Queue>, Condvar)> = Arc::default();
        let mut started = 0;
        for i in 0..threads.max(1) {
            let state = Arc::clone(&state);
            let spawned = std::thread::Builder::new()
                .name(format!("argon2-{i}"))
                .spawn(move || loop {
                    let job = {
                        let (queue, ready) = &*state;
                        let mut queue = queue.lock().unwrap_or_else(|e| e.into_inner());
                        while queue.waiting == 0 {
                            queue = ready.wait(queue).unwrap_or_else(|e| e.into_inner());
                        }
                        next_job(&mut queue)
                    };
                    if let Some(job) = job {
                        job();
                    }
                });
            started += usize::from(spawned.is_ok());
        }
        FairQueue {
            state,
            per_client,
            most,
            threads: started,
        }
    }

    /// Runs `work` for `client` on one of the threads, unless its requester
    /// has gone by then (this future was dropped): `Err` when the queue
    /// is full, `Ok(None)` if the threads are gone.
    pub async fn run<T: Send + 'static>(
        &self,
        client: IpAddr,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<Option<T>, Full> {
        if self.threads == 0 {
            return Ok(None);
        }
        let (done, result) = tokio::sync::oneshot::channel();
        let job: Job = Box::new(move || {
            if !done.is_closed() {
                let _ = done.send(work());
            }
        });
        {
            let (queue, ready) = &*self.state;
            let mut queue = queue.lock().unwrap_or_else(|e| e.into_inner());
            if queue.waiting >= self.most {
                return Err(Full::All);
            }
            let mine = queue.jobs.entry(client).or_default();
            if mine.len() >= self.per_client {
                return Err(Full::Client);
            }
            mine.push_back(job);
            if mine.len() == 1 {
                queue.turns.push_back(client);
            }
            queue.waiting += 1;
            ready.notify_one();
        }
        Ok(result.await.ok())
    }
}

/// The next client's first job; that client goes to the back of the turn.
fn next_job(queue: &mut Queue) -> Option<Job> {
    let client = queue.turns.pop_front()?;
    let mine = queue.jobs.get_mut(&client)?;
    let job = mine.pop_front();
    if mine.is_empty() {
        queue.jobs.remove(&client);
    } else {
        queue.turns.push_back(client);
    }
    queue.waiting -= usize::from(job.is_some());
    job
}
