//! The online judge: teams submit one source file; the server builds it
//! in the sandbox ([`build`]), checks that it plays legal moves
//! ([`check`]), and makes it the team's active program, which plays the
//! team's games from then on as a hosted side, in the sandbox. A program
//! is judged by one server process, which holds it for a lease (as it
//! holds a contest), so that with several processes on one PostgreSQL
//! database each program is built once; the build is stored, and any
//! process runs it from there.
//!
//! Judging runs on threads of its own, at most `--compilers` at once, on
//! the server's core: it never takes a game's core (see [`crate::hosted::cores`]).

pub mod build;
pub mod check;
pub mod languages;

use crate::store::programs::state;
use crate::{now_ms, App};
use languages::Offered;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// What the judge offers and how it works.
pub struct Judge {
    pub languages: Vec<Offered>,
    pub build_limits: build::BuildLimits,
    /// The move time of the check.
    pub check_limit: Duration,
    /// Programs judged at once by this process.
    pub workers: usize,
    /// Where builds are made and built programs are kept to run, one
    /// folder a program.
    pub folder: PathBuf,
}

/// The largest source taken, in bytes (CodinGame takes 100 k characters).
pub const MAX_SOURCE: usize = 256 * 1024;

/// A team's programs still to judge at most: a team cannot fill the queue.
pub const MOST_WAITING: usize = 2;

impl Judge {
    /// The language `id`, offered on this machine or not.
    #[must_use]
    pub fn language(&self, id: &str) -> Option<&Offered> {
        self.languages.iter().find(|l| l.language.id == id)
    }

    /// The command that runs built program `id` in `language`: the build
    /// written to this process's folder first, from the store, unless it
    /// is there already (another process may have built it).
    pub fn command(&self, app: &App, id: i64, language: &str) -> Result<String, String> {
        let offered = self
            .language(language)
            .ok_or_else(|| format!("program {id}: no language '{language}'"))?;
        let lang = &offered.language;
        let dir = self.folder.join(format!("program-{id}"));
        let path = dir.join(lang.program);
        if !path.is_file() {
            let built = app
                .store
                .program_built(id)
                .map_err(|e| e.to_string())?
                .ok_or_else(|| format!("program {id} is not built"))?;
            write_program(&dir, &path, &built)?;
        }
        // Run in the shell's place: the program is then alone in its
        // sandbox, and a `kill -1` there has nobody to kill.
        Ok(match lang.interpreter {
            Some(interpreter) => format!("exec {interpreter} {}", path.display()),
            None => format!("exec {}", path.display()),
        })
    }
}

/// Writes `built` to `path` in `dir`, whole or not at all (a process that
/// dies half-way leaves no half program for the next to run).
fn write_program(dir: &Path, path: &Path, built: &[u8]) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    let failed = |e: std::io::Error| format!("{}: {e}", path.display());
    std::fs::create_dir_all(dir).map_err(failed)?;
    let part = dir.join(format!(".part-{:016x}", fastrand::u64(..)));
    std::fs::write(&part, built).map_err(failed)?;
    std::fs::set_permissions(&part, std::fs::Permissions::from_mode(0o755)).map_err(failed)?;
    std::fs::rename(&part, path).map_err(failed)
}

/// Starts judging program `id`, whose lease this process holds, on a
/// thread of its own, unless it is being judged.
pub fn start(app: &Arc<App>, id: i64) {
    let worker = Arc::clone(app);
    let spawned = app.judging.spawn(id, format!("judge-{id}"), move || {
        crate::hosted::cores::pin_thread(worker.cores.server());
        if let Err(e) = judge(&worker, id) {
            eprintln!("reversi-server: program {id}: {e}");
        }
    });
    if !spawned {
        eprintln!("reversi-server: program {id}: no thread to judge it on");
    }
}

/// Judges program `id` from where it stands: built if it is not, then
/// checked, then made active. The store's failures leave it to be taken up
/// again when its lease lapses.
fn judge(app: &Arc<App>, id: i64) -> Result<(), String> {
    let (Some(judge), Some(sandbox)) = (app.judge.as_ref(), app.sandbox.as_ref()) else {
        return Ok(());
    };
    let store = &app.store;
    let Some(row) = store.program(id).map_err(|e| e.to_string())? else {
        return Ok(());
    };
    let holder = &app.holder;
    let mut log = row.compile_log.clone();
    if row.state == state::QUEUED || row.state == state::COMPILING {
        if !store
            .judged(id, holder, state::COMPILING, "", "", None)
            .map_err(|e| e.to_string())?
        {
            return Ok(());
        }
        let source = store
            .program_source(id)
            .map_err(|e| e.to_string())?
            .unwrap_or_default();
        let Some(language) = judge.language(&row.language) else {
            store
                .judged(id, holder, state::REJECTED, "", "no such language", None)
                .map_err(|e| e.to_string())?;
            return Ok(());
        };
        match build::build(
            sandbox,
            language,
            &source,
            &judge.folder,
            judge.build_limits,
        )? {
            build::Built::Rejected { log, reason } => {
                store
                    .judged(id, holder, state::REJECTED, &log, &reason, None)
                    .map_err(|e| e.to_string())?;
                return Ok(());
            }
            build::Built::Program { program, log: said } => {
                log = said;
                if !store
                    .judged(id, holder, state::CHECKING, &log, "", Some(&program))
                    .map_err(|e| e.to_string())?
                {
                    return Ok(());
                }
            }
        }
    }
    let command = judge.command(app, id, &row.language)?;
    let (verdict, stderr) = check::check(&command, sandbox, judge.check_limit);
    store
        .keep_check_log(id, holder, &build::tail(&stderr))
        .map_err(|e| e.to_string())?;
    match verdict {
        Ok(()) => {
            let said = format!(
                "it played {} legal moves as black and as white",
                check::MOVES
            );
            store
                .activate(id, holder, &said, now_ms())
                .map_err(|e| e.to_string())?;
        }
        Err(why) => {
            store
                .judged(id, holder, state::INEFFECTIVE, &log, &why, None)
                .map_err(|e| e.to_string())?;
        }
    }
    app.moved.poke();
    Ok(())
}
