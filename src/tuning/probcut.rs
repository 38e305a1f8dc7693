//! ProbCut's figures (`reversi bench --probcut-errors`): how far shallow
//! searches lie from exact or deeper ones on archive positions, and the
//! fits of bias and spread that `reversi_core::search::probcut` copies.

use super::least_squares;
use reversi_core::board::Board;
use reversi_core::eval::Evaluator;
use reversi_core::search::Searcher;
use std::io::{self, Write};

/// `reversi bench --probcut-errors`: how far a midgame search's score to
/// each shallow depth lies from the exact score, on archive positions with
/// `from` to `to` empties (one game in 7 of `games`, newest first): the
/// mean and standard deviation of the difference, in discs.
/// `probcut::error_sigma` is fitted to these figures.
pub fn probcut_errors(
    out: &mut dyn Write,
    games: &[crate::records::archive::Game],
    from: u32,
    to: u32,
    per_size: u64,
) -> io::Result<()> {
    use reversi_core::eval::DISC;
    const DEPTHS: u32 = 8;
    writeln!(
        out,
        "empties positions then, by shallow depth 0..={DEPTHS}: mean/sd of exact - shallow (discs)"
    )?;
    for empties in from..=to {
        let boards = archive_positions(games, empties, per_size);
        // Each position's exact score less its scores at depths 0..=DEPTHS.
        let errors: Vec<Vec<f64>> = boards
            .iter()
            .map(|board| {
                let mut s = Searcher::new(reversi_core::tt::DEFAULT_MB, Evaluator::DEFAULT);
                let exact = s.exact_score(board) * DISC;
                let mut s = Searcher::new(reversi_core::tt::DEFAULT_MB, Evaluator::DEFAULT);
                // Each depth in turn, as iterative deepening would: the
                // table's entries of shallower depths order the moves but
                // never decide a score, so each is the full-width value.
                (0..=DEPTHS)
                    .map(|depth| f64::from(exact - s.midgame_score(board, depth)) / f64::from(DISC))
                    .collect()
            })
            .collect();
        let cells: Vec<String> = (0..=DEPTHS as usize)
            .map(|depth| {
                let (mean, sd) = mean_sd(errors.iter().map(|e| e[depth]));
                format!("{mean:+.1}/{sd:.1}")
            })
            .collect();
        writeln!(out, "{empties:7} {:9} {}", boards.len(), cells.join(" "))?;
    }
    Ok(())
}

/// The mean and standard deviation of `values` (0 and 0 for none).
fn mean_sd(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (mut n, mut sum, mut squares) = (0.0, 0.0, 0.0);
    for v in values {
        n += 1.0;
        sum += v;
        squares += v * v;
    }
    if n == 0.0 {
        return (0.0, 0.0);
    }
    let mean = sum / n;
    (mean, (squares / n - mean * mean).max(0.0).sqrt())
}

/// An archive position with `empties` empty squares from each of up to
/// `count` games (one game in 7, newest first) where the side to move has a
/// move there.
fn archive_positions(
    games: &[crate::records::archive::Game],
    empties: u32,
    count: u64,
) -> Vec<Board> {
    games
        .iter()
        .rev()
        .step_by(7)
        .filter_map(|game| {
            crate::records::archive::replay(game)
                .and_then(|line| line.into_iter().find(|(b, _)| b.empty_count() == empties))
                .map(|(b, _)| b)
                .filter(Board::has_moves)
        })
        .take(count as usize)
        .collect()
}

/// `reversi bench --probcut-errors --deep D`: how far a shallow midgame
/// search's score lies from a deeper one's, on archive positions with
/// `from`, `from + step`, ... `to` empties. For each deep depth 2..=`deep`
/// and each shallower depth, the mean and standard deviation of deep -
/// shallow, in discs; then the two fits that the midgame ProbCut
/// (`core/src/search/probcut.rs`) copies. Full-width searches, with `jobs`
/// threads; the figures do not depend on `jobs`.
pub fn midgame_probcut_errors(
    out: &mut dyn Write,
    games: &[crate::records::archive::Game],
    (from, to, step): (u32, u32, u32),
    per_size: u64,
    deep: u32,
    jobs: usize,
) -> io::Result<()> {
    use reversi_core::eval::DISC;
    writeln!(
        out,
        "empties positions deep: mean/sd of deep - shallow (discs) for shallow 0..deep"
    )?;
    // (empties, shallow, deep, mean, sd) for every pair measured.
    let mut pairs: Vec<(u32, u32, u32, f64, f64)> = Vec::new();
    for empties in (from..=to).step_by(step.max(1) as usize) {
        let boards = archive_positions(games, empties, per_size);
        // Each position's scores at depths 0..=deep, by iterative deepening
        // (the table's shallower entries order moves, never decide scores).
        let scores = crate::util::parallel::map(jobs, &boards, |board| {
            let mut s = Searcher::new(reversi_core::tt::DEFAULT_MB, Evaluator::DEFAULT);
            (0..=deep)
                .map(|d| f64::from(s.midgame_score(board, d)) / f64::from(DISC))
                .collect::<Vec<f64>>()
        });
        for d in 2..=deep {
            let mut cells = Vec::new();
            for shallow in 0..d {
                let (mean, sd) =
                    mean_sd(scores.iter().map(|v| v[d as usize] - v[shallow as usize]));
                cells.push(format!("{mean:+.1}/{sd:.1}"));
                pairs.push((empties, shallow, d, mean, sd));
            }
            writeln!(
                out,
                "{empties:7} {:9} {d:4}: {}",
                scores.len(),
                cells.join(" ")
            )?;
        }
    }
    // The means: the evaluation is off by a bias per stage for the side to
    // move, so a search to depth d scores about (-1)^d times the bias of
    // its leaves' stage too much; deep - shallow is the difference.
    let stages = reversi_core::eval::pattern::STAGES;
    let stage = |e: u32| reversi_core::eval::pattern::stage(e);
    let sign = |d: u32| if d.is_multiple_of(2) { 1.0 } else { -1.0 };
    let rows: Vec<(Vec<f64>, f64)> = pairs
        .iter()
        .map(|&(e, shallow, d, mean, _)| {
            let mut x = vec![0.0; stages];
            x[stage(e - d)] += sign(d);
            x[stage(e - shallow)] -= sign(shallow);
            (x, mean)
        })
        .collect();
    let bias = least_squares::fit(&rows);
    let cells: Vec<String> = bias.iter().map(|b| format!("{b:.2}")).collect();
    writeln!(
        out,
        "bias by stage (discs, side to move): {}",
        cells.join(" ")
    )?;
    // The spread, for the pairs ProbCut may use (same parity, shallow >= 1).
    let rows: Vec<(Vec<f64>, f64)> = pairs
        .iter()
        .filter(|&&(_, shallow, d, _, _)| shallow >= 1 && d >= 3 && (d - shallow) % 2 == 0)
        .map(|&(e, shallow, d, _, sd)| {
            (
                vec![1.0, f64::from(e), f64::from(shallow), f64::from(d)],
                sd,
            )
        })
        .collect();
    let fit = least_squares::fit(&rows);
    writeln!(
        out,
        "sd = {:.3} {:+.4} * empties {:+.3} * shallow {:+.3} * deep (discs)",
        fit[0], fit[1], fit[2], fit[3]
    )
}
