//! A judge-protocol program run as a child process: send a line, wait for a
//! reply line under a time limit.
//!
//! A thread per child reads its stdout and timestamps every line the moment
//! it arrives, so a reply's time is measured from our flushed write to its
//! arrival, not including whatever the referee does in between. What the
//! referee holds of a program is bounded whatever it writes: a line is kept
//! up to [`LINE_LIMIT`] bytes, and at most `LINES_AHEAD` reads (each of
//! at most `LINES_PER_READ` lines a program wrote at once) wait to be
//! taken (a program that writes faster waits on its pipe).
//!
//! The command line runs as a shell runs it (`sh -c`), so `cd DIR &&
//! ./bot` and `VAR=x ./bot` work, in a process group of its own, which is
//! ended whole: nothing the program started outlives it.

use super::sandbox::{Cell, Sandbox};
use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use reversi_core::clock::MOVE_TIME_ENV;
use reversi_core::lines::{read_line, readable, MAX_LINE};
use reversi_core::protocol::quote;
use std::collections::VecDeque;
use std::io::{self, BufReader, Read, Write};
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Time for `OK` after `DONE`, in every referee here: start-up is not a
/// move (the handout times only `BEGIN` and `TURN`), and a program in a
/// slow language may take a while to load, but one that never answers must
/// not hang the match.
pub const SETUP_LIMIT: Duration = Duration::from_secs(5);

/// Time to exit, with status 0, after `END` (the handout's rule).
pub const EXIT_LIMIT: Duration = Duration::from_secs(1);

/// The longest line kept, in bytes, as the bot caps its own input (with
/// the same reader): the rest of a longer line is read and dropped.
pub const LINE_LIMIT: usize = MAX_LINE;

/// Reads of lines held ahead of the referee, at most.
const LINES_AHEAD: usize = 16;

/// Lines taken together from one read, at most: a program writing many
/// short lines costs the referee a few kilobytes, not a string per byte.
const LINES_PER_READ: usize = 64;

/// Lines kept of what a program writes after its last expected one (after
/// `END`): one is already a fault.
pub const EXTRA_LINES_KEPT: usize = 4;

/// How long a line already written, found in the pipe before a request,
/// may take to reach the referee's side (the reader thread may be waiting
/// for a processor): without it, a move printed twice in two writes could
/// be taken as the answer to the next request.
const STRAY_WAIT: Duration = Duration::from_millis(50);

/// How long a program that closed its output gets to exit, so that its
/// exit status can be reported.
const EXIT_WAIT: Duration = Duration::from_millis(200);

/// Why a reply did not come.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// No reply within the limit.
    Late(Duration),
    /// The program closed its output or died: how it ended, as far as is
    /// known (its exit status and last line of stderr).
    Crashed(String),
    /// The line could not be written to the program (why, and how it
    /// ended where it did).
    Unwritable(String),
    /// A line the program wrote before it was asked for one.
    Unasked(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Late(limit) => write!(f, "no reply within {} ms", limit.as_millis()),
            Failure::Crashed(how) if how.is_empty() => write!(f, "crashed or closed its output"),
            Failure::Crashed(how) => write!(f, "crashed or closed its output ({how})"),
            Failure::Unwritable(e) => write!(f, "could not be written to: {e}"),
            Failure::Unasked(line) => write!(f, "output nobody asked for: {}", quote(line)),
        }
    }
}

/// Output as the reader thread saw it.
enum Line {
    /// The complete lines of one read: lines a program wrote at once
    /// arrive together, so a line written along with an answer is already
    /// waiting when the next request is about to be sent.
    Text(Vec<String>),
    Eof,
}

/// The command that runs `command` as `sh -c` would, with the arena's
/// variables, in the caller's environment (a hosted program: in only
/// [`HOSTED_ENV`] of it).
fn plain(command: &str, mark: &str, limit: Option<Duration>, trust: Trust) -> Command {
    let mut shell = Command::new("sh");
    if trust == Trust::Hosted {
        shell.env_clear();
        for name in HOSTED_ENV {
            if let Some(value) = std::env::var_os(name) {
                shell.env(name, value);
            }
        }
        if std::env::var_os("PATH").is_none() {
            shell.env("PATH", SYSTEM_PATH);
        }
    }
    shell.env(MARK_ENV, mark);
    if let Some(limit) = limit {
        shell.env(MOVE_TIME_ENV, limit.as_millis().to_string());
    }
    shell.arg("-c").arg(resolve_self(command));
    shell
}

