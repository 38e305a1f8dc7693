//! What the engine learns from games: the pattern weights fitted here
//! (`reversi train`), the self-play games it can learn from
//! ([`selfplay`]), and the opening book built from the archives
//! ([`book`]).
//!
//! `reversi train`: from the game archives to the pattern weights
//! (`core/src/eval/patterns.weights`), in one seeded run.
//!
//! 1. Read every game of both archives in `../shared/data/games/` (WTHOR's
//!    binary files and Logistello's text list; formats in its README) and
//!    replay it with our rules.
//! 2. Label: in each game, solve exactly (our solver) the first position
//!    with at most `SOLVE_EMPTIES` empties; every earlier position of that
//!    game gets that score, from its own side's view. The label is thus
//!    "what the game's line of play is worth with perfect play from near
//!    its end": it removes the late mistakes of human games, and costs one
//!    small solve a game. A WTHOR record also gives the perfect-play score
//!    of its game's position at 24 empties (its "theoretical score",
//!    computed when the archive was made); the positions up to that one
//!    take it instead, which removes the mistakes made between 24 and 12
//!    empties too. Games that stop early without ending are skipped, but
//!    for their positions that a theoretical score labels.
//!
//!    Or, with `--label-depth D` ([`Labels`]), by a search of each
//!    position itself: exact up to [`EXACT_LABEL_EMPTIES`] empties, else
//!    the bot's selective search to depth D with the evaluation the binary
//!    was built with, mixed with the game's label in the share asked for.
//!    Run again from a binary built with the new weights, this labels a
//!    second round. Measured at depths 6 and 10, not used for the
//!    committed weights (BENCHMARKS.md, "Search labels").
//! 3. Fit each stage's tables by stochastic gradient descent on the squared
//!    error, in an order shuffled by the seed, one stage per job.
//! 4. Hold out every `HOLD_OUT`-th game (by its place in the archives) and
//!    print the mean absolute error, per stage, of the trained tables and of
//!    the hand-written evaluation on those same positions.
//!
//! This module sits outside the playing core: the bot only reads the
//! weights through `eval::pattern`.

pub mod book;
pub mod selfplay;

use crate::records::archive::{parse_logistello, read_games, replay, ArchiveRun, Record};
use crate::util::parallel::Progress;
use reversi_core::board::Board;
use reversi_core::eval::pattern::{self, FEATURES, STAGES, STAGE_SIZE, WEIGHT_SCALE};
use reversi_core::eval::{hand, Evaluator, DISC};
use reversi_core::search::{Limits, Searcher};
use std::io::{self, Write};
use std::path::Path;

/// Where each game is solved for its label.
pub const SOLVE_EMPTIES: u32 = 12;

/// One game in this many is held out for testing.
pub const HOLD_OUT: usize = 20;

/// A labelled position.
#[derive(Clone, Copy)]
pub struct Sample {
    pub board: Board,
    /// What the position is fitted to, in discs, side to move's view: the
    /// game's label, or with [`Labels::search_depth`] the search's.
    pub label: i8,
    /// The exact score of the game's own line (see the module doc), kept
    /// beside a search label so that held-out errors can be read against
    /// both.
    pub game: i8,
}

/// How positions are labelled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Labels {
    /// 0: by the game's line alone (the module doc). Otherwise each
    /// position is also searched: exactly up to [`EXACT_LABEL_EMPTIES`]
    /// empties, else to this depth by the bot's selective search with the
    /// embedded evaluation (no solver: its exact solves would cost seconds
    /// a position at 20 empties).
    pub search_depth: u32,
    /// The search label's share of the label, in percent; the game's
    /// label has the rest.
    pub search_share: u32,
}

impl Labels {
    /// For the log and the weights' header.
    #[must_use]
    pub fn describe(&self) -> String {
        let game = format!(
            "exact solve at {SOLVE_EMPTIES} empties of each game's own line; WTHOR's theoretical score before it"
        );
        if self.search_depth == 0 {
            game
        } else {
            format!(
                "{}% a search of the position itself (exact up to {EXACT_LABEL_EMPTIES} empties, else depth {} with the evaluation then embedded), {}% the game's: {game}",
                self.search_share,
                self.search_depth,
                100 - self.search_share.min(100)
            )
        }
    }
}

/// Up to this many empties a search label is an exact solve: a few
/// milliseconds each (BENCHMARKS.md, "Cost by empties": a median of 164 k
/// nodes at 16 empties, 1.6 M at 18).
pub const EXACT_LABEL_EMPTIES: u32 = 16;

