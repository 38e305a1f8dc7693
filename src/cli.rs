//! The command line: the bot's flags and the subcommands around it.

use crate::arena::{parse_entrants, Openings, RefereeArena};
use crate::board::Board;
use crate::duel::MatchOptions;
use crate::eval::Evaluator;
use crate::perft::{perft, Convention};
use crate::player::{entropy_seed, BotOptions, Engine, GreedyPlayer, Player, RandomPlayer};
use crate::protocol::{self, Verbosity};
use crate::search::Stop;
use crate::tournament::Format;
use crate::transcript::{self, Transcript};
use std::collections::HashMap;
use std::io::{self, BufWriter, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

const USAGE: &str = "\
reversi: an Othello engine for judge protocols, and tools around it

USAGE
  reversi [BOT FLAGS]                 play the judge protocol on stdin/stdout
  reversi match CMD_A CMD_B [--games N] [--move-time MS] [--record DIR]
                [--openings FILE] [--seed N] [--jobs N] [--show]
                                      referee games between two programs
  reversi tournament --players FILE --format knockout|elo|ladder
                [--games N] [--rounds N] [--pair-games N] [--seed N]
                [--move-time MS] [--jobs N] [--openings FILE] [--out DIR]
                                      contests in the seeds' formats
  reversi replay TRANSCRIPT [--bot CMD] [--exact] [--move-time MS]
                [--record OUT]        feed a recorded session to a program;
                                      OUT gets the lines sent and the replies
  reversi perft DEPTH [--convention dropped|kept]
                                      count move sequences from the start
  reversi solve [FILE] [--wld | --all] [--depth-limit N] [--time S] [--hash MB]
                [--eval E]
                                      solve OBF positions (stdin if no FILE):
                                      exact score, best move, principal
                                      variation; --wld win/draw/loss only;
                                      --all every move's score; --depth-limit
                                      N solves only up to N empties (midgame
                                      estimate of depth N above); --time S
                                      gives each S seconds, as the bot would
  reversi bench [--depth N] [--eval E] fixed searches: node signature and speed
  reversi bench --endgame-curve [--from E] [--to E] [--positions N]
                                      solve cost by empties (exact and WLD)
  reversi bench --probcut-errors [--from E] [--to E] [--positions N]
                [--games-dir DIR]     midgame score errors by depth, on
                                      archive positions (ProbCut's margins)
  reversi train [--games-dir DIR] [--out FILE] [--jobs N] [--seed N]
                [--epochs N] [--every K]
                                      fit the pattern evaluation to the game
                                      archives (see src/train.rs)
  reversi bio97 --strategy 1|2        the BIO'97 Othello program (stdin/stdout)
  reversi help                        this text

BOT FLAGS
  --player bot|random|greedy   who plays (default bot)
  --depth N                    fixed search depth: reproducible replies
  --nodes N                    fixed node budget: reproducible replies (one
                               of --depth and --nodes; with --move-time too,
                               the clock still stops the search)
  --move-time MS               the judge's limit per reply (default 1000, or
                               REVERSI_MOVE_TIME if a referee of ours set it);
                               the bot stops 250 ms before it (30% before
                               it when that is less)
  --hash MB                    transposition table size (default 16)
  --eval hand|pattern          evaluation: hand-weighted, or the pattern
                               tables trained from game archives
  --seed N                     seed of random and greedy (default: clock)
  --log full|brief|quiet       stderr: boards+search line+warnings (default),
                               search line+warnings, warnings only

In CMD, a leading word `self` stands for this executable, e.g.
  reversi match self \"self --player greedy\" --games 10

PERFT counts a forced pass as one ply. --convention dropped (default; OEIS
A124004, Edax) counts nothing for a game that ends early; kept (Aart Bik)
counts it as one leaf at every deeper depth. They split from depth 10.

EXIT CODES: 0 done; 1 a failed run or bad data (a file that cannot be read
or written, a line that does not parse, a check that failed); 2 wrong usage.
";

/// A flag a command accepts: its name, and whether a value follows it.
#[derive(Clone, Copy)]
struct Flag {
    name: &'static str,
    takes_value: bool,
}

const fn value(name: &'static str) -> Flag {
    Flag {
        name,
        takes_value: true,
    }
}

const fn switch(name: &'static str) -> Flag {
    Flag {
        name,
        takes_value: false,
    }
}

/// Each command's flags, each named once.
const BOT_FLAGS: &[Flag] = &[
    value("player"),
    value("depth"),
    value("nodes"),
    value("move-time"),
    value("hash"),
    value("eval"),
    value("seed"),
    value("log"),
];
const MATCH_FLAGS: &[Flag] = &[
    value("games"),
    value("move-time"),
    value("record"),
    value("openings"),
    value("seed"),
    value("jobs"),
    switch("show"),
];
const TOURNAMENT_FLAGS: &[Flag] = &[
    value("players"),
    value("format"),
    value("games"),
    value("rounds"),
    value("pair-games"),
    value("seed"),
    value("move-time"),
    value("jobs"),
    value("out"),
    value("openings"),
];
const REPLAY_FLAGS: &[Flag] = &[
    value("bot"),
    switch("exact"),
    value("move-time"),
    value("record"),
];
const PERFT_FLAGS: &[Flag] = &[value("convention")];
const SOLVE_FLAGS: &[Flag] = &[
    switch("wld"),
    switch("all"),
    value("depth-limit"),
    value("time"),
    value("hash"),
    value("eval"),
];
const BENCH_FLAGS: &[Flag] = &[
    value("depth"),
    value("hash"),
    value("eval"),
    switch("endgame-curve"),
    switch("probcut-errors"),
    value("games-dir"),
    value("from"),
    value("to"),
    value("positions"),
];
const TRAIN_FLAGS: &[Flag] = &[
    value("games-dir"),
    value("out"),
    value("jobs"),
    value("seed"),
    value("epochs"),
    value("every"),
];
const BIO97_FLAGS: &[Flag] = &[value("strategy")];

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

fn read_file(path: &str) -> Result<String, CliError> {
    std::fs::read_to_string(path).map_err(|e| failed(path, e))
}

/// A parsed command line: positional words and `--flag [value]`s, checked
/// against the command's flags as they are read.
struct Args {
    positional: Vec<String>,
    flags: HashMap<&'static str, String>,
}

impl Args {
    fn parse(words: &[String], known: &[Flag]) -> Result<Args, CliError> {
        let mut positional = Vec::new();
        let mut flags = HashMap::new();
        let mut words = words.iter();
        while let Some(word) = words.next() {
            let Some(name) = word.strip_prefix("--") else {
                positional.push(word.clone());
                continue;
            };
            let (name, inline) = match name.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (name, None),
            };
            let flag = known
                .iter()
                .find(|f| f.name == name)
                .ok_or_else(|| usage(format!("unknown flag --{name}")))?;
            let value = match (flag.takes_value, inline) {
                (true, Some(v)) => v,
                (true, None) => words
                    .next()
                    .cloned()
                    .ok_or_else(|| usage(format!("--{name} needs a value")))?,
                (false, Some(_)) => return Err(usage(format!("--{name} takes no value"))),
                (false, None) => String::new(),
            };
            flags.insert(flag.name, value);
        }
        Ok(Args { positional, flags })
    }

    fn has(&self, name: &str) -> bool {
        self.flags.contains_key(name)
    }

    fn number<T: std::str::FromStr>(&self, name: &str) -> Result<Option<T>, CliError> {
        match self.flags.get(name) {
            None => Ok(None),
            Some(v) => v
                .parse()
                .map(Some)
                .map_err(|_| usage(format!("--{name}: '{v}' is not a valid number"))),
        }
    }

    fn text(&self, name: &str) -> Option<&str> {
        self.flags.get(name).map(String::as_str)
    }

    /// No positional word is expected.
    fn no_positional(&self) -> Result<(), CliError> {
        match self.positional.first() {
            Some(extra) => Err(usage(format!("unexpected '{extra}'"))),
            None => Ok(()),
        }
    }
}

