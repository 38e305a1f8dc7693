//! Storage: SQLite, one file, needing no set-up. Every change is one
//! transaction, committed (WAL, `synchronous=FULL`) before the caller
//! answers anyone, so a server killed at any moment loses nothing it
//! acknowledged. The schema is versioned from the first release: each
//! migration runs once, in order, and `schema_version` says how far a
//! database has come.

use rusqlite::{params, Connection, OptionalExtension};
use std::path::Path;
use std::sync::Mutex;

/// The migrations, in order; a database at version N has run the first N.
pub const MIGRATIONS: &[&str] = &[
    // 1: teams, games and their moves.
    "CREATE TABLE teams (
        name TEXT PRIMARY KEY,
        secret_hash TEXT NOT NULL,
        created_ms INTEGER NOT NULL
    );
    CREATE TABLE games (
        id INTEGER PRIMARY KEY,
        black TEXT NOT NULL REFERENCES teams(name),
        white TEXT NOT NULL REFERENCES teams(name),
        move_time_ms INTEGER NOT NULL,
        turn_since_ms INTEGER NOT NULL,
        ending TEXT,
        created_ms INTEGER NOT NULL
    );
    CREATE TABLE moves (
        game INTEGER NOT NULL REFERENCES games(id),
        ply INTEGER NOT NULL,
        square TEXT,
        played_ms INTEGER NOT NULL,
        PRIMARY KEY (game, ply)
    );",
];

/// A game as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRow {
    pub id: i64,
    pub black: String,
    pub white: String,
    pub move_time_ms: i64,
    /// When the side to move was offered its turn (ms since the epoch).
    pub turn_since_ms: i64,
    /// The moves in order, `None` a pass, as square names (`d3`).
    pub moves: Vec<Option<String>>,
    /// How the game ended, once it has (`black 40-24`, `white forfeits: ...`).
    pub ending: Option<String>,
}

#[derive(Debug, PartialEq, Eq)]
pub enum StoreError {
    /// A team of that name exists.
    Exists,
    /// The move's ply is not the game's next (another request played it,
    /// or the game ended).
    Stale,
    Other(String),
}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> StoreError {
        StoreError::Other(e.to_string())
    }
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreError::Exists => write!(f, "it exists already"),
            StoreError::Stale => write!(f, "the game has moved on"),
            StoreError::Other(e) => write!(f, "storage: {e}"),
        }
    }
}

pub struct Store {
    conn: Mutex<Connection>,
}

impl Store {
    /// Opens (creating if need be) the database at `path` and brings its
    /// schema up to date.
    pub fn open(path: &Path) -> Result<Store, String> {
        let conn = Connection::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
        conn.execute_batch(
            "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;",
        )
        .map_err(|e| format!("{}: {e}", path.display()))?;
        migrate(&conn).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(Store {
            conn: Mutex::new(conn),
        })
    }

