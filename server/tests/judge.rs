//! The online judge as teams meet it: programs submitted through the API
//! in each language (our own bundle among them) become active and play; a
//! compile error is rejected with the compiler's message; hostile programs
//! end as their verdicts with nothing left running while another game
//! goes on unharmed; a team sees only its own programs; an Elo pool of
//! submitted programs comes out as `reversi tournament` does, and a new
//! version enters it first.
//!
//! The judge needs bubblewrap (`make test-deps` installs it). Where the
//! machine has no cgroup controller to limit memory and processes, the
//! server runs with `--allow-weak-sandbox` and the tests of those limits
//! say skipped, with why.

use crate::contests::{admin, new_contest, wait_for};
use crate::remote::{call, game, register, reversi_bin, scratch, Server, TOKEN};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A judging server: `None` (said) where this machine has no bubblewrap.
/// Its second part says why memory and processes are not limited, if
/// they are not.
pub fn start_judge(dir: &Path, db: &str) -> Option<(Server, Option<String>)> {
    let programs = dir.join("programs").display().to_string();
    let mut flags = vec![
        "--rate",
        "0",
        "--sandbox",
        "--compilers",
        "2",
        "--programs-dir",
        &programs,
    ];
    match Server::try_start_with(db, "127.0.0.1:0", &flags) {
        Ok(s) => Some((s, None)),
        Err(why) if why.contains("--allow-weak-sandbox") => {
            flags.push("--allow-weak-sandbox");
            let s = Server::try_start_with(db, "127.0.0.1:0", &flags).unwrap();
            Some((s, Some(why)))
        }
        Err(why) => {
            println!("skipped: {why}");
            None
        }
    }
}

pub fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/judge")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn secret(team: &str) -> String {
    format!("{team}-secret")
}

