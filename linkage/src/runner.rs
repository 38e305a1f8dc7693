//! The contest's game runner (`linkage match`), as the seed's organiser
//! runs it: each bot is copied into a folder of its own; for each of its
//! turns the runner writes `input.txt` there, runs the bot with no
//! argument, and reads `order.txt`. An order that is missing, malformed or
//! illegal, or a bot that runs past 5 s, loses the game. Who plays More
//! alternates from game to game, and every order of a game is appended to
//! that game's log, as the seed promises its players. Each bot's id line is
//! asked for first, with an argument.
//!
//! A contestant is a program, or one of the built-in players (`random`,
//! `greedy`, `bot`, the tree search in this process, or `alphabeta`),
//! which need no files.
//!
//! The weekly ladder (`linkage ladder`, [`play_ladder`]) plays its rounds
//! with the same games, on the ladder Othello's tournaments use.

use super::files::input_text;
use super::player::{AlphaBetaPlayer, MctsPlayer, Player, SimplePlayer, THINK_TIME};
use super::rules::{all_placements, Move, Placement, Position, Side};
use reversi::arena::program::{run_once, RunOnce};
use reversi::tournament::ladder::Ladder;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// The contest's limit per turn, from starting the bot to its exit.
pub const TURN_LIMIT: Duration = Duration::from_secs(5);

/// The environment variable in which the runner tells a bot how long to
/// think, in milliseconds (`--think`; our bot honours it, others may not).
pub const THINK_ENV: &str = "LINKAGE_THINK_MS";

/// One side of a match.
pub enum Contestant {
    /// A program, copied into a folder of its own.
    Program {
        exe: PathBuf,
        think: Option<Duration>,
    },
    /// A player in this process.
    BuiltIn(Box<dyn Player + Send>),
}

impl Contestant {
    /// `random`, `greedy`, `bot` or `alphabeta` (seeded), or the program at `name`,
    /// copied into `dir` (made fresh), with `think` passed on to it.
    pub fn new(
        name: &str,
        dir: &Path,
        seed: u64,
        think: Option<Duration>,
    ) -> io::Result<Contestant> {
        match name {
            "random" => Ok(Contestant::BuiltIn(Box::new(SimplePlayer::new(
                seed, false,
            )))),
            "greedy" => Ok(Contestant::BuiltIn(Box::new(SimplePlayer::new(seed, true)))),
            "bot" => Ok(Contestant::BuiltIn(Box::new(MctsPlayer::new(
                seed,
                think.unwrap_or(THINK_TIME),
            )))),
            "alphabeta" => Ok(Contestant::BuiltIn(Box::new(AlphaBetaPlayer::new(
                seed,
                think.unwrap_or(THINK_TIME),
            )))),
            path => {
                let source = if path == "self" {
                    std::env::current_exe()?
                } else {
                    PathBuf::from(path)
                };
                let _ = std::fs::remove_dir_all(dir);
                std::fs::create_dir_all(dir)?;
                let file_name = source
                    .file_name()
                    .ok_or_else(|| io::Error::other(format!("{path}: not a file")))?;
                let exe = dir.join(file_name);
                std::fs::copy(&source, &exe)
                    .map_err(|e| io::Error::new(e.kind(), format!("{path}: {e}")))?;
                Ok(Contestant::Program { exe, think })
            }
        }
    }

    /// Its id line: a program's answer to being run with an argument, or
    /// the built-in player's name.
    #[must_use]
    pub fn id(&self, name: &str) -> String {
        let Contestant::Program { exe, .. } = self else {
            return format!("the built-in {name} player");
        };
        let out = exe.with_file_name("id.txt");
        let ran = std::fs::File::create(&out).and_then(|file| {
            run_once(
                Command::new(exe)
                    .arg("id")
                    .current_dir(exe.parent().unwrap_or(Path::new(".")))
                    .stdin(Stdio::null())
                    .stdout(file)
                    .stderr(Stdio::null()),
                TURN_LIMIT,
            )
        });
        let text = std::fs::read_to_string(&out).unwrap_or_default();
        match ran {
            Ok(RunOnce::Exited(..)) => text
                .lines()
                .next()
                .unwrap_or("(no id line)")
                .trim()
                .to_string(),
            Ok(RunOnce::TimedOut) => "(no id within 5 s)".to_string(),
            Err(e) => format!("(could not run: {e})"),
        }
    }

