//! The exact endgame solver: the final disc difference with perfect play.
//!
//! Layered by the number of empty squares, with one dispatcher, [`solve`]:
//! - more than [`DEPTH_TO_SHALLOW`] empties: [`deep`], with the
//!   transposition table, enhanced transposition and stability cut-offs,
//!   and moves ordered fewest opponent replies first, the evaluation joining
//!   in from [`EVAL_ORDER_EMPTIES`];
//! - 5 to [`DEPTH_TO_SHALLOW`] empties: [`shallow`], no table, moves in odd
//!   regions first (parity ordering), each empty square tried directly
//!   instead of generating moves;
//! - 4, 3 and 2 empties: [`solve_4`], [`solve_3`], [`solve_2`], written out
//!   for their count (parity order fixed once at 4 and 3);
//! - 1 empty: [`last_square`], only counting flips;
//! - 0 empties: the disc count.
//!
//! Scores here are whole discs (-64..=64), fail-soft.

use super::searcher::Searcher;
use crate::bitboard::{self, Square};
use crate::board::Board;
use crate::eval::stability::stable_discs;
use crate::eval::DISC;
use crate::movegen::flips;
use crate::movelist::MoveList;
use crate::tt::{Bound, DEPTH_EXACT, NO_MOVE};

/// At or below this many empties the solver drops the table and move
/// ordering: the bookkeeping costs more than it saves in such small trees
/// (FFO #20-#39: 7.8 s at 6, 7.2 s at 7, 7.9 s at 8; BENCHMARKS.md).
pub const DEPTH_TO_SHALLOW: u32 = 7;

/// Below any final score: "no move tried yet" for a node's best score.
const NO_SCORE: i32 = -65;

/// The four 4x4 quarters of the board, for parity ordering.
const QUADRANTS: [u64; 4] = [
    0x0000_0000_0f0f_0f0f,
    0x0000_0000_f0f0_f0f0,
    0x0f0f_0f0f_0000_0000,
    0xf0f0_f0f0_0000_0000,
];

/// Solves at the root within (`alpha`, `beta`): `first` (a square index,
/// or [`NO_MOVE`]) first, then the rest in the solver's order. Returns the
/// best move and its score in discs, or `None` when stopped.
pub(super) fn solve_root(
    s: &mut Searcher,
    board: &Board,
    first: u8,
    alpha: i32,
    beta: i32,
) -> Option<(Square, i32)> {
    let mut list = ordered(s, board, board.moves(), first);
    list.sort_by_key(|&(sq, _, key)| (-key, sq));
    root_pass(s, &list, alpha, beta)
}

/// The moves at the root, in the order given, with principal variation
/// search within (`alpha`, `beta`).
fn root_pass(
    s: &mut Searcher,
    list: &MoveList<Candidate>,
    mut alpha: i32,
    beta: i32,
) -> Option<(Square, i32)> {
    let mut best: Option<(Square, i32)> = None;
    for (i, &(index, child, _)) in list.iter().enumerate() {
        let score = if i == 0 {
            -solve(s, &child, -beta, -alpha)
        } else {
            let probe = -solve(s, &child, -alpha - 1, -alpha);
            if probe > alpha && probe < beta && !s.stopped {
                -solve(s, &child, -beta, -alpha)
            } else {
                probe
            }
        };
        if s.stopped {
            return None;
        }
        if best.is_none() || score > best.expect("set").1 {
            best = Some((Square::new(index).expect("index < 64"), score));
        }
        if score > alpha {
            alpha = score;
            if alpha >= beta {
                break;
            }
        }
    }
    best
}

/// The principal variation of a position whose exact score is `score`:
/// at each step, the first move (the table's first) whose exact score is
/// `score`; `None` for a pass. Each check is a narrow-window solve that the
/// table, still holding the solve, mostly answers at once.
pub(super) fn principal_variation(
    s: &mut Searcher,
    board: &Board,
    score: i32,
) -> Vec<Option<Square>> {
    let mut line = Vec::new();
    let (mut board, mut score) = (*board, score);
    while !board.is_game_over() {
        if !board.has_moves() {
            line.push(None);
            board = board.pass();
            score = -score;
            continue;
        }
        let first = s.tt.probe(&board).map_or(NO_MOVE, |e| e.best);
        let mut list = ordered(s, &board, board.moves(), first);
        list.sort_by_key(|&(sq, _, key)| (-key, sq));
        let next = list
            .iter()
            .find(|(_, child, _)| -solve(s, child, -score - 1, -score + 1) == score);
        let Some(&(index, child, _)) = next else {
            break; // cannot happen when `score` is exact
        };
        line.push(Square::new(index));
        board = child;
        score = -score;
    }
    line
}

