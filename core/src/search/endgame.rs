//! The exact endgame solver: the final disc difference with perfect play.
//!
//! Layered by the number of empty squares, with one dispatcher, [`solve`]:
//! - more than [`DEPTH_TO_SHALLOW`] empties: [`deep`], with the
//!   transposition table, enhanced transposition and stability cut-offs,
//!   and moves ordered fewest opponent replies first, the evaluation joining
//!   in from [`EVAL_ORDER_EMPTIES`];
//! - 5 to [`DEPTH_TO_SHALLOW`] empties under a null window (nearly every
//!   node): [`shallow`], no table, the legal moves in odd regions first
//!   (parity ordering), then by square class; the order of the empty
//!   squares is set once ([`EmptyList`]) and handed down;
//! - 4, 3 and 2 empties: [`solve_4`], [`solve_3`], [`solve_2`], written out
//!   for their count, trying each empty square directly instead of
//!   generating moves;
//! - 1 empty: [`last_square`], only counting flips;
//! - 0 empties: the disc count;
//! - 2 to [`DEPTH_TO_SHALLOW`] empties under a wider window (only on a
//!   principal variation): [`shallow_pv`].
//!
//! Scores here are whole discs (-64..=64), fail-soft.

use super::searcher::Searcher;
use crate::bitboard::{self, Square};
use crate::board::Board;
use crate::eval::pattern::Indices;
use crate::eval::stability::stable_discs;
use crate::eval::DISC;
use crate::movegen::{flips, last_flip_count};
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
    let mut list = MoveList::new();
    ordered(s, board, None, board.moves(), first, &mut list);
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
        let mut list = MoveList::new();
        ordered(s, &board, None, board.moves(), first, &mut list);
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
/// With a null window (the common case below a principal variation
/// search's first move) a small endgame goes to the null-window layers.
#[inline]
pub fn solve(s: &mut Searcher, board: &Board, alpha: i32, beta: i32) -> i32 {
    match board.empty_count() {
        0 => {
            s.nodes += 1;
            board.final_score()
        }
        1 => {
            let square = board.empties().trailing_zeros() as usize;
            last_square(s, board, square, alpha)
        }
        n if n <= DEPTH_TO_SHALLOW && beta == alpha + 1 => null_window(s, board, alpha),
        n if n <= DEPTH_TO_SHALLOW => shallow_pv(s, board, alpha, beta),
        _ => deep(s, board, None, alpha, beta),
    }
}

/// Which quarter of the board each square lies in, 0 to 3, as an index
/// into [`QUADRANTS`]: bit 0 for the east half, bit 1 for the south half.
const QUADRANT: [u8; 64] = {
    let mut quadrant = [0u8; 64];
    let mut sq = 0;
    while sq < 64 {
        quadrant[sq] = ((sq >> 5 & 1) << 1 | (sq >> 2 & 1)) as u8;
        sq += 1;
    }
    quadrant
};

/// For each set of quadrants (bit q for `QUADRANTS[q]`), their squares.
const QUADRANT_SQUARES: [u64; 16] = {
    let mut squares = [0u64; 16];
    let mut set = 0;
    while set < 16 {
        let mut q = 0;
        while q < 4 {
            if set >> q & 1 == 1 {
                squares[set] |= QUADRANTS[q];
            }
            q += 1;
        }
        set += 1;
    }
    squares
};

/// The quadrants holding an odd number of `empties`, bit q for
/// `QUADRANTS[q]`. A move flips its own quadrant's bit, so the layers
/// below pass it down instead of counting again.
#[inline]
fn odd_quadrants(empties: u64) -> u8 {
    let mut odd = 0;
    for (q, quadrant) in QUADRANTS.iter().enumerate() {
        odd |= ((empties & quadrant).count_ones() as u8 & 1) << q;
    }
    odd
}

/// The empty squares of a small endgame, one square index a byte, the
/// first to try in the lowest byte: by [`SQUARE_CLASSES`] (corners first,
/// X squares last), then by index; with the quadrants that hold an odd
/// number of them. A move takes its square out with a shift and flips its
/// quadrant's parity, so every node hands its children their order ready
/// made instead of sorting and counting again.
#[derive(Clone, Copy)]
struct EmptyList {
    packed: u64,
    len: usize,
    /// [`odd_quadrants`] of the squares.
    odd: u8,
}

impl EmptyList {
    /// Up to 8 `empties`, in the order above.
    #[inline]
    fn new(empties: u64) -> EmptyList {
        debug_assert!(empties.count_ones() <= 8, "a byte each in one word");
        let mut list = EmptyList {
            packed: 0,
            len: 0,
            odd: odd_quadrants(empties),
        };
        for class in SQUARE_CLASSES {
            for sq in bitboard::squares(empties & class) {
                list.packed |= (sq.index() as u64) << (8 * list.len);
                list.len += 1;
            }
        }
        list
    }

