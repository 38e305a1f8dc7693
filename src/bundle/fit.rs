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
//!    numbers that no position pins down at zero), and quantise them.
//! 4. Rank the corrections of the entries where the model is furthest
//!    off, weighted by their counts (count times squared error, largest
//!    first), and write the model and the best of them
//!    (`src/bundle/patterns.pack`); `reversi bundle` takes as many as its
//!    file has room for.
//! 5. Make the bundle's text at a few sizes, read it back as the bundle
//!    will, and print the held-out mean absolute error per stage of the
//!    full tables and of the packed ones.
//!
//! Tried and not kept: refining the fitted numbers on the labelled
//! positions themselves by gradient descent, as `train` fits its tables
//! (BENCHMARKS.md, "The bundle").

use crate::bundle::packed_text::Ranked;
use crate::bundle::{bundle_with, Protocol};
use crate::records::archive::{read_games, ArchiveRun};
use crate::training::{label_logged, Labels, HOLD_OUT};
use reversi_core::eval::packed::{
    self, model_size, pair_offsets, Correction, CORRECTION_QUANTUM, QUANTUM,
};
use reversi_core::eval::pattern::{
    self, MOBILITY_SIZE, PATTERNS, STAGES, STAGE_SIZE, WEIGHT_SCALE,
};
use std::io::{self, Write};

/// Pulls the fitted numbers towards zero by this much against counts of
/// reads, which run to the hundreds of thousands.
const RIDGE: f64 = 1.0;

/// The whole pipeline; progress and the held-out errors go to `log`.
pub fn run(options: &ArchiveRun, log: &mut impl Write) -> io::Result<()> {
    let full = pattern::tables();
    if !pattern::weights_fit() {
        return Err(io::Error::other("the embedded weights are not usable"));
    }
    let games = read_games(options.games_dir, Vec::new(), options.every, log)?;
    let (train, test) = label_logged(&games, Labels::default(), options.jobs, log)?;

    let mut counts = vec![vec![0u32; STAGE_SIZE]; STAGES];
    for sample in &train {
        let stage = pattern::stage(sample.board.empty_count());
        for f in pattern::features(&sample.board) {
            counts[stage][f as usize] += 1;
        }
    }
    let stages: Vec<usize> = (0..STAGES).collect();
    let weight = |stage: usize, at: usize| {
        let at = 2 * (stage * STAGE_SIZE + at);
        i32::from(i16::from_le_bytes([full[at], full[at + 1]]))
    };
    let models = crate::util::parallel::map(options.jobs, &stages, |&stage| {
        fit_stage(&counts[stage], |at| weight(stage, at))
            .iter()
            .map(|&w| quantise(w, QUANTUM))
            .collect::<Vec<i32>>()
    });
    let mut candidates = corrections(&models, &counts, weight);
    candidates.truncate(MAX_CORRECTIONS);
    let ranked = Ranked {
        header: format!(
            "reversi packed weights v1, {}, from: {}",
            options.command,
            pattern::header().lines().nth(1).unwrap_or("?")
        ),
        models,
        corrections: candidates,
    };
    let bytes = ranked.to_bytes();
    crate::util::files::write_atomically(options.out, &bytes)?;
    writeln!(
        log,
        "wrote {} ({} bytes): the model and the {} best corrections",
        options.out.display(),
        bytes.len(),
        ranked.corrections.len()
    )?;

    // Held-out error of the full tables, and of the packed ones at a few
    // sizes of the bundle's text.
    // Held-out error of the full tables, of the packed ones at a few sizes,
    // and as the two default bundles pack them (the room their code
    // leaves of 100,000 characters).
    let mut texts = Vec::new();
    for chars in REPORTED_CHARS {
        let (text, n) = ranked.text_within(chars).ok_or_else(|| {
            io::Error::other(format!("the model alone takes over {chars} characters"))
        })?;
        texts.push((format!("{chars}({n})"), text));
    }
    for protocol in [Protocol::Judge, Protocol::CodinGame] {
        let options = crate::bundle::Options {
            protocol,
            limit: 100_000,
            eval_chars: None,
        };
        let made = bundle_with(options, &ranked).map_err(|e| io::Error::other(e.to_string()))?;
        let name = format!("{protocol:?}:{}({})", made.eval_chars, made.corrections);
        texts.push((name, made.evaluation));
    }
    let mut columns = vec![full.to_vec()];
    write!(log, "held-out mean absolute error, discs (one game in {HOLD_OUT}); packed in N characters (corrections):\nstage empties positions full")?;
    for (name, text) in &texts {
        let read = packed::decode(text)
            .ok_or_else(|| io::Error::other("a packed text does not read back"))?;
        columns.push(packed::expand(&read));
        write!(log, " {name}")?;
    }
    writeln!(log)?;
    for stage in 0..STAGES {
        let in_stage: Vec<_> = test
            .iter()
            .filter(|s| pattern::stage(s.board.empty_count()) == stage)
            .collect();
        let low = 11 + 5 * stage;
        let high = if stage + 1 == STAGES { 60 } else { low + 4 };
        write!(log, "{stage:5} {low:3}-{high:<3} {:9}", in_stage.len())?;
        for tables in &columns {
            let error: f64 = in_stage
                .iter()
                .map(|s| {
                    let sum = f64::from(pattern::weight_sum(tables, &s.board));
                    (sum / f64::from(WEIGHT_SCALE) - f64::from(s.label)).abs()
                })
                .sum();
            write!(log, " {:6.2}", error / in_stage.len().max(1) as f64)?;
        }
        writeln!(log)?;
    }
    Ok(())
}

