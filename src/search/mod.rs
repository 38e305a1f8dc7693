//! Iterative deepening over the midgame search, switching to the exact
//! endgame solver when the end is in reach.
//!
//! The search never prints: it reports each finished iteration through a
//! callback and returns a [`SearchResult`]; the protocol formats both.

pub mod endgame;
pub mod midgame;
pub mod probcut;

use crate::bitboard::{self, Square};
use crate::board::Board;
use crate::clock::{Deadline, POLL_INTERVAL};
use crate::eval::{Evaluator, Score, DISC};
use crate::movelist::MoveList;
use crate::tt::Table;
use std::time::Duration;

/// Greater than any score.
pub const INFINITY: Score = 30_000;

/// In a search bounded by depth or nodes (reproducible, no clock), the
/// solver takes over once the midgame search is this many plies short of
/// the end of the game: from there a full solve costs about as much as the
/// next midgame iterations would.
pub const SOLVE_GAP: u32 = 10;

/// Under a clock the solver is judged by measured speed instead: its
/// expected nodes (below) over the speed of the last solves must fit in
/// this share of the time left. Less than all of it, because the figures
/// are means and a solve that does not finish is wasted time.
pub const SOLVE_SHARE: f64 = 0.5;

/// Under a clock, midgame iterations to this depth come before any solve:
/// a few milliseconds that order the solver's root moves and leave a fair
/// move to play should the solve be cut off.
pub const DEPTH_BEFORE_SOLVE: u32 = 4;

/// ... and the midgame search also gets this share of the move's time
/// first: should the solve prove a loss or be cut off, the move played is
/// the midgame's, and depth 4 is a poor one.
pub const MIDGAME_SHARE_BEFORE_SOLVE: f64 = 0.1;

/// Solver speed assumed before one has been measured in this process,
/// nodes per second: about 60% of what `reversi solve` measures on FFO
/// #20-#39 on the 2-core machine (20 M), so a first guess on a loaded
/// machine errs on the side of not starting a solve it cannot finish.
pub const DEFAULT_SOLVE_NPS: f64 = 12.0e6;

/// Expected nodes of an exact solve (`wld` false) or a win/draw/loss solve
/// with `empties` empty squares. Fitted to `reversi bench --endgame-curve`
/// (BENCHMARKS.md): at 20 empties the mean exact solve took 11.6 M nodes
/// and the mean WLD solve 1.40 M; from 18 to 22 empties each extra empty
/// multiplied the exact mean by about 2.4, the WLD mean (noisier) by 1.6
/// to 3.2. Rounded up to 13 M and 2.5; 1.4 M and 2.2.
#[must_use]
pub fn solve_nodes(empties: u32, wld: bool) -> f64 {
    let (at_20, growth) = if wld {
        (1.4e6, 2.2f64)
    } else {
        (1.3e7, 2.5f64)
    };
    at_20 * growth.powi(empties as i32 - 20)
}

/// What the solver is asked at the root.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SolveKind {
    /// Win, draw or loss only: much cheaper, and enough to pick a winning
    /// move.
    Wld,
    Exact,
}

