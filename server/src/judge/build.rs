//! Building a submission: its source written to a folder of its own, the
//! language's command run there in the sandbox under a compiler's limits
//! (its time, memory, processes and the size of what it writes), and the
//! program it leaves read back. The compiler sees the system's folders,
//! its own toolchain and the build folder, nothing else of the host's,
//! and no network: a source that includes `/etc/shadow` or the database
//! finds nothing there.

use super::languages::Offered;
use reversi::arena::sandbox::{Limits, Sandbox, Shown};
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

/// What a compiler may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BuildLimits {
    pub wall: Duration,
    pub memory_mb: u64,
    /// The largest file it may write (the program it leaves included).
    pub output_mb: u64,
    /// Processes and threads (rustc runs a thread a codegen unit).
    pub processes: u64,
}

impl Default for BuildLimits {
    fn default() -> BuildLimits {
        BuildLimits {
            wall: Duration::from_secs(30),
            memory_mb: 1024,
            output_mb: 64,
            processes: 64,
        }
    }
}

/// The most of a compiler's messages shown to the team.
pub const LOG_KEPT: usize = 16 * 1024;

/// How a build went.
#[derive(Debug, PartialEq, Eq)]
pub enum Built {
    /// The program to run, and what the compiler said (its warnings).
    Program { program: Vec<u8>, log: String },
    /// Refused: what the compiler said, and why in a few words.
    Rejected { log: String, reason: String },
}

