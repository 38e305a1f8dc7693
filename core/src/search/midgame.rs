//! The midgame search: principal variation search (negamax alpha-beta with
//! null windows after the first move) to a fixed depth, with the
//! transposition table (and its enhanced cut-off) and move ordering.

use super::searcher::Searcher;
use super::{endgame, probcut};
use crate::bitboard;
use crate::board::Board;
use crate::eval::pattern::Indices;
use crate::eval::{Score, DISC};
use crate::movelist::MoveList;
use crate::tt::{Bound, DEPTH_EXACT, NO_MOVE};
use path::Path;

mod path;

/// Greater than any score.
pub const INFINITY: Score = 30_000;

/// From this depth on, moves are ordered by the evaluation of the position
/// they lead to; below it, by the cheaper mobility-and-square rule.
const EVAL_ORDERING_DEPTH: u32 = 3;

/// Where moves are ordered by the evaluation, each move the opponent
/// gets in reply (a corner counting twice) costs it this much, in
/// hundredths of a disc: a position that leaves the opponent few moves
/// tends to refute sooner than its evaluation alone says, as Edax's
/// ordering also has it. On the 40 positions of
/// `fixtures/midgame/logistello-32-48.obf` at depth 18 (`reversi solve
/// FILE --depth-limit 18`) 100, 150 and 200 took 6-9% fewer nodes than
/// none, 400 and 800 3-14% more; BENCHMARKS.md, "Move ordering in the
/// midgame".
const REPLY_COST: Score = 150;

/// From this depth on, a node first looks its children up in the table
/// (enhanced transposition cut-off): one already known to refute beta ends
/// the node before anything is searched. From depth 4 it saved about as
/// much; from depth 2 it took 1% fewer nodes and 11% more time (there the
/// children are frontier nodes, never stored, so there is little to find).
const ETC_DEPTH: u32 = 3;

/// The squares next to a corner on an edge (C) and diagonally (X).
const C_SQUARES: u64 = 0x4281_0000_0000_8142;
const X_SQUARES: u64 = 0x0042_0000_0000_4200;

/// A rough value of each square for ordering shallow nodes: corners first,
/// X- and C-squares last.
#[rustfmt::skip]
const SQUARE_ORDER: [Score; 64] = [
    90, -20, 10,  5,  5, 10, -20, 90,
   -20, -50, -2, -2, -2, -2, -50, -20,
    10,  -2,  1,  1,  1,  1,  -2, 10,
     5,  -2,  1,  0,  0,  1,  -2,  5,
     5,  -2,  1,  0,  0,  1,  -2,  5,
    10,  -2,  1,  1,  1,  1,  -2, 10,
   -20, -50, -2, -2, -2, -2, -50, -20,
    90, -20, 10,  5,  5, 10, -20, 90,
];

/// Searches `board` to `depth` plies within (`alpha`, `beta`); fail-soft.
/// Returns 0 once the searcher has stopped (the caller discards it).
/// With `s.selectivity` set, ProbCut prunes (see [`probcut`]). Where the
/// depth reaches the end of the game the exact solver takes over, except
/// in a selective search, which goes on with ProbCut down to
/// [`probcut::SELECTIVE_TO_EXACT`] empties.
pub(super) fn pvs(s: &mut Searcher, board: &Board, alpha: Score, beta: Score, depth: u32) -> Score {
    path::search(
        s,
        board,
        &Indices::new(board),
        board.moves(),
        alpha,
        beta,
        depth,
    )
}

