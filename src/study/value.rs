//! What a position is worth to the side to move, by search: the figure
//! behind NBoard's hints and analysis and behind `reversi analyze`.
//!
//! The bot's search answers "which move", and takes shortcuts that say
//! nothing about the worth of a position (a single legal move is played
//! at once, a pass is not searched). Here every position gets a figure:
//! passes and forced moves are followed, a finished game is counted, near
//! the end the solver gives the exact disc difference, and elsewhere a
//! selective search of the depth asked for gives an estimate.

use reversi_core::bitboard::squares;
use reversi_core::board::Board;
use reversi_core::clock::Deadline;
use reversi_core::eval::DISC;
use reversi_core::search::{Limits, ScoreKind, Searcher, Stop, MIDGAME_T};
use std::time::{Duration, Instant};

/// A position's worth to the side to move, in discs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    /// The final disc difference with perfect play from here.
    Exact(i32),
    /// The search's estimate.
    Estimate(f64),
}

impl Value {
    #[must_use]
    pub fn discs(self) -> f64 {
        match self {
            Value::Exact(d) => f64::from(d),
            Value::Estimate(d) => d,
        }
    }

    #[must_use]
    pub fn is_exact(self) -> bool {
        matches!(self, Value::Exact(_))
    }

    /// A search's result as a worth: exact where it solved the position.
    #[must_use]
    pub fn of(result: &reversi_core::search::SearchResult) -> Value {
        match result.kind {
            ScoreKind::Exact => Value::Exact(result.score / DISC),
            ScoreKind::Estimate | ScoreKind::Wld => {
                Value::Estimate(f64::from(result.score) / f64::from(DISC))
            }
        }
    }

    /// The same worth seen by the other side.
    #[must_use]
    pub fn flipped(self) -> Value {
        match self {
            Value::Exact(d) => Value::Exact(-d),
            Value::Estimate(d) => Value::Estimate(-d),
        }
    }
}

/// How deep to look: exactly from `exact_from` empties on, else a
/// selective search of `depth` plies. With a `solve_time`, a solve that
/// has not finished within it gives way to the search's estimate (a
/// figure that then depends on the machine's speed); without one, every
/// solve runs to its end and the figures replay exactly.
#[derive(Clone, Copy, Debug)]
pub struct Reach {
    pub depth: u32,
    pub exact_from: u32,
    pub solve_time: Option<Duration>,
}

/// A search of `board` that solves it when it can: within `time` when
/// one is given (the last finished iteration's estimate otherwise), and
/// always to a fixed depth first. The search's best move and the worth.
pub fn solve_within(
    searcher: &mut Searcher,
    board: &Board,
    time: Duration,
    nodes: &mut u64,
) -> (Option<reversi_core::bitboard::Square>, Value) {
    let limits = Limits {
        stop: Stop::Depth(64),
        deadline: Deadline::exactly(Instant::now(), time),
        solver: true,
        probcut_t: Some(MIDGAME_T),
    };
    let result = searcher.search(board, &limits);
    *nodes += result.nodes;
    (result.best, Value::of(&result))
}

/// `board`'s worth to its side to move, or `None` when the search was
/// interrupted (see [`Searcher::interrupt_on`]). The nodes searched are
/// added to `nodes`.
pub fn value(
    searcher: &mut Searcher,
    board: &Board,
    reach: Reach,
    nodes: &mut u64,
) -> Option<Value> {
    if board.is_game_over() {
        return Some(Value::Exact(board.final_score()));
    }
    if !board.has_moves() {
        return value(searcher, &board.pass(), reach, nodes).map(Value::flipped);
    }
    let several = board.moves().count_ones() > 1;
    if let (true, true, Some(time)) = (
        board.empty_count() <= reach.exact_from,
        several,
        reach.solve_time,
    ) {
        // The clock, not an interrupt (none is raised with a solve time),
        // may stop this search: its estimate stands.
        return Some(solve_within(searcher, board, time, nodes).1);
    }
    if board.empty_count() <= reach.exact_from {
        let before = searcher.nodes();
        let score = searcher.exact_score(board);
        *nodes += searcher.nodes().saturating_sub(before);
        return (!searcher.was_stopped()).then_some(Value::Exact(score));
    }
    let moves = board.moves();
    if moves.count_ones() == 1 {
        let only = squares(moves).next().expect("one move");
        let deeper = Reach {
            depth: reach.depth.saturating_sub(1).max(1),
            ..reach
        };
        return value(searcher, &board.play(only), deeper, nodes).map(Value::flipped);
    }
    let limits = Limits {
        stop: Stop::Depth(reach.depth.max(1)),
        deadline: Deadline::unlimited(Instant::now()),
        solver: true,
        probcut_t: Some(MIDGAME_T),
    };
    let result = searcher.search(board, &limits);
    *nodes += result.nodes;
    if searcher.was_stopped() {
        return None;
    }
    Some(Value::of(&result))
}

/// The worth of playing `square` (`None`: passing) in `board`, to the side
/// that plays it.
pub fn move_value(
    searcher: &mut Searcher,
    board: &Board,
    square: Option<reversi_core::bitboard::Square>,
    reach: Reach,
    nodes: &mut u64,
) -> Option<Value> {
    let after = match square {
        Some(sq) => board.play(sq),
        None => board.pass(),
    };
    let deeper = Reach {
        depth: reach.depth.saturating_sub(1).max(1),
        ..reach
    };
    value(searcher, &after, deeper, nodes).map(Value::flipped)
}
