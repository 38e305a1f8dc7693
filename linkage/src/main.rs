//! `linkage`: a bot for the Linkage bot ladder
//! (`../shared/seeds/linkage-bot-ladder.txt`), and the contest's runner.
//!
//! - No argument: play one turn, as the contest runs a bot: read
//!   `input.txt` in the executable's folder, write `order.txt` there.
//! - `linkage match BOT_A BOT_B [--games N] [--dir DIR] [--seed N]
//!   [--think MS]`: the runner (`linkage::runner`).
//! - `linkage ladder --bots FILE [--rounds N] [--games-per-pair N]
//!   [--dir DIR] [--seed N] [--think MS]`: the seed's weekly ladder.
//! - Any other argument: the id line, as the contest asks.
//!
//! It keeps no cache file between turns.

use linkage::files::read_input;
use linkage::player::{MctsPlayer, Player, THINK_TIME};
use linkage::rules::{all_placements, Move};
use linkage::runner::{play_ladder, play_match, LadderOptions, MatchOptions, THINK_ENV};
use linkage::{id_line, seed_of};
use reversi::tournament::ladder::GAMES_PER_PAIR;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        None => play_turn(),
        Some(command @ ("match" | "ladder")) => {
            let ran = match command {
                "match" => match_command(&args[1..]),
                _ => ladder_command(&args[1..]),
            };
            match ran {
                Ok(code) => code,
                Err(message) => {
                    eprintln!("linkage: {message}");
                    ExitCode::from(2)
                }
            }
        }
        Some(_) => {
            let mut out = std::io::stdout().lock();
            match writeln!(out, "{}", id_line()).and_then(|()| out.flush()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("linkage: stdout: {e}");
                    ExitCode::from(1)
                }
            }
        }
    }
}

/// One turn: `input.txt` to `order.txt`, beside the executable. Problems
/// go to stderr, one line each; an order is written whenever one can be,
/// and an order that cannot be written fails the turn (exit 1).
fn play_turn() -> ExitCode {
    let dir = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from("."));
    let text = match std::fs::read(dir.join("input.txt")) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => {
            eprintln!(
                "linkage: cannot read {}: {e}: playing the start position",
                dir.join("input.txt").display()
            );
            String::new()
        }
    };
    let (position, notes) = read_input(&text);
    for note in notes {
        eprintln!("linkage: input.txt: {note}");
    }
    let placements = all_placements();
    let order = if position.moves(&placements).is_empty() {
        eprintln!("linkage: no domino fits anywhere: the game is over; answering Skip");
        Move::Skip
    } else {
        let think = std::env::var(THINK_ENV)
            .ok()
            .and_then(|ms| ms.parse().ok())
            .map_or(THINK_TIME, Duration::from_millis)
            .min(THINK_TIME);
        let mut bot = MctsPlayer::new(seed_of(&text), think);
        let mv = bot.choose(&position, &placements);
        eprintln!(
            "linkage: {} after {} playouts ({:.0}% won)",
            mv.order(),
            bot.last.0,
            100.0 * bot.last.1
        );
        mv
    };
    match std::fs::write(dir.join("order.txt"), format!("{}\n", order.order())) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!(
                "linkage: cannot write {}: {e}",
                dir.join("order.txt").display()
            );
            ExitCode::from(1)
        }
    }
}

/// Each flag given, with its value.
type Flags = Vec<(String, String)>;

/// The runner's flags: the words that are not flags, and each flag's
/// value. `allowed` lists the flags; each takes a value.
fn parse_flags(args: &[String], allowed: &[&str]) -> Result<(Vec<String>, Flags), String> {
    let (mut words, mut flags) = (Vec::new(), Vec::new());
    let mut iter = args.iter();
    while let Some(word) = iter.next() {
        if let Some(flag) = word.strip_prefix("--") {
            if !allowed.contains(&flag) {
                return Err(format!("unknown flag '{word}'"));
            }
            let value = iter.next().ok_or_else(|| format!("{word} needs a value"))?;
            flags.push((flag.to_string(), value.clone()));
        } else {
            words.push(word.clone());
        }
    }
    Ok((words, flags))
}

