//! The time manager: when a search must stop.
//!
//! The judge allows 1 second per reply, measured by the judge from writing
//! its line to reading ours. Our clock starts when we read the line, so the
//! margin below must cover what we cannot see: the pipe in both directions,
//! the scheduler (a loaded machine may not run us for tens of milliseconds),
//! writing the reply, and the time between two polls of the clock.

use std::time::{Duration, Instant};

/// The judge's limit per reply.
pub const JUDGE_LIMIT: Duration = Duration::from_millis(1000);

/// The environment variable in which a referee of ours states its limit
/// per reply, in milliseconds (`program` sets it, the bot reads it when it
/// has no `--move-time`).
pub const MOVE_TIME_ENV: &str = "REVERSI_MOVE_TIME";

/// The longest limit per reply taken, in milliseconds (an hour): longer is
/// a mistake, and far longer a deadline past what the clock can hold.
pub const MAX_MOVE_TIME_MS: u64 = 3_600_000;

/// A limit per reply written in milliseconds, 1 to [`MAX_MOVE_TIME_MS`].
pub fn parse_move_time(text: &str) -> Result<Duration, String> {
    match text.trim().parse::<u64>() {
        Ok(ms) if (1..=MAX_MOVE_TIME_MS).contains(&ms) => Ok(Duration::from_millis(ms)),
        _ => Err(format!(
            "'{text}' is not a limit in milliseconds from 1 to {MAX_MOVE_TIME_MS}"
        )),
    }
}

/// The limit per reply a referee of ours announced in [`MOVE_TIME_ENV`]:
/// none when the variable is unset, an error when it says no such limit.
pub fn announced_limit() -> Result<Option<Duration>, String> {
    match std::env::var(MOVE_TIME_ENV) {
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(_)) => Err(format!("{MOVE_TIME_ENV} is not text")),
        Ok(text) => parse_move_time(&text)
            .map(Some)
            .map_err(|e| format!("{MOVE_TIME_ENV}: {e}")),
    }
}

/// Kept back from every move's budget for what happens outside the search
/// (see the module doc): the search stops at 850 ms of the judge's 1000.
/// What it covers, measured on the 2-core machine (BENCHMARKS.md, "Time
/// per reply"): the poll gap (2048 nodes, under 2 ms), writing the reply
/// and both pipes (well under 1 ms), and the scheduler of a machine whose
/// cores are all busy, which is the large part. The aim is no reply over
/// 900 ms even then, 100 ms short of the limit.
pub const SAFETY_MARGIN: Duration = Duration::from_millis(150);

/// Under short limits (matches played fast) the margin is this fraction of
/// the limit instead, when that is smaller than `SAFETY_MARGIN`.
pub const SHORT_LIMIT_MARGIN: f64 = 0.3;

/// How many nodes the search visits between two looks at the clock. At
/// several million nodes per second this is well under a millisecond.
pub const POLL_INTERVAL: u64 = 2048;

/// The time one move may take, started when its request was read.
#[derive(Clone, Copy, Debug)]
pub struct Deadline {
    start: Instant,
    hard: Duration,
}

impl Deadline {
    /// A budget for a judge whose limit per reply is `limit`.
    #[must_use]
    pub fn for_limit(start: Instant, limit: Duration) -> Deadline {
        let margin = SAFETY_MARGIN.min(limit.mul_f64(SHORT_LIMIT_MARGIN));
        let hard = limit.saturating_sub(margin);
        Deadline { start, hard }
    }

    /// Exactly `budget`, with no margin: for tools (`reversi solve
    /// --time`) rather than judges.
    #[must_use]
    pub fn exactly(start: Instant, budget: Duration) -> Deadline {
        Deadline {
            start,
            hard: budget,
        }
    }

    /// No time limit (fixed-depth or fixed-node searches).
    #[must_use]
    pub fn unlimited(start: Instant) -> Deadline {
        let forever = Duration::from_secs(365 * 24 * 3600);
        Deadline {
            start,
            hard: forever,
        }
    }

    /// The time since the clock started.
    #[must_use]
    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// Past the point where the search must stop at once.
    #[must_use]
    pub fn hard_expired(&self) -> bool {
        self.elapsed() >= self.hard
    }

    /// The time left before the hard limit.
    #[must_use]
    pub fn remaining(&self) -> Duration {
        self.hard.saturating_sub(self.elapsed())
    }

    /// The hard limit, from the clock's start.
    #[must_use]
    pub fn hard(&self) -> Duration {
        self.hard
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn margins_leave_room_under_the_limit() {
        let d = Deadline::for_limit(Instant::now(), JUDGE_LIMIT);
        assert!(d.hard() + Duration::from_millis(100) <= JUDGE_LIMIT);
        assert!(!d.hard_expired());
        assert!(d.remaining() > Duration::from_millis(800));
        // A tiny limit still gives the search something to work with.
        let tiny = Deadline::for_limit(Instant::now(), Duration::from_millis(20));
        assert_eq!(tiny.hard(), Duration::from_millis(14));
    }

    #[test]
    fn a_limit_is_a_whole_number_of_milliseconds_in_range() {
        assert_eq!(parse_move_time("300"), Ok(Duration::from_millis(300)));
        assert_eq!(parse_move_time(" 1 "), Ok(Duration::from_millis(1)));
        for bad in [
            "0",
            "-1",
            "abc",
            "",
            "1.5",
            "3600001",
            "18446744073709551615",
        ] {
            assert!(parse_move_time(bad).is_err(), "{bad}");
        }
    }
}
