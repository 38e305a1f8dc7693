//! `reversi pack`: the pattern weights modelled small enough for the
//! one-file bundle (the model and its text are described in
//! `eval::packed`), and what that costs in accuracy.
//!
//! 1. Read the archives' games and label them as `reversi train` does
//!    (the same held-out games).
//! 2. Count how often the training positions read each entry of each
//!    table: an entry no position reads costs nothing to get wrong, one
//!    that most read costs a great deal.
//! 3. For each stage and pattern, fit the model's numbers to the embedded
//!    table by least squares weighted by those counts (a small ridge keeps
//!    numbers that no position pins down at zero); quantise them and write
//!    the text.
//! 4. Read the text back as the bundle will, and print the held-out mean
//!    absolute error per stage of the full tables and of the packed ones.

use crate::eval::packed::{self, model_size, pair_offsets, BASE, CHAR_BITS, QUANTUM};
use crate::eval::pattern::{self, MOBILITY_SIZE, PATTERNS, STAGES, STAGE_SIZE, WEIGHT_SCALE};
use crate::train::{label_all, read_games, HOLD_OUT};
use std::io::{self, Write};
use std::path::Path;

/// Options of `reversi pack`.
pub struct Options<'a> {
    pub games_dir: &'a Path,
    pub out: &'a Path,
    pub jobs: usize,
    /// Use one game in this many (1: all), for a quicker run.
    pub every: usize,
    /// The command line, recorded in the text's header.
    pub command: String,
}

/// Pulls the fitted numbers towards zero by this much against counts of
/// reads, which run to the hundreds of thousands.
const RIDGE: f64 = 1.0;

/// The whole pipeline; progress and the held-out errors go to `log`.
pub fn run(options: &Options, log: &mut impl Write) -> io::Result<()> {
    let full = pattern::tables();
    if !pattern::weights_fit() {
        return Err(io::Error::other("the embedded weights are not usable"));
    }
    let games = read_games(options.games_dir, Vec::new(), options.every, log)?;
    writeln!(
        log,
        "labelling {} games with {} jobs",
        games.len(),
        options.jobs
    )?;
    let (train, test) = label_all(&games, options.jobs, log);
    writeln!(
        log,
        "{} training positions, {} held out",
        train.len(),
        test.len()
    )?;

    let mut counts = vec![vec![0u32; STAGE_SIZE]; STAGES];
    for sample in &train {
        let stage = pattern::stage(sample.board.empty_count());
        for f in pattern::features(&sample.board) {
            counts[stage][f as usize] += 1;
        }
    }
    let stages: Vec<usize> = (0..STAGES).collect();
    let numbers = crate::parallel::map(options.jobs, &stages, |&stage| {
        let weight = |at: usize| {
            let at = 2 * (stage * STAGE_SIZE + at);
            i32::from(i16::from_le_bytes([full[at], full[at + 1]]))
        };
        fit_stage(&counts[stage], weight)
    });
    let text = encode(&numbers, &options.command);
    std::fs::write(options.out, &text)?;
    writeln!(
        log,
        "wrote {} ({} characters, {} bytes)",
        options.out.display(),
        text.chars().count(),
        text.len()
    )?;

    let packed = packed::decode(&text)
        .map(|stages| packed::expand(&stages))
        .ok_or_else(|| io::Error::other("the text just written does not read back"))?;
    writeln!(
        log,
        "held-out mean absolute error, discs (one game in {HOLD_OUT}):"
    )?;
    writeln!(log, "stage empties positions full packed")?;
    for stage in 0..STAGES {
        let (mut n, mut by_full, mut by_packed) = (0u64, 0f64, 0f64);
        for s in test
            .iter()
            .filter(|s| pattern::stage(s.board.empty_count()) == stage)
        {
            let label = f64::from(s.label);
            let disc = |sum: i32| f64::from(sum) / f64::from(WEIGHT_SCALE);
            by_full += (disc(pattern::weight_sum(full, &s.board)) - label).abs();
            by_packed += (disc(pattern::weight_sum(&packed, &s.board)) - label).abs();
            n += 1;
        }
        let low = 11 + 5 * stage;
        let high = if stage + 1 == STAGES { 60 } else { low + 4 };
        let n_f = n.max(1) as f64;
        writeln!(
            log,
            "{stage:5} {low:3}-{high:<3} {n:9} {:5.2} {:6.2}",
            by_full / n_f,
            by_packed / n_f
        )?;
    }
    Ok(())
}

/// One stage's numbers, in 1/`WEIGHT_SCALE` discs, groups as
/// `packed::group_sizes` lists them; `weight(at)` is the full table entry
/// at `at` within the stage, `counts[at]` how often it is read.
fn fit_stage(counts: &[u32], weight: impl Fn(usize) -> i32) -> Vec<i32> {
    let mut numbers = Vec::new();
    let mut offset = 0;
    for squares in PATTERNS {
        let n = squares.len();
        let size = 3usize.pow(n as u32);
        let fitted = fit_pattern(n, |index| {
            (
                f64::from(counts[offset + index]),
                f64::from(weight(offset + index)),
            )
        });
        numbers.extend(fitted.iter().map(|&x| x.round() as i32));
        offset += size;
    }
    // the mobility tables, as they are
    numbers.extend((offset..offset + 2 * MOBILITY_SIZE).map(&weight));
    numbers
}