/// What bounds one search.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Stop after this many plies (a fixed-depth, reproducible search).
    pub depth: Option<u32>,
    /// Stop after about this many nodes (checked every `POLL_INTERVAL`).
    pub nodes: Option<u64>,
    pub deadline: Deadline,
    /// Whether the search may hand over to the exact solver (the bot:
    /// always; `reversi solve --depth-limit` wants a pure midgame estimate).
    pub solver: bool,
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
    /// Solved as a win, draw or loss only (`score` is then +1, 0 or -1
    /// disc): the move is a winning one when the score is positive.
    pub wld: bool,
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
    /// The node count at which `poll` next looks at the clock. A count, not
    /// a multiple of the interval: the last few empties count their nodes
    /// without polling, so the count may step over any given multiple.
    next_poll: u64,
    deadline: Deadline,
    /// The solver's measured speed, nodes per second, over this process.
    solve_nps: f64,
    /// In a selective solve, ProbCut's `t` (see `probcut`); `None`
    /// everywhere else.
    pub(crate) selectivity: Option<f64>,
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
            next_poll: POLL_INTERVAL,
            deadline: Deadline::unlimited(std::time::Instant::now()),
            solve_nps: DEFAULT_SOLVE_NPS,
            selectivity: None,
        }
    }

    /// Forgets the previous game.
    pub fn new_game(&mut self) {
        self.tt.clear();
    }

    /// Starts the node count (and its clock checks) from zero.
    pub(crate) fn reset_nodes(&mut self) {
        self.nodes = 0;
        self.next_poll = POLL_INTERVAL;
    }

    /// Counts a node and, about every `POLL_INTERVAL` nodes, looks at the clock
    /// and the node limit. Returns true once the search must stop.
    #[inline]
    pub(crate) fn poll(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes >= self.next_poll {
            self.next_poll = self.nodes + POLL_INTERVAL;
            if self.nodes >= self.node_limit || self.deadline.hard_expired() {
                self.stopped = true;
            }
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
        self.reset_nodes();
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
            wld: false,
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
        let clocked = limits.depth.is_none() && limits.nodes.is_none();
        let max_depth = limits.depth.unwrap_or(64).max(1);
        for depth in 1..=max_depth {
            let plan = if !limits.solver {
                None
            } else if clocked {
                let warmed_up = limits.deadline.elapsed().as_secs_f64()
                    >= MIDGAME_SHARE_BEFORE_SOLVE * limits.deadline.hard().as_secs_f64();
                if depth > DEPTH_BEFORE_SOLVE && warmed_up {
                    self.solve_plan(empties, &limits.deadline)
                } else {
                    None
                }
            } else {
                (depth + SOLVE_GAP >= empties).then_some(SolveKind::Exact)
            };
            if let Some(kind) = plan {
                let first = root.first().map(|&(sq, _)| sq);
                self.solve_at_root(board, first, kind, limits, &mut result, &mut on_progress);
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

    /// Which solve, if any, is expected to finish in the share of the time
    /// left that `SOLVE_SHARE` allows, at the speed measured so far.
    fn solve_plan(&self, empties: u32, deadline: &Deadline) -> Option<SolveKind> {
        let budget = deadline.remaining().as_secs_f64() * SOLVE_SHARE * self.solve_nps;
        if solve_nodes(empties, false) <= budget {
            Some(SolveKind::Exact)
        } else if solve_nodes(empties, true) <= budget {
            Some(SolveKind::Wld)
        } else {
            None
        }
    }

    /// Solves at the root, win/draw/loss first when that is all the time
    /// is expected to allow, then exactly with the time left. A result replaces `result`
    /// only once its solve has finished, so a solve cut off by the clock
    /// never throws away a win already proven or the midgame's move.
    fn solve_at_root(
        &mut self,
        board: &Board,
        first: Option<Square>,
        mut kind: SolveKind,
        limits: &Limits,
        result: &mut SearchResult,
        on_progress: &mut impl FnMut(&Progress),
    ) {
        let empties = board.empty_count();
        let mut window = (-64, 64);
        let mut first = first;
        loop {
            let (nodes_before, started) = (self.nodes, std::time::Instant::now());
            let (alpha, beta) = if kind == SolveKind::Wld {
                (-1, 1)
            } else {
                window
            };
            let solved = endgame::solve_root_window(self, board, first, alpha, beta);
            self.measure_solve_speed(self.nodes - nodes_before, started.elapsed());
            let Some((sq, score)) = solved else { return };
            let wld = kind == SolveKind::Wld && score != 0;
            // A lost position is lost whatever the move: the midgame's
            // choice, which keeps the most chances, stays.
            if !(wld && score < 0) {
                result.best = Some(sq);
            }
            result.score = if wld {
                score.signum() * DISC
            } else {
                score * DISC
            };
            result.exact = !wld;
            result.wld = wld;
            result.depth = empties;
            result.nodes = self.nodes;
            result.elapsed = limits.deadline.elapsed();
            on_progress(result);
            if !wld {
                return;
            }
            // Then the exact score, within the sign already proven, with
            // whatever time is left, whatever the estimate says: if the
            // clock cuts it off, the proven result stands.
            window = if score > 0 { (0, 64) } else { (-64, 0) };
            first = result.best;
            kind = SolveKind::Exact;
        }
    }

    /// Folds one solve's speed into the running figure; solves too short to
    /// time are skipped.
    fn measure_solve_speed(&mut self, nodes: u64, elapsed: Duration) {
        if elapsed >= Duration::from_millis(20) {
            let nps = nodes as f64 / elapsed.as_secs_f64();
            self.solve_nps = 0.7 * self.solve_nps + 0.3 * nps;
        }
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
            solver: true,
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
                solver: true,
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
