//! The trained evaluation: pattern tables fitted to labelled positions
//! (`reversi train`, `src/training/mod.rs` of the tools), in the manner of Logistello.
//!
//! A pattern is a fixed list of squares; its configuration (each square
//! empty, ours or theirs) indexes a table of weights. Every pattern is read
//! under all 8 symmetries of the board, in the square order the symmetry
//! carries it to, so one table serves every placement and a position and
//! its mirror images always get the same score. Two small tables add the
//! mobility of each side. Each game stage (a band of empties) has its own
//! tables. The score is the sum of the weights read. The trainer sees the
//! 88 readings ([`features`]); the evaluation reads 46, from tables folded
//! over the readings that cover the same squares (see `Folded`).
//!
//! The weights are embedded in the binary (`patterns.weights`, made by
//! `reversi train`): a text header saying what produced them, a blank line,
//! then little-endian `i16`s, stage by stage, in 1/`WEIGHT_SCALE` discs.
//! They are read in place, so start-up costs nothing.

use super::{Score, DISC, EVAL_LIMIT};
use crate::bitboard::transform;
use crate::board::Board;
use crate::movegen::legal_moves;

use super::layout::OFFSETS;
pub use super::layout::{
    stage, FEATURES, MOBILITY_SIZE, PATTERNS, STAGES, STAGE_SIZE, WEIGHT_SCALE,
};

mod indices;
pub use indices::Indices;

/// Each pattern's squares under each symmetry, as bit masks in reading
/// order (the mask of the square a pattern reads first comes first).
#[cfg(test)]
struct Placements {
    squares: [[[u8; 10]; 8]; PATTERNS.len()],
}

#[cfg(test)]
const fn placements() -> Placements {
    let mut squares = [[[0u8; 10]; 8]; PATTERNS.len()];
    let mut p = 0;
    while p < PATTERNS.len() {
        let mut sym = 0;
        while sym < 8 {
            let mut i = 0;
            while i < PATTERNS[p].len() {
                squares[p][sym][i] = map_square(PATTERNS[p][i], sym as u8);
                i += 1;
            }
            sym += 1;
        }
        p += 1;
    }
    Placements { squares }
}

/// Where symmetry `sym` (as in [`transform`]) sends square `sq`.
const fn map_square(sq: u8, sym: u8) -> u8 {
    let (mut file, mut rank) = (sq % 8, sq / 8);
    if sym & 1 != 0 {
        file = 7 - file;
    }
    if sym & 2 != 0 {
        rank = 7 - rank;
    }
    if sym & 4 != 0 {
        let t = file;
        file = rank;
        rank = t;
    }
    rank * 8 + file
}

#[cfg(test)]
const PLACEMENTS: Placements = placements();

/// The symmetry that undoes `sym`.
const fn inverse(sym: u8) -> u8 {
    let mut candidate = 0;
    while candidate < 8 {
        let mut sq = 0;
        let mut all = true;
        while sq < 64 {
            if map_square(map_square(sq, sym), candidate) != sq {
                all = false;
            }
            sq += 1;
        }
        if all {
            return candidate;
        }
        candidate += 1;
    }
    0
}

/// `TERNARY[m]`: the bits of `m` (bit 0 first) read as base-3 digits, most
/// significant first, for a pattern of `PATTERN_LEN` squares: with the
/// player's bits `m` and the opponent's `n`, a configuration's index is
/// `TERNARY[m] + 2 * TERNARY[n]`, the same number the square-by-square
/// reading gives.
const fn ternary_table<const LEN: usize>() -> [u16; 1024] {
    let mut table = [0u16; 1024];
    let mut m = 0;
    while m < (1 << LEN) {
        let mut value = 0u16;
        let mut i = 0;
        while i < LEN {
            value = value * 3 + ((m >> i) & 1) as u16;
            i += 1;
        }
        table[m] = value;
        m += 1;
    }
    table
}

