//! The pattern evaluation packed small, for the one-file bundle
//! (`reversi bundle`), whose judges take at most 100,000 characters of
//! source: the 3.3 MB of tables do not fit, a model of them does.
//!
//! Each pattern table of each stage is modelled as a sum over its squares
//! and over its pairs of squares: a constant, a weight for each square
//! holding a disc of either side, and a weight for each pair of squares
//! both holding discs (four: ours-ours, ours-theirs, theirs-ours,
//! theirs-theirs). A pattern of 10 squares needs 201 numbers for its
//! 59,049 entries. The mobility tables are kept as they are. The numbers
//! are fitted to the full tables by `reversi pack` (in the tools, `src/bundle/fit.rs`), which
//! weighs each entry by how often real positions read it, and stored
//! quantised; the bundle expands them back into full tables as it starts,
//! and the evaluation then runs exactly as with the full weights.
//!
//! A sum of pairs cannot say everything a table says (a whole edge of one
//! colour is worth more than its pairs add up to), so the entries where the
//! model is furthest off, weighted by how often they are read, also get a
//! correction: as many as the characters allow.
//!
//! Two forms. `patterns.pack` (made by `reversi pack`, embedded in the full
//! binary only): the quantised numbers and the corrections ranked best
//! first, little-endian, after a text header. The bundle's text, made from
//! it by `reversi bundle` with as many of the best corrections as the
//! judge's limit leaves room for, and read by [`decode`]:
//! a header line, then characters carrying
//! 15 bits each (`BASE` plus the bits, all CJK and Hangul letters, so that
//! a judge counting characters gets two bytes' worth from each). The bits,
//! most significant first: stage by stage, pattern by pattern, then the
//! two mobility tables, each group as a 5-bit width `b`, then its numbers
//! as `b`-bit zig-zag integers in units of [`QUANTUM`] / `WEIGHT_SCALE`
//! discs. Then the corrections, stage by stage: their count (17 bits), a
//! Rice parameter `k` (4 bits) and a value width `w` (5 bits), then each
//! correction as the gap from the entry before (Rice-coded with `k`; the
//! first counts from -1) and its value (`w`-bit zig-zag, in units of
//! [`CORRECTION_QUANTUM`] / `WEIGHT_SCALE` discs).

use super::layout::{MOBILITY_SIZE, PATTERNS, STAGES, STAGE_SIZE};

/// Each character's value: its code point less this.
pub const BASE: u32 = 0x4E00;

/// Bits per character.
pub const CHAR_BITS: u32 = 15;

/// The step of the stored numbers, in 1/`WEIGHT_SCALE` discs (1/32 disc):
/// finer costs characters and gains nothing measurable (`reversi pack`
/// prints the held-out error).
pub const QUANTUM: i32 = 2;

/// The step of the corrections, in 1/`WEIGHT_SCALE` discs (1/8 disc).
pub const CORRECTION_QUANTUM: i32 = 8;

/// The model's numbers for a pattern of `n` squares: the constant, two per
/// square, four per pair.
#[must_use]
pub const fn model_size(n: usize) -> usize {
    1 + 2 * n + 4 * (n * (n - 1) / 2)
}

/// The numbers' groups, in the order they are stored in a stage: one per
/// pattern, then the two mobility tables.
#[must_use]
pub fn group_sizes() -> Vec<usize> {
    PATTERNS
        .iter()
        .map(|squares| model_size(squares.len()))
        .chain([MOBILITY_SIZE, MOBILITY_SIZE])
        .collect()
}

/// Bits in, most significant first.
pub struct BitReader<'a> {
    chars: std::str::Chars<'a>,
    word: u32,
    left: u32,
}