/// The exact score of every legal move (the OBF way), best first.
pub(super) fn move_scores(s: &mut Searcher, board: &Board) -> Vec<(Square, i32)> {
    let mut scores: Vec<(Square, i32)> = bitboard::squares(board.moves())
        .map(|sq| (sq, -solve(s, &board.play(sq), -64, 64)))
        .collect();
    scores.sort_by_key(|&(sq, score)| (-score, sq));
    scores
}

/// The exact score within (`alpha`, `beta`), dispatched on the empties.
#[inline]
pub fn solve(s: &mut Searcher, board: &Board, alpha: i32, beta: i32) -> i32 {
    match board.empty_count() {
        0 => {
            s.nodes += 1;
            board.final_score()
        }
        1 => last_square(s, board),
        2 => {
            let empties = board.empties();
            let x1 = empties.trailing_zeros() as usize;
            let x2 = 63 - empties.leading_zeros() as usize;
            solve_2(s, board, alpha, beta, x1, x2, false)
        }
        3 => solve_3(s, board, alpha, beta, false),
        4 => solve_4(s, board, alpha, beta, false),
        n if n <= DEPTH_TO_SHALLOW => shallow(s, board, alpha, beta, false),
        _ => deep(s, board, alpha, beta),
    }
}

/// One empty square: whoever can move there does, else the game is over.
fn last_square(s: &mut Searcher, board: &Board) -> i32 {
    last_square_at(s, board, board.empties().trailing_zeros() as usize)
}

/// [`last_square`] when the caller already knows where the empty square is.
#[inline]
fn last_square_at(s: &mut Searcher, board: &Board, index: usize) -> i32 {
    s.nodes += 1;
    let p = board.player.count_ones() as i32;
    let f = flips(index, board.player, board.opponent).count_ones() as i32;
    if f > 0 {
        // player gets the square and f discs: (p + 1 + f) - (63 - p - f)
        return 2 * (p + f) - 62;
    }
    let g = flips(index, board.opponent, board.player).count_ones() as i32;
    if g > 0 {
        // the opponent moves there: p - g against 64 - (p - g)
        return 2 * (p - g) - 64;
    }
    board.final_score()
}

/// Two empties, `x1` and `x2`: each move leaves one, solved directly.
/// `passed`: the other side has just passed.
fn solve_2(
    s: &mut Searcher,
    board: &Board,
    alpha: i32,
    beta: i32,
    x1: usize,
    x2: usize,
    passed: bool,
) -> i32 {
    s.nodes += 1;
    let mut best = NO_SCORE;
    let f = flips(x1, board.player, board.opponent);
    if f != 0 {
        best = -last_square_at(s, &board.play_flips(x1, f), x2);
        if best >= beta {
            return best;
        }
    }
    let f = flips(x2, board.player, board.opponent);
    if f != 0 {
        best = best.max(-last_square_at(s, &board.play_flips(x2, f), x1));
    }
    if best > NO_SCORE {
        best
    } else if passed {
        board.final_score()
    } else {
        -solve_2(s, &board.pass(), -beta, -alpha, x1, x2, true)
    }
}

/// The squares of the quadrants holding an odd number of `empties`.
#[inline]
fn odd_quadrants(empties: u64) -> u64 {
    QUADRANTS
        .into_iter()
        .filter(|&q| (empties & q).count_ones() % 2 == 1)
        .fold(0, |odd, q| odd | q)
}