const T4: [u16; 1024] = ternary_table::<4>();
const T5: [u16; 1024] = ternary_table::<5>();
const T6: [u16; 1024] = ternary_table::<6>();
const T7: [u16; 1024] = ternary_table::<7>();
const T8: [u16; 1024] = ternary_table::<8>();
const T9: [u16; 1024] = ternary_table::<9>();
const T10: [u16; 1024] = ternary_table::<10>();

const INVERSES: [u8; 8] = {
    let mut inv = [0u8; 8];
    let mut s = 0;
    while s < 8 {
        inv[s] = inverse(s as u8);
        s += 1;
    }
    inv
};

/// The base patterns' configurations on one (transformed) board, as
/// indices into each pattern's table (offset included), gathered with
/// masks and shifts: the bits each pattern reads, in reading order, then
/// `TERNARY`.
#[inline]
fn base_indices(p: u64, o: u64) -> [u32; PATTERNS.len()] {
    #[inline]
    fn gather(x: u64) -> [usize; 11] {
        // A diagonal's squares, one per file, folded onto the top byte.
        let fold = |mask: u64| ((x & mask).wrapping_mul(0x0101_0101_0101_0101) >> 56) as usize;
        [
            (x & 0xff) as usize,
            ((x & 7) | ((x >> 5) & 0x38) | ((x >> 10) & 0x1c0)) as usize,
            ((x & 0x1f) | ((x >> 3) & 0x3e0)) as usize,
            ((x >> 8) & 0xff) as usize,
            ((x >> 16) & 0xff) as usize,
            ((x >> 24) & 0xff) as usize,
            fold(0x8040_2010_0804_0201),
            fold(0x0080_4020_1008_0402) >> 1,
            fold(0x0000_8040_2010_0804) >> 2,
            fold(0x0000_0080_4020_1008) >> 3,
            fold(0x0000_0000_8040_2010) >> 4,
        ]
    }
    let (gp, go) = (gather(p), gather(o));
    let t = |table: &[u16; 1024], i: usize| u32::from(table[gp[i]]) + 2 * u32::from(table[go[i]]);
    let cell = |sq: u32| (((p >> sq) & 1) + 2 * ((o >> sq) & 1)) as u32;
    let tables: [&[u16; 1024]; 11] = [&T8, &T9, &T10, &T8, &T8, &T8, &T8, &T7, &T6, &T5, &T4];
    let mut out = [0u32; PATTERNS.len()];
    // The edge pattern's two X-squares follow its rank.
    out[0] = OFFSETS[0] as u32 + 9 * t(&T8, 0) + 3 * cell(9) + cell(14);
    for i in 1..PATTERNS.len() {
        out[i] = OFFSETS[i] as u32 + t(tables[i], i);
    }
    out
}

/// The features of `board` for the side to move: indices into one stage's
/// weights. The trainer and the evaluation share this one definition.
/// Reading a pattern's placement under a symmetry is reading the pattern
/// itself on the board sent through the inverse symmetry.
#[must_use]
pub fn features(board: &Board) -> [u32; FEATURES] {
    let (p, o) = (board.player, board.opponent);
    let mut out = [0u32; FEATURES];
    for (sym, &inv) in INVERSES.iter().enumerate() {
        let indices = base_indices(transform(p, inv), transform(o, inv));
        for (pattern, &index) in indices.iter().enumerate() {
            out[pattern * 8 + sym] = index;
        }
    }
    let n = PATTERNS.len() * 8;
    let mobility = |a, b| (legal_moves(a, b).count_ones() as usize).min(MOBILITY_SIZE - 1);
    out[n] = (OFFSETS[PATTERNS.len()] + mobility(p, o)) as u32;
    out[n + 1] = (OFFSETS[PATTERNS.len() + 1] + mobility(o, p)) as u32;
    out
}

