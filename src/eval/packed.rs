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
//! A sum of pairs cannot say everything a table says (a whole edge of one
//! colour is worth more than its pairs add up to), so the entries where the
//! model is furthest off, weighted by how often they are read, also get a
//! correction: as many as the characters allow.
//!
//! Two forms. `patterns.pack` (made by `reversi pack`, embedded in the full
//! binary only): the quantised numbers and the corrections ranked best
//! first, little-endian, after a text header. The bundle's text, made from
//! it by `reversi bundle` with as many of the best corrections as the
//! judge's limit leaves room for ([`Ranked::text_within`]), and read by [`decode`]:
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

use super::pattern::{MOBILITY_SIZE, PATTERNS, STAGES, STAGE_SIZE};

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

/// Bits out, most significant first, 15 to a character.
#[cfg(not(bundle))]
struct BitWriter {
    text: String,
    word: u32,
    used: u32,
}

#[cfg(not(bundle))]
impl BitWriter {
    fn write(&mut self, value: u32, bits: u32) {
        for k in (0..bits).rev() {
            self.word = self.word << 1 | (value >> k & 1);
            self.used += 1;
            if self.used == CHAR_BITS {
                self.flush();
            }
        }
    }

    fn flush(&mut self) {
        if self.used > 0 {
            let word = self.word << (CHAR_BITS - self.used);
            self.text
                .push(char::from_u32(BASE + word).expect("BASE + 15 bits is a letter"));
            (self.word, self.used) = (0, 0);
        }
    }

    /// `value` Rice-coded with parameter `k`: the high part in unary, then
    /// the `k` low bits.
    fn rice(&mut self, value: u32, k: u32) {
        for _ in 0..value >> k {
            self.write(1, 1);
        }
        self.write(0, 1);
        self.write(value & ((1 << k) - 1), k);
    }
}

#[cfg(not(bundle))]
fn zigzag(q: i32) -> u32 {
    ((q << 1) ^ (q >> 31)) as u32
}

/// A correction: (stage, entry within the stage, value to add), in
/// 1/`WEIGHT_SCALE` discs.
pub type Correction = (usize, u32, i32);

/// The text [`decode`] reads: `header` (one line), the quantised `models`
/// (each stage's groups as [`group_sizes`] lists them, multiples of
/// [`QUANTUM`]) and `corrections` (any order, multiples of
/// [`CORRECTION_QUANTUM`]).
#[cfg(not(bundle))]
#[must_use]
pub fn encode(header: &str, models: &[Vec<i32>], corrections: &[Correction]) -> String {
    let mut bits = BitWriter {
        text: format!("{}\n", header.trim_end()),
        word: 0,
        used: 0,
    };
    let sizes = group_sizes();
    for numbers in models {
        let mut at = 0;
        for &size in &sizes {
            let group: Vec<u32> = numbers[at..at + size]
                .iter()
                .map(|&w| zigzag(w / QUANTUM))
                .collect();
            let width = 32 - group.iter().max().copied().unwrap_or(0).leading_zeros();
            bits.write(width, 5);
            for z in group {
                bits.write(z, width);
            }
            at += size;
        }
    }
    for stage in 0..models.len() {
        let mut list: Vec<(u32, u32)> = corrections
            .iter()
            .filter(|c| c.0 == stage)
            .map(|&(_, entry, value)| (entry, zigzag(value / CORRECTION_QUANTUM)))
            .collect();
        list.sort_unstable();
        let gaps: Vec<u32> = list
            .iter()
            .scan(-1i64, |last, &(entry, _)| {
                let gap = (i64::from(entry) - *last - 1) as u32;
                *last = i64::from(entry);
                Some(gap)
            })
            .collect();
        // The Rice parameter that makes the gaps shortest.
        let k = (0..16)
            .min_by_key(|&k| {
                gaps.iter()
                    .map(|&g| u64::from((g >> k) + 1 + k))
                    .sum::<u64>()
            })
            .unwrap_or(0);
        let width = 32 - list.iter().map(|c| c.1).max().unwrap_or(0).leading_zeros();
        bits.write(list.len() as u32, 17);
        bits.write(k, 4);
        bits.write(width, 5);
        for (&gap, &(_, value)) in gaps.iter().zip(&list) {
            bits.rice(gap, k);
            bits.write(value, width);
        }
    }
    bits.flush();
    bits.text
}

