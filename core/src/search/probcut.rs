//! ProbCut: a shallow search predicts a deep one. Where the shallow score
//! lies far enough outside the window, the deep search is taken to fail
//! the same way and is skipped. Wrong now and then by design: the midgame
//! search uses it at every depth from [`MIN_DEPTH`] (the bot's iterations,
//! at [`MIDGAME_T`]), and so do the selective solves, which search to the
//! end of the game at tightening levels; the exact solver never prunes this
//! way. This module owns the margins; the midgame search makes the cut.
//!
//! The margin is `t` standard deviations of the error of the shallow
//! search's score as an estimate of the deep one's: against a deeper
//! midgame search ([`midgame_sigma`], [`STAGE_BIAS`]) or, to the end, the
//! exact score ([`error_sigma`]), both measured on positions from the game
//! archives. A `t` is shown as the share of a normal distribution within
//! `t` standard deviations ([`confidence`]): 1.1 is 73%, as in Edax.

use crate::eval::{Score, DISC};

/// The bot's midgame iterations prune at this `t` (73%), Edax's first
/// level. 1.5 and 0.8 did not do clearly better or worse against it in 100
/// games at 100 ms (45.5% and 54.0%), and against Edax at 1 s (`--probcut
/// T`, 100 games each) 0.5, 0.7, 1.5 and 2.0 all scored less (20-28%
/// against 30%; BENCHMARKS.md, "Selective search").
pub const MIDGAME_T: f64 = 1.1;

/// Once an iteration reaches the end of the game, the next ones stay
/// there and tighten the cuts, one level each, before the exact solve:
/// 87%, 95% and 99% (Edax's levels).
pub const ENDGAME_LEVELS: [f64; 3] = [1.5, 2.0, 2.6];

/// Nodes with fewer plies to go than this are never cut: the shallow
/// search would cost nearly what it saves.
pub const MIN_DEPTH: u32 = 3;

/// ProbCut's shallow searches cut with ProbCut too, down to this many
/// levels of shallow searches inside shallow searches.
pub const NESTING: u32 = 2;

/// The selective solves before an exact one, by their `t`: how many
/// standard deviations the shallow score must clear. A loose pass first,
/// then a tighter one that the table of the first makes cheap. First
/// chosen as (0.7, 1.5), the fewest nodes on FFO #20-#39 with the
/// evaluation of the time. With the refitted one, (0.7, 1.1) takes fewer
/// nodes on FFO #20-#39 (2.3%) and on the 132 archive positions of 19-23
/// empties of `fixtures/endgame/wthor-*.obf` (7.2% in all, 14% at 23
/// empties, 0.8% more at 21), where one pass at 1.1 and (1.0, 1.5) were
/// each worse on one set by 2-4%; BENCHMARKS.md.
pub const LEVELS: [f64; 2] = [0.7, 1.1];

/// The selective solves run from this many empties up. On 40 positions
/// of 19 and 40 of 20 empties from the archives they cut the nodes by 22%
/// and 18% in about the same time; on 60 each of 16, 17 and 18 empties
/// they cut 3-5% of the nodes but took 9-16% longer (their nodes cost
/// more: an evaluation per move for ordering, and the shallow searches).
pub const SELECTIVE_FROM_EMPTIES: u32 = 19;

/// A selective solve hands over to the exact solver at this many empties
/// (9, 11, 12 and 14 took more nodes in all; BENCHMARKS.md).
pub const SELECTIVE_TO_EXACT: u32 = 10;

/// The shallow search goes this share of the deep one's plies, rounded
/// down to an even number (odd depths are biased: the side that moved last
/// looks better). 0.25 and 0.35 took more nodes.
const SHALLOW_SHARE: f64 = 0.3;

/// Standard deviation, in hundredths of a disc, of the exact score less
/// the score of a search `shallow` plies deep: a line through what
/// `reversi bench --probcut-errors` measured on 150 archive positions of
/// 16 empties and 100 of 20: 9.0 and 9.3 discs at depth 0, 8.5 and 8.0
/// at 2, 6.7 and 6.3 at 4, 6.1 and 5.7 at 6, 6.3 and 4.1 at 8.
fn error_sigma(shallow: u32) -> f64 {
    930.0 - 60.0 * f64::from(shallow)
}

/// Where a node's shallow search must land for a cut: a fail high when
/// its score reaches `beta + above`, a fail low when it stays at or under
/// `alpha - below` (hundredths of a disc). The static evaluation says
/// beforehand which of the two is worth a search: a fail high only where
/// it is at least `beta - high_gate`, a fail low only where it is under
/// `alpha + low_gate` (as Edax does: the evaluation is an even shallower
/// search, and a node far from the window on one side rarely cuts on the
/// other).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cut {
    pub shallow: u32,
    pub above: Score,
    pub below: Score,
    pub high_gate: Score,
    pub low_gate: Score,
}