/// The most corrections kept, best first: more than any bundle has room
/// for (each takes about one character).
const MAX_CORRECTIONS: usize = 50_000;

/// The sizes of the bundle's text whose held-out error `pack` prints.
const REPORTED_CHARS: [usize; 3] = [10_000, 20_000, 30_000];

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
    crate::tuning::least_squares::solve_positive(&mut normal, &right, size)
}

/// `w` rounded to a multiple of `quantum`, as the text stores it.
fn quantise(w: i32, quantum: i32) -> i32 {
    (f64::from(w) / f64::from(quantum)).round() as i32 * quantum
}

/// Every correction worth making, most valuable first, as (stage, entry,
/// value): where the expanded model (`models`, quantised) differs from the
/// full table (`weight(stage, entry)`) by at least half a step of the
/// corrections, ranked by reads (`counts`) times the squared difference.
fn corrections(
    models: &[Vec<i32>],
    counts: &[Vec<u32>],
    weight: impl Fn(usize, usize) -> i32,
) -> Vec<Correction> {
    let mut ranked: Vec<(f64, usize, u32, i32)> = Vec::new();
    for (stage, numbers) in models.iter().enumerate() {
        let mut expanded = Vec::with_capacity(STAGE_SIZE);
        let mut at = 0;
        for squares in PATTERNS {
            let size = model_size(squares.len());
            expanded.extend(packed::expand_pattern(
                squares.len(),
                &numbers[at..at + size],
            ));
            at += size;
        }
        for (entry, model) in expanded.iter().enumerate() {
            let value = quantise(weight(stage, entry) - model, CORRECTION_QUANTUM);
            let reads = f64::from(counts[stage][entry]);
            if value != 0 && reads > 0.0 {
                let gain = reads * f64::from(weight(stage, entry) - model).powi(2);
                ranked.push((gain, stage, entry as u32, value));
            }
        }
    }
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then((a.1, a.2).cmp(&(b.1, b.2))));
    ranked.into_iter().map(|(_, s, e, v)| (s, e, v)).collect()
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
    fn a_text_reads_back_to_its_numbers_and_corrections() {
        let per_stage: usize = packed::group_sizes().iter().sum();
        let models: Vec<Vec<i32>> = (0..STAGES)
            .map(|s| {
                (0..per_stage)
                    .map(|k| (((k * 31 + s * 7) % 401) as i32 - 200) * QUANTUM)
                    .collect()
            })
            .collect();
        let corrections = vec![
            (0, 0, 8),
            (0, 5, -16),
            (3, 70_000, 800),
            (9, STAGE_SIZE as u32 - 1, -8),
            (3, 12, 24),
        ];
        let text = crate::bundle::packed_text::encode("test", &models, &corrections);
        let read = packed::decode(&text).expect("reads back");
        assert_eq!(read.models, models);
        assert_eq!(read.corrections[0], [(0, 8), (5, -16)]);
        assert_eq!(read.corrections[3], [(12, 24), (70_000, 800)]);
        assert_eq!(read.corrections[9], [(STAGE_SIZE as u32 - 1, -8)]);
        assert!(read.corrections[1].is_empty());
        let half: String = text.chars().take(text.chars().count() / 2).collect();
        assert!(packed::decode(&half).is_none(), "a short text is refused");
    }

    #[test]
    fn corrections_go_where_reads_times_error_is_largest() {
        let per_stage: usize = packed::group_sizes().iter().sum();
        let models = vec![vec![0; per_stage]; STAGES];
        let mut counts = vec![vec![0u32; STAGE_SIZE]; STAGES];
        counts[2][7] = 100; // off by 1 disc, read 100 times: 100 * 64^2
        counts[5][9] = 1; // off by 4 discs, read once: 256^2
        counts[6][3] = 1000; // off by under half a step: no correction
        let weight = |stage: usize, entry: usize| match (stage, entry) {
            (2, 7) => 64,
            (5, 9) => -256,
            (6, 3) => 3,
            _ => 0,
        };
        assert_eq!(
            corrections(&models, &counts, weight),
            [(2, 7, 64), (5, 9, -256)]
        );
    }
}