/// Builds `source` in `language` in a fresh folder under `work`, in
/// `sandbox`; `Err` is the server's own failure (no folder, no process),
/// never the team's.
pub fn build(
    sandbox: &Sandbox,
    language: &Offered,
    source: &str,
    work: &Path,
    limits: BuildLimits,
) -> Result<Built, String> {
    let (Some(toolchain), Some(line)) = (&language.toolchain, language.build_line()) else {
        return Ok(Built::Rejected {
            log: String::new(),
            reason: format!("this server has no {}", language.language.tool),
        });
    };
    let folder = tempfolder(work)?;
    let dir = folder.path();
    let lang = &language.language;
    std::fs::write(dir.join(lang.source), source).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut shown = vec![Shown::Write(dir.to_path_buf())];
    shown.extend(toolchain.shown.iter().cloned().map(Shown::Read));
    let env = [
        ("PATH", reversi::arena::program::SYSTEM_PATH),
        ("HOME", "/tmp"),
        ("TMPDIR", "/tmp"),
        ("LANG", "C.UTF-8"),
    ]
    .map(|(k, v)| (k.to_string(), v.to_string()));
    // The compiler's temporary files count against its memory: /tmp is a
    // tmpfs in the sandbox.
    let mut command = sandbox.command_showing(&line, dir, &env, &shown, limits.memory_mb / 4);
    let cell = sandbox
        .cell_with(Limits {
            memory_mb: limits.memory_mb,
            processes: limits.processes,
            tmp_mb: limits.memory_mb / 4,
        })
        .map_err(|e| format!("a cgroup for the compiler: {e}"))?;
    if let Some(cell) = &cell {
        cell.join_on_exec(&mut command);
    }
    let most_bytes = limits.output_mb << 20;
    // SAFETY: setrlimit is async-signal-safe and allocates nothing.
    unsafe {
        command.pre_exec(move || {
            let limit = libc::rlimit {
                rlim_cur: most_bytes,
                rlim_max: most_bytes,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .map_err(|e| format!("starting the compiler: {e}"))?;
    let readers = [
        keep_head(
            child
                .stdout
                .take()
                .map(|o| Box::new(o) as Box<dyn Read + Send>),
        ),
        keep_head(
            child
                .stderr
                .take()
                .map(|o| Box::new(o) as Box<dyn Read + Send>),
        ),
    ];
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            break Some(status);
        }
        if started.elapsed() >= limits.wall {
            break None;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    if status.is_none() {
        // SAFETY: killpg on the group the child leads (it was made so).
        unsafe {
            libc::killpg(child.id() as libc::pid_t, libc::SIGKILL);
        }
        let _ = child.wait();
    }
    let out_of_memory = cell.as_ref().is_some_and(|c| c.ran_out_of_memory());
    // Everything the compiler started dies with its cell.
    drop(cell);
    let mut log = String::new();
    for reader in readers {
        if let Some(text) = reader.and_then(|r| r.join().ok()) {
            log.push_str(&text);
        }
    }
    let log = clip(&log);
    let reject = |reason: String| {
        Ok(Built::Rejected {
            log: log.clone(),
            reason,
        })
    };
    match status {
        None => reject(format!("the compiler ran past {} s", limits.wall.as_secs())),
        Some(_) if out_of_memory => reject(format!(
            "the compiler went over {} MB of memory",
            limits.memory_mb
        )),
        Some(status) if !status.success() => {
            let why =
                if std::os::unix::process::ExitStatusExt::signal(&status) == Some(libc::SIGXFSZ) {
                    format!("the compiler wrote a file over {} MB", limits.output_mb)
                } else {
                    "it does not compile".to_string()
                };
            reject(why)
        }
        Some(_) => {
            let path = dir.join(lang.program);
            let size = std::fs::symlink_metadata(&path).map(|m| (m.is_file(), m.len()));
            match size {
                Ok((true, size)) if size <= most_bytes => {
                    let program =
                        std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
                    Ok(Built::Program { program, log })
                }
                Ok((true, _)) => reject(format!("its program is over {} MB", limits.output_mb)),
                _ => reject(format!("the build left no {}", lang.program)),
            }
        }
    }
}

/// Reads all of `from`, keeping its first [`LOG_KEPT`] bytes, on a thread.
fn keep_head(from: Option<Box<dyn Read + Send>>) -> Option<std::thread::JoinHandle<String>> {
    let mut from = from?;
    std::thread::Builder::new()
        .name("compiler-output".into())
        .spawn(move || {
            let mut kept = Vec::new();
            let mut buf = [0u8; 8192];
            loop {
                match from.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        let room = (LOG_KEPT + 1).saturating_sub(kept.len());
                        kept.extend_from_slice(&buf[..n.min(room)]);
                    }
                }
            }
            String::from_utf8_lossy(&kept).into_owned()
        })
        .ok()
}

/// `log`'s first [`LOG_KEPT`] bytes, with a line saying so if it was cut.
fn clip(log: &str) -> String {
    if log.len() <= LOG_KEPT {
        return log.to_string();
    }
    let mut cut = LOG_KEPT;
    while !log.is_char_boundary(cut) {
        cut -= 1;
    }
    format!(
        "{}\n[... the rest of the compiler's messages left out]\n",
        &log[..cut]
    )
}

/// `text`'s last [`LOG_KEPT`] bytes, with a line saying so if it was cut
/// (a program's stderr: its end says most).
#[must_use]
pub fn tail(text: &str) -> String {
    if text.len() <= LOG_KEPT {
        return text.to_string();
    }
    let mut cut = text.len() - LOG_KEPT;
    while !text.is_char_boundary(cut) {
        cut += 1;
    }
    format!("[... its first {cut} bytes left out]\n{}", &text[cut..])
}

/// A folder that is removed with everything in it when dropped.
pub struct TempFolder(std::path::PathBuf);

impl TempFolder {
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempFolder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A new empty folder under `work`.
pub fn tempfolder(work: &Path) -> Result<TempFolder, String> {
    // The programs' folder may have been removed under a running server:
    // made again, the judge goes on instead of failing each try.
    std::fs::create_dir_all(work).map_err(|e| format!("{}: {e}", work.display()))?;
    for _ in 0..100 {
        let dir = work.join(format!("build-{:016x}", fastrand::u64(..)));
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(TempFolder(dir)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(format!("{}: {e}", dir.display())),
        }
    }
    Err(format!("{}: no new folder could be made", work.display()))
}
