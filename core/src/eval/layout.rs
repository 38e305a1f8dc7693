//! The shape of the pattern evaluation: which squares each pattern reads,
//! the game stages, and where each table sits in a stage's weights. The
//! tables themselves (`eval::pattern`) and their packed form
//! (`eval::packed`) both follow this layout, and neither needs the
//! other to know it.

/// The patterns, as squares (a1 = 0, h1 = 7, a8 = 56) in reading order.
pub const PATTERNS: [&[u8]; 11] = [
    // the edge with its two X-squares
    &[0, 1, 2, 3, 4, 5, 6, 7, 9, 14],
    // the 3x3 corner
    &[0, 1, 2, 8, 9, 10, 16, 17, 18],
    // the 2x5 corner
    &[0, 1, 2, 3, 4, 8, 9, 10, 11, 12],
    // the lines of rank 2, 3 and 4
    &[8, 9, 10, 11, 12, 13, 14, 15],
    &[16, 17, 18, 19, 20, 21, 22, 23],
    &[24, 25, 26, 27, 28, 29, 30, 31],
    // the diagonals of 8, 7, 6, 5 and 4 squares
    &[0, 9, 18, 27, 36, 45, 54, 63],
    &[1, 10, 19, 28, 37, 46, 55],
    &[2, 11, 20, 29, 38, 47],
    &[3, 12, 21, 30, 39],
    &[4, 13, 22, 31],
];

/// Entries of the two mobility tables (moves 0..=31, more counts as 31).
pub const MOBILITY_SIZE: usize = 32;

/// Weights are stored in 1/`WEIGHT_SCALE` discs.
pub const WEIGHT_SCALE: i32 = 64;

/// Game stages: positions with 11..=60 empties in bands of 5; fewer empties
/// use the first band (the solver takes such positions over in play).
pub const STAGES: usize = 10;

/// The stage of a position with `empties` empty squares.
#[must_use]
pub fn stage(empties: u32) -> usize {
    ((empties.max(11) - 11) / 5).min(STAGES as u32 - 1) as usize
}

/// Table sizes: 3^squares for each pattern, then the two mobility tables.
const fn table_sizes() -> [usize; PATTERNS.len() + 2] {
    let mut sizes = [MOBILITY_SIZE; PATTERNS.len() + 2];
    let mut i = 0;
    while i < PATTERNS.len() {
        sizes[i] = 3usize.pow(PATTERNS[i].len() as u32);
        i += 1;
    }
    sizes
}

/// Each table's offset in a stage's weights, and the stage's total.
const fn offsets() -> ([usize; PATTERNS.len() + 2], usize) {
    let sizes = table_sizes();
    let mut offsets = [0; PATTERNS.len() + 2];
    let mut total = 0;
    let mut i = 0;
    while i < sizes.len() {
        offsets[i] = total;
        total += sizes[i];
        i += 1;
    }
    (offsets, total)
}

/// Weights per stage.
pub const STAGE_SIZE: usize = offsets().1;

/// Features per position: every pattern under 8 symmetries, and the two
/// mobility entries.
pub const FEATURES: usize = PATTERNS.len() * 8 + 2;

/// Each table's offset in a stage's weights.
pub const OFFSETS: [usize; PATTERNS.len() + 2] = offsets().0;