impl<'a> BitReader<'a> {
    /// A reader of the bits that `text`'s characters carry.
    #[must_use]
    pub fn new(text: &'a str) -> BitReader<'a> {
        BitReader {
            chars: text.chars(),
            word: 0,
            left: 0,
        }
    }

    /// The next `bits` bits (at most 16), or `None` past the end or at a
    /// character outside the code.
    pub fn read(&mut self, bits: u32) -> Option<u32> {
        let mut value = 0;
        for _ in 0..bits {
            if self.left == 0 {
                self.word = u32::from(self.chars.next()?).checked_sub(BASE)?;
                if self.word >> CHAR_BITS != 0 {
                    return None;
                }
                self.left = CHAR_BITS;
            }
            self.left -= 1;
            value = value << 1 | (self.word >> self.left & 1);
        }
        Some(value)
    }
}

/// A packed evaluation, read.
pub struct Packed {
    /// For each stage, its numbers: the groups (as [`group_sizes`]) one
    /// after another, in 1/`WEIGHT_SCALE` discs.
    pub models: Vec<Vec<i32>>,
    /// For each stage, (entry, value to add) in increasing entry order;
    /// entries are numbered as in a stage of a weights file.
    pub corrections: Vec<Vec<(u32, i32)>>,
}

/// Reads a packed text; `None` if it is short or damaged.
#[must_use]
pub fn decode(text: &str) -> Option<Packed> {
    let body = text.split_once('\n')?.1;
    let mut bits = BitReader::new(body);
    let zigzag = |z: u32| ((z >> 1) as i32) ^ -((z & 1) as i32);
    let sizes = group_sizes();
    let mut models = Vec::with_capacity(STAGES);
    for _ in 0..STAGES {
        let mut numbers = Vec::new();
        for &size in &sizes {
            let width = bits.read(5)?;
            for _ in 0..size {
                numbers.push(zigzag(bits.read(width)?) * QUANTUM);
            }
        }
        models.push(numbers);
    }
    let mut corrections = Vec::with_capacity(STAGES);
    for _ in 0..STAGES {
        let count = bits.read(17)?;
        let (k, width) = (bits.read(4)?, bits.read(5)?);
        let mut entry = -1i64;
        let mut list = Vec::with_capacity(count as usize);
        for _ in 0..count {
            let mut high = 0i64;
            while bits.read(1)? == 1 {
                high += 1;
            }
            entry += 1 + (high << k | i64::from(bits.read(k)?));
            if entry >= STAGE_SIZE as i64 {
                return None;
            }
            list.push((entry as u32, zigzag(bits.read(width)?) * CORRECTION_QUANTUM));
        }
        corrections.push(list);
    }
    Some(Packed {
        models,
        corrections,
    })
}

/// The entries of a pattern table of `n` squares from its model's numbers
/// (the order of [`model_size`]): entry `index` has square `i`'s state
/// (0 empty, 1 ours, 2 theirs) as its base-3 digit `n - 1 - i`.
#[must_use]
pub fn expand_pattern(n: usize, model: &[i32]) -> Vec<i32> {
    let mut table = Vec::with_capacity(3usize.pow(n as u32));
    let mut digits = vec![0usize; n];
    fill(
        &pair_offsets(n),
        model,
        0,
        model[0],
        &mut digits,
        &mut table,
    );
    table
}

/// Appends the entries whose first `k` digits are `digits[..k]` and whose
/// sum over those squares is `partial`, in index order: each square's
/// weight and its pairs with the squares before it are added once for all
/// the entries below it, which makes start-up several times quicker than
/// summing every entry from scratch.
fn fill(
    pair_at: &[Vec<usize>],
    model: &[i32],
    k: usize,
    partial: i32,
    digits: &mut [usize],
    table: &mut Vec<i32>,
) {
    if k == digits.len() {
        table.push(partial);
        return;
    }
    for d in 0..3 {
        digits[k] = d;
        let mut sum = partial;
        if d != 0 {
            sum += model[1 + 2 * k + d - 1];
            for i in 0..k {
                if digits[i] != 0 {
                    sum += model[pair_at[i][k] + 2 * (digits[i] - 1) + d - 1];
                }
            }
        }
        fill(pair_at, model, k + 1, sum, digits, table);
    }
}

/// Where pair (i, j), i < j, starts among a model's numbers.
#[must_use]
pub fn pair_offsets(n: usize) -> Vec<Vec<usize>> {
    let mut at = vec![vec![0; n]; n];
    let mut next = 1 + 2 * n;
    for (i, row) in at.iter_mut().enumerate() {
        for entry in &mut row[i + 1..] {
            *entry = next;
            next += 4;
        }
    }
    at
}

/// Full tables from a packed evaluation, laid out as in a weights file
/// (the little-endian `i16` bytes `pattern::tables` gives).
#[must_use]
pub fn expand(packed: &Packed) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(2 * STAGES * STAGE_SIZE);
    for (numbers, corrections) in packed.models.iter().zip(&packed.corrections) {
        let mut entries = Vec::with_capacity(STAGE_SIZE);
        let mut at = 0;
        for squares in PATTERNS {
            let size = model_size(squares.len());
            entries.extend(expand_pattern(squares.len(), &numbers[at..at + size]));
            at += size;
        }
        entries.extend_from_slice(&numbers[at..]);
        for &(entry, value) in corrections {
            entries[entry as usize] += value;
        }
        for w in entries {
            let w = w.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16;
            bytes.extend_from_slice(&w.to_le_bytes());
        }
    }
    bytes
}

/// A correction: (stage, entry within the stage, value to add), in
/// 1/`WEIGHT_SCALE` discs.
pub type Correction = (usize, u32, i32);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_model_expands_to_its_sums_of_squares_and_pairs() {
        // three squares: constant 1, square weights 10s, pair weights 100s
        let n = 3;
        let mut model = vec![1, 10, 20, 30, 40, 50, 60];
        model.extend([
            100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 1100, 1200,
        ]);
        assert_eq!(model.len(), model_size(n));
        let table = expand_pattern(n, &model);
        assert_eq!(table.len(), 27);
        assert_eq!(table[0], 1); // all empty
                                 // square 0 ours (digit weight 9), square 2 theirs (weight 1):
                                 // constant, square 0's "ours" (10), square 2's "theirs" (60), and
                                 // pair (0, 2) ours-theirs: the second of its four (600)
        assert_eq!(table[9 + 2], 1 + 10 + 60 + 600);
        // all three theirs: 20 + 40 + 60 and the last of each pair's four
        assert_eq!(table[26], 1 + 20 + 40 + 60 + 400 + 800 + 1200);
    }

    #[test]
    fn bits_read_back_across_characters() {
        // 15-bit characters: 0b101, 0, eleven ones; then 1 and fourteen 0s
        let text: String = [BASE + 0b101_0111_1111_1111, BASE + (1 << 14)]
            .iter()
            .map(|&c| char::from_u32(c).expect("valid"))
            .collect();
        let mut bits = BitReader::new(&text);
        assert_eq!(bits.read(3), Some(0b101));
        assert_eq!(bits.read(1), Some(0));
        assert_eq!(bits.read(11), Some(0x7ff));
        assert_eq!(bits.read(2), Some(0b10), "across the two characters");
        assert_eq!(bits.read(13), Some(0));
        assert_eq!(bits.read(1), None);
        assert_eq!(BitReader::new("a").read(1), None, "outside the code");
    }
}
