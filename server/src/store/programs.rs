//! Teams' submitted programs as stored: the source, the state the judge
//! has them in, what the compiler said, and the built program, kept here
//! so that any server process on the database runs it without building it
//! again. A program is judged by one process at a time, which holds it for
//! a lease as it holds a contest (see [`crate::lease`]).

use super::sql::{params, Row, Sql};
use super::{Store, StoreError};

/// The states a program goes through, as the API names them.
pub mod state {
    pub const QUEUED: &str = "queued";
    pub const COMPILING: &str = "compiling";
    /// The compiler refused it, or went over its time, memory or output.
    pub const REJECTED: &str = "rejected";
    pub const CHECKING: &str = "checking";
    /// It could not play a legal move (VG101's "effective AI").
    pub const INEFFECTIVE: &str = "ineffective";
    /// Its team's program: it plays the team's games.
    pub const ACTIVE: &str = "active";
    /// Replaced by a newer active version, or retired by the organiser.
    pub const RETIRED: &str = "retired";
}

/// A program as stored, without its source and build.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgramRow {
    pub id: i64,
    pub team: String,
    pub language: String,
    pub state: String,
    pub compile_log: String,
    pub reason: String,
    pub created_ms: i64,
    /// When it became its team's active program.
    pub active_ms: Option<i64>,
    /// How many times a build of it was begun (once, unless the process
    /// building it died).
    pub builds: i64,
    /// The server process that judged it last.
    pub judged_by: Option<String>,
    /// The end of what it wrote to stderr while it was checked.
    pub check_log: String,
}

const PROGRAM_COLUMNS: &str =
    "id, team, language, state, compile_log, reason, created_ms, active_ms, builds, holder, check_log";

fn program_row(r: &Row) -> Result<ProgramRow, StoreError> {
    Ok(ProgramRow {
        id: r.int(0)?,
        team: r.text(1)?,
        language: r.text(2)?,
        state: r.text(3)?,
        compile_log: r.text(4)?,
        reason: r.text(5)?,
        created_ms: r.int(6)?,
        active_ms: r.opt_int(7)?,
        builds: r.int(8)?,
        judged_by: r.opt_text(9)?,
        check_log: r.text(10)?,
    })
}

/// Team `team`'s active program, if it has one.
pub(super) fn active(q: &mut dyn Sql, team: &str) -> Result<Option<i64>, StoreError> {
    q.int(
        "SELECT id FROM programs WHERE team = $1 AND state = 'active'",
        params![team],
    )
}

impl Store {
    /// Stores a new submission of `team`'s, queued; its id. Refused
    /// ([`StoreError::Exists`]) while the team has `most_waiting` programs
    /// still to judge: a team cannot fill the judge's queue.
    pub fn add_program(
        &self,
        team: &str,
        language: &str,
        source: &str,
        most_waiting: usize,
        now_ms: i64,
    ) -> Result<i64, StoreError> {
        self.tx(|q| {
            let waiting = q
                .int(
                    "SELECT COUNT(*) FROM programs WHERE team = $1
                     AND state IN ('queued', 'compiling', 'checking')",
                    params![team],
                )?
                .unwrap_or(0);
            if waiting >= most_waiting as i64 {
                return Err(StoreError::Exists);
            }
            let id = q
                .int(
                    "INSERT INTO programs (team, language, source, state, created_ms)
                     VALUES ($1, $2, $3, 'queued', $4) RETURNING id",
                    params![team, language, source, now_ms],
                )?
                .ok_or_else(|| StoreError::Other("no id for the new program".into()))?;
            q.notify("p")?;
            Ok(id)
        })
    }

    pub fn program(&self, id: i64) -> Result<Option<ProgramRow>, StoreError> {
        self.read(|q| {
            q.row(
                &format!("SELECT {PROGRAM_COLUMNS} FROM programs WHERE id = $1"),
                params![id],
            )?
            .map(|r| program_row(&r))
            .transpose()
        })
    }

    /// The programs of `team` (every team's: `None`), newest first.
    pub fn programs(&self, team: Option<&str>) -> Result<Vec<ProgramRow>, StoreError> {
        self.read(|q| {
            let rows = match team {
                Some(team) => q.rows(
                    &format!(
                        "SELECT {PROGRAM_COLUMNS} FROM programs WHERE team = $1 ORDER BY id DESC"
                    ),
                    params![team],
                )?,
                None => q.rows(
                    &format!("SELECT {PROGRAM_COLUMNS} FROM programs ORDER BY id DESC"),
                    params![],
                )?,
            };
            rows.iter().map(program_row).collect()
        })
    }

    /// Program `id`'s source.
    pub fn program_source(&self, id: i64) -> Result<Option<String>, StoreError> {
        self.read(|q| {
            q.row("SELECT source FROM programs WHERE id = $1", params![id])?
                .map(|r| r.text(0))
                .transpose()
        })
    }

    /// Program `id` as built (the executable, or the script), once built.
    pub fn program_built(&self, id: i64) -> Result<Option<Vec<u8>>, StoreError> {
        self.read(|q| {
            Ok(
                q.row("SELECT built FROM programs WHERE id = $1", params![id])?
                    .map(|r| r.opt_bytes(0))
                    .transpose()?
                    .flatten(),
            )
        })
    }

