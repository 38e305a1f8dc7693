//! A lease's terms: how long it lasts, and who holds it. The claims and
//! renewals are the store's (`claim_seat`, `claim_contests`, `renew`); what a
//! process does with the work it holds is `crate::lease`'s.

use crate::now_ms;

/// How long a lease lasts unrenewed: how long a dead process's work waits
/// before another takes it up. Three renewals fit in it, so that a
/// process slowed by its machine's load does not lose its work.
pub const LEASE_MS: i64 = 3_000;

/// This process's name as a lease holder: its machine, its process id and
/// a random part (a process id is reused after a restart).
#[must_use]
pub fn holder_name() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_else(|_| "host".into());
    format!("{host}:{}:{:08x}", std::process::id(), fastrand::u32(..))
}

/// The lease's end for a claim or renewal made now.
#[must_use]
pub fn until() -> i64 {
    now_ms() + LEASE_MS
}
