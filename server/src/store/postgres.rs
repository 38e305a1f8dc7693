//! PostgreSQL, for when one machine is not enough: several server
//! processes, on as many machines, share one database. Each call takes a
//! connection from a small pool for its transaction. One more connection
//! per process stays open for its whole life: it holds a shared advisory
//! lock (so that a starting process can tell whether any other is alive:
//! PostgreSQL drops a session's locks when its process dies) and listens
//! for the other processes' notices of changes.

use super::schema::{for_postgres, MIGRATIONS};
use super::sql::{Dialect, Row, Sql, Value};
use super::StoreError;
use postgres::error::SqlState;
use postgres::fallible_iterator::FallibleIterator;
use postgres::types::{IsNull, ToSql, Type};
use postgres::{Client, GenericClient, NoTls, Statement};
use std::collections::HashMap;
use std::sync::{Condvar, Mutex};
use std::time::Duration;

/// The advisory lock every running server holds shared.
const PRESENCE_LOCK: i64 = 0x7265_7665_7273_6901;
/// The advisory lock held while the schema is brought up to date.
const MIGRATION_LOCK: i64 = 0x7265_7665_7273_6902;
/// How often (every 100 ms) a starting process asks whether it is alone:
/// for a second, time enough for PostgreSQL to end the session of a
/// process killed on this machine a moment before.
const PRESENCE_TRIES: usize = 10;
/// The channel the processes' notices go on.
const CHANNEL: &str = "reversi";
/// Connections a process keeps for its calls: a call holds one for a
/// transaction of a few statements, so a few serve many threads.
const POOL: usize = 8;

/// A connection and the statements prepared on it.
struct Conn {
    client: Client,
    statements: HashMap<String, Statement>,
}

pub struct Db {
    url: String,
    idle: Mutex<Pool>,
    freed: Condvar,
    /// The presence connection, until [`Db::listen`] takes it.
    presence: Mutex<Option<Client>>,
    /// No other server had the database when this one opened it.
    pub alone: bool,
}

#[derive(Default)]
struct Pool {
    idle: Vec<Conn>,
    /// Connections out of the pool, in use.
    lent: usize,
}

fn error(e: postgres::Error) -> StoreError {
    if e.code() == Some(&SqlState::UNIQUE_VIOLATION) {
        StoreError::Exists
    } else {
        StoreError::Other(why(&e))
    }
}

/// What went wrong, with the database's or the system's reason (the
/// error's own text is only its kind: "db error").
fn why(e: &postgres::Error) -> String {
    if let Some(db) = e.as_db_error() {
        return db.message().to_string();
    }
    match std::error::Error::source(e) {
        Some(source) => format!("{e}: {source}"),
        None => e.to_string(),
    }
}

/// A session that says when its process is gone: the server side probes
/// an idle connection after 10 s, so the session (and its presence lock)
/// ends within half a minute of its machine's.
const KEEPALIVE: &str =
    "SET tcp_keepalives_idle = 10; SET tcp_keepalives_interval = 5; SET tcp_keepalives_count = 3";

