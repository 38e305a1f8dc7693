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
    // 2: hosted programs, contests and their entrants; a game's place in
    // its contest, its opening and who forfeited it.
    "ALTER TABLE teams ADD COLUMN command TEXT;
    CREATE TABLE contests (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        format TEXT NOT NULL,
        games INTEGER NOT NULL,
        per_pair INTEGER NOT NULL,
        move_time_ms INTEGER NOT NULL,
        seed INTEGER NOT NULL,
        openings TEXT NOT NULL,
        state TEXT NOT NULL,
        standings TEXT,
        bracket TEXT,
        created_ms INTEGER NOT NULL
    );
    CREATE TABLE entrants (
        contest INTEGER NOT NULL REFERENCES contests(id),
        position INTEGER NOT NULL,
        team TEXT NOT NULL REFERENCES teams(name),
        admitted_at INTEGER,
        PRIMARY KEY (contest, position),
        UNIQUE (contest, team)
    );
    ALTER TABLE games ADD COLUMN contest INTEGER REFERENCES contests(id);
    ALTER TABLE games ADD COLUMN seq INTEGER;
    ALTER TABLE games ADD COLUMN opening_plies INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE games ADD COLUMN forfeit TEXT;
    CREATE UNIQUE INDEX games_of_contests ON games(contest, seq);
    CREATE INDEX games_in_progress ON games(id) WHERE ending IS NULL;",
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
    /// Who lost on a technicality: `black`, `white` or `both`.
    pub forfeit: Option<String>,
    /// The contest it belongs to, and its number there (from 0).
    pub contest: Option<(i64, i64)>,
    /// The first moves of `moves` were the opening's, not the players'.
    pub opening_plies: usize,
}

/// A contest as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContestRow {
    pub id: i64,
    pub name: String,
    /// `knockout`, `elo` or `ladder`.
    pub format: String,
    /// Elo: games to play (0: no end); ladder: rounds.
    pub games: i64,
    /// Ladder: games each pair plays a round.
    pub per_pair: i64,
    pub move_time_ms: i64,
    pub seed: i64,
    /// XOT lines, one an opening; empty: the standard start.
    pub openings: String,
    /// `running`, `paused` or `finished`.
    pub state: String,
    /// The standings as JSON (`Table::to_json`), as of the last round.
    pub standings: Option<String>,
    /// A knockout's bracket (SVG), once finished.
    pub bracket: Option<String>,
}