    /// Team `team`'s active program, if it has one.
    pub fn active_program(&self, team: &str) -> Result<Option<i64>, StoreError> {
        self.read(|q| active(q, team))
    }

    /// Whether team `team` has ever submitted a program (then it plays
    /// only through an active one, never remotely).
    pub fn submits(&self, team: &str) -> Result<bool, StoreError> {
        self.read(|q| {
            Ok(q.int(
                "SELECT id FROM programs WHERE team = $1 LIMIT 1",
                params![team],
            )?
            .is_some())
        })
    }

    /// Claims for `holder`, until `until_ms`, up to `most` programs still
    /// to judge whose lease has lapsed by `now_ms`, oldest first (never one
    /// another process is claiming).
    pub fn claim_programs(
        &self,
        holder: &str,
        now_ms: i64,
        until_ms: i64,
        most: usize,
    ) -> Result<Vec<i64>, StoreError> {
        if most == 0 {
            return Ok(Vec::new());
        }
        self.tx(|q| {
            let ids = q.ints(
                &format!(
                    "SELECT id FROM programs WHERE state IN ('queued', 'compiling', 'checking')
                     AND lease_until_ms < $1 ORDER BY id LIMIT $2{}",
                    q.dialect().claim_rows()
                ),
                params![now_ms, most],
            )?;
            for &id in &ids {
                q.exec(
                    "UPDATE programs SET holder = $2, lease_until_ms = $3 WHERE id = $1",
                    params![id, holder, until_ms],
                )?;
            }
            Ok(ids)
        })
    }

    /// Moves program `id`, which `holder` judges, to `state` with the
    /// compiler's log and the reason, and its build if given; `false` if
    /// `holder` no longer holds it (another process took it over).
    pub fn judged(
        &self,
        id: i64,
        holder: &str,
        state: &str,
        compile_log: &str,
        reason: &str,
        built: Option<&[u8]>,
    ) -> Result<bool, StoreError> {
        self.tx(|q| {
            let begun = i64::from(state == self::state::COMPILING);
            let changed = q.exec(
                "UPDATE programs SET state = $3, compile_log = $4, reason = $5,
                     built = COALESCE($6, built), builds = builds + $7
                 WHERE id = $1 AND holder = $2",
                params![id, holder, state, compile_log, reason, built, begun],
            )?;
            q.notify("p")?;
            Ok(changed == 1)
        })
    }

    /// Keeps what program `id`, which `holder` judges, wrote to stderr
    /// while it was checked.
    pub fn keep_check_log(&self, id: i64, holder: &str, text: &str) -> Result<(), StoreError> {
        self.tx(|q| {
            q.exec(
                "UPDATE programs SET check_log = $3 WHERE id = $1 AND holder = $2",
                params![id, holder, text],
            )?;
            Ok(())
        })
    }

    /// Makes program `id`, which `holder` judges, its team's active
    /// program, retiring the one before; `false` if `holder` no longer
    /// holds it.
    pub fn activate(
        &self,
        id: i64,
        holder: &str,
        reason: &str,
        now_ms: i64,
    ) -> Result<bool, StoreError> {
        self.tx(|q| {
            let Some(team) = q
                .row(
                    &format!(
                        "SELECT team FROM programs WHERE id = $1 AND holder = $2
                         AND state = 'checking'{}",
                        q.dialect().lock_rows()
                    ),
                    params![id, holder],
                )?
                .map(|r| r.text(0))
                .transpose()?
            else {
                return Ok(false);
            };
            q.exec(
                "UPDATE programs SET state = 'retired' WHERE team = $1 AND state = 'active'",
                params![&team],
            )?;
            q.exec(
                "UPDATE programs SET state = 'active', reason = $2, active_ms = $3
                 WHERE id = $1",
                params![id, reason, now_ms],
            )?;
            q.notify("c")?;
            Ok(true)
        })
    }

    /// Retires program `id` if it is active (the organiser's call): its
    /// team then has no active program until it submits another.
    pub fn retire(&self, id: i64) -> Result<bool, StoreError> {
        self.tx(|q| {
            let changed = q.exec(
                "UPDATE programs SET state = 'retired', reason = 'retired by the organiser'
                 WHERE id = $1 AND state = 'active'",
                params![id],
            )?;
            q.notify("c")?;
            Ok(changed == 1)
        })
    }

    /// The new versions contest `id`'s Elo pool took in, as (game number,
    /// team, program; 0: the team had no active program left).
    pub fn renewals(&self, id: i64) -> Result<Vec<(i64, String, i64)>, StoreError> {
        self.read(|q| {
            q.rows(
                "SELECT seq, team, program FROM renewals WHERE contest = $1 ORDER BY seq, team",
                params![id],
            )?
            .iter()
            .map(|r| Ok((r.int(0)?, r.text(1)?, r.int(2)?)))
            .collect()
        })
    }

    /// Records that contest `id` took in `team`'s `program` before its game
    /// number `seq`.
    pub fn add_renewal(
        &self,
        id: i64,
        seq: i64,
        team: &str,
        program: i64,
    ) -> Result<(), StoreError> {
        self.tx(|q| {
            q.exec(
                "INSERT INTO renewals (contest, seq, team, program) VALUES ($1, $2, $3, $4)
                 ON CONFLICT (contest, seq, team) DO NOTHING",
                params![id, seq, team, program],
            )?;
            Ok(())
        })
    }
}
