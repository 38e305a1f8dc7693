//! `reversi match`: two programs, A and B, play a series of games in the
//! arena, colours swapped every game and each opening played once each way;
//! a line per game as it finishes, then each side's totals and the Elo
//! difference they imply.

use crate::arena::referee::{Game, Played};
use crate::arena::{paired_games, Entrant, Finished, GameSpec, Openings, RefereeArena};
use reversi_core::board::Color;
use std::io::{self, Write};
use std::time::Duration;

/// What a match is asked to do.
pub struct MatchOptions {
    /// The command lines of A and B.
    pub commands: [String; 2],
    pub games: usize,
    /// Named in the game lines when given (the standard start has no
    /// moves to name).
    pub openings: Openings,
    pub limit: Duration,
    pub jobs: usize,
    pub record: Option<std::path::PathBuf>,
    /// Play one game at a time and print each move as it is played.
    pub show: bool,
}

impl MatchOptions {
    /// The arena the match is played in: A and B, the limit, the jobs and
    /// where games are recorded.
    #[must_use]
    pub fn arena(&self) -> RefereeArena {
        let entrants: Vec<Entrant> = ["A", "B"]
            .iter()
            .zip(&self.commands)
            .map(|(name, command)| Entrant {
                name: (*name).to_string(),
                command: command.clone(),
            })
            .collect();
        let mut arena = RefereeArena::new(entrants, self.limit, self.jobs, self.record.clone());
        arena.commands_named = true;
        arena
    }
}

/// Plays the match in `arena` (made by [`MatchOptions::arena`]) and prints
/// it to `out`.
pub fn run(
    options: &mut MatchOptions,
    arena: &RefereeArena,
    out: &mut impl Write,
) -> io::Result<()> {
    let specs = paired_games(0, 1, options.games, &mut options.openings);
    let mut tallies = [Tally::default(), Tally::default()];
    if options.show {
        // One game at a time on this thread, so that its moves can be
        // printed as they come.
        writeln!(out, "{LEGEND}")?;
        for (index, spec) in specs.iter().enumerate() {
            show_start(out, index + 1, spec, options)?;
            let mut shown = Ok(());
            let mut placed = 0;
            let (number, game) = arena.play_watched(spec, &mut |p: &Played| {
                if shown.is_ok() {
                    shown = show_move(out, p, &mut placed);
                }
            });
            shown?;
            let finished = Finished {
                number,
                index,
                spec,
                game: &game,
            };
            count_game(out, &mut tallies, &finished, options)?;
        }
    } else {
        let mut written = Ok(());
        arena.play_reporting(&specs, |f: &Finished| {
            if written.is_ok() {
                written = count_game(out, &mut tallies, f, options);
            }
        });
        written?;
    }
    writeln!(
        out,
        "\n   wins draws losses forfeits  score  mean-diff  slowest  mean-reply  program"
    )?;
    for (i, t) in tallies.iter().enumerate() {
        writeln!(
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
            options.commands[i]
        )?;
    }
    match elo_estimate(&tallies[0]) {
        // One game says nothing about a difference in strength.
        None if tallies[0].games < 2 => Ok(()),
        Some((elo, lo, hi)) => writeln!(
            out,
            "Elo A-B: {elo:+.0} (95% interval {lo:+.0} .. {hi:+.0})"
        ),
        None => writeln!(
            out,
            "Elo A-B: not estimable (fewer than 2 games, or all won or all lost)"
        ),
    }
}

/// Adds a finished game to both sides' tallies and reports it.
fn count_game(
    out: &mut impl Write,
    tallies: &mut [Tally; 2],
    f: &Finished,
    options: &MatchOptions,
) -> io::Result<()> {
    let a_color = if f.spec.black == 0 {
        Color::Black
    } else {
        Color::White
    };
    tallies[0].add(f.game, a_color);
    tallies[1].add(f.game, a_color.other());
    report_game(out, f, a_color, options)
}

/// `game 3/10: A white 40-24 B wins opening f5d6c3`.
fn report_game(
    out: &mut impl Write,
    f: &Finished,
    a_color: Color,
    options: &MatchOptions,
) -> io::Result<()> {
    let verdict = match f.game.winner() {
        None => "draw",
        Some(c) if c == a_color => "A wins",
        Some(_) => "B wins",
    };
    let opening = if f.spec.opening.moves.is_empty() {
        String::new()
    } else {
        format!(" opening {}", f.spec.opening.moves)
    };
    writeln!(
        out,
        "game {}/{}: A {} {} {verdict}{opening}",
        f.number,
        options.games,
        a_color.name(),
        f.game.result_text(),
    )
}

