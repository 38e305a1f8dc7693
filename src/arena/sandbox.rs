//! A stranger's program, run so that it can harm nothing and take no more
//! than its share. Bubblewrap (`bwrap`, Debian's `bubblewrap`) gives it
//! namespaces of its own: no network but its own loopback, its own
//! process numbers, a read-only view of the system's programs and
//! libraries, a private `/tmp` of [`Limits::tmp_mb`], and of the host's
//! files only those its command line names, read-only. A cgroup of its
//! own caps its memory and its processes, which namespaces alone do not
//! (cgroup v2, or v1's `memory` and `pids` controllers, whichever the
//! machine mounts).
//!
//! A program's cgroup is made before it starts (the child joins it
//! between fork and exec, so nothing it runs escapes it) and emptied and
//! removed when the program is dropped: whatever it started dies with it.

use std::io;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

/// What one sandboxed program may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Its memory, and that of everything it starts, in MB.
    pub memory_mb: u64,
    /// Its processes and threads at once.
    pub processes: u64,
    /// Its private `/tmp`, in MB.
    pub tmp_mb: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            memory_mb: 256,
            processes: 16,
            tmp_mb: 8,
        }
    }
}

/// The system's folders a program sees, read-only, when they exist.
const SYSTEM: [&str; 6] = [
    "/usr",
    "/lib",
    "/lib64",
    "/bin",
    "/sbin",
    "/etc/alternatives",
];

/// How the machine's cgroups are mounted, as far as the sandbox uses them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cgroups {
    /// Version 2: the folder under which a program's cgroup is made.
    V2(PathBuf),
    /// Version 1: the `memory` and `pids` hierarchies' folders.
    V1 { memory: PathBuf, pids: PathBuf },
}

const CGROUP_ROOT: &str = "/sys/fs/cgroup";

/// The folder of this process's own cgroups, made on first use.
fn own_folder() -> String {
    format!("reversi-{}", std::process::id())
}

impl Cgroups {
    /// The cgroups this process can make and fill, or why none.
    pub fn detect() -> Result<Cgroups, String> {
        let root = Path::new(CGROUP_ROOT);
        let v2 = root.join("cgroup.controllers");
        if let Ok(controllers) = std::fs::read_to_string(&v2) {
            let has = |c: &str| controllers.split_whitespace().any(|w| w == c);
            if !(has("memory") && has("pids")) {
                return Err("cgroup v2 without the memory and pids controllers".into());
            }
            // Programs' cgroups go in a folder of ours whose children may
            // use both controllers.
            let _ = std::fs::write(root.join("cgroup.subtree_control"), "+memory +pids");
            let ours = root.join(own_folder());
            make_dir(&ours)?;
            std::fs::write(ours.join("cgroup.subtree_control"), "+memory +pids")
                .map_err(|e| format!("{}: {e}", ours.display()))?;
            return Ok(Cgroups::V2(ours));
        }
        let (memory, pids) = (root.join("memory"), root.join("pids"));
        if memory.join("memory.limit_in_bytes").exists() && pids.join("cgroup.procs").exists() {
            let (memory, pids) = (memory.join(own_folder()), pids.join(own_folder()));
            make_dir(&memory)?;
            make_dir(&pids)?;
            return Ok(Cgroups::V1 { memory, pids });
        }
        Err(format!(
            "no cgroup v2, nor v1's memory and pids controllers, under {CGROUP_ROOT}"
        ))
    }

    /// Says which version, for a line at start-up.
    #[must_use]
    pub fn version(&self) -> &'static str {
        match self {
            Cgroups::V2(_) => "cgroup v2",
            Cgroups::V1 { .. } => "cgroup v1",
        }
    }
}