    /// The `i`th square.
    #[inline(always)]
    fn square(self, i: usize) -> usize {
        (self.packed >> (8 * i)) as u8 as usize
    }

    /// The list without its `i`th square, the others in the same order.
    #[inline(always)]
    fn without(self, i: usize) -> EmptyList {
        let below = (1u64 << (8 * i)) - 1;
        EmptyList {
            packed: self.packed & below | (self.packed >> 8) & !below,
            len: self.len - 1,
            odd: self.odd ^ 1 << QUADRANT[self.square(i)],
        }
    }

    /// Which of the first `n` squares lie in quadrants holding an odd
    /// number of empties: bit i for the i-th, an index into
    /// [`ODD_FIRST_3`] or [`ODD_FIRST_4`].
    #[inline(always)]
    fn odd_positions(self, n: usize) -> usize {
        let odd = self.odd_squares();
        (0..n).fold(0, |set, i| {
            set | ((odd >> self.square(i)) as usize & 1) << i
        })
    }

    /// The squares of the quadrants holding an odd number of the empties.
    #[inline(always)]
    fn odd_squares(self) -> u64 {
        QUADRANT_SQUARES[self.odd as usize]
    }
}

/// For `N` squares in list order, and each set of them lying in odd
/// quadrants ([`EmptyList::odd_positions`]), the positions in the order to
/// try them: the odd ones first, each group in list order. Looked up once
/// a node instead of passing over the list twice.
const fn odd_first<const N: usize>() -> [[u8; N]; 16] {
    let mut orders = [[0u8; N]; 16];
    let mut set = 0;
    while set < 16 {
        let mut next = 0;
        let mut pass = 0;
        while pass < 2 {
            let mut i = 0;
            while i < N {
                let odd = set >> i & 1 == 1;
                if odd == (pass == 0) {
                    orders[set][next] = i as u8;
                    next += 1;
                }
                i += 1;
            }
            pass += 1;
        }
        set += 1;
    }
    orders
}

/// [`odd_first`] for 3 and 4 squares.
const ODD_FIRST_3: [[u8; 3]; 16] = odd_first::<3>();
const ODD_FIRST_4: [[u8; 4]; 16] = odd_first::<4>();

/// A null-window solve (`alpha`, `alpha` + 1) of 2 to
/// [`DEPTH_TO_SHALLOW`] empties: orders the empty squares once, then the
/// layer for their count.
fn null_window(s: &mut Searcher, board: &Board, alpha: i32) -> i32 {
    let list = EmptyList::new(board.empties());
    match list.len {
        2 => solve_2(s, board, alpha, list.square(0), list.square(1), false),
        3 => solve_3(s, board, alpha, list, false),
        4 => solve_4(s, board, alpha, list, false),
        _ => shallow(s, board, alpha, list, false),
    }
}

/// One empty square, `index`: whoever can move there does, else the game
/// is over. Where the side to move cannot play there, its best is to keep
/// its discs and take the square as winner; when that is still no more
/// than `alpha` the opponent's flips need not be counted (a lazy fail-low:
/// the bound returned is as good as the score there).
#[inline(always)]
fn last_square(s: &mut Searcher, board: &Board, index: usize, alpha: i32) -> i32 {
    s.nodes += 1;
    let p = board.player.count_ones() as i32;
    let f = last_flip_count(index, board.player) as i32;
    if f > 0 {
        // player gets the square and f discs: (p + 1 + f) - (63 - p - f)
        return 2 * (p + f) - 62;
    }
    // the final score if nobody can move: p - (63 - p), the square to the
    // winner (never a draw: 63 discs)
    let ceiling = if 2 * p > 63 { 2 * p - 62 } else { 2 * p - 64 };
    if ceiling <= alpha {
        return ceiling;
    }
    let g = last_flip_count(index, board.opponent) as i32;
    if g > 0 {
        // the opponent moves there: p - g against 64 - (p - g)
        return 2 * (p - g) - 64;
    }
    ceiling
}

// From here to `shallow`, every layer searches a null window (`alpha`,
// `alpha` + 1): fail-soft, and a score above `alpha` ends the node.
// `passed`: the other side has just passed.

