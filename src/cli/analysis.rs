//! The commands that look at positions: `perft`, `solve`, `bench`.

use super::bot::{EvalKind, SearchFlags};
use super::{failed, read_file, report, CliError, MAX_BENCH_DEPTH, MAX_DEPTH, MAX_HASH_MB};
use crate::bench::perft::Convention;
use crate::records::obf::{self, Mode, Options};
use clap::{Args, ValueEnum};
use reversi_core::clock::MAX_MOVE_TIME_MS;
use std::io;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(ValueEnum, Clone, Copy, Debug)]
enum ConventionName {
    /// A game that ends early counts nothing deeper (OEIS A124004, Edax)
    Dropped,
    /// A game that ends early counts as one leaf at every deeper depth (Aart Bik)
    Kept,
}

/// Counts move sequences from the start; a forced pass counts as one ply.
/// The two conventions split from depth 10.
#[derive(Args, Debug)]
pub struct PerftArgs {
    /// Plies to count, each depth printed as it finishes (1 to 60)
    #[arg(value_name = "DEPTH", value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_DEPTH)))]
    depth: u32,
    /// How a game that ends before DEPTH counts
    #[arg(long, value_enum, default_value_t = ConventionName::Dropped)]
    convention: ConventionName,
    /// Enumerate every line instead of using the memo of transpositions
    #[arg(long)]
    every_line: bool,
}

pub(super) fn perft(args: &PerftArgs) -> Result<ExitCode, CliError> {
    let convention = match args.convention {
        ConventionName::Dropped => Convention::GamesDropped,
        ConventionName::Kept => Convention::GamesKept,
    };
    report(|out| crate::bench::perft::print_table(out, args.depth, convention, !args.every_line))
}

/// The time `solve --time` accepts, in seconds: a day is already far more
/// than any position needs.
const MAX_SOLVE_SECONDS: f64 = 86_400.0;

fn seconds(text: &str) -> Result<Duration, String> {
    match text.parse::<f64>() {
        Ok(s) if s > 0.0 && s <= MAX_SOLVE_SECONDS => Ok(Duration::from_secs_f64(s)),
        _ => Err(format!(
            "a number of seconds above 0, at most {MAX_SOLVE_SECONDS}"
        )),
    }
}

/// Solves OBF positions (a board and side to move a line, scores of the
/// moves after it optional): exact score, best move, principal variation;
/// listed scores are checked.
#[derive(Args, Debug)]
pub struct SolveArgs {
    /// The OBF file [default: stdin]
    file: Option<PathBuf>,
    /// Win, draw or loss only (faster)
    #[arg(long, conflicts_with = "all")]
    wld: bool,
    /// Every move's score
    #[arg(long)]
    all: bool,
    /// Solve only positions with up to N empties; above, a midgame
    /// estimate at depth N (1 to 60)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_DEPTH)))]
    depth_limit: Option<u32>,
    /// Give each position S seconds, as the bot would, and report its move
    /// (above 0, at most 86,400)
    #[arg(long, value_name = "S", value_parser = seconds)]
    time: Option<Duration>,
    /// Transposition table size (1 to 4096)
    #[arg(long, value_name = "MB", default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..=MAX_HASH_MB))]
    hash: u64,
    /// Evaluation of the midgame estimates
    #[arg(long, value_enum, default_value_t = EvalKind::Pattern)]
    eval: EvalKind,
}

pub(super) fn solve(args: &SolveArgs) -> Result<ExitCode, CliError> {
    let mode = match (args.wld, args.all) {
        (true, _) => Mode::Wld,
        (false, true) => Mode::All,
        (false, false) => Mode::Exact,
    };
    let options = Options {
        mode,
        depth_limit: args.depth_limit,
        time: args.time,
        hash_mb: args.hash as usize,
        eval: args.eval.into(),
    };
    let (name, text) = match &args.file {
        None => {
            let bytes = crate::util::files::read_all_capped(io::stdin().lock(), "stdin")
                .map_err(|e| CliError::Failed(e.to_string()))?;
            let text = String::from_utf8(bytes).map_err(|_| failed("stdin", "not UTF-8 text"))?;
            ("stdin".to_string(), text)
        }
        Some(path) => (path.display().to_string(), read_file(path)?),
    };
    let mut out = io::stdout().lock();
    match obf::run(&text, &options, &mut out) {
        Ok(true) => Ok(ExitCode::SUCCESS),
        Ok(false) => Err(CliError::Failed(format!(
            "{name}: an answer disagrees with the scores listed (the lines marked WRONG above)"
        ))),
        // A reader that stopped reading (`| head`) is not an error.
        Err(obf::RunError::Output(e)) if e.kind() == io::ErrorKind::BrokenPipe => {
            Ok(ExitCode::SUCCESS)
        }
        Err(obf::RunError::Output(e)) => Err(failed("stdout", e)),
        Err(obf::RunError::Line(e)) => Err(failed(name, e)),
    }
}