/// What `--show`'s diagrams mean, printed once before the first game.
const LEGEND: &str = "X black, O white, * a legal move for the side to move, \
                      [X] the disc just played";

/// Who plays which colour, and the position the game starts from.
fn show_start(
    out: &mut impl Write,
    n: usize,
    spec: &GameSpec,
    options: &MatchOptions,
) -> io::Result<()> {
    let name = |entrant: usize| {
        let player = ["A", "B"][entrant];
        format!("{player} ({})", options.commands[entrant])
    };
    writeln!(
        out,
        "\ngame {n}/{}: {} black, {} white",
        options.games,
        name(spec.black),
        name(spec.white)
    )?;
    let start = spec.opening.board;
    writeln!(out, "{} to move", spec.opening.to_move.name())?;
    writeln!(out, "{}", start.diagram(spec.opening.to_move))?;
    out.flush()
}

/// One move as it is played: numbered (passes are not moves, so are not
/// numbered), its reply time, the disc count, and the position with the
/// new disc in brackets.
fn show_move(out: &mut impl Write, p: &Played, placed: &mut u32) -> io::Result<()> {
    let took = p.took.as_millis();
    let Some(square) = p.square else {
        writeln!(out, "   {} passes ({took} ms)\n", p.color.name())?;
        return out.flush();
    };
    *placed += 1;
    let next = p.color.other();
    let (black, white) = p.board.colors(next);
    writeln!(
        out,
        "{:2}. {} {square} ({took} ms)   black {}, white {}",
        *placed,
        p.color.name(),
        black.count_ones(),
        white.count_ones()
    )?;
    writeln!(out, "{}", p.board.diagram_marking(next, Some(square)))?;
    out.flush()
}

/// Each program's totals over a match.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    pub forfeits: u32,
    /// Sum of disc differences from this program's side.
    pub margin: i64,
    pub games: u32,
    pub slowest: Duration,
    pub total_time: Duration,
    pub replies: u32,
}

impl Tally {
    pub fn add(&mut self, game: &Game, color: Color) {
        let i = color.index();
        self.games += 1;
        let margin = match color {
            Color::Black => game.black_margin(),
            Color::White => -game.black_margin(),
        };
        self.margin += i64::from(margin);
        match game.winner() {
            None if game.forfeited_by(color) => self.losses += 1,
            None => self.draws += 1,
            Some(c) if c == color => self.wins += 1,
            Some(_) => self.losses += 1,
        }
        if game.forfeited_by(color) {
            self.forfeits += 1;
        }
        for &t in &game.times[i] {
            self.slowest = self.slowest.max(t);
            self.total_time += t;
            self.replies += 1;
        }
    }

    /// Points as a fraction: a win 1, a draw one half.
    #[must_use]
    pub fn score(&self) -> f64 {
        if self.games == 0 {
            return 0.0;
        }
        (f64::from(self.wins) + 0.5 * f64::from(self.draws)) / f64::from(self.games)
    }

    #[must_use]
    pub fn mean_reply(&self) -> Duration {
        if self.replies == 0 {
            Duration::ZERO
        } else {
            self.total_time / self.replies
        }
    }
}

/// The Elo difference that a score fraction implies, and a 95% interval
/// from the per-game variance (win 1, draw 1/2, loss 0).
#[must_use]
pub fn elo_estimate(tally: &Tally) -> Option<(f64, f64, f64)> {
    let n = f64::from(tally.games);
    // At 0% or 100% the estimate is infinite: no interval to give.
    if tally.games < 2 || tally.wins == tally.games || tally.losses == tally.games {
        return None;
    }
    let s = tally.score();
    let elo = |p: f64| -400.0 * (1.0 / p.clamp(1e-6, 1.0 - 1e-6) - 1.0).log10();
    let mean_sq = (f64::from(tally.wins) + 0.25 * f64::from(tally.draws)) / n;
    let sd = ((mean_sq - s * s).max(0.0) / n).sqrt();
    Some((elo(s), elo(s - 1.96 * sd), elo(s + 1.96 * sd)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elo_of_an_even_score_is_zero() {
        let t = Tally {
            wins: 5,
            losses: 5,
            games: 10,
            ..Tally::default()
        };
        let (elo, lo, hi) = elo_estimate(&t).unwrap();
        assert!(elo.abs() < 1e-9);
        assert!(lo < 0.0 && hi > 0.0);
    }
}
