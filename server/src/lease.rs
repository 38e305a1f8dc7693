//! Work that any server process may take on, held for a lease: a contest
//! to run, a hosted side of a game to play, a submitted program to judge. A process claims what has no
//! live holder, renews its leases while the work goes on, and stops the
//! work whose lease another process has taken over. When a process dies,
//! its leases lapse and the others (or itself, started again) take the
//! work up: a contest is run again from its stored games, a hosted
//! program is started again and given the position.
//!
//! With SQLite the one process holds every lease; the same code runs, and
//! a start lets every lease go at once ([`crate::store::Store::restart_clocks`]).

use crate::store::lease::until;
use crate::{contest, hosted, judge, now_ms, App};
use std::sync::Arc;
use std::time::Duration;

/// How often a process renews its leases.
const RENEW_EVERY: Duration = Duration::from_millis(1_000);

/// How often a process looks for work whose lease has lapsed.
const CLAIM_EVERY: Duration = Duration::from_millis(250);

/// The most seats one look claims (the rest are claimed at the next).
const SEATS_A_LOOK: usize = 64;

/// Claims and renews for the process's life, on a thread of its own.
pub fn keep(app: &Arc<App>) {
    let app = Arc::clone(app);
    let spawned = std::thread::Builder::new()
        .name("leases".into())
        .spawn(move || {
            let mut renewed = std::time::Instant::now();
            // A database that is down is said once, not every look.
            let mut failing = false;
            loop {
                let mut failed = None;
                if renewed.elapsed() >= RENEW_EVERY {
                    failed = renew(&app).err();
                    renewed = std::time::Instant::now();
                }
                failed = claim(&app).err().or(failed);
                match failed {
                    Some(e) if !failing => {
                        eprintln!("reversi-server: {e} (trying again)");
                        failing = true;
                    }
                    Some(_) => {}
                    None => failing = false,
                }
                std::thread::sleep(CLAIM_EVERY);
            }
        });
    if spawned.is_err() {
        eprintln!("reversi-server: no thread to keep the leases on");
    }
}

/// Renews the leases of the work this process does; the work whose lease
/// another process has taken is told to stop.
fn renew(app: &Arc<App>) -> Result<(), String> {
    let seats = app.seats.keys();
    let contests = app.contests.keys();
    let programs = app.judging.keys();
    if seats.is_empty() && contests.is_empty() && programs.is_empty() {
        return Ok(());
    }
    let lost = app
        .store
        .renew(&app.holder, &seats, &contests, &programs, until())
        .map_err(|e| format!("renewing the leases: {e}"))?;
    let any = !(lost.seats.is_empty() && lost.contests.is_empty());
    // A program another process took over is judged there: what this one
    // stores of it is refused (its holder is not this process).
    for seat in lost.seats {
        app.seats.give_up(seat);
    }
    for id in lost.contests {
        app.contests.give_up(id);
    }
    if any {
        // Waiting work looks again, and sees that it is to stop.
        app.moved.raise_all();
    }
    Ok(())
}

/// Takes up the contests, hosted seats and submitted programs whose lease
/// has lapsed.
fn claim(app: &Arc<App>) -> Result<(), String> {
    let now = now_ms();
    let ids = app
        .store
        .claim_contests(&app.holder, now, until())
        .map_err(|e| format!("claiming contests: {e}"))?;
    for id in ids {
        contest::start(app, id);
    }
    let seats = app
        .store
        .claim_seats(&app.holder, now, until(), SEATS_A_LOOK)
        .map_err(|e| format!("claiming hosted seats: {e}"))?;
    for (game, side) in seats {
        hosted::take(app, game, side);
    }
    if let Some(judge) = &app.judge {
        let free = judge.workers.saturating_sub(app.judging.keys().len());
        let programs = app
            .store
            .claim_programs(&app.holder, now, until(), free)
            .map_err(|e| format!("claiming programs to judge: {e}"))?;
        for id in programs {
            judge::start(app, id);
        }
    }
    Ok(())
}