/// The definition, square by square, that [`features`] computes faster.
#[cfg(test)]
fn features_by_squares(board: &Board) -> [u32; FEATURES] {
    let (p, o) = (board.player, board.opponent);
    let mut out = [0u32; FEATURES];
    for (pattern, squares) in PATTERNS.iter().enumerate() {
        for (sym, placement) in PLACEMENTS.squares[pattern].iter().enumerate() {
            let mut index = 0usize;
            for &sq in &placement[..squares.len()] {
                let cell = ((p >> sq) & 1) + 2 * ((o >> sq) & 1);
                index = index * 3 + cell as usize;
            }
            out[pattern * 8 + sym] = (OFFSETS[pattern] + index) as u32;
        }
    }
    let n = PATTERNS.len() * 8;
    let mobility = |a, b| (legal_moves(a, b).count_ones() as usize).min(MOBILITY_SIZE - 1);
    out[n] = (OFFSETS[PATTERNS.len()] + mobility(p, o)) as u32;
    out[n + 1] = (OFFSETS[PATTERNS.len() + 1] + mobility(o, p)) as u32;
    out
}

/// The embedded weights file.
#[cfg(not(bundle))]
const WEIGHTS_FILE: &[u8] = include_bytes!("patterns.weights");
/// The bundle has no weights file, only its header; its tables come from
/// the packed model (see [`tables`]).
#[cfg(bundle)]
const WEIGHTS_FILE: &[u8] = b"reversi pattern weights v1 (packed)\n\n";

/// Where a weights file's tables start: after the blank line that ends its
/// header (`None` without one).
#[must_use]
pub const fn tables_start(file: &[u8]) -> Option<usize> {
    let mut i = 0;
    while i + 1 < file.len() {
        if file[i] == b'\n' && file[i + 1] == b'\n' {
            return Some(i + 2);
        }
        i += 1;
    }
    None
}

/// Found at compile time, so no evaluation searches for it.
const TABLES_START: Option<usize> = tables_start(WEIGHTS_FILE);

/// The header of the embedded weights: what produced them.
#[must_use]
pub fn header() -> &'static str {
    TABLES_START.map_or("", |start| {
        std::str::from_utf8(&WEIGHTS_FILE[..start - 2]).unwrap_or("")
    })
}

/// The table bytes: `STAGES * STAGE_SIZE` little-endian `i16`s.
#[cfg(not(bundle))]
pub fn tables() -> &'static [u8] {
    TABLES_START.map_or(&[], |start| &WEIGHTS_FILE[start..])
}

/// The table bytes, expanded from the packed model on first use (empty if
/// it were damaged, which `weights_fit` reports). No `patterns.packed`
/// file exists: `reversi bundle` writes the text in its place, sized to
/// the room its file leaves (`src/bundle/mod.rs` of the tools).
#[cfg(bundle)]
pub fn tables() -> &'static [u8] {
    static TABLES: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    TABLES.get_or_init(|| {
        super::packed::decode(include_str!("patterns.packed"))
            .map_or(Vec::new(), |packed| super::packed::expand(&packed))
    })
}

/// Whether the embedded weights have the shape this code expects.
#[must_use]
pub fn weights_fit() -> bool {
    header().starts_with("reversi pattern weights v1") && tables().len() == 2 * STAGES * STAGE_SIZE
}

/// The sum of the weights `board` reads in `tables` (laid out as in a
/// weights file), in 1/`WEIGHT_SCALE` discs; 0 when the tables are short.
#[must_use]
pub fn weight_sum(tables: &[u8], board: &Board) -> i32 {
    let base = stage(board.empty_count()) * STAGE_SIZE;
    if tables.len() < 2 * (base + STAGE_SIZE) {
        return 0; // no weights: a test (`weights_fit`) catches this
    }
    features(board)
        .iter()
        .map(|&f| {
            let at = 2 * (base + f as usize);
            i32::from(i16::from_le_bytes([tables[at], tables[at + 1]]))
        })
        .sum()
}

