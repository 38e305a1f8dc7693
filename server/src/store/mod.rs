//! Storage: SQLite (one file, needing no set-up, the default) or
//! PostgreSQL (`postgres://...`, which several server processes share),
//! behind one interface. Every change is one transaction, committed
//! before the caller answers anyone, so a server killed at any moment
//! loses nothing it acknowledged. The schema is versioned from the first
//! release: each migration runs once, in order, and `schema_version` says
//! how far a database has come; both databases have the same versions.
//!
//! The SQL is written once, in the forms both databases read (`$1`
//! parameters, `RETURNING`, `CAST`), with [`sql::Dialect`] for the one
//! place they differ: PostgreSQL's row locks.
//!
//! Work that any process may take on (a contest to run, a hosted side of a
//! game to play) is held for a lease: claimed, renewed while the work goes
//! on, and taken over by another process once it lapses.

pub mod lease;
mod postgres;
pub mod programs;
mod schema;
pub mod sql;
mod sqlite;

use sql::{params, Row, Sql};

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
    /// The submitted program each side (black, white) ran, if it ran one:
    /// its team's active version when the game was made.
    pub programs: [Option<i64>; 2],
    /// How long a side that has not shown up may take to (ms).
    pub setup_ms: i64,
    /// Each side (black, white) until it shows up (its bot asks for the
    /// game, its program says OK): its clock does not start before this.
    /// `None` once it has.
    pub setup_until_ms: [Option<i64>; 2],
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
    /// `waiting` (to be started), `running`, `paused` or `finished`.
    pub state: String,
    /// When a waiting contest starts by itself (ms since the epoch).
    pub start_at_ms: Option<i64>,
    /// Each game's setup allowance (see [`GameRow::setup_until_ms`]).
    pub setup_ms: i64,
    /// The standings as JSON (`Table::to_json`), as of the last round.
    pub standings: Option<String>,
    /// A knockout's bracket (SVG), once finished.
    pub bracket: Option<String>,
}

/// A team's ratings in one Elo pool: (games the pool had played,
/// rating) points, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RatingHistory {
    pub contest: i64,
    pub name: String,
    pub points: Vec<(i64, i64)>,
}

/// A contest's entrant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntrantRow {
    pub team: String,
    /// The contest's game count when an Elo pool took it in; `None` until then.
    pub admitted_at: Option<i64>,
    /// When its bot was last seen waiting on the contest.
    pub seen_ms: Option<i64>,
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

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreError::Exists => write!(f, "it exists already"),
            StoreError::Stale => write!(f, "the game has moved on"),
            StoreError::Other(e) => write!(f, "storage: {e}"),
        }
    }
}

/// The schema version this server brings a database to.
pub const SCHEMA_VERSION: usize = schema::MIGRATIONS.len();

/// The leases a process no longer held when it came to renew them.
pub struct Lost {
    /// Hosted seats, as (game, side).
    pub seats: Vec<(i64, usize)>,
    pub contests: Vec<i64>,
    /// Submitted programs being judged.
    pub programs: Vec<i64>,
}

/// The end of a hosted program's stderr kept for a game, in bytes.
pub const LOG_KEPT: usize = 64 * 1024;

/// Refuses a team name that another has already, in any case: `alpha`
/// and `ALPHA` would be one team to a person reading the standings.
fn refuse_taken(q: &mut dyn Sql, name: &str) -> Result<(), StoreError> {
    let taken = q
        .row(
            "SELECT name FROM teams WHERE lower(name) = lower($1)",
            params![name],
        )?
        .is_some();
    if taken {
        return Err(StoreError::Exists);
    }
    Ok(())
}

/// Refuses a database that a newer server has migrated further.
fn check_version(done: usize, known: usize) -> Result<(), String> {
    if done > known {
        return Err(format!(
            "the database is at schema version {done}; this server knows {known}"
        ));
    }
    Ok(())
}

enum Backend {
    Sqlite(sqlite::Db),
    Postgres(Box<postgres::Db>),
}

pub struct Store {
    db: Backend,
}

/// A game row's columns, as [`Store::game`] reads them.
const GAME_COLUMNS: &str = "id, black, white, move_time_ms, turn_since_ms, ending, forfeit, \
                            contest, seq, opening_plies, black_program, white_program, \
                            setup_ms, black_setup_until_ms, white_setup_until_ms";

fn game_row(r: &Row) -> Result<GameRow, StoreError> {
    Ok(GameRow {
        id: r.int(0)?,
        black: r.text(1)?,
        white: r.text(2)?,
        move_time_ms: r.int(3)?,
        turn_since_ms: r.int(4)?,
        ending: r.opt_text(5)?,
        forfeit: r.opt_text(6)?,
        contest: r.opt_int(7)?.zip(r.opt_int(8)?),
        opening_plies: r.int(9)? as usize,
        programs: [r.opt_int(10)?, r.opt_int(11)?],
        setup_ms: r.int(12)?,
        setup_until_ms: [r.opt_int(13)?, r.opt_int(14)?],
        moves: Vec::new(),
    })
}

