//! The commands that make the bot's data and files: `train`, `selfplay`,
//! `book`, `pack`, `bundle`.

use super::{cores, failed, read_file, report, usage, CliError, MAX_BENCH_DEPTH};
use crate::arena::Openings;
use crate::records::archive::ArchiveRun;
use clap::{Args, Subcommand, ValueEnum};
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Flags of the tools that learn from the game archives.
#[derive(Args, Debug)]
pub struct ArchiveFlags {
    /// The game archives (wthor/ and logistello/ below it)
    #[arg(long, value_name = "DIR", default_value = "../shared/data/games")]
    games_dir: PathBuf,
    /// Use one game in K (1: all), for a quicker run (1 to 1,000,000)
    #[arg(long, value_name = "K", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    every: u64,
    /// Threads (1 to 1,024) [default: one per core]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1024))]
    jobs: Option<u64>,
}

impl ArchiveFlags {
    fn run<'a>(&'a self, out: &'a Path, command: &str) -> ArchiveRun<'a> {
        ArchiveRun {
            games_dir: &self.games_dir,
            every: self.every as usize,
            out,
            jobs: jobs(self.jobs),
            command: format!("reversi {command}"),
        }
    }
}

/// `--jobs N` of the untimed tools: by default one per core.
fn jobs(flag: Option<u64>) -> usize {
    flag.map_or_else(cores, |j| j as usize)
}

/// This process's arguments after the program's name, as the header of
/// what a tool writes records them.
fn command_line() -> String {
    std::env::args().skip(1).collect::<Vec<_>>().join(" ")
}

#[derive(Args, Debug)]
pub struct TrainArgs {
    #[command(flatten)]
    archives: ArchiveFlags,
    /// More games, one a line in the Logistello list's format (what selfplay writes; gzipped if FILE ends .gz)
    #[arg(long, value_name = "FILE")]
    extra_games: Option<PathBuf>,
    /// Where the weights go
    #[arg(
        long,
        value_name = "FILE",
        default_value = "core/src/eval/patterns.weights"
    )]
    out: PathBuf,
    /// Seed of the order positions are fitted in
    #[arg(long, value_name = "N", default_value_t = 1)]
    seed: u64,
    /// Passes over the positions (1 to 1,000)
    #[arg(long, value_name = "N", default_value_t = 6, value_parser = clap::value_parser!(u32).range(1..=1000))]
    epochs: u32,
    /// A position also trains the stages within E empties of its own (0 to 60)
    #[arg(long, value_name = "E", default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=60))]
    overlap: u32,
    /// Label positions by a search of depth D (0: by the games' results) (0 to 30)
    #[arg(long, value_name = "D", default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=i64::from(MAX_BENCH_DEPTH)))]
    label_depth: u32,
    /// With --label-depth: the search's share of each label, in percent (0 to 100)
    #[arg(long, value_name = "P", default_value_t = 100, value_parser = clap::value_parser!(u32).range(0..=100))]
    label_share: u32,
}

pub(super) fn train(args: &TrainArgs) -> Result<ExitCode, CliError> {
    let options = crate::training::Options {
        run: args.archives.run(&args.out, &command_line()),
        extra_games: args.extra_games.as_deref(),
        seed: args.seed,
        epochs: args.epochs,
        overlap: args.overlap,
        labels: crate::training::Labels {
            search_depth: args.label_depth,
            search_share: args.label_share,
        },
    };
    let mut log = io::stderr().lock();
    crate::training::run(&options, &mut log).map_err(|e| failed("train", e))?;
    Ok(ExitCode::SUCCESS)
}

