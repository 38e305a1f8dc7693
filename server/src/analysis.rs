//! Every finished game analysed in the background (`reversi analyze`'s
//! code): what each move cost its player, and the losing mistakes, kept
//! in the store and shown on the game's page, so that a team learns where
//! it lost.
//!
//! One thread does it, a game at a time, at the lowest priority and on
//! the server's own core: the judge slots' cores stay the games', and a
//! live request or a game's move always goes first; it pauses between
//! positions while the server builds or checks a submission. Each game's cost is
//! bounded ([`REACH`]: a selective search to a fixed depth, solved only
//! near the end and within a time a position). Several server processes
//! on one database may analyse the same game at once; the first result
//! stored is kept.

use crate::store::GameRow;
use crate::App;
use reversi::study::analyze::{analyze, MoveReport};
use reversi::study::value::{Reach, Value};
use reversi_core::eval::Evaluator;
use reversi_core::search::Searcher;
use serde_json::{json, Value as Json};
use std::sync::Arc;
use std::time::Duration;

/// How deep each position is searched: about half a second a game here.
pub const REACH: Reach = Reach {
    depth: 12,
    exact_from: 18,
    solve_time: Some(Duration::from_millis(500)),
};

/// The searcher's table, MB.
const HASH_MB: usize = 16;

/// How long the thread waits before looking again when nothing is left.
const IDLE_LOOK: Duration = Duration::from_secs(2);

/// A move's figure as the page shows it, for the mover: discs, and
/// whether it is exact.
fn figure(value: Value) -> Json {
    match value {
        Value::Exact(d) => json!({ "discs": f64::from(d), "exact": true }),
        Value::Estimate(d) => json!({ "discs": (d * 10.0).round() / 10.0, "exact": false }),
    }
}

/// The analysis as stored: each move's worth and cost, and which lost
/// the result.
#[must_use]
pub fn to_json(reports: &[MoveReport]) -> Json {
    Json::Array(
        reports
            .iter()
            .map(|r| {
                json!({
                    "number": r.number,
                    "color": r.color.name(),
                    "played": r.played.map(|s| s.to_string()),
                    "best": r.best.map(|s| s.to_string()),
                    "best_value": figure(r.best_value),
                    "played_value": figure(r.played_value),
                    "left_value": figure(r.left_value),
                    "cost": (r.cost() * 10.0).round() / 10.0,
                    "lost_the_result": r.lost_the_result,
                })
            })
            .collect(),
    )
}

/// Analyses finished game `row`: its moves as `to_json` writes them;
/// `between` is called after each position (where it may wait).
pub fn of(row: &GameRow, searcher: &mut Searcher, between: impl FnMut()) -> Result<Json, String> {
    let game = crate::game::ggf_of(row);
    let reports = analyze(&game, searcher, REACH, between)?;
    Ok(to_json(&reports))
}

/// Waits while this server builds or checks a submission: those run on
/// the same core in a sandbox of their own session, and the kernel's
/// autogroups share a core between sessions evenly, whatever this
/// thread's nice; a check's second must be the program's.
fn while_judging(app: &App) {
    while !app.judging.keys().is_empty() {
        std::thread::sleep(JUDGING_LOOK);
    }
}

/// How often a paused analysis looks whether the judging is done.
const JUDGING_LOOK: Duration = Duration::from_millis(20);

/// Lowers the calling thread to the least priority (nice 19): its work
/// waits for everything else.
fn lowest_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: gettid and setpriority take and return plain integers; the
    // thread's own id names only this thread.
    unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        libc::setpriority(libc::PRIO_PROCESS, tid, 19);
    }
}

/// Starts the analysing thread.
pub fn start(app: &Arc<App>) {
    let app = Arc::clone(app);
    let spawned = std::thread::Builder::new()
        .name("analysis".into())
        .spawn(move || {
            crate::hosted::cores::pin_thread(app.cores.server());
            lowest_priority();
            reversi_core::eval::pattern::prepare();
            let mut searcher = Searcher::new(HASH_MB, Evaluator::Pattern);
            loop {
                let next = app.store.unanalysed();
                let Ok(Some(row)) = next else {
                    std::thread::sleep(IDLE_LOOK);
                    continue;
                };
                while_judging(&app);
                searcher.new_game();
                let analysis = of(&row, &mut searcher, || while_judging(&app))
                    .unwrap_or_else(|e| json!({ "error": e }));
                if let Err(e) = app.store.add_analysis(row.id, &analysis.to_string()) {
                    eprintln!("reversi-server: game {}: its analysis: {e}", row.id);
                    std::thread::sleep(IDLE_LOOK);
                }
            }
        });
    if spawned.is_err() {
        eprintln!("reversi-server: no thread to analyse games on");
    }
}
