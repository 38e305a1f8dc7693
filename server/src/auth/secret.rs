//! Team secrets: stored only as Argon2 hashes (a random salt each), and
//! checked against them. Argon2 is slow on purpose (tens of milliseconds),
//! and a bot sends its secret with every request; so once a secret has
//! been checked, a keyed hash of it (SipHash with this process's random
//! key, never stored) stands in for the check until the server stops.
//!
//! Argon2 also takes 19 MB a computation. They run on a few threads of
//! their own ([`crate::auth`]), and [`return_large_blocks`] has the allocator give
//! such blocks back at once: glibc otherwise keeps a freed block of that
//! size in whichever of its arenas (up to 8 a core) the thread was using,
//! which on the 2-core machine left 337 MB resident after 40 teams had
//! registered.

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::sync::Mutex;

/// The Argon2 hash of `secret`, in PHC form (salt and parameters inside).
pub fn hash(secret: &str) -> Result<String, String> {
    let mut bytes = [0u8; 16];
    for b in &mut bytes {
        *b = fastrand::u8(..);
    }
    let salt = SaltString::encode_b64(&bytes).map_err(|e| e.to_string())?;
    Argon2::default()
        .hash_password(secret.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| e.to_string())
}

/// Whether `secret` is the one `stored` was made from.
pub fn matches(secret: &str, stored: &str) -> bool {
    PasswordHash::new(stored).is_ok_and(|parsed| {
        Argon2::default()
            .verify_password(secret.as_bytes(), &parsed)
            .is_ok()
    })
}

/// Blocks this large or larger are mapped for their own use and returned to
/// the system when freed.
const LARGE_BLOCK: usize = 1 << 20;

/// Has the allocator (glibc's) return large blocks when they are freed,
/// rather than raise its threshold for them and keep them; elsewhere,
/// nothing. Call once, before the server's threads start.
pub fn return_large_blocks() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets a tuning parameter of the allocator; it is
    // called before any other thread exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, LARGE_BLOCK as libc::c_int);
    }
}

/// The secrets checked so far, as keyed hashes.
#[derive(Default)]
pub struct Checked {
    key: RandomState,
    seen: Mutex<HashMap<String, u64>>,
}

impl Checked {
    /// Whether `team`'s `secret` was checked before (and is the same).
    pub fn known(&self, team: &str, secret: &str) -> bool {
        let seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        seen.get(team) == Some(&self.key.hash_one(secret))
    }

    /// Whether some secret of `team`'s has been checked good: secrets
    /// never change, so any other one is wrong.
    pub fn has(&self, team: &str) -> bool {
        let seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        seen.contains_key(team)
    }

    pub fn remember(&self, team: &str, secret: &str) {
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        seen.insert(team.to_string(), self.key.hash_one(secret));
    }
}
