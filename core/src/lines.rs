//! Reading a judge's lines: bounded in length, tolerant of bad UTF-8 and
//! of a non-blocking input. The judge protocol and CodinGame's read their
//! input this way, and the referee each program's output.

use std::io::{self, BufRead, BufWriter, StderrLock, StdinLock, StdoutLock, Write};

/// A line longer than this is cut (the rest is read and dropped), so no input
/// can make the bot hold unbounded memory.
pub const MAX_LINE: usize = 4096;

/// Reads one line of at most `MAX_LINE` bytes (the rest of a longer line is
/// dropped, and `cut` says so). `Ok(None)` at end of input. Invalid UTF-8
/// is replaced, not fatal. The bot reads its input this way, and the
/// referee each program's output. Only a non-blocking input, which only
/// the bot's stdin can be, is waited on.
pub fn read_line(input: &mut impl BufRead, cut: &mut bool) -> io::Result<Option<String>> {
    let mut bytes = Vec::new();
    *cut = false;
    loop {
        let buf = match input.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            // A non-blocking input with nothing in it yet: not the end.
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                wait_for_input();
                continue;
            }
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            return Ok(if bytes.is_empty() && !*cut {
                None
            } else {
                Some(String::from_utf8_lossy(&bytes).into_owned())
            });
        }
        let (chunk, found) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], Some(i + 1)),
            None => (buf, None),
        };
        let room = MAX_LINE.saturating_sub(bytes.len());
        if chunk.len() > room {
            *cut = true;
        }
        bytes.extend_from_slice(&chunk[..chunk.len().min(room)]);
        let used = found.unwrap_or(buf.len());
        input.consume(used);
        if found.is_some() {
            return Ok(Some(String::from_utf8_lossy(&bytes).into_owned()));
        }
    }
}

/// Waits until standard input has something to read (or an end or an
/// error to report), for a harness that hands the bot a non-blocking one.
fn wait_for_input() {
    // The timeout and the sleep after a failed poll keep a broken input
    // from spinning the processor.
    if readable(0, 100).is_none() {
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

/// Whether file descriptor `fd` has something to read (data, an end or an
/// error), waiting up to `timeout_ms`; `None` if it could not be asked.
#[cfg(unix)]
pub fn readable(fd: i32, timeout_ms: i32) -> Option<bool> {
    #[repr(C)]
    struct PollFd {
        fd: i32,
        events: i16,
        revents: i16,
    }
    extern "C" {
        fn poll(fds: *mut PollFd, count: u64, timeout_ms: i32) -> i32;
    }
    const POLLIN: i16 = 1;
    let mut entry = PollFd {
        fd,
        events: POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd, for the length of the call.
    match unsafe { poll(&mut entry, 1, timeout_ms) } {
        n if n < 0 => None,
        n => Some(n > 0),
    }
}

#[cfg(not(unix))]
pub fn readable(_fd: i32, timeout_ms: i32) -> Option<bool> {
    let _ = timeout_ms;
    None
}

/// Speaks a protocol on the process's stdin, stdout and (buffered)
/// stderr: how both protocols are served. Success whatever happens, since
/// for a judge's bot a closed pipe just ends the game: a closed stdout
/// ends it quietly, any other I/O error gets one line on stderr.
#[must_use]
pub fn serve_stdio(
    speak: impl FnOnce(
        &mut StdinLock<'static>,
        &mut StdoutLock<'static>,
        &mut BufWriter<StderrLock<'static>>,
    ) -> io::Result<()>,
) -> std::process::ExitCode {
    let mut input = io::stdin().lock();
    let mut output = io::stdout().lock();
    let mut log = BufWriter::new(io::stderr().lock());
    if let Err(e) = speak(&mut input, &mut output, &mut log) {
        if e.kind() != io::ErrorKind::BrokenPipe {
            let _ = writeln!(log, "i/o error: {e}");
        }
    }
    std::process::ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_line_is_cut_and_the_next_read_whole() {
        let mut text = vec![b'x'; 10_000];
        text.extend_from_slice(b"\nd 3\nlast");
        let mut input = io::BufReader::with_capacity(64, &text[..]);
        let mut cut = false;
        let first = read_line(&mut input, &mut cut).unwrap().unwrap();
        assert_eq!((first.len(), cut), (MAX_LINE, true));
        let next = read_line(&mut input, &mut cut).unwrap().unwrap();
        assert_eq!((next.as_str(), cut), ("d 3", false));
        // A last line without its newline is still a line.
        assert_eq!(read_line(&mut input, &mut cut).unwrap().unwrap(), "last");
        assert_eq!(read_line(&mut input, &mut cut).unwrap(), None);
    }
}
