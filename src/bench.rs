//! `reversi bench`: fixed searches on fixed positions. The total node count
//! is a signature: a change that should not alter the search must not alter
//! it. Time and speed are for information.

use crate::board::Board;
use crate::eval::Evaluator;
use crate::search::{Limits, SearchResult, Searcher, SolveKind};
use std::io::{self, Write};
use std::time::Instant;

/// The depth of `reversi bench`, whose node count over [`positions`] is
/// the search's signature.
pub const DEPTH: u32 = 11;

/// The signature: the nodes of `reversi bench` (depth [`DEPTH`], the
/// default table and evaluation). A test checks it, and that BENCHMARKS.md
/// gives the same figure, so a change of search behaviour is always
/// noticed: re-record it on purpose, and say in the commit what moved it.
pub const SIGNATURE: u64 = 2_827_465;

/// Positions at several stages, from seeded random play (the seed and
/// lengths are fixed, so the list never changes).
#[must_use]
pub fn positions() -> Vec<Board> {
    let mut rng = fastrand::Rng::with_seed(2026);
    let mut out = vec![Board::start()];
    for plies in [8, 14, 20, 26, 32, 38, 44] {
        let mut b = Board::start();
        let mut n = 0;
        while n < plies {
            let moves = b.moves();
            if moves == 0 {
                b = b.pass();
                continue;
            }
            let list: Vec<usize> = crate::bitboard::squares(moves).map(|s| s.index()).collect();
            b = b.play_index(list[rng.usize(..list.len())]);
            n += 1;
        }
        if !b.has_moves() {
            b = b.pass();
        }
        out.push(b);
    }
    out
}

/// `reversi bench`: each position's search line, then the total nodes
/// (the signature at the defaults), time and speed. `probcut_t` as the
/// bot's `--probcut` (`None`: full width, as the searches of the first
/// builds, for comparing speed with them on like trees).
pub fn run(
    out: &mut dyn Write,
    depth: u32,
    hash_mb: usize,
    eval: Evaluator,
    probcut_t: Option<f64>,
) -> io::Result<()> {
    let start = Instant::now();
    // The callback cannot return the error: the first one is kept, and the
    // searches (a second or so) run out.
    let mut written = Ok(());
    let total_nodes = searches(depth, hash_mb, eval, probcut_t, |i, board, r| {
        if written.is_ok() {
            written = writeln!(out, "{}", position_line(i, board, r));
        }
    });
    written?;
    let secs = start.elapsed().as_secs_f64();
    writeln!(
        out,
        "bench depth {depth}: nodes {total_nodes} time {secs:.3}s nps {:.0}",
        total_nodes as f64 / secs.max(1e-9)
    )
}

/// `reversi bench --move-time MS`: each bench position searched as the bot
/// would with a judge's limit of `limit` per reply (fresh table each), its
/// search line, then the depths reached and the midgame speed: nodes per
/// second over the positions no solve finished. `probcut_t` as the bot's
/// `--probcut`. Not reproducible (the clock decides), so no signature.
pub fn timed(
    out: &mut dyn Write,
    limit: std::time::Duration,
    hash_mb: usize,
    eval: Evaluator,
    probcut_t: Option<f64>,
) -> io::Result<()> {
    let (mut nodes, mut secs, mut depths) = (0u64, 0.0f64, Vec::new());
    for (i, board) in positions().iter().enumerate() {
        let limits = Limits {
            stop: crate::search::Stop::Clock,
            deadline: crate::clock::Deadline::for_limit(Instant::now(), limit),
            solver: true,
            probcut_t,
        };
        let r = Searcher::new(hash_mb, eval).search(board, &limits);
        writeln!(out, "{}", position_line(i, board, &r))?;
        if r.kind == crate::search::ScoreKind::Estimate {
            nodes += r.nodes;
            secs += r.elapsed.as_secs_f64();
            depths.push(r.depth.to_string());
        }
    }
    writeln!(
        out,
        "bench move-time {}ms: midgame depths {} nodes {nodes} time {secs:.3}s nps {:.0}",
        limit.as_millis(),
        depths.join(" "),
        nodes as f64 / secs.max(1e-9)
    )
}

/// One bench position's line: its number, empties, move and search line.
fn position_line(i: usize, board: &Board, r: &SearchResult) -> String {
    format!(
        "position {i}: empties {:2} best {} {}",
        board.empty_count(),
        r.best.map_or("pass".to_string(), |s| s.to_string()),
        crate::player::describe(r)
    )
}

