//! The tools against what a hostile or careless world hands them: output
//! paths that are no regular file, inputs without end, servers that
//! redirect, never take a move, or send terminal escapes; and the small
//! cases where a tool read its input wrongly.

use crate::util::{bin, fixture, run, scratch, text, Conversation};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const GAME: &str = "f5d6c3d3c4f4f6f3e6e7";

#[test]
fn special_output_files_are_written_in_place_never_replaced() {
    let dir = scratch("special-out");
    // A FIFO nobody reads: one line, exit 1, the FIFO still a FIFO.
    let fifo = dir.join("fifo");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let out = run(&["show", GAME, "--html", fifo.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("nobody reads"),
        "{}",
        text(&out.stderr)
    );
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::symlink_metadata(&fifo)
        .unwrap()
        .file_type()
        .is_fifo());
    // A link to the program's own stdout: the page goes there, the link stays.
    let link = dir.join("to-stdout");
    std::os::unix::fs::symlink("/proc/self/fd/1", &link).unwrap();
    let out = run(&["show", GAME, "--html", link.to_str().unwrap()], b"");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("<html"), "{}", text(&out.stdout));
    assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
    // A regular file is still replaced whole.
    let page = dir.join("page.html");
    std::fs::write(&page, "old").unwrap();
    let out = run(&["show", GAME, "--html", page.to_str().unwrap()], b"");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(std::fs::read_to_string(&page).unwrap().contains("<html"));
}

