//! The root: iterative deepening under [`Limits`], the hand-over to the
//! exact solver when the end is in reach (timed by the solver's measured
//! speed under a clock), and the preparation of a cold solve.
//!
//! Under a clock the iterations go on until the hard stop: each reply has
//! its own second and time left over is lost, so a new iteration starts
//! whenever the last one ends before the stop, as Edax's do. One cut off
//! is not wasted: its finished root moves count (`root_iteration`), and
//! its table entries serve the next reply. Against the rule before (start
//! one only when a quarter of its expected time fitted), self-play at
//! 100 ms gained 25 Elo over 400 games (BENCHMARKS.md, "Strength III: the
//! whole second").

use super::endgame;
use super::midgame::{pvs, INFINITY};
use super::probcut;
use super::searcher::Searcher;
use crate::bitboard::{self, Square};
use crate::board::Board;
use crate::clock::Deadline;
use crate::eval::{Evaluator, Score, DISC};
use crate::movelist::MoveList;
use crate::tt::NO_MOVE;
use std::time::Duration;

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

/// Expected nodes of a solve of `kind` with `empties` empty squares. Fitted to `reversi bench --endgame-curve`
/// (BENCHMARKS.md): at 20 empties the mean exact solve took 11.6 M nodes
/// and the mean WLD solve 1.40 M; from 18 to 22 empties each extra empty
/// multiplied the exact mean by about 2.4, the WLD mean (noisier) by 1.6
/// to 3.2. Rounded up to 13 M and 2.5; 1.4 M and 2.2.
#[must_use]
pub fn solve_nodes(empties: u32, kind: SolveKind) -> f64 {
    let (at_20, growth) = match kind {
        SolveKind::Wld => (1.4e6, 2.2f64),
        SolveKind::Exact => (1.3e7, 2.5f64),
    };
    at_20 * growth.powi(empties as i32 - 20)
}

/// A solve that no midgame search preceded (`reversi solve`) starts with
/// one, to depth empties - `WARM_UP_GAP`, at most `WARM_UP_MAX_DEPTH`: the
/// table then holds a best move for the first plies of the likely lines.
/// On FFO #20-#39 it more than halved the nodes; the gap was chosen there
/// (BENCHMARKS.md): 13 took 140 M nodes against 150 M at 14 in the same
/// time. The cap: without one #39 (26 empties) spent 10 M midgame nodes
/// warming up for a 1.4 M node solve; 8 against 10 took 3.5% fewer nodes
/// on FFO #20-#39 and 9% fewer on the 12 archive positions of 23 empties
/// of `fixtures/endgame/wthor-23.obf` (7 and 9 did no better).
pub const WARM_UP_GAP: u32 = 13;
pub const WARM_UP_MAX_DEPTH: u32 = 8;

/// What the solver is asked at the root.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SolveKind {
    /// Win, draw or loss only: much cheaper, and enough to pick a winning
    /// move.
    Wld,
    /// The exact final disc difference.
    Exact,
}

/// What ends a search (besides the deadline, which always can).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// Deepen until the deadline says stop: the bot in play. The switch to
    /// the solver is timed by the solver's measured speed.
    Clock,
    /// This many plies. With an unlimited deadline the search is exactly
    /// reproducible; the switch to the solver comes `SOLVE_GAP` plies
    /// short of the end.
    Depth(u32),
    /// About this many nodes (checked every `POLL_INTERVAL`); reproducible
    /// like `Depth`.
    Nodes(u64),
}

/// What bounds one search.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// What ends the search: the clock, a depth or a node count.
    pub stop: Stop,
    /// When the search must stop; unlimited for a reproducible search.
    pub deadline: Deadline,
    /// Whether the search may hand over to the exact solver (the bot:
    /// always; `reversi solve --depth-limit` wants a pure midgame estimate).
    pub solver: bool,
    /// ProbCut's `t` in the midgame iterations ([`probcut::MIDGAME_T`]
    /// unless told otherwise with `--probcut T`), or `None` for a
    /// full-width search (`--probcut off`). Having reached the end of the
    /// game, a selective search tightens its cuts level by level before
    /// the exact solve.
    pub probcut_t: Option<f64>,
}

