//! The server as a hostile client meets it: slow heads and bodies, too
//! many connections, a flood of wrong secrets against a live game, a
//! hosted program that tries to publish the organiser's token, a disk
//! that fills in the middle of a game, and requests that axum would
//! refuse in plain text. Every hostile client here connects from another
//! loopback address (127.0.0.2 and up) than the honest ones (127.0.0.1),
//! sends a bounded number of requests and stops by itself.

use crate::contests::{admin, hosted, start};
use crate::remote::{call, check_finished, game, new_game, register, scratch, Server, TOKEN};
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A connection to `s` from the loopback address `from`.
fn connect_from(s: &Server, from: [u8; 4]) -> TcpStream {
    let server: SocketAddr = s.url.trim_start_matches("http://").parse().unwrap();
    let socket = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
    socket
        .bind(&SocketAddr::from((from, 0)).into())
        .expect("a loopback source address");
    socket.connect(&server.into()).expect("the server accepts");
    let stream: TcpStream = socket.into();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    stream
}

/// Reads what the server sends until it closes the connection (or 30 s).
fn read_to_close(stream: &mut TcpStream) -> String {
    let mut all = Vec::new();
    let _ = stream.read_to_end(&mut all);
    String::from_utf8_lossy(&all).into_owned()
}

/// One HTTP/1.1 answer on a kept-alive connection: its status and body.
fn answer(stream: &mut TcpStream) -> Option<(u16, String)> {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if stream.read(&mut byte).ok()? == 0 {
            return None;
        }
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head).to_ascii_lowercase();
    let status = head.get(9..12)?.parse().ok()?;
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    let mut body = vec![0u8; length];
    stream.read_exact(&mut body).ok()?;
    Some((status, String::from_utf8_lossy(&body).into_owned()))
}

