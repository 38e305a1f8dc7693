//! `reversi bench`: fixed searches on fixed positions. The total node count
//! is a signature: a change that should not alter the search must not alter
//! it. Time and speed are for information.

use crate::board::Board;
use crate::eval::Evaluator;
use crate::search::{Limits, SearchResult, Searcher, SolveKind};
use std::time::Instant;

/// The depth of `reversi bench`, whose node count over [`positions`] is
/// the search's signature.
pub const DEPTH: u32 = 11;

/// The signature: the nodes of `reversi bench` (depth [`DEPTH`], the
/// default table and evaluation). A test checks it, and that BENCHMARKS.md
/// gives the same figure, so a change of search behaviour is always
/// noticed: re-record it on purpose, and say in the commit what moved it.
pub const SIGNATURE: u64 = 10_589_159;

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
/// (the signature at the defaults), time and speed.
pub fn run(depth: u32, hash_mb: usize, eval: Evaluator) {
    let start = Instant::now();
    let total_nodes = searches(depth, hash_mb, eval, |i, board, r| {
        println!(
            "position {i}: empties {:2} best {} {}",
            board.empty_count(),
            r.best.map_or("pass".to_string(), |s| s.to_string()),
            crate::player::describe(r)
        );
    });
    let secs = start.elapsed().as_secs_f64();
    println!(
        "bench depth {depth}: nodes {total_nodes} time {secs:.3}s nps {:.0}",
        total_nodes as f64 / secs.max(1e-9)
    );
}

/// Searches every bench position to `depth` with a fresh searcher, shows
/// each result to `each`, and returns the total nodes.
fn searches(
    depth: u32,
    hash_mb: usize,
    eval: Evaluator,
    mut each: impl FnMut(usize, &Board, &SearchResult),
) -> u64 {
    let mut total_nodes = 0;
    for (i, board) in positions().iter().enumerate() {
        let r = Searcher::new(hash_mb, eval).search(board, &Limits::depth(depth));
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
pub fn endgame_curve(from: u32, to: u32, per_size: u64) {
    println!("empties positions exact-median exact-mean exact-max wld-median wld-mean exact-Mnps");
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
        println!(
            "{empties:7} {per_size:9} {em:12.0} {ea:10.0} {ex:9.0} {wm:10.0} {wa:8.0} {:10.2}",
            exact.iter().sum::<f64>() / time.max(1e-9) / 1e6
        );
    }
}

/// `reversi bench --probcut-errors`: how far a midgame search's score to
/// each shallow depth lies from the exact score, on archive positions with
/// `from` to `to` empties (one game in 7 of `games`, newest first): the
/// mean and standard deviation of the difference, in discs.
/// `probcut::error_sigma` is fitted to these figures.
pub fn probcut_errors(games: &[crate::train::Game], from: u32, to: u32, per_size: u64) {
    use crate::eval::DISC;
    const DEPTHS: u32 = 8;
    println!(
        "empties positions then, by shallow depth 0..={DEPTHS}: mean/sd of exact - shallow (discs)"
    );
    for empties in from..=to {
        let mut sums = [(0.0f64, 0.0f64); DEPTHS as usize + 1];
        let mut count = 0u64;
        for game in games.iter().rev().step_by(7) {
            if count == per_size {
                break;
            }
            // the game's position with `empties` empty squares, if the
            // side to move has a move there
            let Some(board) = crate::train::replay(game)
                .and_then(|line| line.into_iter().find(|(b, _)| b.empty_count() == empties))
                .map(|(b, _)| b)
                .filter(Board::has_moves)
            else {
                continue;
            };
            let mut s = Searcher::new(crate::tt::DEFAULT_MB, Evaluator::DEFAULT);
            let exact = s.exact_score(&board) * DISC;
            let mut s = Searcher::new(crate::tt::DEFAULT_MB, Evaluator::DEFAULT);
            for depth in 0..=DEPTHS {
                // Each depth in turn, as iterative deepening would: the
                // table's entries of shallower depths order the moves but
                // never decide a score, so each is the full-width value.
                let shallow = s.midgame_score(&board, depth);
                let error = f64::from(exact - shallow) / f64::from(DISC);
                sums[depth as usize].0 += error;
                sums[depth as usize].1 += error * error;
            }
            count += 1;
        }
        let n = count.max(1) as f64;
        let cells: Vec<String> = sums
            .iter()
            .map(|&(sum, squares)| {
                let mean = sum / n;
                format!(
                    "{mean:+.1}/{:.1}",
                    (squares / n - mean * mean).max(0.0).sqrt()
                )
            })
            .collect();
        println!("{empties:7} {count:9} {}", cells.join(" "));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bench_signature() {
        let nodes = searches(
            DEPTH,
            crate::tt::DEFAULT_MB,
            Evaluator::DEFAULT,
            |_, _, _| {},
        );
        assert_eq!(
            nodes, SIGNATURE,
            "the search changed: if on purpose, re-record bench::SIGNATURE and BENCHMARKS.md"
        );
        // BENCHMARKS.md writes it with thousands separators: 10,589,159.
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
