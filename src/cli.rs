//! The command line: the bot's flags and the subcommands around it.

pub use self::args::CliError;
mod args;

use self::args::{failed, read_file, usage, Args};
use crate::arena::{parse_entrants, Openings, RefereeArena};
use crate::duel::MatchOptions;
use crate::eval::Evaluator;
use crate::perft::Convention;
use crate::player::{entropy_seed, BotOptions, Engine, GreedyPlayer, Player, RandomPlayer};
use crate::protocol::{self, Verbosity};
use crate::search::Stop;
use crate::tournament::Format;
use crate::transcript::{self, Transcript};
use std::io::{self, BufWriter, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// `reversi help`.
const USAGE: &str = include_str!("cli/usage.txt");

/// Each command's flags, each named once: `name=` takes a value, a bare
/// `name` is a switch.
const BOT_FLAGS: &str =
    "player= depth= nodes= move-time= hash= eval= probcut= book= seed= log= protocol= first-move-time=";
const MATCH_FLAGS: &str = "games= move-time= record= openings= seed= jobs= show";
const TOURNAMENT_FLAGS: &str =
    "players= format= games= rounds= pair-games= seed= move-time= jobs= out= openings=";
const REPLAY_FLAGS: &str = "bot= exact move-time= record=";
const PERFT_FLAGS: &str = "convention= every-line";
const SOLVE_FLAGS: &str = "wld all depth-limit= time= hash= eval=";
const BENCH_FLAGS: &str =
    "depth= move-time= hash= eval= probcut= endgame-curve probcut-errors deep= step= jobs= games-dir= from= to= positions=";
const TRAIN_FLAGS: &str =
    "games-dir= extra-games= out= jobs= seed= epochs= every= overlap= label-depth= label-share=";
const SELFPLAY_FLAGS: &str = "games= openings= depth= random= random-plies= seed= jobs=";
const BIO97_FLAGS: &str = "strategy=";
const BOOK_BUILD_FLAGS: &str = "games-dir= out= jobs= plies= min-games= depth= every=";
const BOOK_SHOW_FLAGS: &str = "book=";
const PACK_FLAGS: &str = "games-dir= out= jobs= every=";
const BUNDLE_FLAGS: &str = "out= protocol= max-chars= eval-chars=";

/// The bot with default settings: what a judge runs.
#[must_use]
pub fn play_default() -> ExitCode {
    let mut engine = Engine::new(BotOptions::default());
    protocol::serve_stdio(&mut engine, Verbosity::Full)
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
        .number_from::<u64>("move-time", 1)?
        .map(Duration::from_millis))
}

/// The sizes `--hash MB` accepts: a table beyond 4 GB would only fail to
/// allocate (and abort) on most machines.
const HASH_MB: std::ops::RangeInclusive<usize> = 1..=4096;

/// `--hash MB`, or `default`.
fn hash_flag(args: &Args, default: usize) -> Result<usize, CliError> {
    Ok(args.number_in("hash", HASH_MB)?.unwrap_or(default))
}

/// The deepest `--depth` a search is given: the moves left in a game.
const MAX_DEPTH: u32 = 60;

/// The referee's limit per reply: `--move-time`, or the judge's second.
fn referee_limit(args: &Args) -> Result<Duration, CliError> {
    Ok(move_time_flag(args)?.unwrap_or(crate::clock::JUDGE_LIMIT))
}

/// The `t` that `--probcut T` accepts: below, ProbCut would cut nearly
/// every node; above, nearly none.
const PROBCUT_T_RANGE: std::ops::RangeInclusive<f64> = 0.2..=4.0;

/// `--probcut on|off|T`: ProbCut's `t` in the midgame search, or `None`
/// for a full-width search.
fn probcut_flag(args: &Args) -> Result<Option<f64>, CliError> {
    match args.text("probcut").unwrap_or("on") {
        "on" => Ok(Some(crate::search::MIDGAME_T)),
        "off" => Ok(None),
        other => match other.parse::<f64>() {
            Ok(t) if PROBCUT_T_RANGE.contains(&t) => Ok(Some(t)),
            _ => Err(usage(format!(
                "--probcut takes on, off or a t from 0.2 to 4, not '{other}'"
            ))),
        },
    }
}

