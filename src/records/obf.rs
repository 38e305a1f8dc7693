//! `reversi solve`: exact scores of OBF positions (the format of the FFO
//! test suites: a 64-character board, the side to move, then optional
//! `MOVE:score` pairs; `%` starts a comment).

use reversi_core::bitboard::Square;
use reversi_core::board::{Board, ParseBoardError};
use reversi_core::clock::Deadline;
use reversi_core::eval::{Evaluator, DISC};
use reversi_core::search::{Limits, ScoreKind, Searcher, SolveKind, Stop};
use std::io::Write;
use std::time::{Duration, Instant};

/// One OBF line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObfPosition {
    pub board: Board,
    /// The exact score of each listed move (side to move's view).
    pub scores: Vec<(Square, i32)>,
}

impl ObfPosition {
    /// The position as an OBF line that [`parse_obf`] reads back: the side
    /// to move written as `X`, then each listed move and score.
    #[must_use]
    pub fn line(&self) -> String {
        let cells: String = (0..64)
            .map(|i| match 1u64 << i {
                bit if self.board.player & bit != 0 => 'X',
                bit if self.board.opponent & bit != 0 => 'O',
                _ => '-',
            })
            .collect();
        let mut line = format!("{cells} X;");
        for (square, score) in &self.scores {
            line.push_str(&format!(" {square}:{score:+};"));
        }
        line
    }

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

/// Why an OBF line does not parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ObfError {
    MissingBoard,
    MissingSide,
    /// The board or side to move, with the board parser's reason.
    BadBoard(ParseBoardError),
    /// A `MOVE:score` part without the colon.
    BadMoveScore(String),
    BadMove(String),
    /// A listed move that cannot be played in the position, and why.
    IllegalMove(String, &'static str),
    BadScore(String),
}

impl std::fmt::Display for ObfError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ObfError::MissingBoard => write!(f, "missing board"),
            ObfError::MissingSide => write!(f, "missing side to move"),
            ObfError::BadBoard(e) => write!(f, "{e}"),
            ObfError::BadMoveScore(part) => write!(f, "bad move score '{part}'"),
            ObfError::BadMove(m) => write!(f, "bad move '{m}'"),
            ObfError::IllegalMove(m, why) => {
                write!(f, "listed move '{m}' cannot be played here: {why}")
            }
            ObfError::BadScore(v) => write!(f, "bad score '{v}'"),
        }
    }
}

impl std::error::Error for ObfError {}

/// Parses one OBF line; `Ok(None)` for a blank or comment line.
pub fn parse_obf(line: &str) -> Result<Option<ObfPosition>, ObfError> {
    let line = line.split('%').next().unwrap_or("").trim();
    if line.is_empty() {
        return Ok(None);
    }
    let mut parts = line.split(';');
    let head = parts.next().unwrap_or("");
    let mut words = head.split_whitespace();
    let cells = words.next().ok_or(ObfError::MissingBoard)?;
    let side = words.next().ok_or(ObfError::MissingSide)?;
    let (board, _) = Board::parse(cells, side).map_err(ObfError::BadBoard)?;
    let mut scores = Vec::new();
    for part in parts {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        let (mv, score) = part
            .split_once(':')
            .ok_or_else(|| ObfError::BadMoveScore(part.to_string()))?;
        let sq = Square::parse(mv.trim()).ok_or_else(|| ObfError::BadMove(mv.to_string()))?;
        if !board.is_legal(sq) {
            let occupied = (board.player | board.opponent) & (1u64 << sq.index()) != 0;
            let why = if occupied {
                "the square is taken"
            } else {
                "it turns nothing over"
            };
            return Err(ObfError::IllegalMove(mv.trim().to_string(), why));
        }
        let score: i32 = score
            .trim()
            .trim_start_matches('+')
            .parse()
            .ok()
            .filter(|v: &i32| v.abs() <= 64)
            .ok_or_else(|| ObfError::BadScore(score.to_string()))?;
        scores.push((sq, score));
    }
    Ok(Some(ObfPosition { board, scores }))
}

/// Why `reversi solve` stopped.
#[derive(Debug)]
pub enum RunError {
    /// A line of the input is not OBF.
    Line(LineError),
    /// The report could not be written.
    Output(std::io::Error),
}

