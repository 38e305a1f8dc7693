//! Load on the arena server from bots that keep to their deadlines: N games
//! at once between quick remote bots, each bot a thread of this process
//! (Rust, so that a thousand bots wake in time on one core, which the
//! Python client `tools/server_load.py` could not do past a few dozen).
//!
//! Starts the server (pinned with `taskset` to `--server-cpus` if given)
//! on a free port with a fresh SQLite database (or `--db`), registers 2N
//! teams, then creates the N games one after the other, each game's bots
//! starting as it is made. Each bot waits for its turn, takes `--think`
//! milliseconds over each move after its first, and posts a random legal
//! move. Prints the moves a second, the round trip of a move (p50, p99,
//! max), the games lost on time, the server's CPU a move and its peak
//! memory. With `--spectators S`, S more threads each open a game's page
//! and follow its stream of events (`/games/ID/events`, reopened as it
//! ends) until the game ends, as a browser on the page does; the server
//! runs with `--no-analysis`, so that its CPU is the games' and the
//! pages'.
//!
//! `cargo run --release -p reversi-server --example load -- --games 500
//! --move-time 1000 --think 900 --server-cpus 1`, with this process pinned
//! to another core (`taskset -c 0 ...`).

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const TOKEN: &str = "load-test-token";

struct Args {
    server: String,
    games: usize,
    move_time: u64,
    think: u64,
    cpus: Option<String>,
    db: Option<String>,
    spectators: usize,
}

fn args() -> Args {
    let mut a = Args {
        server: "target/release/reversi-server".into(),
        games: 100,
        move_time: 1000,
        think: 900,
        cpus: None,
        db: None,
        spectators: 0,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().unwrap_or_else(|| usage(&flag));
        match flag.as_str() {
            "--server" => a.server = value,
            "--games" => a.games = value.parse().unwrap_or_else(|_| usage(&flag)),
            "--move-time" => a.move_time = value.parse().unwrap_or_else(|_| usage(&flag)),
            "--think" => a.think = value.parse().unwrap_or_else(|_| usage(&flag)),
            "--server-cpus" => a.cpus = Some(value),
            "--db" => a.db = Some(value),
            "--spectators" => a.spectators = value.parse().unwrap_or_else(|_| usage(&flag)),
            _ => usage(&flag),
        }
    }
    a
}

fn usage(flag: &str) -> ! {
    eprintln!(
        "load: bad flag or value '{flag}' (--server PATH --games N --move-time MS --think MS \
         --server-cpus LIST --db FILE|URL --spectators N)"
    );
    std::process::exit(2)
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(60)))
        .build()
        .into()
}

fn post(
    agent: &ureq::Agent,
    url: &str,
    headers: &[(&str, &str)],
    body: serde_json::Value,
) -> serde_json::Value {
    let mut request = agent.post(url);
    for (k, v) in headers {
        request = request.header(*k, *v);
    }
    let mut response = request.send_json(body).expect("the server answers");
    response
        .body_mut()
        .read_json()
        .unwrap_or(serde_json::Value::Null)
}

fn get(agent: &ureq::Agent, url: &str, headers: &[(&str, &str)]) -> serde_json::Value {
    let mut request = agent.get(url);
    for (k, v) in headers {
        request = request.header(*k, *v);
    }
    let mut response = request.call().expect("the server answers");
    response
        .body_mut()
        .read_json()
        .unwrap_or(serde_json::Value::Null)
}

/// The process's CPU seconds so far (user and system), from /proc.
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest.split_whitespace().collect())
        .unwrap_or_default();
    // SAFETY: sysconf has no preconditions.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    let field = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (field(11) + field(12)) / ticks
}

fn peak_memory_mb(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|kb| kb.parse::<f64>().ok())
        .unwrap_or(0.0)
        / 1024.0
}

#[derive(Default)]
struct Tally {
    latencies: Vec<Duration>,
    endings: Vec<String>,
    /// Events the spectators were sent, and the pages' bytes.
    events: usize,
    page_bytes: usize,
}