/// The command that runs `command` in `sandbox`, in a cgroup of its own
/// (which the child joins before it execs), with the arena's variables.
fn sandboxed(
    sandbox: &Sandbox,
    command: &str,
    mark: &str,
    limit: Option<Duration>,
) -> io::Result<(Command, Option<Cell>)> {
    let mut env = vec![
        ("PATH".to_string(), SYSTEM_PATH.to_string()),
        ("HOME".to_string(), "/tmp".to_string()),
        ("LANG".to_string(), "C.UTF-8".to_string()),
        (MARK_ENV.to_string(), mark.to_string()),
    ];
    if let Some(limit) = limit {
        env.push((MOVE_TIME_ENV.to_string(), limit.as_millis().to_string()));
    }
    let cwd = std::env::current_dir()?;
    let mut shell = sandbox.command(&resolve_self(command), &cwd, &env);
    let cell = sandbox.cell()?;
    if let Some(cell) = &cell {
        cell.join_on_exec(&mut shell);
    }
    Ok((shell, cell))
}

/// Whose program it is, which decides what it is given and what is
/// said of it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Trust {
    /// One's own, run from one's own shell: it gets the caller's
    /// environment, and a verdict quotes its last line of stderr.
    #[default]
    Own,
    /// Run by a server for someone else: it gets only [`HOSTED_ENV`] and
    /// the arena's own variables, never the server's (its secrets), and a
    /// verdict never quotes what it wrote (that is kept for its owner,
    /// [`Program::stderr_kept`]).
    Hosted,
}

/// The variables a hosted program is given from the server's
/// environment, besides the arena's own (`MARK_ENV`, [`MOVE_TIME_ENV`]).
pub const HOSTED_ENV: [&str; 3] = ["PATH", "HOME", "LANG"];

/// The `PATH` of a program whose caller has none to give it, or that runs
/// in a sandbox: the system's own folders.
pub const SYSTEM_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// The end of a program's stderr kept for its owner, in bytes.
pub const STDERR_KEPT: usize = 64 * 1024;

/// What a program wrote to stderr, its last [`STDERR_KEPT`] bytes, and
/// whether it has closed it.
#[derive(Default)]
pub struct Stderr {
    tail: Mutex<Vec<u8>>,
    closed: AtomicBool,
}

impl Stderr {
    fn keep(&self, bytes: &[u8]) {
        let mut tail = self.tail.lock().unwrap_or_else(|e| e.into_inner());
        tail.extend_from_slice(bytes);
        if tail.len() > 2 * STDERR_KEPT {
            let cut = tail.len() - STDERR_KEPT;
            tail.drain(..cut);
        }
    }

    /// The text kept, once the program has closed its stderr or `wait`
    /// has passed (its reader may be a moment behind its end).
    #[must_use]
    pub fn text(&self, wait: Duration) -> String {
        let deadline = Instant::now() + wait;
        while !self.closed.load(Ordering::SeqCst) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(2));
        }
        let tail = self.tail.lock().unwrap_or_else(|e| e.into_inner());
        let from = tail.len().saturating_sub(STDERR_KEPT);
        String::from_utf8_lossy(&tail[from..]).into_owned()
    }
}

pub struct Program {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<(Instant, Line)>,
    /// A second handle on its output, to see whether anything was written
    /// that the reader thread has not taken yet.
    output_probe: Option<OwnedFd>,
    /// Whether the reader thread holds lines it has read and not yet
    /// handed over (taken from the pipe, so the probe cannot see them).
    holding: Arc<AtomicBool>,
    /// The last line the program wrote to stderr (shortened).
    last_error: Arc<Mutex<String>>,
    /// The end of its stderr.
    stderr: Arc<Stderr>,
    trust: Trust,
    /// Its cgroup, when it runs in a sandbox that has them: emptied and
    /// removed after the program (a field drops after `drop`).
    cell: Option<Cell>,
    /// Its exit status, once known.
    status: Option<ExitStatus>,
    /// Lines received and not yet read, with their arrival.
    pending: VecDeque<(Instant, String)>,
    /// Whether the end of its output has been read.
    output_ended: bool,
    /// The mark in the environment of everything it started.
    mark: String,
}

