//! `linkage`: a bot for the Linkage bot ladder
//! (`../shared/seeds/linkage-bot-ladder.txt`), and the contest's runner.
//!
//! - No argument: play one turn, as the contest runs a bot: read
//!   `input.txt` in the executable's folder, write `order.txt` there.
//! - `linkage match BOT_A BOT_B [--games N] [--dir DIR] [--seed N]
//!   [--think MS]`: the runner (`reversi::linkage::runner`).
//! - Any other argument: the id line, as the contest asks.
//!
//! It keeps no cache file between turns.

use reversi::linkage::files::read_input;
use reversi::linkage::player::{MctsPlayer, Player, THINK_TIME};
use reversi::linkage::rules::{all_placements, Move};
use reversi::linkage::runner::{play_match, MatchOptions, THINK_ENV};
use reversi::linkage::{id_line, seed_of};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        None => {
            play_turn();
            ExitCode::SUCCESS
        }
        Some("match") if args.len() > 1 => match match_command(&args[1..]) {
            Ok(code) => code,
            Err(message) => {
                eprintln!("linkage: {message}");
                ExitCode::from(2)
            }
        },
        Some(_) => {
            println!("{}", id_line());
            ExitCode::SUCCESS
        }
    }
}

/// One turn: `input.txt` to `order.txt`, beside the executable. Problems
/// go to stderr, one line each; an order is written whenever one can be.
fn play_turn() {
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
    if let Err(e) = std::fs::write(dir.join("order.txt"), format!("{}\n", order.order())) {
        eprintln!(
            "linkage: cannot write {}: {e}",
            dir.join("order.txt").display()
        );
    }
}

/// `linkage match BOT_A BOT_B [--games N] [--dir DIR] [--seed N] [--think MS]`.
fn match_command(args: &[String]) -> Result<ExitCode, String> {
    let mut bots = Vec::new();
    let (mut games, mut dir, mut seed, mut think) =
        (10u32, PathBuf::from("linkage-match"), 1u64, None);
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let mut value = |flag: &str| {
            words
                .next()
                .cloned()
                .ok_or_else(|| format!("{flag} needs a value"))
        };
        let number = |flag: &str, text: String| -> Result<u64, String> {
            text.parse::<u64>()
                .ok()
                .filter(|&n| n >= 1)
                .ok_or_else(|| format!("{flag}: a whole number of at least 1, not '{text}'"))
        };
        match word.as_str() {
            "--games" => {
                games = u32::try_from(number("--games", value("--games")?)?)
                    .map_err(|e| e.to_string())?
            }
            "--dir" => dir = PathBuf::from(value("--dir")?),
            "--seed" => seed = number("--seed", value("--seed")?)?,
            "--think" => {
                let ms = number("--think", value("--think")?)?;
                think = Some(Duration::from_millis(ms.min(THINK_TIME.as_millis() as u64)));
            }
            flag if flag.starts_with("--") => return Err(format!("match: unknown flag '{flag}'")),
            bot => bots.push(bot.to_string()),
        }
    }
    let [a, b] = bots.as_slice() else {
        return Err(format!(
            "match needs two bots (a program, self, bot, random or greedy), not {}",
            bots.len()
        ));
    };
    let options = MatchOptions {
        games,
        dir: &dir,
        seed,
        think,
    };
    let mut out = std::io::stdout().lock();
    match play_match([a, b], &options, &mut out) {
        Ok(_) => Ok(ExitCode::SUCCESS),
        Err(e) => {
            eprintln!("linkage: match: {e}");
            Ok(ExitCode::from(1))
        }
    }
}