/// Searches every bench position to `depth` with a fresh searcher, shows
/// each result to `each`, and returns the total nodes.
fn searches(
    depth: u32,
    hash_mb: usize,
    eval: Evaluator,
    probcut_t: Option<f64>,
    mut each: impl FnMut(usize, &Board, &SearchResult),
) -> u64 {
    let mut total_nodes = 0;
    for (i, board) in positions().iter().enumerate() {
        // made for each search: its clock (for the time shown) starts here
        let limits = Limits {
            probcut_t,
            ..Limits::depth(depth)
        };
        let r = Searcher::new(hash_mb, eval).search(board, &limits);
        total_nodes += r.nodes;
        each(i, board, &r);
    }
    total_nodes
}

/// A position with `empties` empty squares from a game of seeded random
/// openings (8 plies) then depth-3 play; `None` if that game ends sooner.
fn game_position(seed: u64, empties: u32) -> Option<Board> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut searcher = Searcher::new(1, Evaluator::Hand);
    let mut b = Board::start();
    let mut plies = 0;
    while b.empty_count() > empties {
        let moves = b.moves();
        if moves == 0 {
            if b.is_game_over() {
                return None;
            }
            b = b.pass();
            continue;
        }
        let sq = if plies < 8 {
            let list: Vec<_> = crate::bitboard::squares(moves).collect();
            list[rng.usize(..list.len())]
        } else {
            searcher.search(&b, &Limits::depth(3)).best?
        };
        b = b.play(sq);
        plies += 1;
    }
    if !b.has_moves() {
        b = b.pass();
    }
    b.has_moves().then_some(b)
}

/// `reversi bench --endgame-curve`: the cost of exact and win/draw/loss
/// solves by the number of empties, on positions from games. The play-time
/// switch to the solver (`solve_nodes` in `src/search/root.rs`) is fitted
/// to these figures.
pub fn endgame_curve(out: &mut dyn Write, from: u32, to: u32, per_size: u64) -> io::Result<()> {
    writeln!(
        out,
        "empties positions exact-median exact-mean exact-max wld-median wld-mean exact-Mnps"
    )?;
    for empties in from..=to {
        let (mut exact, mut wld) = (Vec::new(), Vec::new());
        let mut time = 0.0;
        let mut seed = 0;
        while (exact.len() as u64) < per_size {
            seed += 1;
            let Some(board) = game_position(1000 * u64::from(empties) + seed, empties) else {
                continue;
            };
            let mut s = Searcher::new(crate::tt::DEFAULT_MB, Evaluator::DEFAULT);
            let t = Instant::now();
            s.solve(&board, SolveKind::Exact);
            time += t.elapsed().as_secs_f64();
            exact.push(s.nodes() as f64);
            let mut s = Searcher::new(crate::tt::DEFAULT_MB, Evaluator::DEFAULT);
            s.solve(&board, SolveKind::Wld);
            wld.push(s.nodes() as f64);
        }
        let stats = |v: &mut Vec<f64>| {
            v.sort_by(f64::total_cmp);
            (
                v[v.len() / 2],
                v.iter().sum::<f64>() / v.len() as f64,
                v[v.len() - 1],
            )
        };
        let (em, ea, ex) = stats(&mut exact);
        let (wm, wa, _) = stats(&mut wld);
        writeln!(
            out,
            "{empties:7} {per_size:9} {em:12.0} {ea:10.0} {ex:9.0} {wm:10.0} {wa:8.0} {:10.2}",
            exact.iter().sum::<f64>() / time.max(1e-9) / 1e6
        )?;
    }
    Ok(())
}