/// An input line that does not parse, with its number.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineError {
    pub line: usize,
    pub error: ObfError,
}

impl std::fmt::Display for LineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.error)
    }
}

impl From<std::io::Error> for RunError {
    fn from(e: std::io::Error) -> RunError {
        RunError::Output(e)
    }
}

/// What `reversi solve` computes for each position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The exact score, a best move and the principal variation.
    Exact,
    /// Win, draw or loss only (a null window around 0: much faster).
    Wld,
    /// The exact score of every legal move.
    All,
}

#[derive(Clone, Copy, Debug)]
pub struct Options {
    pub mode: Mode,
    /// Positions with more empties get a midgame search of this depth (an
    /// estimate) instead of a solve.
    pub depth_limit: Option<u32>,
    /// Each position gets this long, as the bot would: solved (exactly, or
    /// win/draw/loss first) when the measured speed says it fits, else
    /// estimated by the midgame search.
    pub time: Option<Duration>,
    pub hash_mb: usize,
    /// Orders the solver's moves from `EVAL_ORDER_EMPTIES` up.
    pub eval: Evaluator,
}

/// What one position came to.
enum Answer {
    Exact {
        best: Option<Square>,
        score: i32,
        pv: Vec<Option<Square>>,
    },
    Wld {
        best: Option<Square>,
        score: i32,
    },
    All(Vec<(Square, i32)>),
    /// Not proven: the midgame search's score, to `depth` plies, at
    /// ProbCut's `confidence` (`None`: full width). A full-width search to
    /// the end of the game is no estimate: the search reports it exact.
    Estimate {
        best: Option<Square>,
        score: i32,
        depth: u32,
        confidence: Option<u32>,
    },
}

fn name(sq: Option<Square>) -> String {
    sq.map_or_else(|| "pass".to_string(), |s| s.to_string())
}

fn outcome(score: i32) -> &'static str {
    match score.signum() {
        1 => "win",
        0 => "draw",
        _ => "loss",
    }
}

/// Solves one position for the side to move. An exact answer comes
/// without its principal variation, which the caller reads from the solved
/// table once the clock has stopped.
fn answer(s: &mut Searcher, board: &Board, options: &Options) -> Answer {
    let empties = board.empty_count();
    let partial = options.time.is_some() || options.depth_limit.is_some_and(|d| empties > d);
    if partial && board.has_moves() {
        let start = Instant::now();
        let limits = Limits {
            stop: match options.depth_limit.filter(|&d| empties > d) {
                Some(depth) => Stop::Depth(depth),
                None => Stop::Clock,
            },
            deadline: options.time.map_or_else(
                || Deadline::unlimited(start),
                |t| Deadline::exactly(start, t),
            ),
            solver: options.depth_limit.is_none_or(|d| empties <= d),
            probcut_t: Some(reversi_core::search::MIDGAME_T),
        };
        let r = s.search(board, &limits);
        return match r.kind {
            ScoreKind::Exact => Answer::Exact {
                best: r.best,
                score: r.score / DISC,
                pv: Vec::new(),
            },
            ScoreKind::Wld => Answer::Wld {
                best: r.best,
                score: r.score / DISC,
            },
            ScoreKind::Estimate => Answer::Estimate {
                best: r.best,
                score: r.score,
                depth: r.depth,
                confidence: r.confidence(),
            },
        };
    }
    if !board.has_moves() {
        // A pass, the only move (so `--all` lists just it): the
        // opponent's solve, negated (or the final count).
        let score = s.exact_score(board);
        return match options.mode {
            Mode::Wld => Answer::Wld { best: None, score },
            Mode::All | Mode::Exact => Answer::Exact {
                best: None,
                score,
                pv: Vec::new(),
            },
        };
    }
    match options.mode {
        Mode::Exact => {
            let (best, score) = s.solve(board, SolveKind::Exact);
            Answer::Exact {
                best: Some(best),
                score,
                pv: Vec::new(),
            }
        }
        Mode::Wld => {
            let (best, score) = s.solve(board, SolveKind::Wld);
            Answer::Wld {
                best: Some(best),
                score,
            }
        }
        Mode::All => Answer::All(s.move_scores(board)),
    }
}