/// A null-window layer's result once its moves are tried: the best score,
/// or, when the side to move had none (`best` still [`NO_SCORE`]), the
/// final count if the other side has just passed too, else `again` (the
/// same layer, for the other side) after a pass.
#[inline(always)]
fn best_or_pass(
    s: &mut Searcher,
    board: &Board,
    best: i32,
    passed: bool,
    again: impl FnOnce(&mut Searcher, &Board) -> i32,
) -> i32 {
    if best > NO_SCORE {
        best
    } else if passed {
        board.final_score()
    } else {
        -again(s, &board.pass())
    }
}

/// Two empties, `x1` and `x2`: each move leaves one, solved directly.
fn solve_2(s: &mut Searcher, board: &Board, alpha: i32, x1: usize, x2: usize, passed: bool) -> i32 {
    s.nodes += 1;
    let mut best = NO_SCORE;
    let f = flips(x1, board.player, board.opponent);
    if f != 0 {
        best = -last_square(s, &board.play_flips(x1, f), x2, -alpha - 1);
        if best > alpha {
            return best;
        }
    }
    let f = flips(x2, board.player, board.opponent);
    if f != 0 {
        best = best.max(-last_square(s, &board.play_flips(x2, f), x1, -alpha - 1));
    }
    best_or_pass(s, board, best, passed, |s, passed| {
        solve_2(s, passed, -alpha - 1, x1, x2, true)
    })
}

/// Three empties, those in odd quadrants first, each move handing
/// [`solve_2`] the other two.
fn solve_3(s: &mut Searcher, board: &Board, alpha: i32, list: EmptyList, passed: bool) -> i32 {
    s.nodes += 1;
    let mut best = NO_SCORE;
    for &i in &ODD_FIRST_3[list.odd_positions(3)] {
        let x = list.square(usize::from(i));
        let f = flips(x, board.player, board.opponent);
        if f == 0 {
            continue;
        }
        let rest = list.without(usize::from(i));
        let child = board.play_flips(x, f);
        let score = -solve_2(s, &child, -alpha - 1, rest.square(0), rest.square(1), false);
        if score > alpha {
            return score;
        }
        best = best.max(score);
    }
    best_or_pass(s, board, best, passed, |s, passed| {
        solve_3(s, passed, -alpha - 1, list, true)
    })
}

/// Four empties, those in odd quadrants first, each move handing over to
/// [`solve_3`].
fn solve_4(s: &mut Searcher, board: &Board, alpha: i32, list: EmptyList, passed: bool) -> i32 {
    s.nodes += 1;
    let mut best = NO_SCORE;
    for &i in &ODD_FIRST_4[list.odd_positions(4)] {
        let x = list.square(usize::from(i));
        let f = flips(x, board.player, board.opponent);
        if f == 0 {
            continue;
        }
        let child = board.play_flips(x, f);
        let score = -solve_3(s, &child, -alpha - 1, list.without(usize::from(i)), false);
        if score > alpha {
            return score;
        }
        best = best.max(score);
    }
    best_or_pass(s, board, best, passed, |s, passed| {
        solve_4(s, passed, -alpha - 1, list, true)
    })
}

/// Five to [`DEPTH_TO_SHALLOW`] empties: no table, no move ordering but
/// the list's: the legal moves in odd quadrants first (the last move into
/// a region tends to be the good one), then the rest, each group in
/// [`SQUARE_CLASSES`] order (7% fewer nodes on FFO #20-#39 than by index).
fn shallow(s: &mut Searcher, board: &Board, alpha: i32, list: EmptyList, passed: bool) -> i32 {
    if s.poll() {
        return 0;
    }
    // The stability cut-off of [`deep`], tried only where alpha is high for
    // so few empties: elsewhere the count costs more than its cut-offs save
    // (FFO #20-#39: 153 M nodes in 7.0 s without it, 147 M in 7.1 s on
    // the opponent's disc count alone, 150 M in 6.8 s with this bound too).
    if alpha >= 2 * list.len as i32 - 2 {
        if let Some(ceiling) = stability_ceiling(board, alpha) {
            if ceiling <= alpha {
                return ceiling;
            }
        }
    }
    let moves = board.moves();
    if moves == 0 {
        return if passed {
            board.final_score()
        } else {
            -shallow(s, &board.pass(), -alpha - 1, list, true)
        };
    }
    let odd_squares = list.odd_squares();
    let mut best = NO_SCORE;
    for mut wanted in [moves & odd_squares, moves & !odd_squares] {
        for i in 0..list.len {
            if wanted == 0 {
                break;
            }
            let x = list.square(i);
            if wanted >> x & 1 == 0 {
                continue;
            }
            wanted &= !(1u64 << x);
            let child = board.play_index(x);
            let rest = list.without(i);
            let score = if rest.len == 4 {
                -solve_4(s, &child, -alpha - 1, rest, false)
            } else {
                -shallow(s, &child, -alpha - 1, rest, false)
            };
            if score > alpha {
                return score;
            }
            best = best.max(score);
        }
    }
    best
}

