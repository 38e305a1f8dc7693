//! The server as a user meets it: started on a free local port with a
//! fresh database, teams registered over HTTP, games played by remote
//! bots through `reversi connect`, bad requests refused, a kill -9 in the
//! middle of a game survived.

use reversi_core::bitboard::Square;
use reversi_core::board::Board;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub const TOKEN: &str = "organiser-token-for-tests";

pub fn server_bin() -> &'static str {
    env!("CARGO_BIN_EXE_reversi-server")
}

/// The tools' binary: beside the server's, or the release build (`make
/// test` builds it before the server's tests run in the test profile).
pub fn reversi_bin() -> PathBuf {
    let here = Path::new(server_bin()).with_file_name("reversi");
    let release = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/release/reversi");
    [here, release]
        .into_iter()
        .find(|p| p.exists())
        .expect("no reversi binary: `cargo build --release` first")
}

/// An address for a server that is killed and started again on it: a free
/// port below the system's ephemeral ports. On a free ephemeral port a
/// bridge that keeps trying to connect while the server is down may
/// connect to itself (Linux allows it), and the port is then taken when
/// the server starts again (a test once failed so).
pub fn restartable_addr() -> String {
    loop {
        let port = fastrand::u16(20_000..32_000);
        if std::net::TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return format!("127.0.0.1:{port}");
        }
    }
}

pub use reversi_testkit::{chromium, chromium_path, cores, scratch, Scratch};

pub struct Server {
    pub url: String,
    child: Child,
}

impl Server {
    /// Starts the server on `addr` (port 0: a free one) with `db`.
    pub fn start(db: impl AsRef<std::ffi::OsStr>, addr: &str) -> Server {
        Server::start_with(db, addr, &[])
    }

    /// As [`Server::start`], with more of the server's flags.
    pub fn start_with(db: impl AsRef<std::ffi::OsStr>, addr: &str, flags: &[&str]) -> Server {
        Server::try_start_with(db, addr, flags).unwrap_or_else(|why| panic!("{why}"))
    }

    /// As [`Server::start_with`], or what the server said if it would not
    /// start (no sandbox on this machine, say).
    pub fn try_start_with(
        db: impl AsRef<std::ffi::OsStr>,
        addr: &str,
        flags: &[&str],
    ) -> Result<Server, String> {
        let mut child = Command::new(server_bin())
            .args(["--addr", addr, "--db"])
            .arg(db)
            .args(flags)
            .env("REVERSI_ADMIN_TOKEN", TOKEN)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the server starts");
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        // What the server says on stderr goes on to the test's.
        let mut stderr = child.stderr.take().unwrap();
        let Some(url) = first.trim().strip_prefix("listening on ") else {
            let _ = child.wait();
            let mut said = String::new();
            let _ = std::io::Read::read_to_string(&mut stderr, &mut said);
            return Err(format!("the server did not start: {first}{said}"));
        };
        std::thread::spawn(move || {
            let _ = std::io::copy(&mut stderr, &mut std::io::stderr());
        });
        Ok(Server {
            child,
            url: url.to_string(),
        })
    }

    pub fn kill(&mut self) {
        let _ = self.child.kill(); // SIGKILL
        let _ = self.child.wait();
    }

    pub fn port(&self) -> String {
        self.url.rsplit(':').next().unwrap().to_string()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
    }
}

pub fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(40)))
        .build()
        .into()
}

