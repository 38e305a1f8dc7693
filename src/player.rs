//! The players the binary can be: the searching engine and two simple
//! built-in opponents (`--player random|greedy`) for testing and matches.

use crate::bitboard::{self, Square};
use crate::board::Board;
use crate::clock::Deadline;
use crate::eval::{Evaluator, DISC};
use crate::movegen::flips;
use crate::search::{Limits, SearchResult, Searcher};
use std::time::{Duration, Instant};

/// A move (or `None` to pass) and one line saying how it was chosen.
pub struct Choice {
    pub square: Option<Square>,
    pub info: String,
}

pub trait Player {
    /// Called at every `START`.
    fn new_game(&mut self);
    /// Chooses a move for the side to move; `started` is when the request
    /// was read.
    fn choose(&mut self, board: &Board, started: Instant) -> Choice;
}

/// The searching engine.
pub struct Engine {
    searcher: Searcher,
    depth: Option<u32>,
    nodes: Option<u64>,
    move_time: Duration,
}

impl Engine {
    #[must_use]
    pub fn new(
        hash_mb: usize,
        eval: Evaluator,
        depth: Option<u32>,
        nodes: Option<u64>,
        move_time: Duration,
    ) -> Engine {
        Engine {
            searcher: Searcher::new(hash_mb, eval),
            depth,
            nodes,
            move_time,
        }
    }

    fn limits(&self, started: Instant) -> Limits {
        // A fixed depth or node count makes the search reproducible, so the
        // clock is left out unless the user asked for both.
        let deadline = if self.depth.is_some() || self.nodes.is_some() {
            Deadline::unlimited(started)
        } else {
            Deadline::for_limit(started, self.move_time)
        };
        Limits {
            depth: self.depth,
            nodes: self.nodes,
            deadline,
            solver: true,
        }
    }
}

/// `depth 9 score +1.25 nodes 123456 time 512ms`, or `... exact +4 ...`
/// when solved, or `... solved win ...` when solved as win/draw/loss only.
#[must_use]
pub fn describe(result: &SearchResult) -> String {
    let score = if result.exact {
        format!("exact {:+}", result.score / DISC)
    } else if result.wld {
        let outcome = match result.score.signum() {
            1 => "win",
            0 => "draw",
            _ => "loss",
        };
        format!("solved {outcome}")
    } else {
        format!("score {:+.2}", f64::from(result.score) / f64::from(DISC))
    };
    let ms = result.elapsed.as_secs_f64() * 1000.0;
    let knps = if ms > 0.0 {
        result.nodes as f64 / ms
    } else {
        0.0
    };
    format!(
        "depth {} {} nodes {} time {:.0}ms knps {:.0}",
        result.depth, score, result.nodes, ms, knps
    )
}

impl Player for Engine {
    fn new_game(&mut self) {
        self.searcher.new_game();
    }

    fn choose(&mut self, board: &Board, started: Instant) -> Choice {
        let limits = self.limits(started);
        let result = self.searcher.search(board, &limits, |_| {});
        Choice {
            square: result.best,
            info: describe(&result),
        }
    }
}

/// Seeds from the clock and process id, for players given no `--seed`.
#[must_use]
pub fn entropy_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    nanos ^ (u64::from(std::process::id()) << 32)
}

/// Plays a uniformly random legal move.
pub struct RandomPlayer {
    rng: fastrand::Rng,
}

impl RandomPlayer {
    #[must_use]
    pub fn new(seed: u64) -> RandomPlayer {
        RandomPlayer {
            rng: fastrand::Rng::with_seed(seed),
        }
    }
}

impl Player for RandomPlayer {
    fn new_game(&mut self) {}

    fn choose(&mut self, board: &Board, _started: Instant) -> Choice {
        let moves: Vec<Square> = bitboard::squares(board.moves()).collect();
        let square = if moves.is_empty() {
            None
        } else {
            Some(moves[self.rng.usize(..moves.len())])
        };
        Choice {
            square,
            info: "random".to_string(),
        }
    }
}

/// Plays the move that turns over the most discs; ties broken at random
/// (seeded).
pub struct GreedyPlayer {
    rng: fastrand::Rng,
}

impl GreedyPlayer {
    #[must_use]
    pub fn new(seed: u64) -> GreedyPlayer {
        GreedyPlayer {
            rng: fastrand::Rng::with_seed(seed),
        }
    }
}

impl Player for GreedyPlayer {
    fn new_game(&mut self) {}

    fn choose(&mut self, board: &Board, _started: Instant) -> Choice {
        let scored: Vec<(Square, u32)> = bitboard::squares(board.moves())
            .map(|sq| {
                (
                    sq,
                    flips(sq.index(), board.player, board.opponent).count_ones(),
                )
            })
            .collect();
        let most = scored.iter().map(|&(_, n)| n).max().unwrap_or(0);
        let best: Vec<Square> = scored
            .iter()
            .filter(|&&(_, n)| n == most)
            .map(|&(sq, _)| sq)
            .collect();
        let square = if best.is_empty() {
            None
        } else {
            Some(best[self.rng.usize(..best.len())])
        };
        Choice {
            square,
            info: format!("greedy flips {most}"),
        }
    }
}