/// Where symmetry `sym` puts pattern `p`'s squares, as a bit mask.
const fn placement_mask(p: usize, sym: u8) -> u64 {
    let mut mask = 0u64;
    let mut i = 0;
    while i < PATTERNS[p].len() {
        mask |= 1 << map_square(PATTERNS[p][i], sym);
        i += 1;
    }
    mask
}

/// Which patterns each symmetry reads in the folded evaluation (bit `p`):
/// a pattern is read under a symmetry unless an earlier one covers the
/// same squares. 46 readings in all, where [`features`] has 88: the edge,
/// the lines and the diagonals cover each of their placements twice (once
/// from each end), the 3x3 corner twice (once transposed), the long
/// diagonal four times.
const READ_BY_SYM: [u16; 8] = {
    let mut read = [0u16; 8];
    let mut p = 0;
    while p < PATTERNS.len() {
        let mut sym = 0;
        while sym < 8 {
            let mut seen = false;
            let mut earlier = 0;
            while earlier < sym {
                if placement_mask(p, earlier) == placement_mask(p, sym) {
                    seen = true;
                }
                earlier += 1;
            }
            if !seen {
                read[sym as usize] |= 1 << p;
            }
            sym += 1;
        }
        p += 1;
    }
    read
};

/// How many readings each pattern has in the folded evaluation: the
/// readings are in pattern order, so pattern `p`'s take this many lanes
/// of [`Indices`] after the earlier patterns' ones.
const READINGS_PER_PATTERN: [usize; PATTERNS.len()] = {
    let mut counts = [0; PATTERNS.len()];
    let mut sym = 0;
    while sym < 8 {
        let mut p = 0;
        while p < PATTERNS.len() {
            counts[p] += ((READ_BY_SYM[sym] >> p) & 1) as usize;
            p += 1;
        }
        sym += 1;
    }
    counts
};

/// A span of weights that any `u16` index stays inside, so that a table
/// read through one needs no bounds check.
const TABLE_SPAN: usize = 1 << 16;

/// The weights from a stage's start that the readings can reach: the last
/// pattern's table is the farthest one.
const STAGE_SPAN: usize = OFFSETS[PATTERNS.len() - 1] + TABLE_SPAN;

/// The folded weights' length: every stage, then zeros up to a whole
/// [`STAGE_SPAN`] past the last stage's start.
const FOLDED_LEN: usize = (STAGES - 1) * STAGE_SIZE + STAGE_SPAN;

/// The folded tables: for each pattern, the weight of a configuration read
/// once plus the weights of every other reading of the same squares, which
/// a position always reads together with it. A reading under symmetry
/// `s * h`, where `h` maps the pattern onto its own squares, is the
/// reading under `s` with its digits permuted as `h` permutes the squares,
/// whatever `s` is; so one folded table per pattern serves every placement
/// and gives exactly the sum [`features`] reads (a test checks it).
struct Folded {
    weights: Vec<i16>,
    /// The 46 readings, for the gathering path (see [`Reading`]).
    readings: Vec<Reading>,
    /// Their bits-to-index tables, one after another.
    ternary: Vec<u16>,
    /// For each square, what a disc there adds to each reading's index
    /// (reading `r` in lane `r`), for [`Indices`].
    digits: Vec<indices::Lanes>,
}

/// One of the folded evaluation's readings as a set of squares: PEXT
/// gathers a side's discs on them in square order, and `ternary` (from
/// `at`) turns those bits into the pattern's own index, the same index the
/// transform path computes; `offset` places it in the stage's weights.
#[derive(Clone, Copy)]
struct Reading {
    mask: u64,
    at: u32,
    offset: u32,
}

/// Starts building the folded tables on a thread of their own, so that
/// the bot, which calls this as it starts, answers the setup at once and
/// mostly has them before its first move is asked (they take about
/// 20 ms; an evaluation that comes sooner waits for them).
pub fn prepare() {
    std::thread::spawn(|| {
        folded();
    });
}