impl Limits {
    /// A fixed-depth search with no clock: the same board always gives the
    /// same result.
    #[must_use]
    pub fn depth(depth: u32) -> Limits {
        Limits {
            stop: Stop::Depth(depth),
            deadline: Deadline::unlimited(std::time::Instant::now()),
            solver: true,
            probcut_t: Some(probcut::MIDGAME_T),
        }
    }
}

/// What a search's score is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScoreKind {
    /// The midgame search's estimate, in hundredths of a disc.
    Estimate,
    /// Solved to the end of the game: the exact disc difference (times
    /// `DISC`).
    Exact,
    /// Solved as a win, draw or loss only: the score is +1, 0 or -1 disc,
    /// and the move is a winning one when it is positive.
    Wld,
}

/// The outcome of a search.
#[derive(Clone, Copy, Debug)]
pub struct SearchResult {
    /// `None` when the side to move must pass.
    pub best: Option<Square>,
    /// In hundredths of a disc; see `kind`.
    pub score: Score,
    /// What `score` is: an estimate, a win/draw/loss bound or exact.
    pub kind: ScoreKind,
    /// Plies of the last finished iteration (0 for a forced reply).
    pub depth: u32,
    /// ProbCut's `t` in that iteration; `None` when it pruned nothing.
    pub selectivity: Option<f64>,
    /// Nodes searched.
    pub nodes: u64,
    /// Time taken.
    pub elapsed: Duration,
}

impl SearchResult {
    /// The selectivity of the last iteration as Edax shows it: the share
    /// of ProbCut's cuts expected to be right, in percent; `None` for a
    /// full-width or exact result.
    #[must_use]
    pub fn confidence(&self) -> Option<u32> {
        self.selectivity.map(probcut::confidence)
    }
}

/// A selective search deepens this many plies an iteration, as Edax's
/// does: every iteration then has the parity of the last, and the scores
/// the iterations hand each other (the move searched first, the table's
/// bounds) are not swung by the side that moved last: even with the
/// refitted evaluation, depth 4 less depth 3 is -2.6 discs on average at
/// 52 empties (BENCHMARKS.md, "Selective search"). Against one ply at
/// a time: in self-play at 100 ms, +23 Elo in 200 games and +10 in 400;
/// against Edax at 1 s, 38.5% in 100 games where one ply at a time scored
/// 35.0% in 200 (and 42.5% in 100 since, with the faster move generator).
pub const SELECTIVE_STEP: u32 = 2;

/// The iterations of a search, as (plies, ProbCut's `t`): one ply more
/// each up to `max_depth` when full width; when selective,
/// [`SELECTIVE_STEP`] plies more each, all of `max_depth`'s parity (even
/// under a clock), at `probcut_t` until the plies
/// reach the `empties` of the root, then to the end of the game at that
/// `t` and at each tighter one of [`probcut::ENDGAME_LEVELS`] (when
/// `max_depth` allows the end). Those last are numbered 2 plies
/// apart past `empties` (any depth from `empties` on searches to the end),
/// so that the table never takes a looser level's bounds for a tighter
/// one's. An exact solve, if any, comes after: the caller's plan, or under
/// a clock whatever time the last level leaves.
fn iterations(empties: u32, max_depth: u32, probcut_t: Option<f64>) -> Vec<(u32, Option<f64>)> {
    // With so few empties a search to the end is the exact solver's anyway.
    let Some(t) = probcut_t.filter(|_| empties > probcut::SELECTIVE_TO_EXACT) else {
        return (1..=max_depth).map(|depth| (depth, None)).collect();
    };
    let first = 2 - max_depth % 2;
    let mut plan: Vec<(u32, Option<f64>)> = (first..empties.min(max_depth + 1))
        .step_by(SELECTIVE_STEP as usize)
        .map(|depth| (depth, Some(t)))
        .collect();
    if max_depth >= empties {
        let tighter = probcut::ENDGAME_LEVELS
            .into_iter()
            .filter(|&level| level > t);
        let levels = std::iter::once(t).chain(tighter);
        for (level, t) in levels.enumerate() {
            plan.push((empties + 2 * level as u32, Some(t)));
        }
    }
    plan
}