/// Resolves a leading `self` in a command to this executable, so matches can
/// name our own players without knowing where the binary lives; and a
/// player written `gtp:COMMAND`, `nboard:COMMAND` or `nboard@DEPTH:COMMAND`
/// to this executable's bridge to that engine (`src/engines/bridge.rs`), which
/// speaks the judge protocol for it.
#[must_use]
pub fn resolve_self(command: &str) -> String {
    let trimmed = command.trim_start();
    let quote = |engine: &str| format!("'{}'", engine.trim().replace('\'', "'\\''"));
    if let Some(engine) = trimmed.strip_prefix("gtp:") {
        return resolve_self(&format!("self bridge --gtp {}", quote(engine)));
    }
    if let Some(engine) = trimmed.strip_prefix("nboard:") {
        return resolve_self(&format!("self bridge --nboard {}", quote(engine)));
    }
    if let Some((depth, engine)) = trimmed
        .strip_prefix("nboard@")
        .and_then(|rest| rest.split_once(':'))
    {
        // A depth that is not one is left for the bridge to refuse.
        let depth = quote(depth);
        return resolve_self(&format!(
            "self bridge --depth {depth} --nboard {}",
            quote(engine)
        ));
    }
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

/// The environment variable that marks every process a program started,
/// wherever it went (a new session or group, reparented to init), so that
/// all of them end with the game.
const MARK_ENV: &str = "REVERSI_ARENA_PROGRAM";

/// A mark no other program of this or another referee has.
fn new_mark() -> String {
    static STARTED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!(
        "{}-{}-{nanos}",
        std::process::id(),
        STARTED.fetch_add(1, Ordering::SeqCst)
    )
}

/// Kills every process whose environment carries `mark` (Linux: read from
/// `/proc`; elsewhere nothing is found). A process that cleared its
/// environment escapes this, not the group kill.
fn kill_marked(mark: &str) {
    let wanted = format!("{MARK_ENV}={mark}");
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        if environ
            .split(|&b| b == 0)
            .any(|var| var == wanted.as_bytes())
        {
            let _ = nix::sys::signal::kill(Pid::from_raw(pid), Signal::SIGKILL);
        }
    }
}

/// Kills process group `group`: the program and everything it started
/// that stayed in its group.
fn kill_group(group: u32) {
    if let Ok(pid) = i32::try_from(group) {
        // A group already gone is what was wanted.
        let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
    }
}

/// How often a program awaited for a line is checked for having exited.
const EXIT_POLL: Duration = Duration::from_millis(20);

/// How a program run once (see [`run_once`]) ended.
#[derive(Debug)]
pub enum RunOnce {
    /// It exited by itself, after this long.
    Exited(ExitStatus, Duration),
    /// It ran past its limit and was killed, with all it started.
    TimedOut,
}