/// The `N` empty squares in the order to try them: those in quadrants with
/// an odd number of empties first (the last move into a region tends to be
/// the good one), and within each group by [`SQUARE_CLASSES`]. A rank per
/// square and an insertion sort: for 3 or 4 squares, cheaper than
/// [`ordered_classes`]'s ten sets.
#[inline]
fn parity_order<const N: usize>(empties: u64) -> [usize; N] {
    let odd = odd_quadrants(empties);
    let mut order = [0usize; N];
    let mut keys = [0u8; N];
    let mut rest = empties;
    for n in 0..N {
        let sq = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        let key = SQUARE_RANK[sq] + if odd >> sq & 1 == 1 { 0 } else { 8 };
        // insertion: squares of equal key stay in index order
        let mut i = n;
        while i > 0 && keys[i - 1] > key {
            keys[i] = keys[i - 1];
            order[i] = order[i - 1];
            i -= 1;
        }
        keys[i] = key;
        order[i] = sq;
    }
    order
}

/// Each square's place in [`SQUARE_CLASSES`] (0 for a corner .. 4 for X).
const SQUARE_RANK: [u8; 64] = {
    let mut rank = [0u8; 64];
    let mut sq = 0;
    while sq < 64 {
        let mut class = 0;
        while SQUARE_CLASSES[class] >> sq & 1 == 0 {
            class += 1;
        }
        rank[sq] = class as u8;
        sq += 1;
    }
    rank
};

/// Three empties: each move hands [`solve_2`] the other two.
fn solve_3(s: &mut Searcher, board: &Board, mut alpha: i32, beta: i32, passed: bool) -> i32 {
    s.nodes += 1;
    let [a, b, c] = parity_order::<3>(board.empties());
    let mut best = NO_SCORE;
    for (x, rest1, rest2) in [(a, b, c), (b, a, c), (c, a, b)] {
        let f = flips(x, board.player, board.opponent);
        if f == 0 {
            continue;
        }
        let score = -solve_2(
            s,
            &board.play_flips(x, f),
            -beta,
            -alpha,
            rest1,
            rest2,
            false,
        );
        if score > best {
            best = score;
            if score >= beta {
                return best;
            }
            alpha = alpha.max(score);
        }
    }
    best_or_pass(s, board, best, alpha, beta, passed, solve_3)
}

/// Four empties, in parity order, each move handing over to [`solve_3`].
fn solve_4(s: &mut Searcher, board: &Board, mut alpha: i32, beta: i32, passed: bool) -> i32 {
    s.nodes += 1;
    let order = parity_order::<4>(board.empties());
    let mut best = NO_SCORE;
    for x in order {
        let f = flips(x, board.player, board.opponent);
        if f == 0 {
            continue;
        }
        let score = -solve_3(s, &board.play_flips(x, f), -beta, -alpha, false);
        if score > best {
            best = score;
            if score >= beta {
                return best;
            }
            alpha = alpha.max(score);
        }
    }
    best_or_pass(s, board, best, alpha, beta, passed, solve_4)
}

/// A solve's result once its moves are tried: the best score, or, when
/// the side to move had none (`best` still [`NO_SCORE`]), the final count if the
/// other side has just passed too, else `again` for the other side after
/// a pass.
#[inline(always)]
fn best_or_pass(
    s: &mut Searcher,
    board: &Board,
    best: i32,
    alpha: i32,
    beta: i32,
    passed: bool,
    again: fn(&mut Searcher, &Board, i32, i32, bool) -> i32,
) -> i32 {
    if best > NO_SCORE {
        best
    } else if passed {
        board.final_score()
    } else {
        -again(s, &board.pass(), -beta, -alpha, true)
    }
}

/// The best final score the side to move can still reach (the opponent's
/// stable discs stay the opponent's), counted only where it could come
/// down to `alpha`: the opponent's stable discs are at most all its discs,
/// so elsewhere the (costly) count could not cut and `None` comes back.
#[inline]
pub(super) fn stability_ceiling(board: &Board, alpha: i32) -> Option<i32> {
    (alpha >= 64 - 2 * board.opponent.count_ones() as i32)
        .then(|| 64 - 2 * stable_discs(board.opponent, board.player).count_ones() as i32)
}

/// A side without a move passes; two passes end the game.
#[inline]
fn no_move(s: &mut Searcher, board: &Board, alpha: i32, beta: i32) -> i32 {
    let passed = board.pass();
    if passed.has_moves() {
        -solve(s, &passed, -beta, -alpha)
    } else {
        board.final_score()
    }
}