    /// Its move in `position`, or why it loses the game.
    fn turn(
        &mut self,
        position: &Position,
        placements: &[Placement],
    ) -> Result<(Move, Duration), String> {
        let (exe, think) = match self {
            Contestant::BuiltIn(player) => {
                let started = std::time::Instant::now();
                let mv = player.choose(position, placements);
                return Ok((mv, started.elapsed()));
            }
            Contestant::Program { exe, think } => (exe.clone(), *think),
        };
        let dir = exe.parent().unwrap_or(Path::new(".")).to_path_buf();
        let order = dir.join("order.txt");
        let _ = std::fs::remove_file(&order);
        std::fs::write(dir.join("input.txt"), input_text(position))
            .map_err(|e| format!("could not write its input.txt: {e}"))?;
        let mut command = Command::new(&exe);
        command
            .current_dir(&dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        if let Some(think) = think {
            command.env(THINK_ENV, think.as_millis().to_string());
        }
        let took = match run_once(&mut command, TURN_LIMIT) {
            Ok(RunOnce::Exited(_, took)) => took,
            Ok(RunOnce::TimedOut) => return Err("no move within 5 s".to_string()),
            Err(e) => return Err(format!("could not run: {e}")),
        };
        let text = std::fs::read_to_string(&order).map_err(|_| "no order.txt".to_string())?;
        let line = text.lines().next().unwrap_or("").trim();
        let mv =
            Move::parse_order(line).ok_or_else(|| format!("order {line:?} is not an order"))?;
        Ok((mv, took))
    }
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameResult {
    pub winner: Side,
    /// Groups on the board at the end.
    pub groups: u32,
    /// The side that lost by a fault, and the fault.
    pub fault: Option<(Side, String)>,
    /// The slowest turn of each side (More, Fewer).
    pub slowest: [Duration; 2],
}

/// Plays one game; every order (and the result) goes to `log`.
pub fn play_game(
    more: &mut Contestant,
    fewer: &mut Contestant,
    log: &mut impl Write,
) -> GameResult {
    let placements = all_placements();
    let mut position = Position::start();
    let mut slowest = [Duration::ZERO; 2];
    loop {
        if position.moves(&placements).is_empty() {
            let (winner, groups) = (position.winner(), position.groups());
            let _ = writeln!(log, "end: {groups} groups, {winner:?} wins");
            return GameResult {
                winner,
                groups,
                fault: None,
                slowest,
            };
        }
        let side = position.to_move;
        let player = match side {
            Side::More => &mut *more,
            Side::Fewer => &mut *fewer,
        };
        let fault = match player.turn(&position, &placements) {
            Ok((mv, took)) => {
                let slot = &mut slowest[usize::from(side == Side::Fewer)];
                *slot = (*slot).max(took);
                let _ = writeln!(
                    log,
                    "{} {} ({} ms)",
                    side.letter(),
                    mv.order(),
                    took.as_millis()
                );
                if position.is_legal(mv, &placements) {
                    position = position.play(mv);
                    continue;
                }
                format!("{} is not legal here", mv.order())
            }
            Err(fault) => fault,
        };
        let _ = writeln!(log, "{} loses: {fault}", side.letter());
        return GameResult {
            winner: side.other(),
            groups: position.groups(),
            fault: Some((side, fault)),
            slowest,
        };
    }
}

/// A contestant's results in a match.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub more_games: u32,
    pub more_wins: u32,
    pub fewer_games: u32,
    pub fewer_wins: u32,
    pub faults: u32,
    pub slowest: Duration,
}

impl Tally {
    /// Adds a game this contestant played as `side`.
    pub fn add(&mut self, side: Side, result: &GameResult) {
        let won = result.winner == side;
        match side {
            Side::More => {
                self.more_games += 1;
                self.more_wins += u32::from(won);
            }
            Side::Fewer => {
                self.fewer_games += 1;
                self.fewer_wins += u32::from(won);
            }
        }
        if result.fault.as_ref().is_some_and(|(s, _)| *s == side) {
            self.faults += 1;
        }
        self.slowest = self
            .slowest
            .max(result.slowest[usize::from(side == Side::Fewer)]);
    }
}

/// What `linkage match` is asked for.
pub struct MatchOptions<'a> {
    pub games: u32,
    /// Where each program's folder and the games' logs go.
    pub dir: &'a Path,
    pub seed: u64,
    /// Passed to the programs in [`THINK_ENV`], and the time of the
    /// built-in `bot`.
    pub think: Option<Duration>,
}