/// The bot's settings from its flags. `--depth` and `--nodes` each fix
/// what ends a search (one or the other); `Engine::new` decides the clock.
fn bot_options(args: &Args) -> Result<BotOptions, CliError> {
    let depth = args.number_in::<u32>("depth", 1..=MAX_DEPTH)?;
    let stop = match (depth, args.number_from::<u64>("nodes", 1)?) {
        (Some(_), Some(_)) => return Err(usage("--depth and --nodes: give one or the other")),
        (Some(depth), None) => Stop::Depth(depth),
        (None, Some(nodes)) => Stop::Nodes(nodes),
        (None, None) => Stop::Clock,
    };
    Ok(BotOptions {
        hash_mb: hash_flag(args, BotOptions::default().hash_mb)?,
        eval: eval_flag(args)?,
        stop,
        move_time: move_time_flag(args)?,
        probcut_t: probcut_flag(args)?,
        book: match args.text("book") {
            None => BotOptions::default().book,
            Some("on") => true,
            Some("off") => false,
            Some(other) => return Err(usage(format!("--book takes on or off, not '{other}'"))),
        },
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
        "help" | "-h" | "--help" => {
            print!("{USAGE}");
            Ok(ExitCode::SUCCESS)
        }
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
        "book" => book_command(&words[1..]),
        "selfplay" => selfplay_command(&words[1..]),
        "pack" => pack_command(&words[1..]),
        "bundle" => bundle_command(&words[1..]),
        other => Err(usage(format!("unknown command '{other}'"))),
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            match &error {
                CliError::Usage(message) => {
                    eprintln!("reversi: {message} (reversi help lists the commands)");
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
    match args.text("protocol").unwrap_or("judge") {
        "judge" => {
            if args.text("first-move-time").is_some() {
                return Err(usage("--first-move-time is for --protocol codingame"));
            }
            Ok(protocol::serve_stdio(player.as_mut(), verbosity))
        }
        "codingame" => {
            let default = crate::codingame::Budget::default();
            let budget = crate::codingame::Budget {
                first: args
                    .number_from::<u64>("first-move-time", 1)?
                    .map_or(default.first, Duration::from_millis),
                rest: move_time_flag(&args)?.unwrap_or(default.rest),
            };
            Ok(crate::codingame::serve_stdio(player.as_mut(), budget))
        }
        other => Err(usage(format!(
            "--protocol: judge or codingame, not '{other}'"
        ))),
    }
}

/// `reversi pack`: the packed evaluation for the bundle, from the
/// embedded weights (see `src/pack.rs`).
fn pack_command(words: &[String]) -> Result<ExitCode, CliError> {
    let args = Args::parse(words, PACK_FLAGS)?;
    args.no_positional()?;
    let games_dir = PathBuf::from(args.text("games-dir").unwrap_or("../shared/data/games"));
    let out = PathBuf::from(args.text("out").unwrap_or("src/eval/patterns.pack"));
    let options = crate::pack::Options {
        games_dir: &games_dir,
        out: &out,
        jobs: worker_jobs(&args)?,
        every: args.number_from("every", 1)?.unwrap_or(1),
        command: format!("reversi pack {}", words.join(" ")),
    };
    let mut log = io::stderr().lock();
    crate::pack::run(&options, &mut log).map_err(|e| failed("pack", e))?;
    Ok(ExitCode::SUCCESS)
}

/// The largest file CodinGame takes, in characters.
const CODINGAME_MAX_CHARS: usize = 100_000;

/// `reversi bundle --out FILE`: the one-file source (see `src/bundle.rs`).
fn bundle_command(words: &[String]) -> Result<ExitCode, CliError> {
    use crate::bundle::{bundle, Protocol};
    let args = Args::parse(words, BUNDLE_FLAGS)?;
    args.no_positional()?;
    let out = args
        .text("out")
        .ok_or_else(|| usage("bundle needs --out FILE"))?;
    let name = args.text("protocol").unwrap_or("judge");
    let protocol = Protocol::parse(name)
        .ok_or_else(|| usage(format!("--protocol: judge or codingame, not '{name}'")))?;
    let options = crate::bundle::Options {
        protocol,
        limit: args
            .number_from("max-chars", 1)?
            .unwrap_or(CODINGAME_MAX_CHARS),
        eval_chars: args.number_from("eval-chars", 1)?,
    };
    let made = bundle(options).map_err(|e| CliError::Failed(format!("bundle: {e}")))?;
    std::fs::write(out, &made.source).map_err(|e| failed(out, e))?;
    eprintln!(
        "wrote {out}: {} characters ({} of them the evaluation, {} corrections), {} bytes; build it with: rustc --edition 2021 -O {out}",
        made.source.chars().count(),
        made.eval_chars,
        made.corrections,
        made.source.len()
    );
    Ok(ExitCode::SUCCESS)
}

fn perft_command(words: &[String]) -> Result<ExitCode, CliError> {
    let args = Args::parse(words, PERFT_FLAGS)?;
    let depth: u32 = args
        .positional
        .first()
        .ok_or_else(|| usage("perft needs a depth"))?
        .parse()
        .map_err(|_| usage("perft: depth must be a number"))?;
    // Past 60 plies only passes are left to count; each depth prints its
    // line as it finishes, so a deep run shows its progress.
    if !(1..=MAX_DEPTH).contains(&depth) {
        return Err(usage(format!(
            "perft: depth from 1 to {MAX_DEPTH}, not {depth}"
        )));
    }
    let convention = match args.text("convention").unwrap_or("dropped") {
        "dropped" => Convention::GamesDropped,
        "kept" => Convention::GamesKept,
        other => return Err(usage(format!("unknown convention '{other}'"))),
    };
    report(|out| crate::perft::print_table(out, depth, convention, !args.has("every-line")))
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

/// `--jobs N` for the tools whose jobs are untimed searches (train, book
/// build, selfplay): by default one per core, at least one.
fn worker_jobs(args: &Args) -> Result<usize, CliError> {
    Ok(args.number_from::<usize>("jobs", 1)?.unwrap_or_else(cores))
}

/// `--jobs N`: games in parallel; by default one per core. Each game has one
/// side thinking at a time, so a game per core keeps every reply on a core
/// of its own.
fn jobs_flag(args: &Args, command: &str) -> Result<usize, CliError> {
    let (jobs, cores) = (worker_jobs(args)?, cores());
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
        games: args.number_from("games", 1)?.unwrap_or(2),
        openings: openings_flag(&args)?,
        limit: referee_limit(&args)?,
        jobs: jobs_flag(&args, "match")?,
        record: args
            .text("record")
            .map(|d| output_dir(PathBuf::from(d)))
            .transpose()?,
        show: args.has("show"),
    };
    report(|mut out| crate::duel::run(options, &mut out))
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
            games: args.number_from("games", 1)?.unwrap_or(20),
        },
        "ladder" => Format::Ladder {
            rounds: args.number_from("rounds", 1)?.unwrap_or(3),
            per_pair: args
                .number_from::<usize>("pair-games", 1)?
                .unwrap_or(crate::tournament::ladder::GAMES_PER_PAIR),
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
        referee_limit(&args)?,
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
    let limit = referee_limit(&args)?;
    let report = transcript::replay(&command, &t, limit, exact);
    if let Some(out) = args.text("record") {
        let mut recorded = report.transcript.clone();
        recorded.headers = t.headers.clone();
        std::fs::write(out, recorded.render()).map_err(|e| failed(out, e))?;
    }
    print!("{}", report.summary(path));
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
    let probcut_t = probcut_flag(&args)?;
    let positions = args.number_from("positions", 1)?;
    if args.has("endgame-curve") {
        let (from, to) = empties_range(&args, SOLVED_EMPTIES, (12, 22))?;
        return report(|out| crate::bench::endgame_curve(out, from, to, positions.unwrap_or(20)));
    }
    if args.has("probcut-errors") {
        let deep = args.number_in::<u32>("deep", 2..=MAX_DEEP)?;
        // Midgame positions against deeper searches, or solved ones.
        let (empties, default) = match deep {
            // Any position a game reaches.
            Some(_) => (1..=60, (20, 52)),
            None => (SOLVED_EMPTIES, (16, 20)),
        };
        let (from, to) = empties_range(&args, empties, default)?;
        let step = args.number_from("step", 1)?.unwrap_or(4);
        let dir = PathBuf::from(args.text("games-dir").unwrap_or("../shared/data/games"));
        let wthor = dir.join("wthor");
        let games = crate::train::read_wthor(&wthor).map_err(|e| failed(wthor.display(), e))?;
        let positions = positions.unwrap_or(100);
        if let Some(deep) = deep {
            let jobs = jobs_flag(&args, "bench")?;
            return report(|out| {
                crate::bench::midgame_probcut_errors(
                    out,
                    &games,
                    (from, to, step),
                    positions,
                    deep,
                    jobs,
                )
            });
        }
        return report(|out| crate::bench::probcut_errors(out, &games, from, to, positions));
    }
    let depth = args
        .number_in::<u32>("depth", 1..=MAX_BENCH_DEPTH)?
        .unwrap_or(crate::bench::DEPTH);
    let hash = hash_flag(&args, crate::tt::DEFAULT_MB)?;
    match move_time_flag(&args)? {
        Some(limit) => report(|out| crate::bench::timed(out, limit, hash, eval, probcut_t)),
        None => report(|out| crate::bench::run(out, depth, hash, eval, probcut_t)),
    }
}

/// The deepest fixed search a tool runs over many positions: each extra
/// ply multiplies its run time.
const MAX_BENCH_DEPTH: u32 = 30;

/// The deepest reference search of `bench --probcut-errors --deep`, run on
/// every position at every stage (the committed fit used 10).
const MAX_DEEP: u32 = 16;

/// The empties a bench solves exactly: 30 already takes minutes a position.
const SOLVED_EMPTIES: std::ops::RangeInclusive<u32> = 1..=30;

/// `--from E --to E` within `range`, `from` not above `to`.
fn empties_range(
    args: &Args,
    range: std::ops::RangeInclusive<u32>,
    default: (u32, u32),
) -> Result<(u32, u32), CliError> {
    let from = args.number_in("from", range.clone())?.unwrap_or(default.0);
    let to = args.number_in("to", range)?.unwrap_or(default.1.max(from));
    if from > to {
        return Err(usage(format!("--from {from} is above --to {to}")));
    }
    Ok((from, to))
}

fn train_command(words: &[String]) -> Result<ExitCode, CliError> {
    let args = Args::parse(words, TRAIN_FLAGS)?;
    args.no_positional()?;
    let games_dir = PathBuf::from(args.text("games-dir").unwrap_or("../shared/data/games"));
    let out = PathBuf::from(args.text("out").unwrap_or("src/eval/patterns.weights"));
    let extra_games = args.text("extra-games").map(PathBuf::from);
    let options = crate::train::Options {
        games_dir: &games_dir,
        extra_games: extra_games.as_deref(),
        out: &out,
        jobs: worker_jobs(&args)?,
        seed: args.number("seed")?.unwrap_or(1),
        epochs: args.number_in("epochs", 1..=1000)?.unwrap_or(6),
        every: args.number_from("every", 1)?.unwrap_or(1),
        overlap: args.number_in("overlap", 0..=60)?.unwrap_or(0),
        labels: crate::train::Labels {
            search_depth: args.number_in("label-depth", 0..=30)?.unwrap_or(0),
            search_share: args.number_in("label-share", 0..=100)?.unwrap_or(100),
        },
        command: format!("reversi train {}", words.join(" ")),
    };
    let mut log = io::stderr().lock();
    crate::train::run(&options, &mut log).map_err(|e| failed("train", e))?;
    Ok(ExitCode::SUCCESS)
}

/// The `--depth D` of the tools that search many positions to a fixed
/// depth (`selfplay`, `book build`): 1 to 30, since each extra ply
/// multiplies their run time.
fn fixed_depth(args: &Args, default: u32) -> Result<u32, CliError> {
    Ok(args
        .number_in("depth", 1..=MAX_BENCH_DEPTH)?
        .unwrap_or(default))
}

/// `reversi selfplay`: games to stdout, progress to stderr.
fn selfplay_command(words: &[String]) -> Result<ExitCode, CliError> {
    let args = Args::parse(words, SELFPLAY_FLAGS)?;
    args.no_positional()?;
    let openings = match args.text("openings") {
        None => Vec::new(),
        Some(path) => {
            let text = read_file(path)?;
            // checked as the arena checks them, then kept as lines
            Openings::parse(&text, 0).map_err(|e| failed(path, e))?;
            text.lines()
                .map(str::trim)
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
                .map(String::from)
                .collect()
        }
    };
    let depth = fixed_depth(&args, 6)?;
    let random_percent: u32 = args.number_in("random", 0..=100)?.unwrap_or(10);
    let options = crate::selfplay::Options {
        games: args
            .number_from("games", 1)?
            .ok_or_else(|| usage("selfplay needs --games N"))?,
        openings,
        depth,
        random_percent,
        random_plies: args.number_in("random-plies", 0..=60)?.unwrap_or(30),
        seed: args.number("seed")?.unwrap_or(1),
        jobs: worker_jobs(&args)?,
    };
    let mut log = io::stderr().lock();
    report(|out| crate::selfplay::run(&options, &mut BufWriter::new(out), &mut log))
}

/// `reversi book build ...` or `reversi book show [MOVES] [--book FILE]`.
fn book_command(words: &[String]) -> Result<ExitCode, CliError> {
    match words.first().map(String::as_str) {
        Some("build") => book_build(&words[1..]),
        Some("show") => book_show(&words[1..]),
        Some(other) => Err(usage(format!(
            "book: unknown command '{other}' (build or show)"
        ))),
        None => Err(usage("book needs a command: build or show")),
    }
}

fn book_build(words: &[String]) -> Result<ExitCode, CliError> {
    let args = Args::parse(words, BOOK_BUILD_FLAGS)?;
    args.no_positional()?;
    let games_dir = PathBuf::from(args.text("games-dir").unwrap_or("../shared/data/games"));
    let out = PathBuf::from(args.text("out").unwrap_or("src/book/openings.book"));
    let plies: u32 = args.number_in("plies", 0..=60)?.unwrap_or(20);
    // The defaults are what built the committed book.
    let depth = fixed_depth(&args, 24)?;
    let options = crate::book::build::Options {
        games_dir: &games_dir,
        out: &out,
        jobs: worker_jobs(&args)?,
        plies,
        min_games: args.number_from::<u32>("min-games", 1)?.unwrap_or(100),
        depth,
        every: args.number_from::<usize>("every", 1)?.unwrap_or(1),
        command: format!("reversi book build {}", words.join(" ")),
    };
    let mut log = io::stderr().lock();
    crate::book::build::run(&options, &mut log).map_err(|e| failed("book build", e))?;
    Ok(ExitCode::SUCCESS)
}

fn book_show(words: &[String]) -> Result<ExitCode, CliError> {
    let args = Args::parse(words, BOOK_SHOW_FLAGS)?;
    let moves = match args.positional.as_slice() {
        [] => "",
        [moves] => moves.as_str(),
        [_, extra, ..] => return Err(usage(format!("unexpected '{extra}'"))),
    };
    // The moves are checked before anything is written.
    crate::book::inspect::position_after(moves).map_err(|e| usage(format!("book show: {e}")))?;
    let file;
    let (book, name) = match args.text("book") {
        None => (crate::book::embedded(), "embedded"),
        Some(path) => {
            file = std::fs::read(path).map_err(|e| failed(path, e))?;
            let book = crate::book::Book::parse(&file).map_err(|e| failed(path, e))?;
            (book, path)
        }
    };
    report(|out| crate::book::inspect::show(&book, name, moves, out))
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
        hash_mb: hash_flag(&args, 64)?,
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
mod tests;