/// Few empties: plain alpha-beta without move generation: each empty
/// square is tried directly, those in regions with an odd number of empties
/// first (the last move in a region is usually worth having), then by
/// [`SQUARE_CLASSES`] (7% fewer nodes on FFO #20-#39 than by index).
/// `passed`: the other side has just passed.
fn shallow(s: &mut Searcher, board: &Board, mut alpha: i32, beta: i32, passed: bool) -> i32 {
    if s.poll() {
        return 0;
    }
    let empties = board.empties();
    // The stability cut-off of [`deep`], tried only where alpha is high for
    // so few empties: elsewhere the count costs more than its cut-offs save
    // (FFO #20-#39: 153 M nodes in 7.0 s without it, 147 M in 7.1 s on
    // the opponent's disc count alone, 150 M in 6.8 s with this bound too).
    if alpha >= 2 * empties.count_ones() as i32 - 2 {
        if let Some(ceiling) = stability_ceiling(board, alpha) {
            if ceiling <= alpha {
                return ceiling;
            }
        }
    }
    let odd = odd_quadrants(empties);
    let mut best = NO_SCORE;
    for set in ordered_classes(empties, odd) {
        for sq in bitboard::squares(set) {
            let index = sq.index();
            let f = flips(index, board.player, board.opponent);
            if f == 0 {
                continue;
            }
            let child = board.play_flips(index, f);
            let score = if child.empty_count() == 4 {
                -solve_4(s, &child, -beta, -alpha, false)
            } else {
                -shallow(s, &child, -beta, -alpha, false)
            };
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    if alpha >= beta {
                        return best;
                    }
                }
            }
        }
    }
    best_or_pass(s, board, best, alpha, beta, passed, shallow)
}

/// The squares by how good a move there tends to be: corners; edges but
/// for the squares next to a corner; the middle but for the squares
/// diagonally next to a corner; next to a corner on an edge (C); X.
const SQUARE_CLASSES: [u64; 5] = [
    0x8100_0000_0000_0081,
    0x3c00_8181_8181_003c,
    0x003c_7e7e_7e7e_3c00,
    0x4281_0000_0000_8142,
    0x0042_0000_0000_4200,
];

/// The empty squares split into the order to try them: odd regions first,
/// and within each, by [`SQUARE_CLASSES`].
#[inline]
fn ordered_classes(empties: u64, odd: u64) -> [u64; 10] {
    let mut sets = [0u64; 10];
    for (i, class) in SQUARE_CLASSES.iter().enumerate() {
        sets[i] = empties & odd & class;
        sets[i + 5] = empties & !odd & class;
    }
    sets
}

/// (square, position after it, ordering key)
type Candidate = (u8, Board, i32);

/// From this many empties up, the evaluation of the position a move leads
/// to joins its ordering key (a shallow look ahead, as the best engines
/// do); below, the cheaper mobility terms alone. 12 against 10, 11, 13
/// and 14: BENCHMARKS.md.
pub const EVAL_ORDER_EMPTIES: u32 = 12;

/// Ordering key weights, in the evaluation's unit (hundredths of a disc):
/// each reply a move leaves the opponent costs one and a half discs (a
/// corner reply twice that), a corner move gains one, and the evaluation
/// counts half.
/// Mobility first is what makes the tree small: with the evaluation first
/// FFO #20-#39 took 504 M nodes, with one disc a reply 346 M (before the
/// warm-up; BENCHMARKS.md has the rest).
const REPLY_WEIGHT: i32 = 150;
const CORNER_BONUS: i32 = 100;
const EVAL_DIVISOR: i32 = 2;