/// The bot with default settings: what a judge runs.
#[must_use]
pub fn play_default() -> ExitCode {
    let mut engine = Engine::new(BotOptions::default());
    serve(&mut engine, Verbosity::Full)
}

fn serve(player: &mut dyn Player, verbosity: Verbosity) -> ExitCode {
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let mut output = io::stdout().lock();
    let mut log = BufWriter::new(io::stderr().lock());
    match protocol::run(&mut input, &mut output, &mut log, player, verbosity) {
        Ok(()) => ExitCode::SUCCESS,
        // The judge closed our output: the game is over for us. Not an error.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(log, "i/o error: {e}");
            ExitCode::SUCCESS
        }
    }
}

/// `--eval NAME`, or the default evaluation.
fn eval_flag(args: &Args) -> Result<Evaluator, CliError> {
    match args.text("eval") {
        None => Ok(Evaluator::DEFAULT),
        Some(name) => {
            Evaluator::parse(name).ok_or_else(|| usage(format!("unknown evaluation '{name}'")))
        }
    }
}

/// `--move-time MS`, at least 1 ms.
fn move_time_flag(args: &Args) -> Result<Option<Duration>, CliError> {
    Ok(args
        .number::<u64>("move-time")?
        .map(|ms| Duration::from_millis(ms.max(1))))
}

