//! The players the binary can be: the searching engine and two simple
//! built-in opponents (`--player random|greedy`) for testing and matches.

use crate::bitboard::{self, Square};
use crate::board::Board;
use crate::book::Book;
use crate::clock::Deadline;
use crate::eval::{Evaluator, DISC};
use crate::movegen::flips;
use crate::search::{Limits, ScoreKind, SearchResult, Searcher, Stop};
use std::time::{Duration, Instant};

/// A move (or `None` to pass) and one line saying how it was chosen.
pub struct Choice {
    /// The move, or `None` to pass.
    pub square: Option<Square>,
    /// How it was chosen, for stderr.
    pub info: String,
}

/// Something that chooses moves: the searching bot, or a built-in opponent.
pub trait Player {
    /// Called at every `START`.
    fn new_game(&mut self);
    /// Chooses a move for the side to move; `started` is when the request
    /// was read.
    fn choose(&mut self, board: &Board, started: Instant) -> Choice;
    /// The limit of the coming replies, for a protocol whose limit
    /// changes from turn to turn (CodinGame's longer first turn). Players
    /// without a clock ignore it.
    fn set_limit(&mut self, _limit: Duration) {}
    /// What the player has to say before the game: settings it could not
    /// honour as given. The protocols write each to stderr as they start.
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }
}

/// How the bot plays: every setting of `reversi [BOT FLAGS]`, with the
/// judge's defaults.
#[derive(Clone, Copy, Debug)]
pub struct BotOptions {
    /// Transposition table size in MiB.
    pub hash_mb: usize,
    /// The evaluation the search uses.
    pub eval: Evaluator,
    /// What ends a search: the clock (the default), or a fixed depth or
    /// node count for reproducible replies.
    pub stop: Stop,
    /// The judge's limit per reply, when given (`--move-time`). Without
    /// it a clocked search uses what our referee announced in
    /// `REVERSI_MOVE_TIME`, else the judge's second; a fixed depth or node
    /// count has no clock at all (see [`Engine::new`]).
    pub move_time: Option<Duration>,
    /// ProbCut's `t` in the midgame search (`--probcut T` sets it,
    /// `--probcut off` turns ProbCut off: `None`), for comparison.
    pub probcut_t: Option<f64>,
    /// Whether the opening book answers the positions it knows
    /// (`--book off` turns it off). On by default: the book of depth-24
    /// searches scored 52.2% at the judge's second against the same bot
    /// without it (200 games; BENCHMARKS.md, "Opening book").
    pub book: bool,
}

impl Default for BotOptions {
    /// What a judge gets: the trained evaluation, 16 MB, the clock.
    fn default() -> BotOptions {
        BotOptions {
            hash_mb: crate::tt::DEFAULT_MB,
            eval: Evaluator::DEFAULT,
            stop: Stop::Clock,
            move_time: None,
            probcut_t: Some(crate::search::MIDGAME_T),
            book: true,
        }
    }
}

/// The searching engine.
pub struct Engine {
    searcher: Searcher,
    stop: Stop,
    /// The limit per reply the clock enforces; `None`: no clock.
    limit: Option<Duration>,
    probcut_t: Option<f64>,
    book: Option<Book<'static>>,
    notes: Vec<String>,
}

impl Engine {
    /// The one place that decides the clock: a given `move_time` always
    /// applies; without one, a clocked search takes the announced limit or
    /// the judge's second, and a fixed depth or node count none, so that it
    /// replays exactly (`REVERSI_MOVE_TIME` does not change that).
    #[must_use]
    pub fn new(options: BotOptions) -> Engine {
        let mut notes = Vec::new();
        let limit = match (options.move_time, options.stop) {
            (Some(t), _) => Some(t),
            (None, Stop::Clock) => Some(match crate::clock::announced_limit() {
                Ok(announced) => announced.unwrap_or(crate::clock::JUDGE_LIMIT),
                Err(e) => {
                    notes.push(format!("{e}: playing to the judge's 1000 ms"));
                    crate::clock::JUDGE_LIMIT
                }
            }),
            (None, Stop::Depth(_) | Stop::Nodes(_)) => None,
        };
        if options.eval == Evaluator::Pattern {
            crate::eval::pattern::prepare();
        }
        let searcher = Searcher::new(options.hash_mb, options.eval);
        if let (got, true) = searcher.table_size() {
            notes.push(format!(
                "--hash {}: that much memory could not be had; the table has {got} MB",
                options.hash_mb
            ));
        }
        Engine {
            searcher,
            stop: options.stop,
            limit,
            probcut_t: options.probcut_t,
            book: options.book.then(crate::book::embedded),
            notes,
        }
    }

    fn limits(&self, started: Instant) -> Limits {
        Limits {
            stop: self.stop,
            deadline: self.limit.map_or_else(
                || Deadline::unlimited(started),
                |t| Deadline::for_limit(started, t),
            ),
            solver: true,
            probcut_t: self.probcut_t,
        }
    }
}