/// Solves the whole game from `board` within (`alpha`, `beta`) (with
/// (-1, 1) it only tells a win from a draw from a loss, which is much
/// faster). Returns the best move and its score in discs, or `None` when
/// stopped by the clock. `first` is searched first (the midgame's best
/// guess); without one, a short midgame search ([`WARM_UP_GAP`]) and
/// selective solves ([`probcut::LEVELS`]) run first to fill the table with
/// best moves: the preparation of a cold solve.
pub(super) fn solve_root(
    s: &mut Searcher,
    board: &Board,
    first: Option<Square>,
    alpha: i32,
    beta: i32,
) -> Option<(Square, i32)> {
    let mut first = first.map_or(NO_MOVE, |sq| sq.index() as u8);
    let empties = board.empty_count();
    if first == NO_MOVE && empties > WARM_UP_GAP {
        // No midgame search came first: run a short one, for the table's
        // best moves along the likely lines.
        for depth in 1..=(empties - WARM_UP_GAP).min(WARM_UP_MAX_DEPTH) {
            pvs(s, board, -INFINITY, INFINITY, depth);
        }
        // Then selective solves (ProbCut), which leave a best move at the
        // nodes of the likely lines all the way down to the exact solver's
        // leaves. Each level stores its results 2 plies deeper, so that the
        // next does not take the looser level's bounds for its own.
        //
        // Not before a win/draw/loss solve, already cheap: on FFO #20-#39
        // the passes saved 6% of its nodes and cost 10% more time. Nor
        // with the hand evaluation: ProbCut's margins are the trained
        // evaluation's measured errors (with the hand one: 384 M nodes
        // against 316 M without the passes).
        let selective = empties >= probcut::SELECTIVE_FROM_EMPTIES
            && beta - alpha > 2
            && s.eval == Evaluator::Pattern;
        if selective {
            for (level, &t) in probcut::LEVELS.iter().enumerate() {
                s.selectivity = Some(t);
                let depth = empties + 2 * level as u32;
                pvs(s, board, -INFINITY, INFINITY, depth);
                s.selectivity = None;
            }
        }
        first = s.tt.probe(board).map_or(NO_MOVE, |e| e.best);
    }
    endgame::solve_root(s, board, first, alpha, beta)
}

impl Searcher {
    /// Searches `board` for the side to move.
    pub fn search(&mut self, board: &Board, limits: &Limits) -> SearchResult {
        self.reset_nodes();
        self.stopped = false;
        self.probcut_nesting = 0;
        self.node_limit = match limits.stop {
            Stop::Nodes(n) => n,
            Stop::Clock | Stop::Depth(_) => u64::MAX,
        };
        self.deadline = limits.deadline;
        self.tt.next_age();
        let moves = board.moves();
        let mut result = SearchResult {
            best: None,
            score: 0,
            kind: ScoreKind::Estimate,
            depth: 0,
            selectivity: None,
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
        let clocked = limits.stop == Stop::Clock;
        let max_depth = match limits.stop {
            Stop::Depth(depth) => depth.max(1),
            Stop::Clock | Stop::Nodes(_) => 64,
        };
        // ProbCut's margins are the trained evaluation's measured errors.
        let probcut_t = limits.probcut_t.filter(|_| self.eval == Evaluator::Pattern);
        let schedule = iterations(empties, max_depth, probcut_t);
        let levels = schedule
            .iter()
            .filter(|&&(depth, _)| depth >= empties)
            .count();
        // Selective iterations to the end finished, and whether a solve ran.
        let (mut levels_done, mut solved) = (0, false);
        for (depth, selectivity) in schedule {
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
                self.solve_at_root(board, first, kind, limits, &mut result);
                solved = true;
                break;
            }
            self.selectivity = selectivity;
            let finished = self.root_iteration(board, &mut root, depth);
            self.selectivity = None;
            if let Some((sq, score)) = finished {
                result.best = Some(sq);
                result.score = score;
                result.depth = depth.min(empties);
                result.selectivity = selectivity;
                result.nodes = self.nodes;
                result.elapsed = limits.deadline.elapsed();
            }
            if self.stopped {
                break;
            }
            if depth >= empties {
                if selectivity.is_none() {
                    // Full width to the end: the solver's exact score.
                    result.kind = ScoreKind::Exact;
                    break;
                }
                levels_done += 1;
            }
        }
        if clocked && limits.solver && !solved && levels > 0 && levels_done == levels {
            // Every level to the end is done and time is left: the solve
            // the plan thought too dear may still finish, and if the clock
            // cuts it off the last level's move stands. Win/draw/loss
            // first unless the exact solve is expected to fit.
            let kind = self
                .solve_plan(empties, &limits.deadline)
                .unwrap_or(SolveKind::Wld);
            self.solve_at_root(board, result.best, kind, limits, &mut result);
        }
        result.nodes = self.nodes;
        result.elapsed = limits.deadline.elapsed();
        result
    }