#[test]
fn slow_and_many_connections_are_cut_off_and_everyone_else_is_answered() {
    let dir = scratch("slow");
    let s = Server::start_with(
        dir.join("arena.db"),
        "127.0.0.1:0",
        &[
            "--request-timeout",
            "2",
            "--idle-timeout",
            "3",
            "--max-conns-per-client",
            "20",
        ],
    );
    register(&s, "alpha", "alpha-secret");
    register(&s, "beta", "beta-secret");
    let id = new_game(&s, "alpha", "beta", 60_000);
    let opened = Instant::now();
    // Sixty half-sent request heads from one address: twenty are held,
    // the rest refused at once.
    let streams: Vec<TcpStream> = (0..60)
        .map(|_| {
            let mut stream = connect_from(&s, [127, 0, 0, 2]);
            let _ = stream.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n");
            stream
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    let mut held = Vec::new();
    let (mut refused, mut told) = (0, 0);
    for mut stream in streams {
        stream
            .set_read_timeout(Some(Duration::from_millis(10)))
            .unwrap();
        let mut first = [0u8; 12];
        match stream.read(&mut first) {
            Ok(n) => {
                // Closed at once: with the answer, or (the client's bytes
                // racing the close) reset before it could be read.
                assert!(
                    n == 0 || first.starts_with(b"HTTP/1.1 429"),
                    "{:?}",
                    &first[..n]
                );
                refused += 1;
                told += usize::from(n > 0);
            }
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => refused += 1,
            Err(_) => held.push(stream),
        }
    }
    assert_eq!((held.len(), refused), (20, 40));
    assert!(told > 0, "no refusal said why");
    // Everyone else is answered meanwhile, at once.
    for _ in 0..5 {
        let asked = Instant::now();
        let (status, reply) = call(&format!("{}/api/games/{id}", s.url), "GET", &[], None);
        assert_eq!(status, 200, "{reply}");
        assert!(asked.elapsed() < Duration::from_secs(1));
    }
    // A body sent a byte at a time is cut off at the request's deadline.
    let mut slow_body = connect_from(&s, [127, 0, 0, 3]);
    slow_body
        .write_all(
            format!(
                "POST /api/games/{id}/move HTTP/1.1\r\nHost: x\r\nX-Team: alpha\r\nX-Secret: alpha-secret\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n"
            )
            .as_bytes(),
        )
        .unwrap();
    let started = Instant::now();
    let mut cut_off = None;
    for _ in 0..20 {
        std::thread::sleep(Duration::from_millis(400));
        if slow_body.write_all(b" ").is_err() {
            break;
        }
        slow_body
            .set_read_timeout(Some(Duration::from_millis(10)))
            .unwrap();
        let mut buf = [0u8; 512];
        if let Ok(n) = slow_body.read(&mut buf) {
            cut_off = Some((
                started.elapsed(),
                String::from_utf8_lossy(&buf[..n]).into_owned(),
            ));
            break;
        }
    }
    let (after, text) = cut_off.expect("the slow body is answered");
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
    assert!(text.contains("\"error\""), "{text}");
    assert!(after < Duration::from_secs(4), "{after:?}");
    // The held heads got 408 at their deadline, and were closed.
    for mut stream in held {
        stream
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        let text = read_to_close(&mut stream);
        assert!(text.starts_with("HTTP/1.1 408"), "{text}");
    }
    assert!(opened.elapsed() < Duration::from_secs(8));
    // A connection that says nothing is closed after the idle timeout,
    // with nothing sent.
    let mut idle = connect_from(&s, [127, 0, 0, 4]);
    let quiet = Instant::now();
    assert_eq!(read_to_close(&mut idle), "");
    let waited = quiet.elapsed();
    assert!(
        waited >= Duration::from_millis(2500) && waited < Duration::from_secs(6),
        "{waited:?}"
    );
    // A long poll is the server's own waiting: it outlasts both timeouts.
    let polled = Instant::now();
    let (status, reply) = call(
        &format!("{}/api/games/{id}/turn?wait=5", s.url),
        "GET",
        &[("x-team", "beta"), ("x-secret", "beta-secret")],
        None,
    );
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["your_turn"], json!(false));
    assert!(polled.elapsed() >= Duration::from_millis(4900));
}

/// An honest bot's side of game `id`: waits for its turn, plays the
/// first legal move. Returns the game's ending and the slowest answer to
/// a move.
fn honest(url: &str, id: i64, team: &str, secret: &str) -> (String, Duration) {
    let agent = crate::remote::agent();
    let mut slowest = Duration::ZERO;
    loop {
        let mut reply = agent
            .get(format!("{url}/api/games/{id}/turn?wait=20"))
            .header("x-team", team)
            .header("x-secret", secret)
            .call()
            .unwrap();
        let status = reply.status().as_u16();
        let g: Value = reply.body_mut().read_json().unwrap();
        assert_eq!(status, 200, "{team}: {g}");
        if let Some(ending) = g["ending"].as_str() {
            return (ending.to_string(), slowest);
        }
        if g["your_turn"] != json!(true) {
            continue;
        }
        let choice = g["legal"][0].as_str().unwrap().to_string();
        let sent = Instant::now();
        let mut reply = agent
            .post(format!("{url}/api/games/{id}/move"))
            .header("x-team", team)
            .header("x-secret", secret)
            .send_json(json!({ "move": choice }))
            .unwrap();
        slowest = slowest.max(sent.elapsed());
        let status = reply.status().as_u16();
        let body = reply.body_mut().read_to_string().unwrap_or_default();
        assert_eq!(status, 200, "{team}'s move {choice}: {body}");
    }
}

#[test]
fn a_flood_of_wrong_secrets_costs_the_flooder_not_the_bot() {
    let dir = scratch("flood");
    let db = dir.join("arena.db");
    let mut s = start(&db, "127.0.0.1:0");
    register(&s, "victim", "victim-secret");
    register(&s, "rival", "rival-secret");
    // Started again: no secret is known good, so the victim's first
    // requests need Argon2, as after every restart.
    s.kill();
    let s = start(&db, "127.0.0.1:0");
    let id = new_game(&s, "victim", "rival", 1000);
    let stop = Arc::new(AtomicBool::new(false));
    let answers = Arc::new(Mutex::new(std::collections::BTreeMap::<u16, usize>::new()));
    let mut flooders = Vec::new();
    // Forty kept-alive connections from one address, each with a secret
    // of its own, as fast as the server answers, for at most 30 s.
    for n in 0..40 {
        let (stop, answers) = (Arc::clone(&stop), Arc::clone(&answers));
        let mut stream = connect_from(&s, [127, 0, 0, 9]);
        flooders.push(std::thread::spawn(move || {
            let since = Instant::now();
            let mut i = 0;
            while !stop.load(Ordering::SeqCst) && since.elapsed() < Duration::from_secs(30) {
                i += 1;
                let request = format!(
                    "GET /api/games/{id}/turn?wait=0 HTTP/1.1\r\nHost: x\r\nX-Team: victim\r\nX-Secret: guess-{n}-{i}\r\n\r\n"
                );
                if stream.write_all(request.as_bytes()).is_err() {
                    return;
                }
                let Some((status, _)) = answer(&mut stream) else {
                    return;
                };
                *answers.lock().unwrap().entry(status).or_default() += 1;
            }
        }));
    }
    std::thread::sleep(Duration::from_millis(300));
    let url = s.url.clone();
    let rival = std::thread::spawn(move || honest(&url, id, "rival", "rival-secret"));
    let (ending, slowest) = honest(&s.url, id, "victim", "victim-secret");
    stop.store(true, Ordering::SeqCst);
    let (rival_ending, _) = rival.join().unwrap();
    for f in flooders {
        let _ = f.join();
    }
    let answers = answers.lock().unwrap().clone();
    println!("flood answers {answers:?}; the victim's slowest move answered in {slowest:?}");
    assert!(!ending.contains("forfeits"), "{ending}");
    assert_eq!(ending, rival_ending);
    check_finished(&game(&s, id));
    assert!(slowest < Duration::from_millis(1000), "{slowest:?}");
    // The flood was refused without checks once it had failed enough.
    assert!(answers.get(&429).copied().unwrap_or(0) > 0, "{answers:?}");
    // At most the bound's ten, and those racing it from the forty.
    assert!(answers.get(&401).copied().unwrap_or(0) <= 50, "{answers:?}");
}

#[test]
fn a_hosted_program_cannot_publish_the_organisers_token() {
    let dir = scratch("leak");
    let s = start(dir.join("arena.db"), "127.0.0.1:0");
    // It prints every variable it can find, its parent's too, then fails.
    let leaker = "echo \"TOKEN=$REVERSI_ADMIN_TOKEN\" >&2; env >&2; \
                  tr '\\0' '\\n' < /proc/$PPID/environ >&2; exit 3";
    hosted(&s, "leaker", leaker);
    register(&s, "honest", "honest-secret");
    register(&s, "nosy", "nosy-secret");
    let id = new_game(&s, "leaker", "honest", 1000);
    let since = Instant::now();
    let g = loop {
        let g = game(&s, id);
        if g["ending"].is_string() {
            break g;
        }
        assert!(since.elapsed() < Duration::from_secs(20), "{g}");
        std::thread::sleep(Duration::from_millis(50));
    };
    let ending = g["ending"].as_str().unwrap();
    assert!(ending.starts_with("black forfeits"), "{ending}");
    assert!(ending.contains("exit status: 3"), "{ending}");
    // Everything anyone can read without the token.
    for path in [
        format!("/api/games/{id}"),
        "/".to_string(),
        format!("/games/{id}"),
        format!("/games/{id}/ggf"),
    ] {
        let mut response = crate::remote::agent()
            .get(format!("{}{path}", s.url))
            .call()
            .unwrap();
        let text = response.body_mut().read_to_string().unwrap();
        assert!(!text.contains(TOKEN), "{path}: {text}");
        assert!(
            !text.contains("TOKEN="),
            "{path}: the program's stderr shown"
        );
    }
    // The organiser reads the program's stderr, and the token is not in it.
    let auth = format!("Bearer {TOKEN}");
    let log_url = format!("{}/api/games/{id}/log?side=black", s.url);
    let (status, log) = call(&log_url, "GET", &[("authorization", &auth)], None);
    assert_eq!(status, 200, "{log}");
    let text = log["log"].as_str().unwrap();
    assert!(text.contains("TOKEN=\n"), "{text}");
    assert!(!text.contains(TOKEN), "{text}");
    assert!(text.contains("PATH="), "{text}");
    // Another team may not read it, nor a stranger.
    let (status, _) = call(
        &log_url,
        "GET",
        &[("x-team", "nosy"), ("x-secret", "nosy-secret")],
        None,
    );
    assert_eq!(status, 403);
    let (status, _) = call(&log_url, "GET", &[], None);
    assert_eq!(status, 401);
}

#[test]
fn refusals_are_json_and_names_are_plain() {
    let dir = scratch("refusals");
    let s = start(dir.join("arena.db"), "127.0.0.1:0");
    let url = &s.url;
    for (method, path, body, status) in [
        ("GET", "/api/games/abc", None, 400),
        ("GET", "/api/games/1/turn?wait=soon", None, 400),
        ("GET", "/api/teams", None, 405),
        ("POST", "/api/teams", Some("x".repeat(20_000)), 413),
    ] {
        let (got, reply) = call(&format!("{url}{path}"), method, &[], body.as_deref());
        assert_eq!(got, status, "{method} {path}: {reply}");
        assert!(reply["error"].is_string(), "{method} {path}: {reply}");
    }
    register(&s, "alpha", "alpha-secret");
    for name in ["ALPHA", "\u{0430}lpha", "al\u{0007}pha"] {
        let body = json!({ "name": name, "secret": "some-secret" }).to_string();
        let (status, reply) = call(&format!("{url}/api/teams"), "POST", &[], Some(&body));
        assert!(status == 409 || status == 422, "{name}: {status} {reply}");
    }
    register(&s, "beta", "beta-secret");
    for name in ["\u{0000}\u{0007}", "tab\there", "line\nbreak"] {
        let (status, reply) = admin(
            &s,
            "/api/contests",
            &json!({ "name": name, "format": "knockout", "entrants": ["alpha", "beta"] }),
        );
        assert_eq!(status, 422, "{name:?}: {reply}");
    }
    let (status, reply) = admin(
        &s,
        "/api/contests",
        &json!({ "name": "no rounds", "format": "ladder", "entrants": ["alpha", "beta"], "games": 0 }),
    );
    assert_eq!(status, 422, "{reply}");
}

/// The database on a 2 MB tmpfs of its own, filled while a game is on:
/// the move that cannot be stored is answered 503 and the bot's clock
/// stops; once there is room again, the move is taken.
#[test]
fn a_full_disk_stops_the_clock_instead_of_losing_the_game() {
    let dir = scratch("full");
    let mount = dir.join("small");
    std::fs::create_dir_all(&mount).unwrap();
    let mounted = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=2m", "tmpfs"])
        .arg(&mount)
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        println!("skipped: no tmpfs could be mounted (the test needs root)");
        return;
    }
    struct Unmount(std::path::PathBuf);
    impl Drop for Unmount {
        fn drop(&mut self) {
            let _ = std::process::Command::new("umount").arg(&self.0).status();
        }
    }
    let _unmount = Unmount(mount.clone());
    let s = start(mount.join("arena.db"), "127.0.0.1:0");
    register(&s, "alpha", "alpha-secret");
    register(&s, "beta", "beta-secret");
    let id = new_game(&s, "alpha", "beta", 1000);
    // Fill the disk, leaving nothing.
    let filler = mount.join("filler");
    let mut file = std::fs::File::create(&filler).unwrap();
    let block = vec![0u8; 64 * 1024];
    while file.write_all(&block).is_ok() {}
    let _ = file.write_all(&[0u8; 1]);
    let _ = file.sync_all();
    let moved = |team: &str, secret: &str, m: &str| {
        call(
            &format!("{}/api/games/{id}/move", s.url),
            "POST",
            &[("x-team", team), ("x-secret", secret)],
            Some(&json!({ "move": m }).to_string()),
        )
    };
    let (status, reply) = moved("alpha", "alpha-secret", "d3");
    if status == 200 {
        println!("skipped: the filled tmpfs still took the move ({reply})");
        return;
    }
    assert_eq!(status, 503, "{reply}");
    assert!(
        reply["error"].as_str().unwrap().contains("send it again"),
        "{reply}"
    );
    // Three move limits pass with the disk full: the game goes on.
    std::thread::sleep(Duration::from_millis(3000));
    drop(file);
    std::fs::remove_file(&filler).unwrap();
    let g = game(&s, id);
    assert!(g["ending"].is_null(), "{g}");
    std::thread::sleep(Duration::from_millis(300));
    let (status, reply) = moved("alpha", "alpha-secret", "d3");
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["moves"], json!(["d3"]));
    assert!(reply["ending"].is_null(), "{reply}");
}

