//! The GGS service (`--ggs-addr`) with engines' own clients: Edax's
//! `-ggs`, unchanged, and ours (`reversi ggs`), in one contest with a
//! remote HTTP bot; and as a hostile client uses it.
//!
//! NTest's GGS client is not run: its host is fixed in its source (a
//! name that would need a hosts-file line in a private mount namespace),
//! which a test cannot count on having.

use crate::contests::{admin, register_remote, wait_for};
use crate::remote::{check_finished, reversi_bin, scratch, Server};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Edax as `make edax` builds it (`$EDAX_DIR`, else the anchors' default
/// folder): its folder and executable.
fn edax() -> Option<(PathBuf, PathBuf)> {
    let dir = std::env::var_os("EDAX_DIR")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/reversi-anchors/edax"))
        })?;
    let exe = std::fs::read_dir(dir.join("bin"))
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("lEdax-"))
        })?;
    Some((dir, exe))
}

/// A server with GGS on; the GGS port.
fn start(dir: &std::path::Path) -> (Server, u16) {
    let port = crate::pg::free_port();
    let at = format!("127.0.0.1:{port}");
    let s = Server::start_with(
        dir.join("arena.db"),
        "127.0.0.1:0",
        &["--ggs-addr", &at, "--no-analysis"],
    );
    (s, port)
}

/// A client of the GGS service, as raw lines.
struct Raw {
    read: BufReader<TcpStream>,
    write: TcpStream,
}

impl Raw {
    fn connect(port: u16) -> Raw {
        let stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        Raw {
            write: stream.try_clone().unwrap(),
            read: BufReader::new(stream),
        }
    }

    /// Bytes as they are, no end of line.
    fn send_part(&mut self, part: &str) {
        let _ = self.write.write_all(part.as_bytes());
    }

    fn send(&mut self, line: &str) {
        let _ = self.write.write_all(format!("{line}\n").as_bytes());
    }

    /// The next line; `None` once the server has closed.
    fn line(&mut self) -> Option<String> {
        let mut line = String::new();
        match self.read.read_line(&mut line) {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(line.trim_end().to_string()),
        }
    }

    /// Lines until one that `wanted` takes (which it returns), or the end.
    fn until(&mut self, wanted: impl Fn(&str) -> bool) -> Option<String> {
        while let Some(line) = self.line() {
            if wanted(&line) {
                return Some(line);
            }
        }
        None
    }

    fn login(port: u16, team: &str, secret: &str) -> Raw {
        let mut raw = Raw::connect(port);
        assert!(raw.until(|l| l.contains("Enter login")).is_some());
        raw.send(team);
        assert!(raw.until(|l| l.contains("Enter your password")).is_some());
        raw.send(secret);
        raw
    }
}