impl Store {
    /// Opens the database `place` names (`postgres://...` or
    /// `postgresql://...`: PostgreSQL; anything else: an SQLite file,
    /// created if missing) and brings its schema up to date.
    pub fn open(place: &str) -> Result<Store, String> {
        let db = if place.starts_with("postgres://") || place.starts_with("postgresql://") {
            Backend::Postgres(Box::new(postgres::Db::open(place)?))
        } else {
            Backend::Sqlite(sqlite::Db::open(std::path::Path::new(place))?)
        };
        Ok(Store { db })
    }

    /// Runs `work` in one transaction, committed if it succeeds.
    fn tx<T>(
        &self,
        work: impl FnOnce(&mut dyn Sql) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        match &self.db {
            Backend::Sqlite(db) => db.tx(work),
            Backend::Postgres(db) => db.tx(work),
        }
    }

    /// Runs `work`, which only reads (each statement sees what was
    /// committed before it began).
    fn read<T>(
        &self,
        work: impl Fn(&mut dyn Sql) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        match &self.db {
            Backend::Sqlite(db) => db.tx(work),
            Backend::Postgres(db) => db.read(work),
        }
    }

    /// Whether other server processes may share the database (their
    /// changes then reach this one as notices, see [`Store::listen`]).
    #[must_use]
    pub fn shared(&self) -> bool {
        matches!(self.db, Backend::Postgres(_))
    }

    /// Whether no other server had the database open when this one opened
    /// it: the games in progress then have had no server meanwhile.
    #[must_use]
    pub fn alone(&self) -> bool {
        match &self.db {
            Backend::Sqlite(_) => true,
            Backend::Postgres(db) => db.alone,
        }
    }

    /// Hands the other processes' notices (`g<id>`: game `id` changed;
    /// `c`: a contest did; `*`: notices may have been missed) to `heard`, on
    /// a thread of its own. Nothing to hear in SQLite.
    pub fn listen(&self, heard: impl Fn(&str) + Send + 'static) {
        if let Backend::Postgres(db) = &self.db {
            db.listen(heard);
        }
    }

    /// The schema version the database is at.
    pub fn version(&self) -> Result<usize, StoreError> {
        self.read(|q| {
            Ok(q.int("SELECT MAX(version) FROM schema_version", &[])?
                .unwrap_or(0) as usize)
        })
    }

    pub fn add_team(&self, name: &str, secret_hash: &str, now_ms: i64) -> Result<(), StoreError> {
        self.tx(|q| {
            refuse_taken(q, name)?;
            q.exec(
                "INSERT INTO teams (name, secret_hash, created_ms) VALUES ($1, $2, $3)",
                params![name, secret_hash, now_ms],
            )?;
            Ok(())
        })
    }

    pub fn secret_hash(&self, team: &str) -> Result<Option<String>, StoreError> {
        self.read(|q| {
            q.row(
                "SELECT secret_hash FROM teams WHERE name = $1",
                params![team],
            )?
            .map(|r| r.text(0))
            .transpose()
        })
    }

