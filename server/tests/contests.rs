//! Contests on the server: a knockout of remote and hosted players that
//! comes out as `reversi tournament` does, an Elo pool that takes in a new
//! entrant first and holds while paused, every way to lose a game on a
//! technicality, and a knockout that survives a kill -9.

use crate::remote::{
    call, check_finished, chromium, game, reversi_bin, scratch, wait_ok, Server, TOKEN,
};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A server for several bots on this one address: its per-address rate
/// limit (meant for a class's machines, one bot each) is lifted, as an
/// organiser would for bots that share a machine.
pub fn start(db: impl AsRef<std::ffi::OsStr>, addr: &str) -> Server {
    Server::start_with(db, addr, &["--rate", "0"])
}

pub fn openings_file() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/openings/xot-8.txt")
}

pub fn admin(s: &Server, path: &str, body: &Value) -> (u16, Value) {
    let auth = format!("Bearer {TOKEN}");
    call(
        &format!("{}{path}", s.url),
        "POST",
        &[("authorization", &auth)],
        Some(&body.to_string()),
    )
}

/// Creates the contest `body` describes, as the organiser, and starts
/// it; its id.
pub fn new_contest(s: &Server, body: &Value) -> i64 {
    let id = new_waiting_contest(s, body);
    start_contest(s, id);
    id
}

/// Creates the contest `body` describes, as the organiser: it waits to be
/// started. Its id.
pub fn new_waiting_contest(s: &Server, body: &Value) -> i64 {
    let (status, reply) = admin(s, "/api/contests", body);
    assert_eq!(status, 201, "{reply}");
    let id = reply["id"].as_i64().unwrap();
    assert_eq!(contest(s, id)["state"], json!("waiting"));
    id
}

/// Starts waiting contest `id`, as the organiser.
pub fn start_contest(s: &Server, id: i64) {
    let (status, reply) = admin(s, &format!("/api/contests/{id}/start"), &json!({}));
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["state"], json!("running"));
}

/// Registers a hosted program.
pub fn hosted(s: &Server, name: &str, command: &str) {
    let (status, reply) = admin(
        s,
        "/api/teams",
        &json!({ "name": name, "command": command }),
    );
    assert_eq!(status, 201, "{reply}");
}

pub fn contest(s: &Server, id: i64) -> Value {
    call(&format!("{}/api/contests/{id}", s.url), "GET", &[], None).1
}

