//! The command line, on `clap`: one `Args` struct per command, each a thin
//! layer that checks its flags and calls the tool the command names. Every
//! failure ends in [`run`]: one line on stderr and the exit code of its
//! kind (2 wrong usage, 1 a failed run).

mod analysis;
mod bot;
mod build;
mod games;
mod study;

use clap::error::ErrorKind;
use clap::{Parser, Subcommand};
use std::io::{self, Write};
use std::process::ExitCode;

/// `reversi`: with no command, the judge bot on stdin/stdout.
#[derive(Parser, Debug)]
#[command(
    name = "reversi",
    version,
    about = "An Othello (Reversi) engine for online judges, and the tools around it",
    long_about = "An Othello (Reversi) engine for online judges, and the tools around it.\n\n\
        With no command, reversi plays the judge protocol on stdin/stdout \
        (START, PLACE, DONE, BEGIN, TURN, PASS, END): see the README. \
        The bot's flags below go with no command or with `play`.",
    after_help = "In a program's command line (match, tournament, replay), a leading word `self` \
        stands for this executable: reversi match self \"self --player greedy\"\n\n\
        Input files are read up to 64 MB each (REVERSI_MAX_INPUT_MB=N sets another cap); \
        past it a command stops with one line.\n\n\
        Exit codes: 0 done; 1 a failed run or bad data; 2 wrong usage.",
    args_conflicts_with_subcommands = true,
    subcommand_value_name = "COMMAND"
)]
struct Cli {
    #[command(flatten)]
    bot: bot::BotArgs,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Play the judge protocol on stdin/stdout (what no command does)
    Play(bot::BotArgs),
    /// Referee games between two programs, colours alternating
    Match(games::MatchArgs),
    /// Run a knockout, an Elo pool or a ladder between programs
    Tournament(games::TournamentArgs),
    /// Feed a recorded session or game to a program and check its replies
    Replay(games::ReplayArgs),
    /// Play a game, or a contest's games, of the arena server with a judge-protocol program
    Connect(games::ConnectArgs),
    /// Play on a GGS server (the arena's --ggs-addr among them) with a judge-protocol program
    Ggs(games::GgsArgs),
    /// Look at a recorded game: the board move by move, or an HTML page
    Show(study::ShowArgs),
    /// What each move of a recorded game cost, and the moves that lost it
    Analyze(study::AnalyzeArgs),
    /// Count move sequences from the start position
    Perft(analysis::PerftArgs),
    /// Solve OBF positions: exact score, best move, principal variation
    Solve(analysis::SolveArgs),
    /// Fixed searches on fixed positions: node signature, speed, depths
    Bench(analysis::BenchArgs),
    /// Fit the pattern evaluation to the game archives
    Train(build::TrainArgs),
    /// Games of the bot against itself, for `train --extra-games`
    Selfplay(build::SelfplayArgs),
    /// Build the opening book, or show an entry of it
    #[command(subcommand)]
    Book(build::BookCommand),
    /// Fit the packed evaluation that the judge bundle carries
    Pack(build::PackArgs),
    /// Write the playing core as one Rust file for judges that take source
    Bundle(build::BundleArgs),
    /// The BIO'97 Othello program on stdin/stdout
    Bio97(bot::Bio97Args),
    /// The bot as a GTP engine on stdin/stdout (for GoGui and GTP controllers)
    Gtp(bot::EngineArgs),
    /// The bot as an NBoard engine on stdin/stdout (for the NBoard GUI)
    Nboard(bot::NboardArgs),
    /// Speak the judge protocol on stdin/stdout for a GTP or NBoard engine
    /// (what a player written `gtp:COMMAND` or `nboard:COMMAND` runs)
    Bridge(bot::BridgeArgs),
}

/// How a command failed; the exit code follows from the kind alone.
#[derive(Debug, PartialEq, Eq)]
pub enum CliError {
    /// The command line is wrong (unknown command or flag, a missing or
    /// malformed value, flags that do not go together): exit 2.
    Usage(String),
    /// The command line was fine but the run failed: a file that cannot be
    /// read or written, or data in it that does not parse: exit 1.
    Failed(String),
}

impl CliError {
    #[must_use]
    pub fn exit_code(&self) -> ExitCode {
        match self {
            CliError::Usage(_) => ExitCode::from(2),
            CliError::Failed(_) => ExitCode::from(1),
        }
    }
}

fn usage(message: impl Into<String>) -> CliError {
    CliError::Usage(message.into())
}

/// `PATH: error`, for a file that failed.
fn failed(path: impl std::fmt::Display, error: impl std::fmt::Display) -> CliError {
    CliError::Failed(format!("{path}: {error}"))
}

/// The text of the file at `path`, read up to the input cap
/// ([`crate::util::files::max_input`]).
fn read_file(path: &std::path::Path) -> Result<String, CliError> {
    crate::util::files::read_text_capped(path).map_err(|e| CliError::Failed(e.to_string()))
}

