//! Team secrets: stored only as Argon2 hashes (a random salt each), and
//! checked against them. Argon2 is slow on purpose (tens of milliseconds),
//! and a bot sends its secret with every request; so once a secret has
//! been checked, a keyed hash of it (SipHash with this process's random
//! key, never stored) stands in for the check until the server stops.

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

    pub fn remember(&self, team: &str, secret: &str) {
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        seen.insert(team.to_string(), self.key.hash_one(secret));
    }
}
