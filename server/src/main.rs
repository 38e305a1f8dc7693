//! `reversi-server --addr 127.0.0.1:8080 --db FILE`: see the crate's doc.

use clap::Parser;
use reversi_server::http::router;
use reversi_server::store::Store;
use reversi_server::{now_ms, sweep_late_games, App};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

/// The arena server: teams register, the organiser creates games and
/// contests, remote bots play over HTTP and hosted programs are played by
/// the server; every move is stored before it is answered.
#[derive(Parser, Debug)]
#[command(version)]
struct Args {
    #[command(subcommand)]
    command: Option<Command>,
    /// Where to listen (port 0: any free one; the address is printed)
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: String,
    /// The database: an SQLite file (created if missing), or PostgreSQL as postgres://USER:PASSWORD@HOST/DB, which several servers may share
    #[arg(long, value_name = "FILE|URL", default_value = "arena.db")]
    db: String,
    /// Requests a second one client address may make (twice that at once): 1 to 1,000,000, or 0 for no limit
    #[arg(long, value_name = "N", default_value_t = 100,
          value_parser = clap::value_parser!(u64).range(0..=1_000_000))]
    rate: u64,
    /// A file holding the organiser's token (else REVERSI_ADMIN_TOKEN; without either, no games can be created)
    #[arg(long, value_name = "FILE")]
    admin_token_file: Option<PathBuf>,
    /// Seconds a request may take to arrive, head and body, from its first byte (slower: 408 and closed)
    #[arg(long, value_name = "S", default_value_t = 10,
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    request_timeout: u64,
    /// Seconds a connection may wait for its next request before it is closed
    #[arg(long, value_name = "S", default_value_t = 60,
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    idle_timeout: u64,
    /// Connections one client address may hold open (0: no cap; a trusted proxy's are not capped)
    #[arg(long, value_name = "N", default_value_t = 64)]
    max_conns_per_client: usize,
    /// Connections open in all (kept below the open-file limit)
    #[arg(long, value_name = "N", default_value_t = 4096,
          value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    max_conns: u64,
    /// Wrong secrets one client address may send in a minute before it is answered 429
    #[arg(long, value_name = "N", default_value_t = 10,
          value_parser = clap::value_parser!(u32).range(1..))]
    max_auth_failures: u32,
    /// Wrong secrets for one team in a minute, after which only addresses that never failed are checked for it
    #[arg(long, value_name = "N", default_value_t = 30,
          value_parser = clap::value_parser!(u32).range(1..))]
    max_team_auth_failures: u32,
    /// A reverse proxy's address: its connections' client is the last address in X-Forwarded-For (repeatable)
    #[arg(long, value_name = "IP")]
    trusted_proxy: Vec<std::net::IpAddr>,
    /// Run hosted programs in the sandbox: bubblewrap (no network, own processes, read-only system, of the host's files only those the command names) and a cgroup (memory 256 MB, 16 processes); the server will not start where the cgroup cannot be had. It then takes teams' submissions (the online judge)
    #[arg(long)]
    sandbox: bool,
    /// With --sandbox, start even where no cgroup can limit memory and processes
    #[arg(long, requires = "sandbox")]
    allow_weak_sandbox: bool,
    /// Hosted games played at once, each on a core of its own (default: the cores, less one for the server)
    #[arg(long, value_name = "N",
          value_parser = clap::value_parser!(u64).range(1..=4096))]
    judges: Option<u64>,
    /// Submissions built and checked at once (with --sandbox), on the server's core
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u64).range(1..=64))]
    compilers: u64,
    /// Where submissions are built and their programs kept to run (default: a new folder in the system's temporary folder)
    #[arg(long, value_name = "DIR")]
    programs_dir: Option<PathBuf>,
    /// Also serve GGS, the Generic Game Server's protocol, at this address (for example 127.0.0.1:5000): engines log in with their team's name and secret and play its games with their own GGS clients (Edax's -ggs, `reversi ggs`). Off by default
    #[arg(long, value_name = "ADDR")]
    ggs_addr: Option<String>,
    /// Leave finished games unanalysed (by default each is, in the background, at the lowest priority, on the server's core)
    #[arg(long)]
    no_analysis: bool,
}