/// The bot's settings from its flags. `--depth` and `--nodes` each fix
/// what ends a search (one or the other); with `--move-time` too, the clock
/// still stops it.
fn bot_options(args: &Args) -> Result<BotOptions, CliError> {
    let defaults = BotOptions::default();
    let stop = match (args.number::<u32>("depth")?, args.number::<u64>("nodes")?) {
        (Some(_), Some(_)) => return Err(usage("--depth and --nodes: give one or the other")),
        (Some(0), None) => return Err(usage("--depth must be at least 1")),
        (Some(depth), None) => Stop::Depth(depth),
        (None, Some(nodes)) => Stop::Nodes(nodes),
        (None, None) => Stop::Clock,
    };
    let move_time = match (move_time_flag(args)?, stop) {
        (Some(t), _) => Some(t),
        (None, Stop::Clock) => defaults.move_time,
        (None, Stop::Depth(_) | Stop::Nodes(_)) => None,
    };
    Ok(BotOptions {
        hash_mb: args
            .number::<usize>("hash")?
            .map_or(defaults.hash_mb, |mb| mb.clamp(1, 4096)),
        eval: eval_flag(args)?,
        stop,
        move_time,
    })
}

fn make_player(args: &Args) -> Result<Box<dyn Player>, CliError> {
    let seed = args.number::<u64>("seed")?.unwrap_or_else(entropy_seed);
    match args.text("player").unwrap_or("bot") {
        "random" => Ok(Box::new(RandomPlayer::new(seed))),
        "greedy" => Ok(Box::new(GreedyPlayer::new(seed))),
        "bot" => Ok(Box::new(Engine::new(bot_options(args)?))),
        other => Err(usage(format!("unknown player '{other}'"))),
    }
}

/// Runs a command line (not empty). Every failure ends here: one line on
/// stderr and the exit code of its kind.
#[must_use]
pub fn run(words: &[String]) -> ExitCode {
    let result = match words[0].as_str() {
        w if w.starts_with("--") => bot(words),
        "play" => bot(&words[1..]),
        "match" => match_command(&words[1..]),
        "replay" => replay_command(&words[1..]),
        "perft" => perft_command(&words[1..]),
        "solve" => solve_command(&words[1..]),
        "bench" => bench_command(&words[1..]),
        "bio97" => bio97_command(&words[1..]),
        "tournament" => tournament_command(&words[1..]),
        "train" => train_command(&words[1..]),
        "help" | "-h" | "--help" => {
            print!("{USAGE}");
            Ok(ExitCode::SUCCESS)
        }
        other => Err(usage(format!("unknown command '{other}'"))),
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            match &error {
                CliError::Usage(message) => {
                    eprintln!("reversi: {message}\n(reversi help lists the commands)");
                }
                CliError::Failed(message) => eprintln!("reversi: {message}"),
            }
            error.exit_code()
        }
    }
}

fn bot(words: &[String]) -> Result<ExitCode, CliError> {
    let args = Args::parse(words, BOT_FLAGS)?;
    args.no_positional()?;
    let verbosity = match args.text("log").unwrap_or("full") {
        "full" => Verbosity::Full,
        "brief" => Verbosity::Brief,
        "quiet" => Verbosity::Quiet,
        other => return Err(usage(format!("--log: unknown level '{other}'"))),
    };
    let mut player = make_player(&args)?;
    Ok(serve(player.as_mut(), verbosity))
}