/// Built from the embedded weights on first use (or by [`prepare`]).
fn folded() -> &'static Folded {
    static FOLDED: std::sync::OnceLock<Folded> = std::sync::OnceLock::new();
    FOLDED.get_or_init(|| {
        let (readings, ternary, digits) = readings();
        Folded {
            weights: fold(tables()),
            readings,
            ternary,
            digits,
        }
    })
}

/// The readings of [`READ_BY_SYM`] as square sets, and their tables: for
/// each value of the gathered bits, the sum over set bits of the digit
/// weight (3^(n-1-i)) of the pattern square the bit stands for.
fn readings() -> (Vec<Reading>, Vec<u16>, Vec<indices::Lanes>) {
    let (mut readings, mut ternary) = (Vec::new(), Vec::new());
    let mut digits = vec![indices::Lanes::ZERO; 64];
    // Pattern by pattern, as [`READINGS_PER_PATTERN`] counts them.
    for (p, squares) in PATTERNS.iter().enumerate() {
        for (sym, &read) in READ_BY_SYM.iter().enumerate() {
            if read & (1 << p) == 0 {
                continue;
            }
            // Reading under `sym` is reading the pattern on the board
            // sent through the inverse symmetry: square i of the reading
            // is where `sym` puts the pattern's square i.
            let n = squares.len();
            let placed: Vec<u8> = squares.iter().map(|&q| map_square(q, sym as u8)).collect();
            let mut in_order = placed.clone();
            in_order.sort_unstable();
            let digit_weight = |sq: u8| {
                let i = placed.iter().position(|&q| q == sq).unwrap_or(0);
                3u16.pow((n - 1 - i) as u32)
            };
            for (i, &sq) in placed.iter().enumerate() {
                digits[sq as usize].0[readings.len()] = 3u16.pow((n - 1 - i) as u32);
            }
            let at = ternary.len() as u32;
            for bits in 0..1u32 << n {
                let value: u16 = (0..n)
                    .filter(|&j| bits & (1 << j) != 0)
                    .map(|j| digit_weight(in_order[j]))
                    .sum();
                ternary.push(value);
            }
            readings.push(Reading {
                mask: placement_mask(p, sym as u8),
                at,
                offset: OFFSETS[p] as u32,
            });
        }
    }
    (readings, ternary, digits)
}

/// Folds weights laid out as in a weights file (see [`folded`]); empty
/// when the tables are short.
fn fold(tables: &[u8]) -> Vec<i16> {
    if tables.len() < 2 * STAGES * STAGE_SIZE {
        return Vec::new();
    }
    let weight = |at: usize| i32::from(i16::from_le_bytes([tables[2 * at], tables[2 * at + 1]]));
    // For each pattern, the index permutations of its other readings of
    // the same squares, shared by every stage.
    let mut permutations: Vec<(usize, Vec<u32>)> = Vec::new();
    for (p, squares) in PATTERNS.iter().enumerate() {
        let n = squares.len();
        for h in 1..8u8 {
            if placement_mask(p, h) != placement_mask(p, 0) {
                continue;
            }
            // Reading under h, digit i: the square at which h puts the
            // pattern's square i, that is the pattern's square source[i].
            let source: Vec<usize> = (0..n)
                .map(|i| {
                    let target = map_square(squares[i], h);
                    squares.iter().position(|&q| q == target).unwrap_or(0)
                })
                .collect();
            let size = 3usize.pow(n as u32);
            let permuted = (0..size)
                .map(|index| {
                    // Digit i of `index` (most significant first).
                    let digit = |i: usize| (index / 3usize.pow((n - 1 - i) as u32)) % 3;
                    (0..n).fold(0u32, |acc, i| acc * 3 + digit(source[i]) as u32)
                })
                .collect();
            permutations.push((OFFSETS[p], permuted));
        }
    }
    let mut out: Vec<i32> = (0..STAGES * STAGE_SIZE).map(weight).collect();
    for stage in 0..STAGES {
        let base = stage * STAGE_SIZE;
        for (offset, permuted) in &permutations {
            for (index, &other) in permuted.iter().enumerate() {
                out[base + offset + index] += weight(base + offset + other as usize);
            }
        }
    }
    let mut folded: Vec<i16> = out
        .into_iter()
        .map(|w| w.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16)
        .collect();
    folded.resize(FOLDED_LEN, 0);
    folded
}