/// The deepest reference search of `bench --probcut-errors --deep`, run on
/// every position at every stage (the committed fit used 10).
const MAX_DEEP: u32 = 16;

/// The empties a bench solves exactly: 30 already takes minutes a position.
const MAX_SOLVED_EMPTIES: u32 = 30;

/// Fixed searches on fixed positions: the total node count is a signature
/// that a change which should not alter the search must not alter.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Search depth of the fixed searches (1 to 30) [default: 11]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_BENCH_DEPTH)))]
    depth: Option<u32>,
    /// Search the positions as the bot would at this limit: depths reached, speed (1 to 3,600,000)
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..=MAX_MOVE_TIME_MS))]
    move_time: Option<u64>,
    #[command(flatten)]
    search: SearchFlags,
    /// Instead: the solver's cost by empties (exact and win/draw/loss)
    #[arg(long, conflicts_with = "probcut_errors")]
    endgame_curve: bool,
    /// Instead: midgame score errors by depth on archive positions (ProbCut's margins)
    #[arg(long)]
    probcut_errors: bool,
    /// With --probcut-errors: against depths 2..D instead of the exact
    /// score, and the midgame fits (2 to 16)
    #[arg(long, value_name = "D", requires = "probcut_errors", value_parser = clap::value_parser!(u32).range(2..=i64::from(MAX_DEEP)))]
    deep: Option<u32>,
    /// With --deep: every S empties (1 to 60) [default: 4]
    #[arg(long, value_name = "S", value_parser = clap::value_parser!(u32).range(1..=60))]
    step: Option<u32>,
    /// With --deep: threads (1 to 1,024) [default: one per core]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1024))]
    jobs: Option<u64>,
    /// The game archives (--probcut-errors)
    #[arg(long, value_name = "DIR", default_value = "../shared/data/games")]
    games_dir: PathBuf,
    /// Fewest empties (1 to 60)
    #[arg(long, value_name = "E", value_parser = clap::value_parser!(u32).range(1..=60))]
    from: Option<u32>,
    /// Most empties (1 to 60)
    #[arg(long, value_name = "E", value_parser = clap::value_parser!(u32).range(1..=60))]
    to: Option<u32>,
    /// Positions per number of empties (1 to 100,000)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=100_000))]
    positions: Option<u64>,
}

impl BenchArgs {
    /// `--from E --to E` within `1..=most`, `from` not above `to`.
    fn empties(&self, most: u32, default: (u32, u32)) -> Result<(u32, u32), CliError> {
        let from = self.from.unwrap_or(default.0);
        let to = self.to.unwrap_or(default.1.max(from));
        for (flag, e) in [("--from", from), ("--to", to)] {
            if e > most {
                return Err(super::usage(format!("{flag}: from 1 to {most}, not {e}")));
            }
        }
        if from > to {
            return Err(super::usage(format!("--from {from} is above --to {to}")));
        }
        Ok((from, to))
    }
}

pub(super) fn bench(args: &BenchArgs) -> Result<ExitCode, CliError> {
    let eval = args.search.eval();
    let probcut_t = args.search.probcut_t();
    if args.endgame_curve {
        let (from, to) = args.empties(MAX_SOLVED_EMPTIES, (12, 22))?;
        let per_size = args.positions.unwrap_or(20);
        return report(|out| crate::bench::endgame_curve(out, from, to, per_size));
    }
    if args.probcut_errors {
        // Midgame positions against deeper searches, or solved ones.
        let (most, default) = match args.deep {
            Some(_) => (60, (20, 52)),
            None => (MAX_SOLVED_EMPTIES, (16, 20)),
        };
        let (from, to) = args.empties(most, default)?;
        let wthor = args.games_dir.join("wthor");
        let games =
            crate::records::archive::read_wthor(&wthor).map_err(|e| failed(wthor.display(), e))?;
        let positions = args.positions.unwrap_or(100);
        return match args.deep {
            Some(deep) => {
                let step = args.step.unwrap_or(4);
                let jobs = args.jobs.map_or_else(super::cores, |j| j as usize);
                report(|out| {
                    crate::tuning::probcut::midgame_probcut_errors(
                        out,
                        &games,
                        (from, to, step),
                        positions,
                        deep,
                        jobs,
                    )
                })
            }
            None => report(|out| {
                crate::tuning::probcut::probcut_errors(out, &games, from, to, positions)
            }),
        };
    }
    let depth = args.depth.unwrap_or(crate::bench::DEPTH);
    let hash = args.search.hash_mb();
    match args.move_time {
        Some(ms) => {
            report(|out| crate::bench::timed(out, Duration::from_millis(ms), hash, eval, probcut_t))
        }
        None => report(|out| crate::bench::run(out, depth, hash, eval, probcut_t)),
    }
}