#[derive(clap::Subcommand, Debug)]
enum Command {
    /// Wait until a server answers at URL (exit 0), or say that none did in time (exit 1): for scripts that start one in the background
    Wait {
        /// The server, as http://HOST:PORT
        url: String,
        /// How long to wait, in seconds (1 to 3600)
        #[arg(long, value_name = "S", default_value_t = 30,
              value_parser = clap::value_parser!(u64).range(1..=3600))]
        timeout: u64,
    },
}

fn main() -> ExitCode {
    reversi_server::auth::secret::return_large_blocks();
    let args = match Args::try_parse() {
        Ok(args) => args,
        Err(e) if !e.use_stderr() => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            let first = e.to_string();
            let line = first
                .lines()
                .next()
                .unwrap_or("bad usage")
                .trim_start_matches("error: ");
            eprintln!("reversi-server: {line} (see --help)");
            return ExitCode::from(2);
        }
    };
    if let Some(Command::Wait { url, timeout }) = &args.command {
        if let Err(e) = reversi_server::http::ready::address(url) {
            eprintln!("reversi-server: {e} (see --help)");
            return ExitCode::from(2);
        }
        return match reversi_server::http::ready::wait(
            url,
            std::time::Duration::from_secs(*timeout),
        ) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("reversi-server: {e}");
                ExitCode::from(1)
            }
        };
    }
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("reversi-server: {e}");
            ExitCode::from(1)
        }
    }
}

/// The variable `name`, then gone from this process: from its variables,
/// and from the block the system keeps of its starting environment, which
/// any process of the same user can read in `/proc/PID/environ`.
fn take_env_secret(name: &str) -> Option<String> {
    let value = std::env::var(name).ok()?;
    let key = std::ffi::CString::new(name).ok()?;
    // SAFETY: no other thread runs yet (the runtime starts later), so
    // nothing reads the environment while it is changed; getenv's pointer
    // is to `value.len()` bytes of the variable's value, overwritten in
    // place before the variable is removed.
    unsafe {
        let at = libc::getenv(key.as_ptr());
        if !at.is_null() {
            std::ptr::write_bytes(at, b'x', libc::strlen(at));
        }
        std::env::remove_var(name);
    }
    Some(value)
}

/// The online judge, with the languages this machine can build, said on
/// stderr.
fn judge(args: &Args) -> Result<reversi_server::judge::Judge, String> {
    let folder = match &args.programs_dir {
        Some(dir) => dir.clone(),
        None => std::env::temp_dir().join(format!("reversi-server-{}", std::process::id())),
    };
    std::fs::create_dir_all(&folder).map_err(|e| format!("{}: {e}", folder.display()))?;
    let folder = folder
        .canonicalize()
        .map_err(|e| format!("{}: {e}", folder.display()))?;
    if folder.to_string_lossy().contains(char::is_whitespace) {
        return Err(format!(
            "{}: a programs folder's path may not hold spaces",
            folder.display()
        ));
    }
    let languages = reversi_server::judge::languages::offered();
    let (have, lack): (Vec<_>, Vec<_>) = languages.iter().partition(|l| l.toolchain.is_some());
    let names = |l: &[&reversi_server::judge::languages::Offered]| {
        l.iter()
            .map(|l| l.language.id.clone())
            .collect::<Vec<_>>()
            .join(" ")
    };
    eprintln!("reversi-server: judging {}", names(&have));
    if !lack.is_empty() {
        eprintln!("reversi-server: no compiler for {}", names(&lack));
    }
    Ok(reversi_server::judge::Judge {
        languages,
        build_limits: reversi_server::judge::build::BuildLimits::default(),
        check_limit: std::time::Duration::from_secs(1),
        workers: args.compilers as usize,
        folder,
    })
}