/// Waits (at most `secs`) until `done` holds of contest `id`.
pub fn wait_for(s: &Server, id: i64, secs: u64, done: impl Fn(&Value) -> bool) -> Value {
    let since = Instant::now();
    loop {
        let c = contest(s, id);
        if done(&c) {
            return c;
        }
        assert!(
            since.elapsed() < Duration::from_secs(secs),
            "waited {secs} s: {c}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `reversi connect --contest` for `team`.
pub fn connect_contest(s: &Server, team: &str, id: i64, program: &str) -> Child {
    let secret = format!("{team}-secret");
    crate::remote::bridge(s, team, &secret, &["--contest", &id.to_string()], program)
}

pub fn register_remote(s: &Server, team: &str) {
    crate::remote::register(s, team, &format!("{team}-secret"));
}

pub fn bot(depth: u32) -> String {
    format!("{} --depth {depth}", reversi_bin().display())
}

/// The page of contest `id` in headless Chromium, after its scripts ran.
pub fn dom(s: &Server, path: &str) -> String {
    let _cores = crate::remote::cores();
    let out = Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--virtual-time-budget=2000",
            "--dump-dom",
        ])
        .arg(format!("{}{path}", s.url))
        .output()
        .expect("chromium runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The standings `reversi tournament` writes for `players` (name, depth)
/// with `flags`, the fixture's openings and (unless `flags` say) 2 jobs.
pub fn tournament(dir: &Path, players: &[(&str, u32)], flags: &[&str]) -> Value {
    let file = dir.join("players.txt");
    let lines: String = players
        .iter()
        .map(|(name, depth)| format!("{name}: {}\n", bot(*depth)))
        .collect();
    std::fs::write(&file, lines).unwrap();
    let out = dir.join("local");
    let status = Command::new(reversi_bin())
        .arg("tournament")
        .args(flags)
        .args(if flags.contains(&"--jobs") {
            &[][..]
        } else {
            &["--jobs", "2"][..]
        })
        .arg("--players")
        .arg(&file)
        .arg("--openings")
        .arg(openings_file())
        .arg("--out")
        .arg(&out)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    serde_json::from_str(&std::fs::read_to_string(out.join("standings.json")).unwrap()).unwrap()
}

#[test]
fn a_knockout_of_remote_and_hosted_players_comes_out_as_reversi_tournament_does() {
    let dir = scratch("knockout");
    let s = start(dir.join("arena.db"), "127.0.0.1:0");
    let remote = [("p1", &s), ("p3", &s), ("p4", &s)];
    let (id, bridges) = start_knockout_of_five(&s, &s, remote, "Knockout of five");
    let (_, local) = knockout_of_five_finishes(&s, id, bridges, &dir);
    // The contest's page: the standings, the bracket, a link a game.
    let page = dom(&s, &format!("/contests/{id}"));
    let winner = local[0]["player"].as_str().unwrap();
    assert!(page.contains("class=\"standings\""), "{page}");
    assert!(page.contains("<svg"), "a bracket: {page}");
    assert!(
        page.contains(&format!("<td>1</td><td>{winner}</td>")),
        "the winner first: {page}"
    );
    assert_eq!(page.matches("<a href=\"/games/").count(), 4, "{page}");
}

/// The knockout of five: one bye a round; each a fixed-depth search, so
/// that the same game is played the same way under the server and under
/// `reversi tournament`.
pub const FIVE: [(&str, u32); 5] = [("p1", 1), ("p2", 2), ("p3", 3), ("p4", 2), ("p5", 1)];

/// Starts the knockout of five named `name` (seed 11, the fixture's
/// openings): p1, p3 and p4 remote bots, each registered with and playing
/// through its server in `remote`; p2 and p5 hosted programs registered
/// through `hosts`; the contest created through `creator`. Its id and the
/// remote bots' bridges.
pub fn start_knockout_of_five(
    hosts: &Server,
    creator: &Server,
    remote: [(&str, &Server); 3],
    name: &str,
) -> (i64, Vec<Child>) {
    for (player, depth) in FIVE {
        match remote.iter().find(|r| r.0 == player) {
            Some((_, s)) => register_remote(s, player),
            None => hosted(hosts, player, &bot(depth)),
        }
    }
    let id = new_contest(
        creator,
        &json!({
            "name": name,
            "format": "knockout",
            "entrants": FIVE.iter().map(|p| p.0).collect::<Vec<_>>(),
            "seed": 11,
            "openings": std::fs::read_to_string(openings_file()).unwrap(),
        }),
    );
    let bridges = remote
        .iter()
        .map(|(player, s)| {
            let depth = FIVE.iter().find(|p| p.0 == *player).unwrap().1;
            connect_contest(s, player, id, &format!("self --depth {depth}"))
        })
        .collect();
    (id, bridges)
}

/// Waits for knockout of five `id` on server `s` to finish and checks it:
/// each remote bot's bridge saw it out, its four games were played to their
/// ends (nobody lost on time), and its standings are those of `reversi
/// tournament` for the same players, seed and openings. The contest and
/// the tournament's standings.
pub fn knockout_of_five_finishes(
    s: &Server,
    id: i64,
    bridges: Vec<Child>,
    dir: &Path,
) -> (Value, Value) {
    let c = wait_for(s, id, 120, |c| c["state"] == json!("finished"));
    for bridge in bridges {
        let out = wait_ok(bridge);
        assert!(out.ends_with(&format!("contest {id}: finished\n")), "{out}");
    }
    let games = c["games"].as_array().unwrap();
    assert_eq!(games.len(), 4, "five players, one bye a round: {c}");
    for g in games {
        let full = game(s, g["id"].as_i64().unwrap());
        assert!(
            full["ending"]
                .as_str()
                .is_some_and(|e| !e.contains("forfeit")),
            "{full}"
        );
        check_finished(&full);
    }
    let local = tournament(dir, &FIVE, &["--format", "knockout", "--seed", "11"]);
    assert_eq!(
        c["standings"], local,
        "the server's standings, then the tournament's"
    );
    (c, local)
}

#[test]
fn a_ladder_comes_out_as_reversi_tournament_does() {
    let dir = scratch("ladder");
    let s = start(dir.join("arena.db"), "127.0.0.1:0");
    let players = [("l1", 1), ("l2", 3), ("l3", 2)];
    for (name, depth) in players {
        hosted(&s, name, &bot(depth));
    }
    let id = new_contest(
        &s,
        &json!({ "name": "Ladder", "format": "ladder", "entrants": ["l1", "l2", "l3"],
                 "games": 2, "per_pair": 2, "seed": 4,
                 "openings": std::fs::read_to_string(openings_file()).unwrap() }),
    );
    let c = wait_for(&s, id, 120, |c| c["state"] == json!("finished"));
    let local = tournament(
        &dir,
        &players,
        &[
            "--format",
            "ladder",
            "--rounds",
            "2",
            "--pair-games",
            "2",
            "--seed",
            "4",
        ],
    );
    assert_eq!(c["standings"], local, "the server's, then the tournament's");
    assert_eq!(
        c["games"].as_array().unwrap().len(),
        8,
        "2 rounds of 2 pairs of 2"
    );
}

#[test]
fn an_elo_pool_of_fixed_length_comes_out_as_reversi_tournament_does() {
    let dir = scratch("elo");
    let s = start(dir.join("arena.db"), "127.0.0.1:0");
    let players = [("e1", 1), ("e2", 2), ("e3", 3), ("e4", 1)];
    for (name, depth) in players {
        hosted(&s, name, &bot(depth));
    }
    let id = new_contest(
        &s,
        &json!({ "name": "Pool of 12", "format": "elo", "entrants": ["e1", "e2", "e3", "e4"],
                 "games": 12, "seed": 9,
                 "openings": std::fs::read_to_string(openings_file()).unwrap() }),
    );
    let c = wait_for(&s, id, 120, |c| c["state"] == json!("finished"));
    // The server plays every pair that may meet at once: as many jobs.
    let local = tournament(
        &dir,
        &players,
        &[
            "--format", "elo", "--games", "12", "--seed", "9", "--jobs", "64",
        ],
    );
    assert_eq!(c["standings"], local, "the server's, then the tournament's");
    assert_eq!(c["games"].as_array().unwrap().len(), 12);
}

#[test]
fn an_elo_pool_of_set_length_stops_where_reversi_tournament_does() {
    let dir = scratch("elo-stop");
    let s = start(dir.join("arena.db"), "127.0.0.1:0");
    // A strong and a weak player: once one leads by two wins and is the
    // higher rated, no pair may meet, and both stop there.
    let players = [("strong", 4), ("weak", 1)];
    for (name, depth) in players {
        hosted(&s, name, &bot(depth));
    }
    let id = new_contest(
        &s,
        &json!({ "name": "Short pool", "format": "elo", "entrants": ["strong", "weak"],
                 "games": 20, "seed": 2,
                 "openings": std::fs::read_to_string(openings_file()).unwrap() }),
    );
    let c = wait_for(&s, id, 120, |c| c["state"] == json!("finished"));
    let local = tournament(
        &dir,
        &players,
        &[
            "--format", "elo", "--games", "20", "--seed", "2", "--jobs", "64",
        ],
    );
    assert_eq!(c["standings"], local, "the server's, then the tournament's");
    let played: u64 = local
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["games"].as_u64().unwrap())
        .sum();
    assert_eq!(c["games_played"].as_u64().unwrap() * 2, played);
}

#[test]
fn an_elo_pool_takes_a_new_entrant_first_and_holds_while_paused() {
    let dir = scratch("pool");
    let s = start(dir.join("arena.db"), "127.0.0.1:0");
    for (name, depth) in [("a", 1), ("b", 2), ("c", 3)] {
        hosted(&s, name, &bot(depth));
    }
    // A pool with no end: it plays while pairs may meet, then waits.
    let id = new_contest(
        &s,
        &json!({ "name": "Pool", "format": "elo", "entrants": ["a", "b"], "games": 0,
                 "openings": std::fs::read_to_string(openings_file()).unwrap() }),
    );
    let ended = |c: &Value, n: usize| {
        let games = c["games"].as_array().unwrap();
        games.len() >= n && games.iter().all(|g| !g["ending"].is_null())
    };
    wait_for(&s, id, 60, |c| ended(c, 2));
    assert_eq!(
        admin(&s, &format!("/api/contests/{id}/pause"), &json!({})).0,
        200
    );
    let paused = wait_for(&s, id, 60, |c| ended(c, 2));
    let count = paused["games"].as_array().unwrap().len();
    // Knockouts take no one new; the pool does.
    let (status, reply) = admin(
        &s,
        &format!("/api/contests/{id}/entrants"),
        &json!({ "team": "c" }),
    );
    assert_eq!(status, 201, "{reply}");
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(
        contest(&s, id)["games"].as_array().unwrap().len(),
        count,
        "no game starts while paused"
    );
    assert_eq!(
        admin(&s, &format!("/api/contests/{id}/resume"), &json!({})).0,
        200
    );
    // A match is two games, colours swapped. When the pause came between
    // them, the match's second game is played first; the next match is
    // the new entrant's.
    let first_match = count + count % 2;
    let c = wait_for(&s, id, 60, |c| {
        c["games"].as_array().unwrap().len() > first_match
    });
    if count % 2 == 1 {
        let (first, second) = (&c["games"][count - 1], &c["games"][count]);
        assert_eq!(
            (&first["black"], &first["white"]),
            (&second["white"], &second["black"]),
            "the interrupted match ends first: {c}"
        );
    }
    let first_new = &c["games"][first_match];
    assert!(
        first_new["black"] == json!("c") || first_new["white"] == json!("c"),
        "the new entrant plays first (game {}): {c}",
        first_match + 1
    );
    let c = wait_for(&s, id, 60, |c| {
        c["standings"].as_array().unwrap().len() == 3
    });
    for row in c["standings"].as_array().unwrap() {
        assert!(row["rating"].as_f64().is_some(), "{row}");
    }
    assert_eq!(
        admin(&s, "/api/contests/999/pause", &json!({})).0,
        404,
        "no such contest"
    );
}

#[test]
fn every_way_to_lose_on_a_technicality() {
    let dir = scratch("forfeits");
    let s = start(dir.join("arena.db"), "127.0.0.1:0");
    hosted(&s, "good", &bot(1));
    // Judge-protocol programs that set up properly, then misbehave at
    // their first move.
    let misbehaving = |reply: &str| {
        format!("while read l; do case \"$l\" in DONE) echo OK;; BEGIN|TURN*|PASS) {reply};; esac; done")
    };
    let cases = [
        (
            "illegal",
            misbehaving("echo 'a 1'"),
            "black forfeits: a1 is not legal",
        ),
        (
            "malformed",
            misbehaving("echo hello"),
            // A hosted program's words are its owner's, not the public's.
            "black forfeits: its reply is not a move",
        ),
        (
            "late",
            misbehaving("sleep 5"),
            "black forfeits: no move within 300 ms",
        ),
        (
            "gone",
            misbehaving("exit 0"),
            "black forfeits: after BEGIN: the program",
        ),
    ];
    let mut ids = Vec::new();
    for (name, command, _) in &cases {
        hosted(&s, name, command);
        let (status, reply) = admin(
            &s,
            "/api/games",
            &json!({ "black": name, "white": "good", "move_time_ms": 300 }),
        );
        assert_eq!(status, 201, "{reply}");
        ids.push(reply["id"].as_i64().unwrap());
    }
    // A remote bot that goes away mid-game loses on time.
    register_remote(&s, "remote");
    let (_, reply) = admin(
        &s,
        "/api/games",
        &json!({ "black": "remote", "white": "good", "move_time_ms": 300 }),
    );
    let remote_game = reply["id"].as_i64().unwrap();
    let mut bridge =
        crate::remote::connect(&s, "remote", "remote-secret", remote_game, "self --depth 1");
    let since = Instant::now();
    while game(&s, remote_game)["moves"].as_array().unwrap().len() < 4 {
        assert!(since.elapsed() < Duration::from_secs(20), "no moves");
        std::thread::sleep(Duration::from_millis(5));
    }
    let _ = bridge.kill();
    let _ = bridge.wait();
    let ended = |id: i64| {
        let since = Instant::now();
        loop {
            let g = game(&s, id);
            if let Some(ending) = g["ending"].as_str() {
                return ending.to_string();
            }
            assert!(since.elapsed() < Duration::from_secs(20), "{g}");
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    for ((name, _, expected), id) in cases.iter().zip(&ids) {
        let ending = ended(*id);
        assert!(ending.starts_with(expected), "{name}: {ending}");
        assert_eq!(game(&s, *id)["moves"], json!([]), "{name}");
    }
    let ending = ended(remote_game);
    assert!(
        ending.starts_with("black forfeits: no move within 300 ms")
            || ending.starts_with("white forfeits"),
        "{ending}"
    );
    assert!(
        ending.starts_with("black"),
        "the remote bot was black: {ending}"
    );
    // Hosted commands run as given: `self` would be the server itself.
    let (status, _) = admin(
        &s,
        "/api/teams",
        &json!({ "name": "me", "command": "self --depth 1" }),
    );
    assert_eq!(status, 422);
    let (status, _) = call(
        &format!("{}/api/teams", s.url),
        "POST",
        &[],
        Some(&json!({ "name": "sneaky", "command": "rm -rf /" }).to_string()),
    );
    assert_eq!(status, 401, "only the organiser registers programs");
}

#[test]
fn a_knockout_killed_mid_way_finishes_after_a_restart() {
    let dir = scratch("kill-contest");
    killed_mid_way(&dir.join("arena.db").display().to_string());
}

#[test]
fn a_knockout_killed_mid_way_finishes_after_a_restart_on_postgres() {
    killed_mid_way(&crate::pg::fresh_db());
}

/// A knockout of four that takes its time, so that a kill comes
/// mid-game: three hosted programs registered and the contest created
/// through `admin`, a remote bot playing through `remote`; the contest and
/// the bot's bridge.
pub fn slow_knockout(admin_at: &Server, remote: &Server, name: &str) -> (i64, Child) {
    for player in ["k1", "k2", "k3"] {
        hosted(
            admin_at,
            player,
            &format!("{} --move-time 40 --book off", reversi_bin().display()),
        );
    }
    register_remote(remote, "k4");
    let id = new_contest(
        admin_at,
        &json!({ "name": name, "format": "knockout",
                 "entrants": ["k1", "k2", "k3", "k4"], "move_time_ms": 2000, "seed": 5 }),
    );
    let bridge = connect_contest(remote, "k4", id, "self --move-time 40 --book off");
    (id, bridge)
}

/// Whether contest `c` has a game ended and another under way: the
/// moment for a kill.
pub fn mid_game(c: &Value) -> bool {
    let games = c["games"].as_array().unwrap();
    games.iter().any(|g| !g["ending"].is_null())
        && games
            .iter()
            .any(|g| g["ending"].is_null() && g["moves"].as_u64() > Some(4))
}

/// Checks finished knockout `c` as server `s` shows it against the games
/// `stored` before a kill: every move stored then stands, a game finished
/// then is as it was, and every game is played to its end (or, where
/// `forfeits` allows, lost on a technicality).
pub fn check_survived(s: &Server, c: &Value, stored: &[Value], forfeits: bool) {
    let games = c["games"].as_array().unwrap();
    assert!(games.len() >= 3, "4 players: 3 games at least: {c}");
    for (i, g) in games.iter().enumerate() {
        let full = game(s, g["id"].as_i64().unwrap());
        let forfeited = full["ending"].as_str().unwrap().contains("forfeit");
        assert!(forfeits || !forfeited, "{full}");
        if !forfeited {
            check_finished(&full);
        }
        if let Some(old) = stored.get(i) {
            let old_moves = old["moves"].as_array().unwrap();
            assert_eq!(
                &full["moves"].as_array().unwrap()[..old_moves.len()],
                old_moves.as_slice(),
                "game {}",
                g["id"]
            );
            if !old["ending"].is_null() {
                assert_eq!(full, *old, "a finished game is as it was");
            }
        }
    }
    assert_eq!(c["standings"][0]["result"], json!("winner"), "{c}");
}

/// A knockout whose server is killed with SIGKILL mid-game and started
/// again on database `db` finishes, with every move stored before the
/// kill standing and the finished games as they were.
fn killed_mid_way(db: &str) {
    let mut s = start(db, &crate::remote::restartable_addr());
    let (id, bridge) = slow_knockout(&s, &s, "Interrupted");
    let before = wait_for(&s, id, 60, mid_game);
    let port = s.port();
    s.kill();
    // What the database holds after the kill (read by a server started
    // and killed again at once).
    let stored: Vec<Value> = {
        let again = start(db, &format!("127.0.0.1:{port}"));
        let ids = before["games"].as_array().unwrap().iter();
        ids.map(|g| game(&again, g["id"].as_i64().unwrap()))
            .collect()
    };
    let s = start(db, &format!("127.0.0.1:{port}"));
    let c = wait_for(&s, id, 120, |c| c["state"] == json!("finished"));
    wait_ok(bridge);
    // A game may be lost on time across the restart: the remote bot's
    // bridge waits out the server's absence as best it can.
    check_survived(&s, &c, &stored, true);
}

#[test]
fn a_remote_program_that_fails_loses_its_games_and_the_bridge_sees_the_contest_out() {
    let dir = scratch("failing");
    let s = start(dir.join("arena.db"), "127.0.0.1:0");
    register_remote(&s, "broken");
    hosted(&s, "house", &bot(1));
    let id = new_contest(
        &s,
        &json!({ "name": "Two", "format": "knockout", "entrants": ["broken", "house"],
                 "move_time_ms": 300 }),
    );
    // A program that exits at once: each of its games is left to the
    // server's clock, not started again and again.
    let bridge = connect_contest(&s, "broken", id, "false");
    let c = wait_for(&s, id, 60, |c| c["state"] == json!("finished"));
    let out = wait_ok(bridge);
    // Lost before its first move, the game is played again once (PUG's
    // restart, a point off), and lost again.
    let games = c["games"].as_array().unwrap();
    assert_eq!(games.len(), 2, "{c}");
    for g in games {
        let ending = g["ending"].as_str().unwrap();
        assert!(ending.contains("forfeits: no move within 300 ms"), "{c}");
    }
    assert_eq!(
        out.matches("not played to the end here").count(),
        2,
        "{out}"
    );
    assert!(out.ends_with(&format!("contest {id}: finished\n")), "{out}");
    assert_eq!(c["standings"][0]["player"], json!("house"), "{c}");
    assert_eq!(c["standings"][1]["restarts"], json!(1), "{c}");
}

/// No game of contest `c` was lost on a technicality, and each was played
/// to its end.
fn no_forfeits(c: &Value) {
    let games = c["games"].as_array().unwrap();
    assert!(!games.is_empty(), "{c}");
    for g in games {
        let ending = g["ending"].as_str().unwrap_or("");
        assert!(!ending.is_empty() && !ending.contains("forfeits"), "{c}");
    }
}

/// Two games between two remote teams, 300 ms a move.
fn pair_of_games(name: &str, teams: [&str; 2]) -> Value {
    json!({ "name": name, "format": "ladder", "entrants": teams, "games": 1,
            "per_pair": 2, "move_time_ms": 300 })
}

#[test]
fn bots_started_before_their_contest_exists_play_it_without_forfeits() {
    let dir = scratch("early");
    let s = start(dir.join("arena.db"), "127.0.0.1:0");
    let teams = ["early-a", "early-b"];
    for team in teams {
        register_remote(&s, team);
    }
    // Contest 1 does not exist yet: the bots wait for it.
    let bridges: Vec<Child> = teams
        .iter()
        .map(|team| connect_contest(&s, team, 1, "self --depth 1"))
        .collect();
    std::thread::sleep(Duration::from_millis(1500));
    let id = new_waiting_contest(&s, &pair_of_games("early", teams));
    assert_eq!(id, 1);
    // Both are seen waiting on it, and nothing is played before the start.
    let c = wait_for(&s, id, 20, |c| c["present"].as_array().unwrap().len() == 2);
    assert_eq!(c["state"], json!("waiting"), "{c}");
    assert_eq!(c["games_played"], json!(0), "{c}");
    start_contest(&s, id);
    let c = wait_for(&s, id, 60, |c| c["state"] == json!("finished"));
    no_forfeits(&c);
    assert_eq!(c["games"].as_array().unwrap().len(), 2, "{c}");
    // A finished game's page: its players and result in its title, its
    // ending said once in the page.
    let first = &c["games"][0];
    let page = crate::remote::agent()
        .get(&format!("{}/games/{}", s.url, first["id"]))
        .call()
        .unwrap()
        .body_mut()
        .read_to_string()
        .unwrap();
    let ending = first["ending"].as_str().unwrap();
    let title = format!(
        "<title>Game {}: {} vs {}, {ending}</title>",
        first["id"],
        first["black"].as_str().unwrap(),
        first["white"].as_str().unwrap()
    );
    assert!(page.contains(&title), "{page}");
    let body = &page[page.find("<body>").unwrap()..];
    assert_eq!(body.matches(ending).count(), 1, "{body}");
    for bridge in bridges {
        let out = wait_ok(bridge);
        assert!(out.ends_with(&format!("contest {id}: finished\n")), "{out}");
    }
    // Started twice, paused before its start: refused, with why.
    let (status, reply) = admin(&s, &format!("/api/contests/{id}/start"), &json!({}));
    assert_eq!(status, 409, "{reply}");
    assert!(
        reply["error"].as_str().unwrap().contains("finished"),
        "{reply}"
    );
}

#[test]
fn a_contest_made_with_nobody_there_waits_and_its_late_bots_get_their_setup_time() {
    let dir = scratch("late-bots");
    let s = start(dir.join("arena.db"), "127.0.0.1:0");
    let teams = ["late-a", "late-b"];
    for team in teams {
        register_remote(&s, team);
    }
    let id = new_waiting_contest(&s, &pair_of_games("late", teams));
    let (status, reply) = admin(&s, &format!("/api/contests/{id}/pause"), &json!({}));
    assert_eq!(status, 409, "a contest not started is not paused: {reply}");
    std::thread::sleep(Duration::from_millis(1500));
    let c = contest(&s, id);
    assert_eq!(c["state"], json!("waiting"), "{c}");
    assert_eq!(c["games_played"], json!(0), "{c}");
    assert_eq!(c["present"], json!([]), "{c}");
    // Started with nobody there: the games are made at once, and their
    // bots come 1.5 s later, within their 5 s to set up, at 300 ms a move.
    start_contest(&s, id);
    wait_for(&s, id, 20, |c| c["games_played"].as_i64() >= Some(1));
    std::thread::sleep(Duration::from_millis(1500));
    let bridges: Vec<Child> = teams
        .iter()
        .map(|team| connect_contest(&s, team, id, "self --depth 1"))
        .collect();
    let c = wait_for(&s, id, 60, |c| c["state"] == json!("finished"));
    no_forfeits(&c);
    for bridge in bridges {
        wait_ok(bridge);
    }
}

#[test]
fn a_contest_with_a_start_time_starts_by_itself() {
    let dir = scratch("start-at");
    let s = start(dir.join("arena.db"), "127.0.0.1:0");
    hosted(&s, "at-a", &bot(1));
    hosted(&s, "at-b", &bot(1));
    let now_s = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let mut body = pair_of_games("at", ["at-a", "at-b"]);
    body["start_at"] = json!(now_s + 3);
    let id = new_waiting_contest(&s, &body);
    // Hosted programs are present from the first.
    let c = contest(&s, id);
    assert_eq!(c["present"], json!(["at-a", "at-b"]), "{c}");
    assert_eq!(c["start_at"], json!(now_s + 3), "{c}");
    // A second before its time it still waits.
    let at = std::time::UNIX_EPOCH + Duration::from_secs(now_s + 2);
    if let Ok(left) = at.duration_since(std::time::SystemTime::now()) {
        std::thread::sleep(left);
    }
    let c = contest(&s, id);
    assert_eq!(c["state"], json!("waiting"), "{c}");
    assert_eq!(c["games_played"], json!(0), "{c}");
    let c = wait_for(&s, id, 60, |c| c["state"] == json!("finished"));
    no_forfeits(&c);
}

#[test]
fn a_hosted_program_slow_to_start_does_not_lose_its_first_move() {
    let dir = scratch("slow-start");
    let s = start(dir.join("arena.db"), "127.0.0.1:0");
    // Two seconds to start, then a quick bot; 300 ms a move.
    hosted(&s, "slow", &format!("sleep 2; exec {}", bot(1)));
    hosted(&s, "quick", &bot(1));
    let id = new_contest(&s, &pair_of_games("slow", ["slow", "quick"]));
    let c = wait_for(&s, id, 60, |c| c["state"] == json!("finished"));
    no_forfeits(&c);
    assert_eq!(c["games"].as_array().unwrap().len(), 2, "{c}");
}

#[test]
fn an_elo_pool_keeps_an_entrant_that_never_came_for_its_first_games() {
    let dir = scratch("elo-away");
    let s = start(dir.join("arena.db"), "127.0.0.1:0");
    register_remote(&s, "away");
    hosted(&s, "h1", &bot(1));
    hosted(&s, "h2", &bot(1));
    let id = new_contest(
        &s,
        &json!({ "name": "away", "format": "elo", "entrants": ["away", "h1", "h2"],
                 "move_time_ms": 300, "setup_ms": 1000 }),
    );
    // Its bot is not there for its first match: it loses both games at
    // the end of their setup time, without a move.
    let c = wait_for(&s, id, 30, |c| {
        c["games"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|g| {
                g["ending"]
                    .as_str()
                    .is_some_and(|e| e.contains("no move within"))
            })
            .count()
            == 2
    });
    let mut bridge = connect_contest(&s, "away", id, "self --depth 1");
    // Then it comes, and is matched again: a game of its played to the end.
    let c2 = wait_for(&s, id, 90, |c| {
        c["games"].as_array().unwrap().iter().any(|g| {
            (g["black"] == json!("away") || g["white"] == json!("away"))
                && g["ending"]
                    .as_str()
                    .is_some_and(|e| !e.contains("forfeits"))
        })
    });
    let _ = bridge.kill();
    let _ = bridge.wait();
    assert!(
        c2["games_played"].as_i64() > c["games_played"].as_i64(),
        "{c2}"
    );
}
