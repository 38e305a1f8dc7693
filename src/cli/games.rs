//! The commands that referee programs: `match`, `tournament`, `replay`.

use super::{cores, failed, read_file, report, usage, CliError};
use crate::arena::r#match::MatchOptions;
use crate::arena::sandbox::{Limits as SandboxLimits, Sandbox};
use crate::arena::{parse_entrants, Openings, RefereeArena};
use crate::records::transcript::{self, Transcript};
use crate::tournament::Format;
use clap::{Args, ValueEnum};
use reversi_core::board::Color;
use reversi_core::clock::JUDGE_LIMIT;
use reversi_core::clock::MAX_MOVE_TIME_MS;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

/// The most games one command plays: far beyond any real match, and it
/// keeps a mistyped count from allocating without end.
const MAX_GAMES: u64 = 1_000_000;

/// Flags every refereeing command shares.
#[derive(Args, Debug)]
pub struct RefereeFlags {
    /// The limit per reply; a reply later than this loses the game (1 to 3,600,000)
    #[arg(long, value_name = "MS", default_value_t = JUDGE_LIMIT.as_millis() as u64,
          value_parser = clap::value_parser!(u64).range(1..=MAX_MOVE_TIME_MS))]
    move_time: u64,
    /// Games played at once (1 to 1,024) [default: one per core]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1024))]
    jobs: Option<u64>,
    /// Openings to start from, one a line (moves like f5d6c3, or a board),
    /// shuffled by --seed; each is played once each way [default: the standard start]
    #[arg(long, value_name = "FILE")]
    openings: Option<PathBuf>,
    /// Seed of the openings' order (and, in a tournament, of its draw)
    #[arg(long, value_name = "N", default_value_t = 1)]
    seed: u64,
    /// Run every program in the sandbox: bubblewrap (no network, its own
    /// processes, a read-only system, of the host's files only those its
    /// command line names) and a cgroup (memory 256 MB, 16 processes)
    #[arg(long)]
    sandbox: bool,
    /// With --sandbox, run even where no cgroup can limit memory and
    /// processes (said on stderr)
    #[arg(long, requires = "sandbox")]
    allow_weak_sandbox: bool,
}

impl RefereeFlags {
    /// The sandbox `--sandbox` asks for, said on stderr; `None` without it.
    fn sandbox(&self, command: &str) -> Result<Option<Sandbox>, CliError> {
        if !self.sandbox {
            return Ok(None);
        }
        let sandbox = Sandbox::new(SandboxLimits::default(), self.allow_weak_sandbox)
            .map_err(|e| CliError::Failed(format!("{command}: {e}")))?;
        eprintln!("{command}: {}", sandbox.describe());
        Ok(Some(sandbox))
    }

    fn limit(&self) -> Duration {
        Duration::from_millis(self.move_time)
    }

    /// `--jobs`, by default one per core. Each game has one side thinking
    /// at a time, so a game per core keeps every reply on a core of its own.
    fn jobs(&self, command: &str) -> usize {
        let cores = cores();
        let jobs = self.jobs.map_or(cores, |j| j as usize);
        if jobs > cores {
            eprintln!(
                "{command}: warning: {jobs} jobs on {cores} cores: programs will share cores, so replies \
                 may be slower than they would be alone (each reply is still timed on its own)"
            );
        }
        jobs
    }

    fn openings(&self) -> Result<Openings, CliError> {
        match &self.openings {
            Some(path) => {
                Openings::parse(&read_file(path)?, self.seed).map_err(|e| failed(path.display(), e))
            }
            None => Ok(Openings::default()),
        }
    }
}

#[derive(Args, Debug)]
pub struct MatchArgs {
    /// Program A's command line, as a shell runs it (`self` is this executable)
    program_a: String,
    /// Program B's command line
    program_b: String,
    /// Games to play, colours alternating (1 to 1,000,000)
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..=MAX_GAMES))]
    games: u64,
    /// Write each game's transcripts (and the programs' stderr) here
    #[arg(long, value_name = "DIR")]
    record: Option<PathBuf>,
    /// Play one game at a time and show each move as it is played
    #[arg(long)]
    show: bool,
    #[command(flatten)]
    referee: RefereeFlags,
}

