//! The commands that look at recorded games: `show`, `analyze`.

use super::{failed, read_game, report, usage, CliError, MAX_DEPTH, MAX_HASH_MB};
use crate::records::ggf::GgfGame;
use crate::study::show;
use crate::study::value::Reach;
use clap::Args;
use reversi_core::eval::Evaluator;
use reversi_core::search::Searcher;
use std::io::{self, IsTerminal};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

/// The game to look at: a file and, when it holds several, which one.
#[derive(Args, Debug)]
pub struct GameChoice {
    /// A GGF file, a transcript (as `match --record` writes them), a file
    /// holding a move list, or a move list itself (f5d6c3...)
    game: PathBuf,
    /// Which game of a file that holds several, from 1 (1 to 1,000,000)
    #[arg(long = "game", value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    number: u64,
}

impl GameChoice {
    fn read(&self) -> Result<GgfGame, CliError> {
        let path = &self.game;
        let text = read_game(path)?;
        let mut games =
            crate::records::read::read_games(&text).map_err(|e| failed(path.display(), e))?;
        let count = games.len();
        let number = usize::try_from(self.number).unwrap_or(usize::MAX);
        if number > count {
            return Err(failed(
                path.display(),
                format!("game {} asked for; the file holds {count}", self.number),
            ));
        }
        let game = games.swap_remove(number - 1);
        game.positions().map_err(|e| failed(path.display(), e))?;
        Ok(game)
    }
}

/// `reversi show GAME`.
#[derive(Args, Debug)]
pub struct ShowArgs {
    #[command(flatten)]
    choice: GameChoice,
    /// Print every position one after another (what happens anyway when
    /// stdin or stdout is not a terminal)
    #[arg(long)]
    step: bool,
    /// Print only the position after this many moves (0: the start)
    #[arg(long = "move", value_name = "N", conflicts_with = "step")]
    at: Option<usize>,
    /// Write the game as one self-contained HTML page to this file instead
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
}

/// Writes `text` to `path` whole or not at all.
fn write_file(path: &Path, text: &str) -> Result<(), CliError> {
    crate::util::files::write_atomically(path, text.as_bytes())
        .map_err(|e| CliError::Failed(e.to_string()))
}

pub(super) fn show(args: &ShowArgs) -> Result<ExitCode, CliError> {
    let game = args.choice.read()?;
    if let Some(path) = &args.html {
        let page = show::html_page(&game).map_err(|e| failed(args.choice.game.display(), e))?;
        write_file(path, &page)?;
        eprintln!("wrote {}", path.display());
        return Ok(ExitCode::SUCCESS);
    }
    let frames = show::frames(&game).map_err(|e| failed(args.choice.game.display(), e))?;
    if let Some(n) = args.at {
        let frame = frames.get(n).ok_or_else(|| {
            usage(format!(
                "--move {n}: the game has {} moves",
                frames.len() - 1
            ))
        })?;
        return report(|out| write!(out, "{}", show::text_frame(frame)));
    }
    let interactive = !args.step && io::stdin().is_terminal() && io::stdout().is_terminal();
    if !interactive {
        return report(|out| {
            for frame in &frames {
                writeln!(out, "{}", show::text_frame(frame))?;
            }
            Ok(())
        });
    }
    // One position at a time, redrawn in place, moved with keys.
    crate::study::viewer::browse(&game, &frames).map_err(|e| failed("the terminal", e))?;
    Ok(ExitCode::SUCCESS)
}

/// `analyze --time`: 0, or 0.1 s to a day. No limit is asked for with a
/// plain zero: a number too small to write (`1e-400`) is refused, as
/// `solve` refuses it, rather than read as none.
fn solve_seconds(text: &str) -> Result<f64, String> {
    let plain_zero = text.trim().chars().all(|c| c == '0' || c == '.');
    match text.parse::<f64>() {
        Ok(s) if (s == 0.0 && plain_zero) || (0.1..=86_400.0).contains(&s) => Ok(s),
        _ => Err("0, or a number of seconds from 0.1 to 86400".into()),
    }
}

/// `reversi analyze GAME`.
#[derive(Args, Debug)]
pub struct AnalyzeArgs {
    #[command(flatten)]
    choice: GameChoice,
    /// Solve exactly from this many empties on (0 to 30)
    #[arg(long, value_name = "E", default_value_t = 24,
          value_parser = clap::value_parser!(u32).range(0..=30))]
    exact_from: u32,
    /// The longest a solve may take, in seconds, before its position gets
    /// the search's estimate instead (0.1 to 86400; 0 for no limit: every
    /// figure then replays exactly)
    #[arg(long, value_name = "S", default_value_t = 10.0, value_parser = solve_seconds)]
    time: f64,
    /// The selective search's depth before that, in plies (1 to 60)
    #[arg(long, value_name = "PLIES", default_value_t = 16,
          value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_DEPTH)))]
    depth: u32,
    /// Also write the game with each move's worth as its GGF eval
    #[arg(long, value_name = "FILE")]
    ggf: Option<PathBuf>,
    /// Also write the game's page with the evaluation graph
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Transposition table size (1 to 4096)
    #[arg(long, value_name = "MB", default_value_t = 64,
          value_parser = clap::value_parser!(u64).range(1..=MAX_HASH_MB))]
    hash: u64,
}

pub(super) fn analyze(args: &AnalyzeArgs) -> Result<ExitCode, CliError> {
    let game = args.choice.read()?;
    let reach = Reach {
        depth: args.depth,
        exact_from: args.exact_from,
        solve_time: (args.time > 0.0).then(|| Duration::from_secs_f64(args.time)),
    };
    let mut searcher = Searcher::new(args.hash as usize, Evaluator::Pattern);
    let total = game.moves.len();
    let mut progress = crate::util::parallel::Progress::new("analyzed", total, "moves");
    let mut done = 0;
    let reports = crate::study::analyze::analyze(&game, &mut searcher, reach, || {
        done += 1;
        progress.report(done, &mut io::stderr());
    })
    .map_err(|e| failed(args.choice.game.display(), e))?;
    let annotated = crate::study::analyze::annotated(&game, &reports);
    if let Some(path) = &args.ggf {
        write_file(path, &(annotated.render() + "\n"))?;
    }
    if let Some(path) = &args.html {
        let page = show::html_page(&annotated).map_err(|e| failed(path.display(), e))?;
        write_file(path, &page)?;
    }
    report(|out| write!(out, "{}", crate::study::analyze::table(&reports)))
}