    /// Makes a game between `black` and `white`, each side given
    /// `setup_ms` to show up (see [`GameRow::setup_until_ms`]).
    pub fn create_game(
        &self,
        black: &str,
        white: &str,
        move_time_ms: i64,
        setup_ms: i64,
        now_ms: i64,
    ) -> Result<i64, StoreError> {
        self.tx(|q| {
            let [bp, wp] = [programs::active(q, black)?, programs::active(q, white)?];
            let until = (setup_ms > 0).then_some(now_ms + setup_ms);
            let id = q
                .int(
                    "INSERT INTO games (black, white, move_time_ms, turn_since_ms, created_ms,
                                        black_program, white_program, setup_ms,
                                        black_setup_until_ms, white_setup_until_ms)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9) RETURNING id",
                    params![
                        black,
                        white,
                        move_time_ms,
                        until.unwrap_or(now_ms),
                        now_ms,
                        bp,
                        wp,
                        setup_ms,
                        until
                    ],
                )?
                .ok_or_else(|| StoreError::Other("no id for the new game".into()))?;
            add_seats(q, id, black, white)?;
            Ok(id)
        })
    }

    pub fn game(&self, id: i64) -> Result<Option<GameRow>, StoreError> {
        self.read(|q| game(q, id))
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
        let played = self.tx(|q| {
            check_next(q, id, ply)?;
            q.exec(
                "INSERT INTO moves (game, ply, square, played_ms) VALUES ($1, $2, $3, $4)",
                params![id, ply, square, now_ms],
            )?;
            // The next side's clock starts now, or once its setup
            // allowance is over if it has not shown up yet.
            // (One statement, no read: this is every move's path.)
            let column = SETUP_UNTIL[(ply + 1) % 2];
            q.exec(
                &format!(
                    "UPDATE games SET ending = $3,
                     turn_since_ms = CASE WHEN {column} > $2 THEN {column} ELSE $2 END
                     WHERE id = $1"
                ),
                params![id, now_ms, ending],
            )?;
            if ending.is_some() {
                q.exec("DELETE FROM seats WHERE game = $1", params![id])?;
            }
            q.notify(&format!("g{id}"))
        });
        // Another process stored that ply first.
        match played {
            Err(StoreError::Exists) => Err(StoreError::Stale),
            other => other,
        }
    }

    /// Side `side` of game `id` has shown up (its bot asked for the game,
    /// its program said OK) at `now_ms`: if it is to move and its clock
    /// waited on its setup allowance, the clock starts now.
    pub fn show_up(&self, id: i64, side: usize, now_ms: i64) -> Result<(), StoreError> {
        let column = SETUP_UNTIL[side % 2];
        self.tx(|q| {
            q.exec(
                &format!("UPDATE games SET {column} = NULL WHERE id = $1"),
                params![id],
            )?;
            q.exec(
                "UPDATE games SET turn_since_ms = $2 WHERE id = $1 AND ending IS NULL
                 AND turn_since_ms > $2
                 AND (SELECT COUNT(*) FROM moves WHERE moves.game = $1) % 2 = $3",
                params![id, now_ms, side],
            )?;
            Ok(())
        })
    }

    /// Opens a session, known by `token_hash`, for `team` (`None`: the
    /// organiser) until `expires_ms`; sessions that have expired go.
    pub fn add_session(
        &self,
        token_hash: &str,
        team: Option<&str>,
        now_ms: i64,
        expires_ms: i64,
    ) -> Result<(), StoreError> {
        self.tx(|q| {
            q.exec(
                "DELETE FROM sessions WHERE expires_ms < $1",
                params![now_ms],
            )?;
            q.exec(
                "INSERT INTO sessions (token_hash, team, expires_ms) VALUES ($1, $2, $3)",
                params![token_hash, team, expires_ms],
            )?;
            Ok(())
        })
    }

    /// Whose session `token_hash` is, while it lasts: `Some(None)` the
    /// organiser's.
    pub fn session(
        &self,
        token_hash: &str,
        now_ms: i64,
    ) -> Result<Option<Option<String>>, StoreError> {
        self.read(|q| {
            q.row(
                "SELECT team FROM sessions WHERE token_hash = $1 AND expires_ms >= $2",
                params![token_hash, now_ms],
            )?
            .map(|r| r.opt_text(0))
            .transpose()
        })
    }

    /// Ends session `token_hash`.
    pub fn end_session(&self, token_hash: &str) -> Result<(), StoreError> {
        self.tx(|q| {
            q.exec(
                "DELETE FROM sessions WHERE token_hash = $1",
                params![token_hash],
            )?;
            Ok(())
        })
    }

    /// Ends game `id` at ply `ply` without a move: `loser` (`black`,
    /// `white` or `both`) forfeits.
    pub fn end(&self, id: i64, ply: usize, loser: &str, ending: &str) -> Result<(), StoreError> {
        self.tx(|q| {
            check_next(q, id, ply)?;
            q.exec(
                "UPDATE games SET ending = $2, forfeit = $3 WHERE id = $1",
                params![id, ending, loser],
            )?;
            q.exec("DELETE FROM seats WHERE game = $1", params![id])?;
            q.notify(&format!("g{id}"))
        })
    }

    /// Registers a hosted program: a team the server plays itself, with
    /// the organiser's `command`; it has no secret (nobody plays it remotely).
    pub fn add_hosted(&self, name: &str, command: &str, now_ms: i64) -> Result<(), StoreError> {
        self.tx(|q| {
            refuse_taken(q, name)?;
            q.exec(
                "INSERT INTO teams (name, secret_hash, command, created_ms) VALUES ($1, '', $2, $3)",
                params![name, command, now_ms],
            )?;
            Ok(())
        })
    }

    /// Adds `text` to what side `side` (0 black, 1 white) of game `game`
    /// wrote to stderr, keeping the last [`LOG_KEPT`] bytes.
    pub fn add_log(&self, game: i64, side: usize, text: &str) -> Result<(), StoreError> {
        if text.is_empty() {
            return Ok(());
        }
        self.tx(|q| {
            let before = q
                .row(
                    "SELECT text FROM logs WHERE game = $1 AND side = $2",
                    params![game, side as i64],
                )?
                .map(|r| r.text(0))
                .transpose()?
                .unwrap_or_default();
            let mut all = before + text;
            if all.len() > LOG_KEPT {
                let mut cut = all.len() - LOG_KEPT;
                while !all.is_char_boundary(cut) {
                    cut += 1;
                }
                all.drain(..cut);
            }
            q.exec(
                "INSERT INTO logs (game, side, text) VALUES ($1, $2, $3) \
                 ON CONFLICT (game, side) DO UPDATE SET text = excluded.text",
                params![game, side as i64, &all],
            )?;
            Ok(())
        })
    }

    /// What side `side` of game `game` wrote to stderr, if it was hosted.
    pub fn log(&self, game: i64, side: usize) -> Result<Option<String>, StoreError> {
        self.read(|q| {
            q.row(
                "SELECT text FROM logs WHERE game = $1 AND side = $2",
                params![game, side as i64],
            )?
            .map(|r| r.text(0))
            .transpose()
        })
    }

    /// A team's hosted command, `None` for a remote bot (or no such team).
    pub fn command_of(&self, team: &str) -> Result<Option<String>, StoreError> {
        self.read(|q| {
            Ok(
                q.row("SELECT command FROM teams WHERE name = $1", params![team])?
                    .map(|r| r.opt_text(0))
                    .transpose()?
                    .flatten(),
            )
        })
    }

    /// Whether team `name` exists.
    pub fn has_team(&self, name: &str) -> Result<bool, StoreError> {
        self.read(|q| {
            Ok(
                q.row("SELECT name FROM teams WHERE name = $1", params![name])?
                    .is_some(),
            )
        })
    }

    /// Creates a contest and its entrants (taken in at game 0), running,
    /// held by `holder` for its lease (until `lease_until_ms`).
    pub fn create_contest(
        &self,
        contest: &ContestRow,
        entrants: &[String],
        holder: &str,
        lease_until_ms: i64,
        now_ms: i64,
    ) -> Result<i64, StoreError> {
        self.tx(|q| {
            let id = q
                .int(
                    "INSERT INTO contests (name, format, games, per_pair, move_time_ms, seed,
                                           openings, state, created_ms, holder, lease_until_ms,
                                           start_at_ms, setup_ms)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, 'waiting', $8, $9, $10, $11, $12)
                     RETURNING id",
                    params![
                        &contest.name,
                        &contest.format,
                        contest.games,
                        contest.per_pair,
                        contest.move_time_ms,
                        contest.seed,
                        &contest.openings,
                        now_ms,
                        holder,
                        lease_until_ms,
                        contest.start_at_ms,
                        contest.setup_ms
                    ],
                )?
                .ok_or_else(|| StoreError::Other("no id for the new contest".into()))?;
            for (position, team) in entrants.iter().enumerate() {
                q.exec(
                    "INSERT INTO entrants (contest, position, team, admitted_at)
                     VALUES ($1, $2, $3, 0)",
                    params![id, position, team],
                )?;
            }
            q.notify("c")?;
            Ok(id)
        })
    }

    /// Adds `team` to contest `id` (an Elo pool takes it in at its next round).
    pub fn add_entrant(&self, id: i64, team: &str) -> Result<(), StoreError> {
        self.tx(|q| {
            // The contest's row locked: two entrants never take one place.
            q.row(
                &format!(
                    "SELECT id FROM contests WHERE id = $1{}",
                    q.dialect().lock_rows()
                ),
                params![id],
            )?;
            let next = q
                .int(
                    "SELECT COALESCE(MAX(position) + 1, 0) FROM entrants WHERE contest = $1",
                    params![id],
                )?
                .unwrap_or(0);
            q.exec(
                "INSERT INTO entrants (contest, position, team) VALUES ($1, $2, $3)",
                params![id, next, team],
            )?;
            q.notify("c")
        })
    }

    /// Takes in, at game `seq`, contest `id`'s entrants not yet taken in.
    pub fn admit_entrants(&self, id: i64, seq: i64) -> Result<(), StoreError> {
        self.tx(|q| {
            q.exec(
                "UPDATE entrants SET admitted_at = $2 WHERE contest = $1 AND admitted_at IS NULL",
                params![id, seq],
            )?;
            Ok(())
        })
    }

    pub fn contest(&self, id: i64) -> Result<Option<ContestRow>, StoreError> {
        self.read(|q| {
            q.row(
                "SELECT id, name, format, games, per_pair, move_time_ms, seed, openings, state,
                        standings, bracket, start_at_ms, setup_ms FROM contests WHERE id = $1",
                params![id],
            )?
            .map(|r| {
                Ok(ContestRow {
                    id: r.int(0)?,
                    name: r.text(1)?,
                    format: r.text(2)?,
                    games: r.int(3)?,
                    per_pair: r.int(4)?,
                    move_time_ms: r.int(5)?,
                    seed: r.int(6)?,
                    openings: r.text(7)?,
                    state: r.text(8)?,
                    standings: r.opt_text(9)?,
                    bracket: r.opt_text(10)?,
                    start_at_ms: r.opt_int(11)?,
                    setup_ms: r.int(12)?,
                })
            })
            .transpose()
        })
    }

    /// Contest `id`'s entrants, in order of entry.
    pub fn entrants(&self, id: i64) -> Result<Vec<EntrantRow>, StoreError> {
        self.read(|q| {
            q.rows(
                "SELECT team, admitted_at, seen_ms FROM entrants WHERE contest = $1
                 ORDER BY position",
                params![id],
            )?
            .iter()
            .map(|r| {
                Ok(EntrantRow {
                    team: r.text(0)?,
                    admitted_at: r.opt_int(1)?,
                    seen_ms: r.opt_int(2)?,
                })
            })
            .collect()
        })
    }

    /// The contests, newest first: id, name, format, state.
    pub fn contests(&self) -> Result<Vec<(i64, String, String, String)>, StoreError> {
        self.read(|q| {
            q.rows(
                "SELECT id, name, format, state FROM contests ORDER BY id DESC",
                &[],
            )?
            .iter()
            .map(|r| Ok((r.int(0)?, r.text(1)?, r.text(2)?, r.text(3)?)))
            .collect()
        })
    }

    /// Moves contest `id` from state `from` to `to` (`waiting` to
    /// `running`, `running` to `paused` and back); whether it was in
    /// `from`.
    pub fn set_contest_state(&self, id: i64, from: &str, to: &str) -> Result<bool, StoreError> {
        self.tx(|q| {
            let changed = q.exec(
                "UPDATE contests SET state = $3 WHERE id = $1 AND state = $2",
                params![id, from, to],
            )?;
            q.notify("c")?;
            Ok(changed == 1)
        })
    }

    /// `team`'s ratings in each Elo pool it played in, oldest contest
    /// first: the contest's id and name, and (games played, rating) points.
    pub fn rating_history(&self, team: &str) -> Result<Vec<RatingHistory>, StoreError> {
        self.read(|q| {
            let rows = q.rows(
                "SELECT r.contest, c.name, r.seq, r.rating FROM ratings r \
                 JOIN contests c ON c.id = r.contest WHERE r.team = $1 ORDER BY r.contest, r.seq",
                params![team],
            )?;
            let mut out: Vec<RatingHistory> = Vec::new();
            for r in &rows {
                let contest = r.int(0)?;
                if out.last().is_none_or(|h| h.contest != contest) {
                    out.push(RatingHistory {
                        contest,
                        name: r.text(1)?,
                        points: Vec::new(),
                    });
                }
                out.last_mut()
                    .expect("pushed")
                    .points
                    .push((r.int(2)?, r.int(3)?));
            }
            Ok(out)
        })
    }

    /// `team` is connected at `now_ms` (over GGS), waiting on every
    /// contest it is in that has not finished.
    pub fn seen_everywhere(&self, team: &str, now_ms: i64) -> Result<(), StoreError> {
        self.tx(|q| {
            q.exec(
                "UPDATE entrants SET seen_ms = $2 WHERE team = $1 AND contest IN \
                 (SELECT id FROM contests WHERE state <> 'finished')",
                params![team, now_ms],
            )?;
            Ok(())
        })
    }

    /// `team`'s bot is waiting on contest `id` at `now_ms`.
    pub fn seen(&self, id: i64, team: &str, now_ms: i64) -> Result<(), StoreError> {
        self.tx(|q| {
            q.exec(
                "UPDATE entrants SET seen_ms = $3 WHERE contest = $1 AND team = $2",
                params![id, team, now_ms],
            )?;
            Ok(())
        })
    }

    /// Stores contest `id`'s standings so far (and its bracket), finished or
    /// not, and an Elo pool's `ratings` after its first `seq` games.
    pub fn save_standings(
        &self,
        id: i64,
        standings: &str,
        bracket: Option<&str>,
        ratings: Option<(i64, &[(String, i64)])>,
        finished: bool,
    ) -> Result<(), StoreError> {
        self.tx(|q| {
            q.exec(
                "UPDATE contests SET standings = $2, bracket = COALESCE($3, bracket) WHERE id = $1",
                params![id, standings, bracket],
            )?;
            // A contest taken over replays its games and saves the same
            // points again.
            for (team, rating) in ratings.map_or(&[][..], |(_, r)| r) {
                let seq = ratings.map_or(0, |(seq, _)| seq);
                q.exec(
                    "INSERT INTO ratings (contest, team, seq, rating) VALUES ($1, $2, $3, $4) \
                     ON CONFLICT (contest, team, seq) DO NOTHING",
                    params![id, team.as_str(), seq, *rating],
                )?;
            }
            if finished {
                q.exec(
                    "UPDATE contests SET state = 'finished' WHERE id = $1",
                    params![id],
                )?;
            }
            q.notify("c")
        })
    }

    /// Game number `seq` of contest `id`, if it has been made.
    pub fn contest_game(&self, id: i64, seq: i64) -> Result<Option<i64>, StoreError> {
        self.read(|q| {
            q.int(
                "SELECT id FROM games WHERE contest = $1 AND seq = $2",
                params![id, seq],
            )
        })
    }

    /// Contest `id`'s `latest` games, in the order the contest made them,
    /// and how many it has made in all.
    pub fn contest_games(
        &self,
        id: i64,
        latest: usize,
    ) -> Result<(Vec<GameRow>, usize), StoreError> {
        self.read(|q| {
            let count = q
                .int("SELECT COUNT(*) FROM games WHERE contest = $1", params![id])?
                .unwrap_or(0);
            let ids = q.ints(
                "SELECT id FROM (SELECT id, seq FROM games WHERE contest = $1
                 ORDER BY seq DESC LIMIT $2) AS latest ORDER BY seq",
                params![id, latest],
            )?;
            Ok((games(q, ids)?, count as usize))
        })
    }

    /// `team`'s first game of contest `id` not yet ended.
    pub fn next_game_of(&self, id: i64, team: &str) -> Result<Option<i64>, StoreError> {
        self.read(|q| {
            q.int(
                "SELECT id FROM games WHERE contest = $1 AND ending IS NULL
                 AND (black = $2 OR white = $2) ORDER BY seq LIMIT 1",
                params![id, team],
            )
        })
    }

    /// Makes game number `seq` of contest `id` (or finds it made), its
    /// `opening` moves (passes `None`) stored as its first moves; returns
    /// the game, or `None` while the contest is paused and the game is not
    /// made (the state is read under the contest's row lock, so no game
    /// starts after a pause has been acknowledged).
    #[allow(clippy::too_many_arguments)]
    pub fn make_contest_game(
        &self,
        id: i64,
        seq: i64,
        black: &str,
        white: &str,
        move_time_ms: i64,
        setup_ms: i64,
        opening: &[Option<String>],
        now_ms: i64,
    ) -> Result<Option<i64>, StoreError> {
        let find = |q: &mut dyn Sql| {
            q.int(
                "SELECT id FROM games WHERE contest = $1 AND seq = $2",
                params![id, seq],
            )
        };
        let made = self.tx(|q| {
            if let Some(game) = find(q)? {
                return Ok(Some(game));
            }
            let state = q
                .row(
                    &format!(
                        "SELECT state FROM contests WHERE id = $1{}",
                        q.dialect().lock_rows()
                    ),
                    params![id],
                )?
                .map(|r| r.text(0))
                .transpose()?;
            if state.as_deref() != Some("running") {
                return Ok(None);
            }
            let [bp, wp] = [programs::active(q, black)?, programs::active(q, white)?];
            let until = (setup_ms > 0).then_some(now_ms + setup_ms);
            let game = q
                .int(
                    "INSERT INTO games (black, white, move_time_ms, turn_since_ms, created_ms,
                                        contest, seq, opening_plies, black_program, white_program,
                                        setup_ms, black_setup_until_ms, white_setup_until_ms)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12) RETURNING id",
                    params![
                        black,
                        white,
                        move_time_ms,
                        until.unwrap_or(now_ms),
                        now_ms,
                        id,
                        seq,
                        opening.len(),
                        bp,
                        wp,
                        setup_ms,
                        until
                    ],
                )?
                .ok_or_else(|| StoreError::Other("no id for the new game".into()))?;
            for (ply, square) in opening.iter().enumerate() {
                q.exec(
                    "INSERT INTO moves (game, ply, square, played_ms) VALUES ($1, $2, $3, $4)",
                    params![game, ply, square.as_deref(), now_ms],
                )?;
            }
            add_seats(q, game, black, white)?;
            q.notify("c")?;
            Ok(Some(game))
        });
        match made {
            // Another process made it first.
            Err(StoreError::Exists) => self
                .tx(find)?
                .map(Some)
                .ok_or_else(|| StoreError::Other(format!("contest {id}: game {seq} is lost"))),
            other => other,
        }
    }

    /// The `limit` newest games, newest first.
    pub fn recent_games(&self, limit: usize) -> Result<Vec<GameRow>, StoreError> {
        self.read(|q| {
            let ids = q.ints(
                "SELECT id FROM games ORDER BY id DESC LIMIT $1",
                params![limit],
            )?;
            games(q, ids)
        })
    }

    /// The oldest finished game not analysed yet.
    pub fn unanalysed(&self) -> Result<Option<GameRow>, StoreError> {
        self.read(|q| {
            let id = q.int(
                "SELECT id FROM games WHERE ending IS NOT NULL
                 AND NOT EXISTS (SELECT 1 FROM analyses WHERE analyses.game = games.id)
                 ORDER BY id LIMIT 1",
                &[],
            )?;
            id.map_or(Ok(None), |id| game(q, id))
        })
    }

    /// Keeps game `id`'s analysis, unless one is kept already.
    pub fn add_analysis(&self, id: i64, moves: &str) -> Result<(), StoreError> {
        self.tx(|q| {
            q.exec(
                "INSERT INTO analyses (game, moves) VALUES ($1, $2) ON CONFLICT DO NOTHING",
                params![id, moves],
            )?;
            Ok(())
        })
    }

    /// Game `id`'s analysis, once made.
    pub fn analysis(&self, id: i64) -> Result<Option<String>, StoreError> {
        self.read(|q| {
            q.row("SELECT moves FROM analyses WHERE game = $1", params![id])?
                .map(|r| r.text(0))
                .transpose()
        })
    }

    /// `team`'s `limit` newest games, newest first.
    pub fn games_of(&self, team: &str, limit: usize) -> Result<Vec<GameRow>, StoreError> {
        self.read(|q| {
            let ids = q.ints(
                "SELECT id FROM games WHERE black = $1 OR white = $1 ORDER BY id DESC LIMIT $2",
                params![team, limit],
            )?;
            games(q, ids)
        })
    }

    /// The games in progress whose side to move has let its time run out
    /// by `now_ms` (the sweep's question, asked 20 times a second: only
    /// those games are read). A hosted side to move is judged only by its
    /// seat's holder, `holder` here, while its lease runs: another process
    /// cannot tell a slow program from a dead server, and the process that
    /// takes a lapsed seat over starts its clock again.
    pub fn late_games(&self, now_ms: i64, holder: &str) -> Result<Vec<i64>, StoreError> {
        self.read(|q| {
            q.ints(
                "SELECT id FROM games WHERE ending IS NULL AND turn_since_ms + move_time_ms < $1
                 AND NOT EXISTS (
                     SELECT 1 FROM seats WHERE seats.game = games.id
                     AND seats.side = (SELECT COUNT(*) FROM moves WHERE moves.game = games.id) % 2
                     AND (seats.holder IS NULL OR seats.holder != $2
                          OR seats.lease_until_ms < $1))",
                params![now_ms, holder],
            )
        })
    }

    /// After a start with no other server about: every game in progress
    /// offers its turn anew from `now_ms`, so that no player loses on time
    /// for the servers' absence, and every lease is let go, so that the
    /// work is taken up at once.
    /// Offers game `id`'s turn anew from `now_ms`, if it goes on (after
    /// the store failed to take its move); `false` if it has ended.
    pub fn restart_turn(&self, id: i64, now_ms: i64) -> Result<bool, StoreError> {
        self.tx(|q| {
            let changed = q.exec(
                "UPDATE games SET turn_since_ms = $2 WHERE id = $1 AND ending IS NULL",
                params![id, now_ms],
            )?;
            q.notify(&format!("g{id}"))?;
            Ok(changed > 0)
        })
    }

    pub fn restart_clocks(&self, now_ms: i64) -> Result<usize, StoreError> {
        self.tx(|q| {
            q.exec("UPDATE seats SET holder = NULL, lease_until_ms = 0", &[])?;
            q.exec(
                "UPDATE contests SET holder = NULL, lease_until_ms = 0
                 WHERE state != 'finished'",
                &[],
            )?;
            Ok(q.exec(
                "UPDATE games SET turn_since_ms = $1 WHERE ending IS NULL",
                params![now_ms],
            )? as usize)
        })
    }

    /// Claims for `holder`, until `until_ms`, up to `most` hosted seats of
    /// games in progress whose lease has lapsed by `now_ms` (never one
    /// another process is claiming); returns them as (game, side).
    pub fn claim_seats(
        &self,
        holder: &str,
        now_ms: i64,
        until_ms: i64,
        most: usize,
    ) -> Result<Vec<(i64, usize)>, StoreError> {
        self.tx(|q| {
            let lapsed = q.rows(
                &format!(
                    "SELECT game, side FROM seats WHERE lease_until_ms < $1
                     ORDER BY game, side LIMIT $2{}",
                    q.dialect().claim_rows()
                ),
                params![now_ms, most],
            )?;
            let mut claimed = Vec::with_capacity(lapsed.len());
            for r in &lapsed {
                let (game, side) = (r.int(0)?, r.int(1)?);
                take_seat(q, game, side, holder, now_ms, until_ms)?;
                claimed.push((game, side as usize));
            }
            Ok(claimed)
        })
    }

    /// Claims hosted seat (`game`, `side`) for `holder` until `until_ms`,
    /// if it is free (its lease lapsed by `now_ms`) or `holder`'s already;
    /// whether it is `holder`'s now.
    pub fn claim_seat(
        &self,
        game: i64,
        side: usize,
        holder: &str,
        now_ms: i64,
        until_ms: i64,
    ) -> Result<bool, StoreError> {
        self.tx(|q| {
            let free = q.row(
                &format!(
                    "SELECT game FROM seats WHERE game = $1 AND side = $2
                     AND (holder = $3 OR lease_until_ms < $4){}",
                    q.dialect().lock_rows()
                ),
                params![game, side, holder, now_ms],
            )?;
            if free.is_none() {
                return Ok(false);
            }
            take_seat(q, game, side as i64, holder, now_ms, until_ms)?;
            Ok(true)
        })
    }

    /// Lets go hosted seat (`game`, `side`), which `holder` claimed and
    /// will not play now (no judge slot is free): free to claim at once.
    pub fn release_seat(&self, game: i64, side: usize, holder: &str) -> Result<(), StoreError> {
        self.tx(|q| {
            q.exec(
                "UPDATE seats SET holder = NULL, lease_until_ms = 0
                 WHERE game = $1 AND side = $2 AND holder = $3",
                params![game, side, holder],
            )?;
            Ok(())
        })
    }

    /// Claims for `holder`, until `until_ms`, the contests not finished
    /// whose lease has lapsed by `now_ms` (never one another process is
    /// claiming).
    pub fn claim_contests(
        &self,
        holder: &str,
        now_ms: i64,
        until_ms: i64,
    ) -> Result<Vec<i64>, StoreError> {
        self.tx(|q| {
            let ids = q.ints(
                &format!(
                    "SELECT id FROM contests WHERE state != 'finished' AND lease_until_ms < $1
                     ORDER BY id{}",
                    q.dialect().claim_rows()
                ),
                params![now_ms],
            )?;
            for &id in &ids {
                q.exec(
                    "UPDATE contests SET holder = $2, lease_until_ms = $3 WHERE id = $1",
                    params![id, holder, until_ms],
                )?;
            }
            Ok(ids)
        })
    }

    /// Renews, until `until_ms`, `holder`'s leases on `seats` and
    /// `contests` (the work it still does); returns those it no longer
    /// held (another process took them over).
    pub fn renew(
        &self,
        holder: &str,
        seats: &[(i64, usize)],
        contests: &[i64],
        programs: &[i64],
        until_ms: i64,
    ) -> Result<Lost, StoreError> {
        self.tx(|q| {
            let mut lost_seats = Vec::new();
            for &(game, side) in seats {
                let renewed = q.exec(
                    "UPDATE seats SET lease_until_ms = $4
                     WHERE game = $1 AND side = $2 AND holder = $3",
                    params![game, side, holder, until_ms],
                )?;
                if renewed == 0 {
                    lost_seats.push((game, side));
                }
            }
            let mut lost_contests = Vec::new();
            for &id in contests {
                let renewed = q.exec(
                    "UPDATE contests SET lease_until_ms = $3 WHERE id = $1 AND holder = $2",
                    params![id, holder, until_ms],
                )?;
                if renewed == 0 {
                    lost_contests.push(id);
                }
            }
            let mut lost_programs = Vec::new();
            for &id in programs {
                let renewed = q.exec(
                    "UPDATE programs SET lease_until_ms = $3 WHERE id = $1 AND holder = $2",
                    params![id, holder, until_ms],
                )?;
                if renewed == 0 {
                    lost_programs.push(id);
                }
            }
            Ok(Lost {
                seats: lost_seats,
                contests: lost_contests,
                programs: lost_programs,
            })
        })
    }
}