fn run(args: &Args) -> Result<(), String> {
    let token = match &args.admin_token_file {
        Some(path) => Some(
            std::fs::read_to_string(path)
                .map_err(|e| format!("{}: {e}", path.display()))?
                .trim()
                .to_string(),
        ),
        None => take_env_secret("REVERSI_ADMIN_TOKEN"),
    }
    .filter(|t| !t.is_empty());
    let sandbox = if args.sandbox {
        let sandbox = reversi::arena::sandbox::Sandbox::new(
            reversi::arena::sandbox::Limits::default(),
            args.allow_weak_sandbox,
        )?;
        eprintln!("reversi-server: {}", sandbox.describe());
        Some(sandbox)
    } else {
        None
    };
    let store = Store::open(&args.db)?;
    // With no other server about, the games in progress offer their turns
    // anew (nobody loses on time for the servers' absence) and all work is
    // free to take up. A server joining others leaves their games alone.
    let resumed = if store.alone() {
        store.restart_clocks(now_ms()).map_err(|e| e.to_string())?
    } else {
        0
    };
    let limit = (args.rate > 0).then_some(args.rate as f64);
    let mut app = App::new(
        store,
        token,
        reversi_server::http::rate::Limiter::new(limit),
        reversi_server::auth::Limits {
            failures_per_client: args.max_auth_failures,
            failures_per_team: args.max_team_auth_failures,
        },
    );
    if let Some(judges) = args.judges {
        app.cores = reversi_server::hosted::cores::Cores::new(judges as usize);
    }
    if sandbox.is_some() {
        app.judge = Some(judge(args)?);
    }
    app.sandbox = sandbox;
    let app = Arc::new(app);
    // Each connection takes a descriptor; the database and the hosted
    // programs need some of their own.
    let files = reversi_server::http::conn::raise_open_files();
    let most = (files.saturating_sub(256)).max(16);
    if args.max_conns > most {
        eprintln!(
            "reversi-server: --max-conns {} is over what the open-file limit ({files}) allows: {most}",
            args.max_conns
        );
    }
    let limits = reversi_server::http::conn::Limits {
        request_timeout: std::time::Duration::from_secs(args.request_timeout),
        idle_timeout: std::time::Duration::from_secs(args.idle_timeout),
        per_client: args.max_conns_per_client,
        total: args.max_conns.min(most) as usize,
    };
    let proxies = Arc::new(args.trusted_proxy.clone());
    let runtime = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(&args.addr)
            .await
            .map_err(|e| format!("{}: {e}", args.addr))?;
        let addr = listener.local_addr().map_err(|e| e.to_string())?;
        let ggs = match &args.ggs_addr {
            Some(at) => Some(
                tokio::net::TcpListener::bind(at)
                    .await
                    .map_err(|e| format!("--ggs-addr {at}: {e}"))?,
            ),
            None => None,
        };
        // Whoever started the server may stop reading its output.
        let mut out = std::io::stdout();
        let _ = writeln!(out, "listening on http://{addr}");
        if let Some(ggs) = ggs {
            let at = ggs.local_addr().map_err(|e| e.to_string())?;
            let _ = writeln!(out, "GGS on {at}");
            tokio::spawn(reversi_server::ggs::serve(
                ggs,
                Arc::clone(&app),
                reversi_server::ggs::Limits::default(),
            ));
        }
        if app.store.shared() && !app.store.alone() {
            let _ = writeln!(out, "joined the other servers on the database");
        }
        if resumed > 0 {
            let _ = writeln!(out, "resumed {resumed} game(s) in progress");
        }
        let _ = out.flush();
        tokio::spawn(sweep_late_games(Arc::clone(&app)));
        // The other servers' changes wake this one's waiting requests.
        let hearing = Arc::clone(&app);
        app.store.listen(move |what| match what.strip_prefix('g') {
            Some(id) => hearing.moved.raise(id.parse().unwrap_or_default()),
            None if what == "*" => hearing.moved.raise_all(),
            None => hearing.moved.poke(),
        });
        // Hosted programs take their seats again, and the contests go on
        // from where their stored games have got to, as their leases lapse
        // (at once after a start alone).
        reversi_server::lease::keep(&app);
        if !args.no_analysis {
            reversi_server::analysis::start(&app);
        }
        reversi_server::http::conn::serve(listener, router(app), limits, proxies)
            .await
            .map_err(|e| e.to_string())
    })
}
