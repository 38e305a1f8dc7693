//! The schema, as migrations: each runs once, in order, and a database at
//! version N has run the first N. Written in SQLite's types; PostgreSQL
//! runs the same migrations in its own ([`for_postgres`]), so that the
//! same version is the same schema in both.

/// The migrations, in order.
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
    // 3: work any server process may take on, each held for a lease: a
    // contest to run, a hosted side of a game in progress to play.
    "CREATE TABLE seats (
        game INTEGER NOT NULL REFERENCES games(id),
        side INTEGER NOT NULL,
        holder TEXT,
        lease_until_ms INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (game, side)
    );
    INSERT INTO seats (game, side)
        SELECT g.id, 0 FROM games g JOIN teams t ON t.name = g.black
        WHERE t.command IS NOT NULL AND g.ending IS NULL;
    INSERT INTO seats (game, side)
        SELECT g.id, 1 FROM games g JOIN teams t ON t.name = g.white
        WHERE t.command IS NOT NULL AND g.ending IS NULL;
    ALTER TABLE contests ADD COLUMN holder TEXT;
    ALTER TABLE contests ADD COLUMN lease_until_ms INTEGER NOT NULL DEFAULT 0;",
    // 4: what a hosted program wrote to stderr in a game, kept for the
    // organiser and the program's team (the public ending never quotes it).
    "CREATE TABLE logs (
        game INTEGER NOT NULL REFERENCES games(id),
        side INTEGER NOT NULL,
        text TEXT NOT NULL,
        PRIMARY KEY (game, side)
    );",
    // 5: the online judge. Teams' submitted programs, each built once (by
    // whichever server process claimed it, for a lease) and kept here, so
    // that any process runs it; the program each side of a game ran; and
    // when an Elo pool took in a team's new version, so that a rerun
    // takes it in at the same point.
    "CREATE TABLE programs (
        id INTEGER PRIMARY KEY,
        team TEXT NOT NULL REFERENCES teams(name),
        language TEXT NOT NULL,
        source TEXT NOT NULL,
        state TEXT NOT NULL,
        compile_log TEXT NOT NULL DEFAULT '',
        reason TEXT NOT NULL DEFAULT '',
        check_log TEXT NOT NULL DEFAULT '',
        built BLOB,
        builds INTEGER NOT NULL DEFAULT 0,
        holder TEXT,
        lease_until_ms INTEGER NOT NULL DEFAULT 0,
        created_ms INTEGER NOT NULL,
        active_ms INTEGER
    );
    CREATE INDEX programs_of_teams ON programs(team, id);
    CREATE INDEX programs_to_judge ON programs(id) WHERE state IN ('queued', 'compiling', 'checking');
    ALTER TABLE games ADD COLUMN black_program INTEGER REFERENCES programs(id);
    ALTER TABLE games ADD COLUMN white_program INTEGER REFERENCES programs(id);
    CREATE TABLE renewals (
        contest INTEGER NOT NULL REFERENCES contests(id),
        seq INTEGER NOT NULL,
        team TEXT NOT NULL REFERENCES teams(name),
        program INTEGER NOT NULL,
        PRIMARY KEY (contest, seq, team)
    );",
    // 6: a contest starts when its organiser says so (or at its start
    // time); a side's clock waits for it to show up, up to its setup
    // allowance; an entrant's bot last seen waiting on its contest.
    "ALTER TABLE contests ADD COLUMN start_at_ms INTEGER;
    ALTER TABLE contests ADD COLUMN setup_ms INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE games ADD COLUMN setup_ms INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE games ADD COLUMN black_setup_until_ms INTEGER;
    ALTER TABLE games ADD COLUMN white_setup_until_ms INTEGER;
    ALTER TABLE entrants ADD COLUMN seen_ms INTEGER;",
    // 7: the pages' logins: a session's token is kept only as its hash;
    // `team` NULL is the organiser's.
    "CREATE TABLE sessions (
        token_hash TEXT PRIMARY KEY,
        team TEXT REFERENCES teams(name),
        expires_ms INTEGER NOT NULL
    );",
    // 8: each finished game's analysis (what each move cost its player),
    // as JSON.
    "CREATE TABLE analyses (
        game INTEGER PRIMARY KEY REFERENCES games(id),
        moves TEXT NOT NULL
    );",
    // 9: an Elo pool's ratings as they went, rounded: each entrant's
    // after the pool's first `seq` games.
    "CREATE TABLE ratings (
        contest INTEGER NOT NULL REFERENCES contests(id),
        team TEXT NOT NULL,
        seq INTEGER NOT NULL,
        rating INTEGER NOT NULL,
        PRIMARY KEY (contest, team, seq)
    );",
];

/// Migration `sql` in PostgreSQL's types: 64-bit integers, ids from a
/// sequence where SQLite's come from the row id, and bytes.
#[must_use]
pub fn for_postgres(sql: &str) -> String {
    sql.replace("INTEGER PRIMARY KEY", "BIGSERIAL PRIMARY KEY")
        .replace("INTEGER", "BIGINT")
        .replace("BLOB", "BYTEA")
}
