//! The command line: the bot's flags and the subcommands around it.

use crate::board::{Board, Color};
use crate::eval::Evaluator;
use crate::perft::{perft, Convention};
use crate::player::{entropy_seed, Engine, GreedyPlayer, Player, RandomPlayer};
use crate::protocol::{self, Verbosity};
use crate::referee::{self, GameSetup, Tally};
use crate::transcript::{self, Transcript};
use std::collections::HashMap;
use std::io::{self, BufWriter, Write};
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
  --nodes N                    fixed node budget: reproducible replies
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
";

/// Flags that take a value.
const VALUE_FLAGS: &[&str] = &[
    "player",
    "depth",
    "nodes",
    "move-time",
    "hash",
    "eval",
    "seed",
    "log",
    "games",
    "record",
    "openings",
    "bot",
    "convention",
    "strategy",
    "players",
    "format",
    "rounds",
    "pair-games",
    "jobs",
    "out",
    "from",
    "to",
    "positions",
    "depth-limit",
    "time",
    "games-dir",
    "epochs",
    "every",
];

/// Parsed command line: positional words and `--flag [value]`s.
struct Args {
    positional: Vec<String>,
    flags: HashMap<String, String>,
}

#[derive(Debug)]
struct UsageError(String);

impl Args {
    fn parse(words: &[String]) -> Result<Args, UsageError> {
        let mut positional = Vec::new();
        let mut flags = HashMap::new();
        let mut i = 0;
        while i < words.len() {
            let word = &words[i];
            if let Some(name) = word.strip_prefix("--") {
                let (name, inline) = match name.split_once('=') {
                    Some((n, v)) => (n, Some(v.to_string())),
                    None => (name, None),
                };
                let value = if VALUE_FLAGS.contains(&name) {
                    match inline {
                        Some(v) => v,
                        None => {
                            i += 1;
                            words
                                .get(i)
                                .cloned()
                                .ok_or_else(|| UsageError(format!("--{name} needs a value")))?
                        }
                    }
                } else {
                    String::new()
                };
                flags.insert(name.to_string(), value);
            } else {
                positional.push(word.clone());
            }
            i += 1;
        }
        Ok(Args { positional, flags })
    }

    fn has(&self, name: &str) -> bool {
        self.flags.contains_key(name)
    }

    fn number<T: std::str::FromStr>(&self, name: &str) -> Result<Option<T>, UsageError> {
        match self.flags.get(name) {
            None => Ok(None),
            Some(v) => v
                .parse()
                .map(Some)
                .map_err(|_| UsageError(format!("--{name}: '{v}' is not a valid number"))),
        }
    }

    fn text(&self, name: &str) -> Option<&str> {
        self.flags.get(name).map(String::as_str)
    }

    /// Fails on any flag not in `allowed`.
    fn only(&self, allowed: &[&str]) -> Result<(), UsageError> {
        for name in self.flags.keys() {
            if !allowed.contains(&name.as_str()) {
                return Err(UsageError(format!("unknown flag --{name}")));
            }
        }
        Ok(())
    }
}

const BOT_FLAGS: &[&str] = &[
    "player",
    "depth",
    "nodes",
    "move-time",
    "hash",
    "eval",
    "seed",
    "log",
];

/// The bot with default settings: what a judge runs.
#[must_use]
pub fn play_default() -> ExitCode {
    let mut engine = Engine::new(
        crate::tt::DEFAULT_MB,
        Evaluator::DEFAULT,
        None,
        None,
        limit_from_env().unwrap_or(crate::clock::JUDGE_LIMIT),
    );
    serve(&mut engine, Verbosity::Full)
}