/// [`pvs`] at a node whose pattern indices (`indices`, kept up to date
/// move by move for the evaluation) and legal moves (`moves`) the caller
/// has already found: its parent did, to order them. Compiled once for
/// each [`Path`], through which it reaches the other hot functions.
#[inline(always)]
fn node<P: Path>(
    s: &mut Searcher,
    board: &Board,
    indices: &Indices,
    moves: u64,
    mut alpha: Score,
    beta: Score,
    depth: u32,
) -> Score {
    if s.poll() {
        return 0;
    }
    if moves == 0 {
        let passed = board.pass();
        if !passed.has_moves() {
            return board.final_score() * DISC;
        }
        // A pass costs no depth: it is forced and the position hardly changes.
        let replies = passed.moves();
        return -P::node(s, &passed, &indices.pass(), replies, -beta, -alpha, depth);
    }
    if depth == 0 {
        return s.eval.evaluate_indexed(board, indices, moves);
    }
    let empties = board.empty_count();
    if depth >= empties {
        if s.selectivity.is_none() || empties <= probcut::SELECTIVE_TO_EXACT {
            // The search would reach the end anyway: the solver gets there
            // faster.
            let lo = alpha.div_euclid(DISC).clamp(-64, 63);
            let hi = (beta + DISC - 1).div_euclid(DISC).clamp(lo + 1, 64);
            return endgame::solve(s, board, lo, hi) * DISC;
        }
        // A selective solve, which goes on to the end with ProbCut. The
        // solver's stability cut-off holds here too, and is needed: with
        // the window near +-64 (FFO #39 is +64) ProbCut's margin leaves
        // the score range and cuts nothing (3 G nodes without it, 1.4 M
        // with it).
        if let Some(ceiling) = endgame::stability_ceiling(board, alpha.div_euclid(DISC)) {
            if ceiling * DISC <= alpha {
                return ceiling * DISC;
            }
        }
    }

    if depth == 1 {
        return P::frontier(s, board, indices, moves, beta);
    }

    let mut tt_move = NO_MOVE;
    if let Some(entry) = s.tt.probe(board) {
        tt_move = entry.best;
        if entry.depth >= depth as u8 {
            match entry.bound {
                Bound::Exact => return entry.score,
                Bound::Lower if entry.score >= beta => return entry.score,
                Bound::Upper if entry.score <= alpha => return entry.score,
                _ => {}
            }
        }
    }

    if let Some(score) = P::probcut_cut(s, board, indices, moves, alpha, beta, depth) {
        return score;
    }
    let mut list = P::order(s, board, indices, moves, tt_move, depth);
    if depth >= ETC_DEPTH {
        let children = list.iter().map(|&(index, child, _, _)| (index, child));
        let stored_depth = depth.min(u32::from(DEPTH_EXACT) - 1) as u8;
        if let Some(score) =
            s.tt.refutation(board, children, stored_depth - 1, stored_depth, beta)
        {
            return score;
        }
    }
    let original_alpha = alpha;
    let mut best_score = -INFINITY;
    let mut best_move = NO_MOVE;
    for i in 0..list.len() {
        let (index, child, replies) = pick_next(&mut list, i);
        let ix = indices.play(board, usize::from(index), &child);
        let score = if i == 0 {
            -P::node(s, &child, &ix, replies, -beta, -alpha, depth - 1)
        } else {
            let probe = -P::node(s, &child, &ix, replies, -alpha - 1, -alpha, depth - 1);
            if probe > alpha && probe < beta && !s.stopped {
                -P::node(s, &child, &ix, replies, -beta, -alpha, depth - 1)
            } else {
                probe
            }
        };
        if s.stopped {
            return 0;
        }
        if score > best_score {
            best_score = score;
            best_move = index;
            if score > alpha {
                alpha = score;
                if alpha >= beta {
                    break;
                }
            }
        }
    }
    let bound = if best_score <= original_alpha {
        Bound::Upper
    } else if best_score >= beta {
        Bound::Lower
    } else {
        Bound::Exact
    };
    // Depth 255 is reserved for solved entries.
    let depth = depth.min(u32::from(DEPTH_EXACT) - 1) as u8;
    // A node that failed low has no best move, only the move whose bound
    // came out highest; the table keeps the move an earlier search found
    // instead (7.5% fewer nodes at depth 18 on the Logistello positions,
    // 19% at depth 26 on the 36-empty position: BENCHMARKS.md, "Strength
    // III: a failed-low node keeps its best move").
    let best_move = if bound == Bound::Upper {
        NO_MOVE
    } else {
        best_move
    };
    s.tt.store(board, best_score, bound, depth, best_move);
    best_score
}