fn main() {
    let a = args();
    let dir = std::env::temp_dir().join(format!("reversi-load-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db =
        a.db.clone()
            .unwrap_or_else(|| dir.join("arena.db").display().to_string());
    let mut command = match &a.cpus {
        Some(cpus) => {
            let mut c = Command::new("taskset");
            c.args(["-c", cpus, &a.server]);
            c
        }
        None => Command::new(&a.server),
    };
    let mut server = command
        .args(["--addr", "127.0.0.1:0", "--db", &db, "--rate", "0"])
        // Every bot is this one address, a connection each.
        .args(["--max-conns-per-client", "0", "--max-conns", "100000"])
        .arg("--no-analysis")
        .env("REVERSI_ADMIN_TOKEN", TOKEN)
        .stdout(Stdio::piped())
        .spawn()
        .expect("the server starts");
    let mut first = String::new();
    BufReader::new(server.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let url = first.trim().rsplit(' ').next().unwrap().to_string();
    let pid = server.id();
    let agent = agent();
    let started = Instant::now();
    let teams: Vec<(String, String)> = (0..2 * a.games)
        .map(|i| (format!("team{i}"), format!("secret-{i:06}")))
        .collect();
    for (name, secret) in &teams {
        post(
            &agent,
            &format!("{url}/api/teams"),
            &[],
            serde_json::json!({ "name": name, "secret": secret }),
        );
    }
    eprintln!(
        "{} teams registered in {:.1} s",
        teams.len(),
        started.elapsed().as_secs_f64()
    );
    let tally = Arc::new(Mutex::new(Tally::default()));
    let auth = format!("Bearer {TOKEN}");
    let cpu0 = cpu_seconds(pid);
    let t0 = Instant::now();
    let mut bots = Vec::new();
    let mut ids = Vec::new();
    for g in 0..a.games {
        let reply = post(
            &agent,
            &format!("{url}/api/games"),
            &[("authorization", &auth)],
            serde_json::json!({ "black": teams[2 * g].0, "white": teams[2 * g + 1].0,
                                "move_time_ms": a.move_time }),
        );
        let id = reply["id"].as_i64().expect("a game is made");
        ids.push(id);
        for side in 0..2 {
            let (name, secret) = teams[2 * g + side].clone();
            let url = url.clone();
            let tally = Arc::clone(&tally);
            let think = Duration::from_millis(a.think);
            let seed = (2 * g + side) as u64;
            bots.push(
                std::thread::Builder::new()
                    .stack_size(256 * 1024)
                    .spawn(move || bot(&url, id, &name, &secret, think, seed, &tally))
                    .expect("a thread a bot"),
            );
        }
    }
    for k in 0..a.spectators {
        let url = url.clone();
        let tally = Arc::clone(&tally);
        let id = ids[k % ids.len()];
        bots.push(
            std::thread::Builder::new()
                .stack_size(256 * 1024)
                .spawn(move || spectator(&url, id, &tally))
                .expect("a thread a spectator"),
        );
    }
    for b in bots {
        let _ = b.join();
    }
    let wall = t0.elapsed().as_secs_f64();
    let cpu = cpu_seconds(pid) - cpu0;
    let memory = peak_memory_mb(pid);
    let _ = server.kill();
    let _ = server.wait();
    let _ = std::fs::remove_dir_all(&dir);
    let mut tally = tally.lock().unwrap();
    tally.latencies.sort();
    let moves = tally.latencies.len();
    let pick = |q: f64| {
        tally
            .latencies
            .get(((q * moves as f64) as usize).min(moves.saturating_sub(1)))
            .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
    };
    let lost: Vec<&String> = tally
        .endings
        .iter()
        .filter(|e| e.contains("forfeits"))
        .collect();
    println!(
        "{} games at once ({} ms a move, bots think {} ms): {moves} moves in {wall:.1} s, {:.0} moves/s",
        a.games,
        a.move_time,
        a.think,
        moves as f64 / wall
    );
    println!(
        "a move's round trip: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        pick(0.5),
        pick(0.99),
        pick(1.0)
    );
    println!(
        "server CPU {cpu:.1} s, {:.2} ms a move, {:.0}% of one core; peak memory {memory:.1} MB",
        1000.0 * cpu / moves.max(1) as f64,
        100.0 * cpu / wall
    );
    // Each game's ending is seen by both its bots.
    println!(
        "games ended: {}, lost on time or otherwise forfeited: {}",
        tally.endings.len() / 2,
        lost.len() / 2
    );
    for e in lost.iter().take(3) {
        println!("  e.g. {e}");
    }
    if a.spectators > 0 {
        println!(
            "{} spectators: {} events, {:.1} KB of pages each",
            a.spectators,
            tally.events,
            tally.page_bytes as f64 / a.spectators as f64 / 1024.0
        );
    }
}

/// A browser on game `id`'s page: the page, then its stream of events,
/// opened again as each ends, until the game has ended.
fn spectator(url: &str, id: i64, tally: &Mutex<Tally>) {
    let agent = agent();
    let page = agent
        .get(format!("{url}/games/{id}"))
        .call()
        .ok()
        .and_then(|mut r| r.body_mut().read_to_string().ok())
        .unwrap_or_default();
    tally.lock().unwrap().page_bytes += page.len();
    loop {
        let Ok(mut response) = agent.get(format!("{url}/games/{id}/events")).call() else {
            std::thread::sleep(Duration::from_millis(100));
            continue;
        };
        let mut ended = false;
        for line in BufReader::new(response.body_mut().as_reader()).lines() {
            let Ok(line) = line else { break };
            if line.starts_with("event: game") {
                tally.lock().unwrap().events += 1;
            }
            if line.starts_with("data: ") && !line.contains("\"ending\":null") {
                ended = true;
            }
        }
        if ended {
            return;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn bot(
    url: &str,
    id: i64,
    name: &str,
    secret: &str,
    think: Duration,
    seed: u64,
    tally: &Mutex<Tally>,
) {
    let agent = agent();
    let mut rng = fastrand::Rng::with_seed(seed);
    let headers = [("x-team", name), ("x-secret", secret)];
    loop {
        let g = get(
            &agent,
            &format!("{url}/api/games/{id}/turn?wait=30"),
            &headers,
        );
        if let Some(ending) = g["ending"].as_str() {
            tally.lock().unwrap().endings.push(ending.to_string());
            return;
        }
        if g["your_turn"] != serde_json::json!(true) {
            if g.is_null() {
                std::thread::sleep(Duration::from_millis(50));
            }
            continue;
        }
        let legal = g["legal"].as_array().cloned().unwrap_or_default();
        if legal.is_empty() {
            continue;
        }
        let choice = legal[rng.usize(..legal.len())]
            .as_str()
            .unwrap_or("pass")
            .to_string();
        if g["moves"].as_array().is_some_and(|m| m.len() > 1) {
            std::thread::sleep(think);
        }
        let t0 = Instant::now();
        post(
            &agent,
            &format!("{url}/api/games/{id}/move"),
            &headers,
            serde_json::json!({ "move": choice }),
        );
        tally.lock().unwrap().latencies.push(t0.elapsed());
    }
}
