//! `reversi-server --addr 127.0.0.1:8080 --db FILE`: see the crate's doc.

use clap::Parser;
use reversi_server::store::Store;
use reversi_server::{now_ms, router, sweep_late_games, App};
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
    /// Where to listen (port 0: any free one; the address is printed)
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: String,
    /// The database: an SQLite file (created if missing), or PostgreSQL as postgres://USER:PASSWORD@HOST/DB, which several servers may share
    #[arg(long, value_name = "FILE|URL", default_value = "arena.db")]
    db: String,
    /// Requests a second one client address may make (twice that at once); 0: no limit (1 to 1,000,000)
    #[arg(long, value_name = "N", default_value_t = 100,
          value_parser = clap::value_parser!(u64).range(0..=1_000_000))]
    rate: u64,
    /// A file holding the organiser's token (else REVERSI_ADMIN_TOKEN; without either, no games can be created)
    #[arg(long, value_name = "FILE")]
    admin_token_file: Option<PathBuf>,
}

fn main() -> ExitCode {
    reversi_server::secret::return_large_blocks();
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
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("reversi-server: {e}");
            ExitCode::from(1)
        }
    }
}

fn run(args: &Args) -> Result<(), String> {
    let token = match &args.admin_token_file {
        Some(path) => Some(
            std::fs::read_to_string(path)
                .map_err(|e| format!("{}: {e}", path.display()))?
                .trim()
                .to_string(),
        ),
        None => std::env::var("REVERSI_ADMIN_TOKEN").ok(),
    }
    .filter(|t| !t.is_empty());
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
    let app = Arc::new(App::new(
        store,
        token,
        reversi_server::rate::Limiter::new(limit),
    ));
    let runtime = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(&args.addr)
            .await
            .map_err(|e| format!("{}: {e}", args.addr))?;
        let addr = listener.local_addr().map_err(|e| e.to_string())?;
        // Whoever started the server may stop reading its output.
        let mut out = std::io::stdout();
        let _ = writeln!(out, "listening on http://{addr}");
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
        let service = router(app).into_make_service_with_connect_info::<std::net::SocketAddr>();
        axum::serve(listener, service)
            .await
            .map_err(|e| e.to_string())
    })
}
