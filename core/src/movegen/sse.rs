//! [`super::flips`] two directions at a time in 128-bit registers, on
//! processors with SSE4.1 (every x86-64-v2 one, the level this crate
//! builds for; `.cargo/config.toml`). Along a ray of growing square
//! indices the nearest square that is not the opponent's is the ray's
//! lowest such bit, found with `x & -x`, which vector arithmetic does for
//! two rays at once. The rays towards lower indices that leave the rank
//! (north, north-west, north-east) become such rays on the board turned
//! upside down (its bytes swapped), so only the ray west along the rank
//! is left to the scalar `flips_down`.

use std::arch::x86_64::{
    __m128i, _mm_add_epi64, _mm_and_si128, _mm_andnot_si128, _mm_cmpeq_epi64, _mm_cvtsi128_si64,
    _mm_load_si128, _mm_or_si128, _mm_set1_epi64x, _mm_setzero_si128, _mm_sub_epi64,
    _mm_unpackhi_epi64,
};

/// A square's rays, two to a register: east and south, south-east and
/// south-west, then on the board turned upside down (the square's mirror,
/// `index ^ 56`) what were north and north-west, north-east and (unused)
/// nothing.
#[repr(C, align(64))]
struct Rays([u64; 8]);

const PAIRED_RAYS: [Rays; 64] = {
    let mut table = [const { Rays([0; 8]) }; 64];
    let mut sq = 0;
    while sq < 64 {
        let rays = super::RAYS[sq];
        let mirrored = super::RAYS[sq ^ 56];
        // upside down, north is south (1), north-west south-west (3) and
        // north-east south-east (2)
        table[sq] = Rays([
            rays[0],
            rays[1],
            rays[2],
            rays[3],
            mirrored[1],
            mirrored[3],
            mirrored[2],
            0,
        ]);
        sq += 1;
    }
    table
};

/// Per lane, the `opponent` discs along `ray` up to the nearest `player`
/// disc, or none when an empty square or the edge comes first.
#[inline(always)]
fn runs_up(ray: __m128i, player: __m128i, opponent: __m128i) -> __m128i {
    // SAFETY: SSE2 and SSE4.1 instructions, which this module's processors
    // have (it is built only where the target has SSE4.1).
    unsafe {
        let zero = _mm_setzero_si128();
        let stops = _mm_andnot_si128(opponent, ray);
        let nearest = _mm_and_si128(stops, _mm_sub_epi64(zero, stops));
        let outflank = _mm_and_si128(nearest, player);
        let open = _mm_cmpeq_epi64(outflank, zero);
        let below = _mm_add_epi64(outflank, _mm_set1_epi64x(-1));
        _mm_andnot_si128(open, _mm_and_si128(below, ray))
    }
}

/// The opponent discs that a `player` disc on square `index` turns over,
/// but for those west of it along its rank.
#[inline(always)]
pub(super) fn flips_but_west(index: usize, player: u64, opponent: u64) -> u64 {
    let rays = PAIRED_RAYS[index].0.as_ptr();
    // SAFETY: as above; the loads read 16-byte aligned pairs inside the
    // square's 64-byte entry.
    unsafe {
        let p = _mm_set1_epi64x(player as i64);
        let o = _mm_set1_epi64x(opponent as i64);
        let pm = _mm_set1_epi64x(player.swap_bytes() as i64);
        let om = _mm_set1_epi64x(opponent.swap_bytes() as i64);
        let ray = |i: usize| _mm_load_si128(rays.add(i).cast::<__m128i>());
        let here = _mm_or_si128(runs_up(ray(0), p, o), runs_up(ray(2), p, o));
        let there = _mm_or_si128(runs_up(ray(4), pm, om), runs_up(ray(6), pm, om));
        let fold = |v: __m128i| _mm_cvtsi128_si64(_mm_or_si128(v, _mm_unpackhi_epi64(v, v))) as u64;
        fold(here) | fold(there).swap_bytes()
    }
}
