//! `reversi solve`: exact scores of OBF positions (the format of the FFO
//! test suites: a 64-character board, the side to move, then optional
//! `MOVE:score` pairs; `%` starts a comment).

use crate::bitboard::Square;
use crate::board::Board;
use crate::eval::Evaluator;
use crate::search::{endgame, Searcher};
use std::io::Read;
use std::time::Instant;

/// One OBF line.
#[derive(Clone, Debug)]
pub struct ObfPosition {
    pub board: Board,
    /// The exact score of each listed move (side to move's view).
    pub scores: Vec<(Square, i32)>,
}

impl ObfPosition {
    /// The best listed score and the moves that reach it.
    #[must_use]
    pub fn best(&self) -> Option<(i32, Vec<Square>)> {
        let top = self.scores.iter().map(|&(_, s)| s).max()?;
        let moves = self
            .scores
            .iter()
            .filter(|&&(_, s)| s == top)
            .map(|&(m, _)| m)
            .collect();
        Some((top, moves))
    }
}

/// Parses one OBF line; `Ok(None)` for a blank or comment line.
pub fn parse_obf(line: &str) -> Result<Option<ObfPosition>, String> {
    let line = line.split('%').next().unwrap_or("").trim();
    if line.is_empty() {
        return Ok(None);
    }
    let mut parts = line.split(';');
    let head = parts.next().unwrap_or("");
    let mut words = head.split_whitespace();
    let cells = words.next().ok_or("missing board")?;
    let side = words.next().ok_or("missing side to move")?;
    let (board, _) = Board::parse(cells, side).map_err(|e| e.to_string())?;
    let mut scores = Vec::new();
    for part in parts {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        let (mv, score) = part
            .split_once(':')
            .ok_or_else(|| format!("bad move score '{part}'"))?;
        let sq = Square::parse(mv.trim()).ok_or_else(|| format!("bad move '{mv}'"))?;
        let score: i32 = score
            .trim()
            .trim_start_matches('+')
            .parse()
            .map_err(|_| format!("bad score '{score}'"))?;
        scores.push((sq, score));
    }
    Ok(Some(ObfPosition { board, scores }))
}

/// `reversi solve [FILE]`.
pub fn command(words: &[String]) -> Result<std::process::ExitCode, String> {
    let mut text = String::new();
    match words.first() {
        Some(path) => {
            text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
        }
        None => {
            std::io::stdin()
                .read_to_string(&mut text)
                .map_err(|e| format!("stdin: {e}"))?;
        }
    }
    let mut searcher = Searcher::new(64, Evaluator::Hand);
    let (mut total_nodes, mut total_time, mut wrong, mut count) = (0u64, 0.0f64, 0, 0);
    for (n, line) in text.lines().enumerate() {
        let Some(position) = parse_obf(line).map_err(|e| format!("line {}: {e}", n + 1))? else {
            continue;
        };
        count += 1;
        searcher.new_game();
        searcher.nodes = 0;
        let start = Instant::now();
        let board = position.board;
        let solved = if board.has_moves() {
            endgame::solve_root(&mut searcher, &board, None)
        } else {
            None
        };
        let secs = start.elapsed().as_secs_f64();
        let nodes = searcher.nodes;
        total_nodes += nodes;
        total_time += secs;
        let (score, best) = match solved {
            Some((sq, score)) => (score, sq.to_string()),
            None => (
                crate::search::endgame::solve(&mut searcher, &board, -64, 64),
                "pass".into(),
            ),
        };
        let check = match position.best() {
            None => String::new(),
            Some((top, moves)) => {
                let ok = top == score && solved.is_some_and(|(sq, _)| moves.contains(&sq));
                if !ok {
                    wrong += 1;
                }
                format!(" expected {top:+} {}", if ok { "ok" } else { "WRONG" })
            }
        };
        println!(
            "line {:3}: empties {:2} score {score:+3} best {best} nodes {nodes:>11} time {secs:8.3}s {:7.2} Mnps{check}",
            n + 1,
            board.empty_count(),
            nodes as f64 / secs.max(1e-9) / 1e6
        );
    }
    println!(
        "total: {count} positions, {total_nodes} nodes, {total_time:.3}s, {:.2} Mnps, {wrong} wrong",
        total_nodes as f64 / total_time.max(1e-9) / 1e6
    );
    Ok(if wrong == 0 {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::from(1)
    })
}
