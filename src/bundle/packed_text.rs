//! The bundle's packed evaluation, written: `patterns.pack` as `reversi
//! pack` leaves it (the model and its corrections ranked best first), and
//! the text the bundle carries, in the format that
//! `reversi_core::eval::packed` reads (described there).

use reversi_core::eval::layout::{STAGES, STAGE_SIZE};
use reversi_core::eval::packed::{
    group_sizes, Correction, BASE, CHAR_BITS, CORRECTION_QUANTUM, QUANTUM,
};

/// Bits out, most significant first, 15 to a character.
struct BitWriter {
    text: String,
    word: u32,
    used: u32,
}

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

fn zigzag(q: i32) -> u32 {
    ((q << 1) ^ (q >> 31)) as u32
}

/// The text `reversi_core::eval::packed::decode` reads: `header` (one line), the quantised `models`
/// (each stage's groups as `group_sizes` lists them, multiples of
/// `QUANTUM`) and `corrections` (any order, multiples of
/// `CORRECTION_QUANTUM`).
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
pub struct Ranked {
    /// What made it (the first line of the file).
    pub header: String,
    pub models: Vec<Vec<i32>>,
    pub corrections: Vec<Correction>,
}

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
