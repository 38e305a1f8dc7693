//! Replaying a recorded judge session ([`Transcript`]) against a program:
//! each line sent as recorded, each reply checked as the referee checks
//! it, and, when asked, against the recorded reply byte for byte.

use crate::arena::program::{Failure, Program, EXIT_LIMIT, EXTRA_LINES_KEPT, SETUP_LIMIT};
use crate::records::transcript::{Direction, Transcript};
use reversi_core::protocol::{escape, parse, MoveReply, Reply, Session};
use std::fmt::Write as _;
use std::time::Duration;

/// One problem found in a replay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// The index in the transcript's entries of the line sent.
    pub entry: usize,
    pub text: String,
}

#[derive(Clone, Debug, Default)]
pub struct ReplayReport {
    pub problems: Vec<Problem>,
    /// Every reply received, in order, with its time.
    pub replies: Vec<(String, Duration)>,
    pub exit_ok: bool,
    /// The lines sent and the replies received, as they happened.
    pub transcript: Transcript,
}

impl ReplayReport {
    /// A line per problem, then `PATH: N replies, slowest T ms, K
    /// problem(s)`.
    #[must_use]
    pub fn summary(&self, path: &str) -> String {
        let mut out = String::new();
        for p in &self.problems {
            let _ = writeln!(out, "{path}: entry {}: {}", p.entry + 1, p.text);
        }
        let _ = writeln!(
            out,
            "{path}: {} replies, slowest {} ms, {} problem(s)",
            self.replies.len(),
            self.slowest().as_millis(),
            self.problems.len()
        );
        out
    }

    #[must_use]
    pub fn slowest(&self) -> Duration {
        self.replies.iter().map(|r| r.1).max().unwrap_or_default()
    }
}

/// Feeds the transcript's sent lines to `command`, one at a time, and checks
/// each reply: that one comes within `limit` when the protocol calls for one,
/// that it is legal in the position the lines describe, that nothing else is
/// written, that the program exits with status 0 at the end; and, with
/// `exact`, that each reply is the recorded one byte for byte.
pub fn replay(
    command: &str,
    transcript: &Transcript,
    limit: Duration,
    exact: bool,
) -> ReplayReport {
    let mut report = ReplayReport::default();
    let mut program = match Program::spawn_with_limit(command, None, Some(limit)) {
        Ok(p) => p,
        Err(e) => {
            report.problems.push(Problem {
                entry: 0,
                text: format!("could not start '{command}': {e}"),
            });
            return report;
        }
    };
    let mut tracker = Session::new();
    let problem = |entry: usize, text: String| Problem { entry, text };
    let entries = &transcript.entries;
    let mut ended = false;
    for (i, entry) in entries.iter().enumerate() {
        if entry.direction != Direction::Sent {
            continue;
        }
        let recorded: Vec<&str> = entries[i + 1..]
            .iter()
            .take_while(|e| e.direction == Direction::Received)
            .map(|e| e.text.as_str())
            .collect();
        if let Some(unasked) = program.unasked() {
            report.transcript.push(Direction::Received, &unasked);
            report.problems.push(problem(
                i,
                format!(
                    "before '{}': {}",
                    escape(&entry.text),
                    Failure::Unasked(unasked)
                ),
            ));
        }
        if exact && recorded.len() > 1 {
            report.problems.push(problem(
                i,
                format!(
                    "the transcript records {} replies to '{}'; one at most is due",
                    recorded.len(),
                    escape(&entry.text)
                ),
            ));
        }
        report.transcript.push(Direction::Sent, &entry.text);
        let sent = match program.send(&entry.text) {
            Ok(at) => at,
            Err(f) => {
                report.problems.push(problem(i, format!("program {f}")));
                break;
            }
        };
        let due = tracker.apply_parsed(&parse(&entry.text).0);
        if due == Reply::Exit {
            ended = true;
            break;
        }
        if due == Reply::Nothing {
            if !recorded.is_empty() && exact {
                report.problems.push(problem(
                    i,
                    "transcript records a reply where none is due".into(),
                ));
            }
            continue;
        }
        let limit = if due == Reply::Ok { SETUP_LIMIT } else { limit };
        let (reply, took) = match program.receive(sent, limit) {
            Ok(r) => r,
            Err(f @ Failure::Late(_)) => {
                report
                    .problems
                    .push(problem(i, format!("after '{}': {f}", escape(&entry.text))));
                break;
            }
            Err(f) => {
                report.problems.push(problem(
                    i,
                    format!("after '{}': program {f}", escape(&entry.text)),
                ));
                break;
            }
        };
        report.replies.push((reply.clone(), took));
        report.transcript.push(Direction::Received, &reply);
        match due {
            Reply::Ok if reply != "OK" => {
                report
                    .problems
                    .push(problem(i, format!("expected OK, got '{}'", escape(&reply))));
            }
            Reply::Move => match MoveReply::parse(&reply, &tracker.board()) {
                Ok(MoveReply::Play(sq)) => tracker.own_move(sq),
                Ok(MoveReply::Pass) => {}
                Err(why) => report
                    .problems
                    .push(problem(i, format!("illegal reply: {why}"))),
            },
            _ => {}
        }
        if exact && recorded.first() != Some(&reply.as_str()) {
            report.problems.push(problem(
                i,
                format!(
                    "reply '{}' differs from the recorded '{}'",
                    escape(&reply),
                    recorded.first().map_or("(none)".to_string(), |r| escape(r))
                ),
            ));
        }
    }
    if !ended {
        program.close_input();
    }
    let extra = program.drain(EXIT_LIMIT, EXTRA_LINES_KEPT);
    for line in extra {
        report.problems.push(problem(
            entries.len(),
            format!("after the last line: {}", Failure::Unasked(line)),
        ));
    }
    match program.finish(EXIT_LIMIT) {
        Some(status) if status.success() => report.exit_ok = true,
        Some(status) => report
            .problems
            .push(problem(entries.len(), format!("exited with {status}"))),
        None => report.problems.push(problem(
            entries.len(),
            format!(
                "did not exit within {} ms of the end; killed",
                EXIT_LIMIT.as_millis()
            ),
        )),
    }
    report
}