/// `team`'s headers.
fn as_team(team: &str) -> [(&'static str, String); 2] {
    [("x-team", team.to_string()), ("x-secret", secret(team))]
}

fn team_call(
    s: &Server,
    team: &str,
    method: &str,
    path: &str,
    body: Option<&Value>,
) -> (u16, Value) {
    let headers = as_team(team);
    let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let body = body.map(Value::to_string);
    call(
        &format!("{}{path}", s.url),
        method,
        &headers,
        body.as_deref(),
    )
}

/// Submits `source` as `team` in `language`; the program's id.
pub fn submit(s: &Server, team: &str, language: &str, source: &str) -> i64 {
    let body = json!({ "language": language, "source": source });
    let (status, reply) = team_call(s, team, "POST", "/api/programs", Some(&body));
    assert_eq!(status, 201, "{team}: {reply}");
    assert_eq!(reply["state"], "queued");
    reply["id"].as_i64().unwrap()
}

/// Program `id` once the judge has given its verdict (at most `secs`).
pub fn verdict(s: &Server, team: &str, id: i64, secs: u64) -> Value {
    let since = Instant::now();
    loop {
        let (status, p) = team_call(s, team, "GET", &format!("/api/programs/{id}"), None);
        assert_eq!(status, 200, "{p}");
        let state = p["state"].as_str().unwrap().to_string();
        if ["active", "rejected", "ineffective", "retired"].contains(&state.as_str()) {
            return p;
        }
        assert!(
            since.elapsed() < Duration::from_secs(secs),
            "program {id} of {team} still {state} after {secs} s"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Registers `team` and has its program in `language` made active.
pub fn active(s: &Server, team: &str, language: &str, source: &str) -> i64 {
    register(s, team, &secret(team));
    let id = submit(s, team, language, source);
    let p = verdict(s, team, id, 90);
    assert_eq!(p["state"], "active", "{team}: {p}");
    id
}

/// Our bot as one Rust file, as `reversi bundle` writes it.
fn bundle(dir: &Path) -> String {
    let out = dir.join("bundle.rs");
    let status = Command::new(reversi_bin())
        .args(["bundle", "--out"])
        .arg(&out)
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    std::fs::read_to_string(out).unwrap()
}

/// Game `id` once ended (at most `secs`).
pub fn ended(s: &Server, id: i64, secs: u64) -> Value {
    let since = Instant::now();
    loop {
        let g = game(s, id);
        if !g["ending"].is_null() {
            return g;
        }
        assert!(since.elapsed() < Duration::from_secs(secs), "{g}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

pub fn new_game(s: &Server, black: &str, white: &str, move_time_ms: u64) -> i64 {
    let (status, reply) = admin(
        s,
        "/api/games",
        &json!({ "black": black, "white": white, "move_time_ms": move_time_ms }),
    );
    assert_eq!(status, 201, "{reply}");
    reply["id"].as_i64().unwrap()
}

/// The processes whose command line holds `text`, other than the search.
fn running(text: &str) -> String {
    let out = Command::new("pgrep").args(["-af", text]).output().unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.contains("pgrep"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn programs_in_every_language_become_active_and_play_and_teams_see_only_their_own() {
    // Its games run at the judge's second, our bot answering at 850 ms.
    let _cores = crate::remote::cores();
    let dir = scratch("judge-languages");
    let Some((s, _)) = start_judge(&dir, &dir.join("arena.db").display().to_string()) else {
        return;
    };
    let (status, languages) = call(&format!("{}/api/languages", s.url), "GET", &[], None);
    assert_eq!(status, 200);
    assert_eq!(languages["judging"], true);
    let c = active(&s, "c-team", "c99-gcc", &fixture("greedy.c"));
    let cpp = active(&s, "cpp-team", "c++98-g++", &fixture("greedy.cpp"));
    let rust = active(&s, "rust-team", "rust2021", &fixture("greedy.rs"));
    let py = active(&s, "py-team", "python3", &fixture("greedy.py"));
    let ours = active(&s, "bundle-team", "rust2021", &bundle(&dir));

    // A compile error: rejected, with gcc's own message.
    register(&s, "typo", &secret("typo"));
    let id = submit(&s, "typo", "c11-gcc", "int main(void) { return 0 }\n");
    let p = verdict(&s, "typo", id, 60);
    assert_eq!(p["state"], "rejected", "{p}");
    assert_eq!(p["reason"], "it does not compile");
    let log = p["compile_log"].as_str().unwrap();
    assert!(log.contains("main.c:1:") && log.contains("error"), "{log}");
    assert!(!log.contains(&*dir.display().to_string()), "{log}");

    // The team's page does the same with a form, scripts or none, and
    // shows the compiler's words as text.
    let mut typo = crate::pages::Visitor::new(&s);
    let page = typo.submit(
        "/login",
        "/login",
        &[("team", "typo"), ("secret", &secret("typo"))],
    );
    assert_eq!(page.location.as_deref(), Some("/team"), "{}", page.html);
    let page = typo.get("/team");
    assert!(
        page.html.contains("<option value=\"c11-gcc\">"),
        "{}",
        page.html
    );
    let shouting = "#error <b>not bold</b>\n";
    let page = typo.submit(
        "/team",
        "/team",
        &[("language", "c99-gcc"), ("source", shouting)],
    );
    assert_eq!(page.status, 200, "{}", page.html);
    let id: i64 = page
        .html
        .split("Program ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{}", page.html));
    assert_eq!(verdict(&s, "typo", id, 60)["state"], "rejected");
    let html = typo.get("/team").html;
    assert!(html.contains("&lt;b&gt;not bold&lt;/b&gt;"), "{html}");
    assert!(!html.contains("<b>not bold"), "{html}");
    assert!(
        !html.contains("greedy"),
        "another team's program shown: {html}"
    );

    // What is refused, and why.
    for (body, status) in [
        (json!({ "language": "cobol", "source": "x" }), 422),
        (json!({ "language": "c11-gcc", "source": "  \n" }), 422),
        (json!({ "language": "c11-gcc" }), 400),
        (
            json!({ "language": "c11-gcc", "source": "x".repeat(256 * 1024 + 1) }),
            413,
        ),
    ] {
        let (got, reply) = team_call(&s, "typo", "POST", "/api/programs", Some(&body));
        assert_eq!(got, status, "{reply}");
        assert!(reply["error"].is_string(), "{reply}");
    }
    let anonymous = json!({ "language": "c11-gcc", "source": "int main;" }).to_string();
    let (got, _) = call(
        &format!("{}/api/programs", s.url),
        "POST",
        &[],
        Some(&anonymous),
    );
    assert_eq!(got, 401);

    // The honour code: a team sees its own programs and sources, no other
    // team's; the organiser sees and downloads all.
    let (got, own) = team_call(&s, "py-team", "GET", "/api/programs", None);
    assert_eq!(got, 200);
    let ids: Vec<i64> = own
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, vec![py]);
    let (got, _) = team_call(&s, "py-team", "GET", &format!("/api/programs/{c}"), None);
    assert_eq!(got, 403);
    let (got, _) = team_call(
        &s,
        "py-team",
        "GET",
        &format!("/api/programs/{c}/source"),
        None,
    );
    assert_eq!(got, 403);
    let auth = format!("Bearer {TOKEN}");
    let source = crate::remote::agent()
        .get(format!("{}/api/programs/{c}/source", s.url))
        .header("authorization", &auth)
        .call()
        .unwrap()
        .body_mut()
        .read_to_string()
        .unwrap();
    assert_eq!(source, fixture("greedy.c"));
    let (got, all) = call(
        &format!("{}/api/programs", s.url),
        "GET",
        &[("authorization", &auth)],
        None,
    );
    assert_eq!(got, 200);
    assert_eq!(all.as_array().unwrap().len(), 7);

    // They play, as hosted sides in the sandbox: the four greedy programs
    // play alike, and our bot beats them.
    let games = [
        (new_game(&s, "c-team", "py-team", 1000), Some("white")),
        (new_game(&s, "rust-team", "cpp-team", 1000), Some("white")),
        (new_game(&s, "bundle-team", "c-team", 1000), Some("black")),
        (new_game(&s, "py-team", "bundle-team", 1000), Some("white")),
    ];
    // Nobody plays a side for its program, not even its own team.
    let body = json!({ "move": "d3" });
    let (got, reply) = team_call(
        &s,
        "bundle-team",
        "POST",
        &format!("/api/games/{}/move", games[2].0),
        Some(&body),
    );
    assert_eq!(got, 409, "{reply}");
    assert!(
        reply["error"].as_str().unwrap().contains("program"),
        "{reply}"
    );
    for (id, winner) in games {
        let g = ended(&s, id, 180);
        let ending = g["ending"].as_str().unwrap();
        assert!(!ending.contains("forfeits"), "{g}");
        let (black, white) = ending
            .split_whitespace()
            .nth(1)
            .and_then(|score| score.split_once('-'))
            .map(|(b, w)| (b.parse::<u32>().unwrap(), w.parse::<u32>().unwrap()))
            .unwrap_or_else(|| panic!("{ending}"));
        let won = match black.cmp(&white) {
            std::cmp::Ordering::Greater => Some("black"),
            std::cmp::Ordering::Less => Some("white"),
            std::cmp::Ordering::Equal => None,
        };
        assert_eq!(won, winner, "{g}");
        assert!(g["programs"]["black"].is_i64() && g["programs"]["white"].is_i64());
    }
    let g = game(&s, games[2].0);
    assert_eq!(g["programs"]["black"], ours);
    assert_eq!(g["programs"]["white"], c);
    let _ = (cpp, rust);
}

/// A hostile program's source: the greedy C player, doing `deed` (after
/// `includes`) at its first turn, then playing on if it still can.
fn hostile(includes: &str, deed: &str) -> String {
    let greedy = fixture("greedy.c");
    let source = greedy.replacen(
        "static void reply(void) {",
        &format!(
            "static void reply(void) {{\n    static int done = 0;\n    if (!done++) {{ {deed} }}"
        ),
        1,
    );
    format!("#define _GNU_SOURCE\n{includes}\n{source}")
}

/// A line that makes the program's reply no move: it got what it tried for.
const ESCAPED: &str = "printf(\"ESCAPED\\n\"); fflush(stdout);";

#[test]
fn hostile_programs_end_as_their_verdicts_and_harm_nothing() {
    let dir = scratch("judge-hostile");
    let db = dir.join("arena.db");
    let Some((s, weak)) = start_judge(&dir, &db.display().to_string()) else {
        return;
    };
    // Two honest programs play a game throughout.
    active(&s, "honest-a", "c11-gcc", &fixture("greedy.c"));
    let other = active(&s, "honest-b", "c11-gcc", &fixture("greedy.c"));
    let other_program = dir.join(format!("programs/program-{other}/main"));
    assert!(other_program.is_file(), "{}", other_program.display());
    // Outside /tmp (the scratch folder is in it, and a program's /tmp is
    // its own).
    let outside = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/written-by-a-program");
    let _ = std::fs::remove_file(&outside);
    let port = s.port();
    let probe = |what: &str| format!("if ({what}) {{ {ESCAPED} }}");
    let mut cases: Vec<(&str, String, &str)> = vec![
        (
            "loops",
            hostile("", "volatile unsigned long n = 0; for (;;) n++;"),
            "ineffective",
        ),
        (
            "sleeps",
            hostile("#include <unistd.h>", "sleep(1000);"),
            "ineffective",
        ),
        (
            "floods-stdout",
            hostile(
                "#include <stdlib.h>",
                "static char b[1 << 20]; memset(b, 'x', sizeof b); \
                 for (int i = 0; i < 1024; i++) fwrite(b, 1, sizeof b, stdout); fflush(stdout);",
            ),
            "ineffective",
        ),
        (
            "floods-stderr",
            hostile(
                "#include <unistd.h>",
                "static char b[1 << 20]; memset(b, 'x', sizeof b); \
                 for (int i = 0; i < 1024; i++) fwrite(b, 1, sizeof b, stderr); for (;;) pause();",
            ),
            "ineffective",
        ),
        (
            "connects",
            hostile(
                "#include <arpa/inet.h>\n#include <sys/socket.h>\n#include <unistd.h>",
                &format!(
                    "struct sockaddr_in a; memset(&a, 0, sizeof a); a.sin_family = AF_INET; \
                     a.sin_port = htons({port}); a.sin_addr.s_addr = htonl(0x7f000001); \
                     int fd = socket(AF_INET, SOCK_STREAM, 0); \
                     {}",
                    probe("fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0")
                ),
            ),
            "active",
        ),
        (
            "reads",
            hostile(
                "",
                &probe(&format!(
                    "fopen(\"{}\", \"r\") || fopen(\"{}\", \"r\")",
                    db.display(),
                    other_program.display()
                )),
            ),
            "active",
        ),
        (
            "writes",
            hostile(
                "",
                &probe(&format!(
                    "fopen(\"{}\", \"w\") || fopen(\"/usr/written\", \"w\") \
                     || fopen(\"written-here\", \"w\")",
                    outside.display()
                )),
            ),
            "active",
        ),
        (
            "leaves-a-child",
            hostile(
                "#include <unistd.h>",
                "if (fork() == 0) { setsid(); execlp(\"sleep\", \"sleep\", \"4323\", (char *)0); _exit(0); }",
            ),
            "active",
        ),
        (
            "kills-everyone",
            hostile("#include <signal.h>", "kill(-1, SIGKILL);"),
            "active",
        ),
    ];
    match &weak {
        Some(why) => println!(
            "skipped: the fork bomb and the 4 GB allocation: no cgroup limits them here ({why})"
        ),
        None => {
            cases.push((
                "forks",
                hostile("#include <unistd.h>", "for (;;) fork();"),
                "ineffective",
            ));
            cases.push((
                "allocates",
                hostile(
                    "#include <stdlib.h>",
                    "size_t n = (size_t)4 << 30; char *p = malloc(n); \
                     if (p) for (size_t i = 0; i < n; i += 4096) p[i] = 1;",
                ),
                "ineffective",
            ));
        }
    }
    // Our bot against itself, 300 ms a move, hosted: a game that lasts
    // as long as the hostile programs are judged.
    let bot = reversi_bin().display().to_string();
    crate::contests::hosted(&s, "steady-black", &bot);
    crate::contests::hosted(&s, "steady-white", &bot);
    let game_id = new_game(&s, "steady-black", "steady-white", 300);
    let mut submitted = Vec::new();
    for (name, source, _) in &cases {
        register(&s, name, &secret(name));
        submitted.push(submit(&s, name, "c11-gcc", source));
    }
    for ((name, _, expected), id) in cases.iter().zip(&submitted) {
        let p = verdict(&s, name, *id, 120);
        assert_eq!(p["state"], *expected, "{name}: {p}");
        // The server answers as ever.
        let asked = Instant::now();
        let (status, _) = call(&format!("{}/api/games/{game_id}", s.url), "GET", &[], None);
        assert_eq!(status, 200);
        assert!(asked.elapsed() < Duration::from_secs(2), "{name}");
    }
    let reason = |name: &str| {
        let at = cases.iter().position(|(n, _, _)| *n == name).unwrap();
        let (_, p) = team_call(
            &s,
            name,
            "GET",
            &format!("/api/programs/{}", submitted[at]),
            None,
        );
        p["reason"].as_str().unwrap().to_string()
    };
    if weak.is_none() {
        assert!(
            reason("allocates").contains("memory"),
            "{}",
            reason("allocates")
        );
    }
    assert!(
        reason("floods-stdout").contains("as black"),
        "{}",
        reason("floods-stdout")
    );
    // What a program wrote to stderr in its check is its team's to read,
    // its end kept: a gigabyte of it costs a few kilobytes.
    let at = cases
        .iter()
        .position(|(n, _, _)| *n == "floods-stderr")
        .unwrap();
    let (_, p) = team_call(
        &s,
        "floods-stderr",
        "GET",
        &format!("/api/programs/{}", submitted[at]),
        None,
    );
    let log = p["check_log"].as_str().unwrap();
    assert!(
        log.ends_with("xxxx") && log.len() < 17 * 1024,
        "{} bytes",
        log.len()
    );
    assert!(!outside.exists(), "a program wrote {}", outside.display());
    assert!(!Path::new("/usr/written").exists());
    assert!(!Path::new("written-here").exists());
    // The game went on unharmed, every move in time.
    let g = ended(&s, game_id, 120);
    assert!(!g["ending"].as_str().unwrap().contains("forfeits"), "{g}");
    assert!(g["moves"].as_array().unwrap().len() > 20, "{g}");
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(running("sleep 4323"), "", "a child was left behind");
    let programs = dir.join("programs/program-");
    assert_eq!(
        running(&programs.display().to_string()),
        "",
        "programs left running"
    );
}

/// The players file of `reversi tournament` for the programs built from
/// `(team, source file, language)`, built here as the judge builds them.
fn local_players(dir: &Path, teams: &[(&str, &str, &str)]) -> PathBuf {
    let mut lines = String::new();
    for (team, file, _) in teams {
        let source = dir.join(file);
        let command = if file.ends_with(".py") {
            format!("python3 {}", source.display())
        } else {
            let out = dir.join(format!("{team}.bin"));
            let (compiler, flags): (&str, &[&str]) = match file.rsplit('.').next() {
                Some("c") => ("gcc", &["-std=c99", "-O2", "-lm"]),
                Some("cpp") => ("g++", &["-std=c++98", "-O2"]),
                _ => ("rustc", &["--edition", "2021", "-O"]),
            };
            let status = Command::new(compiler)
                .args(flags)
                .arg("-o")
                .arg(&out)
                .arg(&source)
                .status()
                .unwrap();
            assert!(status.success(), "{file}");
            out.display().to_string()
        };
        lines.push_str(&format!("{team}: {command}\n"));
    }
    let players = dir.join("players.txt");
    std::fs::write(&players, lines).unwrap();
    players
}

#[test]
fn an_elo_pool_of_submitted_programs_comes_out_as_reversi_tournament_does() {
    let dir = scratch("judge-pool");
    let Some((s, _)) = start_judge(&dir, &dir.join("arena.db").display().to_string()) else {
        return;
    };
    std::fs::write(dir.join("bundle.rs"), bundle(&dir)).unwrap();
    for file in ["greedy.c", "greedy.cpp", "greedy.rs", "greedy.py"] {
        std::fs::write(dir.join(file), fixture(file)).unwrap();
    }
    let teams = [
        ("c", "greedy.c", "c99-gcc"),
        ("cpp", "greedy.cpp", "c++98-g++"),
        ("rust", "greedy.rs", "rust2021"),
        ("python", "greedy.py", "python3"),
        ("ours", "bundle.rs", "rust2021"),
    ];
    for (team, file, language) in teams {
        let source = std::fs::read_to_string(dir.join(file)).unwrap();
        active(&s, team, language, &source);
    }
    let names: Vec<&str> = teams.iter().map(|t| t.0).collect();
    let id = new_contest(
        &s,
        &json!({ "name": "Lab", "format": "elo", "entrants": names, "games": 12,
                 "seed": 5, "move_time_ms": 300 }),
    );
    let c = wait_for(&s, id, 300, |c| c["state"] == json!("finished"));
    let out = dir.join("local");
    let status = Command::new(reversi_bin())
        .args([
            "tournament",
            "--format",
            "elo",
            "--games",
            "12",
            "--seed",
            "5",
        ])
        .args(["--move-time", "300", "--jobs", "64", "--players"])
        .arg(local_players(&dir, &teams))
        .arg("--out")
        .arg(&out)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let local: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("standings.json")).unwrap())
            .unwrap();
    assert_eq!(c["standings"], local, "the server's, then the tournament's");
    // Every game was played by the programs, none lost on a technicality.
    for g in c["games"].as_array().unwrap() {
        assert!(!g["ending"].as_str().unwrap().contains("forfeits"), "{g}");
    }

    // A pool that never ends: the python team's new version enters it
    // first, before its next game is made.
    let pool = new_contest(
        &s,
        &json!({ "name": "Open lab", "format": "elo", "entrants": names, "games": 0,
                 "seed": 6, "move_time_ms": 300 }),
    );
    wait_for(&s, pool, 120, |c| c["games_played"].as_u64() >= Some(4));
    let v2 = fixture("greedy.py").replace("# A greedy", "# Version 2: a greedy");
    let newer = submit(&s, "python", "python3", &v2);
    assert_eq!(verdict(&s, "python", newer, 90)["state"], "active");
    let c = wait_for(&s, pool, 120, |c| {
        let renewed = c["renewals"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["program"] == newer)
            .and_then(|r| r["before_game"].as_i64());
        renewed.is_some_and(|at| {
            c["games"]
                .as_array()
                .unwrap()
                .iter()
                .any(|g| g["seq"] == at)
        })
    });
    let at = c["renewals"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["program"] == newer)
        .unwrap()["before_game"]
        .clone();
    let first = c["games"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["seq"] == at)
        .unwrap();
    let first = game(&s, first["id"].as_i64().unwrap());
    assert!(
        first["black"] == "python" || first["white"] == "python",
        "the first game after the new version is not its: {first}"
    );
    assert!(
        first["programs"]["black"] == newer || first["programs"]["white"] == newer,
        "{first}"
    );
}
