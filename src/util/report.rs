//! What a long command writes to stdout as it runs (a tournament's game
//! lines, brackets and tables). A reader that stops reading (`| head`)
//! ends the report, not the run: the games go on, and their files are
//! still written. Any other failure to write (a full disk) is kept, the
//! rest of the report dropped, and the run ends with it (exit 1) once its
//! games are done.

use std::io::{self, Write};
use std::sync::Mutex;

/// The first failure to write, if any.
static FAILED: Mutex<Option<io::Error>> = Mutex::new(None);

/// Writes `text` to stdout, unless an earlier write failed.
pub fn write(text: &str) {
    let mut failed = FAILED.lock().unwrap_or_else(|e| e.into_inner());
    if failed.is_none() {
        let mut out = io::stdout().lock();
        if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
            *failed = Some(e);
        }
    }
}

/// Writes a line to the report, as `println!` would.
#[macro_export]
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::util::report::write(&format!("{}\n", format_args!($($arg)*)))
    };
}

/// How the report ended: `Ok` if every line was written or its reader
/// stopped reading, the failure otherwise.
pub fn finish() -> io::Result<()> {
    match FAILED.lock().unwrap_or_else(|e| e.into_inner()).take() {
        Some(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(e),
        _ => Ok(()),
    }
}