/// Runs the binary with `args` under a 1 GB address-space cap.
fn run_capped(args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let mut line = String::from("ulimit -v 1000000; exec \"$0\"");
    for i in 0..args.len() {
        line.push_str(&format!(" \"${}\"", i + 1));
    }
    Command::new("sh")
        .arg("-c")
        .arg(line)
        .arg(bin())
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn endless_and_oversized_inputs_stop_with_one_line() {
    let dir = scratch("big-in");
    for args in [
        vec!["show", "/dev/zero"],
        vec!["solve", "/dev/zero"],
        vec!["tournament", "--players", "/dev/zero"],
        vec!["analyze", "/dev/zero"],
    ] {
        let since = Instant::now();
        let out = run_capped(&args, &[]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(stderr.contains("over 64 MB"), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(since.elapsed() < Duration::from_secs(30), "{args:?}");
    }
    // The cap is the user's to set.
    let big = dir.join("big.txt");
    std::fs::write(&big, GAME.repeat(200_000)).unwrap();
    let out = run_capped(
        &["show", big.to_str().unwrap()],
        &[("REVERSI_MAX_INPUT_MB", "1")],
    );
    assert!(
        text(&out.stderr).contains("over 1 MB"),
        "{}",
        text(&out.stderr)
    );
}

/// A fake arena server on a free port: `answer` gives the response to
/// each request (its method and path); returns the port and a count of
/// the requests that carried the team's secret.
fn fake_server(
    answer: impl Fn(&str, &str) -> String + Send + Sync + 'static,
) -> (u16, Arc<AtomicUsize>, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let with_secret = Arc::new(AtomicUsize::new(0));
    let posts = Arc::new(AtomicUsize::new(0));
    let (secrets, counted) = (Arc::clone(&with_secret), Arc::clone(&posts));
    let answer = Arc::new(answer);
    std::thread::spawn(move || {
        for stream in listener.incoming().take(10_000) {
            let Ok(stream) = stream else { continue };
            let (answer, secrets, counted) = (
                Arc::clone(&answer),
                Arc::clone(&secrets),
                Arc::clone(&counted),
            );
            std::thread::spawn(move || serve_one(stream, &*answer, &secrets, &counted));
        }
    });
    (port, with_secret, posts)
}

fn serve_one(
    stream: TcpStream,
    answer: &dyn Fn(&str, &str) -> String,
    secrets: &AtomicUsize,
    posts: &AtomicUsize,
) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut first = String::new();
    if reader.read_line(&mut first).unwrap_or(0) == 0 {
        return;
    }
    let mut parts = first.split_whitespace();
    let (method, path) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let mut length = 0;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
            break;
        }
        let lower = line.to_ascii_lowercase();
        if lower.starts_with("x-secret:") {
            secrets.fetch_add(1, Ordering::SeqCst);
        }
        if let Some(v) = lower.strip_prefix("content-length:") {
            length = v.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0u8; length];
    let _ = reader.read_exact(&mut body);
    if method == "POST" {
        posts.fetch_add(1, Ordering::SeqCst);
    }
    let mut stream = stream;
    let _ = stream.write_all(answer(method, path).as_bytes());
}

fn json_answer(body: &str) -> String {
    format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
}

fn connect(port: u16) -> std::process::Child {
    Command::new(bin())
        .args([
            "connect",
            &format!("http://127.0.0.1:{port}"),
            "--team",
            "t",
        ])
        .args(["--game", "1", "--", "self", "--depth", "1"])
        .env("REVERSI_SECRET", "team-secret")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn connect_sends_the_secret_to_no_other_origin() {
    let (elsewhere, secrets_elsewhere, _) = fake_server(|_, _| json_answer("{}"));
    let (port, _, _) = fake_server(move |_, _| {
        format!(
            "HTTP/1.1 307 Temporary Redirect\r\nlocation: http://127.0.0.1:{elsewhere}/api/games/1\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
        )
    });
    let out = connect(port).wait_with_output().unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("redirects (307)"), "{stderr}");
    assert_eq!(secrets_elsewhere.load(Ordering::SeqCst), 0);
}

#[test]
fn connect_backs_off_from_a_server_that_never_takes_its_move() {
    let (port, _, posts) = fake_server(|method, _| {
        if method == "POST" {
            return json_answer(r#"{"moves":[]}"#);
        }
        json_answer(
            r#"{"id":1,"black":"t","white":"u","moves":[],"your_turn":true,"your_color":"black","move_time_ms":1000,"ending":null}"#,
        )
    });
    let mut child = connect(port);
    std::thread::sleep(Duration::from_secs(4));
    let _ = child.kill();
    let _ = child.wait();
    // Without a back-off this was thousands a second; with it, the waits
    // double from 0.1 s.
    let sent = posts.load(Ordering::SeqCst);
    assert!((2..=20).contains(&sent), "{sent} moves posted in 4 s");
}

#[test]
fn connect_prints_what_the_server_says_with_its_control_characters_escaped() {
    let (port, _, _) = fake_server(|_, _| {
        json_answer(
            r#"{"id":1,"black":"t","white":"u","moves":[],"your_turn":false,"your_color":"black","move_time_ms":1000,"ending":"white forfeits: \u001b]0;PWNED\u0007\u001b[2J"}"#,
        )
    });
    let out = connect(port).wait_with_output().unwrap();
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        !stdout.contains('\u{1b}') && !stdout.contains('\u{7}'),
        "{stdout:?}"
    );
    assert!(stdout.contains("\\u{1b}]0;PWNED"), "{stdout:?}");
}

#[test]
fn small_cases_read_as_a_user_means_them() {
    // A time too small to write is refused by analyze as by solve.
    for command in ["analyze", "solve"] {
        let out = run(&[command, GAME, "--time", "1e-400"], b"");
        assert_eq!(
            out.status.code(),
            Some(2),
            "{command}: {}",
            text(&out.stderr)
        );
    }
    // A move list is a game, as --help says.
    let out = run(&["show", GAME, "--step"], b"");
    assert!(out.status.success(), "{}", text(&out.stderr));
    // An unwritable record is refused before the replay, not after it.
    let since = Instant::now();
    let out = run(&["replay", GAME, "--record", "/tmp"], b"");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(since.elapsed() < Duration::from_secs(5));
    // A GGF side to move that is not GGF's is refused, not taken as black.
    let dir = scratch("ggf-x");
    let board = "-------- -------- -------- ---O*--- ---*O--- -------- -------- --------";
    let ggf = dir.write("x.ggf", &format!("(;GM[Othello]BO[8 {board} X]B[f5];)"));
    let out = run(&["show", ggf.to_str().unwrap(), "--step"], b"");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    assert!(
        text(&out.stderr).contains("'X' is not a GGF side"),
        "{}",
        text(&out.stderr)
    );
    let _ = fixture("ggf");
}

#[test]
fn nboard_answers_no_go_for_a_position_it_was_not_given() {
    let mut engine = Conversation::start(&["nboard"]);
    engine.say("nboard 2");
    engine.say("set depth 4");
    engine.say("set game (;GM[Othello]BO[8 nonsense]B[zz];)");
    engine.say("go");
    engine.say("ping 1");
    let replies = engine.until(Duration::from_secs(10), |l| l == "pong 1");
    assert!(!replies.iter().any(|l| l.starts_with("===")), "{replies:?}");
    engine.say(
        "set game (;GM[Othello]PC[NBoard]BO[8 -------- -------- -------- ---O*--- ---*O--- -------- -------- -------- *]B[f5]W[d6];)",
    );
    engine.say("go");
    let replies = engine.until(Duration::from_secs(10), |l| l.starts_with("==="));
    assert!(replies.last().unwrap().starts_with("=== "), "{replies:?}");
    let (_, _, stderr) = engine.finish();
    assert!(stderr.contains("no position"), "{stderr}");
}