#[test]
fn behind_a_trusted_proxy_the_limits_see_the_address_it_names() {
    let dir = scratch("proxy");
    let wrong = |s: &Server, forwarded: &str| {
        call(
            &format!("{}/api/games/1/turn?wait=0", s.url),
            "GET",
            &[
                ("x-team", "alpha"),
                ("x-secret", "not-the-secret"),
                ("x-forwarded-for", forwarded),
            ],
            None,
        )
        .0
    };
    let flags = ["--rate", "0", "--max-auth-failures", "2"];
    let s = Server::start_with(
        dir.join("trusted.db"),
        "127.0.0.1:0",
        &[&flags[..], &["--trusted-proxy", "127.0.0.1"]].concat(),
    );
    register(&s, "alpha", "alpha-secret");
    // The client is the last address the proxy appended, not what the
    // client wrote before it.
    assert_eq!(wrong(&s, "127.0.0.66"), 401);
    assert_eq!(wrong(&s, "127.0.0.99, 127.0.0.66"), 401);
    assert_eq!(wrong(&s, "127.0.0.66"), 429);
    assert_eq!(wrong(&s, "127.0.0.77"), 401);
    drop(s);
    // Without the flag the header is anyone's word, and is not believed.
    let s = Server::start_with(dir.join("direct.db"), "127.0.0.1:0", &flags);
    register(&s, "alpha", "alpha-secret");
    assert_eq!(wrong(&s, "127.0.0.1"), 401);
    assert_eq!(wrong(&s, "127.0.0.2"), 401);
    assert_eq!(wrong(&s, "127.0.0.3"), 429);
}