fn make_dir(path: &Path) -> Result<(), String> {
    match std::fs::create_dir(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

/// The sandbox: bubblewrap, and the cgroups where there are some. The
/// folder of this process's cgroups goes with it.
#[derive(Debug)]
pub struct Sandbox {
    pub limits: Limits,
    bwrap: PathBuf,
    cgroups: Option<Cgroups>,
}

/// Counts the cells made, for their names.
static CELLS: AtomicU64 = AtomicU64::new(0);

impl Sandbox {
    /// The sandbox with `limits`, or why it cannot be had: no bubblewrap,
    /// or no cgroups to enforce the memory and process limits (unless
    /// `weak`: then the limits are not enforced, and [`Sandbox::describe`]
    /// says so).
    pub fn new(limits: Limits, weak: bool) -> Result<Sandbox, String> {
        let bwrap = find_bwrap().ok_or(
            "no bubblewrap (bwrap) on the PATH: install Debian's bubblewrap (`make test-deps` does)",
        )?;
        let cgroups = match Cgroups::detect() {
            Ok(cgroups) => Some(cgroups),
            Err(_) if weak => None,
            Err(why) => {
                return Err(format!(
                    "the memory and process limits cannot be enforced ({why}); \
                     --allow-weak-sandbox runs without them"
                ))
            }
        };
        Ok(Sandbox {
            limits,
            bwrap,
            cgroups,
        })
    }

    /// One line on what is in force.
    #[must_use]
    pub fn describe(&self) -> String {
        let l = self.limits;
        match &self.cgroups {
            Some(c) => format!(
                "sandbox: bubblewrap (no network, own processes, read-only system, /tmp {} MB), {}: memory {} MB, {} processes",
                l.tmp_mb,
                c.version(),
                l.memory_mb,
                l.processes
            ),
            None => format!(
                "sandbox: bubblewrap (no network, own processes, read-only system, /tmp {} MB); no cgroups: memory and processes NOT limited",
                l.tmp_mb
            ),
        }
    }

    /// A cgroup for one program, with the sandbox's limits set; `None`
    /// without cgroups.
    pub fn cell(&self) -> io::Result<Option<Cell>> {
        self.cell_with(self.limits)
    }

    /// A cgroup for one program with `limits` (a compiler's are not a
    /// player's); `None` without cgroups.
    pub fn cell_with(&self, limits: Limits) -> io::Result<Option<Cell>> {
        let Some(cgroups) = &self.cgroups else {
            return Ok(None);
        };
        let name = format!("p{}", CELLS.fetch_add(1, Ordering::SeqCst));
        let memory = limits.memory_mb << 20;
        let dirs = match cgroups {
            Cgroups::V2(ours) => {
                let dir = ours.join(&name);
                std::fs::create_dir(&dir)?;
                let cell = Cell { dirs: vec![dir] };
                let dir = &cell.dirs[0];
                std::fs::write(dir.join("memory.max"), memory.to_string())?;
                let _ = std::fs::write(dir.join("memory.swap.max"), "0");
                std::fs::write(dir.join("pids.max"), limits.processes.to_string())?;
                return Ok(Some(cell));
            }
            Cgroups::V1 { memory: m, pids: p } => vec![m.join(&name), p.join(&name)],
        };
        for dir in &dirs {
            std::fs::create_dir(dir)?;
        }
        let cell = Cell { dirs };
        std::fs::write(
            cell.dirs[0].join("memory.limit_in_bytes"),
            memory.to_string(),
        )?;
        // Swap counted too, where the kernel accounts it.
        let _ = std::fs::write(
            cell.dirs[0].join("memory.memsw.limit_in_bytes"),
            memory.to_string(),
        );
        std::fs::write(cell.dirs[1].join("pids.max"), limits.processes.to_string())?;
        Ok(Some(cell))
    }

    /// The command that runs `shell_line` (as `sh -c` would) in the
    /// sandbox, in the folder `cwd`, with the environment `env`. Every
    /// existing file or folder the line names outside the system's folders
    /// is shown, read-only, at its own path.
    #[must_use]
    pub fn command(&self, shell_line: &str, cwd: &Path, env: &[(String, String)]) -> Command {
        let shown: Vec<Shown> = named_paths(shell_line, cwd)
            .into_iter()
            .map(Shown::Read)
            .collect();
        self.command_showing(shell_line, cwd, env, &shown, self.limits.tmp_mb)
    }

    /// As [`Sandbox::command`], showing exactly the host's paths `shown`,
    /// with a `/tmp` of `tmp_mb`: a compiler is shown its toolchain and
    /// the folder it writes in, and nothing its command line names.
    #[must_use]
    pub fn command_showing(
        &self,
        shell_line: &str,
        cwd: &Path,
        env: &[(String, String)],
        shown: &[Shown],
        tmp_mb: u64,
    ) -> Command {
        let mut c = Command::new(&self.bwrap);
        c.args(["--unshare-all", "--die-with-parent", "--new-session"]);
        for dir in SYSTEM {
            c.args(["--ro-bind-try", dir, dir]);
        }
        c.args(["--proc", "/proc", "--dev", "/dev"]);
        c.args(["--size", &(tmp_mb << 20).to_string(), "--tmpfs", "/tmp"]);
        for path in shown {
            let (how, p) = match path {
                Shown::Read(p) => ("--ro-bind", p.display().to_string()),
                Shown::Write(p) => ("--bind", p.display().to_string()),
            };
            c.args([how, &p, &p]);
        }
        let cwd_text = cwd.display().to_string();
        // Then everything but /tmp (and a compiler's build folder) is
        // read-only, the folders made for the mounts included.
        c.args(["--dir", &cwd_text, "--remount-ro", "/"]);
        c.args(["--chdir", &cwd_text, "--clearenv"]);
        for (k, v) in env {
            c.args(["--setenv", k, v]);
        }
        c.args(["--", "sh", "-c", shell_line]);
        c.current_dir(cwd);
        c
    }
}

/// A path of the host's shown in the sandbox, at its own place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Shown {
    Read(PathBuf),
    /// Read and written: a compiler's build folder, nothing a player gets.
    Write(PathBuf),
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        // Empty by now: each program's cell went with the program.
        match &self.cgroups {
            Some(Cgroups::V2(ours)) => {
                let _ = std::fs::remove_dir(ours);
            }
            Some(Cgroups::V1 { memory, pids }) => {
                let _ = std::fs::remove_dir(memory);
                let _ = std::fs::remove_dir(pids);
            }
            None => {}
        }
    }
}