/// The model's numbers for a pattern of `n` squares whose entry `index`
/// has (reads, value) `entry(index)`: weighted least squares.
fn fit_pattern(n: usize, entry: impl Fn(usize) -> (f64, f64)) -> Vec<f64> {
    let size = model_size(n);
    let pair_at = pair_offsets(n);
    let mut normal = vec![0f64; size * size];
    let mut right = vec![0f64; size];
    let mut active = Vec::with_capacity(size);
    for index in 0..3usize.pow(n as u32) {
        let (reads, value) = entry(index);
        if reads == 0.0 {
            continue;
        }
        let digits: Vec<usize> = (0..n)
            .map(|i| index / 3usize.pow((n - 1 - i) as u32) % 3)
            .collect();
        active.clear();
        active.push(0);
        for i in 0..n {
            if digits[i] == 0 {
                continue;
            }
            active.push(1 + 2 * i + digits[i] - 1);
            for j in i + 1..n {
                if digits[j] != 0 {
                    active.push(pair_at[i][j] + 2 * (digits[i] - 1) + digits[j] - 1);
                }
            }
        }
        for &a in &active {
            right[a] += reads * value;
            for &b in &active {
                normal[a * size + b] += reads;
            }
        }
    }
    for a in 0..size {
        normal[a * size + a] += RIDGE;
    }
    solve_positive(&mut normal, &right, size)
}

/// Solves `matrix` x = `right` for a symmetric positive definite `matrix`
/// (`size` x `size`, row-major; overwritten) by Cholesky's method.
fn solve_positive(matrix: &mut [f64], right: &[f64], size: usize) -> Vec<f64> {
    for j in 0..size {
        let mut diagonal = matrix[j * size + j];
        for k in 0..j {
            diagonal -= matrix[j * size + k] * matrix[j * size + k];
        }
        let pivot = diagonal.max(f64::MIN_POSITIVE).sqrt();
        matrix[j * size + j] = pivot;
        for i in j + 1..size {
            let mut x = matrix[i * size + j];
            for k in 0..j {
                x -= matrix[i * size + k] * matrix[j * size + k];
            }
            matrix[i * size + j] = x / pivot;
        }
    }
    // L y = right, then L^T x = y
    let mut y = right.to_vec();
    for i in 0..size {
        for k in 0..i {
            y[i] -= matrix[i * size + k] * y[k];
        }
        y[i] /= matrix[i * size + i];
    }
    for i in (0..size).rev() {
        for k in i + 1..size {
            y[i] -= matrix[k * size + i] * y[k];
        }
        y[i] /= matrix[i * size + i];
    }
    y
}

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
}

/// The text of `stages` (numbers in 1/`WEIGHT_SCALE` discs, each stage's
/// groups as `packed::group_sizes` lists them), quantised.
fn encode(stages: &[Vec<i32>], command: &str) -> String {
    let header = format!(
        "reversi packed weights v1, {command}, from: {}\n",
        pattern::header().lines().nth(1).unwrap_or("?")
    );
    let mut bits = BitWriter {
        text: header,
        word: 0,
        used: 0,
    };
    let sizes = packed::group_sizes();
    for numbers in stages {
        let mut at = 0;
        for &size in &sizes {
            let zigzag: Vec<u32> = numbers[at..at + size]
                .iter()
                .map(|&w| {
                    let q = (f64::from(w) / f64::from(QUANTUM)).round() as i32;
                    ((q << 1) ^ (q >> 31)) as u32
                })
                .collect();
            let width = 32 - zigzag.iter().max().copied().unwrap_or(0).leading_zeros();
            bits.write(width, 5);
            for z in zigzag {
                bits.write(z, width);
            }
            at += size;
        }
    }
    bits.flush();
    bits.text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_that_is_a_sum_of_pairs_is_fitted_exactly() {
        let n = 4;
        let model: Vec<i32> = (0..model_size(n) as i32).map(|k| k * 7 % 23 - 11).collect();
        let table = packed::expand_pattern(n, &model);
        let fitted = fit_pattern(n, |index| (1000.0, f64::from(table[index])));
        for (f, m) in fitted.iter().zip(&model) {
            assert!((f - f64::from(*m)).abs() < 0.05, "{f} against {m}");
        }
    }

    #[test]
    fn encoded_numbers_decode_to_themselves_rounded_to_the_quantum() {
        let per_stage: usize = packed::group_sizes().iter().sum();
        let stages: Vec<Vec<i32>> = (0..STAGES)
            .map(|s| {
                (0..per_stage)
                    .map(|k| ((k * 31 + s * 7) % 401) as i32 - 200)
                    .collect()
            })
            .collect();
        let text = encode(&stages, "test");
        let decoded = packed::decode(&text).expect("reads back");
        for (a, b) in stages.iter().flatten().zip(decoded.iter().flatten()) {
            assert!((a - b).abs() <= QUANTUM / 2, "{a} against {b}");
        }
        let half: String = text.chars().take(text.chars().count() / 2).collect();
        assert!(packed::decode(&half).is_none(), "a short text is refused");
    }
}