/// Move ordering at a deep node: `first` (the table's move) first, then a
/// move that wipes the opponent out, then by the key above; higher keys
/// first.
fn ordered(s: &Searcher, board: &Board, moves: u64, first: u8) -> MoveList<Candidate> {
    let with_eval = board.empty_count() >= EVAL_ORDER_EMPTIES;
    bitboard::squares(moves)
        .map(|sq| {
            let index = sq.index();
            let child = board.play_index(index);
            s.tt.prefetch(&child);
            let key = if index as u8 == first {
                i32::MAX / 2
            } else if child.player == 0 {
                i32::MAX / 4
            } else {
                let replies = child.moves();
                let weighted =
                    (replies.count_ones() + (replies & bitboard::CORNERS).count_ones()) as i32;
                let mut key = -REPLY_WEIGHT * weighted
                    - (bitboard::neighbours(sq.bit()) & board.empties()).count_ones() as i32;
                if sq.bit() & bitboard::CORNERS != 0 {
                    key += CORNER_BONUS;
                }
                if with_eval {
                    key -= s.eval.evaluate(&child) / EVAL_DIVISOR;
                }
                key
            };
            (index as u8, child, key)
        })
        .collect()
}

/// Many empties: the table, stability and enhanced transposition cut-offs,
/// moves in the order of [`ordered`], principal variation search.
fn deep(s: &mut Searcher, board: &Board, mut alpha: i32, mut beta: i32) -> i32 {
    if s.poll() {
        return 0;
    }
    let moves = board.moves();
    if moves == 0 {
        return no_move(s, board, alpha, beta);
    }

    // stability cut-off: the opponent's stable discs cap our score.
    if let Some(ceiling) = stability_ceiling(board, alpha) {
        if ceiling <= alpha {
            return ceiling;
        }
        beta = beta.min(ceiling);
    }

    let mut first = NO_MOVE;
    if let Some(entry) = s.tt.probe(board) {
        // A fail-low of a search that was not exact names its move only
        // by a fail-soft score, mostly noise: the ordering below does
        // better (0.6% fewer nodes on FFO #20-#39).
        if entry.bound != Bound::Upper || entry.depth == DEPTH_EXACT {
            first = entry.best;
        }
        if entry.depth == DEPTH_EXACT {
            let score = entry.score / DISC;
            match entry.bound {
                Bound::Exact => return score,
                Bound::Lower if score >= beta => return score,
                Bound::Upper if score <= alpha => return score,
                _ => {}
            }
        }
    }

    let original_alpha = alpha;
    let mut list = ordered(s, board, moves, first);

    // enhanced transposition cut-off: a child already known to refute
    // beta ends the search before any of them is searched.
    for &(index, child, _) in &list {
        if let Some(entry) = s.tt.probe(&child) {
            if entry.depth == DEPTH_EXACT
                && entry.bound != Bound::Lower
                && -entry.score / DISC >= beta
            {
                let score = -entry.score / DISC;
                s.tt.store(board, score * DISC, Bound::Lower, DEPTH_EXACT, index);
                return score;
            }
        }
    }
    let mut best = NO_SCORE;
    let mut best_move = NO_MOVE;
    for i in 0..list.len() {
        let mut top = i;
        for j in i + 1..list.len() {
            if list[j].2 > list[top].2 {
                top = j;
            }
        }
        list.swap(i, top);
        let (index, child, _) = list[i];
        let score = if i == 0 {
            -solve(s, &child, -beta, -alpha)
        } else {
            let probe = -solve(s, &child, -alpha - 1, -alpha);
            if probe > alpha && probe < beta && !s.stopped {
                -solve(s, &child, -beta, -alpha)
            } else {
                probe
            }
        };
        if s.stopped {
            return 0;
        }
        if score > best {
            best = score;
            best_move = index;
            if score > alpha {
                alpha = score;
                if alpha >= beta {
                    break;
                }
            }
        }
    }
    let bound = if best <= original_alpha {
        Bound::Upper
    } else if best >= beta {
        Bound::Lower
    } else {
        Bound::Exact
    };
    s.tt.store(board, best * DISC, bound, DEPTH_EXACT, best_move);
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::Evaluator;
    use crate::testing::{negamax, random_position};

    #[test]
    fn every_layer_agrees_with_negamax() {
        let mut rng = fastrand::Rng::with_seed(1997);
        let mut s = Searcher::new(4, Evaluator::Hand);
        for empties in 0..=10u32 {
            for _ in 0..(if empties <= 7 { 400 } else { 60 }) {
                let b = random_position(&mut rng, empties);
                let exact = negamax(&b);
                assert_eq!(solve(&mut s, &b, -64, 64), exact, "{b:?}");
                // Null windows around the score fail on the right side.
                assert!(solve(&mut s, &b, exact - 1, exact) >= exact);
                assert!(solve(&mut s, &b, exact, exact + 1) <= exact);
                // Each layer directly, where it applies.
                if empties >= 2 {
                    assert_eq!(shallow(&mut s, &b, -64, 64, false), exact);
                }
                let squares: Vec<usize> =
                    bitboard::squares(b.empties()).map(|q| q.index()).collect();
                match empties {
                    2 => {
                        let (x1, x2) = (squares[0], squares[1]);
                        assert_eq!(solve_2(&mut s, &b, -64, 64, x1, x2, false), exact);
                        assert_eq!(solve_2(&mut s, &b, -64, 64, x2, x1, false), exact);
                    }
                    3 => assert_eq!(solve_3(&mut s, &b, -64, 64, false), exact),
                    4 => assert_eq!(solve_4(&mut s, &b, -64, 64, false), exact),
                    _ => {}
                }
                if empties == 1 {
                    assert_eq!(last_square(&mut s, &b), exact);
                }
                if empties >= 1 && b.has_moves() {
                    assert_eq!(deep(&mut s, &b, -64, 64), exact);
                }
            }
        }
    }

    #[test]
    fn the_principal_variation_reaches_the_score() {
        let mut rng = fastrand::Rng::with_seed(41);
        let mut s = Searcher::new(1, Evaluator::Hand);
        for _ in 0..200 {
            let empties = 4 + rng.u32(..9);
            let board = random_position(&mut rng, empties);
            if !board.has_moves() {
                continue;
            }
            let (_, score) = solve_root(&mut s, &board, NO_MOVE, -64, 64).unwrap();
            let pv = principal_variation(&mut s, &board, score);
            // Played out, the line ends the game with that very score for
            // the side that started it.
            let mut b = board;
            let mut sign = 1;
            for m in &pv {
                b = match m {
                    Some(sq) => b.play(*sq),
                    None => b.pass(),
                };
                sign = -sign;
            }
            assert!(b.is_game_over(), "{pv:?}");
            assert_eq!(sign * b.final_score(), score);
        }
    }

    #[test]
    fn every_move_score_agrees_with_negamax() {
        let mut rng = fastrand::Rng::with_seed(43);
        let mut s = Searcher::new(1, Evaluator::Hand);
        for _ in 0..100 {
            let empties = 3 + rng.u32(..8);
            let board = random_position(&mut rng, empties);
            for (sq, score) in move_scores(&mut s, &board) {
                assert_eq!(score, -negamax(&board.play(sq)));
            }
        }
    }

    #[test]
    fn symmetric_positions_solve_the_same() {
        let mut rng = fastrand::Rng::with_seed(8);
        for _ in 0..20 {
            let b = random_position(&mut rng, 12);
            let mut s = Searcher::new(4, Evaluator::Hand);
            let score = solve(&mut s, &b, -64, 64);
            for sym in 1..8 {
                let mut fresh = Searcher::new(4, Evaluator::Hand);
                assert_eq!(solve(&mut fresh, &b.transform(sym), -64, 64), score);
            }
        }
    }

    #[test]
    fn the_table_never_changes_a_score() {
        // Solve many positions with one searcher (a warm, shared table) and
        // with a fresh one each time: the scores must agree.
        let mut rng = fastrand::Rng::with_seed(77);
        let mut warm = Searcher::new(1, Evaluator::Hand);
        for _ in 0..40 {
            let b = random_position(&mut rng, 13);
            let mut cold = Searcher::new(1, Evaluator::Hand);
            let a = solve(&mut warm, &b, -64, 64);
            let c = solve(&mut cold, &b, -64, 64);
            assert_eq!(a, c);
            // and under narrow windows first, which leave bounds behind
            let mut bounded = Searcher::new(1, Evaluator::Hand);
            let _ = solve(&mut bounded, &b, c - 3, c - 2);
            let _ = solve(&mut bounded, &b, c + 1, c + 2);
            assert_eq!(solve(&mut bounded, &b, -64, 64), c);
        }
    }
}
