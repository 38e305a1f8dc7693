//! A judge-protocol program run as a child process: send a line, wait for a
//! reply line under a time limit.
//!
//! A thread per child reads its stdout and timestamps every line the moment
//! it arrives, so a reply's time is measured from our flushed write to its
//! arrival, not including whatever the referee does in between.

use crate::clock::MOVE_TIME_ENV;
use std::io::{self, BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// Why a reply did not come.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// No reply within the limit.
    Late(Duration),
    /// The program closed its output or died.
    Crashed,
    /// The line could not be written to the program.
    Unwritable(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Late(limit) => write!(f, "no reply within {} ms", limit.as_millis()),
            Failure::Crashed => write!(f, "crashed or closed its output"),
            Failure::Unwritable(e) => write!(f, "could not be written to: {e}"),
        }
    }
}

enum Line {
    Text(String),
    Eof,
}

pub struct Program {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<(Instant, Line)>,
}

/// Resolves a leading `self` in a command to this executable, so matches can
/// name our own players without knowing where the binary lives.
#[must_use]
pub fn resolve_self(command: &str) -> String {
    let trimmed = command.trim_start();
    let rest = if trimmed == "self" {
        Some("")
    } else {
        trimmed.strip_prefix("self ")
    };
    match (rest, std::env::current_exe()) {
        (Some(rest), Ok(exe)) => format!("'{}' {rest}", exe.display()),
        _ => command.to_string(),
    }
}

impl Program {
    /// Starts `command` through `sh -c`, so a command line may carry flags,
    /// quotes and redirections. Its stderr goes to `stderr_file`, or nowhere.
    pub fn spawn(command: &str, stderr_file: Option<&Path>) -> io::Result<Program> {
        Program::spawn_with_limit(command, stderr_file, None)
    }

    /// As [`Program::spawn`], telling the program the limit per reply in
    /// the environment variable [`MOVE_TIME_ENV`] (our bot honours it when
    /// it has no `--move-time`; other programs may ignore it).
    pub fn spawn_with_limit(
        command: &str,
        stderr_file: Option<&Path>,
        limit: Option<Duration>,
    ) -> io::Result<Program> {
        let stderr = match stderr_file {
            Some(path) => Stdio::from(std::fs::File::create(path)?),
            None => Stdio::null(),
        };
        let mut shell = Command::new("sh");
        if let Some(limit) = limit {
            shell.env(MOVE_TIME_ENV, limit.as_millis().to_string());
        }
        let mut child = shell
            .arg("-c")
            .arg(format!("exec {}", resolve_self(command)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()?;
        let stdout = child.stdout.take().expect("stdout was piped");
        let stdin = child.stdin.take();
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut buf = Vec::new();
                match reader.read_until(b'\n', &mut buf) {
                    Ok(0) | Err(_) => {
                        let _ = sender.send((Instant::now(), Line::Eof));
                        return;
                    }
                    Ok(_) => {
                        let text = String::from_utf8_lossy(&buf).into_owned();
                        if sender.send((Instant::now(), Line::Text(text))).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        Ok(Program {
            child,
            stdin,
            lines,
        })
    }

    /// Writes `line` and a newline, flushed; returns when it was sent.
    pub fn send(&mut self, line: &str) -> Result<Instant, Failure> {
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| Failure::Unwritable("input already closed".into()))?;
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        stdin
            .write_all(&bytes)
            .and_then(|()| stdin.flush())
            .map_err(|e| Failure::Unwritable(e.to_string()))?;
        Ok(Instant::now())
    }

    /// The next line the program writes (without its line end), and how
    /// long after `sent` it arrived; a failure if none comes within `limit`.
    pub fn receive(
        &mut self,
        sent: Instant,
        limit: Duration,
    ) -> Result<(String, Duration), Failure> {
        let deadline = sent + limit;
        let wait = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(wait) {
            Ok((at, Line::Text(text))) => {
                let took = at.saturating_duration_since(sent);
                if took > limit {
                    return Err(Failure::Late(limit));
                }
                let text = text.trim_end_matches(['\n', '\r']).to_string();
                Ok((text, took))
            }
            Ok((_, Line::Eof)) | Err(RecvTimeoutError::Disconnected) => Err(Failure::Crashed),
            Err(RecvTimeoutError::Timeout) => Err(Failure::Late(limit)),
        }
    }

    /// Lines written after the last expected one, up to end of output or
    /// `wait`, whichever is first (a bot that says a word too many).
    pub fn drain(&mut self, wait: Duration) -> Vec<String> {
        let deadline = Instant::now() + wait;
        let mut extra = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok((_, Line::Text(t))) => extra.push(t.trim_end_matches(['\n', '\r']).to_string()),
                _ => return extra,
            }
        }
    }

    /// Closes the program's input.
    pub fn close_input(&mut self) {
        self.stdin = None;
    }

    /// Closes its input and waits up to `grace` for it to exit, then kills
    /// it. Returns its exit status if it exited by itself.
    pub fn finish(mut self, grace: Duration) -> Option<ExitStatus> {
        self.stdin = None;
        let deadline = Instant::now() + grace;
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return Some(status),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(2));
                }
                _ => {
                    let _ = self.child.kill();
                    let _ = self.child.wait();
                    return None;
                }
            }
        }
    }
}

impl Drop for Program {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