/// Whether `path` is in the system's folders, which the sandbox shows
/// every program (read-only).
#[must_use]
pub fn in_system(path: &Path) -> bool {
    SYSTEM.iter().any(|s| path.starts_with(s))
}

/// `bwrap` on the PATH.
fn find_bwrap() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join("bwrap"))
        .find(|p| p.is_file())
}

/// The existing files and folders that the words of `line` name (relative
/// to `cwd`), outside the system's folders, as absolute paths.
fn named_paths(line: &str, cwd: &Path) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = Vec::new();
    for word in line.split_whitespace() {
        let word = word.trim_matches(|c| c == '"' || c == '\'');
        if word.is_empty() || word.starts_with('-') {
            continue;
        }
        let path = cwd.join(word);
        let Ok(path) = path.canonicalize() else {
            continue;
        };
        let system = in_system(&path) || path == Path::new("/");
        if !system && !paths.contains(&path) {
            paths.push(path);
        }
    }
    paths
}

/// One program's cgroup (one folder a hierarchy): joined by the program
/// as it starts, emptied and removed when dropped.
#[derive(Debug)]
pub struct Cell {
    dirs: Vec<PathBuf>,
}

impl Cell {
    /// The files a starting process writes `0` to, to join the cell.
    #[must_use]
    pub fn procs_files(&self) -> Vec<std::ffi::CString> {
        self.dirs
            .iter()
            .filter_map(|d| {
                std::ffi::CString::new(d.join("cgroup.procs").as_os_str().as_encoded_bytes()).ok()
            })
            .collect()
    }

    /// Makes `command`'s process join the cell between fork and exec, so
    /// that nothing it runs escapes it.
    pub fn join_on_exec(&self, command: &mut Command) {
        let files = self.procs_files();
        // SAFETY: between fork and exec the closure only calls open, write
        // and close on paths made before the fork, allocating nothing.
        unsafe {
            command.pre_exec(move || {
                for file in &files {
                    let fd = nix::libc::open(file.as_ptr(), nix::libc::O_WRONLY);
                    if fd < 0 {
                        return Err(io::Error::last_os_error());
                    }
                    let written = nix::libc::write(fd, b"0".as_ptr().cast(), 1);
                    nix::libc::close(fd);
                    if written != 1 {
                        return Err(io::Error::last_os_error());
                    }
                }
                Ok(())
            });
        }
    }

    /// Whether the kernel killed something in it for want of memory.
    #[must_use]
    pub fn ran_out_of_memory(&self) -> bool {
        let dir = &self.dirs[0];
        let count = |file: &str, key: &str| {
            std::fs::read_to_string(dir.join(file)).ok().and_then(|t| {
                t.lines()
                    .find_map(|l| l.strip_prefix(key))
                    .and_then(|v| v.trim().parse::<u64>().ok())
            })
        };
        // v2: memory.events; v1: memory.oom_control (newer kernels) or the
        // count of allocations refused.
        count("memory.events", "oom_kill ").is_some_and(|n| n > 0)
            || count("memory.oom_control", "oom_kill ").is_some_and(|n| n > 0)
            || std::fs::read_to_string(dir.join("memory.failcnt"))
                .ok()
                .and_then(|t| t.trim().parse::<u64>().ok())
                .is_some_and(|n| n > 0)
    }

    /// The processes in it now.
    fn members(&self) -> Vec<i32> {
        let mut pids: Vec<i32> = self
            .dirs
            .iter()
            .filter_map(|d| std::fs::read_to_string(d.join("cgroup.procs")).ok())
            .flat_map(|t| {
                t.lines()
                    .filter_map(|l| l.trim().parse().ok())
                    .collect::<Vec<i32>>()
            })
            .collect();
        pids.sort_unstable();
        pids.dedup();
        pids
    }
}

impl Drop for Cell {
    fn drop(&mut self) {
        // Killed until none is left (a process may fork while the list is
        // read), then the folders go.
        for _ in 0..100 {
            let members = self.members();
            if members.is_empty() {
                break;
            }
            for pid in members {
                let _ = nix::sys::signal::kill(
                    nix::unistd::Pid::from_raw(pid),
                    nix::sys::signal::Signal::SIGKILL,
                );
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        for dir in &self.dirs {
            let _ = std::fs::remove_dir(dir);
        }
    }
}