/// A directory for results, created if need be.
fn output_dir(path: &Path) -> Result<PathBuf, CliError> {
    if path.exists() && !path.is_dir() {
        return Err(failed(path.display(), "exists and is not a folder"));
    }
    std::fs::create_dir_all(path).map_err(|e| failed(path.display(), e))?;
    Ok(path.to_path_buf())
}

/// A run in which some program could not be started, or some record
/// could not be written, fails, naming each program or the first record.
fn check_run(arena: &RefereeArena) -> Result<ExitCode, CliError> {
    if let [first, rest @ ..] = arena.unwritten().as_slice() {
        return Err(CliError::Failed(format!(
            "{} game record(s) could not be written, the first: {first}",
            rest.len() + 1
        )));
    }
    let unstarted = arena.unstarted();
    if unstarted.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    let named: Vec<String> = unstarted
        .iter()
        .map(|(entrant, why)| format!("{} ('{}': {why})", entrant.name, entrant.command))
        .collect();
    Err(CliError::Failed(format!(
        "could not start {}",
        named.join(", ")
    )))
}

pub(super) fn match_games(args: &MatchArgs) -> Result<ExitCode, CliError> {
    let mut options = MatchOptions {
        commands: [args.program_a.clone(), args.program_b.clone()],
        games: args.games as usize,
        openings: args.referee.openings()?,
        limit: args.referee.limit(),
        jobs: args.referee.jobs("match"),
        record: args.record.as_deref().map(output_dir).transpose()?,
        show: args.show,
    };
    let mut arena = options.arena();
    arena.sandbox = args.referee.sandbox("match")?;
    report(|mut out| crate::arena::r#match::run(&mut options, &arena, &mut out))?;
    check_run(&arena)
}

#[derive(ValueEnum, Clone, Copy, Debug)]
enum FormatName {
    /// PUG's: single elimination, points for wins, whitewashes and draws
    Knockout,
    /// VG101's: pairs matched by rating, Elo updated after each game
    Elo,
    /// Linkage's: rounds of neighbours swapping places
    Ladder,
}

#[derive(Args, Debug)]
pub struct TournamentArgs {
    /// The players: one a line, `NAME: COMMAND`
    #[arg(long, value_name = "FILE")]
    players: PathBuf,
    /// The contest's format
    #[arg(long, value_enum, default_value_t = FormatName::Knockout)]
    format: FormatName,
    /// Elo only: games to play (1 to 1,000,000) [default: 20]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=MAX_GAMES))]
    games: Option<u64>,
    /// Ladder only: rounds (1 to 10,000) [default: 3]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=10_000))]
    rounds: Option<u64>,
    /// Ladder only: games per pair and round (1 to 10,000) [default: 10]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=10_000))]
    pair_games: Option<u64>,
    /// Write standings.csv, standings.json, the bracket (knockout) and every game here
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    #[command(flatten)]
    referee: RefereeFlags,
}

pub(super) fn tournament(args: &TournamentArgs) -> Result<ExitCode, CliError> {
    // A flag of another format would be ignored: refused instead.
    let given = |flag: &str, value: Option<u64>, formats: &str| match value {
        Some(_) => Err(super::usage(format!("{flag} is for {formats} only"))),
        None => Ok(()),
    };
    let format = match args.format {
        FormatName::Knockout => {
            given("--games", args.games, "--format elo")?;
            given("--rounds", args.rounds, "--format ladder")?;
            given("--pair-games", args.pair_games, "--format ladder")?;
            Format::Knockout
        }
        FormatName::Elo => {
            given("--rounds", args.rounds, "--format ladder")?;
            given("--pair-games", args.pair_games, "--format ladder")?;
            Format::Elo {
                games: args.games.unwrap_or(20) as u32,
            }
        }
        FormatName::Ladder => {
            given("--games", args.games, "--format elo")?;
            Format::Ladder {
                rounds: args.rounds.unwrap_or(3) as usize,
                per_pair: args
                    .pair_games
                    .map_or(crate::tournament::ladder::GAMES_PER_PAIR, |n| n as usize),
            }
        }
    };
    let path = &args.players;
    let entrants = parse_entrants(&read_file(path)?).map_err(|e| failed(path.display(), e))?;
    let mut openings = args.referee.openings()?;
    let games_dir = args
        .out
        .as_ref()
        .map(|d| output_dir(&d.join("games")))
        .transpose()?;
    let mut arena = RefereeArena::new(
        entrants,
        args.referee.limit(),
        args.referee.jobs("tournament"),
        games_dir,
    );
    arena.sandbox = args.referee.sandbox("tournament")?;
    crate::tournament::run(
        format,
        &arena,
        &mut openings,
        args.referee.seed,
        args.out.as_deref(),
    )
    .map_err(|e| CliError::Failed(e.to_string()))?;
    crate::util::report::finish().map_err(|e| failed("stdout", e))?;
    check_run(&arena)
}

#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// A transcript (as `match --record` writes them), a GGF file, a file
    /// holding a move list, or a move list itself (f5d6c3...)
    game: PathBuf,
    /// The program to replay it to [default: this bot, with a transcript's `args`]
    #[arg(long, value_name = "CMD")]
    bot: Option<String>,
    /// Each reply must be the recorded one, byte for byte
    #[arg(long)]
    exact: bool,
    /// For a game (GGF or move list): whose positions the program is asked
    #[arg(long, value_enum, default_value_t = Side::Both)]
    side: Side,
    /// The limit per reply, also told to the program (REVERSI_MOVE_TIME) (1 to 3,600,000)
    #[arg(long, value_name = "MS", default_value_t = JUDGE_LIMIT.as_millis() as u64,
          value_parser = clap::value_parser!(u64).range(1..=MAX_MOVE_TIME_MS))]
    move_time: u64,
    /// Write the lines sent and the replies received to this file
    #[arg(long, value_name = "OUT")]
    record: Option<PathBuf>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Side {
    Black,
    White,
    Both,
}

