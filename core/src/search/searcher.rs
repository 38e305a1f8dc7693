//! The searcher's state: the transposition table, the evaluation, the node
//! count, and the clock and node limit it polls. Every layer of the search
//! works on a `&mut Searcher`; the tools reach it only through the front
//! door in [`super`].

use crate::bitboard::{self, Square};
use crate::board::Board;
use crate::clock::{Deadline, POLL_INTERVAL};
use crate::eval::Evaluator;
use crate::tt::Table;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Solver speed assumed before one has been measured in this process,
/// nodes per second: about half of what `reversi solve` measures on FFO
/// #20-#39 on the 2-core machine (25.6 M), so a first guess on a loaded
/// machine errs on the side of not starting a solve it cannot finish.
pub const DEFAULT_SOLVE_NPS: f64 = 12.0e6;

/// The searching engine: its table and counters persist across moves.
pub struct Searcher {
    pub(super) tt: Table,
    pub(super) eval: Evaluator,
    pub(super) nodes: u64,
    pub(super) stopped: bool,
    pub(super) node_limit: u64,
    /// The node count at which `poll` next looks at the clock. A count, not
    /// a multiple of the interval: the last few empties count their nodes
    /// without polling, so the count may step over any given multiple.
    next_poll: u64,
    pub(super) deadline: Deadline,
    /// The solver's measured speed, nodes per second, over this process.
    pub(super) solve_nps: f64,
    /// In a selective solve, ProbCut's `t` (see `probcut`); `None`
    /// everywhere else.
    pub(super) selectivity: Option<f64>,
    /// How many of ProbCut's shallow searches the search is inside.
    pub(super) probcut_nesting: u32,
    /// Raised by another thread to stop the search at its next look at
    /// the clock (an engine told to stop thinking); `None` in the bot.
    interrupt: Option<Arc<AtomicBool>>,
}

impl Searcher {
    /// A searcher with a table of `hash_mb` MiB and the evaluation `eval`.
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
            probcut_nesting: 0,
            interrupt: None,
        }
    }

    /// Stops every later search once `flag` is raised, as the clock would
    /// (the result is then whatever the search had; the caller decides
    /// whether to use it). The flag stays raised until the caller lowers it.
    pub fn interrupt_on(&mut self, flag: Arc<AtomicBool>) {
        self.interrupt = Some(flag);
    }

    /// Whether the last search was stopped by the clock, the node limit or
    /// the interrupt before it finished.
    #[must_use]
    pub fn was_stopped(&self) -> bool {
        self.stopped
    }

    /// The transposition table's size in MiB, and whether that is less
    /// than was asked for (the memory could not be had).
    #[must_use]
    pub fn table_size(&self) -> (usize, bool) {
        (self.tt.megabytes(), self.tt.short())
    }

    /// Forgets the previous game.
    pub fn new_game(&mut self) {
        self.tt.clear();
    }

    /// Starts the node count (and its clock checks) from zero.
    pub(super) fn reset_nodes(&mut self) {
        self.nodes = 0;
        self.next_poll = POLL_INTERVAL;
    }

    /// Counts a node and, about every `POLL_INTERVAL` nodes, looks at the clock
    /// and the node limit. Returns true once the search must stop.
    #[inline]
    pub(super) fn poll(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes >= self.next_poll {
            self.next_poll = self.nodes + POLL_INTERVAL;
            let interrupted = self
                .interrupt
                .as_ref()
                .is_some_and(|flag| flag.load(Ordering::Relaxed));
            if self.nodes >= self.node_limit || self.deadline.hard_expired() || interrupted {
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
}
