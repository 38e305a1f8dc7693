//! [`super::legal_moves`] four directions at a time, for processors with
//! AVX2: the same runs of opponent discs as the portable
//! `moves_along`, each step one instruction for four directions (the
//! shifts by 1, 8, 7 and 9 squares, one per 64-bit lane), once towards
//! higher square indices and once towards lower ones. `perft 11 --every-line`
//! took 0.50-0.55 s against 0.77-0.81 s one direction at a time
//! (BENCHMARKS.md, "Perft").

use crate::bitboard::{FILE_A, FILE_H};
use std::arch::x86_64::{
    __m256i, _mm256_add_epi64, _mm256_and_si256, _mm256_castsi256_si128, _mm256_extracti128_si256,
    _mm256_or_si256, _mm256_set1_epi64x, _mm256_set_epi64x, _mm256_sllv_epi64, _mm256_srlv_epi64,
    _mm_cvtsi128_si64, _mm_or_si128, _mm_unpackhi_epi64,
};

/// The squares where `player` may move.
///
/// Inlined where the caller is compiled for AVX2 too (the midgame's fast
/// path), called elsewhere.
///
/// # Safety
/// The processor must have AVX2.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn legal_moves(player: u64, opponent: u64) -> u64 {
    let empty = !(player | opponent);
    // As in the portable path: opponent discs on the A and H files cannot
    // be inside a horizontal or diagonal run, so those lanes drop them and
    // no shift needs a mask of its own. Lanes, low to high: 1, 8, 7, 9.
    let inner = (opponent & !(FILE_A | FILE_H)) as i64;
    let runs_through = _mm256_set_epi64x(inner, inner, opponent as i64, inner);
    let step = _mm256_set_epi64x(9, 7, 8, 1);
    let player = _mm256_set1_epi64x(player as i64);
    let up = runs::<true>(player, runs_through, step);
    let down = runs::<false>(player, runs_through, step);
    let lanes = _mm256_or_si256(up, down);
    let half = _mm_or_si128(
        _mm256_castsi256_si128(lanes),
        _mm256_extracti128_si256::<1>(lanes),
    );
    let all = _mm_or_si128(half, _mm_unpackhi_epi64(half, half));
    (_mm_cvtsi128_si64(all) as u64) & empty
}

/// Per lane, the squares one step beyond a run of `inner` discs that starts
/// next to a `player` disc, stepping by the lane's `step` squares: up
/// (`LEFT`) or down. A run is at most 6 discs: two single steps, then two
/// double steps over pairs of run discs, as in the portable path.
#[inline]
#[target_feature(enable = "avx2")]
fn runs<const LEFT: bool>(player: __m256i, inner: __m256i, step: __m256i) -> __m256i {
    let sh = |x: __m256i, n: __m256i| {
        if LEFT {
            _mm256_sllv_epi64(x, n)
        } else {
            _mm256_srlv_epi64(x, n)
        }
    };
    let double = _mm256_add_epi64(step, step);
    let mut run = _mm256_and_si256(inner, sh(player, step));
    run = _mm256_or_si256(run, _mm256_and_si256(inner, sh(run, step)));
    let pairs = _mm256_and_si256(inner, sh(inner, step));
    run = _mm256_or_si256(run, _mm256_and_si256(pairs, sh(run, double)));
    run = _mm256_or_si256(run, _mm256_and_si256(pairs, sh(run, double)));
    sh(run, step)
}