/// A flag's number, at least 1.
fn number(flag: &str, text: &str) -> Result<u64, String> {
    text.parse::<u64>()
        .ok()
        .filter(|&n| n >= 1)
        .ok_or_else(|| format!("--{flag}: a whole number of at least 1, not '{text}'"))
}

/// The settings both commands share: `--dir`, `--seed`, `--think` (at
/// most the bot's own budget).
struct Common {
    dir: PathBuf,
    seed: u64,
    think: Option<Duration>,
}

fn common(flags: &[(String, String)], dir: &str) -> Result<Common, String> {
    let mut common = Common {
        dir: PathBuf::from(dir),
        seed: 1,
        think: None,
    };
    for (flag, value) in flags {
        match flag.as_str() {
            "dir" => common.dir = PathBuf::from(value),
            "seed" => common.seed = number(flag, value)?,
            "think" => {
                let ms = number(flag, value)?.min(THINK_TIME.as_millis() as u64);
                common.think = Some(Duration::from_millis(ms));
            }
            _ => {}
        }
    }
    Ok(common)
}

/// `linkage match BOT_A BOT_B [--games N] [--dir DIR] [--seed N] [--think MS]`.
fn match_command(args: &[String]) -> Result<ExitCode, String> {
    let (bots, flags) = parse_flags(args, &["games", "dir", "seed", "think"])?;
    let mut games = 10u32;
    for (flag, value) in &flags {
        if flag == "games" {
            games = u32::try_from(number(flag, value)?)
                .map_err(|_| format!("--games: too many, {value}"))?;
        }
    }
    let common = common(&flags, "linkage-match")?;
    let [a, b] = bots.as_slice() else {
        return Err(format!(
            "match needs two bots (a program, self, bot, random or greedy), not {}",
            bots.len()
        ));
    };
    let options = MatchOptions {
        games,
        dir: &common.dir,
        seed: common.seed,
        think: common.think,
    };
    let mut out = std::io::stdout().lock();
    match play_match([a, b], &options, &mut out) {
        Ok(_) => Ok(ExitCode::SUCCESS),
        Err(e) => {
            eprintln!("linkage: match in {}: {e}", common.dir.display());
            Ok(ExitCode::from(1))
        }
    }
}

/// `linkage ladder --bots FILE [--rounds N] [--games-per-pair N] [--dir DIR]
/// [--seed N] [--think MS]`: FILE names a bot a line (a program, `self`,
/// `bot`, `random` or `greedy`; `#` starts a comment), top of the ladder
/// first.
fn ladder_command(args: &[String]) -> Result<ExitCode, String> {
    let allowed = ["bots", "rounds", "games-per-pair", "dir", "seed", "think"];
    let (words, flags) = parse_flags(args, &allowed)?;
    if let Some(word) = words.first() {
        return Err(format!(
            "ladder: unexpected '{word}' (the bots come in --bots FILE)"
        ));
    }
    let (mut file, mut rounds, mut per_pair) = (None, 1u32, GAMES_PER_PAIR);
    for (flag, value) in &flags {
        match flag.as_str() {
            "bots" => file = Some(value.clone()),
            "rounds" => {
                rounds = u32::try_from(number(flag, value)?)
                    .map_err(|_| format!("--rounds: too many, {value}"))?
            }
            "games-per-pair" => per_pair = number(flag, value)? as usize,
            _ => {}
        }
    }
    let common = common(&flags, "linkage-ladder")?;
    let file = file.ok_or("ladder needs --bots FILE")?;
    let text = match std::fs::read_to_string(&file) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("linkage: {file}: {e}");
            return Ok(ExitCode::from(1));
        }
    };
    let names: Vec<String> = text
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim().to_string())
        .filter(|l| !l.is_empty())
        .collect();
    if names.len() < 2 {
        eprintln!(
            "linkage: {file}: a ladder needs at least two bots, found {}",
            names.len()
        );
        return Ok(ExitCode::from(1));
    }
    let options = LadderOptions {
        rounds,
        per_pair,
        dir: &common.dir,
        seed: common.seed,
        think: common.think,
    };
    let mut out = std::io::stdout().lock();
    match play_ladder(&names, &options, &mut out) {
        Ok(_) => Ok(ExitCode::SUCCESS),
        Err(e) => {
            eprintln!("linkage: ladder in {}: {e}", common.dir.display());
            Ok(ExitCode::from(1))
        }
    }
}