#[derive(Args, Debug)]
pub struct SelfplayArgs {
    /// Games to play (1 to 1,000,000 a run: run again with another --seed for more); with --out, the games FILE is to hold
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    games: u64,
    /// Openings to start from, one a line (XOT lines, say)
    #[arg(long, value_name = "FILE")]
    openings: Option<PathBuf>,
    /// Each move's search depth (1 to 30)
    #[arg(long, value_name = "D", default_value_t = 6, value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_BENCH_DEPTH)))]
    depth: u32,
    /// The chance of a random move, in percent, in the K moves after the opening (0 to 100)
    #[arg(long, value_name = "P", default_value_t = 10, value_parser = clap::value_parser!(u32).range(0..=100))]
    random: u32,
    /// K: how many moves after the opening may be random (0 to 60)
    #[arg(long, value_name = "K", default_value_t = 30, value_parser = clap::value_parser!(u32).range(0..=60))]
    random_plies: u32,
    /// Seed of the openings and the random moves
    #[arg(long, value_name = "N", default_value_t = 1)]
    seed: u64,
    /// Threads (1 to 1,024) [default: one per core]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1024))]
    jobs: Option<u64>,
    /// Append to FILE after a line saying what made its games, resuming where a stopped run left it, instead of writing to stdout
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

pub(super) fn selfplay(args: &SelfplayArgs) -> Result<ExitCode, CliError> {
    let openings = match &args.openings {
        None => Vec::new(),
        Some(path) => {
            let text = read_file(path)?;
            // checked as the arena checks them, then kept as lines
            Openings::parse(&text, 0).map_err(|e| failed(path.display(), e))?;
            text.lines()
                .map(str::trim)
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
                .map(String::from)
                .collect()
        }
    };
    let options = crate::training::selfplay::Options {
        games: args.games as usize,
        openings,
        depth: args.depth,
        random_percent: args.random,
        random_plies: args.random_plies,
        seed: args.seed,
        jobs: jobs(args.jobs),
        first: 0,
    };
    let mut log = io::stderr().lock();
    match &args.out {
        None => report(|out| {
            crate::training::selfplay::run(&options, &mut BufWriter::new(out), &mut log)
        }),
        Some(path) => selfplay_into(path, options, &mut log),
    }
}

/// `selfplay --out FILE`: resumes the run FILE holds, or starts it.
fn selfplay_into(
    path: &Path,
    mut options: crate::training::selfplay::Options,
    log: &mut impl io::Write,
) -> Result<ExitCode, CliError> {
    use crate::training::selfplay;
    let text = match crate::util::files::read_text_capped(path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(failed(path.display(), e)),
    };
    let header = selfplay::provenance(&options);
    let at = selfplay::resume(&text, &header).map_err(|e| failed(path.display(), e))?;
    if at.games >= options.games {
        eprintln!("{}: holds {} games already", path.display(), at.games);
        return Ok(ExitCode::SUCCESS);
    }
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(|e| failed(path.display(), e))?;
    let prepared = file.set_len(at.keep as u64).and_then(|()| {
        use std::io::{Seek, Write};
        file.seek(io::SeekFrom::End(0))?;
        if at.keep == 0 {
            writeln!(file, "{header}")?;
        }
        Ok(())
    });
    prepared.map_err(|e| failed(path.display(), e))?;
    if at.games > 0 {
        eprintln!("{}: resuming after game {}", path.display(), at.games);
    }
    options.first = at.games;
    selfplay::run(&options, &mut BufWriter::new(file), log)
        .map_err(|e| failed(path.display(), e))?;
    Ok(ExitCode::SUCCESS)
}

#[derive(Subcommand, Debug)]
pub enum BookCommand {
    /// Build the opening book from the game archives
    Build(BookBuildArgs),
    /// Show the book's entry for the position after some moves
    Show(BookShowArgs),
}

#[derive(Args, Debug)]
pub struct BookBuildArgs {
    #[command(flatten)]
    archives: ArchiveFlags,
    /// Where the book goes
    #[arg(
        long,
        value_name = "FILE",
        default_value = "core/src/book/openings.book"
    )]
    out: PathBuf,
    /// Positions after at most N moves (0 to 60)
    #[arg(long, value_name = "N", default_value_t = 20, value_parser = clap::value_parser!(u32).range(0..=60))]
    plies: u32,
    /// Keep positions at least K games reach (at least 1)
    #[arg(long, value_name = "K", default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..))]
    min_games: u32,
    /// Each position's search depth (1 to 30)
    #[arg(long, value_name = "D", default_value_t = 24, value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_BENCH_DEPTH)))]
    depth: u32,
}