/// Game `id` with its moves.
fn game(q: &mut dyn Sql, id: i64) -> Result<Option<GameRow>, StoreError> {
    let Some(r) = q.row(
        &format!("SELECT {GAME_COLUMNS} FROM games WHERE id = $1"),
        params![id],
    )?
    else {
        return Ok(None);
    };
    let mut row = game_row(&r)?;
    row.moves = q
        .rows(
            "SELECT square FROM moves WHERE game = $1 ORDER BY ply",
            params![id],
        )?
        .iter()
        .map(|r| r.opt_text(0))
        .collect::<Result<_, _>>()?;
    Ok(Some(row))
}

/// The games of `ids` (those that exist), in that order.
fn games(q: &mut dyn Sql, ids: Vec<i64>) -> Result<Vec<GameRow>, StoreError> {
    let mut games = Vec::with_capacity(ids.len());
    for id in ids {
        if let Some(game) = game(q, id)? {
            games.push(game);
        }
    }
    Ok(games)
}

/// A seat for each hosted side of new game `id` (a registered command, or
/// a submitted program), free to claim.
fn add_seats(q: &mut dyn Sql, id: i64, black: &str, white: &str) -> Result<(), StoreError> {
    for (side, (team, column)) in [(black, "black_program"), (white, "white_program")]
        .into_iter()
        .enumerate()
    {
        q.exec(
            &format!(
                "INSERT INTO seats (game, side, lease_until_ms)
                 SELECT CAST($1 AS BIGINT), CAST($2 AS BIGINT), 0 FROM teams, games
                 WHERE teams.name = $3 AND games.id = $1
                 AND (teams.command IS NOT NULL OR games.{column} IS NOT NULL)"
            ),
            params![id, side, team],
        )?;
    }
    Ok(())
}