/// The pattern evaluation of `board` for its side to move, in hundredths of a disc.
#[must_use]
pub fn evaluate(board: &Board) -> Score {
    evaluate_with_moves(board, legal_moves(board.player, board.opponent))
}

/// [`evaluate`] for a caller that has the side to move's legal moves
/// (`moves`) already: the search at its leaves.
#[must_use]
pub fn evaluate_with_moves(board: &Board, moves: u64) -> Score {
    let folded = folded();
    let base = stage(board.empty_count()) * STAGE_SIZE;
    if folded.weights.len() < base + STAGE_SIZE {
        return 0; // no weights: a test (`weights_fit`) catches this
    }
    let weights = &folded.weights[base..base + STAGE_SIZE];
    let (p, o) = (board.player, board.opponent);
    let sum = if gathers() {
        // SAFETY: the processor has BMI2 (`gathers`).
        #[cfg(target_arch = "x86_64")]
        unsafe {
            pattern_sum_gathered(folded, weights, p, o)
        }
        #[cfg(not(target_arch = "x86_64"))]
        unreachable!()
    } else {
        pattern_sum_transformed(weights, p, o)
    };
    with_mobility(weights, sum, moves, board)
}

/// Ends an evaluation: the patterns' `sum` in one stage's `weights`, plus
/// both sides' mobility (the side to move's moves are `moves`), in
/// hundredths of a disc.
#[inline]
fn with_mobility(weights: &[i16], mut sum: i32, moves: u64, board: &Board) -> Score {
    let mobility = |moves: u64| (moves.count_ones() as usize).min(MOBILITY_SIZE - 1);
    sum += i32::from(weights[OFFSETS[PATTERNS.len()] + mobility(moves)]);
    let replies = legal_moves(board.opponent, board.player);
    sum += i32::from(weights[OFFSETS[PATTERNS.len() + 1] + mobility(replies)]);
    (sum * DISC / WEIGHT_SCALE).clamp(-EVAL_LIMIT, EVAL_LIMIT)
}

/// Whether this processor gathers bits in one instruction (BMI2's PEXT),
/// asked once. The two paths compute the same indices (a test checks it
/// where both run), so the moves never depend on the machine.
fn gathers() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        static BMI2: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        *BMI2.get_or_init(|| std::is_x86_feature_detected!("bmi2"))
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// The folded patterns' sum, each reading's discs gathered with PEXT: the
/// search ran 3.6-4.2 M nodes/s with it against 2.5-3.2 M with the
/// transform path (`reversi bench --move-time 1000`, BENCHMARKS.md).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
unsafe fn pattern_sum_gathered(folded: &Folded, weights: &[i16], p: u64, o: u64) -> i32 {
    use std::arch::x86_64::_pext_u64;
    let mut sum = 0i32;
    for r in &folded.readings {
        let at = r.at as usize;
        let index = r.offset as usize
            + usize::from(folded.ternary[at + _pext_u64(p, r.mask) as usize])
            + 2 * usize::from(folded.ternary[at + _pext_u64(o, r.mask) as usize]);
        sum += i32::from(weights[index]);
    }
    sum
}

/// The portable path: the board sent through each symmetry, and the
/// patterns that symmetry reads gathered with masks and shifts.
fn pattern_sum_transformed(weights: &[i16], p: u64, o: u64) -> i32 {
    let mut sum = 0i32;
    for (sym, &inv) in INVERSES.iter().enumerate() {
        let indices = base_indices(transform(p, inv), transform(o, inv));
        let read = READ_BY_SYM[sym];
        for (pattern, &index) in indices.iter().enumerate() {
            if read & (1 << pattern) != 0 {
                sum += i32::from(weights[index as usize]);
            }
        }
    }
    sum
}