    fn conn(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The schema version the database is at.
    pub fn version(&self) -> Result<usize, StoreError> {
        Ok(version(&self.conn())?)
    }

    pub fn add_team(&self, name: &str, secret_hash: &str, now_ms: i64) -> Result<(), StoreError> {
        let conn = self.conn();
        match conn.execute(
            "INSERT INTO teams (name, secret_hash, created_ms) VALUES (?1, ?2, ?3)",
            params![name, secret_hash, now_ms],
        ) {
            Ok(_) => Ok(()),
            Err(rusqlite::Error::SqliteFailure(e, _))
                if e.code == rusqlite::ErrorCode::ConstraintViolation =>
            {
                Err(StoreError::Exists)
            }
            Err(e) => Err(e.into()),
        }
    }

    pub fn secret_hash(&self, team: &str) -> Result<Option<String>, StoreError> {
        Ok(self
            .conn()
            .query_row(
                "SELECT secret_hash FROM teams WHERE name = ?1",
                params![team],
                |row| row.get(0),
            )
            .optional()?)
    }

    pub fn create_game(
        &self,
        black: &str,
        white: &str,
        move_time_ms: i64,
        now_ms: i64,
    ) -> Result<i64, StoreError> {
        let conn = self.conn();
        conn.execute(
            "INSERT INTO games (black, white, move_time_ms, turn_since_ms, created_ms)
             VALUES (?1, ?2, ?3, ?4, ?4)",
            params![black, white, move_time_ms, now_ms],
        )?;
        Ok(conn.last_insert_rowid())
    }

    pub fn game(&self, id: i64) -> Result<Option<GameRow>, StoreError> {
        let conn = self.conn();
        let Some(mut row) = conn
            .query_row(
                "SELECT id, black, white, move_time_ms, turn_since_ms, ending FROM games WHERE id = ?1",
                params![id],
                |r| {
                    Ok(GameRow {
                        id: r.get(0)?,
                        black: r.get(1)?,
                        white: r.get(2)?,
                        move_time_ms: r.get(3)?,
                        turn_since_ms: r.get(4)?,
                        ending: r.get(5)?,
                        moves: Vec::new(),
                    })
                },
            )
            .optional()?
        else {
            return Ok(None);
        };
        let mut query = conn.prepare("SELECT square FROM moves WHERE game = ?1 ORDER BY ply")?;
        row.moves = query
            .query_map(params![id], |r| r.get::<_, Option<String>>(0))?
            .collect::<Result<_, _>>()?;
        Ok(Some(row))
    }

    /// Stores move number `ply` (from 0) of game `id`, and the ending if
    /// it ends the game, in one transaction; refused as stale unless the
    /// game has exactly `ply` moves and has not ended.
    pub fn play(
        &self,
        id: i64,
        ply: usize,
        square: Option<&str>,
        ending: Option<&str>,
        now_ms: i64,
    ) -> Result<(), StoreError> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        check_next(&tx, id, ply)?;
        tx.execute(
            "INSERT INTO moves (game, ply, square, played_ms) VALUES (?1, ?2, ?3, ?4)",
            params![id, ply as i64, square, now_ms],
        )?;
        tx.execute(
            "UPDATE games SET turn_since_ms = ?2, ending = ?3 WHERE id = ?1",
            params![id, now_ms, ending],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// Ends game `id` at ply `ply` without a move (a forfeit).
    pub fn end(&self, id: i64, ply: usize, ending: &str) -> Result<(), StoreError> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        check_next(&tx, id, ply)?;
        tx.execute(
            "UPDATE games SET ending = ?2 WHERE id = ?1",
            params![id, ending],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// The `limit` newest games, newest first.
    pub fn recent_games(&self, limit: usize) -> Result<Vec<GameRow>, StoreError> {
        let ids: Vec<i64> = {
            let conn = self.conn();
            let mut query = conn.prepare("SELECT id FROM games ORDER BY id DESC LIMIT ?1")?;
            let ids = query
                .query_map(params![limit as i64], |r| r.get(0))?
                .collect::<Result<_, _>>()?;
            ids
        };
        let mut games = Vec::with_capacity(ids.len());
        for id in ids {
            if let Some(game) = self.game(id)? {
                games.push(game);
            }
        }
        Ok(games)
    }

    /// The games not yet ended.
    pub fn games_in_progress(&self) -> Result<Vec<i64>, StoreError> {
        let conn = self.conn();
        let mut query = conn.prepare("SELECT id FROM games WHERE ending IS NULL ORDER BY id")?;
        let ids = query
            .query_map([], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        Ok(ids)
    }

    /// After a restart: every game in progress offers its turn anew from
    /// `now_ms`, so that no player loses on time for the server's absence.
    pub fn restart_clocks(&self, now_ms: i64) -> Result<usize, StoreError> {
        Ok(self.conn().execute(
            "UPDATE games SET turn_since_ms = ?1 WHERE ending IS NULL",
            params![now_ms],
        )?)
    }
}

fn check_next(tx: &rusqlite::Transaction<'_>, id: i64, ply: usize) -> Result<(), StoreError> {
    let (count, ended): (i64, Option<String>) = tx.query_row(
        "SELECT (SELECT COUNT(*) FROM moves WHERE game = ?1), ending FROM games WHERE id = ?1",
        params![id],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    if count != ply as i64 || ended.is_some() {
        return Err(StoreError::Stale);
    }
    Ok(())
}

fn version(conn: &Connection) -> rusqlite::Result<usize> {
    conn.execute_batch("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")?;
    let v: Option<i64> = conn
        .query_row("SELECT MAX(version) FROM schema_version", [], |r| r.get(0))
        .optional()?
        .flatten();
    Ok(v.unwrap_or(0) as usize)
}

/// Runs the migrations the database has not had, each in its transaction.
fn migrate(conn: &Connection) -> rusqlite::Result<()> {
    let done = version(conn)?;
    if done > MIGRATIONS.len() {
        return Err(rusqlite::Error::InvalidParameterName(format!(
            "the database is at schema version {done}; this server knows {}",
            MIGRATIONS.len()
        )));
    }
    for (i, migration) in MIGRATIONS.iter().enumerate().skip(done) {
        conn.execute_batch(&format!(
            "BEGIN; {migration}; INSERT INTO schema_version (version) VALUES ({}); COMMIT;",
            i + 1
        ))?;
    }
    Ok(())
}
