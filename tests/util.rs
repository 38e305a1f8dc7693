//! Helpers shared by the integration tests.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

pub use reversi_testkit::{chromium, scratch};

/// The binary under test.
pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_reversi")
}

pub fn fixture(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(relative)
}

/// Starts the binary with `args`, its stdin, stdout and stderr piped.
pub fn spawn(args: &[&str]) -> Child {
    Command::new(bin())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary starts")
}

/// Runs the binary with `args`, feeding `input` on stdin.
pub fn run(args: &[&str], input: &[u8]) -> Output {
    let mut child = spawn(args);
    let mut stdin = child.stdin.take().expect("piped");
    // The bot may exit (END) before reading everything: ignore a broken pipe.
    let _ = stdin.write_all(input);
    drop(stdin);
    child.wait_with_output().expect("binary runs")
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Compares line lists and prints both in full when they differ.
#[macro_export]
macro_rules! assert_lines_eq {
    ($expected:expr, $got:expr) => {{
        let expected: Vec<String> = $expected.iter().map(|s| s.to_string()).collect();
        let got: Vec<String> = $got.iter().map(|s| s.to_string()).collect();
        if expected != got {
            panic!(
                "lines differ\n--- expected\n{}\n--- got\n{}\n",
                expected.join("\n"),
                got.join("\n")
            );
        }
    }};
}

/// Runs the binary as [`run`] does, with no input, and returns its output
/// and the highest peak resident memory (`VmHWM`, KiB) seen in its own
/// `/proc` entry while it ran, sampled every 2 ms: its own, not counting
/// the programs it starts (a peak reached early is seen in any later
/// sample, as it never falls).
#[cfg(target_os = "linux")]
pub fn run_with_peak_memory(args: &[&str]) -> (Output, u64) {
    use std::io::Read;
    let mut child = Command::new(bin())
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary starts");
    let reader = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            bytes
        })
    };
    let stdout = reader(Box::new(child.stdout.take().expect("piped")));
    let stderr = reader(Box::new(child.stderr.take().expect("piped")));
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak = 0;
    let status = loop {
        // Read before reaping: the entry is the child's until then.
        let seen = std::fs::read_to_string(&status_file)
            .ok()
            .and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix("VmHWM:"))
                    .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            })
            .unwrap_or(0);
        peak = peak.max(seen);
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    };
    let output = Output {
        status,
        stdout: stdout.join().expect("stdout read"),
        stderr: stderr.join().expect("stderr read"),
    };
    (output, peak)
}

/// A pipe whose reading end is non-blocking (`O_NONBLOCK`), as some
/// harnesses hand a bot its standard input: a read finds nothing rather
/// than waiting.
#[cfg(target_os = "linux")]
pub fn non_blocking_pipe() -> (std::io::PipeReader, std::io::PipeWriter) {
    use std::os::fd::AsRawFd;
    extern "C" {
        fn fcntl(fd: i32, command: i32, ...) -> i32;
    }
    const GET_FLAGS: i32 = 3;
    const SET_FLAGS: i32 = 4;
    const NON_BLOCKING: i32 = 0o4000;
    let (reader, writer) = std::io::pipe().expect("a pipe");
    // SAFETY: fcntl on a descriptor we own, with its documented arguments.
    unsafe {
        let flags = fcntl(reader.as_raw_fd(), GET_FLAGS);
        assert!(flags >= 0);
        assert_eq!(
            fcntl(reader.as_raw_fd(), SET_FLAGS, flags | NON_BLOCKING),
            0
        );
    }
    (reader, writer)
}

/// The wins, draws, losses and forfeits of `player` (`A` or `B`) in the
/// summary of a `reversi match` report.
pub fn match_counts(report: &str, player: &str) -> [u32; 4] {
    let row = report
        .lines()
        .find(|l| l.starts_with(&format!("{player} ")))
        .unwrap_or_else(|| panic!("no row for {player}:\n{report}"));
    let numbers: Vec<u32> = row
        .split_whitespace()
        .skip(1)
        .take(4)
        .map(|w| w.parse().expect("a count"))
        .collect();
    [numbers[0], numbers[1], numbers[2], numbers[3]]
}

/// The first of NTest's test games (`fixtures/ggf/TestGames.ggf`) that
/// has a pass.
pub fn ntest_game_with_a_pass() -> reversi::records::ggf::GgfGame {
    let text = std::fs::read_to_string(fixture("ggf/TestGames.ggf")).expect("the fixture");
    reversi::records::ggf::parse(&text)
        .expect("NTest's games parse")
        .into_iter()
        .find(|g| g.moves.iter().any(|m| m.square.is_none()))
        .expect("a game with a pass")
}

/// A conversation with the binary: lines written to it one at a time, and
/// its replies read as they come (a thread reads its stdout), for the
/// engine protocols whose timing matters (`ping` during a search).
pub struct Conversation {
    child: Child,
    stdin: Option<std::process::ChildStdin>,
    replies: std::sync::mpsc::Receiver<String>,
}

impl Conversation {
    pub fn start(args: &[&str]) -> Conversation {
        use std::io::BufRead;
        let mut child = spawn(args);
        let stdin = child.stdin.take();
        let stdout = std::io::BufReader::new(child.stdout.take().expect("piped"));
        let (sender, replies) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.lines().map_while(Result::ok) {
                if sender.send(line).is_err() {
                    return;
                }
            }
        });
        Conversation {
            child,
            stdin,
            replies,
        }
    }

    pub fn say(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("input open");
        writeln!(stdin, "{line}").expect("the program reads");
        stdin.flush().expect("the program reads");
    }

    /// The replies up to and including the first that `last` accepts;
    /// panics, showing them, if none comes within `within`.
    pub fn until(
        &mut self,
        within: std::time::Duration,
        last: impl Fn(&str) -> bool,
    ) -> Vec<String> {
        let deadline = std::time::Instant::now() + within;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match self.replies.recv_timeout(left) {
                Ok(line) => {
                    let done = last(&line);
                    seen.push(line);
                    if done {
                        return seen;
                    }
                }
                Err(_) => panic!("no awaited reply within {within:?}; got {seen:#?}"),
            }
        }
    }

    /// Closes the input and waits for the exit: the status, the replies
    /// not yet read, and stderr.
    pub fn finish(mut self) -> (std::process::ExitStatus, Vec<String>, String) {
        use std::io::Read;
        drop(self.stdin.take());
        let status = self.child.wait().expect("the program exits");
        let mut stderr = String::new();
        if let Some(mut pipe) = self.child.stderr.take() {
            let _ = pipe.read_to_string(&mut stderr);
        }
        let rest = self.replies.iter().collect();
        (status, rest, stderr)
    }
}

/// Runs `reversi match ARGS`, checks that it succeeded with no forfeit and
/// that `player` (`A` or `B`) played `games` games to their end, and
/// returns the report.
pub fn clean_match(args: &[&str], player: &str, games: u32) -> String {
    let mut full = vec!["match"];
    full.extend_from_slice(args);
    let out = run(&full, b"");
    let report = text(&out.stdout);
    assert!(out.status.success(), "{report}{}", text(&out.stderr));
    assert!(!report.contains(" forfeits:"), "{report}");
    let [wins, draws, losses, forfeits] = match_counts(&report, player);
    assert_eq!((wins + draws + losses, forfeits), (games, 0), "{report}");
    report
}
