//! ProbCut: a shallow search predicts a deep one. Where the shallow score
//! lies far enough outside the window, the deep search is taken to fail
//! the same way and is skipped. Wrong now and then by design, so it is used
//! only by the selective solves that fill the table before an exact solve
//! (`root::solve_root`); the exact solver never prunes this way. This
//! module owns the margins; the midgame search makes the cut.
//!
//! The margin is `t` standard deviations of the error of the shallow
//! search's score as an estimate of the exact one, measured on positions
//! from the game archives (see [`error_sigma`]).

use crate::eval::Score;

/// The selective solves before an exact one, by their `t`: how many
/// standard deviations the shallow score must clear. A loose pass first,
/// then a tighter one that the table of the first makes cheap. Of the
/// variants tried (one pass at 0.9 to 1.35; (0.5, 1.0), (0.7, 1.1),
/// (0.5, 1.0, 1.5), (0.7, 1.5, 2.5)) these took the fewest nodes on FFO
/// #20-#39, and on 52 archive positions of 21 and 23 empties 0.2% more
/// than the fewest, (0.7, 1.1); BENCHMARKS.md.
pub const LEVELS: [f64; 2] = [0.7, 1.5];

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

/// The shallow depth and the margin, in hundredths of a disc, for a node
/// `plies` deep at selectivity `t`: the shallow score must clear the window
/// by `t` standard deviations of its error.
#[must_use]
pub fn margin(t: f64, plies: u32) -> (u32, Score) {
    let shallow = ((f64::from(plies) * SHALLOW_SHARE) as u32) & !1;
    (shallow, (t * error_sigma(shallow)) as Score)
}
