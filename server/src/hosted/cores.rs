//! The machine's cores, shared out so that a bot's second is a second of
//! one core whatever else runs: each hosted game (up to `--judges` at
//! once) has a core of its own, on which both its programs run (they
//! think in turn), and the server, its compilers and its checks keep the
//! first core. A thread that starts a program is pinned first, and the
//! program inherits the pinning.

use std::collections::HashMap;
use std::sync::Mutex;

pub struct Cores {
    /// The server's own core.
    server: usize,
    /// The cores games run on, one a judge slot.
    games: Vec<usize>,
    /// The games seated, with their core and how many of their seats run.
    seated: Mutex<HashMap<i64, (usize, usize)>>,
}

/// The cores this process may run on.
fn allowed() -> Vec<usize> {
    // SAFETY: a zeroed cpu_set_t is an empty set; sched_getaffinity fills
    // at most its size.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return vec![0];
        }
        (0..libc::CPU_SETSIZE as usize)
            .filter(|&c| libc::CPU_ISSET(c, &set))
            .collect()
    }
}

/// The judge slots by default: the cores, less one for the server.
#[must_use]
pub fn default_judges() -> usize {
    allowed().len().saturating_sub(1).max(1)
}

impl Cores {
    /// `judges` slots for games, on the cores after the first; more slots
    /// than that are shared out in turn over every core.
    #[must_use]
    pub fn new(judges: usize) -> Cores {
        let allowed = allowed();
        let server = allowed[0];
        let rest: Vec<usize> = if judges < allowed.len() {
            allowed[1..].to_vec()
        } else {
            allowed.clone()
        };
        let games = (0..judges.max(1)).map(|i| rest[i % rest.len()]).collect();
        Cores {
            server,
            games,
            seated: Mutex::default(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<i64, (usize, usize)>> {
        self.seated.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The server's core, for its compilers and checks.
    #[must_use]
    pub fn server(&self) -> usize {
        self.server
    }

    /// Whether a judge slot is free for another hosted game.
    #[must_use]
    pub fn free(&self) -> bool {
        self.lock().len() < self.games.len()
    }

    /// The core for a seat of game `game`: its other seat's, else a free
    /// slot's, the core with the fewest games; `None` while every slot is
    /// taken. Given back with [`Cores::leave`].
    pub fn try_seat(&self, game: i64) -> Option<usize> {
        let mut seated = self.lock();
        if let Some((core, seats)) = seated.get_mut(&game) {
            *seats += 1;
            return Some(*core);
        }
        if seated.len() >= self.games.len() {
            return None;
        }
        let mut load: HashMap<usize, usize> = self.games.iter().map(|&c| (c, 0)).collect();
        for (core, _) in seated.values() {
            *load.entry(*core).or_default() += 1;
        }
        let core = self
            .games
            .iter()
            .copied()
            .min_by_key(|c| load[c])
            .unwrap_or(self.server);
        seated.insert(game, (core, 1));
        Some(core)
    }

    /// A seat of game `game` is done.
    pub fn leave(&self, game: i64) {
        let mut seated = self.lock();
        if let Some((_, seats)) = seated.get_mut(&game) {
            *seats -= 1;
            if *seats == 0 {
                seated.remove(&game);
            }
        }
    }
}

/// Pins the calling thread (and what it starts from now on) to `core`.
pub fn pin_thread(core: usize) {
    // SAFETY: as in `allowed`; the set holds one core below CPU_SETSIZE.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(core, &mut set);
        let _ = libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
    }
}