/// The cut for a node with `empties` empty squares searched `plies` deep
/// at selectivity `t`: the shallow score, less its expected error, must
/// clear the window by `t` standard deviations of the error. The gates
/// take `t` standard deviations of the evaluation's own error, the mean
/// of the errors at depth 0 and at the shallow depth.
#[must_use]
pub fn cut(t: f64, empties: u32, plies: u32) -> Cut {
    if plies >= empties {
        // To the end of the game: the error against the exact score.
        let shallow = ((f64::from(empties) * SHALLOW_SHARE) as u32) & !1;
        let margin = (t * error_sigma(shallow)) as Score;
        let gate = (t * 0.5 * (error_sigma(0) + error_sigma(shallow))) as Score;
        return Cut {
            shallow,
            above: margin,
            below: margin,
            high_gate: gate,
            low_gate: gate,
        };
    }
    let shallow = midgame_shallow(plies);
    let margin = t * midgame_sigma(empties, shallow, plies);
    let gate =
        t * 0.5 * (midgame_sigma(empties, 0, plies) + midgame_sigma(empties, shallow, plies));
    let mean = stage_bias_gap(empties, plies, shallow);
    let gate_mean = stage_bias_gap(empties, plies, 0);
    let hundredths = |discs: f64| (discs * f64::from(DISC)) as Score;
    Cut {
        shallow,
        above: hundredths(margin - mean),
        below: hundredths(margin + mean),
        high_gate: hundredths(gate + gate_mean),
        low_gate: hundredths(gate - gate_mean),
    }
}

/// How much a `plies`-deep score is expected to exceed a `shallow` one at
/// `empties` empties, in discs: a search to depth d scores about (-1)^d
/// times the bias of its leaves' stage too much (see [`STAGE_BIAS`]).
fn stage_bias_gap(empties: u32, plies: u32, shallow: u32) -> f64 {
    let leaning = |depth: u32| {
        let sign = if depth.is_multiple_of(2) { 1.0 } else { -1.0 };
        sign * STAGE_BIAS[crate::eval::pattern::stage(empties - depth)]
    };
    leaning(plies) - leaning(shallow)
}

/// The shallow depth for a midgame node `plies` deep: of the depths of the
/// same parity (whose scores lean the same way), the one nearest 0.4 of
/// it: 1 for 3 and 5 plies, 2 for 4 and 6, 3 for 7 and 9, 4 for 8 and 10.
fn midgame_shallow(plies: u32) -> u32 {
    let target = 0.4 * f64::from(plies);
    (plies % 2..plies)
        .step_by(2)
        .min_by(|&a, &b| {
            (f64::from(a) - target)
                .abs()
                .total_cmp(&(f64::from(b) - target).abs())
        })
        .unwrap_or(0)
}

/// Standard deviation, in discs, of a `deep`-ply midgame score less the
/// `shallow`-ply one at `empties` empties: the line that
/// `reversi bench --probcut-errors --deep 10 --from 20 --to 52 --step 4
/// --positions 120` fits to 120 archive positions at each of 20, 24, ...
/// 52 empties (pairs of the same parity; BENCHMARKS.md), with a floor.
fn midgame_sigma(empties: u32, shallow: u32, deep: u32) -> f64 {
    let sd =
        5.668 - 0.0716 * f64::from(empties) - 0.463 * f64::from(shallow) + 0.221 * f64::from(deep);
    sd.max(1.0)
}

/// How much the evaluation overrates the side to move, in discs, by its
/// stage (`eval::pattern::stage`): a search to depth d scores about
/// (-1)^d times the bias of its leaves' stage too much, which is most of
/// the mean difference between a deep and a shallow score (the same
/// command fits it; left alone, the cuts would lean one way). The last
/// stage (56-60 empties) is never a leaf of these searches: 0.
const STAGE_BIAS: [f64; 10] = [
    -1.07, -1.39, -1.11, -1.49, -1.08, -1.10, -0.91, -1.33, -1.08, 0.0,
];

/// The share of a normal distribution within `t` standard deviations of
/// its mean, in percent: how a selectivity is shown.
#[must_use]
pub fn confidence(t: f64) -> u32 {
    // erf(t / sqrt 2) by Abramowitz and Stegun's 7.1.26, good to 1e-7.
    let x = t / std::f64::consts::SQRT_2;
    let k = 1.0 / (1.0 + 0.327_591_1 * x);
    let poly = k
        * (0.254_829_592
            + k * (-0.284_496_736
                + k * (1.421_413_741 + k * (-1.453_152_027 + k * 1.061_405_429))));
    ((1.0 - poly * (-x * x).exp()) * 100.0).round() as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn confidence_of_the_levels() {
        let shown: Vec<u32> = [1.1, 1.5, 2.0, 2.6, 3.3]
            .iter()
            .map(|&t| confidence(t))
            .collect();
        assert_eq!(shown, [73, 87, 95, 99, 100]);
    }

    #[test]
    fn shallow_depths_keep_the_parity() {
        let shallow: Vec<u32> = (3..=12).map(midgame_shallow).collect();
        assert_eq!(shallow, [1, 2, 1, 2, 3, 4, 3, 4, 5, 4]);
    }

    #[test]
    fn margins_widen_with_t_and_never_vanish() {
        for empties in 12..=60 {
            for plies in MIN_DEPTH..empties.min(30) {
                let (loose, tight) = (cut(1.1, empties, plies), cut(2.0, empties, plies));
                assert!(loose.shallow < plies);
                assert!(tight.above > loose.above && tight.below > loose.below);
                // The sum is 2 t sigma, sigma at least a disc.
                assert!(loose.above + loose.below >= 2 * 110 - 1);
            }
        }
    }
}
