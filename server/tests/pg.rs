//! A PostgreSQL server for the tests: a throwaway cluster in a temporary
//! directory (Debian's `postgresql` package, which `make test-deps`
//! installs), started once for the test binary on a free port and stopped
//! when the binary ends; each test gets a database of its own.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

struct Cluster {
    port: u16,
    /// The shell that stops the cluster when its input closes, which it
    /// does when the test binary ends, however it ends.
    _keeper: Mutex<Child>,
}

/// The directory of PostgreSQL's programs: Debian's newest, else the PATH's.
fn bin_dir() -> PathBuf {
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("bin"))
        .filter(|p| p.join("initdb").exists())
        .collect();
    versions.sort_by_key(|p| {
        p.parent()
            .and_then(|v| v.file_name())
            .and_then(|v| v.to_str())
            .and_then(|v| v.parse::<u32>().ok())
            .unwrap_or(0)
    });
    if let Some(newest) = versions.pop() {
        return newest;
    }
    let found = Command::new("sh")
        .args(["-c", "command -v initdb"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    match found {
        Some(path) => PathBuf::from(path).parent().unwrap().to_path_buf(),
        None => panic!("PostgreSQL's server is not installed: `make test-deps` installs it"),
    }
}

/// `program` run as a user PostgreSQL accepts (it refuses root).
fn as_owner(program: PathBuf) -> Command {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(program);
        c
    } else {
        Command::new(program)
    }
}

pub use reversi_testkit::free_port;

fn cluster() -> &'static Cluster {
    static CLUSTER: OnceLock<Cluster> = OnceLock::new();
    CLUSTER.get_or_init(|| {
        let bin = bin_dir();
        let dir = std::env::temp_dir().join(format!("reversi-pg-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        // Made by the cluster's owner (postgres, when the tests run as
        // root), who removes it at the end.
        let made = as_owner(PathBuf::from("/bin/mkdir"))
            .arg(&dir)
            .status()
            .expect("mkdir runs");
        assert!(made.success(), "cannot make {}", dir.display());
        let data = dir.join("data");
        let init = as_owner(bin.join("initdb"))
            .args(["-A", "trust", "-U", "postgres", "--no-sync", "-D"])
            .arg(&data)
            .stdout(Stdio::null())
            .output()
            .expect("initdb runs");
        assert!(
            init.status.success(),
            "initdb: {}",
            String::from_utf8_lossy(&init.stderr)
        );
        let port = free_port();
        let script = format!(
            "'{}' -D '{}' -p {port} -k '{}' -c listen_addresses=127.0.0.1 -c fsync=off \
             >'{}/log' 2>&1 & pid=$!; read _; kill -INT $pid; wait $pid; rm -rf '{}'",
            bin.join("postgres").display(),
            data.display(),
            dir.display(),
            dir.display(),
            dir.display(),
        );
        let mut keeper = as_owner(PathBuf::from("/bin/sh"))
            .args(["-c", &script])
            .stdin(Stdio::piped())
            .spawn()
            .expect("postgres starts");
        let deadline = Instant::now() + Duration::from_secs(60);
        while postgres::Client::connect(&url_of(port, "postgres"), postgres::NoTls).is_err() {
            if Instant::now() > deadline {
                let _ = keeper.stdin.as_mut().unwrap().write_all(b"\n");
                let log = std::fs::read_to_string(dir.join("log")).unwrap_or_default();
                panic!("PostgreSQL did not start: {log}");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        Cluster {
            port,
            _keeper: Mutex::new(keeper),
        }
    })
}

fn url_of(port: u16, db: &str) -> String {
    format!("postgres://postgres@127.0.0.1:{port}/{db}")
}

/// A new, empty database on the tests' PostgreSQL: its URL.
pub fn fresh_db() -> String {
    static COUNT: AtomicUsize = AtomicUsize::new(0);
    let cluster = cluster();
    let name = format!("test_{}", COUNT.fetch_add(1, Ordering::SeqCst));
    let mut admin = postgres::Client::connect(&url_of(cluster.port, "postgres"), postgres::NoTls)
        .expect("the tests' PostgreSQL answers");
    admin
        .batch_execute(&format!("CREATE DATABASE {name}"))
        .unwrap();
    url_of(cluster.port, &name)
}