/// The text of a game given as `arg`: a file's, or, where no file of that
/// name exists, the moves written in the argument itself (`f5d6c3`).
fn read_game(arg: &std::path::Path) -> Result<String, CliError> {
    let written = arg.to_str().filter(|text| {
        !arg.exists()
            && !text.is_empty()
            && text
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c.is_ascii_whitespace())
            && crate::records::read::read_games(text).is_ok()
    });
    match written {
        Some(moves) => Ok(moves.to_string()),
        None => read_file(arg),
    }
}

/// The bot with default settings: what a judge runs. No parsing at all,
/// so the first move is ready as soon as possible.
#[must_use]
pub fn play_default() -> ExitCode {
    bot::play_default()
}

/// Runs a command line (the program's name first).
#[must_use]
pub fn run(words: impl IntoIterator<Item = std::ffi::OsString>) -> ExitCode {
    let cli = match Cli::try_parse_from(words) {
        Ok(cli) => cli,
        Err(error) => return clap_error(&error),
    };
    let result = match cli.command {
        None => bot::play(&cli.bot),
        Some(Command::Play(args)) => bot::play(&args),
        Some(Command::Match(args)) => games::match_games(&args),
        Some(Command::Tournament(args)) => games::tournament(&args),
        Some(Command::Replay(args)) => games::replay(&args),
        Some(Command::Connect(args)) => games::connect(&args),
        Some(Command::Ggs(args)) => games::ggs(&args),
        Some(Command::Show(args)) => study::show(&args),
        Some(Command::Analyze(args)) => study::analyze(&args),
        Some(Command::Perft(args)) => analysis::perft(&args),
        Some(Command::Solve(args)) => analysis::solve(&args),
        Some(Command::Bench(args)) => analysis::bench(&args),
        Some(Command::Train(args)) => build::train(&args),
        Some(Command::Selfplay(args)) => build::selfplay(&args),
        Some(Command::Book(command)) => build::book(&command),
        Some(Command::Pack(args)) => build::pack(&args),
        Some(Command::Bundle(args)) => build::bundle(&args),
        Some(Command::Bio97(args)) => bot::bio97(&args),
        Some(Command::Gtp(args)) => bot::gtp(&args),
        Some(Command::Nboard(args)) => bot::nboard(&args),
        Some(Command::Bridge(args)) => bot::bridge(&args),
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            match &error {
                CliError::Usage(message) => {
                    eprintln!("reversi: {message} (see --help)");
                }
                CliError::Failed(message) => eprintln!("reversi: {message}"),
            }
            error.exit_code()
        }
    }
}

/// Help and the version go to stdout (exit 0); any other parse error is
/// wrong usage, told in one line: clap's message and its tip, if any (a
/// similar command or flag).
fn clap_error(error: &clap::Error) -> ExitCode {
    if matches!(
        error.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
    ) {
        let text = error.render().to_string();
        return match io::stdout().lock().write_all(text.as_bytes()) {
            Err(e) if e.kind() != io::ErrorKind::BrokenPipe => {
                eprintln!("reversi: stdout: {e}");
                ExitCode::from(1)
            }
            _ => ExitCode::SUCCESS,
        };
    }
    eprintln!("reversi: {}", one_line(&error.render().to_string()));
    ExitCode::from(2)
}

/// clap's rendered error as one line: its `error:` line and its tips,
/// without the usage block that follows them.
fn one_line(rendered: &str) -> String {
    let mut parts = Vec::new();
    for line in rendered.lines().map(str::trim) {
        if let Some(message) = line.strip_prefix("error: ") {
            parts.push(message.to_string());
        } else if let Some(tip) = line.strip_prefix("tip: ") {
            parts.push(tip.to_string());
        } else if let Some(usage) = line.strip_prefix("Usage: ") {
            // A command given nothing at all gets no error line: its
            // usage says what is missing.
            if parts.is_empty() {
                parts.push(format!("incomplete command; usage: {usage}"));
            }
            break;
        } else if line.starts_with("For more information") {
            break;
        } else if !line.is_empty() {
            // What an error line lists below it (the missing arguments).
            if let Some(last) = parts.last_mut() {
                last.push(' ');
                last.push_str(line);
            }
        }
    }
    let mut line = parts.join("; ");
    line.push_str(" (see --help)");
    line
}

/// Runs a command that writes its report to stdout: a reader that stopped
/// reading (`| head`) ends it quietly, as a success; any other failure to
/// write is one line and exit 1.
fn report(write: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> Result<ExitCode, CliError> {
    match write(&mut io::stdout().lock()) {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(failed("stdout", e)),
        _ => Ok(ExitCode::SUCCESS),
    }
}

/// The machine's cores (1 if it cannot tell).
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}

/// The deepest `--depth` a search is given: the moves left in a game.
const MAX_DEPTH: u32 = 60;

/// The deepest fixed search a tool runs over many positions: each extra
/// ply multiplies its run time.
const MAX_BENCH_DEPTH: u32 = 30;

/// The sizes `--hash MB` accepts: a table beyond 4 GB would only fail to
/// allocate (and abort) on most machines.
const MAX_HASH_MB: u64 = 4096;

#[cfg(test)]
mod tests;