/// Gives seat (`game`, `side`) to `holder`. Its program starts now, with
/// the game's setup allowance to show up in; when it is that side's turn,
/// its clock starts after that allowance: nobody played it while the seat
/// was free.
fn take_seat(
    q: &mut dyn Sql,
    game: i64,
    side: i64,
    holder: &str,
    now_ms: i64,
    until_ms: i64,
) -> Result<(), StoreError> {
    q.exec(
        "UPDATE seats SET holder = $3, lease_until_ms = $4 WHERE game = $1 AND side = $2",
        params![game, side, holder, until_ms],
    )?;
    let column = SETUP_UNTIL[(side % 2) as usize];
    q.exec(
        &format!(
            "UPDATE games SET {column} = CASE WHEN setup_ms > 0 THEN $2 + setup_ms END
             WHERE id = $1"
        ),
        params![game, now_ms],
    )?;
    q.exec(
        "UPDATE games SET turn_since_ms = $3 + setup_ms WHERE id = $1 AND ending IS NULL
         AND (SELECT COUNT(*) FROM moves WHERE moves.game = $1) % 2 = $2",
        params![game, side, now_ms],
    )?;
    Ok(())
}

/// Each side's setup column, black's then white's.
const SETUP_UNTIL: [&str; 2] = ["black_setup_until_ms", "white_setup_until_ms"];

/// Refuses as stale unless game `id` has exactly `ply` moves and goes on;
/// locks the game's row (in PostgreSQL) for the rest of the transaction,
/// so that two processes never both store its next ply.
fn check_next(q: &mut dyn Sql, id: i64, ply: usize) -> Result<(), StoreError> {
    let lock = q.dialect().lock_rows();
    let Some(r) = q.row(
        &format!("SELECT ending FROM games WHERE id = $1{lock}"),
        params![id],
    )?
    else {
        return Err(StoreError::Stale);
    };
    let count = q
        .int("SELECT COUNT(*) FROM moves WHERE game = $1", params![id])?
        .unwrap_or(0);
    if count != ply as i64 || r.opt_text(0)?.is_some() {
        return Err(StoreError::Stale);
    }
    Ok(())
}
