//! `reversi bench`: fixed searches on fixed positions. The total node count
//! is a signature: a change that should not alter the search must not alter
//! it. Time and speed are for information. [`perft`], the move generator's
//! count, is its neighbour.

pub mod perft;

use reversi_core::board::Board;
use reversi_core::eval::Evaluator;
use reversi_core::search::{Limits, SearchResult, Searcher, SolveKind};
use std::io::{self, Write};
use std::time::Instant;

/// The depth of `reversi bench`, whose node count over [`positions`] is
/// the search's signature.
pub const DEPTH: u32 = 11;

/// The signature: the nodes of `reversi bench` (depth [`DEPTH`], the
/// default table and evaluation). A test checks it, and that BENCHMARKS.md
/// gives the same figure, so a change of search behaviour is always
/// noticed: re-record it on purpose, and say in the commit what moved it.
pub const SIGNATURE: u64 = 2_799_838;

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
            let list: Vec<usize> = reversi_core::bitboard::squares(moves)
                .map(|s| s.index())
                .collect();
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
            stop: reversi_core::search::Stop::Clock,
            deadline: reversi_core::clock::Deadline::for_limit(Instant::now(), limit),
            solver: true,
            probcut_t,
        };
        let r = Searcher::new(hash_mb, eval).search(board, &limits);
        writeln!(out, "{}", position_line(i, board, &r))?;
        if r.kind == reversi_core::search::ScoreKind::Estimate {
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
        reversi_core::player::describe(r)
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
            let list: Vec<_> = reversi_core::bitboard::squares(moves).collect();
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
/// switch to the solver (`solve_nodes` in `core/src/search/root.rs`) is fitted
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
            let mut s = Searcher::new(reversi_core::tt::DEFAULT_MB, Evaluator::DEFAULT);
            let t = Instant::now();
            s.solve(&board, SolveKind::Exact);
            time += t.elapsed().as_secs_f64();
            exact.push(s.nodes() as f64);
            let mut s = Searcher::new(reversi_core::tt::DEFAULT_MB, Evaluator::DEFAULT);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probcut_off_searches_full_width() {
        // `reversi bench --probcut off` must reach the searches: at the
        // same depth a full-width search visits more nodes than ProbCut's
        // pruned one.
        let count = |t| searches(7, 1, Evaluator::DEFAULT, t, |_, _, _| {});
        let pruned = count(Some(reversi_core::search::MIDGAME_T));
        let full = count(None);
        assert!(full > pruned, "{full} {pruned}");
    }

    #[test]
    fn bench_signature() {
        let nodes = searches(
            DEPTH,
            reversi_core::tt::DEFAULT_MB,
            Evaluator::DEFAULT,
            Some(reversi_core::search::MIDGAME_T),
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
        let doc = include_str!("../../BENCHMARKS.md");
        assert!(
            doc.contains(&written),
            "BENCHMARKS.md does not give the signature {written}"
        );
    }
}