/// Plays `options.games` games between `names[0]` (A, More in the odd
/// games: first, third, …) and `names[1]`; progress and the table to
/// `out`. Returns both tallies.
pub fn play_match(
    names: [&str; 2],
    options: &MatchOptions,
    out: &mut impl Write,
) -> io::Result<[Tally; 2]> {
    std::fs::create_dir_all(options.dir)?;
    let mut contestants = [
        Contestant::new(
            names[0],
            &options.dir.join("a"),
            options.seed,
            options.think,
        )?,
        Contestant::new(
            names[1],
            &options.dir.join("b"),
            options.seed.wrapping_add(1),
            options.think,
        )?,
    ];
    for (k, c) in contestants.iter().enumerate() {
        writeln!(out, "{}: {}: {}", ["A", "B"][k], names[k], c.id(names[k]))?;
    }
    let mut tallies = [Tally::default(), Tally::default()];
    for game in 0..options.games {
        let a_more = game % 2 == 0;
        let path = options.dir.join(format!("game-{:03}.txt", game + 1));
        let mut log = std::fs::File::create(&path)?;
        writeln!(
            log,
            "More: {}, Fewer: {}",
            names[usize::from(!a_more)],
            names[usize::from(a_more)]
        )?;
        let [a, b] = &mut contestants;
        let result = if a_more {
            play_game(a, b, &mut log)
        } else {
            play_game(b, a, &mut log)
        };
        let (a_side, b_side) = if a_more {
            (Side::More, Side::Fewer)
        } else {
            (Side::Fewer, Side::More)
        };
        tallies[0].add(a_side, &result);
        tallies[1].add(b_side, &result);
        let winner = if result.winner == a_side { "A" } else { "B" };
        let fault = result.fault.as_ref().map_or(String::new(), |(side, why)| {
            format!(" ({side:?} loses: {why})")
        });
        writeln!(
            out,
            "game {}/{}: A as {a_side:?}, {} groups, {winner} wins{fault}",
            game + 1,
            options.games,
            result.groups
        )?;
    }
    writeln!(out)?;
    writeln!(
        out,
        "   as-More  as-Fewer  total   faults  slowest  program"
    )?;
    for (k, t) in tallies.iter().enumerate() {
        let share = |w: u32, g: u32| {
            if g == 0 {
                0.0
            } else {
                100.0 * f64::from(w) / f64::from(g)
            }
        };
        writeln!(
            out,
            "{}  {:>3}/{:<3}  {:>3}/{:<3}  {:5.1}%  {:>6}  {:>5}ms  {}",
            ["A", "B"][k],
            t.more_wins,
            t.more_games,
            t.fewer_wins,
            t.fewer_games,
            share(t.more_wins + t.fewer_wins, t.more_games + t.fewer_games),
            t.faults,
            t.slowest.as_millis(),
            names[k]
        )?;
    }
    Ok(tallies)
}

/// What `linkage ladder` is asked for.
pub struct LadderOptions<'a> {
    pub rounds: u32,
    /// Games each neighbouring pair plays a round (the seed's 10).
    pub per_pair: usize,
    /// Where each program's folder and the games' logs go.
    pub dir: &'a Path,
    pub seed: u64,
    /// As in [`MatchOptions`].
    pub think: Option<Duration>,
}