#[test]
fn edax_plays_a_contest_over_ggs_against_our_ggs_client_and_a_remote_http_bot() {
    let Some((edax_dir, edax_exe)) = edax() else {
        println!("skipped: no Edax built here (`make edax` builds it)");
        return;
    };
    let _cores = crate::remote::cores();
    let dir = scratch("ggs-contest");
    let (s, port) = start(&dir);
    for team in ["edax", "ours", "remote"] {
        register_remote(&s, team);
    }
    // Edax's own GGS client, as its author wrote it. Its input stays open:
    // at the end of its input Edax sends `eof` to the server. It runs in a
    // folder of its own: at the end of a match Edax stores the game in its
    // opening book and writes `data/game.ggf`, which must not change the
    // Edax that the README's commands and vs_edax.py play.
    let home = dir.join("edax");
    std::fs::create_dir_all(home.join("data")).unwrap();
    std::os::unix::fs::symlink(edax_dir.join("data/eval.dat"), home.join("data/eval.dat")).unwrap();
    std::fs::copy(edax_dir.join("data/book.dat"), home.join("data/book.dat")).unwrap();
    let mut edax = Command::new(&edax_exe)
        .current_dir(&home)
        .args([
            "-ggs",
            "-ggs-host",
            "127.0.0.1",
            "-ggs-port",
            &port.to_string(),
        ])
        .args(["-ggs-login", "edax", "-ggs-password", "edax-secret"])
        .args(["-l", "5", "-n", "1"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("Edax starts");
    let bot = format!("{} --depth 4", reversi_bin().display());
    let ours = Command::new(reversi_bin())
        .args([
            "ggs",
            "--port",
            &port.to_string(),
            "--login",
            "ours",
            "--games",
            "4",
            "--",
        ])
        .args(bot.split_whitespace())
        .env("REVERSI_SECRET", "ours-secret")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let remote = crate::contests::connect_contest(
        &s,
        "remote",
        1,
        &format!("{} --depth 3", reversi_bin().display()),
    );
    let (status, reply) = admin(
        &s,
        "/api/contests",
        &json!({ "name": "GGS ladder", "format": "ladder", "entrants": ["edax", "ours", "remote"],
                 "seed": 3, "move_time_ms": 1000, "games": 1, "per_pair": 2 }),
    );
    assert_eq!(status, 201, "{reply}");
    // All three are there before it starts: the GGS players say so by
    // being logged in.
    wait_for(&s, 1, 30, |c| {
        c["present"].as_array().is_some_and(|p| p.len() == 3)
    });
    crate::contests::start_contest(&s, 1);
    let c = wait_for(&s, 1, 120, |c| c["state"] == json!("finished"));
    let _ = edax.kill();
    let _ = edax.wait();

    // Every game legal and counted to its end: no forfeit of anyone.
    // A ladder's round of three, two games a pair: the middle player
    // (ours, by the seed's draw) meets both others.
    let games = c["games"].as_array().unwrap();
    assert_eq!(games.len(), 4, "{c}");
    let mut wins: std::collections::BTreeMap<String, u64> = Default::default();
    let mut played: std::collections::BTreeMap<String, u64> = Default::default();
    for g in games {
        let game = crate::remote::game(&s, g["id"].as_i64().unwrap());
        check_finished(&game);
        let ending = game["ending"].as_str().unwrap();
        assert!(!ending.contains("forfeit"), "{game}");
        for side in ["black", "white"] {
            *played
                .entry(game[side].as_str().unwrap().to_string())
                .or_default() += 1;
        }
        let winner = match ending.split_whitespace().next() {
            Some("black") => game["black"].as_str(),
            Some("white") => game["white"].as_str(),
            _ => None,
        };
        if let Some(w) = winner {
            *wins.entry(w.to_string()).or_default() += 1;
        }
    }
    assert_eq!(played["ours"], 4, "{c}");
    // The standings count those games and wins.
    for row in c["standings"].as_array().unwrap() {
        let player = row["player"].as_str().unwrap();
        assert_eq!(row["games"], json!(played[player]), "{c}");
        assert_eq!(
            row["wins"].as_u64().unwrap(),
            wins.get(player).copied().unwrap_or(0),
            "{player}: {c}"
        );
    }
    let said = crate::remote::wait_ok(ours);
    assert_eq!(said.lines().count(), 4, "{said}");
    crate::remote::wait_ok(remote);
}

#[test]
fn the_ggs_service_refuses_wrong_secrets_long_lines_moves_not_its_clients_and_a_second_login() {
    let dir = scratch("ggs-hostile");
    let (s, port) = start(&dir);
    register_remote(&s, "alpha");
    register_remote(&s, "beta");
    register_remote(&s, "dan");

    // A wrong secret: refused and closed.
    let mut wrong = Raw::login(port, "alpha", "not-alpha-secret");
    assert!(wrong.until(|l| l.starts_with(": Refused")).is_some());
    assert_eq!(wrong.until(|_| true), None);

    // A line past the bound closes the connection.
    let mut long = Raw::connect(port);
    assert!(long.until(|l| l.contains("Enter login")).is_some());
    long.send(&"x".repeat(100_000));
    assert_eq!(long.until(|l| l.contains("password")), None);

    // Logged in, alpha is told the service is on.
    let mut alpha = Raw::login(port, "alpha", "alpha-secret");
    assert!(alpha.until(|l| l == ": + /os 1").is_some());
    let mut dan = Raw::login(port, "dan", "dan-secret");
    assert!(dan.until(|l| l == ": + /os 1").is_some());
    // Nothing one client says reaches another (Edax obeys lines that start
    // with certain admins' names, "dan" among them).
    alpha.send("tell .dan dan tell /os play .1 a1");
    alpha.send("tell /os open 1");

    // A game of beta and dan: alpha may not move in it. Its line comes in
    // two parts, with the service's wait woken between them (it looks at
    // the games every 0.5 s): the line is still read whole.
    let id = crate::remote::new_game(&s, "beta", "dan", 600_000);
    alpha.send_part(&format!("tell /os play .{id} "));
    std::thread::sleep(Duration::from_millis(1200));
    alpha.send("d3/0.00/0.10");
    let refused = alpha.until(|l| l.starts_with("/os: error")).unwrap();
    assert!(refused.contains("not a player"), "{refused}");

    // dan is offered its game; its move out of turn is refused, and the
    // game is untouched.
    let join = dan.until(|l| l.starts_with("/os: join")).unwrap();
    assert!(join.starts_with(&format!("/os: join .{id} 8")), "{join}");
    dan.send(&format!("tell /os play .{id} d3"));
    let refused = dan.until(|l| l.starts_with("/os: error")).unwrap();
    assert!(refused.contains("not your turn"), "{refused}");
    let game: Value = crate::remote::game(&s, id);
    assert_eq!(game["moves"], json!([]), "{game}");
    // Within the same time, dan heard nothing alpha said.
    dan.write
        .set_read_timeout(Some(Duration::from_millis(300)))
        .unwrap();
    dan.read
        .get_ref()
        .set_read_timeout(Some(Duration::from_millis(300)))
        .unwrap();
    let since = Instant::now();
    while let Some(line) = dan.line() {
        assert!(!line.contains("dan tell"), "relayed: {line}");
        if since.elapsed() > Duration::from_secs(1) {
            break;
        }
    }

    // A second login of dan ends the first session, and the new one is
    // offered dan's game: two sessions are never offered one game.
    dan.read
        .get_ref()
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut dan_again = Raw::login(port, "dan", "dan-secret");
    assert!(dan
        .until(|l| l.contains("Another login of this team took over"))
        .is_some());
    let since = Instant::now();
    assert_eq!(dan.until(|_| true), None, "the first session is closed");
    assert!(
        since.elapsed() < Duration::from_secs(5),
        "closed, not timed out"
    );
    let join = dan_again.until(|l| l.starts_with("/os: join")).unwrap();
    assert!(join.starts_with(&format!("/os: join .{id} 8")), "{join}");
}