/// A request: its status and JSON body.
pub fn call(url: &str, method: &str, headers: &[(&str, &str)], body: Option<&str>) -> (u16, Value) {
    let agent = agent();
    let mut response = match method {
        "POST" => {
            let mut request = agent.post(url).header("content-type", "application/json");
            for (k, v) in headers {
                request = request.header(*k, *v);
            }
            request.send(body.unwrap_or(""))
        }
        "DELETE" => {
            let mut request = agent.delete(url);
            for (k, v) in headers {
                request = request.header(*k, *v);
            }
            request.call()
        }
        _ => {
            let mut request = agent.get(url);
            for (k, v) in headers {
                request = request.header(*k, *v);
            }
            request.call()
        }
    }
    .expect("the server answers");
    let status = response.status().as_u16();
    let text = response.body_mut().read_to_string().unwrap_or_default();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

pub fn register(s: &Server, name: &str, secret: &str) {
    let body = json!({ "name": name, "secret": secret }).to_string();
    let (status, reply) = call(&format!("{}/api/teams", s.url), "POST", &[], Some(&body));
    assert_eq!(status, 201, "{reply}");
}

pub fn new_game(s: &Server, black: &str, white: &str, move_time_ms: u64) -> i64 {
    let body = json!({ "black": black, "white": white, "move_time_ms": move_time_ms }).to_string();
    let auth = format!("Bearer {TOKEN}");
    let (status, reply) = call(
        &format!("{}/api/games", s.url),
        "POST",
        &[("authorization", &auth)],
        Some(&body),
    );
    assert_eq!(status, 201, "{reply}");
    reply["id"].as_i64().unwrap()
}

pub fn game(s: &Server, id: i64) -> Value {
    call(&format!("{}/api/games/{id}", s.url), "GET", &[], None).1
}

/// Starts `reversi connect` for `team` in game `id` with `program`.
pub fn connect(s: &Server, team: &str, secret: &str, id: i64, program: &str) -> Child {
    bridge(s, team, secret, &["--game", &id.to_string()], program)
}

/// Starts `reversi connect` for `team`, playing `what` (`--game N`,
/// `--contest N`) with `program`.
pub fn bridge(s: &Server, team: &str, secret: &str, what: &[&str], program: &str) -> Child {
    Command::new(reversi_bin())
        .args(["connect", &s.url, "--team", team])
        .args(what)
        .arg("--")
        .args(program.split_whitespace())
        .env("REVERSI_SECRET", secret)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("reversi connect starts")
}

/// Checks that `game`'s moves replay legally from the start and that its
/// ending is the final position's count; returns the number of moves.
pub fn check_finished(game: &Value) -> usize {
    let moves = game["moves"].as_array().unwrap();
    let mut board = Board::start();
    let mut black_to_move = true;
    for m in moves {
        let m = m.as_str().unwrap();
        board = if m == "pass" {
            assert!(!board.has_moves(), "{game}");
            board.pass()
        } else {
            let sq = Square::parse(m).unwrap();
            assert!(board.is_legal(sq), "{m} in {game}");
            board.play(sq)
        };
        black_to_move = !black_to_move;
    }
    assert!(board.is_game_over(), "{game}");
    let (own, other) = (board.player.count_ones(), board.opponent.count_ones());
    let (b, w) = if black_to_move {
        (own, other)
    } else {
        (other, own)
    };
    let ending = game["ending"].as_str().unwrap();
    assert!(
        ending.ends_with(&format!(" {b}-{w}")),
        "{ending} vs {b}-{w}"
    );
    moves.len()
}

pub fn wait_ok(child: Child) -> String {
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

#[test]
fn two_remote_bots_play_a_game_to_its_end() {
    let dir = scratch("game");
    let s = Server::start(dir.join("arena.db"), "127.0.0.1:0");
    register(&s, "alpha", "alpha-secret");
    register(&s, "beta", "beta-secret");
    let id = new_game(&s, "alpha", "beta", 1000);
    let a = connect(&s, "alpha", "alpha-secret", id, "self --depth 3");
    let b = connect(
        &s,
        "beta",
        "beta-secret",
        id,
        "self --player greedy --seed 2",
    );
    let (a, b) = (wait_ok(a), wait_ok(b));
    let g = game(&s, id);
    check_finished(&g);
    let line = format!("game {id}: {}", g["ending"].as_str().unwrap());
    assert_eq!(a.trim(), line);
    assert_eq!(b.trim(), line);
}

#[test]
fn a_player_that_never_moves_loses_on_time() {
    let dir = scratch("late");
    let s = Server::start(dir.join("arena.db"), "127.0.0.1:0");
    register(&s, "alpha", "alpha-secret");
    register(&s, "beta", "beta-secret");
    let id = new_game(&s, "alpha", "beta", 200);
    let since = Instant::now();
    while game(&s, id)["ending"].is_null() {
        assert!(since.elapsed() < Duration::from_secs(10), "never ended");
        std::thread::sleep(Duration::from_millis(50));
    }
    let g = game(&s, id);
    assert_eq!(g["ending"], json!("black forfeits: no move within 200 ms"));
    assert_eq!(g["moves"], json!([]));
}

#[test]
fn bad_requests_get_their_4xx_and_change_nothing() {
    let dir = scratch("bad");
    let s = Server::start(dir.join("arena.db"), "127.0.0.1:0");
    register(&s, "alpha", "alpha-secret");
    register(&s, "beta", "beta-secret");
    register(&s, "gamma", "gamma-secret");
    let id = new_game(&s, "alpha", "beta", 600_000);
    let before = game(&s, id);
    let mv = format!("{}/api/games/{id}/move", s.url);
    let alpha = [("x-team", "alpha"), ("x-secret", "alpha-secret")];
    for (what, url, headers, body, status) in [
        ("malformed JSON", mv.as_str(), &alpha[..], "{\"move\":", 400),
        (
            "a wrong secret",
            mv.as_str(),
            &[("x-team", "alpha"), ("x-secret", "nope-nope")][..],
            "{\"move\":\"d3\"}",
            401,
        ),
        (
            "no secret",
            mv.as_str(),
            &[("x-team", "alpha")][..],
            "{\"move\":\"d3\"}",
            401,
        ),
        (
            "another team's game",
            mv.as_str(),
            &[("x-team", "gamma"), ("x-secret", "gamma-secret")][..],
            "{\"move\":\"d3\"}",
            403,
        ),
        (
            "out of turn",
            mv.as_str(),
            &[("x-team", "beta"), ("x-secret", "beta-secret")][..],
            "{\"move\":\"d3\"}",
            409,
        ),
    ] {
        let (got, reply) = call(url, "POST", headers, Some(body));
        assert_eq!(got, status, "{what}: {reply}");
        if got != 413 {
            assert!(
                reply["error"].as_str().is_some_and(|e| !e.contains('\n')),
                "{what}: {reply}"
            );
        }
    }
    // A 10 MB body: refused from its length, before it is read.
    let mut stream = std::net::TcpStream::connect(s.url.trim_start_matches("http://")).unwrap();
    let head = format!(
        "POST /api/games/{id}/move HTTP/1.1\r\nhost: x\r\nx-team: alpha\r\nx-secret: alpha-secret\r\n\
         content-type: application/json\r\ncontent-length: {}\r\n\r\n",
        10 << 20
    );
    std::io::Write::write_all(&mut stream, head.as_bytes()).unwrap();
    let mut status_line = String::new();
    BufReader::new(&stream).read_line(&mut status_line).unwrap();
    assert!(status_line.starts_with("HTTP/1.1 413"), "{status_line}");
    let unknown = format!("{}/api/games/999", s.url);
    assert_eq!(call(&unknown, "GET", &[], None).0, 404);
    let body = json!({ "black": "alpha", "white": "beta" }).to_string();
    let games = format!("{}/api/games", s.url);
    assert_eq!(
        call(
            &games,
            "POST",
            &[("authorization", "Bearer wrong")],
            Some(&body)
        )
        .0,
        401
    );
    let teams = format!("{}/api/teams", s.url);
    for bad in [
        json!({ "name": "alpha", "secret": "another-secret" }),
        json!({ "name": "a b", "secret": "another-secret" }),
        json!({ "name": "delta", "secret": "short" }),
    ] {
        let (got, reply) = call(&teams, "POST", &[], Some(&bad.to_string()));
        assert!(got == 409 || got == 422, "{bad}: {got} {reply}");
    }
    assert_eq!(game(&s, id), before, "nothing changed");
    // The right move from the right team is taken.
    let (got, reply) = call(&mv, "POST", &alpha, Some("{\"move\":\"d3\"}"));
    assert_eq!(got, 200, "{reply}");
    assert_eq!(game(&s, id)["moves"], json!(["d3"]));
}

#[test]
fn a_killed_server_restarts_and_the_game_goes_on() {
    let dir = scratch("kill");
    let db = dir.join("arena.db");
    let mut s = Server::start(&db, &restartable_addr());
    register(&s, "alpha", "alpha-secret");
    register(&s, "beta", "beta-secret");
    let id = new_game(&s, "alpha", "beta", 2000);
    // Bots that take their time, so that the kill comes mid-game.
    let a = connect(
        &s,
        "alpha",
        "alpha-secret",
        id,
        "self --move-time 150 --book off",
    );
    let b = connect(
        &s,
        "beta",
        "beta-secret",
        id,
        "self --move-time 150 --book off",
    );
    let since = Instant::now();
    while game(&s, id)["moves"].as_array().map_or(0, Vec::len) < 10 {
        assert!(since.elapsed() < Duration::from_secs(30), "no moves");
        std::thread::sleep(Duration::from_millis(20));
    }
    let port = s.port();
    s.kill();
    let mid = {
        // What the database holds after the kill: every acknowledged move.
        let restarted = Server::start(&db, &format!("127.0.0.1:{port}"));
        let g = game(&restarted, id);
        drop(restarted);
        g
    };
    assert!(mid["ending"].is_null(), "{mid}");
    std::thread::sleep(Duration::from_millis(500));
    let s = Server::start(&db, &format!("127.0.0.1:{port}"));
    let (a, b) = (wait_ok(a), wait_ok(b));
    let g = game(&s, id);
    let n = check_finished(&g);
    assert!(n >= mid["moves"].as_array().unwrap().len());
    assert_eq!(
        &g["moves"].as_array().unwrap()[..mid["moves"].as_array().unwrap().len()],
        mid["moves"].as_array().unwrap().as_slice(),
        "the moves stored before the kill stand"
    );
    assert!(a.contains(&format!("game {id}: ")) && b.contains(&format!("game {id}: ")));
}

#[test]
fn the_game_page_shows_the_board_after_a_move_and_the_ggf_downloads() {
    let dir = scratch("page");
    let s = Server::start(dir.join("arena.db"), "127.0.0.1:0");
    register(&s, "alpha", "alpha-secret");
    register(&s, "beta", "beta-secret");
    let id = new_game(&s, "alpha", "beta", 600_000);
    let alpha = [("x-team", "alpha"), ("x-secret", "alpha-secret")];
    let (got, reply) = call(
        &format!("{}/api/games/{id}/move", s.url),
        "POST",
        &alpha,
        Some("{\"move\":\"d3\"}"),
    );
    assert_eq!(got, 200, "{reply}");
    // The live page in headless Chromium, after its script ran: black's
    // four discs and white's one after d3, and the game still going on.
    // (Driven through WebDriver: the page's stream never lets a
    // `--dump-dom` run's virtual time end.)
    let browser = crate::pages::Browser::start("page");
    browser.open(&format!("{}/games/{id}", s.url));
    let dom = browser.run("return document.documentElement.outerHTML;");
    let dom = dom.as_str().unwrap();
    let start = dom.find("id=\"board\"").expect("a board");
    let end = dom[start..].find("<h2").map_or(dom.len(), |i| start + i);
    let board = &dom[start..end];
    assert_eq!(board.matches("disc black").count(), 4, "{board}");
    assert_eq!(board.matches("disc white").count(), 1, "{board}");
    assert!(dom.contains("in progress"), "{dom}");
    assert!(
        dom.contains(&format!(
            "<title>Game {id}: alpha vs beta, in progress</title>"
        )),
        "{dom}"
    );
    assert!(dom.contains(&format!("/games/{id}/ggf")));
    // The list links to it; the GGF reads back to the same move.
    let index = agent()
        .get(&format!("{}/", s.url))
        .call()
        .unwrap()
        .body_mut()
        .read_to_string()
        .unwrap();
    assert!(
        index.contains(&format!("<a href=\"/games/{id}\">")),
        "{index}"
    );
    let ggf = agent()
        .get(&format!("{}/games/{id}/ggf", s.url))
        .call()
        .unwrap()
        .body_mut()
        .read_to_string()
        .unwrap();
    let games = reversi::records::ggf::parse(&ggf).expect("GGF");
    assert_eq!(games[0].moves.len(), 1);
    assert_eq!(games[0].tag("PB"), Some("alpha"));
}

#[test]
fn a_client_that_floods_is_slowed_down() {
    let dir = scratch("flood");
    let s = Server::start(dir.join("arena.db"), "127.0.0.1:0");
    let url = format!("{}/api/games/1", s.url);
    let agent = agent();
    let mut statuses = std::collections::BTreeMap::new();
    for _ in 0..1000 {
        let status = agent.get(&url).call().expect("an answer").status().as_u16();
        *statuses.entry(status).or_insert(0) += 1;
    }
    // No game 1: 404 while the bucket lasts, then 429.
    assert!(
        statuses.get(&404).is_some_and(|&n| n >= 200),
        "{statuses:?}"
    );
    assert!(
        statuses.get(&429).is_some_and(|&n| n >= 100),
        "{statuses:?}"
    );
    // A second later the client is served again.
    std::thread::sleep(Duration::from_secs(1));
    assert_eq!(agent.get(&url).call().unwrap().status().as_u16(), 404);
}

#[test]
fn a_team_may_keep_only_so_many_turn_requests_waiting() {
    let dir = scratch("waits");
    let s = Server::start(dir.join("arena.db"), "127.0.0.1:0");
    register(&s, "alpha", "alpha-secret");
    register(&s, "beta", "beta-secret");
    let id = new_game(&s, "alpha", "beta", 600_000);
    // White waits for its turn, which does not come: 16 may wait, the
    // rest are told at once.
    let url = format!("{}/api/games/{id}/turn?wait=3", s.url);
    let waiting: Vec<_> = (0..20)
        .map(|_| {
            let url = url.clone();
            std::thread::spawn(move || {
                call(
                    &url,
                    "GET",
                    &[("x-team", "beta"), ("x-secret", "beta-secret")],
                    None,
                )
                .0
            })
        })
        .collect();
    let statuses: Vec<u16> = waiting.into_iter().map(|t| t.join().unwrap()).collect();
    assert_eq!(
        statuses.iter().filter(|&&s| s == 200).count(),
        16,
        "{statuses:?}"
    );
    assert_eq!(
        statuses.iter().filter(|&&s| s == 429).count(),
        4,
        "{statuses:?}"
    );
    // Once they are answered, the team may wait again.
    let (status, reply) = call(
        &url,
        "GET",
        &[("x-team", "beta"), ("x-secret", "beta-secret")],
        None,
    );
    assert_eq!((status, reply["your_turn"].clone()), (200, json!(false)));
}

/// The server's run on `db`, expected to stop at once: its exit code and
/// what it printed on stderr.
fn refused(db: &str) -> (Option<i32>, String) {
    let out = Command::new(server_bin())
        .args(["--addr", "127.0.0.1:0", "--db", db])
        .env("REVERSI_ADMIN_TOKEN", TOKEN)
        .output()
        .expect("the server runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_database_the_server_cannot_use_is_one_line_and_exit_1() {
    let dir = scratch("refused");
    let db = dir.join("arena.db");
    // A second server on a SQLite file one has open: refused, the first
    // unharmed.
    let s = Server::start(&db, "127.0.0.1:0");
    register(&s, "alpha", "alpha-secret");
    let (code, err) = refused(&db.display().to_string());
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("another reversi-server has it open"), "{err}");
    register(&s, "beta", "beta-secret");
    // PostgreSQL that does not answer, and a database that does not exist;
    // the password is never printed.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let (code, err) = refused(&format!(
        "postgres://arena:hush-hush@127.0.0.1:{port}/arena"
    ));
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("Connection refused") && !err.contains("hush"),
        "{err}"
    );
    let url = crate::pg::fresh_db();
    let missing = format!("{}-missing", url);
    let (code, err) = refused(&missing);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("does not exist"), "{err}");
}
