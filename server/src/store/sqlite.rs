//! SQLite: one file, needing no set-up, the default. One connection serves
//! the one server process (a lock on the file keeps a second one out),
//! in WAL mode with `synchronous=FULL`: a commit is on the disk before the
//! call returns.

use super::schema::MIGRATIONS;
use super::sql::{Dialect, Row, Sql, Value};
use super::StoreError;
use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::Connection;
use std::os::fd::AsRawFd;
use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

pub struct Db {
    conn: Mutex<Connection>,
    /// Held for the process's life: the lock that keeps a second server
    /// off the file (released by the system however the process ends).
    _lock: std::fs::File,
}

/// How long a starting server waits for the file's lock. A server killed
/// a moment ago may have left a program of its own between its fork and
/// its exec, which holds the lock until it execs: a restart at once (a
/// supervisor's, or a test's) met it on the loaded 2-core machine.
const LOCK_WAIT: Duration = Duration::from_secs(2);

/// Takes the lock that keeps a second server off the file, waiting
/// [`LOCK_WAIT`] at most; false if another process holds it still.
fn take_lock(file: &std::fs::File) -> bool {
    let until = Instant::now() + LOCK_WAIT;
    loop {
        // SQLite's own locks are fcntl's, which this does not touch.
        // SAFETY: flock on a descriptor the caller owns.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
            return true;
        }
        if Instant::now() >= until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

impl Db {
    /// Opens (creating if need be) the database at `path`, unless another
    /// server has it open, and brings its schema up to date.
    pub fn open(path: &Path) -> Result<Db, String> {
        let place = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
        let conn = Connection::open(path).map_err(|e| place(&e))?;
        let lock = std::fs::File::open(path).map_err(|e| place(&e))?;
        if !take_lock(&lock) {
            return Err(place(
                &"another reversi-server has it open (SQLite serves one server; \
                  several share a database with --db postgres://...)",
            ));
        }
        conn.execute_batch(
            "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;",
        )
        .map_err(|e| place(&e))?;
        migrate(&conn).map_err(|e| place(&e))?;
        Ok(Db {
            conn: Mutex::new(conn),
            _lock: lock,
        })
    }

    /// Runs `work` in a transaction, committed if it succeeds.
    pub fn tx<T>(
        &self,
        work: impl FnOnce(&mut dyn Sql) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let mut conn = self.conn.lock().unwrap_or_else(|e| e.into_inner());
        let mut tx = Tx(conn.transaction().map_err(error)?);
        let value = work(&mut tx)?;
        tx.0.commit().map_err(error)?;
        Ok(value)
    }
}

struct Tx<'a>(rusqlite::Transaction<'a>);

impl Sql for Tx<'_> {
    fn exec(&mut self, sql: &str, params: &[Value]) -> Result<u64, StoreError> {
        let mut statement = self.0.prepare_cached(&numbered(sql)).map_err(error)?;
        let changed = statement
            .execute(rusqlite::params_from_iter(params))
            .map_err(error)?;
        Ok(changed as u64)
    }

    fn rows(&mut self, sql: &str, params: &[Value]) -> Result<Vec<Row>, StoreError> {
        let mut statement = self.0.prepare_cached(&numbered(sql)).map_err(error)?;
        let width = statement.column_count();
        let rows = statement
            .query_map(rusqlite::params_from_iter(params), |r| {
                (0..width)
                    .map(|i| {
                        Ok(match r.get_ref(i)? {
                            ValueRef::Null => Value::Null,
                            ValueRef::Integer(v) => Value::Int(v),
                            ValueRef::Text(t) => Value::Text(String::from_utf8_lossy(t).into()),
                            ValueRef::Real(v) => Value::Int(v as i64),
                            ValueRef::Blob(b) => Value::Bytes(b.to_vec()),
                        })
                    })
                    .collect::<rusqlite::Result<Vec<Value>>>()
                    .map(Row)
            })
            .map_err(error)?;
        rows.collect::<rusqlite::Result<Vec<Row>>>().map_err(error)
    }

    fn dialect(&self) -> Dialect {
        Dialect::Sqlite
    }

    fn notify(&mut self, _what: &str) -> Result<(), StoreError> {
        // One process: whoever needs to know is told in the process.
        Ok(())
    }
}

impl rusqlite::ToSql for Value {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match self {
            Value::Null => ToSqlOutput::Borrowed(ValueRef::Null),
            Value::Int(v) => ToSqlOutput::Borrowed(ValueRef::Integer(*v)),
            Value::Text(t) => ToSqlOutput::Borrowed(ValueRef::Text(t.as_bytes())),
            Value::Bytes(b) => ToSqlOutput::Borrowed(ValueRef::Blob(b)),
        })
    }
}

/// The store's `$1` parameters as SQLite's `?1` (SQLite reads `$1` as a
/// name, numbered by where it first appears).
fn numbered(sql: &str) -> String {
    sql.replace('$', "?")
}

/// A clash with a unique key read as [`StoreError::Exists`].
fn error(e: rusqlite::Error) -> StoreError {
    match &e {
        rusqlite::Error::SqliteFailure(f, _)
            if f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE
                || f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY =>
        {
            StoreError::Exists
        }
        _ => StoreError::Other(e.to_string()),
    }
}

fn version(conn: &Connection) -> rusqlite::Result<usize> {
    conn.execute_batch("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")?;
    let v: Option<i64> =
        conn.query_row("SELECT MAX(version) FROM schema_version", [], |r| r.get(0))?;
    Ok(v.unwrap_or(0) as usize)
}

/// Runs the migrations the database has not had, each in its transaction.
fn migrate(conn: &Connection) -> Result<(), String> {
    let done = version(conn).map_err(|e| e.to_string())?;
    super::check_version(done, MIGRATIONS.len())?;
    for (i, migration) in MIGRATIONS.iter().enumerate().skip(done) {
        conn.execute_batch(&format!(
            "BEGIN; {migration}; INSERT INTO schema_version (version) VALUES ({}); COMMIT;",
            i + 1
        ))
        .map_err(|e| format!("migration {}: {e}", i + 1))?;
    }
    Ok(())
}
