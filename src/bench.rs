//! `reversi bench`: fixed searches on fixed positions. The total node count
//! is a signature: a change that should not alter the search must not alter
//! it. Time and speed are for information.

use crate::board::Board;
use crate::clock::Deadline;
use crate::eval::Evaluator;
use crate::search::{Limits, Searcher};
use std::time::Instant;

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

pub fn run(depth: u32, hash_mb: usize) {
    let mut total_nodes = 0u64;
    let start = Instant::now();
    for (i, board) in positions().iter().enumerate() {
        let mut searcher = Searcher::new(hash_mb, Evaluator::Hand);
        let t = Instant::now();
        let limits = Limits {
            depth: Some(depth),
            nodes: None,
            deadline: Deadline::unlimited(t),
        };
        let r = searcher.search(board, &limits, |_| {});
        total_nodes += r.nodes;
        println!(
            "position {i}: empties {:2} best {} {}",
            board.empty_count(),
            r.best.map_or("pass".to_string(), |s| s.to_string()),
            crate::player::describe(&r)
        );
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "bench depth {depth}: nodes {total_nodes} time {secs:.3}s nps {:.0}",
        total_nodes as f64 / secs.max(1e-9)
    );
}