impl Db {
    /// Connects to `url`, brings the schema up to date, and takes this
    /// process's presence lock.
    pub fn open(url: &str) -> Result<Db, String> {
        let place = |e: &postgres::Error| format!("{}: {}", redacted(url), why(e));
        let mut presence = Client::connect(url, NoTls).map_err(|e| place(&e))?;
        presence.batch_execute(KEEPALIVE).map_err(|e| place(&e))?;
        migrate(&mut presence).map_err(|e| format!("{}: {e}", redacted(url)))?;
        // A process killed a moment ago may still have its session: asked
        // again for a while before this one takes the others to be alive.
        let mut alone = false;
        for _ in 0..PRESENCE_TRIES {
            alone = presence
                .query_one("SELECT pg_try_advisory_lock($1)", &[&PRESENCE_LOCK])
                .and_then(|r| r.try_get(0))
                .map_err(|e| place(&e))?;
            if alone {
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        presence
            .query_one("SELECT pg_advisory_lock_shared($1)", &[&PRESENCE_LOCK])
            .map_err(|e| place(&e))?;
        if alone {
            presence
                .query_one("SELECT pg_advisory_unlock($1)", &[&PRESENCE_LOCK])
                .map_err(|e| place(&e))?;
        }
        Ok(Db {
            url: url.to_string(),
            idle: Mutex::new(Pool::default()),
            freed: Condvar::new(),
            presence: Mutex::new(Some(presence)),
            alone,
        })
    }

    /// A connection from the pool, or a new one while fewer than [`POOL`]
    /// are in use.
    fn take(&self) -> Result<Conn, StoreError> {
        let mut pool = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(conn) = pool.idle.pop() {
                if conn.client.is_closed() {
                    continue;
                }
                pool.lent += 1;
                return Ok(conn);
            }
            if pool.lent < POOL {
                pool.lent += 1;
                drop(pool);
                let client = Client::connect(&self.url, NoTls);
                return match client {
                    Ok(client) => Ok(Conn {
                        client,
                        statements: HashMap::new(),
                    }),
                    Err(e) => {
                        self.give_back(None);
                        Err(StoreError::Other(why(&e)))
                    }
                };
            }
            pool = self.freed.wait(pool).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn give_back(&self, conn: Option<Conn>) {
        let mut pool = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        pool.lent -= 1;
        if let Some(conn) = conn.filter(|c| !c.client.is_closed()) {
            pool.idle.push(conn);
        }
        self.freed.notify_one();
    }

    /// Runs `work` in a transaction, committed if it succeeds.
    pub fn tx<T>(
        &self,
        work: impl FnOnce(&mut dyn Sql) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let mut conn = self.take()?;
        let result = (|| {
            let mut tx = conn.client.transaction().map_err(error)?;
            let value = work(&mut On {
                client: &mut tx,
                statements: &mut conn.statements,
            })?;
            tx.commit().map_err(error)?;
            Ok(value)
        })();
        self.give_back(Some(conn));
        result
    }

    /// Runs `work`, which only reads, each statement its own transaction:
    /// at PostgreSQL's isolation (read committed) a transaction would give
    /// each statement its own snapshot all the same, and costs two more
    /// round trips.
    ///
    /// A read on a connection that turns out to have been lost (PostgreSQL
    /// restarted, say) is made once more on a new one.
    pub fn read<T>(
        &self,
        work: impl Fn(&mut dyn Sql) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let mut tries = 0;
        loop {
            tries += 1;
            let mut conn = self.take()?;
            let result = work(&mut On {
                client: &mut conn.client,
                statements: &mut conn.statements,
            });
            let lost = result.is_err() && conn.client.is_closed();
            self.give_back(Some(conn));
            if !lost || tries == 2 {
                return result;
            }
        }
    }

    /// Hands every notice of the other processes (and this one's) to
    /// `heard`, on a thread of its own, for the process's life; after a
    /// lost connection, which may have missed notices, `heard("*")`.
    pub fn listen(&self, heard: impl Fn(&str) + Send + 'static) {
        let first = self
            .presence
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        let url = self.url.clone();
        let spawned = std::thread::Builder::new()
            .name("listen".into())
            .spawn(move || {
                let mut client = first;
                loop {
                    if let Some(mut c) = client.take() {
                        if c.batch_execute(&format!("LISTEN {CHANNEL}")).is_ok() {
                            let mut notices = c.notifications();
                            let mut notices = notices.blocking_iter();
                            while let Ok(Some(notice)) = notices.next() {
                                heard(notice.payload());
                            }
                        }
                        eprintln!(
                            "reversi-server: the database's notices stopped; listening again"
                        );
                    }
                    std::thread::sleep(Duration::from_secs(1));
                    client = Client::connect(&url, NoTls).ok().and_then(|mut c| {
                        c.batch_execute(KEEPALIVE).ok()?;
                        c.query_one("SELECT pg_advisory_lock_shared($1)", &[&PRESENCE_LOCK])
                            .ok()?;
                        Some(c)
                    });
                    heard("*");
                }
            });
        if spawned.is_err() {
            eprintln!("reversi-server: no thread to hear the other servers on");
        }
    }
}

/// `url` without its password, for messages.
fn redacted(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let user = &url[scheme + 3..at];
            let user = user.split(':').next().unwrap_or("");
            format!("{}{user}{}", &url[..scheme + 3], &url[at..])
        }
        _ => url.to_string(),
    }
}

/// Statements run on a transaction, or (for reads) on the connection
/// itself, each its own transaction.
struct On<'a, C: GenericClient> {
    client: &'a mut C,
    statements: &'a mut HashMap<String, Statement>,
}

impl<C: GenericClient> On<'_, C> {
    fn statement(&mut self, sql: &str) -> Result<Statement, StoreError> {
        if let Some(statement) = self.statements.get(sql) {
            return Ok(statement.clone());
        }
        let statement = self.client.prepare(sql).map_err(error)?;
        self.statements.insert(sql.to_string(), statement.clone());
        Ok(statement)
    }
}

