//! The programs that speak on stdin/stdout: the bot (judge or CodinGame
//! protocol) and the BIO'97 program.

use super::{usage, CliError, MAX_DEPTH, MAX_HASH_MB};
use clap::{Args, ValueEnum};
use reversi_core::clock::MAX_MOVE_TIME_MS;
use reversi_core::codingame::Budget;
use reversi_core::eval::Evaluator;
use reversi_core::player::{entropy_seed, BotOptions, Engine, Player, SimplePlayer};
use reversi_core::protocol::{self, Verbosity};
use reversi_core::search::{Stop, MIDGAME_T};
use std::io::{self, BufWriter};
use std::process::ExitCode;
use std::time::Duration;

/// The bot's flags: who plays and how it searches (as `gtp` takes them),
/// then what it logs and which judge's protocol it speaks.
#[derive(Args, Debug, Clone)]
pub struct BotArgs {
    #[command(flatten)]
    engine: EngineArgs,
    /// stderr: boards, search line and warnings; search line and warnings; warnings only
    #[arg(long, value_enum, default_value_t = Log::Full)]
    log: Log,
    /// The protocol spoken on stdin/stdout
    #[arg(long, value_enum, default_value_t = Protocol::Judge)]
    protocol: Protocol,
    /// CodinGame's first turn's limit (1 to 3,600,000) [default: 2000]
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..=MAX_MOVE_TIME_MS))]
    first_move_time: Option<u64>,
}

/// Who plays and how it searches: the flags of the bot that apply to an
/// engine protocol too (`reversi gtp`).
#[derive(Args, Debug, Clone)]
pub struct EngineArgs {
    /// Who plays
    #[arg(long, value_enum, default_value_t = PlayerKind::Bot)]
    player: PlayerKind,
    /// Search to this fixed depth: reproducible replies (1 to 60)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_DEPTH)), conflicts_with = "nodes")]
    depth: Option<u32>,
    /// Search this many nodes: reproducible replies (with --move-time too,
    /// the clock still stops the search) (at least 1)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    nodes: Option<u64>,
    /// The judge's limit per reply [default: 1000, or REVERSI_MOVE_TIME
    /// when a referee of ours sets it]; the bot answers 150 ms before it
    /// (30% before when that is less) (1 to 3,600,000)
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..=MAX_MOVE_TIME_MS))]
    move_time: Option<u64>,
    #[command(flatten)]
    search: SearchFlags,
    /// The opening book answers the positions it knows
    #[arg(long, value_enum, default_value_t = Switch::On)]
    book: Switch,
    /// Seed of the random and greedy players [default: the clock]
    #[arg(long, value_name = "N")]
    seed: Option<u64>,
}

/// `reversi nboard`: NBoard sets the depth (`set depth`); what applies is
/// the clock of `go` and how the search runs.
#[derive(Args, Debug, Clone)]
pub struct NboardArgs {
    /// The limit of `go` [default: 1000, or REVERSI_MOVE_TIME when a
    /// referee of ours sets it]; the engine answers 150 ms before it (30%
    /// before when that is less) (1 to 3,600,000)
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..=MAX_MOVE_TIME_MS))]
    move_time: Option<u64>,
    #[command(flatten)]
    search: SearchFlags,
}

/// How a search is run, for the bot and the benchmark alike.
#[derive(Args, Debug, Clone)]
pub(super) struct SearchFlags {
    /// Transposition table size (1 to 4096) [default: 16]
    #[arg(long, value_name = "MB", value_parser = clap::value_parser!(u64).range(1..=MAX_HASH_MB))]
    hash: Option<u64>,
    /// Evaluation: hand-weighted, or the pattern tables trained on game archives
    #[arg(long, value_enum, default_value_t = EvalKind::Pattern)]
    eval: EvalKind,
    /// ProbCut in the midgame search; a number from 0.2 to 4 sets its t
    /// (lower cuts more)
    #[arg(long, value_name = "on|off|T", default_value = "on", value_parser = probcut_t)]
    probcut: ProbCut,
}

impl SearchFlags {
    pub(super) fn hash_mb(&self) -> usize {
        self.hash
            .map_or(reversi_core::tt::DEFAULT_MB, |mb| mb as usize)
    }

    pub(super) fn eval(&self) -> Evaluator {
        self.eval.into()
    }