    /// Which solve, if any, is expected to finish in the share of the time
    /// left that `SOLVE_SHARE` allows, at the speed measured so far.
    fn solve_plan(&self, empties: u32, deadline: &Deadline) -> Option<SolveKind> {
        let budget = deadline.remaining().as_secs_f64() * SOLVE_SHARE * self.solve_nps;
        [SolveKind::Exact, SolveKind::Wld]
            .into_iter()
            .find(|&kind| solve_nodes(empties, kind) <= budget)
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
            let solved = solve_root(self, board, first, alpha, beta);
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
            result.kind = if wld {
                ScoreKind::Wld
            } else {
                ScoreKind::Exact
            };
            result.depth = empties;
            result.selectivity = None;
            result.nodes = self.nodes;
            result.elapsed = limits.deadline.elapsed();
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
    /// So does a move whose null-window probe beat that best when the clock
    /// stops its search with the full window: its score is then the
    /// probe's, a lower bound.
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
                -pvs(self, &child, -beta, -alpha, depth - 1)
            } else {
                let probe = -pvs(self, &child, -alpha - 1, -alpha, depth - 1);
                if probe > alpha && !self.stopped {
                    let exact = -pvs(self, &child, -beta, -alpha, depth - 1);
                    if self.stopped {
                        // Cut off before its score is known, the move has
                        // still beaten the best so far at this depth.
                        root[i].1 = probe;
                        best = Some((sq, probe));
                        break;
                    }
                    exact
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
    use crate::testing::{negamax, random_position};
    use std::time::Instant;

    #[test]
    fn fixed_depth_search_is_reproducible() {
        let mut board = Board::start();
        for _ in 0..10 {
            let a = Searcher::new(1, Evaluator::Hand).search(&board, &Limits::depth(5));
            let b = Searcher::new(1, Evaluator::Hand).search(&board, &Limits::depth(5));
            assert_eq!((a.best, a.score, a.nodes), (b.best, b.score, b.nodes));
            board = board.play(a.best.unwrap());
        }
    }

    #[test]
    fn selective_iterations_deepen_then_tighten_at_the_end() {
        let t = Some(probcut::MIDGAME_T);
        let plan = iterations(20, 64, t);
        // Under a clock: the even depths short of the end.
        assert_eq!(plan.len(), 9 + 1 + probcut::ENDGAME_LEVELS.len());
        assert!(plan[..9]
            .iter()
            .enumerate()
            .all(|(i, &step)| step == (2 * i as u32 + 2, t)));
        let ends: Vec<(u32, Option<f64>)> = plan[9..].to_vec();
        let expected: Vec<(u32, Option<f64>)> = std::iter::once(probcut::MIDGAME_T)
            .chain(probcut::ENDGAME_LEVELS)
            .enumerate()
            .map(|(level, t)| (20 + 2 * level as u32, Some(t)))
            .collect();
        assert_eq!(ends, expected);
        // A depth limit short of the end: midgame iterations only, of
        // the limit's parity.
        assert_eq!(iterations(20, 8, t), [2, 4, 6, 8].map(|d| (d, t)).to_vec());
        assert_eq!(iterations(20, 7, t), [1, 3, 5, 7].map(|d| (d, t)).to_vec());
        // Full width: every depth.
        assert_eq!(
            iterations(20, 8, None),
            (1..=8).map(|d| (d, None)).collect::<Vec<_>>()
        );
        // Full width when not selective, or so near the end that the
        // solver takes every search to the end.
        assert!(iterations(20, 30, None).iter().all(|&(_, t)| t.is_none()));
        // A looser t than the first end level keeps all the levels; a
        // tighter one only those still tighter.
        assert_eq!(
            iterations(20, 64, Some(0.6)).len(),
            9 + 1 + probcut::ENDGAME_LEVELS.len()
        );
        assert_eq!(iterations(20, 64, Some(1.8)).len(), 9 + 1 + 2);
        assert!(iterations(probcut::SELECTIVE_TO_EXACT, 30, t)
            .iter()
            .all(|&(_, t)| t.is_none()));
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
                stop: Stop::Clock,
                deadline: Deadline::for_limit(Instant::now(), Duration::from_millis(8)),
                solver: true,
                probcut_t: Some(probcut::MIDGAME_T),
            };
            let r = searcher.search(&board, &limits);
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
            let b = random_position(&mut rng, 9);
            if !b.has_moves() {
                continue;
            }
            let mut s = Searcher::new(1, Evaluator::Hand);
            let exact = negamax(&b);
            let score = pvs(&mut s, &b, -INFINITY, INFINITY, 12);
            assert_eq!(score, exact * DISC);
        }
    }