/// The answer as text, and whether it agrees with the scores the OBF line
/// lists (`None` when there is nothing to check).
fn report(answer: &Answer, position: &ObfPosition) -> (String, Option<bool>) {
    let listed = |sq: Square| {
        position
            .scores
            .iter()
            .find(|&&(m, _)| m == sq)
            .map(|&(_, v)| v)
    };
    let expected = position.best();
    match answer {
        Answer::Exact { best, score, pv } => {
            let pv: Vec<String> = pv.iter().map(|&m| name(m)).collect();
            let text = format!("exact {score:+} best {} pv {}", name(*best), pv.join(" "));
            let check = expected.map(|(top, moves)| {
                // A pass is right only when the file lists no move.
                top == *score && best.map_or(moves.is_empty(), |b| moves.contains(&b))
            });
            (text, check)
        }
        Answer::Wld { best, score } => {
            let text = format!("{} best {}", outcome(*score), name(*best));
            let check = expected.map(|(top, _)| {
                let right_move =
                    best.is_none_or(|b| listed(b).is_some_and(|v| v.signum() == top.signum()));
                // A lost position has no better move to find.
                top.signum() == score.signum() && (top < 0 || right_move)
            });
            (text, check)
        }
        Answer::All(scores) => {
            let list: Vec<String> = scores.iter().map(|(m, v)| format!("{m}:{v:+}")).collect();
            let check = (!position.scores.is_empty()).then(|| {
                position.scores.len() == scores.len()
                    && scores.iter().all(|&(m, v)| listed(m) == Some(v))
            });
            (list.join(" "), check)
        }
        Answer::Estimate {
            best,
            score,
            depth,
            confidence,
        } => (
            format!(
                "estimate {:+.2} (depth {depth}{}) best {}",
                f64::from(*score) / f64::from(DISC),
                confidence.map_or_else(String::new, |c| format!("@{c}%")),
                name(*best)
            ),
            None,
        ),
    }
}

/// `reversi solve`: every position of `text`, one line each, then a total.
/// Returns false when any answer disagrees with the scores listed.
pub fn run(text: &str, options: &Options, out: &mut impl Write) -> Result<bool, RunError> {
    let mut searcher = Searcher::new(options.hash_mb, options.eval);
    let (mut total_nodes, mut total_time) = (0u64, 0.0f64);
    let (mut count, mut wrong, mut unsolved) = (0, 0, 0);
    for (n, line) in text.lines().enumerate() {
        let parsed =
            parse_obf(line).map_err(|error| RunError::Line(LineError { line: n + 1, error }))?;
        let Some(position) = parsed else {
            continue;
        };
        count += 1;
        searcher.forget();
        let start = Instant::now();
        let mut answer = answer(&mut searcher, &position.board, options);
        let secs = start.elapsed().as_secs_f64();
        let nodes = searcher.nodes();
        // The line is read from the solved table after the clock stops, so
        // nodes and time are the solve's alone.
        if let Answer::Exact { score, pv, .. } = &mut answer {
            *pv = searcher.principal_variation(&position.board, *score);
        }
        total_nodes += nodes;
        total_time += secs;
        let (text, check) = report(&answer, &position);
        let verdict = match (check, position.best()) {
            (Some(true), Some((top, _))) => format!(" expected {top:+} ok"),
            (Some(false), Some((top, _))) => {
                wrong += 1;
                format!(" expected {top:+} WRONG")
            }
            (None, Some(_)) => {
                unsolved += 1;
                " not solved".to_string()
            }
            _ => String::new(),
        };
        writeln!(
            out,
            "line {:3}: empties {:2} {text} nodes {nodes} time {secs:.3}s {:.2} Mnps{verdict}",
            n + 1,
            position.board.empty_count(),
            nodes as f64 / secs.max(1e-9) / 1e6
        )?;
    }
    writeln!(
        out,
        "total: {count} positions, {total_nodes} nodes, {total_time:.3}s, {:.2} Mnps, {wrong} wrong, {unsolved} not solved",
        total_nodes as f64 / total_time.max(1e-9) / 1e6
    )?;
    Ok(wrong == 0)
}
