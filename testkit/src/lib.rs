//! Test support that every crate's tests share: [`Scratch`] folders, the
//! headless browser [`chromium`], [`free_port`], and the machine's
//! [`cores`] for the tests whose timing needs them. Only tests depend on
//! this crate.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A folder of one test's own files under the system's temporary folder,
/// emptied when it is made. It is removed when the test passes and kept
/// when it fails, for a look at what the test left.
pub struct Scratch(PathBuf);

/// The scratch folder `name` of this test process
/// (`reversi-test-PID-NAME` under the temporary folder).
///
/// # Panics
/// When the folder cannot be made.
#[must_use]
pub fn scratch(name: &str) -> Scratch {
    let dir = std::env::temp_dir().join(format!("reversi-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    Scratch(dir)
}

impl Scratch {
    /// Writes `contents` to the file `name` in the folder; returns its path.
    ///
    /// # Panics
    /// When the file cannot be written.
    pub fn write(&self, name: &str, contents: &str) -> PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, contents).expect("a scratch file");
        path
    }
}

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// Whether `name` is a command on the `PATH`.
fn on_path(name: &str) -> bool {
    Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {name}"))
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Chromium (or Chrome), as `make test` installs it: its command's name.
///
/// # Panics
/// When there is none.
#[must_use]
pub fn chromium() -> String {
    ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|name| on_path(name))
        .map(str::to_string)
        .expect("no chromium: install it (`make test` does, with apt-get)")
}

/// [`chromium`]'s full path (what WebDriver is told to start).
///
/// # Panics
/// When there is no Chromium, or `sh` cannot be run.
#[must_use]
pub fn chromium_path() -> String {
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {}", chromium()))
        .output()
        .expect("sh runs");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// A free port on 127.0.0.1 (free when asked: bind it soon).
///
/// # Panics
/// When no port can be bound at all.
#[must_use]
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// The machine's cores, taken in turn by the tests that need them within
/// one test binary: those whose games run close to a reply's deadline
/// (the judge's second against a bot that answers at 850 ms, a bundle's
/// 500 ms) and the heavy work that would starve them (a browser, Edax,
/// `rustc -O` on a bundle). On the 2-core machine one of each at once
/// made a 1,000 ms move arrive at 1,012 ms, and a bundle miss its first
/// 500 ms reply.
pub fn cores() -> std::sync::MutexGuard<'static, ()> {
    static CORES: std::sync::Mutex<()> = std::sync::Mutex::new(());
    CORES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