/// `reversi bench --probcut-errors`: how far a midgame search's score to
/// each shallow depth lies from the exact score, on archive positions with
/// `from` to `to` empties (one game in 7 of `games`, newest first): the
/// mean and standard deviation of the difference, in discs.
/// `probcut::error_sigma` is fitted to these figures.
pub fn probcut_errors(
    out: &mut dyn Write,
    games: &[crate::train::Game],
    from: u32,
    to: u32,
    per_size: u64,
) -> io::Result<()> {
    use crate::eval::DISC;
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
                let mut s = Searcher::new(crate::tt::DEFAULT_MB, Evaluator::DEFAULT);
                let exact = s.exact_score(board) * DISC;
                let mut s = Searcher::new(crate::tt::DEFAULT_MB, Evaluator::DEFAULT);
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
fn archive_positions(games: &[crate::train::Game], empties: u32, count: u64) -> Vec<Board> {
    games
        .iter()
        .rev()
        .step_by(7)
        .filter_map(|game| {
            crate::train::replay(game)
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
/// (`src/search/probcut.rs`) copies. Full-width searches, with `jobs`
/// threads; the figures do not depend on `jobs`.
pub fn midgame_probcut_errors(
    out: &mut dyn Write,
    games: &[crate::train::Game],
    (from, to, step): (u32, u32, u32),
    per_size: u64,
    deep: u32,
    jobs: usize,
) -> io::Result<()> {
    use crate::eval::DISC;
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
        let scores = crate::parallel::map(jobs, &boards, |board| {
            let mut s = Searcher::new(crate::tt::DEFAULT_MB, Evaluator::DEFAULT);
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
    let stages = crate::eval::pattern::STAGES;
    let stage = |e: u32| crate::eval::pattern::stage(e);
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
    let bias = least_squares(&rows);
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
    let fit = least_squares(&rows);
    writeln!(
        out,
        "sd = {:.3} {:+.4} * empties {:+.3} * shallow {:+.3} * deep (discs)",
        fit[0], fit[1], fit[2], fit[3]
    )
}

/// The least-squares solution of rows (x, y) ~ y = x . beta, by the normal
/// equations with a whisker of ridge, so that a column no row uses comes
/// out 0 instead of failing.
fn least_squares(rows: &[(Vec<f64>, f64)]) -> Vec<f64> {
    let k = rows.first().map_or(0, |(x, _)| x.len());
    // The augmented matrix [X'X + eps I | X'y].
    let mut m = vec![vec![0.0; k + 1]; k];
    for (x, y) in rows {
        for i in 0..k {
            for j in 0..k {
                m[i][j] += x[i] * x[j];
            }
            m[i][k] += x[i] * y;
        }
    }
    for (i, row) in m.iter_mut().enumerate() {
        row[i] += 1e-6;
    }
    // Gauss-Jordan elimination with partial pivoting.
    for col in 0..k {
        let pivot = (col..k)
            .max_by(|&a, &b| m[a][col].abs().total_cmp(&m[b][col].abs()))
            .unwrap_or(col);
        m.swap(col, pivot);
        let lead = m[col][col];
        for value in &mut m[col][col..] {
            *value /= lead;
        }
        let pivot_row = m[col].clone();
        for (i, row) in m.iter_mut().enumerate() {
            if i != col {
                let factor = row[col];
                for (value, p) in row[col..].iter_mut().zip(&pivot_row[col..]) {
                    *value -= factor * p;
                }
            }
        }
    }
    m.iter().map(|row| row[k]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn least_squares_recovers_an_exact_line() {
        // y = 2 + 3x, and a column nothing uses.
        let rows: Vec<(Vec<f64>, f64)> = (0..5)
            .map(|x| (vec![1.0, f64::from(x), 0.0], 2.0 + 3.0 * f64::from(x)))
            .collect();
        let fit = least_squares(&rows);
        assert!(
            (fit[0] - 2.0).abs() < 1e-4 && (fit[1] - 3.0).abs() < 1e-4,
            "{fit:?}"
        );
        assert!(fit[2].abs() < 1e-9, "{fit:?}");
    }

    #[test]
    fn probcut_off_searches_full_width() {
        // `reversi bench --probcut off` must reach the searches: at the
        // same depth a full-width search visits more nodes than ProbCut's
        // pruned one.
        let count = |t| searches(7, 1, Evaluator::DEFAULT, t, |_, _, _| {});
        let pruned = count(Some(crate::search::MIDGAME_T));
        let full = count(None);
        assert!(full > pruned, "{full} {pruned}");
    }

    #[test]
    fn bench_signature() {
        let nodes = searches(
            DEPTH,
            crate::tt::DEFAULT_MB,
            Evaluator::DEFAULT,
            Some(crate::search::MIDGAME_T),
            |_, _, _| {},
        );
        assert_eq!(
            nodes, SIGNATURE,
            "the search changed: if on purpose, re-record bench::SIGNATURE and BENCHMARKS.md"
        );
        // BENCHMARKS.md writes it with thousands separators: 2,920,032.
        let digits = SIGNATURE.to_string();
        let mut written = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                written.push(',');
            }
            written.push(c);
        }
        let doc = include_str!("../BENCHMARKS.md");
        assert!(
            doc.contains(&written),
            "BENCHMARKS.md does not give the signature {written}"
        );
    }
}
