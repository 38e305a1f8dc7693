//! `reversi analyze`: what each move of a recorded game cost its player,
//! in discs, against the best move of the position: exact where the game
//! is near its end (the solver, from `exact_from` empties, within a time
//! per search when one is given), else by a deep selective search. The moves after which the result changed hands (a
//! win became a draw or a loss, a draw a loss) are the losing mistakes:
//! where a student sees the game was lost.
//!
//! The positions are searched from the last back to the first, as NBoard
//! analyses a game: the table then holds the end of the game when the
//! search reaches it from earlier positions.

use crate::records::ggf::GgfGame;
use crate::study::value::{move_value, solve_within, Reach, Value};
use reversi_core::bitboard::Square;
use reversi_core::board::{Board, Color};
use reversi_core::clock::Deadline;
use reversi_core::search::{Limits, Searcher, SolveKind, Stop, MIDGAME_T};
use std::fmt::Write as _;
use std::time::Instant;

/// What one move of the game was worth.
#[derive(Clone, Debug)]
pub struct MoveReport {
    /// From 1.
    pub number: usize,
    pub color: Color,
    /// `None`: a pass.
    pub played: Option<Square>,
    /// The best move found (`None`: the side had to pass).
    pub best: Option<Square>,
    /// The position's worth with the best move, for the mover.
    pub best_value: Value,
    /// What the move played was worth, for the mover.
    pub played_value: Value,
    /// The position's empties before the move.
    pub empties: u32,
    /// What the position was worth to the mover as the move before left
    /// it (the first move: its own best).
    pub left_value: Value,
    /// Whether the move changed the result: by this position's own values,
    /// the best move kept a better outcome (see [`NOISE_DISCS`]).
    pub lost_the_result: bool,
}

impl MoveReport {
    /// Discs lost against the best move (never below 0: an estimate may
    /// find the move played a little better than the one it chose).
    #[must_use]
    pub fn cost(&self) -> f64 {
        (self.best_value.discs() - self.played_value.discs()).max(0.0)
    }
}

/// How far apart two estimates must be before the move played is said to
/// have lost what the best kept: a search's estimates of one position at
/// one depth differ by about this much between sibling moves.
pub const NOISE_DISCS: f64 = 2.0;

/// Whether playing a move worth `played` instead of the best, worth
/// `best`, changed the result, by the values this analysis found at this
/// very position: the best kept a better outcome, and where either value
/// is an estimate, by at least [`NOISE_DISCS`].
fn lost(best: Value, played: Value) -> bool {
    let exact = matches!((best, played), (Value::Exact(_), Value::Exact(_)));
    outcome(played) < outcome(best) && (exact || best.discs() - played.discs() >= NOISE_DISCS)
}

/// -1 a loss, 0 a draw, 1 a win (an estimate within half a disc of 0
/// counts as a draw).
fn outcome(value: Value) -> i32 {
    match value {
        Value::Exact(d) => d.signum(),
        Value::Estimate(d) if d.abs() < 0.5 => 0,
        Value::Estimate(d) => d.signum() as i32,
    }
}

/// The best move of `board` (which has one) and its worth.
fn best_move(searcher: &mut Searcher, board: &Board, reach: Reach) -> (Square, Value) {
    if board.empty_count() <= reach.exact_from {
        match reach.solve_time {
            None => {
                let (square, score) = searcher.solve(board, SolveKind::Exact);
                return (square, Value::Exact(score));
            }
            Some(time) if board.moves().count_ones() > 1 => {
                let mut nodes = 0;
                let (square, value) = solve_within(searcher, board, time, &mut nodes);
                return (square.expect("a position with moves"), value);
            }
            Some(_) => {}
        }
    }
    let limits = Limits {
        stop: Stop::Depth(reach.depth),
        deadline: Deadline::unlimited(Instant::now()),
        solver: true,
        probcut_t: Some(MIDGAME_T),
    };
    let result = searcher.search(board, &limits);
    let square = result.best.expect("a position with a move");
    if board.moves().count_ones() == 1 {
        // A forced move: the search did not look; its worth is the reply's.
        let mut nodes = 0;
        let value = move_value(searcher, board, Some(square), reach, &mut nodes)
            .expect("no interrupt here");
        return (square, value);
    }
    (square, Value::of(&result))
}

