//! Iterative deepening over the midgame search, switching to the exact
//! endgame solver when the end is in reach.
//!
//! The search never prints: it reports each finished iteration through a
//! callback and returns a [`SearchResult`]; the protocol formats both.

pub mod endgame;
pub mod midgame;

use crate::bitboard::{self, Square};
use crate::board::Board;
use crate::clock::{Deadline, POLL_INTERVAL};
use crate::eval::{Evaluator, Score, DISC};
use crate::movelist::MoveList;
use crate::tt::Table;
use std::time::Duration;

/// Greater than any score.
pub const INFINITY: Score = 30_000;

/// The solver takes over once the midgame search is this many plies short of
/// the end of the game: from there a full solve costs about as much as the
/// next midgame iterations would.
pub const SOLVE_GAP: u32 = 10;

/// What bounds one search.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Stop after this many plies (a fixed-depth, reproducible search).
    pub depth: Option<u32>,
    /// Stop after about this many nodes (checked every `POLL_INTERVAL`).
    pub nodes: Option<u64>,
    pub deadline: Deadline,
}

/// The outcome of a search.
#[derive(Clone, Copy, Debug)]
pub struct SearchResult {
    /// `None` when the side to move must pass.
    pub best: Option<Square>,
    /// In hundredths of a disc; exact when `exact`.
    pub score: Score,
    /// Plies of the last finished iteration (0 for a forced reply).
    pub depth: u32,
    /// Solved to the end of the game.
    pub exact: bool,
    pub nodes: u64,
    pub elapsed: Duration,
}

/// What a finished iteration reports.
pub type Progress = SearchResult;

/// The searching engine: its table and counters persist across moves.
pub struct Searcher {
    pub(crate) tt: Table,
    pub(crate) eval: Evaluator,
    pub(crate) nodes: u64,
    pub(crate) stopped: bool,
    node_limit: u64,
    deadline: Deadline,
}

impl Searcher {
    #[must_use]
    pub fn new(hash_mb: usize, eval: Evaluator) -> Searcher {
        Searcher {
            tt: Table::new(hash_mb),
            eval,
            nodes: 0,
            stopped: false,
            node_limit: u64::MAX,
            deadline: Deadline::unlimited(std::time::Instant::now()),
        }
    }

    /// Forgets the previous game.
    pub fn new_game(&mut self) {
        self.tt.clear();
    }

    /// Counts a node and, every `POLL_INTERVAL` nodes, looks at the clock
    /// and the node limit. Returns true once the search must stop.
    #[inline]
    pub(crate) fn poll(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes.is_multiple_of(POLL_INTERVAL)
            && (self.nodes >= self.node_limit || self.deadline.hard_expired())
        {
            self.stopped = true;
        }
        self.stopped
    }

    /// A legal move at once, without searching: the best by a one-ply look.
    #[must_use]
    pub fn quick_move(&self, board: &Board) -> Option<Square> {
        bitboard::squares(board.moves()).max_by_key(|&sq| -self.eval.evaluate(&board.play(sq)))
    }

    /// Searches `board` for the side to move.
    pub fn search(
        &mut self,
        board: &Board,
        limits: &Limits,
        mut on_progress: impl FnMut(&Progress),
    ) -> SearchResult {
        self.nodes = 0;
        self.stopped = false;
        self.node_limit = limits.nodes.unwrap_or(u64::MAX);
        self.deadline = limits.deadline;
        self.tt.next_age();
        let moves = board.moves();
        let mut result = SearchResult {
            best: None,
            score: 0,
            depth: 0,
            exact: false,
            nodes: 0,
            elapsed: Duration::ZERO,
        };
        if moves == 0 {
            result.elapsed = limits.deadline.elapsed();
            return result;
        }
        result.best = self.quick_move(board);
        if moves.count_ones() == 1 {
            // One legal move: nothing to think about.
            result.elapsed = limits.deadline.elapsed();
            return result;
        }

        let mut root: MoveList<(Square, Score)> = bitboard::squares(moves)
            .map(|sq| (sq, -self.eval.evaluate(&board.play(sq))))
            .collect();
        root.sort_by_key(|&(sq, score)| (-score, sq));

        let empties = board.empty_count();
        let max_depth = limits.depth.unwrap_or(64).max(1);
        for depth in 1..=max_depth {
            if depth + SOLVE_GAP >= empties {
                let first = root.first().map(|&(sq, _)| sq);
                let solved = endgame::solve_root(self, board, first);
                if let Some((sq, score)) = solved {
                    result.best = Some(sq);
                    result.score = score * DISC;
                    result.depth = empties;
                    result.exact = true;
                    result.nodes = self.nodes;
                    result.elapsed = limits.deadline.elapsed();
                    on_progress(&result);
                }
                break;
            }
            let finished = self.root_iteration(board, &mut root, depth);
            if let Some((sq, score)) = finished {
                result.best = Some(sq);
                result.score = score;
                result.depth = depth;
                result.nodes = self.nodes;
                result.elapsed = limits.deadline.elapsed();
                on_progress(&result);
            }
            if self.stopped || limits.deadline.soft_expired() {
                break;
            }
        }
        result.nodes = self.nodes;
        result.elapsed = limits.deadline.elapsed();
        result
    }