/// The limit a referee of ours announced (see `program::MOVE_TIME_ENV`).
fn limit_from_env() -> Option<Duration> {
    let ms: u64 = std::env::var(crate::program::MOVE_TIME_ENV)
        .ok()?
        .parse()
        .ok()?;
    Some(Duration::from_millis(ms.max(1)))
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
fn eval_flag(args: &Args) -> Result<Evaluator, UsageError> {
    match args.text("eval") {
        None => Ok(Evaluator::DEFAULT),
        Some(name) => {
            Evaluator::parse(name).ok_or_else(|| UsageError(format!("unknown evaluation '{name}'")))
        }
    }
}

fn make_player(args: &Args) -> Result<Box<dyn Player>, UsageError> {
    let seed = args.number::<u64>("seed")?.unwrap_or_else(entropy_seed);
    match args.text("player").unwrap_or("bot") {
        "random" => Ok(Box::new(RandomPlayer::new(seed))),
        "greedy" => Ok(Box::new(GreedyPlayer::new(seed))),
        "bot" => {
            let eval = eval_flag(args)?;
            let move_time = match args.number::<u64>("move-time")? {
                Some(ms) => Duration::from_millis(ms.max(1)),
                None => limit_from_env().unwrap_or(crate::clock::JUDGE_LIMIT),
            };
            let depth = args.number::<u32>("depth")?;
            if depth == Some(0) {
                return Err(UsageError("--depth must be at least 1".into()));
            }
            Ok(Box::new(Engine::new(
                args.number::<usize>("hash")?
                    .unwrap_or(crate::tt::DEFAULT_MB)
                    .clamp(1, 4096),
                eval,
                depth,
                args.number::<u64>("nodes")?,
                move_time,
            )))
        }
        other => Err(UsageError(format!("unknown player '{other}'"))),
    }
}

/// Runs a command line (not empty).
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
        other => Err(UsageError(format!("unknown command '{other}'"))),
    };
    match result {
        Ok(code) => code,
        Err(UsageError(message)) => {
            eprintln!("reversi: {message}\n(reversi help lists the commands)");
            ExitCode::from(2)
        }
    }
}

fn bot(words: &[String]) -> Result<ExitCode, UsageError> {
    let args = Args::parse(words)?;
    args.only(BOT_FLAGS)?;
    if let Some(extra) = args.positional.first() {
        return Err(UsageError(format!("unexpected '{extra}'")));
    }
    let verbosity = match args.text("log").unwrap_or("full") {
        "full" => Verbosity::Full,
        "brief" => Verbosity::Brief,
        "quiet" => Verbosity::Quiet,
        other => return Err(UsageError(format!("--log: unknown level '{other}'"))),
    };
    let mut player = make_player(&args)?;
    Ok(serve(player.as_mut(), verbosity))
}