/// The search label of `board`, in discs (see [`Labels::search_depth`]).
fn search_label(searcher: &mut Searcher, board: &Board, depth: u32) -> i32 {
    // A game over (a wipe-out can end one early) has its score at once.
    if board.empty_count() <= EXACT_LABEL_EMPTIES || board.is_game_over() {
        return searcher.exact_score(board);
    }
    // The search wants a move to make, so a pass is searched from the
    // other side.
    if !board.has_moves() {
        return -search_label(searcher, &board.pass(), depth);
    }
    let limits = Limits {
        solver: false,
        ..Limits::depth(depth)
    };
    let result = searcher.search(board, &limits);
    (f64::from(result.score) / f64::from(DISC))
        .round()
        .clamp(-64.0, 64.0) as i32
}

/// Labels the positions of one game (see the module doc); empty when the
/// game is unusable.
fn label_game(searcher: &mut Searcher, record: &Record, labels: Labels) -> Vec<Sample> {
    let Some(positions) = replay(&record.game) else {
        return Vec::new();
    };
    let for_side = |black: bool, black_score: i32| if black { black_score } else { -black_score };
    // Up to the position the theoretical score is for (each move fills one
    // square, so a game that gets that far has it), that score.
    let (mut samples, rest) = match record.theory.and_then(|theory| {
        let at = positions
            .iter()
            .position(|(b, _)| b.empty_count() <= theory.empties)?;
        (positions[at].0.empty_count() == theory.empties).then_some((at, theory.black))
    }) {
        Some((at, black_score)) => (
            positions[..=at]
                .iter()
                .map(|&(board, black)| {
                    let label = for_side(black, i32::from(black_score)) as i8;
                    Sample {
                        board,
                        label,
                        game: label,
                    }
                })
                .collect(),
            &positions[at + 1..],
        ),
        None => (Vec::new(), &positions[..]),
    };
    let solve_at = rest
        .iter()
        .position(|(b, _)| b.empty_count() <= SOLVE_EMPTIES || b.is_game_over());
    searcher.new_game();
    if let Some(solve_at) = solve_at {
        let (target, target_black) = rest[solve_at];
        let score = for_side(target_black, searcher.exact_score(&target));
        samples.extend(rest[..solve_at].iter().map(|&(board, black)| {
            let label = for_side(black, score) as i8;
            Sample {
                board,
                label,
                game: label,
            }
        }));
    } // else stopped early (resigned, or recorded in part)
    if labels.search_depth > 0 {
        // From the end back: the table then holds the later positions'
        // trees when an earlier one's search reaches them.
        let share = i32::try_from(labels.search_share.min(100)).unwrap_or(100);
        for sample in samples.iter_mut().rev() {
            let searched = search_label(searcher, &sample.board, labels.search_depth);
            let mixed = f64::from(share * searched + (100 - share) * i32::from(sample.game));
            sample.label = (mixed / 100.0).round() as i8;
        }
    }
    samples
}

/// Labels every game with `jobs` threads; returns (training, held-out)
/// samples, each in game order.
pub fn label_all(
    games: &[Record],
    labels: Labels,
    jobs: usize,
    log: &mut impl Write,
) -> (Vec<Sample>, Vec<Sample>) {
    let mut results: Vec<Vec<Sample>> = vec![Vec::new(); games.len()];
    let mut progress = Progress::new("labelled", games.len(), "games");
    let mut done = 0;
    crate::util::parallel::run(
        jobs,
        games,
        || {
            if labels.search_depth > 0 {
                Searcher::new(16, Evaluator::Pattern)
            } else {
                Searcher::new(4, Evaluator::Hand)
            }
        },
        |searcher, record| label_game(searcher, record, labels),
        |i, samples| {
            results[i] = samples;
            done += 1;
            progress.report(done, log);
        },
    );
    let (mut train, mut test) = (Vec::new(), Vec::new());
    for (i, samples) in results.into_iter().enumerate() {
        if i % HOLD_OUT == 0 {
            test.extend(samples);
        } else {
            train.extend(samples);
        }
    }
    (train, test)
}

/// [`label_all`], saying on `log` what it labels and what came of it.
pub fn label_logged(
    games: &[Record],
    labels: Labels,
    jobs: usize,
    log: &mut impl Write,
) -> io::Result<(Vec<Sample>, Vec<Sample>)> {
    writeln!(
        log,
        "labelling {} games with {jobs} jobs ({})",
        games.len(),
        labels.describe()
    )?;
    let (train, test) = label_all(games, labels, jobs, log);
    writeln!(
        log,
        "{} training positions, {} held out",
        train.len(),
        test.len()
    )?;
    Ok((train, test))
}