/// The seed's weekly ladder between `names` (programs or built-in
/// players), each round a week: every bot plays the one above it and the
/// one below, half the games as More (the ladder's rules are Othello's
/// too: `tournament::ladder`). Progress to `out`; the ladder at the end.
pub fn play_ladder(
    names: &[String],
    options: &LadderOptions,
    out: &mut impl Write,
) -> io::Result<Ladder> {
    std::fs::create_dir_all(options.dir)?;
    let mut contestants = Vec::new();
    for (k, name) in names.iter().enumerate() {
        let dir = options.dir.join(format!("bot-{}", k + 1));
        let contestant = Contestant::new(
            name,
            &dir,
            options.seed.wrapping_add(k as u64),
            options.think,
        )?;
        writeln!(out, "{}: {name}: {}", k + 1, contestant.id(name))?;
        contestants.push(contestant);
    }
    let mut ladder = Ladder::new(names.len());
    for round in 1..=options.rounds {
        let games = ladder.pairings(options.per_pair);
        let mut winners = Vec::with_capacity(games.len());
        for (k, &(first, second)) in games.iter().enumerate() {
            let path = options
                .dir
                .join(format!("round-{round}-game-{:02}.txt", k + 1));
            let mut log = std::fs::File::create(&path)?;
            writeln!(log, "More: {}, Fewer: {}", names[first], names[second])?;
            let (more, fewer) = two_of(&mut contestants, first, second);
            let result = play_game(more, fewer, &mut log);
            winners.push(Some(if result.winner == Side::More {
                first
            } else {
                second
            }));
        }
        ladder.record_round(&games, &winners);
        let order: Vec<&str> = ladder.order.iter().map(|&e| names[e].as_str()).collect();
        writeln!(out, "after round {round}: {}", order.join(" > "))?;
    }
    writeln!(out)?;
    write!(
        out,
        "{}",
        ladder
            .standings_table(names, ["as-More", "as-Fewer"])
            .to_text()
    )?;
    Ok(ladder)
}

/// Two different elements of `items`, both mutable.
fn two_of<T>(items: &mut [T], a: usize, b: usize) -> (&mut T, &mut T) {
    assert_ne!(a, b, "a bot does not play itself");
    if a < b {
        let (low, high) = items.split_at_mut(b);
        (&mut low[a], &mut high[0])
    } else {
        let (low, high) = items.split_at_mut(a);
        (&mut high[0], &mut low[b])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ladder_round_pairs_neighbours_half_as_more_and_reorders() {
        let dir = std::env::temp_dir().join(format!("linkage-ladder-{}", std::process::id()));
        let names: Vec<String> = ["random", "greedy", "random"].map(String::from).to_vec();
        let options = LadderOptions {
            rounds: 1,
            per_pair: 4,
            dir: &dir,
            seed: 5,
            think: None,
        };
        let mut out = Vec::new();
        let ladder = play_ladder(&names, &options, &mut out).expect("plays");
        // three bots: two neighbouring pairs, 4 games each; the middle one
        // plays 8, 4 as More
        assert_eq!(ladder.records[1].games, 8);
        assert_eq!(
            (
                ladder.records[1].first_games,
                ladder.records[1].second_games
            ),
            (4, 4)
        );
        assert_eq!((ladder.records[0].games, ladder.records[2].games), (4, 4));
        let wins: u32 = ladder.records.iter().map(|r| r.wins).sum();
        assert_eq!(wins, 8, "a winner in every game");
        let report = String::from_utf8(out).expect("utf-8");
        assert!(
            report.contains("after round 1:") && report.contains("as-More"),
            "{report}"
        );
        assert!(dir.join("round-1-game-08.txt").exists());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn built_in_players_play_whole_games_and_sides_alternate() {
        let dir = std::env::temp_dir().join(format!("linkage-runner-{}", std::process::id()));
        let options = MatchOptions {
            games: 4,
            dir: &dir,
            seed: 3,
            think: None,
        };
        let mut out = Vec::new();
        let tallies = play_match(["random", "greedy"], &options, &mut out).expect("plays");
        for t in &tallies {
            assert_eq!((t.more_games, t.fewer_games, t.faults), (2, 2, 0));
        }
        let games: u32 = tallies.iter().map(|t| t.more_wins + t.fewer_wins).sum();
        assert_eq!(games, 4, "one winner a game");
        let log = std::fs::read_to_string(dir.join("game-002.txt")).expect("a log per game");
        assert!(log.starts_with("More: greedy, Fewer: random"), "{log}");
        assert!(log.contains("end: "), "{log}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