    #[test]
    fn the_selective_solves_before_a_cold_solve_never_change_its_score() {
        // Without a first move, `solve_root` runs the warm-up and the
        // ProbCut passes first: their bounds are guesses, which may order
        // moves but never decide a score.
        let mut rng = fastrand::Rng::with_seed(21);
        let mut warm = Searcher::new(4, Evaluator::DEFAULT);
        let mut solved = 0;
        while solved < 6 {
            let empties = probcut::SELECTIVE_FROM_EMPTIES + rng.u32(..2);
            let b = random_position(&mut rng, empties);
            if !b.has_moves() {
                continue;
            }
            let mut plain = Searcher::new(4, Evaluator::DEFAULT);
            let expected = endgame::solve(&mut plain, &b, -64, 64);
            let (best, score) = solve_root(&mut warm, &b, None, -64, 64).expect("no clock");
            assert_eq!(score, expected);
            assert_eq!(
                -endgame::solve(&mut plain, &b.play(best), -64, 64),
                expected
            );
            assert_eq!(warm.selectivity, None);
            solved += 1;
        }
    }

    #[test]
    fn a_selective_solve_that_cannot_cut_is_exact() {
        // With a margin wider than any score ProbCut never fires, so what
        // is left of the selective solve (its own stability cut-off, the
        // hand-over to the solver) must give the exact score, or, with a
        // null window, fail on the same side as the exact score.
        // Lopsided positions, where the stability cut-off comes into play.
        let mut rng = fastrand::Rng::with_seed(5);
        let mut tried = 0;
        while tried < 40 {
            let b = random_position(&mut rng, 14);
            let mut plain = Searcher::new(4, Evaluator::DEFAULT);
            let exact = endgame::solve(&mut plain, &b, -64, 64);
            if exact.abs() < 24 {
                continue;
            }
            tried += 1;
            let empties = b.empty_count();
            let mut s = Searcher::new(4, Evaluator::DEFAULT);
            s.selectivity = Some(1e6);
            let full = pvs(&mut s, &b, -INFINITY, INFINITY, empties);
            assert_eq!(full, exact * DISC);
            for edge in [exact - 2, exact, exact + 1] {
                let beta = edge * DISC;
                let mut s = Searcher::new(4, Evaluator::DEFAULT);
                s.selectivity = Some(1e6);
                let probe = pvs(&mut s, &b, beta - 1, beta, empties);
                assert_eq!(probe >= beta, exact >= edge, "{exact} against {edge}");
            }
        }
    }
}