/// A contest's entrant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntrantRow {
    pub team: String,
    /// The contest's game count when an Elo pool took it in; `None` until then.
    pub admitted_at: Option<i64>,
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
        unique(conn.execute(
            "INSERT INTO teams (name, secret_hash, created_ms) VALUES (?1, ?2, ?3)",
            params![name, secret_hash, now_ms],
        ))
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
                "SELECT id, black, white, move_time_ms, turn_since_ms, ending, forfeit,
                        contest, seq, opening_plies FROM games WHERE id = ?1",
                params![id],
                |r| {
                    let contest: Option<i64> = r.get(7)?;
                    let seq: Option<i64> = r.get(8)?;
                    Ok(GameRow {
                        id: r.get(0)?,
                        black: r.get(1)?,
                        white: r.get(2)?,
                        move_time_ms: r.get(3)?,
                        turn_since_ms: r.get(4)?,
                        ending: r.get(5)?,
                        forfeit: r.get(6)?,
                        contest: contest.zip(seq),
                        opening_plies: r.get::<_, i64>(9)? as usize,
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

    /// Ends game `id` at ply `ply` without a move: `loser` (`black`,
    /// `white` or `both`) forfeits.
    pub fn end(&self, id: i64, ply: usize, loser: &str, ending: &str) -> Result<(), StoreError> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        check_next(&tx, id, ply)?;
        tx.execute(
            "UPDATE games SET ending = ?2, forfeit = ?3 WHERE id = ?1",
            params![id, ending, loser],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// Registers a hosted program: a team the server plays itself, with
    /// the organiser's `command`; it has no secret (nobody plays it remotely).
    pub fn add_hosted(&self, name: &str, command: &str, now_ms: i64) -> Result<(), StoreError> {
        let conn = self.conn();
        unique(conn.execute(
            "INSERT INTO teams (name, secret_hash, command, created_ms) VALUES (?1, '', ?2, ?3)",
            params![name, command, now_ms],
        ))
    }

    /// A team's hosted command, `None` for a remote bot (or no such team).
    pub fn command_of(&self, team: &str) -> Result<Option<String>, StoreError> {
        Ok(self
            .conn()
            .query_row(
                "SELECT command FROM teams WHERE name = ?1",
                params![team],
                |row| row.get(0),
            )
            .optional()?
            .flatten())
    }

    /// Whether team `name` exists.
    pub fn has_team(&self, name: &str) -> Result<bool, StoreError> {
        Ok(self
            .conn()
            .query_row("SELECT 1 FROM teams WHERE name = ?1", params![name], |_| {
                Ok(())
            })
            .optional()?
            .is_some())
    }

    /// Creates a contest and its entrants (taken in at game 0), running.
    pub fn create_contest(
        &self,
        contest: &ContestRow,
        entrants: &[String],
        now_ms: i64,
    ) -> Result<i64, StoreError> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        tx.execute(
            "INSERT INTO contests (name, format, games, per_pair, move_time_ms, seed, openings,
                                   state, created_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'running', ?8)",
            params![
                contest.name,
                contest.format,
                contest.games,
                contest.per_pair,
                contest.move_time_ms,
                contest.seed,
                contest.openings,
                now_ms
            ],
        )?;
        let id = tx.last_insert_rowid();
        for (position, team) in entrants.iter().enumerate() {
            tx.execute(
                "INSERT INTO entrants (contest, position, team, admitted_at) VALUES (?1, ?2, ?3, 0)",
                params![id, position as i64, team],
            )?;
        }
        tx.commit()?;
        Ok(id)
    }

    /// Adds `team` to contest `id` (an Elo pool takes it in at its next round).
    pub fn add_entrant(&self, id: i64, team: &str) -> Result<(), StoreError> {
        let conn = self.conn();
        unique(conn.execute(
            "INSERT INTO entrants (contest, position, team)
             SELECT ?1, COALESCE(MAX(position) + 1, 0), ?2 FROM entrants WHERE contest = ?1",
            params![id, team],
        ))
    }

    /// Takes in, at game `seq`, contest `id`'s entrants not yet taken in.
    pub fn admit_entrants(&self, id: i64, seq: i64) -> Result<(), StoreError> {
        self.conn().execute(
            "UPDATE entrants SET admitted_at = ?2 WHERE contest = ?1 AND admitted_at IS NULL",
            params![id, seq],
        )?;
        Ok(())
    }

    pub fn contest(&self, id: i64) -> Result<Option<ContestRow>, StoreError> {
        Ok(self
            .conn()
            .query_row(
                "SELECT id, name, format, games, per_pair, move_time_ms, seed, openings, state,
                        standings, bracket FROM contests WHERE id = ?1",
                params![id],
                |r| {
                    Ok(ContestRow {
                        id: r.get(0)?,
                        name: r.get(1)?,
                        format: r.get(2)?,
                        games: r.get(3)?,
                        per_pair: r.get(4)?,
                        move_time_ms: r.get(5)?,
                        seed: r.get(6)?,
                        openings: r.get(7)?,
                        state: r.get(8)?,
                        standings: r.get(9)?,
                        bracket: r.get(10)?,
                    })
                },
            )
            .optional()?)
    }

    /// Contest `id`'s entrants, in order of entry.
    pub fn entrants(&self, id: i64) -> Result<Vec<EntrantRow>, StoreError> {
        let conn = self.conn();
        let mut query = conn.prepare(
            "SELECT team, admitted_at FROM entrants WHERE contest = ?1 ORDER BY position",
        )?;
        let rows = query
            .query_map(params![id], |r| {
                Ok(EntrantRow {
                    team: r.get(0)?,
                    admitted_at: r.get(1)?,
                })
            })?
            .collect::<Result<_, _>>()?;
        Ok(rows)
    }

    /// The contests, newest first: id, name, format, state.
    pub fn contests(&self) -> Result<Vec<(i64, String, String, String)>, StoreError> {
        let conn = self.conn();
        let mut query =
            conn.prepare("SELECT id, name, format, state FROM contests ORDER BY id DESC")?;
        let rows = query
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
            .collect::<Result<_, _>>()?;
        Ok(rows)
    }

    /// Sets contest `id`'s state (`running`, `paused`), unless it has finished.
    pub fn set_contest_state(&self, id: i64, state: &str) -> Result<bool, StoreError> {
        Ok(self.conn().execute(
            "UPDATE contests SET state = ?2 WHERE id = ?1 AND state != 'finished'",
            params![id, state],
        )? == 1)
    }

    /// Stores contest `id`'s standings so far (and its bracket), finished or not.
    pub fn save_standings(
        &self,
        id: i64,
        standings: &str,
        bracket: Option<&str>,
        finished: bool,
    ) -> Result<(), StoreError> {
        let conn = self.conn();
        conn.execute(
            "UPDATE contests SET standings = ?2, bracket = COALESCE(?3, bracket) WHERE id = ?1",
            params![id, standings, bracket],
        )?;
        if finished {
            conn.execute(
                "UPDATE contests SET state = 'finished' WHERE id = ?1",
                params![id],
            )?;
        }
        Ok(())
    }

    /// Game number `seq` of contest `id`, if it has been made.
    pub fn contest_game(&self, id: i64, seq: i64) -> Result<Option<i64>, StoreError> {
        Ok(self
            .conn()
            .query_row(
                "SELECT id FROM games WHERE contest = ?1 AND seq = ?2",
                params![id, seq],
                |r| r.get(0),
            )
            .optional()?)
    }

    /// Contest `id`'s `latest` games, in the order the contest made them,
    /// and how many it has made in all.
    pub fn contest_games(
        &self,
        id: i64,
        latest: usize,
    ) -> Result<(Vec<GameRow>, usize), StoreError> {
        let (ids, count): (Vec<i64>, i64) = {
            let conn = self.conn();
            let count = conn.query_row(
                "SELECT COUNT(*) FROM games WHERE contest = ?1",
                params![id],
                |r| r.get(0),
            )?;
            let mut query = conn.prepare(
                "SELECT id FROM (SELECT id, seq FROM games WHERE contest = ?1
                 ORDER BY seq DESC LIMIT ?2) ORDER BY seq",
            )?;
            let ids = query
                .query_map(params![id, latest as i64], |r| r.get(0))?
                .collect::<Result<_, _>>()?;
            (ids, count)
        };
        Ok((self.games(ids)?, count as usize))
    }

    /// The games of `ids` (those that exist), in that order.
    fn games(&self, ids: Vec<i64>) -> Result<Vec<GameRow>, StoreError> {
        let mut games = Vec::with_capacity(ids.len());
        for id in ids {
            if let Some(game) = self.game(id)? {
                games.push(game);
            }
        }
        Ok(games)
    }

    /// `team`'s first game of contest `id` not yet ended.
    pub fn next_game_of(&self, id: i64, team: &str) -> Result<Option<i64>, StoreError> {
        Ok(self
            .conn()
            .query_row(
                "SELECT id FROM games WHERE contest = ?1 AND ending IS NULL
                 AND (black = ?2 OR white = ?2) ORDER BY seq LIMIT 1",
                params![id, team],
                |r| r.get(0),
            )
            .optional()?)
    }

    /// Makes game number `seq` of contest `id` (or finds it made), its
    /// `opening` moves (passes `None`) stored as its first moves; returns
    /// the game.
    #[allow(clippy::too_many_arguments)]
    pub fn make_contest_game(
        &self,
        id: i64,
        seq: i64,
        black: &str,
        white: &str,
        move_time_ms: i64,
        opening: &[Option<String>],
        now_ms: i64,
    ) -> Result<i64, StoreError> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        let made: Option<i64> = tx
            .query_row(
                "SELECT id FROM games WHERE contest = ?1 AND seq = ?2",
                params![id, seq],
                |r| r.get(0),
            )
            .optional()?;
        if let Some(game) = made {
            return Ok(game);
        }
        tx.execute(
            "INSERT INTO games (black, white, move_time_ms, turn_since_ms, created_ms, contest,
                                seq, opening_plies)
             VALUES (?1, ?2, ?3, ?4, ?4, ?5, ?6, ?7)",
            params![
                black,
                white,
                move_time_ms,
                now_ms,
                id,
                seq,
                opening.len() as i64
            ],
        )?;
        let game = tx.last_insert_rowid();
        for (ply, square) in opening.iter().enumerate() {
            tx.execute(
                "INSERT INTO moves (game, ply, square, played_ms) VALUES (?1, ?2, ?3, ?4)",
                params![game, ply as i64, square, now_ms],
            )?;
        }
        tx.commit()?;
        Ok(game)
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
        self.games(ids)
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

    /// The games in progress whose side to move has let its time run out
    /// by `now_ms` (the sweep's question, asked 20 times a second: only
    /// those games are read).
    pub fn late_games(&self, now_ms: i64) -> Result<Vec<i64>, StoreError> {
        let conn = self.conn();
        let mut query = conn.prepare_cached(
            "SELECT id FROM games WHERE ending IS NULL AND turn_since_ms + move_time_ms < ?1",
        )?;
        let ids = query
            .query_map(params![now_ms], |r| r.get(0))?
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

/// An insert's result, a clash with a unique key read as [`StoreError::Exists`].
fn unique(inserted: rusqlite::Result<usize>) -> Result<(), StoreError> {
    match inserted {
        Ok(_) => Ok(()),
        Err(rusqlite::Error::SqliteFailure(e, _))
            if e.code == rusqlite::ErrorCode::ConstraintViolation =>
        {
            Err(StoreError::Exists)
        }
        Err(e) => Err(e.into()),
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