/// `--sandbox`: a hosted program cannot read the server's database or
/// reach its port, and what it started goes with it.
#[test]
fn a_sandboxed_hosted_program_cannot_reach_the_server() {
    let dir = scratch("sandboxed");
    let db = dir.join("arena.db");
    let mut child = std::process::Command::new(crate::remote::server_bin())
        .args(["--addr", "127.0.0.1:0", "--rate", "0", "--sandbox", "--db"])
        .arg(&db)
        .env("REVERSI_ADMIN_TOKEN", TOKEN)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.take().unwrap()),
        &mut first,
    )
    .unwrap();
    if !first.starts_with("listening on ") {
        let _ = child.wait();
        let mut why = String::new();
        let _ = child.stderr.take().unwrap().read_to_string(&mut why);
        println!("skipped: no sandbox here: {why}");
        return;
    }
    let url = first.trim().trim_start_matches("listening on ").to_string();
    let port = url.rsplit(':').next().unwrap().to_string();
    // Each deed, done at the program's first turn: exit 7 if stopped.
    let script = dir.join("nosy.sh");
    std::fs::write(
        &script,
        format!(
            "while read l; do case \"$l\" in DONE) echo OK;; BEGIN|TURN*) \
             if cat {} >/dev/null 2>&1 || python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=1)\" 2>/dev/null; \
             then echo ESCAPED; else setsid sleep 4322 & exit 7; fi;; esac; done\n",
            db.display()
        ),
    )
    .unwrap();
    let auth = format!("Bearer {TOKEN}");
    let admin = |path: &str, body: Value| {
        call(
            &format!("{url}{path}"),
            "POST",
            &[("authorization", &auth)],
            Some(&body.to_string()),
        )
    };
    let (status, reply) = admin(
        "/api/teams",
        json!({ "name": "nosy", "command": format!("sh {}", script.display()) }),
    );
    assert_eq!(status, 201, "{reply}");
    let body = json!({ "name": "rival", "secret": "rival-secret" }).to_string();
    assert_eq!(
        call(&format!("{url}/api/teams"), "POST", &[], Some(&body)).0,
        201
    );
    let (status, reply) = admin(
        "/api/games",
        json!({ "black": "nosy", "white": "rival", "move_time_ms": 2000 }),
    );
    assert_eq!(status, 201, "{reply}");
    let id = reply["id"].as_i64().unwrap();
    let since = Instant::now();
    let ending = loop {
        let (_, g) = call(&format!("{url}/api/games/{id}"), "GET", &[], None);
        if let Some(ending) = g["ending"].as_str() {
            break ending.to_string();
        }
        assert!(since.elapsed() < Duration::from_secs(20), "{g}");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(ending.contains("exit status: 7"), "{ending}");
    std::thread::sleep(Duration::from_millis(300));
    let left = std::process::Command::new("pgrep")
        .args(["-f", "sleep 4322"])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&left.stdout).trim().is_empty(),
        "left running"
    );
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn the_languages_name_their_compilers_and_commands() {
    let dir = scratch("languages");
    let s = start(dir.join("arena.db"), "127.0.0.1:0");
    let (status, list) = call(&format!("{}/api/languages", s.url), "GET", &[], None);
    assert_eq!(status, 200, "{list}");
    // Without --sandbox the server takes no submissions, and says so.
    assert_eq!(list["judging"], false, "{list}");
    let list = list["languages"].as_array().unwrap();
    let ids: Vec<&str> = list.iter().filter_map(|l| l["id"].as_str()).collect();
    for id in [
        "c99-gcc",
        "c11-gcc",
        "c99-clang",
        "c11-clang",
        "c++98-g++",
        "c++17-g++",
        "c++14-clang++",
        "rust2021",
        "python3",
    ] {
        assert!(ids.contains(&id), "{id} missing: {ids:?}");
    }
    let c11 = list.iter().find(|l| l["id"] == "c11-gcc").unwrap();
    assert_eq!(c11["build"], "gcc -std=c11 -O2 -o main main.c -lm");
    assert_eq!(c11["run"], "./main");
    let python = list.iter().find(|l| l["id"] == "python3").unwrap();
    assert_eq!(python["run"], "python3 main.py");
    // This machine has gcc (the anchors are built with it): its version.
    assert_eq!(c11["available"], true, "{c11}");
    assert!(c11["version"].as_str().unwrap().starts_with("gcc"), "{c11}");
    let nothing = list.iter().find(|l| l["available"] == false);
    if let Some(l) = nothing {
        assert!(l["version"].is_null(), "{l}");
    }
}