    /// ProbCut's `t`, or `None` for a full-width search.
    pub(super) fn probcut_t(&self) -> Option<f64> {
        self.probcut.0
    }
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum PlayerKind {
    /// The engine: book, search, solver
    Bot,
    /// A uniformly random legal move
    Random,
    /// The move that turns the most discs
    Greedy,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum EvalKind {
    Hand,
    Pattern,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Switch {
    On,
    Off,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Log {
    Full,
    Brief,
    Quiet,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Protocol {
    /// The VG101 judge's lines (START, PLACE, DONE, BEGIN, TURN, PASS, END)
    Judge,
    /// CodinGame's Othello referee
    Codingame,
}

/// ProbCut's `t`, or `None` for a full-width search.
#[derive(Clone, Copy, Debug, PartialEq)]
struct ProbCut(Option<f64>);

/// The `t` that `--probcut T` accepts: below, ProbCut would cut nearly
/// every node; above, nearly none.
const PROBCUT_T_RANGE: std::ops::RangeInclusive<f64> = 0.2..=4.0;

fn probcut_t(text: &str) -> Result<ProbCut, String> {
    match text {
        "on" => Ok(ProbCut(Some(MIDGAME_T))),
        "off" => Ok(ProbCut(None)),
        other => match other.parse::<f64>() {
            Ok(t) if PROBCUT_T_RANGE.contains(&t) => Ok(ProbCut(Some(t))),
            _ => Err("on, off or a t from 0.2 to 4".into()),
        },
    }
}

impl From<EvalKind> for Evaluator {
    fn from(kind: EvalKind) -> Evaluator {
        match kind {
            EvalKind::Hand => Evaluator::Hand,
            EvalKind::Pattern => Evaluator::Pattern,
        }
    }
}

impl EngineArgs {
    /// The bot's settings: `--depth` and `--nodes` each fix what ends a
    /// search; `Engine::new` decides the clock.
    pub(super) fn options(&self) -> BotOptions {
        let stop = match (self.depth, self.nodes) {
            (Some(depth), _) => Stop::Depth(depth),
            (None, Some(nodes)) => Stop::Nodes(nodes),
            (None, None) => Stop::Clock,
        };
        BotOptions {
            hash_mb: self.search.hash_mb(),
            eval: self.search.eval(),
            stop,
            move_time: self.move_time.map(Duration::from_millis),
            probcut_t: self.search.probcut_t(),
            book: self.book == Switch::On,
        }
    }

    fn player(&self) -> Box<dyn Player> {
        let seed = self.seed.unwrap_or_else(entropy_seed);
        match self.player {
            PlayerKind::Random => Box::new(SimplePlayer::random(seed)),
            PlayerKind::Greedy => Box::new(SimplePlayer::greedy(seed)),
            PlayerKind::Bot => Box::new(Engine::new(self.options())),
        }
    }
}

pub(super) fn play_default() -> ExitCode {
    let mut engine = Engine::new(BotOptions::default());
    protocol::serve_stdio(&mut engine, Verbosity::Full)
}

impl BotArgs {
    /// The bot's settings (see [`EngineArgs::options`]).
    #[cfg(test)]
    pub(super) fn options(&self) -> BotOptions {
        self.engine.options()
    }

    fn player(&self) -> Box<dyn Player> {
        self.engine.player()
    }
}

pub(super) fn play(args: &BotArgs) -> Result<ExitCode, CliError> {
    let verbosity = match args.log {
        Log::Full => Verbosity::Full,
        Log::Brief => Verbosity::Brief,
        Log::Quiet => Verbosity::Quiet,
    };
    match args.protocol {
        Protocol::Judge => {
            if args.first_move_time.is_some() {
                return Err(usage("--first-move-time is for --protocol codingame"));
            }
            Ok(protocol::serve_stdio(args.player().as_mut(), verbosity))
        }
        Protocol::Codingame => {
            let default = Budget::default();
            let budget = Budget {
                first: args
                    .first_move_time
                    .map_or(default.first, Duration::from_millis),
                rest: args
                    .engine
                    .move_time
                    .map_or(default.rest, Duration::from_millis),
            };
            Ok(reversi_core::codingame::serve_stdio(
                args.player().as_mut(),
                budget,
            ))
        }
    }
}

/// `reversi bio97`: the BIO'97 program (stdin/stdout).
#[derive(Args, Debug)]
pub struct Bio97Args {
    /// 1: turn over the most discs; 2: keep the most discs after the
    /// opponent's best reply (1 to 2)
    #[arg(long, value_name = "1|2", default_value_t = 2, value_parser = clap::value_parser!(u8).range(1..=2))]
    strategy: u8,
}

pub(super) fn bio97(args: &Bio97Args) -> Result<ExitCode, CliError> {
    let strategy = match args.strategy {
        1 => crate::bio97::Strategy::MostTurned,
        _ => crate::bio97::Strategy::BestAfterReply,
    };
    let stdin = io::stdin();
    let mut output = BufWriter::new(io::stdout().lock());
    let mut log = io::stderr().lock();
    spoke(
        "bio97",
        crate::bio97::run(&mut stdin.lock(), &mut output, &mut log, strategy),
    )
}

/// `reversi gtp`: the bot speaking GTP (see `src/engines/gtp.rs`).
pub(super) fn gtp(args: &EngineArgs) -> Result<ExitCode, CliError> {
    let limit = engine_limit("gtp", args.move_time);
    let mut player = args.player();
    let (mut output, mut log) = (io::stdout().lock(), io::stderr().lock());
    let input = &mut io::stdin().lock();
    spoke(
        "gtp",
        crate::engines::gtp::run(input, &mut output, &mut log, player.as_mut(), limit),
    )
}

/// `reversi bridge --gtp COMMAND` or `--nboard COMMAND`.
#[derive(Args, Debug)]
#[command(group(clap::ArgGroup::new("engine").required(true).args(["gtp", "nboard"])))]
pub struct BridgeArgs {
    /// A GTP engine's command line, as a shell runs it (`self` is this executable)
    #[arg(long, value_name = "COMMAND")]
    gtp: Option<String>,
    /// An NBoard engine's command line, as a shell runs it
    #[arg(long, value_name = "COMMAND")]
    nboard: Option<String>,
    /// The depth the NBoard engine searches to (NBoard has no clock) [default: 12] (1 to 60)
    #[arg(long, value_name = "PLIES", value_parser = clap::value_parser!(u32).range(1..=60),
          conflicts_with = "gtp")]
    depth: Option<u32>,
}

pub(super) fn bridge(args: &BridgeArgs) -> Result<ExitCode, CliError> {
    use crate::engines::bridge::Protocol;
    let (command, protocol) = match (&args.gtp, &args.nboard) {
        (Some(command), _) => (command, Protocol::Gtp),
        (None, Some(command)) => {
            let depth = args.depth.unwrap_or(crate::engines::bridge::NBOARD_DEPTH);
            (command, Protocol::Nboard { depth })
        }
        (None, None) => unreachable!("clap requires one"),
    };
    let mut output = io::stdout().lock();
    match crate::engines::bridge::run(command, protocol, &mut io::stdin().lock(), &mut output) {
        // The engine never started: the bridge exits as the shell did,
        // so that a referee counts the engine as a program that could not
        // start (an error, exit 1), not as a forfeit.
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::PermissionDenied
            ) =>
        {
            eprintln!("reversi: bridge: {e}");
            let code = if e.kind() == io::ErrorKind::NotFound {
                127
            } else {
                126
            };
            Ok(ExitCode::from(code))
        }
        result => spoke("bridge", result),
    }
}

/// `reversi nboard`: the bot speaking NBoard (see `src/engines/nboard.rs`).
pub(super) fn nboard(args: &NboardArgs) -> Result<ExitCode, CliError> {
    let limit = engine_limit("nboard", args.move_time);
    let (eval, hash) = (args.search.eval(), args.search.hash_mb());
    let (mut output, mut log) = (io::stdout().lock(), io::stderr().lock());
    let input = io::BufReader::new(io::stdin());
    spoke(
        "nboard",
        crate::engines::nboard::run(input, &mut output, &mut log, eval, hash, limit),
    )
}

/// How a program speaking on stdin/stdout ended: a closed stdout is the
/// reader's choice, not a failure; any other I/O error is one line, exit 1.
fn spoke(name: &str, result: io::Result<()>) -> Result<ExitCode, CliError> {
    match result {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        Err(e) => Err(super::failed(name, e)),
    }
}

/// For the engine protocols (GTP, NBoard): the limit per move is
/// `--move-time`, else the one a referee of ours announced (a `gtp:` or
/// `nboard:` player in a match), else the judge's second.
fn engine_limit(name: &str, move_time: Option<u64>) -> Duration {
    use reversi_core::clock::{announced_limit, JUDGE_LIMIT};
    if let Some(ms) = move_time {
        return Duration::from_millis(ms);
    }
    match announced_limit() {
        Ok(announced) => announced.unwrap_or(JUDGE_LIMIT),
        Err(e) => {
            eprintln!("{name}: {e}: playing to the judge's 1000 ms");
            JUDGE_LIMIT
        }
    }
}