/// Runs `command` once to its end, in a process group of its own, for at
/// most `limit`: the way a contest that starts a program for every turn
/// (Linkage's runner) runs it. A program still running at the limit is
/// killed with everything it started; its output goes where `command`
/// sends it.
pub fn run_once(command: &mut Command, limit: Duration) -> io::Result<RunOnce> {
    let started = Instant::now();
    let mark = new_mark();
    let mut child = command.env(MARK_ENV, &mark).process_group(0).spawn()?;
    loop {
        if let Some(status) = child.try_wait()? {
            kill_marked(&mark);
            return Ok(RunOnce::Exited(status, started.elapsed()));
        }
        if started.elapsed() >= limit {
            kill_group(child.id());
            kill_marked(&mark);
            let _ = child.wait();
            return Ok(RunOnce::TimedOut);
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

impl Program {
    /// Starts `command` as `sh -c` would run it, so a command line may
    /// carry flags, quotes, redirections, `cd DIR &&` and variables. Its
    /// stderr goes to `stderr_file`, or nowhere (its last line is kept
    /// either way, for a verdict).
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
        Program::spawn_in(command, stderr_file, limit, Trust::Own, None)
    }

    /// As [`Program::spawn_with_limit`], for a program of `trust`, in
    /// `sandbox` if given: its environment is
    /// then only [`HOSTED_ENV`]'s kind (`PATH` of the system's folders,
    /// `HOME=/tmp`, `LANG`) and the arena's variables, whatever `trust`.
    pub fn spawn_in(
        command: &str,
        stderr_file: Option<&Path>,
        limit: Option<Duration>,
        trust: Trust,
        sandbox: Option<&Sandbox>,
    ) -> io::Result<Program> {
        let stderr_copy = match stderr_file {
            Some(path) => Some(std::fs::File::create(path)?),
            None => None,
        };
        let mark = new_mark();
        let (shell, cell) = match sandbox {
            Some(sandbox) => sandboxed(sandbox, command, &mark, limit)?,
            None => (plain(command, &mark, limit, trust), None),
        };
        Program::start(shell, cell, mark, stderr_copy, trust)
    }

    /// Starts `shell` (the program's command, made), its output read as
    /// the module's doc says.
    fn start(
        mut shell: Command,
        cell: Option<Cell>,
        mark: String,
        mut stderr_copy: Option<std::fs::File>,
        trust: Trust,
    ) -> io::Result<Program> {
        let mut child = shell
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()?;
        let stdout = child.stdout.take().expect("stdout was piped");
        let output_probe = stdout.as_fd().try_clone_to_owned().ok();
        let stderr = child.stderr.take().expect("stderr was piped");
        let stdin = child.stdin.take();
        let (sender, lines) = mpsc::sync_channel(LINES_AHEAD);
        let holding = Arc::new(AtomicBool::new(false));
        let held = Arc::clone(&holding);
        std::thread::spawn(move || {
            let mut reader = BufReader::new(Watched {
                inner: stdout,
                holding: Arc::clone(&held),
            });
            let mut cut = false;
            loop {
                let mut texts = Vec::new();
                // One line (waiting for it), then those already buffered
                // whole, a bounded number of them.
                while texts.is_empty()
                    || (texts.len() < LINES_PER_READ && reader.buffer().contains(&b'\n'))
                {
                    match read_line(&mut reader, &mut cut) {
                        Ok(Some(mut text)) => {
                            text.truncate(text.trim_end_matches('\r').len());
                            texts.push(text);
                        }
                        Ok(None) | Err(_) => {
                            if !texts.is_empty() {
                                let _ = sender.send((Instant::now(), Line::Text(texts)));
                            }
                            let _ = sender.send((Instant::now(), Line::Eof));
                            return;
                        }
                    }
                }
                if sender.send((Instant::now(), Line::Text(texts))).is_err() {
                    return;
                }
                // A part of a line is nothing to hand over yet.
                held.store(reader.buffer().contains(&b'\n'), Ordering::SeqCst);
            }
        });
        let last_error = Arc::new(Mutex::new(String::new()));
        let last = Arc::clone(&last_error);
        let kept = Arc::new(Stderr::default());
        let keeping = Arc::clone(&kept);
        std::thread::spawn(move || {
            // Copies stderr to its file, if any, remembering its last
            // non-blank line.
            let mut reader = BufReader::new(stderr);
            let mut buf = [0u8; 4096];
            let mut current = Vec::new();
            loop {
                let n = match reader.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                if let Some(file) = stderr_copy.as_mut() {
                    let _ = file.write_all(&buf[..n]);
                }
                keeping.keep(&buf[..n]);
                for &b in &buf[..n] {
                    if b == b'\n' {
                        remember(&last, &current);
                        current.clear();
                    } else if current.len() < LINE_LIMIT {
                        current.push(b);
                    }
                }
            }
            remember(&last, &current);
            keeping.closed.store(true, Ordering::SeqCst);
        });
        Ok(Program {
            child,
            stdin,
            lines,
            output_probe,
            holding,
            last_error,
            stderr: kept,
            trust,
            cell,
            status: None,
            pending: VecDeque::new(),
            output_ended: false,
            mark,
        })
    }

    /// Writes `line` and a newline, flushed; returns when the write began
    /// (a fast program may answer before the write call has returned, and
    /// a line that arrived before this moment was not an answer).
    pub fn send(&mut self, line: &str) -> Result<Instant, Failure> {
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| Failure::Unwritable("input already closed".into()))?;
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        let began = Instant::now();
        if let Err(e) = stdin.write_all(&bytes).and_then(|()| stdin.flush()) {
            let how = self.how_it_ended();
            let why = if how.is_empty() {
                e.to_string()
            } else {
                format!("{e} ({how})")
            };
            return Err(Failure::Unwritable(why));
        }
        Ok(began)
    }

    /// [`Program::send`], unless a line the program wrote is already
    /// waiting: output nobody asked for, found before the request.
    pub fn request(&mut self, line: &str) -> Result<Instant, Failure> {
        if let Some(unasked) = self.unasked() {
            return Err(Failure::Unasked(unasked));
        }
        self.send(line)
    }

    /// A line the program wrote that is already waiting, unread: before a
    /// request is sent, output nobody asked for. A line still in the pipe
    /// counts as waiting, however busy the machine.
    pub fn unasked(&mut self) -> Option<String> {
        let in_pipe = self.pending.is_empty()
            && !self.output_ended
            && (self.holding.load(Ordering::SeqCst)
                || self
                    .output_probe
                    .as_ref()
                    .and_then(|fd| readable(fd.as_raw_fd(), 0))
                    .unwrap_or(false));
        let wait = if in_pipe { STRAY_WAIT } else { Duration::ZERO };
        match self.next_line(wait) {
            Ok((_, text)) => Some(text),
            // The end of its output is reported when a reply is awaited.
            Err(_) => None,
        }
    }

    /// The next line and when it arrived, waiting up to `wait`; `Err(true)`
    /// once the output has ended (ever after), `Err(false)` when no line
    /// came in time.
    fn next_line(&mut self, wait: Duration) -> Result<(Instant, String), bool> {
        if let Some(line) = self.pending.pop_front() {
            return Ok(line);
        }
        if self.output_ended {
            return Err(true);
        }
        let deadline = Instant::now() + wait;
        loop {
            // In slices, so that a program that exits while something it
            // started still holds its output is seen to have exited.
            let slice = deadline
                .saturating_duration_since(Instant::now())
                .min(EXIT_POLL);
            match self.lines.recv_timeout(slice) {
                Ok((at, Line::Text(texts))) => {
                    self.pending
                        .extend(texts.into_iter().map(|text| (at, text)));
                    return self.pending.pop_front().ok_or(false);
                }
                Ok((_, Line::Eof)) | Err(RecvTimeoutError::Disconnected) => {
                    self.output_ended = true;
                    return Err(true);
                }
                Err(RecvTimeoutError::Timeout) => {}
            }
            if self.status.is_none() {
                if let Ok(Some(status)) = self.child.try_wait() {
                    self.status = Some(status);
                }
            }
            if self.status.is_some() {
                // It has exited: what it wrote before is still taken (the
                // reader may be a moment behind), then its output counts
                // as ended, whoever still holds the pipe.
                return match self.lines.recv_timeout(STRAY_WAIT) {
                    Ok((at, Line::Text(texts))) => {
                        self.pending
                            .extend(texts.into_iter().map(|text| (at, text)));
                        self.pending.pop_front().ok_or(false)
                    }
                    _ => {
                        self.output_ended = true;
                        Err(true)
                    }
                };
            }
            if Instant::now() >= deadline {
                return Err(false);
            }
        }
    }

    /// The next line the program writes (without its line end, at most
    /// [`LINE_LIMIT`] bytes), and how long after `sent` it arrived; a
    /// failure if none comes within `limit`, or if the line arrived before
    /// `sent` (written before it was asked for).
    pub fn receive(
        &mut self,
        sent: Instant,
        limit: Duration,
    ) -> Result<(String, Duration), Failure> {
        let deadline = sent + limit;
        let wait = deadline.saturating_duration_since(Instant::now());
        match self.next_line(wait) {
            Ok((at, text)) => {
                if at < sent {
                    return Err(Failure::Unasked(text));
                }
                let took = at.saturating_duration_since(sent);
                if took > limit {
                    return Err(Failure::Late(limit));
                }
                Ok((text, took))
            }
            Err(true) => Err(Failure::Crashed(self.how_it_ended())),
            Err(false) => Err(Failure::Late(limit)),
        }
    }

    /// A program's exit status and last line of stderr, as far as they
    /// are known shortly after it closed its output: `exit status: 127;
    /// stderr: sh: 1: ./bot: not found`.
    fn how_it_ended(&mut self) -> String {
        let deadline = Instant::now() + EXIT_WAIT;
        while self.status.is_none() && Instant::now() < deadline {
            match self.child.try_wait() {
                Ok(Some(status)) => self.status = Some(status),
                Ok(None) => std::thread::sleep(Duration::from_millis(2)),
                Err(_) => break,
            }
        }
        // The stderr thread may still be reading its last lines.
        std::thread::sleep(Duration::from_millis(5));
        let mut parts = Vec::new();
        if let Some(status) = self.status {
            parts.push(status.to_string());
        }
        if self.cell.as_ref().is_some_and(Cell::ran_out_of_memory) {
            parts.push("killed for going over its memory".into());
        }
        let last = self.last_error_line();
        if !last.is_empty() && self.trust == Trust::Own {
            parts.push(format!("stderr: {last}"));
        }
        parts.join("; ")
    }

    /// The end of what the program writes to stderr, to read after it ended.
    #[must_use]
    pub fn stderr_kept(&self) -> Arc<Stderr> {
        Arc::clone(&self.stderr)
    }

    /// The last non-blank line the program wrote to stderr, shortened.
    #[must_use]
    pub fn last_error_line(&self) -> String {
        self.last_error.lock().map_or(String::new(), |l| l.clone())
    }

    /// Lines written after the last expected one (a bot that says a word
    /// too many), up to end of output, `wait` or `most` lines, whichever
    /// comes first.
    pub fn drain(&mut self, wait: Duration, most: usize) -> Vec<String> {
        let deadline = Instant::now() + wait;
        let mut extra = Vec::new();
        while extra.len() < most {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.next_line(left) {
                Ok((_, text)) => extra.push(text),
                Err(_) => break,
            }
        }
        extra
    }

    /// Closes the program's input.
    pub fn close_input(&mut self) {
        self.stdin = None;
    }

    /// Closes its input and waits up to `grace` for it to exit, then kills
    /// it. Returns its exit status if it exited by itself. Either way its
    /// process group is ended, so nothing it started is left running.
    pub fn finish(mut self, grace: Duration) -> Option<ExitStatus> {
        self.stdin = None;
        let deadline = Instant::now() + grace;
        let status = loop {
            if let Some(status) = self.status {
                break Some(status);
            }
            match self.child.try_wait() {
                Ok(Some(status)) => break Some(status),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(2));
                }
                _ => break None,
            }
        };
        self.status = status;
        status
    }
}

/// A program's output as the reader thread reads it, saying when a read
/// brought something (until the lines in it are handed over).
struct Watched<R> {
    inner: R,
    holding: Arc<AtomicBool>,
}

impl<R: Read> Read for Watched<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n > 0 {
            self.holding.store(true, Ordering::SeqCst);
        }
        Ok(n)
    }
}

/// Stores `line` as the last stderr line unless it is blank.
fn remember(last: &Mutex<String>, line: &[u8]) {
    let text = String::from_utf8_lossy(line);
    let text = text.trim();
    if text.is_empty() {
        return;
    }
    if let Ok(mut last) = last.lock() {
        *last = text.chars().take(120).collect();
    }
}

impl Drop for Program {
    fn drop(&mut self) {
        // The whole group: the shell, the program and anything it started.
        // Its number stays taken while any of them lives, so the signal
        // reaches no one else. Then whatever left the group (setsid).
        kill_group(self.child.id());
        kill_marked(&self.mark);
        if self.status.is_none() {
            let _ = self.child.wait();
        }
    }
}