    /// One iteration at the root: principal variation search over `root`,
    /// which is re-sorted best first. Returns the best move and its score,
    /// or `None` if the iteration was stopped before its first move was
    /// searched. A stopped iteration still returns the best of the moves it
    /// finished: they were searched deeper than the last iteration's best.
    fn root_iteration(
        &mut self,
        board: &Board,
        root: &mut MoveList<(Square, Score)>,
        depth: u32,
    ) -> Option<(Square, Score)> {
        let mut alpha = -INFINITY;
        let beta = INFINITY;
        let mut best: Option<(Square, Score)> = None;
        for i in 0..root.len() {
            let (sq, _) = root[i];
            let child = board.play(sq);
            let score = if i == 0 {
                -midgame::pvs(self, &child, -beta, -alpha, depth - 1)
            } else {
                let probe = -midgame::pvs(self, &child, -alpha - 1, -alpha, depth - 1);
                if probe > alpha && !self.stopped {
                    -midgame::pvs(self, &child, -beta, -alpha, depth - 1)
                } else {
                    probe
                }
            };
            if self.stopped {
                break;
            }
            root[i].1 = score;
            if score > alpha {
                alpha = score;
                best = Some((sq, score));
            }
        }
        if let Some((best_sq, _)) = best {
            // Best first, the rest by their (bound) scores: a stable order
            // keeps the search reproducible.
            root.sort_by_key(|&(sq, score)| (sq != best_sq, -score, sq));
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    fn fixed(depth: u32) -> Limits {
        Limits {
            depth: Some(depth),
            nodes: None,
            deadline: Deadline::unlimited(Instant::now()),
        }
    }

    #[test]
    fn fixed_depth_search_is_reproducible() {
        let mut board = Board::start();
        for _ in 0..10 {
            let a = Searcher::new(1, Evaluator::Hand).search(&board, &fixed(5), |_| {});
            let b = Searcher::new(1, Evaluator::Hand).search(&board, &fixed(5), |_| {});
            assert_eq!((a.best, a.score, a.nodes), (b.best, b.score, b.nodes));
            board = board.play(a.best.unwrap());
        }
    }

    #[test]
    fn search_returns_a_legal_move_under_a_tiny_deadline() {
        let mut rng = fastrand::Rng::with_seed(11);
        let mut searcher = Searcher::new(1, Evaluator::Hand);
        let mut board = Board::start();
        while !board.is_game_over() {
            if !board.has_moves() {
                board = board.pass();
                continue;
            }
            let limits = Limits {
                depth: None,
                nodes: None,
                deadline: Deadline::for_limit(Instant::now(), Duration::from_millis(8)),
            };
            let r = searcher.search(&board, &limits, |_| {});
            let sq = r.best.expect("a move exists");
            assert!(board.is_legal(sq));
            // Mix in random moves so the game goes through varied positions.
            board = if rng.bool() {
                board.play(sq)
            } else {
                let list: Vec<Square> = bitboard::squares(board.moves()).collect();
                board.play(list[rng.usize(..list.len())])
            };
        }
    }

    #[test]
    fn deep_enough_midgame_search_equals_the_solve() {
        // With depth >= empties the midgame search must be exact.
        let mut rng = fastrand::Rng::with_seed(21);
        for _ in 0..30 {
            let b = endgame::tests::random_position(&mut rng, 9);
            if !b.has_moves() {
                continue;
            }
            let mut s = Searcher::new(1, Evaluator::Hand);
            let exact = endgame::tests::negamax(&b);
            let score = midgame::pvs(&mut s, &b, -INFINITY, INFINITY, 12);
            assert_eq!(score, exact * DISC);
        }
    }
}