fn perft_command(words: &[String]) -> Result<ExitCode, CliError> {
    let args = Args::parse(words, PERFT_FLAGS)?;
    let depth: u32 = args
        .positional
        .first()
        .ok_or_else(|| usage("perft needs a depth"))?
        .parse()
        .map_err(|_| usage("perft: depth must be a number"))?;
    let convention = match args.text("convention").unwrap_or("dropped") {
        "dropped" => Convention::GamesDropped,
        "kept" => Convention::GamesKept,
        other => return Err(usage(format!("unknown convention '{other}'"))),
    };
    let board = Board::start();
    for d in 1..=depth {
        let start = Instant::now();
        let count = perft(&board, d, convention);
        let secs = start.elapsed().as_secs_f64();
        println!(
            "perft {d:2} {count:>16} {:>9.3}s {:>8.1} Mleaves/s",
            secs,
            count as f64 / secs.max(1e-9) / 1e6
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `--jobs N`: games in parallel; by default one per core. Each game has one
/// side thinking at a time, so a game per core keeps every reply on a core
/// of its own.
fn jobs_flag(args: &Args, command: &str) -> Result<usize, CliError> {
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    let jobs = args.number::<usize>("jobs")?.unwrap_or(cores).max(1);
    if jobs > cores {
        eprintln!(
            "{command}: warning: {jobs} jobs on {cores} cores: programs will share cores, so replies \
             may be slower than they would be alone (each reply is still timed on its own)"
        );
    }
    Ok(jobs)
}

/// `--openings FILE` shuffled by `--seed` (default 1); none: the standard
/// start.
fn openings_flag(args: &Args) -> Result<Openings, CliError> {
    match args.text("openings") {
        Some(path) => {
            let seed = args.number::<u64>("seed")?.unwrap_or(1);
            Openings::parse(&read_file(path)?, seed).map_err(|e| failed(path, e))
        }
        None => Ok(Openings::default()),
    }
}

/// A directory for results, created if need be.
fn output_dir(path: PathBuf) -> Result<PathBuf, CliError> {
    std::fs::create_dir_all(&path).map_err(|e| failed(path.display(), e))?;
    Ok(path)
}

fn match_command(words: &[String]) -> Result<ExitCode, CliError> {
    let args = Args::parse(words, MATCH_FLAGS)?;
    let [a, b] = args.positional.as_slice() else {
        return Err(usage("match needs two program command lines"));
    };
    let options = MatchOptions {
        commands: [a.clone(), b.clone()],
        games: args.number("games")?.unwrap_or(2),
        openings: openings_flag(&args)?,
        with_openings: args.has("openings"),
        limit: move_time_flag(&args)?.unwrap_or(crate::clock::JUDGE_LIMIT),
        jobs: jobs_flag(&args, "match")?,
        record: args
            .text("record")
            .map(|d| output_dir(PathBuf::from(d)))
            .transpose()?,
        show: args.has("show"),
    };
    match crate::duel::run(options, &mut io::stdout().lock()) {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(failed("stdout", e)),
        _ => Ok(ExitCode::SUCCESS),
    }
}

fn tournament_command(words: &[String]) -> Result<ExitCode, CliError> {
    let args = Args::parse(words, TOURNAMENT_FLAGS)?;
    args.no_positional()?;
    let path = args
        .text("players")
        .ok_or_else(|| usage("tournament needs --players FILE"))?;
    let format = match args.text("format").unwrap_or("knockout") {
        "knockout" => Format::Knockout,
        "elo" => Format::Elo {
            games: args.number("games")?.unwrap_or(20),
        },
        "ladder" => Format::Ladder {
            rounds: args.number("rounds")?.unwrap_or(3),
            per_pair: args
                .number::<usize>("pair-games")?
                .unwrap_or(crate::tournament::ladder::GAMES_PER_PAIR)
                .max(1),
        },
        other => {
            return Err(usage(format!(
                "--format is knockout, elo or ladder, not '{other}'"
            )))
        }
    };
    let entrants = parse_entrants(&read_file(path)?).map_err(|e| failed(path, e))?;
    let seed = args.number::<u64>("seed")?.unwrap_or(1);
    let mut openings = openings_flag(&args)?;
    let out = args.text("out").map(PathBuf::from);
    let games_dir = out.map(|d| output_dir(d.join("games"))).transpose()?;
    let arena = RefereeArena::new(
        entrants,
        move_time_flag(&args)?.unwrap_or(crate::clock::JUDGE_LIMIT),
        jobs_flag(&args, "tournament")?,
        games_dir,
    );
    let out = args.text("out").map(std::path::Path::new);
    crate::tournament::run(format, &arena, &mut openings, seed, out)
        .map_err(|e| CliError::Failed(e.to_string()))?;
    Ok(ExitCode::SUCCESS)
}

fn replay_command(words: &[String]) -> Result<ExitCode, CliError> {
    let args = Args::parse(words, REPLAY_FLAGS)?;
    let [path] = args.positional.as_slice() else {
        return Err(usage("replay needs one transcript file"));
    };
    let t = Transcript::parse(&read_file(path)?).map_err(|e| failed(path, e))?;
    let command = match args.text("bot") {
        Some(c) => c.to_string(),
        None => format!("self {}", t.header("args").unwrap_or("")),
    };
    let exact = args.has("exact") || t.header("exact") == Some("yes");
    let limit = move_time_flag(&args)?.unwrap_or(crate::clock::JUDGE_LIMIT);
    let report = transcript::replay(&command, &t, limit, exact);
    if let Some(out) = args.text("record") {
        let mut recorded = report.transcript.clone();
        recorded.headers = t.headers.clone();
        std::fs::write(out, recorded.render()).map_err(|e| failed(out, e))?;
    }
    for p in &report.problems {
        println!("{path}: entry {}: {}", p.entry + 1, p.text);
    }
    println!(
        "{path}: {} replies, slowest {} ms, {} problem(s)",
        report.replies.len(),
        report.slowest().as_millis(),
        report.problems.len()
    );
    Ok(if report.problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn bench_command(words: &[String]) -> Result<ExitCode, CliError> {
    let args = Args::parse(words, BENCH_FLAGS)?;
    args.no_positional()?;
    let eval = eval_flag(&args)?;
    if args.has("endgame-curve") {
        crate::bench::endgame_curve(
            args.number("from")?.unwrap_or(12),
            args.number("to")?.unwrap_or(22),
            args.number("positions")?.unwrap_or(20),
        );
        return Ok(ExitCode::SUCCESS);
    }
    if args.has("probcut-errors") {
        let dir = PathBuf::from(args.text("games-dir").unwrap_or("../shared/data/games"));
        let wthor = dir.join("wthor");
        let games = crate::train::read_wthor(&wthor).map_err(|e| failed(wthor.display(), e))?;
        crate::bench::probcut_errors(
            &games,
            args.number("from")?.unwrap_or(16),
            args.number("to")?.unwrap_or(20),
            args.number("positions")?.unwrap_or(100),
        );
        return Ok(ExitCode::SUCCESS);
    }
    let depth = args.number::<u32>("depth")?.unwrap_or(crate::bench::DEPTH);
    let hash = args
        .number::<usize>("hash")?
        .unwrap_or(crate::tt::DEFAULT_MB);
    crate::bench::run(depth, hash, eval);
    Ok(ExitCode::SUCCESS)
}

fn train_command(words: &[String]) -> Result<ExitCode, CliError> {
    let args = Args::parse(words, TRAIN_FLAGS)?;
    args.no_positional()?;
    let games_dir = PathBuf::from(args.text("games-dir").unwrap_or("../shared/data/games"));
    let out = PathBuf::from(args.text("out").unwrap_or("src/eval/patterns.weights"));
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    let options = crate::train::Options {
        games_dir: &games_dir,
        out: &out,
        jobs: args.number("jobs")?.unwrap_or(cores),
        seed: args.number("seed")?.unwrap_or(1),
        epochs: args.number("epochs")?.unwrap_or(6),
        every: args.number("every")?.unwrap_or(1),
        command: format!("reversi train {}", words.join(" ")),
    };
    let mut log = io::stderr().lock();
    crate::train::run(&options, &mut log).map_err(|e| failed("train", e))?;
    Ok(ExitCode::SUCCESS)
}

fn solve_command(words: &[String]) -> Result<ExitCode, CliError> {
    use crate::solve::{self, Mode, Options};
    let args = Args::parse(words, SOLVE_FLAGS)?;
    let eval = eval_flag(&args)?;
    let mode = match (args.has("wld"), args.has("all")) {
        (true, true) => return Err(usage("--wld and --all do not go together")),
        (true, false) => Mode::Wld,
        (false, true) => Mode::All,
        (false, false) => Mode::Exact,
    };
    let time = match args.number::<f64>("time")? {
        Some(t) if t > 0.0 && t.is_finite() => Some(Duration::from_secs_f64(t)),
        Some(_) => return Err(usage("--time is a positive number of seconds")),
        None => None,
    };
    let options = Options {
        mode,
        depth_limit: args.number("depth-limit")?,
        time,
        hash_mb: args.number("hash")?.unwrap_or(64),
        eval,
    };
    let (name, text) = match args.positional.as_slice() {
        [] => {
            let mut text = String::new();
            io::stdin()
                .read_to_string(&mut text)
                .map_err(|e| failed("stdin", e))?;
            ("stdin", text)
        }
        [path] => (path.as_str(), read_file(path)?),
        [_, extra, ..] => return Err(usage(format!("unexpected '{extra}'"))),
    };
    let mut out = io::stdout().lock();
    match solve::run(&text, &options, &mut out) {
        Ok(true) => Ok(ExitCode::SUCCESS),
        Ok(false) => Ok(ExitCode::from(1)),
        // A reader that stopped reading (`| head`) is not an error.
        Err(solve::RunError::Output(e)) if e.kind() == io::ErrorKind::BrokenPipe => {
            Ok(ExitCode::SUCCESS)
        }
        Err(solve::RunError::Output(e)) => Err(failed("stdout", e)),
        Err(solve::RunError::Line(e)) => Err(failed(name, e)),
    }
}

fn bio97_command(words: &[String]) -> Result<ExitCode, CliError> {
    let args = Args::parse(words, BIO97_FLAGS)?;
    args.no_positional()?;
    let strategy = match args.text("strategy").unwrap_or("2") {
        "1" => crate::bio97::Strategy::MostTurned,
        "2" => crate::bio97::Strategy::BestAfterReply,
        other => return Err(usage(format!("--strategy is 1 or 2, not '{other}'"))),
    };
    let stdin = io::stdin();
    let mut output = BufWriter::new(io::stdout().lock());
    let mut log = io::stderr().lock();
    match crate::bio97::run(&mut stdin.lock(), &mut output, &mut log, strategy) {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        Err(e) => Err(failed("bio97", e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(String::from).collect()
    }

    fn options(line: &str) -> Result<BotOptions, CliError> {
        bot_options(&Args::parse(&words(line), BOT_FLAGS)?)
    }

    #[test]
    fn flags_are_checked_as_they_are_read() {
        let args = Args::parse(&words("x --games=4 --show y"), MATCH_FLAGS).unwrap();
        assert_eq!(args.positional, ["x", "y"]);
        assert_eq!(args.number::<u32>("games"), Ok(Some(4)));
        assert!(args.has("show"));
        let error = |line: &str, flags| Args::parse(&words(line), flags).err();
        assert_eq!(
            error("--shw", MATCH_FLAGS),
            Some(usage("unknown flag --shw"))
        );
        assert_eq!(
            error("--games", MATCH_FLAGS),
            Some(usage("--games needs a value"))
        );
        assert_eq!(
            error("--show=yes", MATCH_FLAGS),
            Some(usage("--show takes no value"))
        );
        // A flag of another command is unknown here.
        assert!(error("--games 2", BOT_FLAGS).is_some());
    }

    #[test]
    fn depth_and_nodes_fix_the_search_and_drop_the_clock_unless_asked() {
        let o = options("--depth 5").unwrap();
        assert_eq!((o.stop, o.move_time), (Stop::Depth(5), None));
        let o = options("--nodes 1000 --move-time 300").unwrap();
        assert_eq!(
            (o.stop, o.move_time),
            (Stop::Nodes(1000), Some(Duration::from_millis(300)))
        );
        let o = options("--move-time 300").unwrap();
        assert_eq!(
            (o.stop, o.move_time),
            (Stop::Clock, Some(Duration::from_millis(300)))
        );
        assert!(matches!(
            options("--depth 5 --nodes 100"),
            Err(CliError::Usage(_))
        ));
        assert!(matches!(options("--depth 0"), Err(CliError::Usage(_))));
    }

    #[test]
    fn usage_errors_exit_2_and_failed_runs_exit_1() {
        assert_eq!(usage("x").exit_code(), ExitCode::from(2));
        assert_eq!(failed("f", "gone").exit_code(), ExitCode::from(1));
        assert_eq!(failed("f", "gone"), CliError::Failed("f: gone".into()));
    }
}