/// `depth 9@73% score +1.25 nodes 123456 time 512ms` (the selectivity,
/// when ProbCut pruned, after the depth), or `... exact +4 ...`
/// when solved, or `... solved win ...` when solved as win/draw/loss only.
#[must_use]
pub fn describe(result: &SearchResult) -> String {
    let score = match result.kind {
        ScoreKind::Exact => format!("exact {:+}", result.score / DISC),
        ScoreKind::Wld => {
            let outcome = match result.score.signum() {
                1 => "win",
                0 => "draw",
                _ => "loss",
            };
            format!("solved {outcome}")
        }
        ScoreKind::Estimate => format!("score {:+.2}", f64::from(result.score) / f64::from(DISC)),
    };
    let ms = result.elapsed.as_secs_f64() * 1000.0;
    let knps = if ms > 0.0 {
        result.nodes as f64 / ms
    } else {
        0.0
    };
    let selectivity = result
        .confidence()
        .map_or(String::new(), |percent| format!("@{percent}%"));
    format!(
        "depth {}{selectivity} {} nodes {} time {:.0}ms knps {:.0}",
        result.depth, score, result.nodes, ms, knps
    )
}

impl Player for Engine {
    fn new_game(&mut self) {
        self.searcher.new_game();
    }

    fn notes(&self) -> Vec<String> {
        self.notes.clone()
    }

    /// Changes the clock's limit; a fixed depth or node count, which has
    /// no clock, stays without one.
    fn set_limit(&mut self, limit: Duration) {
        if self.limit.is_some() {
            self.limit = Some(limit);
        }
    }

    fn choose(&mut self, board: &Board, started: Instant) -> Choice {
        if let Some(chosen) = self.book.and_then(|book| book.choose(board)) {
            return Choice {
                square: Some(chosen.square),
                info: format!(
                    "book score {:+.2} ({} of {} moves in the book)",
                    f64::from(chosen.score) / f64::from(DISC),
                    chosen.known,
                    chosen.moves
                ),
            };
        }
        let limits = self.limits(started);
        let result = self.searcher.search(board, &limits);
        Choice {
            square: result.best,
            info: describe(&result),
        }
    }
}

/// Seeds from the clock and process id, for players given no `--seed`.
#[must_use]
pub fn entropy_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    nanos ^ (u64::from(std::process::id()) << 32)
}

/// The two simple players, each seeded so that a game replays exactly:
/// a uniformly random legal move, or the move that turns over the most
/// discs (ties broken at random). Random is greedy with every move worth
/// the same.
#[cfg(not(bundle))] // the bundle plays only the engine
pub struct SimplePlayer {
    rng: fastrand::Rng,
    greedy: bool,
}

#[cfg(not(bundle))]
impl SimplePlayer {
    /// A player that picks a legal move uniformly at random, from `seed`.
    #[must_use]
    pub fn random(seed: u64) -> SimplePlayer {
        SimplePlayer {
            rng: fastrand::Rng::with_seed(seed),
            greedy: false,
        }
    }

    /// A player that flips the most discs, ties broken at random from `seed`.
    #[must_use]
    pub fn greedy(seed: u64) -> SimplePlayer {
        SimplePlayer {
            greedy: true,
            ..SimplePlayer::random(seed)
        }
    }
}

#[cfg(not(bundle))]
impl Player for SimplePlayer {
    fn new_game(&mut self) {}

    fn choose(&mut self, board: &Board, _started: Instant) -> Choice {
        let worth = |sq: Square| match self.greedy {
            true => flips(sq.index(), board.player, board.opponent).count_ones(),
            false => 0,
        };
        let scored: Vec<(Square, u32)> = bitboard::squares(board.moves())
            .map(|sq| (sq, worth(sq)))
            .collect();
        let most = scored.iter().map(|&(_, n)| n).max().unwrap_or(0);
        let best: Vec<Square> = scored
            .iter()
            .filter(|&&(_, n)| n == most)
            .map(|&(sq, _)| sq)
            .collect();
        let square = if best.is_empty() {
            None
        } else {
            Some(best[self.rng.usize(..best.len())])
        };
        let info = match self.greedy {
            true => format!("greedy flips {most}"),
            false => "random".to_string(),
        };
        Choice { square, info }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fixed_search_has_a_clock_only_when_given_one() {
        let depth = |move_time| {
            Engine::new(BotOptions {
                stop: Stop::Depth(3),
                move_time,
                ..BotOptions::default()
            })
            .limit
        };
        assert_eq!(depth(None), None);
        let given = Some(Duration::from_millis(300));
        assert_eq!(depth(given), given);
        let clocked = Engine::new(BotOptions::default()).limit;
        assert_eq!(
            clocked,
            Some(
                crate::clock::announced_limit()
                    .ok()
                    .flatten()
                    .unwrap_or(crate::clock::JUDGE_LIMIT)
            )
        );
    }
}