/// A node one ply from the leaves: each move's position is evaluated as
/// it comes, and the first that reaches `beta` ends the node. No table
/// and no ordering but the squares' kinds: a probe, a store and an
/// ordering pass that evaluates every move first cost more here than the
/// cut-offs they bring forward, and so did ordering by the opponent's
/// replies (15% fewer nodes, 30% more time); corners first and X-squares
/// last took 8% fewer nodes and 6% less time (BENCHMARKS.md, "Move
/// ordering in the midgame").
#[inline(always)]
fn frontier<P: Path>(
    s: &mut Searcher,
    board: &Board,
    indices: &Indices,
    moves: u64,
    beta: Score,
) -> Score {
    let mut best = -INFINITY;
    // Corners first, X-squares last: the cut-off, where there is one,
    // tends to come sooner, and each move tried costs an evaluation.
    let others = moves & !(bitboard::CORNERS | C_SQUARES | X_SQUARES);
    let squares = [
        moves & bitboard::CORNERS,
        others,
        moves & C_SQUARES,
        moves & X_SQUARES,
    ];
    for sq in squares.into_iter().flat_map(bitboard::squares) {
        let index = sq.index();
        let child = board.play_index(index);
        let replies = child.moves();
        let score = if replies == 0 {
            // a pass or the end: the general node knows both (at depth 0
            // the window plays no part)
            let ix = indices.play(board, index, &child);
            -P::node(s, &child, &ix, replies, -INFINITY, INFINITY, 0)
        } else {
            if s.poll() {
                return 0;
            }
            -s.eval
                .evaluate_after(board, indices, index, &child, replies)
        };
        if score > best {
            best = score;
            if best >= beta {
                break;
            }
        }
    }
    best
}

/// ProbCut at a node of a selective search (`s.selectivity` set): where
/// a shallow search clears the window by [`probcut::cut`]'s margins,
/// returns the bound the full search would most likely have failed at.
#[inline(always)]
fn probcut_cut<P: Path>(
    s: &mut Searcher,
    board: &Board,
    indices: &Indices,
    moves: u64,
    alpha: Score,
    beta: Score,
    depth: u32,
) -> Option<Score> {
    let t = s.selectivity?;
    // Not on the principal variation (an open window), as in Edax: its
    // nodes are few, and the score the root reports is theirs.
    if depth < probcut::MIN_DEPTH || beta - alpha > 1 {
        return None;
    }
    // The shallow searches cut too, and theirs once more, then no deeper
    // (Edax's limit).
    if s.probcut_nesting >= probcut::NESTING {
        return None;
    }
    let cut = probcut::cut(t, board.empty_count(), depth);
    s.probcut_nesting += 1;
    let high = beta + cut.above;
    let low = alpha - cut.below;
    let guess = s.eval.evaluate_indexed(board, indices, moves);
    let result = if high <= 64 * DISC
        && guess >= beta - cut.high_gate
        && P::node(s, board, indices, moves, high - 1, high, cut.shallow) >= high
    {
        Some(beta)
    } else if low >= -64 * DISC
        && guess < alpha + cut.low_gate
        && P::node(s, board, indices, moves, low, low + 1, cut.shallow) <= low
    {
        Some(alpha)
    } else {
        None
    };
    s.probcut_nesting -= 1;
    result
}

/// (square, position after it, the opponent's moves there, ordering key):
/// higher keys are searched first.
type Candidate = (u8, Board, u64, Score);

#[inline(always)]
fn order<P: Path>(
    s: &Searcher,
    board: &Board,
    indices: &Indices,
    moves: u64,
    tt_move: u8,
    depth: u32,
) -> MoveList<Candidate> {
    bitboard::squares(moves)
        .map(|sq| {
            let index = sq.index();
            let child = board.play_index(index);
            if depth >= ETC_DEPTH {
                s.tt.prefetch(&child);
            }
            let replies = child.moves();
            let key = if index as u8 == tt_move {
                INFINITY
            } else if depth >= EVAL_ORDERING_DEPTH {
                let reply_count = replies.count_ones() + (replies & bitboard::CORNERS).count_ones();
                -s.eval
                    .evaluate_after(board, indices, index, &child, replies)
                    - REPLY_COST * reply_count as Score
            } else {
                SQUARE_ORDER[index] - 16 * replies.count_ones() as Score
            };
            (index as u8, child, replies, key)
        })
        .collect()
}