/// The step of the first epoch: under 2 is stable.
const FIRST_RATE: f32 = 0.5;

/// Each epoch's step is this share of the one before. The steps must end
/// small: at a step of r, each position moves the weights it reads by r
/// of its error, so a weight that nearly every position of a stage reads
/// (an empty edge in the opening) ends as an average of about the last
/// 1/r labels it saw, which are noisy. With the old schedule (0.5 / (1 +
/// epoch), 0.083 in the sixth epoch) that left each stage a chance offset
/// of its own for the side to move, up to 4 discs and alternating in sign
/// from stage to stage (46-50 empties -4, 51-55 +4, measured on the
/// Logistello games), which a search to odd and even depths saw as swings
/// of 10 discs; 0.3 a step (0.0012 in the sixth) removed them and lowered
/// the held-out error at every stage (BENCHMARKS.md, "Trained evaluation").
const RATE_DECAY: f32 = 0.3;

/// Fits one stage's weights (in discs) to `samples` by stochastic gradient
/// descent, normalised per position (NLMS): a position's step is divided by
/// the sum of the squared multiplicities of its features. A symmetric
/// configuration (an empty edge, say) can put one weight in a position up to
/// 8 times, and an unnormalised step then diverges on the opening stages.
fn fit_stage(samples: &[([u32; FEATURES], f32)], epochs: u32, seed: u64) -> Vec<f32> {
    let norms: Vec<f32> = samples
        .iter()
        .map(|(features, _)| {
            let mut sorted = *features;
            sorted.sort_unstable();
            let mut sum = 0u32;
            let mut run = 1u32;
            for i in 1..=sorted.len() {
                if i < sorted.len() && sorted[i] == sorted[i - 1] {
                    run += 1;
                } else {
                    sum += run * run;
                    run = 1;
                }
            }
            1.0 / sum as f32
        })
        .collect();
    let mut weights = vec![0f32; STAGE_SIZE];
    let mut order: Vec<u32> = (0..samples.len() as u32).collect();
    let mut rng = fastrand::Rng::with_seed(seed);
    for epoch in 0..epochs {
        rng.shuffle(&mut order);
        let rate = FIRST_RATE * RATE_DECAY.powi(epoch as i32);
        for &i in &order {
            let (features, label) = &samples[i as usize];
            let predicted: f32 = features.iter().map(|&f| weights[f as usize]).sum();
            let step = rate * (label - predicted) * norms[i as usize];
            for &f in features {
                weights[f as usize] += step;
            }
        }
    }
    weights
}

/// The stages whose tables a position of `empties` empties trains: its
/// own, and those with a count in their band within `overlap` empties of
/// it. Neighbouring stages then share the positions near their border, so
/// a position's score changes less where a search crosses from one stage
/// into the next.
fn stages_trained_by(empties: u32, overlap: u32) -> std::ops::RangeInclusive<usize> {
    pattern::stage(empties.saturating_sub(overlap))..=pattern::stage(empties + overlap)
}

/// Options of `reversi train`.
pub struct Options<'a> {
    /// The archives, the output, the threads.
    pub run: ArchiveRun<'a>,
    /// More games, in the Logistello list's format (`reversi selfplay`
    /// writes them), after the archives'.
    pub extra_games: Option<&'a Path>,
    pub seed: u64,
    pub epochs: u32,
    /// A position also trains the stages whose bands come within this
    /// many empties of its own count (see `stages_trained_by`).
    pub overlap: u32,
    /// How the positions are labelled.
    pub labels: Labels,
}