/// Sends `sq` through symmetry `sym`, for tests: the same as `transform`.
#[cfg(test)]
fn mapped_bit(sq: u8, sym: u8) -> u64 {
    transform(1u64 << sq, sym)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_mapping_agrees_with_the_board_transform() {
        for sym in 0..8 {
            for sq in 0..64 {
                assert_eq!(1u64 << map_square(sq, sym), mapped_bit(sq, sym));
            }
        }
    }

    #[test]
    fn fast_features_equal_the_square_by_square_definition() {
        let mut rng = fastrand::Rng::with_seed(3);
        for _ in 0..2000 {
            let board = Board::new(rng.u64(..), 0);
            let board = Board::new(board.player & rng.u64(..), !board.player & rng.u64(..));
            let mut fast = features(&board);
            let mut slow = features_by_squares(&board);
            // The same multiset of features (the order may differ).
            fast.sort_unstable();
            slow.sort_unstable();
            assert_eq!(fast, slow);
        }
    }

    #[test]
    fn the_embedded_weights_load_and_have_the_expected_shape() {
        assert!(weights_fit(), "header: {:?}", header());
        assert_eq!(
            STAGE_SIZE,
            59049 * 2 + 19683 + 6561 * 4 + 2187 + 729 + 243 + 81 + 64
        );
        assert!(header().contains("command: "), "{}", header());
        // Trained, not empty: some weights are far from zero.
        let nonzero = tables().chunks(2).filter(|w| w != &[0, 0]).count();
        assert!(nonzero > STAGES * 1000, "{nonzero}");
    }

    #[test]
    fn the_folded_evaluation_reads_the_same_sum() {
        // Every weight folds without saturating, and 46 readings of the
        // folded tables give what the 88 features read in the file's.
        let unfolded = fold_check_tables();
        assert_eq!(READ_BY_SYM.iter().map(|r| r.count_ones()).sum::<u32>(), 46);
        let mut rng = fastrand::Rng::with_seed(17);
        for _ in 0..3000 {
            let empties = 4 + rng.u32(..57);
            let board = crate::testing::random_position(&mut rng, empties);
            let expected =
                (weight_sum(tables(), &board) * DISC / WEIGHT_SCALE).clamp(-EVAL_LIMIT, EVAL_LIMIT);
            assert_eq!(evaluate(&board), expected);
            // Both paths, where this processor has the gathering one.
            let weights = &folded().weights[stage(board.empty_count()) * STAGE_SIZE..];
            let (p, o) = (board.player, board.opponent);
            let transformed = pattern_sum_transformed(weights, p, o);
            #[cfg(target_arch = "x86_64")]
            if gathers() {
                // SAFETY: the processor has BMI2.
                let gathered = unsafe { pattern_sum_gathered(folded(), weights, p, o) };
                assert_eq!(gathered, transformed);
            }
        }
        assert!(unfolded, "a folded weight saturated");
    }

    /// Whether the embedded weights fold without saturating an i16.
    fn fold_check_tables() -> bool {
        let folded = &folded().weights;
        let raw = tables();
        // A saturated entry is at i16's limits, which no stored weight
        // reaches (their sums would exceed them).
        folded.len() == FOLDED_LEN
            && raw.len() / 2 == STAGES * STAGE_SIZE
            && folded.iter().all(|&w| w != i16::MIN && w != i16::MAX)
    }

    #[test]
    fn symmetric_positions_get_equal_scores() {
        let mut rng = fastrand::Rng::with_seed(5);
        for _ in 0..300 {
            let empties = 4 + rng.u32(..56);
            let board = crate::testing::random_position(&mut rng, empties);
            let score = evaluate(&board);
            for sym in 1..8 {
                assert_eq!(evaluate(&board.transform(sym)), score);
            }
        }
    }
}