/// Every move of `game`, last first searched, reported in order.
/// `progress` is told each move as it is done.
///
/// A move lost the result when the position was a win for its player
/// (or a draw) as the move before left it, and a draw or a loss (a loss)
/// as this move left it, and it was not the best move. Comparing with the
/// value the move before left, rather than with this position's own best,
/// names the move even where the search's estimates of two neighbouring
/// positions do not quite agree; near the end, where the figures are
/// exact, the two are the same.
pub fn analyze(
    game: &GgfGame,
    searcher: &mut Searcher,
    reach: Reach,
    mut progress: impl FnMut(),
) -> Result<Vec<MoveReport>, String> {
    let positions = game.positions()?;
    let mut reports: Vec<MoveReport> = Vec::with_capacity(game.moves.len());
    for (i, m) in game.moves.iter().enumerate().rev() {
        let board = positions[i];
        let report = if board.has_moves() {
            let (best, best_value) = best_move(searcher, &board, reach);
            let played_value = if m.square == Some(best) {
                best_value
            } else {
                let mut nodes = 0;
                move_value(searcher, &board, m.square, reach, &mut nodes)
                    .expect("no interrupt here")
            };
            MoveReport {
                number: i + 1,
                color: m.color,
                played: m.square,
                best: Some(best),
                best_value,
                played_value,
                empties: board.empty_count(),
                left_value: best_value,
                lost_the_result: false,
            }
        } else {
            // A forced pass costs nothing.
            let mut nodes = 0;
            let value =
                move_value(searcher, &board, None, reach, &mut nodes).expect("no interrupt here");
            MoveReport {
                number: i + 1,
                color: m.color,
                played: None,
                best: None,
                best_value: value,
                played_value: value,
                empties: board.empty_count(),
                left_value: value,
                lost_the_result: false,
            }
        };
        reports.push(report);
        progress();
    }
    reports.reverse();
    // What the position was worth to its mover as the move before left it.
    let mut before = reports.first().map(|r| r.best_value);
    for r in &mut reports {
        r.left_value = before.unwrap_or(r.best_value);
        r.lost_the_result = r.played != r.best && lost(r.best_value, r.played_value);
        before = Some(r.played_value.flipped());
    }
    Ok(reports)
}

fn place(square: Option<Square>) -> String {
    square.map_or("pass".to_string(), |s| s.to_string())
}

fn figure(value: Value) -> String {
    match value {
        Value::Exact(d) => format!("{d:+}"),
        Value::Estimate(d) => format!("{d:+.1}~"),
    }
}

fn outcome_name(value: Value) -> &'static str {
    match outcome(value) {
        1 => "a win",
        0 => "a draw",
        _ => "a loss",
    }
}

/// The report as a table, then the losing mistakes named.
#[must_use]
pub fn table(reports: &[MoveReport]) -> String {
    let mut out = String::from("   # side   move  best  best-worth  played-worth  cost\n");
    for r in reports {
        let _ = writeln!(
            out,
            "{:>4} {:<6} {:<5} {:<5} {:>10}  {:>12}  {:>4.1}{}",
            r.number,
            r.color.name(),
            place(r.played),
            place(r.best),
            figure(r.best_value),
            figure(r.played_value),
            r.cost(),
            if r.lost_the_result {
                "  <- lost the result"
            } else {
                ""
            }
        );
    }
    out.push_str("(worths in discs for the side that moved; ~ an estimate, else exact)\n");
    let losing: Vec<&MoveReport> = reports.iter().filter(|r| r.lost_the_result).collect();
    if losing.is_empty() {
        out.push_str("no move changed the result\n");
    }
    for r in losing {
        let _ = writeln!(
            out,
            "losing mistake: move {} ({} {}): best was {} ({}, {}); {} is {} ({}); cost {:.1} discs",
            r.number,
            r.color.name(),
            place(r.played),
            place(r.best),
            outcome_name(r.best_value),
            figure(r.best_value),
            place(r.played),
            outcome_name(r.played_value),
            figure(r.played_value),
            r.cost(),
        );
    }
    out
}

/// `game` with each move's evaluation (what it was worth to its player)
/// written into its GGF `/eval` part.
#[must_use]
pub fn annotated(game: &GgfGame, reports: &[MoveReport]) -> GgfGame {
    let mut game = game.clone();
    for (m, r) in game.moves.iter_mut().zip(reports) {
        m.eval = match r.played_value {
            Value::Exact(d) => d.to_string(),
            Value::Estimate(d) => format!("{d:.2}"),
        };
    }
    game
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_losing_mistake_is_one_by_the_positions_own_values_beyond_the_noise() {
        // Exact: any change of outcome.
        assert!(lost(Value::Exact(2), Value::Exact(-2)));
        assert!(lost(Value::Exact(0), Value::Exact(-2)));
        assert!(!lost(Value::Exact(-2), Value::Exact(-8)));
        // Estimates: only beyond the noise.
        assert!(lost(Value::Estimate(1.5), Value::Estimate(-1.0)));
        assert!(!lost(Value::Estimate(0.6), Value::Estimate(-0.9)));
        // The case once named: a win left (+0.8), but this position's best
        // (g5) was already a loss (-0.9) and h3 a loss too (-2.8).
        assert!(!lost(Value::Estimate(-0.9), Value::Estimate(-2.8)));
    }
}