/// The whole pipeline; progress and the held-out errors go to `log`.
pub fn run(options: &Options, log: &mut impl Write) -> io::Result<()> {
    // read first, so that a wrong path fails before the long reads
    let extra = match options.extra_games {
        Some(path) => {
            let named = |e: String| {
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("{}: {e}", path.display()),
                )
            };
            if path.extension().is_some_and(|e| e == "gz") {
                crate::records::archive::read_logistello(path)?
            } else {
                let text = crate::util::files::read_text_capped(path)?;
                parse_logistello(&text).map_err(named)?
            }
        }
        None => Vec::new(),
    };
    let games = read_games(options.run.games_dir, extra, options.run.every, log)?;
    let (train, test) = label_logged(&games, options.labels, options.run.jobs, log)?;

    // Group by stage and fit, a stage per job.
    let mut by_stage: Vec<Vec<([u32; FEATURES], f32)>> = vec![Vec::new(); STAGES];
    for s in &train {
        let features = pattern::features(&s.board);
        for stage in stages_trained_by(s.board.empty_count(), options.overlap) {
            by_stage[stage].push((features, f32::from(s.label)));
        }
    }
    let stages: Vec<usize> = (0..STAGES).collect();
    let fitted = crate::util::parallel::map(options.run.jobs, &stages, |&stage| {
        fit_stage(
            &by_stage[stage],
            options.epochs,
            options.seed + stage as u64,
        )
    });
    drop(by_stage);

    let mut bytes = format!(
        "reversi pattern weights v1\ncommand: {}\ndata: {} (WTHOR, FFO; Logistello book, M. Buro){}, one game in {} used, one in {HOLD_OUT} of those held out\nlabels: {}\nstage overlap: {} empties\nstages: {STAGES}, {STAGE_SIZE} weights each, i16 in 1/{WEIGHT_SCALE} disc\n\n",
        options.run.command,
        options.run.games_dir.display(),
        options
            .extra_games
            .map_or(String::new(), |p| format!(" and {}", p.display())),
        options.run.every.max(1),
        options.labels.describe(),
        options.overlap
    )
    .into_bytes();
    for w in &fitted {
        for &x in w {
            let q = (x * WEIGHT_SCALE as f32)
                .round()
                .clamp(f32::from(i16::MIN), f32::from(i16::MAX)) as i16;
            bytes.extend_from_slice(&q.to_le_bytes());
        }
    }
    crate::util::files::write_atomically(options.run.out, &bytes)?;
    writeln!(
        log,
        "wrote {} ({} bytes)",
        options.run.out.display(),
        bytes.len()
    )?;

    // Held-out error, with the quantized weights just written.
    let tables = &bytes[pattern::tables_start(&bytes).expect("header written above")..];
    writeln!(log, "held-out mean absolute error, discs:")?;
    // "embedded": the weights this binary was built with, on the same
    // positions, to compare a new fit with the one in use.
    let embedded = pattern::tables();
    // With search labels, the errors against the games' labels too.
    let searched = options.labels.search_depth > 0;
    writeln!(
        log,
        "stage empties positions trained embedded hand hand-scaled{}",
        if searched {
            " | against the games' labels: trained embedded"
        } else {
            ""
        }
    )?;
    for stage in 0..STAGES {
        let (mut n, mut trained, mut in_use, mut by_hand) = (0u64, 0f64, 0f64, 0f64);
        let (mut trained_game, mut in_use_game) = (0f64, 0f64);
        // The hand evaluation is not calibrated in discs: also give it the
        // best scale factor for these very positions (a generous reading).
        let (mut hy, mut hh) = (0f64, 0f64);
        for s in test
            .iter()
            .filter(|s| pattern::stage(s.board.empty_count()) == stage)
        {
            let h = f64::from(hand::evaluate(&s.board)) / f64::from(DISC);
            hy += h * f64::from(s.label);
            hh += h * h;
        }
        let k = if hh > 0.0 { hy / hh } else { 0.0 };
        let mut scaled = 0f64;
        for s in test
            .iter()
            .filter(|s| pattern::stage(s.board.empty_count()) == stage)
        {
            let discs =
                |tables| f64::from(pattern::weight_sum(tables, &s.board)) / f64::from(WEIGHT_SCALE);
            let (label, game) = (f64::from(s.label), f64::from(s.game));
            let (new, old) = (discs(tables), discs(embedded));
            trained += (new - label).abs();
            in_use += (old - label).abs();
            trained_game += (new - game).abs();
            in_use_game += (old - game).abs();
            let h = f64::from(hand::evaluate(&s.board)) / f64::from(DISC);
            by_hand += (h - label).abs();
            scaled += (k * h - label).abs();
            n += 1;
        }
        let low = 11 + 5 * stage;
        let high = if stage + 1 == STAGES { 60 } else { low + 4 };
        let n_f = n.max(1) as f64;
        write!(
            log,
            "{stage:5} {low:3}-{high:<3} {n:9} {:7.2} {:8.2} {:5.2} {:11.2}",
            trained / n_f,
            in_use / n_f,
            by_hand / n_f,
            scaled / n_f
        )?;
        if searched {
            write!(
                log,
                " | {:7.2} {:8.2}",
                trained_game / n_f,
                in_use_game / n_f
            )?;
        }
        writeln!(log)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logistello_lines_parse_and_replay() {
        let line = "+d3-c3+c4-e3+c2-b3+d2-e1+d1-c1+f4-d6+e6-g4+b2-f6+d7-c8+e7-d8+f3-f5+g5-h4+h6-f2+f7-h5+g6-c6+c5-c7+b6-b5+b4-e8+h3-g3+h2-e2+h7-g2+b1-a1+h1-a2+a3-g7+f8-h8+g8-a4+g1-f1+a6-a5+a7-a8+b8-b7: -04 10";
        let games = parse_logistello(line).unwrap();
        assert_eq!(games.len(), 1);
        assert_eq!(games[0].len(), 60);
        let positions = replay(&games[0]).expect("legal");
        let (last, black) = *positions.last().unwrap();
        assert!(last.is_game_over());
        assert!(black);
        // -04: black minus white; 60 moves fill the board. The last
        // position's side to move is black (b7 was white's move).
        assert_eq!(last.final_score(), -4);
    }

    #[test]
    fn a_position_trains_the_stages_within_the_overlap() {
        // Bands: 11-15 is stage 0, 16-20 stage 1, 21-25 stage 2 ...
        let stages = |empties, overlap| stages_trained_by(empties, overlap).collect::<Vec<_>>();
        assert_eq!(stages(16, 0), [1]);
        assert_eq!(stages(20, 0), [1]);
        assert_eq!(stages(16, 2), [0, 1]);
        assert_eq!(stages(18, 2), [1]);
        assert_eq!(stages(19, 2), [1, 2]);
        assert_eq!(stages(11, 2), [0]);
        assert_eq!(stages(60, 2), [9]);
        assert_eq!(stages(30, 6), [2, 3, 4, 5]);
    }

    #[test]
    fn labels_agree_with_a_direct_solve() {
        let line = "+d3-c3+c4-e3+c2-b3+d2-e1+d1-c1+f4-d6+e6-g4+b2-f6+d7-c8+e7-d8+f3-f5+g5-h4+h6-f2+f7-h5+g6-c6+c5-c7+b6-b5+b4-e8+h3-g3+h2-e2+h7-g2+b1-a1+h1-a2+a3-g7+f8-h8+g8-a4+g1-f1+a6-a5+a7-a8+b8-b7: -04 10";
        let game = &parse_logistello(line).unwrap()[0];
        let mut s = Searcher::new(1, Evaluator::Hand);
        let samples = label_game(&mut s, &Record::moves(game.clone()), Labels::default());
        // Every position before the solve point is labelled; the last of
        // them is one move from it, so its label is minus the solved score
        // of the next position (no pass in this game).
        assert_eq!(samples.len(), 60 - SOLVE_EMPTIES as usize);
        let last = samples.last().unwrap();
        let next = replay(game).unwrap()[samples.len()].0;
        assert_eq!(i32::from(last.label), -s.exact_score(&next));
        // The first position (the start) is labelled for black.
        assert_eq!(samples[0].board, Board::start());
    }

    #[test]
    fn search_labels_solve_the_late_positions_and_keep_the_games_label() {
        let line = "+d3-c3+c4-e3+c2-b3+d2-e1+d1-c1+f4-d6+e6-g4+b2-f6+d7-c8+e7-d8+f3-f5+g5-h4+h6-f2+f7-h5+g6-c6+c5-c7+b6-b5+b4-e8+h3-g3+h2-e2+h7-g2+b1-a1+h1-a2+a3-g7+f8-h8+g8-a4+g1-f1+a6-a5+a7-a8+b8-b7: -04 10";
        let record = Record::moves(parse_logistello(line).unwrap()[0].clone());
        let mut s = Searcher::new(1, Evaluator::Pattern);
        let by_game = label_game(&mut s, &record, Labels::default());
        let labels = |share| Labels {
            search_depth: 4,
            search_share: share,
        };
        let searched = label_game(&mut s, &record, labels(100));
        assert_eq!(searched.len(), by_game.len());
        for (a, b) in searched.iter().zip(&by_game) {
            assert_eq!(a.board, b.board);
            assert_eq!(a.game, b.label);
            if a.board.empty_count() <= EXACT_LABEL_EMPTIES {
                assert_eq!(i32::from(a.label), s.exact_score(&a.board));
            }
        }
        // The game's one label for the whole line is not what a search
        // finds at every position.
        assert!(searched.iter().any(|a| a.label != a.game));
        // Half and half lies between the two; with no share, the game's.
        let half = label_game(&mut s, &record, labels(50));
        for (h, a) in half.iter().zip(&searched) {
            let (low, high) = (a.label.min(a.game), a.label.max(a.game));
            assert!(
                (low..=high).contains(&h.label),
                "{} {} {}",
                h.label,
                a.label,
                a.game
            );
        }
        let none = label_game(&mut s, &record, labels(0));
        assert!(none.iter().all(|a| a.label == a.game));
    }
}