impl<C: GenericClient> Sql for On<'_, C> {
    fn exec(&mut self, sql: &str, params: &[Value]) -> Result<u64, StoreError> {
        let statement = self.statement(sql)?;
        let params: Vec<&(dyn ToSql + Sync)> = params.iter().map(|v| v as _).collect();
        self.client.execute(&statement, &params).map_err(error)
    }

    fn rows(&mut self, sql: &str, params: &[Value]) -> Result<Vec<Row>, StoreError> {
        let statement = self.statement(sql)?;
        let params: Vec<&(dyn ToSql + Sync)> = params.iter().map(|v| v as _).collect();
        let rows = self.client.query(&statement, &params).map_err(error)?;
        rows.iter()
            .map(|r| {
                (0..r.len())
                    .map(|i| column(r, i))
                    .collect::<Result<Vec<_>, _>>()
                    .map(Row)
            })
            .collect()
    }

    fn dialect(&self) -> Dialect {
        Dialect::Postgres
    }

    fn notify(&mut self, what: &str) -> Result<(), StoreError> {
        self.exec(
            "SELECT pg_notify('reversi', $1)",
            &[Value::Text(what.into())],
        )
        .map(|_| ())
    }
}

/// Column `i` of `row` as a [`Value`].
fn column(row: &postgres::Row, i: usize) -> Result<Value, StoreError> {
    let ty = row.columns()[i].type_().clone();
    let value = match ty {
        Type::INT8 => row.try_get::<_, Option<i64>>(i).map(Value::from),
        Type::INT4 => row
            .try_get::<_, Option<i32>>(i)
            .map(|v| v.map(i64::from).into()),
        Type::INT2 => row
            .try_get::<_, Option<i16>>(i)
            .map(|v| v.map(i64::from).into()),
        Type::BOOL => row
            .try_get::<_, Option<bool>>(i)
            .map(|v| v.map(i64::from).into()),
        Type::BYTEA => row.try_get::<_, Option<Vec<u8>>>(i).map(|v| match v {
            Some(b) => Value::Bytes(b),
            None => Value::Null,
        }),
        _ => row
            .try_get::<_, Option<String>>(i)
            .map(|v| v.as_ref().into()),
    };
    value.map_err(error)
}

impl ToSql for Value {
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut bytes::BytesMut,
    ) -> Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        match self {
            Value::Null => Ok(IsNull::Yes),
            Value::Int(v) if *ty == Type::INT4 => i32::try_from(*v)?.to_sql(ty, out),
            Value::Int(v) if *ty == Type::INT2 => i16::try_from(*v)?.to_sql(ty, out),
            Value::Int(v) => v.to_sql(ty, out),
            Value::Text(t) => t.as_str().to_sql(ty, out),
            Value::Bytes(b) => b.as_slice().to_sql(ty, out),
        }
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    postgres::types::to_sql_checked!();
}

/// Runs the migrations the database has not had, each in its transaction,
/// one process at a time.
fn migrate(client: &mut Client) -> Result<(), String> {
    let fail = |e: postgres::Error| why(&e);
    client
        .query_one("SELECT pg_advisory_lock($1)", &[&MIGRATION_LOCK])
        .map_err(fail)?;
    let result = (|| {
        client
            .batch_execute("CREATE TABLE IF NOT EXISTS schema_version (version BIGINT NOT NULL)")
            .map_err(fail)?;
        let done: Option<i64> = client
            .query_one("SELECT MAX(version) FROM schema_version", &[])
            .and_then(|r| r.try_get(0))
            .map_err(fail)?;
        let done = done.unwrap_or(0) as usize;
        super::check_version(done, MIGRATIONS.len())?;
        for (i, migration) in MIGRATIONS.iter().enumerate().skip(done) {
            let mut tx = client.transaction().map_err(fail)?;
            tx.batch_execute(&for_postgres(migration))
                .and_then(|()| {
                    tx.execute(
                        "INSERT INTO schema_version (version) VALUES ($1)",
                        &[&((i + 1) as i64)],
                    )
                })
                .map_err(|e| format!("migration {}: {}", i + 1, why(&e)))?;
            tx.commit().map_err(fail)?;
        }
        Ok(())
    })();
    let _ = client.query_one("SELECT pg_advisory_unlock($1)", &[&MIGRATION_LOCK]);
    result
}