/// A small endgame under a wider window than a null one: only on a
/// principal variation, so rare. Principal variation search over the
/// moves in [`shallow`]'s order; every later move is probed with a null
/// window, which [`solve`] hands to the layers above.
fn shallow_pv(s: &mut Searcher, board: &Board, mut alpha: i32, beta: i32) -> i32 {
    if s.poll() {
        return 0;
    }
    let moves = board.moves();
    if moves == 0 {
        return no_move(s, board, alpha, beta);
    }
    let list = EmptyList::new(board.empties());
    let odd_squares = list.odd_squares();
    let mut best = NO_SCORE;
    for wanted in [moves & odd_squares, moves & !odd_squares] {
        for i in 0..list.len {
            let x = list.square(i);
            if wanted >> x & 1 == 0 {
                continue;
            }
            let child = board.play_index(x);
            let score = if best == NO_SCORE {
                -solve(s, &child, -beta, -alpha)
            } else {
                let probe = -solve(s, &child, -alpha - 1, -alpha);
                if probe > alpha && probe < beta {
                    -solve(s, &child, -beta, -alpha)
                } else {
                    probe
                }
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
    best
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
/// first. Fills the caller's `list` rather than returning one: a move
/// list is 1.5 KB, and copying it out cost 2% of a solve. `indices` are
/// `board`'s pattern indices where the caller keeps them (counted here
/// when the evaluation needs them and it does not).
fn ordered(
    s: &Searcher,
    board: &Board,
    indices: Option<&Indices>,
    moves: u64,
    first: u8,
    list: &mut MoveList<Candidate>,
) {
    let counted;
    // the indices where the ordering reads the evaluation, else none
    let with_eval = match indices {
        _ if board.empty_count() < EVAL_ORDER_EMPTIES => None,
        Some(indices) => Some(indices),
        None => {
            counted = Indices::new(board);
            Some(&counted)
        }
    };
    // only children the table will be asked about are worth fetching
    let children_in_table = board.empty_count() > DEPTH_TO_SHALLOW + 1;
    list.extend(bitboard::squares(moves).map(|sq| {
        let index = sq.index();
        let child = board.play_index(index);
        if children_in_table {
            s.tt.prefetch(&child);
        }
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
            if let Some(indices) = with_eval {
                key -= s
                    .eval
                    .evaluate_after(board, indices, index, &child, replies)
                    / EVAL_DIVISOR;
            }
            key
        };
        (index as u8, child, key)
    }));
}

/// Many empties: the table, stability and enhanced transposition cut-offs,
/// moves in the order of [`ordered`], principal variation search.
/// `indices`: `board`'s pattern indices, where the parent kept them for
/// the ordering's evaluation (from [`EVAL_ORDER_EMPTIES`] empties up).
fn deep(
    s: &mut Searcher,
    board: &Board,
    indices: Option<&Indices>,
    mut alpha: i32,
    mut beta: i32,
) -> i32 {
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
    let mut list = MoveList::new();
    // Kept for the children only where they order by the evaluation too.
    let keep_indices = board.empty_count() > EVAL_ORDER_EMPTIES;
    let counted;
    let indices = match indices {
        None if keep_indices => {
            counted = Indices::new(board);
            Some(&counted)
        }
        indices => indices,
    };
    ordered(s, board, indices, moves, first, &mut list);

    // enhanced transposition cut-off: a child already known to refute
    // beta ends the search before any of them is searched. Children of
    // [`DEPTH_TO_SHALLOW`] empties or fewer are never stored, so one above
    // that there is nothing to look up.
    // Exact entries hold whole discs (times DISC), as this layer stores.
    if board.empty_count() > DEPTH_TO_SHALLOW + 1 {
        let children = list.iter().map(|&(index, child, _)| (index, child));
        if let Some(score) =
            s.tt.refutation(board, children, DEPTH_EXACT, DEPTH_EXACT, beta * DISC)
        {
            return score / DISC;
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
        let child_indices = indices
            .filter(|_| keep_indices)
            .map(|ix| ix.play(board, usize::from(index), &child));
        // A child kept indices for is deep too (it has 12 empties or more).
        let search = |s: &mut Searcher, alpha, beta| match &child_indices {
            Some(ix) => deep(s, &child, Some(ix), alpha, beta),
            None => solve(s, &child, alpha, beta),
        };
        let score = if i == 0 {
            -search(s, -beta, -alpha)
        } else {
            let probe = -search(s, -alpha - 1, -alpha);
            if probe > alpha && probe < beta && !s.stopped {
                -search(s, -beta, -alpha)
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
                // Null windows around the score fail on the right side,
                // and a fail-soft bound is never on the wrong side of it.
                for alpha in [exact - 2, exact - 1, exact, exact + 1] {
                    let score = solve(&mut s, &b, alpha, alpha + 1);
                    if exact > alpha {
                        assert!(score > alpha && score <= exact, "{b:?} {alpha}");
                    } else {
                        assert!(score <= alpha && score >= exact, "{b:?} {alpha}");
                    }
                }
                if (2..=7).contains(&empties) {
                    assert_eq!(shallow_pv(&mut s, &b, -64, 64), exact);
                }
                // Each null-window layer directly, where it applies: the
                // window just below the score must fail high, the one at
                // it low.
                // (the list only where it applies: it holds 8 squares)
                let small = empties <= DEPTH_TO_SHALLOW;
                let list = EmptyList::new(if small { b.empties() } else { 0 });
                let layer = |s: &mut Searcher, alpha: i32| match empties {
                    1 => Some(last_square(s, &b, list.square(0), alpha)),
                    2 => Some(solve_2(s, &b, alpha, list.square(0), list.square(1), false)),
                    3 => Some(solve_3(s, &b, alpha, list, false)),
                    4 => Some(solve_4(s, &b, alpha, list, false)),
                    5..=7 => Some(shallow(s, &b, alpha, list, false)),
                    _ => None,
                };
                if let Some(above) = layer(&mut s, exact - 1) {
                    assert_eq!(above, exact, "{b:?}");
                    assert_eq!(layer(&mut s, exact).expect("same layer"), exact);
                }
                if empties == 2 {
                    let (x1, x2) = (list.square(1), list.square(0));
                    assert_eq!(solve_2(&mut s, &b, exact - 1, x1, x2, false), exact);
                }
                if empties >= 1 && b.has_moves() {
                    assert_eq!(deep(&mut s, &b, None, -64, 64), exact);
                }
            }
        }
    }

    #[test]
    fn the_empty_list_keeps_its_order_as_squares_leave() {
        // a1 (corner), c1 (edge), d4 (middle), b1 (C), b2 (X)
        let empties = 1 << 0 | 1 << 2 | 1 << 27 | 1 << 1 | 1 << 9;
        let list = EmptyList::new(empties);
        let order = |l: EmptyList| (0..l.len).map(|i| l.square(i)).collect::<Vec<_>>();
        assert_eq!(order(list), [0, 2, 27, 1, 9]);
        assert_eq!(order(list.without(0)), [2, 27, 1, 9]);
        assert_eq!(order(list.without(2)), [0, 2, 1, 9]);
        assert_eq!(order(list.without(4)), [0, 2, 27, 1]);
    }

    #[test]
    fn odd_first_orders_put_odd_squares_first_in_list_order() {
        for set in 0..16usize {
            let order = ODD_FIRST_4[set];
            let expected: Vec<u8> = (0..4u8)
                .filter(|&i| set >> i & 1 == 1)
                .chain((0..4u8).filter(|&i| set >> i & 1 == 0))
                .collect();
            assert_eq!(order.to_vec(), expected, "{set:04b}");
            if set < 8 {
                let expected: Vec<u8> = expected.into_iter().filter(|&i| i < 3).collect();
                assert_eq!(ODD_FIRST_3[set].to_vec(), expected, "{set:03b}");
            }
        }
        // and the set comes from the list: a1 and a8 alone in their
        // quadrants (odd), h8 and g8 together in theirs (even)
        let list = EmptyList::new(1 << 0 | 1 << 56 | 1 << 63 | 1 << 62);
        let order: Vec<usize> = (0..list.len).map(|i| list.square(i)).collect();
        assert_eq!(order, [0, 56, 63, 62]); // corners, then the C square
        assert_eq!(list.odd_positions(4), 0b0011);
    }

    #[test]
    fn a_square_leaving_the_list_flips_its_quadrant_parity() {
        let mut rng = fastrand::Rng::with_seed(5);
        for _ in 0..200 {
            // up to 8 random empty squares
            let empties = (0..8).fold(0u64, |set, _| set | 1 << rng.u32(..64));
            let list = EmptyList::new(empties);
            for i in 0..list.len {
                let after = list.without(i);
                let left = empties & !(1 << list.square(i));
                assert_eq!(after.odd, odd_quadrants(left));
                assert_eq!(
                    after.odd_squares(),
                    QUADRANT_SQUARES[odd_quadrants(left) as usize]
                );
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