#[derive(Args, Debug)]
pub struct BookShowArgs {
    /// The moves from the start, like f5d6c3 [default: none, the start]
    moves: Option<String>,
    /// A book file [default: the embedded book]
    #[arg(long, value_name = "FILE")]
    book: Option<PathBuf>,
}

pub(super) fn book(command: &BookCommand) -> Result<ExitCode, CliError> {
    match command {
        BookCommand::Build(args) => {
            let options = crate::training::book::Options {
                run: args.archives.run(&args.out, &command_line()),
                plies: args.plies,
                min_games: args.min_games,
                depth: args.depth,
            };
            let mut log = io::stderr().lock();
            crate::training::book::run(&options, &mut log).map_err(|e| failed("book build", e))?;
            Ok(ExitCode::SUCCESS)
        }
        BookCommand::Show(args) => {
            let moves = args.moves.as_deref().unwrap_or("");
            // The moves are checked before anything is written.
            crate::study::book::position_after(moves)
                .map_err(|e| usage(format!("book show: {e}")))?;
            let file;
            let (book, name) = match &args.book {
                None => (reversi_core::book::embedded(), "embedded".to_string()),
                Some(path) => {
                    file = crate::util::files::read_capped(path)
                        .map_err(|e| CliError::Failed(e.to_string()))?;
                    let book = reversi_core::book::Book::parse(&file)
                        .map_err(|e| failed(path.display(), e))?;
                    (book, path.display().to_string())
                }
            };
            report(|out| crate::study::book::show(&book, &name, moves, out))
        }
    }
}

#[derive(Args, Debug)]
pub struct PackArgs {
    #[command(flatten)]
    archives: ArchiveFlags,
    /// Where the packed evaluation goes
    #[arg(long, value_name = "FILE", default_value = "src/bundle/patterns.pack")]
    out: PathBuf,
}

pub(super) fn pack(args: &PackArgs) -> Result<ExitCode, CliError> {
    let run = args.archives.run(&args.out, &command_line());
    let mut log = io::stderr().lock();
    crate::bundle::fit::run(&run, &mut log).map_err(|e| failed("pack", e))?;
    Ok(ExitCode::SUCCESS)
}

/// The largest file CodinGame takes, in characters.
const CODINGAME_MAX_CHARS: u64 = 100_000;

#[derive(ValueEnum, Clone, Copy, Debug)]
enum BundleProtocol {
    /// The VG101 judge's (what `reversi` speaks with no arguments)
    Judge,
    /// CodinGame's Othello
    Codingame,
}

#[derive(Args, Debug)]
pub struct BundleArgs {
    /// Where the one-file source goes
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// The protocol its `main` speaks
    #[arg(long, value_enum, default_value_t = BundleProtocol::Judge)]
    protocol: BundleProtocol,
    /// The most characters the file may have (1 to 100,000,000)
    #[arg(long, value_name = "N", default_value_t = CODINGAME_MAX_CHARS, value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    max_chars: u64,
    /// Characters for the packed evaluation (1 to 100,000,000) [default: all the room the code leaves]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    eval_chars: Option<u64>,
}

pub(super) fn bundle(args: &BundleArgs) -> Result<ExitCode, CliError> {
    use crate::bundle::{bundle, Options, Protocol};
    let options = Options {
        protocol: match args.protocol {
            BundleProtocol::Judge => Protocol::Judge,
            BundleProtocol::Codingame => Protocol::CodinGame,
        },
        limit: args.max_chars as usize,
        eval_chars: args.eval_chars.map(|n| n as usize),
    };
    let made = bundle(options).map_err(|e| CliError::Failed(format!("bundle: {e}")))?;
    let out = &args.out;
    crate::util::files::write_atomically(out, made.source.as_bytes())
        .map_err(|e| CliError::Failed(e.to_string()))?;
    eprintln!(
        "wrote {}: {} characters ({} of them the evaluation, {} corrections), {} bytes; build it with: rustc --edition 2021 -O {}",
        out.display(),
        made.source.chars().count(),
        made.eval_chars,
        made.corrections,
        made.source.len(),
        out.display()
    );
    Ok(ExitCode::SUCCESS)
}