fn perft_command(words: &[String]) -> Result<ExitCode, UsageError> {
    let args = Args::parse(words)?;
    args.only(&["convention"])?;
    let depth: u32 = args
        .positional
        .first()
        .ok_or_else(|| UsageError("perft needs a depth".into()))?
        .parse()
        .map_err(|_| UsageError("perft: depth must be a number".into()))?;
    let convention = match args.text("convention").unwrap_or("dropped") {
        "dropped" => Convention::GamesDropped,
        "kept" => Convention::GamesKept,
        other => return Err(UsageError(format!("unknown convention '{other}'"))),
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
fn jobs_flag(args: &Args, command: &str) -> Result<usize, UsageError> {
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

/// One game of a match, decided before any is played.
struct MatchGame<'a> {
    a_black: bool,
    start: Board,
    to_move: Color,
    opening: String,
    commands: [&'a str; 2],
}

fn match_command(words: &[String]) -> Result<ExitCode, UsageError> {
    let args = Args::parse(words)?;
    args.only(&[
        "games",
        "move-time",
        "record",
        "openings",
        "seed",
        "show",
        "jobs",
    ])?;
    let [a, b] = args.positional.as_slice() else {
        return Err(UsageError("match needs two program command lines".into()));
    };
    let games = args.number::<u32>("games")?.unwrap_or(2);
    let limit = Duration::from_millis(args.number::<u64>("move-time")?.unwrap_or(1000));
    let record = args.text("record").map(PathBuf::from);
    if let Some(dir) = &record {
        std::fs::create_dir_all(dir)
            .map_err(|e| UsageError(format!("--record {}: {e}", dir.display())))?;
    }
    let mut openings: Vec<(String, Board, Color)> = Vec::new();
    if let Some(path) = args.text("openings") {
        let text = std::fs::read_to_string(path).map_err(|e| UsageError(format!("{path}: {e}")))?;
        for (n, line) in text.lines().enumerate() {
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            let (board, color) = crate::tournament::opening_position(line)
                .ok_or_else(|| UsageError(format!("{path}:{}: not a legal opening", n + 1)))?;
            openings.push((line.trim().to_string(), board, color));
        }
        let mut rng = fastrand::Rng::with_seed(args.number::<u64>("seed")?.unwrap_or(1));
        rng.shuffle(&mut openings);
    }
    let names = [a.as_str(), b.as_str()];
    let jobs = jobs_flag(&args, "match")?;
    let plan: Vec<MatchGame> = (0..games as usize)
        .map(|g| {
            // Colours swap every game; with openings, each is played twice.
            let a_black = g % 2 == 0;
            let (start, to_move, opening) = if openings.is_empty() {
                (Board::start(), Color::Black, String::new())
            } else {
                let (text, board, color) = &openings[(g / 2) % openings.len()];
                (*board, *color, format!(" opening {text}"))
            };
            let commands = if a_black { names } else { [names[1], names[0]] };
            MatchGame {
                a_black,
                start,
                to_move,
                opening,
                commands,
            }
        })
        .collect();
    let mut tallies = [Tally::default(), Tally::default()];
    let mut out = io::stdout().lock();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let (sender, receiver) = std::sync::mpsc::channel();
    let mut failure = None;
    std::thread::scope(|scope| {
        for _ in 0..jobs.min(plan.len()) {
            let sender = sender.clone();
            let (plan, next, record) = (&plan, &next, &record);
            scope.spawn(move || loop {
                let g = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let Some(game) = plan.get(g) else { break };
                let stderr = match record {
                    Some(dir) => [
                        Some(dir.join(format!("game-{:04}-black.stderr", g + 1))),
                        Some(dir.join(format!("game-{:04}-white.stderr", g + 1))),
                    ],
                    None => [None, None],
                };
                let played = referee::play_game(&GameSetup {
                    commands: game.commands,
                    start: game.start,
                    to_move: game.to_move,
                    limit,
                    stderr,
                });
                if sender.send((g, played)).is_err() {
                    break;
                }
            });
        }
        drop(sender);
        // Games are reported as they finish (in order with one job).
        for (g, game) in receiver {
            let setup = &plan[g];
            let (a_color, b_color) = if setup.a_black {
                (Color::Black, Color::White)
            } else {
                (Color::White, Color::Black)
            };
            tallies[0].add(&game, a_color);
            tallies[1].add(&game, b_color);
            let outcome = match &game.ending {
                referee::Ending::Finished { black, white } => format!("{black}-{white}"),
                referee::Ending::Forfeit { loser, reason } => {
                    format!("{} forfeits: {reason}", loser.name())
                }
            };
            let verdict = match game.winner() {
                None => "draw".to_string(),
                Some(c) if c == a_color => "A wins".to_string(),
                Some(_) => "B wins".to_string(),
            };
            let _ = writeln!(
                out,
                "game {}/{games}: A {} {outcome} {verdict}{}",
                g + 1,
                a_color.name(),
                setup.opening
            );
            if args.has("show") {
                show_game(&mut out, setup.start, setup.to_move, &game);
            }
            if let Some(dir) = &record {
                for (i, color) in [Color::Black, Color::White].into_iter().enumerate() {
                    let mut t = game.transcripts[i].clone();
                    t.headers = vec![
                        ("game".into(), (g + 1).to_string()),
                        ("color".into(), color.name().into()),
                        ("program".into(), setup.commands[i].into()),
                        ("opponent".into(), setup.commands[1 - i].into()),
                        ("moves".into(), game.move_text()),
                        ("result".into(), outcome.clone()),
                    ];
                    let path = dir.join(format!("game-{:04}-{}.txt", g + 1, color.name()));
                    if let Err(e) = std::fs::write(&path, t.render()) {
                        failure.get_or_insert(UsageError(format!("{}: {e}", path.display())));
                    }
                }
            }
        }
    });
    if let Some(e) = failure {
        return Err(e);
    }
    let _ = writeln!(
        out,
        "\n   wins draws losses forfeits  score  mean-diff  slowest  mean-reply  program"
    );
    for (i, t) in tallies.iter().enumerate() {
        let _ = writeln!(
            out,
            "{} {:5} {:5} {:6} {:8} {:5.1}% {:+10.2} {:6}ms {:9.1}ms  {}",
            ["A", "B"][i],
            t.wins,
            t.draws,
            t.losses,
            t.forfeits,
            100.0 * t.score(),
            t.margin as f64 / f64::from(t.games.max(1)),
            t.slowest.as_millis(),
            t.mean_reply().as_secs_f64() * 1000.0,
            names[i]
        );
    }
    match referee::elo_estimate(&tallies[0]) {
        Some((elo, lo, hi)) => {
            let _ = writeln!(
                out,
                "Elo A-B: {elo:+.0} (95% interval {lo:+.0} .. {hi:+.0})"
            );
        }
        None => {
            let _ = writeln!(
                out,
                "Elo A-B: not estimable (fewer than 2 games, or all won or all lost)"
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn show_game(out: &mut impl Write, start: Board, to_move: Color, game: &referee::Game) {
    let mut board = start;
    let mut color = to_move;
    for (n, m) in game.moves.iter().enumerate() {
        board = match m {
            Some(sq) => board.play(*sq),
            None => board.pass(),
        };
        let said = m.map_or("passes".to_string(), |sq| format!("plays {sq}"));
        let _ = writeln!(out, "{}. {} {said}", n + 1, color.name());
        color = color.other();
        let _ = writeln!(out, "{}", board.diagram(color));
    }
}

fn replay_command(words: &[String]) -> Result<ExitCode, UsageError> {
    let args = Args::parse(words)?;
    args.only(&["bot", "exact", "move-time", "record"])?;
    let [path] = args.positional.as_slice() else {
        return Err(UsageError("replay needs one transcript file".into()));
    };
    let text = std::fs::read_to_string(path).map_err(|e| UsageError(format!("{path}: {e}")))?;
    let t = Transcript::parse(&text).map_err(|e| UsageError(format!("{path}: {e}")))?;
    let command = match args.text("bot") {
        Some(c) => c.to_string(),
        None => format!("self {}", t.header("args").unwrap_or("")),
    };
    let exact = args.has("exact") || t.header("exact") == Some("yes");
    let limit = Duration::from_millis(args.number::<u64>("move-time")?.unwrap_or(1000));
    let report = transcript::replay(&command, &t, limit, exact);
    if let Some(out) = args.text("record") {
        let mut recorded = report.transcript.clone();
        recorded.headers = t.headers.clone();
        std::fs::write(out, recorded.render()).map_err(|e| UsageError(format!("{out}: {e}")))?;
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

fn bench_command(words: &[String]) -> Result<ExitCode, UsageError> {
    let args = Args::parse(words)?;
    args.only(&[
        "depth",
        "hash",
        "endgame-curve",
        "probcut-errors",
        "games-dir",
        "from",
        "to",
        "positions",
        "eval",
    ])?;
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
        let games = match crate::train::read_wthor(&dir.join("wthor")) {
            Ok(games) => games,
            Err(e) => {
                eprintln!(
                    "reversi bench: cannot read {}: {e}",
                    dir.join("wthor").display()
                );
                return Ok(ExitCode::from(1));
            }
        };
        crate::bench::probcut_errors(
            &games,
            args.number("from")?.unwrap_or(16),
            args.number("to")?.unwrap_or(20),
            args.number("positions")?.unwrap_or(100),
        );
        return Ok(ExitCode::SUCCESS);
    }
    let depth = args.number::<u32>("depth")?.unwrap_or(11);
    let hash = args
        .number::<usize>("hash")?
        .unwrap_or(crate::tt::DEFAULT_MB);
    crate::bench::run(depth, hash, eval);
    Ok(ExitCode::SUCCESS)
}

fn train_command(words: &[String]) -> Result<ExitCode, UsageError> {
    let args = Args::parse(words)?;
    args.only(&["games-dir", "out", "jobs", "seed", "epochs", "every"])?;
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
    crate::train::run(&options, &mut log).map_err(|e| UsageError(format!("train: {e}")))?;
    Ok(ExitCode::SUCCESS)
}

fn solve_command(words: &[String]) -> Result<ExitCode, UsageError> {
    use crate::solve::{self, Mode, Options};
    let args = Args::parse(words)?;
    args.only(&["wld", "all", "depth-limit", "time", "hash", "eval"])?;
    let eval = eval_flag(&args)?;
    let mode = match (args.has("wld"), args.has("all")) {
        (true, true) => return Err(UsageError("--wld and --all do not go together".into())),
        (true, false) => Mode::Wld,
        (false, true) => Mode::All,
        (false, false) => Mode::Exact,
    };
    let time = match args.number::<f64>("time")? {
        Some(t) if t > 0.0 && t.is_finite() => Some(Duration::from_secs_f64(t)),
        Some(_) => return Err(UsageError("--time is a positive number of seconds".into())),
        None => None,
    };
    let options = Options {
        mode,
        depth_limit: args.number("depth-limit")?,
        time,
        hash_mb: args.number("hash")?.unwrap_or(64),
        eval,
    };
    let text =
        solve::read_input(args.positional.first().map(String::as_str)).map_err(UsageError)?;
    let mut out = io::stdout().lock();
    match solve::run(&text, &options, &mut out) {
        Ok(true) => Ok(ExitCode::SUCCESS),
        Ok(false) => Ok(ExitCode::from(1)),
        // A reader that stopped reading (`| head`) is not an error.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        Err(e) => Err(UsageError(e.to_string())),
    }
}

fn bio97_command(words: &[String]) -> Result<ExitCode, UsageError> {
    let args = Args::parse(words)?;
    args.only(&["strategy"])?;
    let strategy = match args.text("strategy").unwrap_or("2") {
        "1" => crate::bio97::Strategy::MostTurned,
        "2" => crate::bio97::Strategy::BestAfterReply,
        other => return Err(UsageError(format!("--strategy is 1 or 2, not '{other}'"))),
    };
    let stdin = io::stdin();
    let mut output = BufWriter::new(io::stdout().lock());
    let mut log = io::stderr().lock();
    match crate::bio97::run(&mut stdin.lock(), &mut output, &mut log, strategy) {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        Err(e) => {
            eprintln!("bio97: {e}");
            Ok(ExitCode::from(1))
        }
    }
}

fn tournament_command(words: &[String]) -> Result<ExitCode, UsageError> {
    use crate::tournament::{self as t, knockout, ladder, Openings, RefereeArena};
    let args = Args::parse(words)?;
    args.only(&[
        "players",
        "format",
        "games",
        "rounds",
        "pair-games",
        "seed",
        "move-time",
        "jobs",
        "out",
        "openings",
    ])?;
    let path = args
        .text("players")
        .ok_or_else(|| UsageError("tournament needs --players FILE".into()))?;
    let text = std::fs::read_to_string(path).map_err(|e| UsageError(format!("{path}: {e}")))?;
    let entrants = t::parse_entrants(&text).map_err(|e| UsageError(format!("{path}: {e}")))?;
    let seed = args.number::<u64>("seed")?.unwrap_or(1);
    let limit = Duration::from_millis(args.number::<u64>("move-time")?.unwrap_or(1000));
    let jobs = jobs_flag(&args, "tournament")?;
    let mut openings = match args.text("openings") {
        Some(p) => {
            let text = std::fs::read_to_string(p).map_err(|e| UsageError(format!("{p}: {e}")))?;
            Openings::parse(&text, seed).map_err(|e| UsageError(format!("{p}: {e}")))?
        }
        None => Openings::default(),
    };
    let out = args.text("out").map(PathBuf::from);
    let games_dir = out.as_ref().map(|d| d.join("games"));
    if let Some(dir) = &games_dir {
        std::fs::create_dir_all(dir).map_err(|e| UsageError(format!("{}: {e}", dir.display())))?;
    }
    let arena = RefereeArena::new(entrants.clone(), limit, jobs, games_dir);
    let flush_log = |arena: &RefereeArena| {
        for line in arena.log.lock().expect("log lock").drain(..) {
            println!("{line}");
        }
    };
    let name = |e: usize| entrants[e].name.clone();
    let (header, rows, svg): (Vec<&str>, Vec<Vec<String>>, Option<String>) = match args
        .text("format")
        .unwrap_or("knockout")
    {
        "knockout" => {
            let k = knockout::run(entrants.len(), &arena, &mut openings, seed);
            flush_log(&arena);
            for (r, pairings) in k.rounds.iter().enumerate() {
                println!("round {}:", r + 1);
                for p in pairings {
                    let tag = |e: usize| format!("#{} {}", k.standings[e].number, name(e));
                    match (p.light, &p.outcome) {
                        (None, _) => println!("  {} has the bye", tag(p.dark)),
                        (Some(l), Some(o)) => {
                            let how = match &o.forfeit {
                                Some((loser, why)) => format!("{} forfeits ({why})", loser.name()),
                                None => format!("{}-{}", o.black_discs, o.white_discs),
                            };
                            let restart = if p.restarted_by.is_empty() {
                                String::new()
                            } else {
                                let who: Vec<String> =
                                    p.restarted_by.iter().map(|&e| name(e)).collect();
                                format!(" (restarted for {})", who.join(", "))
                            };
                            println!(
                                "  {} (dark) v {} (light): {how}, {} goes through{restart}",
                                tag(p.dark),
                                tag(l),
                                name(p.winner)
                            );
                        }
                        (Some(_), None) => {}
                    }
                }
            }
            println!("winner: {}", name(k.winner));
            println!(
                "top points scorer: {} ({} points)",
                name(k.top_scorer()),
                k.standings[k.top_scorer()].points
            );
            let rows = k
                .table_order()
                .iter()
                .enumerate()
                .map(|(rank, &e)| {
                    let s = &k.standings[e];
                    vec![
                        (rank + 1).to_string(),
                        name(e),
                        s.number.to_string(),
                        s.points.to_string(),
                        s.games.to_string(),
                        s.wins.to_string(),
                        s.draws.to_string(),
                        s.losses.to_string(),
                        s.differential().to_string(),
                        s.discs_for.to_string(),
                        s.restarts.to_string(),
                        s.out_in_round
                            .map_or("winner".to_string(), |r| format!("out in round {r}")),
                    ]
                })
                .collect();
            let header = vec![
                "rank", "player", "number", "points", "games", "wins", "draws", "losses", "diff",
                "for", "restarts", "result",
            ];
            (
                header,
                rows,
                Some(crate::tournament::bracket_svg::render(&k, &entrants)),
            )
        }
        "elo" => {
            let games = args.number::<u32>("games")?.unwrap_or(20);
            let (pool, stopped) =
                crate::tournament::elo::run(entrants.len(), &arena, &mut openings, games, jobs);
            flush_log(&arena);
            if let Some(why) = stopped {
                println!("{why}");
            }
            let rows = pool
                .table_order()
                .iter()
                .enumerate()
                .map(|(rank, &e)| {
                    let p = &pool.players[e];
                    vec![
                        (rank + 1).to_string(),
                        name(e),
                        format!("{:.0}", p.rating),
                        p.games.to_string(),
                        p.wins.to_string(),
                        p.draws.to_string(),
                        p.losses.to_string(),
                    ]
                })
                .collect();
            (
                vec![
                    "rank", "player", "rating", "games", "wins", "draws", "losses",
                ],
                rows,
                None,
            )
        }
        "ladder" => {
            let rounds = args.number::<usize>("rounds")?.unwrap_or(3);
            let per_pair = args
                .number::<usize>("pair-games")?
                .unwrap_or(ladder::GAMES_PER_PAIR)
                .max(1);
            let mut l = ladder::Ladder::new(entrants.len());
            for r in 0..rounds {
                l.round(&arena, &mut openings, per_pair);
                flush_log(&arena);
                let order: Vec<String> = l.order.iter().map(|&e| name(e)).collect();
                println!("after round {}: {}", r + 1, order.join(" > "));
            }
            let rows = l
                .order
                .iter()
                .enumerate()
                .map(|(rank, &e)| {
                    let r = &l.records[e];
                    vec![
                        (rank + 1).to_string(),
                        name(e),
                        format!("{:.1}", r.rating()),
                        format!("{:.1}", ladder::rating(r.black_wins, r.black_games)),
                        format!("{:.1}", ladder::rating(r.white_wins, r.white_games)),
                        r.games.to_string(),
                        r.wins.to_string(),
                    ]
                })
                .collect();
            (
                vec![
                    "rank", "player", "rating", "as-black", "as-white", "games", "wins",
                ],
                rows,
                None,
            )
        }
        other => {
            return Err(UsageError(format!(
                "--format is knockout, elo or ladder, not '{other}'"
            )))
        }
    };
    println!();
    print!("{}", crate::tournament::to_text(&header, &rows));
    if let Some(dir) = &out {
        let write = |file: &str, text: &str| {
            std::fs::write(dir.join(file), text)
                .map_err(|e| UsageError(format!("{}: {e}", dir.join(file).display())))
        };
        write("standings.csv", &crate::tournament::to_csv(&header, &rows))?;
        write(
            "standings.json",
            &crate::tournament::to_json(&header, &rows),
        )?;
        if let Some(svg) = &svg {
            write("bracket.svg", svg)?;
        }
        println!("results in {}", dir.display());
    }
    Ok(ExitCode::SUCCESS)
}