/// The packed evaluation as `reversi pack` leaves it: the model and every
/// correction worth making, best first.
#[cfg(not(bundle))]
pub struct Ranked {
    /// What made it (the first line of the file).
    pub header: String,
    pub models: Vec<Vec<i32>>,
    pub corrections: Vec<Correction>,
}

#[cfg(not(bundle))]
impl Ranked {
    /// The file: `header`, a blank line, then the models' numbers (`i16`),
    /// the number of corrections (`u32`) and each correction (stage `u8`,
    /// entry `u32`, value `i16`), all little-endian.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = format!("{}\n\n", self.header.trim_end()).into_bytes();
        for &w in self.models.iter().flatten() {
            bytes.extend_from_slice(&(w as i16).to_le_bytes());
        }
        bytes.extend_from_slice(&(self.corrections.len() as u32).to_le_bytes());
        for &(stage, entry, value) in &self.corrections {
            bytes.push(stage as u8);
            bytes.extend_from_slice(&entry.to_le_bytes());
            bytes.extend_from_slice(&(value as i16).to_le_bytes());
        }
        bytes
    }

    /// Reads [`Ranked::to_bytes`]; `None` if short or damaged.
    #[must_use]
    pub fn from_bytes(bytes: &[u8]) -> Option<Ranked> {
        let split = bytes.windows(2).position(|w| w == b"\n\n")?;
        let header = std::str::from_utf8(&bytes[..split]).ok()?.to_string();
        let mut at = split + 2;
        let mut take = |n: usize| {
            let slice = bytes.get(at..at + n)?;
            at += n;
            Some(slice)
        };
        let per_stage: usize = group_sizes().iter().sum();
        let mut models = Vec::with_capacity(STAGES);
        for _ in 0..STAGES {
            let mut numbers = Vec::with_capacity(per_stage);
            for _ in 0..per_stage {
                let b = take(2)?;
                numbers.push(i32::from(i16::from_le_bytes([b[0], b[1]])));
            }
            models.push(numbers);
        }
        let b = take(4)?;
        let count = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        let mut corrections = Vec::with_capacity(count as usize);
        for _ in 0..count {
            let b = take(7)?;
            let entry = u32::from_le_bytes([b[1], b[2], b[3], b[4]]);
            if usize::from(b[0]) >= STAGES || entry as usize >= STAGE_SIZE {
                return None;
            }
            corrections.push((
                usize::from(b[0]),
                entry,
                i32::from(i16::from_le_bytes([b[5], b[6]])),
            ));
        }
        Some(Ranked {
            header,
            models,
            corrections,
        })
    }

    /// The embedded one (`patterns.pack`).
    #[must_use]
    pub fn embedded() -> Option<Ranked> {
        Ranked::from_bytes(include_bytes!("patterns.pack"))
    }

    /// The text with the most of the best corrections whose length is at
    /// most `chars` characters, and how many it holds; `None` when even
    /// the model alone is longer.
    #[must_use]
    pub fn text_within(&self, chars: usize) -> Option<(String, usize)> {
        let text = |n: usize| encode(&self.header, &self.models, &self.corrections[..n]);
        if text(0).chars().count() > chars {
            return None;
        }
        let (mut fits, mut over) = (0, self.corrections.len() + 1);
        while over - fits > 1 {
            let mid = (fits + over) / 2;
            if text(mid).chars().count() <= chars {
                fits = mid;
            } else {
                over = mid;
            }
        }
        Some((text(fits), fits))
    }
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