impl Side {
    fn colors(self) -> &'static [Color] {
        match self {
            Side::Black => &[Color::Black],
            Side::White => &[Color::White],
            Side::Both => &[Color::Black, Color::White],
        }
    }
}

/// A transcript is replayed as recorded; a game (GGF, move list) becomes a
/// session that asks the program for its move in each position of the
/// side or sides chosen (see `transcript::from_game`).
pub(super) fn replay(args: &ReplayArgs) -> Result<ExitCode, CliError> {
    if let Some(out) = &args.record {
        writable_file(out)
            .map_err(|e| usage(format!("replay: --record {}: {e}", out.display())))?;
    }
    let path = &args.game;
    let text = super::read_game(path)?;
    let as_transcript = Transcript::parse(&text).ok().filter(|t| {
        t.entries
            .iter()
            .any(|e| e.direction == transcript::Direction::Received)
    });
    let (t, from_game) = match as_transcript {
        Some(t) => (t, false),
        None => {
            let games =
                crate::records::read::read_games(&text).map_err(|e| failed(path.display(), e))?;
            let mut t = Transcript::default();
            for game in &games {
                let part = transcript::from_game(game, args.side.colors())
                    .map_err(|e| failed(path.display(), e))?;
                let end = part.entries.len() - 1;
                t.entries.extend(part.entries.into_iter().take(end));
            }
            t.push(transcript::Direction::Sent, "END");
            (t, true)
        }
    };
    let command = match &args.bot {
        Some(c) => c.clone(),
        None => format!("self {}", t.header("args").unwrap_or("")),
    };
    let exact = args.exact || t.header("exact") == Some("yes");
    let limit = Duration::from_millis(args.move_time);
    let replayed = crate::arena::replay::replay(&command, &t, limit, exact);
    if let Some(out) = &args.record {
        let mut recorded = replayed.transcript.clone();
        recorded.headers = t.headers.clone();
        crate::util::files::write_atomically(out, recorded.render().as_bytes())
            .map_err(|e| CliError::Failed(e.to_string()))?;
    }
    let mut summary = replayed.summary(&path.display().to_string());
    if from_game {
        // How often the program chose what was played.
        let recorded: Vec<&str> = t
            .entries
            .iter()
            .filter(|e| e.direction == transcript::Direction::Received && e.text != "OK")
            .map(|e| e.text.as_str())
            .collect();
        let chosen: Vec<&str> = replayed
            .replies
            .iter()
            .map(|(r, _)| r.as_str())
            .filter(|r| *r != "OK")
            .collect();
        let same = recorded.iter().zip(&chosen).filter(|(a, b)| a == b).count();
        summary.push_str(&format!(
            "{}: the recorded move in {same} of {} positions\n",
            path.display(),
            recorded.len()
        ));
    }
    report(|out| write!(out, "{summary}"))?;
    Ok(if replayed.problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `reversi connect URL --team T (--game N | --contest C) -- CMD`.
#[derive(Args, Debug)]
#[command(group(clap::ArgGroup::new("what").required(true).args(["game", "contest"])))]
pub struct ConnectArgs {
    /// The server's address, as `reversi-server` prints it (http://127.0.0.1:8080)
    url: String,
    /// The team the program plays for
    #[arg(long)]
    team: String,
    /// The team's secret [default: the REVERSI_SECRET environment variable]
    #[arg(long, value_name = "SECRET")]
    secret: Option<String>,
    /// The game to play
    #[arg(long, value_name = "ID")]
    game: Option<i64>,
    /// Play every game the team is given in this contest, until it ends
    #[arg(long, value_name = "ID")]
    contest: Option<i64>,
    /// The judge-protocol program, as a shell runs it (`self` is this executable)
    #[arg(last = true, required = true, value_name = "CMD")]
    command: Vec<String>,
}

pub(super) fn connect(args: &ConnectArgs) -> Result<ExitCode, CliError> {
    let secret = match &args.secret {
        Some(s) => s.clone(),
        None => std::env::var("REVERSI_SECRET")
            .map_err(|_| super::usage("connect: give --secret or set REVERSI_SECRET"))?,
    };
    let play = match (args.game, args.contest) {
        (Some(id), _) => crate::engines::connect::Play::Game(id),
        (None, Some(id)) => crate::engines::connect::Play::Contest(id),
        (None, None) => return Err(super::usage("connect: give --game or --contest")),
    };
    let options = crate::engines::connect::Options {
        url: args.url.clone(),
        team: args.team.clone(),
        secret,
        play,
        command: args.command.join(" "),
    };
    let endings = crate::engines::connect::run(&options)
        .map_err(|e| CliError::Failed(format!("connect: {e}")))?;
    report(|out| endings.iter().try_for_each(|line| writeln!(out, "{line}")))?;
    Ok(ExitCode::SUCCESS)
}

/// `reversi ggs --host H --port P --login L [-- CMD]`.
#[derive(Args, Debug)]
pub struct GgsArgs {
    /// The GGS server's host
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    /// Its port
    #[arg(long, default_value_t = 5000)]
    port: u16,
    /// The login (on the arena's GGS service: the team's name); the password is the REVERSI_SECRET environment variable
    #[arg(long)]
    login: String,
    /// Leave after this many games have ended (0: stay until the server closes)
    #[arg(long, value_name = "N", default_value_t = 0)]
    games: usize,
    /// The judge-protocol program, as a shell runs it (`self` is this executable) [default: self]
    #[arg(last = true, value_name = "CMD")]
    command: Vec<String>,
}

pub(super) fn ggs(args: &GgsArgs) -> Result<ExitCode, CliError> {
    let password = std::env::var("REVERSI_SECRET")
        .map_err(|_| super::usage("ggs: set REVERSI_SECRET to the login's password"))?;
    let command = if args.command.is_empty() {
        "self".to_string()
    } else {
        args.command.join(" ")
    };
    let options = crate::engines::ggs::Options {
        host: args.host.clone(),
        port: args.port,
        login: args.login.clone(),
        password,
        command,
        games: args.games,
    };
    let endings =
        crate::engines::ggs::run(&options).map_err(|e| CliError::Failed(format!("ggs: {e}")))?;
    report(|out| endings.iter().try_for_each(|line| writeln!(out, "{line}")))?;
    Ok(ExitCode::SUCCESS)
}

/// Whether a file can be written at `path`, checked before a long run
/// that ends by writing it: not a folder, in a folder that exists.
fn writable_file(path: &std::path::Path) -> Result<(), &'static str> {
    if path.is_dir() {
        return Err("a folder: give a file name");
    }
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty());
    if parent.is_some_and(|p| !p.is_dir()) {
        return Err("its folder does not exist");
    }
    Ok(())
}
