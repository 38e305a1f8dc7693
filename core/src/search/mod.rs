//! The search: iterative deepening over a midgame search, handing over to
//! the exact endgame solver when the end is in reach.
//!
//! Layers, each using only those before it:
//! 1. `searcher`: the state every layer works on (table, evaluation,
//!    node count, the clock it polls);
//! 2. `probcut`: ProbCut's margins; `endgame`: the exact solver;
//! 3. `midgame`: principal variation search, handing over to the solver
//!    at the end of the game, and making ProbCut's cuts;
//! 4. `root`: iterative deepening under [`Limits`], the switch to the
//!    solver, and the preparation of a cold solve;
//! 5. this module: the front door. The bot calls [`Searcher::search`]; the
//!    tools (solve, bench, train) call the methods below and nothing
//!    deeper, so the layers stay free to change.
//!
//! The search never prints: it returns a [`SearchResult`], and the callers
//! format it.

mod endgame;
mod midgame;
mod probcut;
mod root;
mod searcher;

pub use midgame::INFINITY;
pub use probcut::MIDGAME_T;
pub use root::{Limits, ScoreKind, SearchResult, SolveKind, Stop};
pub use searcher::Searcher;

use crate::bitboard::Square;
use crate::board::Board;
use crate::eval::Score;

impl Searcher {
    /// Solves `board` (the side to move has a move) from a cold start: a
    /// short midgame search and selective solves fill the table first.
    /// Returns the best move and the exact score in discs, or with
    /// [`SolveKind::Wld`] a score whose sign alone is exact.
    pub fn solve(&mut self, board: &Board, kind: SolveKind) -> (Square, i32) {
        let (alpha, beta) = match kind {
            SolveKind::Exact => (-64, 64),
            SolveKind::Wld => (-1, 1),
        };
        self.unlimit();
        root::solve_root(self, board, None, alpha, beta).expect("no clock, no node limit")
    }

    /// The exact final disc difference of any position, for the side to
    /// move (passing if it must), by the plain solver.
    pub fn exact_score(&mut self, board: &Board) -> i32 {
        self.unlimit();
        if board.has_moves() {
            endgame::solve(self, board, -64, 64)
        } else if board.is_game_over() {
            board.final_score()
        } else {
            -endgame::solve(self, &board.pass(), -64, 64)
        }
    }

    /// The exact score of every legal move (the OBF way), best first.
    pub fn move_scores(&mut self, board: &Board) -> Vec<(Square, i32)> {
        self.unlimit();
        endgame::move_scores(self, board)
    }

    /// The principal variation of a position whose exact score is `score`
    /// (`None` for a pass). Cheap right after a solve of that position,
    /// whose table answers most of it.
    pub fn principal_variation(&mut self, board: &Board, score: i32) -> Vec<Option<Square>> {
        self.unlimit();
        endgame::principal_variation(self, board, score)
    }

    /// The full-width midgame score of `board` at `depth` plies, in
    /// hundredths of a disc (exact where the depth reaches the end). The
    /// table carries over between calls, so calling it for depths 0, 1, 2
    /// ... is iterative deepening.
    pub fn midgame_score(&mut self, board: &Board, depth: u32) -> Score {
        self.unlimit();
        midgame::pvs(self, board, -INFINITY, INFINITY, depth)
    }

    /// Nodes searched since the last [`Searcher::forget`] or search.
    #[must_use]
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Empties the table (keeping its pages) and zeroes the node count: the
    /// next solve starts from nothing, as a timed one should.
    pub fn forget(&mut self) {
        self.tt.wipe();
        self.reset_nodes();
    }

    /// The tools' calls run with no clock or node limit, whatever the last
    /// search had.
    fn unlimit(&mut self) {
        self.stopped = false;
        self.node_limit = u64::MAX;
        self.deadline = crate::clock::Deadline::unlimited(std::time::Instant::now());
    }
}