/// Moves the best remaining candidate to position `i` and returns it. A
/// selection step per move is cheaper than a full sort when a cut-off comes
/// early, as it usually does.
#[inline]
fn pick_next(list: &mut MoveList<Candidate>, i: usize) -> (u8, Board, u64) {
    let mut best = i;
    for j in i + 1..list.len() {
        if list[j].3 > list[best].3 {
            best = j;
        }
    }
    list.swap(i, best);
    (list[i].0, list[i].1, list[i].2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::Evaluator;
    use crate::testing::random_position;

    /// Plain negamax to `depth` with the searcher's evaluation, passing as
    /// the search does (a pass costs no depth).
    fn plain(s: &Searcher, board: &Board, depth: u32) -> Score {
        if !board.has_moves() {
            let passed = board.pass();
            if !passed.has_moves() {
                return board.final_score() * DISC;
            }
            return -plain(s, &passed, depth);
        }
        if depth == 0 {
            return s.eval.evaluate(board);
        }
        bitboard::squares(board.moves())
            .map(|sq| -plain(s, &board.play(sq), depth - 1))
            .max()
            .expect("a move")
    }

    #[test]
    fn full_width_search_equals_plain_negamax() {
        // Iterations 1 to 6 on one table, as the bot deepens: the
        // ordering, the table and its enhanced cut-off may only change how
        // fast the score is found. (A position's depth to go is the same
        // wherever it is met in one search, since every move adds a disc,
        // so an earlier iteration's entries are never deep enough to cut;
        // from 6 plies on, positions met again by other move orders give
        // the enhanced cut-off entries to use.)
        let mut rng = fastrand::Rng::with_seed(21);
        let mut s = Searcher::new(1, Evaluator::Pattern);
        for _ in 0..12 {
            let empties = 24 + rng.u32(..16);
            let board = random_position(&mut rng, empties);
            if !board.has_moves() {
                continue;
            }
            s.new_game();
            for depth in 1..=6 {
                let searched = pvs(&mut s, &board, -INFINITY, INFINITY, depth);
                assert_eq!(searched, plain(&s, &board, depth), "depth {depth}");
            }
        }
    }

    #[test]
    fn both_paths_search_the_same_tree() {
        // The fast path is the portable one compiled for more
        // instructions: the same score from the same number of nodes, with
        // ProbCut and without, where this processor runs both.
        #[cfg(target_arch = "x86_64")]
        if path::fast::available() {
            let mut rng = fastrand::Rng::with_seed(31);
            for _ in 0..40 {
                let empties = 20 + rng.u32(..30);
                let board = random_position(&mut rng, empties);
                let (indices, moves) = (Indices::new(&board), board.moves());
                for selectivity in [None, Some(probcut::MIDGAME_T)] {
                    let run = |fast: bool| {
                        let mut s = Searcher::new(1, Evaluator::Pattern);
                        s.selectivity = selectivity;
                        let score = if fast {
                            // SAFETY: the processor has the features (checked above).
                            unsafe {
                                path::fast::node(
                                    &mut s, &board, &indices, moves, -INFINITY, INFINITY, 7,
                                )
                            }
                        } else {
                            path::Portable::node(
                                &mut s, &board, &indices, moves, -INFINITY, INFINITY, 7,
                            )
                        };
                        (score, s.nodes)
                    };
                    assert_eq!(run(true), run(false));
                }
            }
        }
    }

    #[test]
    fn one_ply_is_the_best_evaluated_move() {
        // The frontier node against a plain one-ply maximum: equal in an
        // open window, and on the right side of a null window.
        let mut rng = fastrand::Rng::with_seed(12);
        let mut s = Searcher::new(1, Evaluator::Pattern);
        for _ in 0..300 {
            let empties = 14 + rng.u32(..40);
            let board = random_position(&mut rng, empties);
            if !board.has_moves() {
                continue;
            }
            let best = plain(&s, &board, 1);
            assert_eq!(pvs(&mut s, &board, -INFINITY, INFINITY, 1), best);
            assert!(pvs(&mut s, &board, best - 1, best, 1) >= best);
            assert!(pvs(&mut s, &board, best, best + 1, 1) <= best);
        }
    }
}
