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
//! are fitted to the full tables by `reversi pack` (`src/pack.rs`), which
//! weighs each entry by how often real positions read it, and stored
//! quantised; the bundle expands them back into full tables as it starts,
//! and the evaluation then runs exactly as with the full weights.
//!
//! The text (`patterns.packed`): a header line, then characters carrying
//! 15 bits each (`BASE` plus the bits, all CJK and Hangul letters, so that
//! a judge counting characters gets two bytes' worth from each). The bits,
//! most significant first: stage by stage, pattern by pattern, then the
//! two mobility tables, each group as a 5-bit width `b`, then its numbers
//! as `b`-bit zig-zag integers in units of [`QUANTUM`] / `WEIGHT_SCALE`
//! discs.

use super::pattern::{MOBILITY_SIZE, PATTERNS, STAGES, STAGE_SIZE};

/// Each character's value: its code point less this.
pub const BASE: u32 = 0x4E00;

/// Bits per character.
pub const CHAR_BITS: u32 = 15;

/// The step of the stored numbers, in 1/`WEIGHT_SCALE` discs (1/32 disc):
/// finer costs characters and gains nothing measurable (`reversi pack`
/// prints the held-out error).
pub const QUANTUM: i32 = 2;

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

/// Reads the numbers of every stage: for each stage, its groups (as
/// [`group_sizes`]) one after another, in 1/`WEIGHT_SCALE` discs; `None`
/// if the text is short or damaged.
#[must_use]
pub fn decode(text: &str) -> Option<Vec<Vec<i32>>> {
    let body = text.split_once('\n')?.1;
    let mut bits = BitReader::new(body);
    let sizes = group_sizes();
    let mut stages = Vec::with_capacity(STAGES);
    for _ in 0..STAGES {
        let mut numbers = Vec::new();
        for &size in &sizes {
            let width = bits.read(5)?;
            for _ in 0..size {
                let z = bits.read(width)? as i32;
                numbers.push(((z >> 1) ^ -(z & 1)) * QUANTUM);
            }
        }
        stages.push(numbers);
    }
    Some(stages)
}

/// The entries of a pattern table of `n` squares from its model's numbers
/// (the order of [`model_size`]): entry `index` has square `i`'s state
/// (0 empty, 1 ours, 2 theirs) as its base-3 digit `n - 1 - i`.
#[must_use]
pub fn expand_pattern(n: usize, model: &[i32]) -> Vec<i32> {
    let pair_at = pair_offsets(n);
    let mut table = Vec::with_capacity(3usize.pow(n as u32));
    let mut digits = vec![0usize; n];
    for index in 0..3usize.pow(n as u32) {
        let mut rest = index;
        for i in (0..n).rev() {
            digits[i] = rest % 3;
            rest /= 3;
        }
        let mut sum = model[0];
        for i in 0..n {
            if digits[i] == 0 {
                continue;
            }
            sum += model[1 + 2 * i + digits[i] - 1];
            for j in i + 1..n {
                if digits[j] != 0 {
                    sum += model[pair_at[i][j] + 2 * (digits[i] - 1) + digits[j] - 1];
                }
            }
        }
        table.push(sum);
    }
    table
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

/// Full tables from decoded stages, laid out as in a weights file (the
/// little-endian `i16` bytes `pattern::tables` gives).
#[must_use]
pub fn expand(stages: &[Vec<i32>]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(2 * STAGES * STAGE_SIZE);
    for numbers in stages {
        let mut at = 0;
        for squares in PATTERNS {
            let size = model_size(squares.len());
            for w in expand_pattern(squares.len(), &numbers[at..at + size]) {
                let w = w.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16;
                bytes.extend_from_slice(&w.to_le_bytes());
            }
            at += size;
        }
        for &w in &numbers[at..] {
            bytes.extend_from_slice(&(w as i16).to_le_bytes());
        }
    }
    bytes
}

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
