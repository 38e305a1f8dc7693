//! Tournaments in the formats of the seeds: a knockout (PUG Challenge), an
//! Elo-rated pool (VG101 judge, section 3) and a weekly ladder (the Linkage
//! bot ladder). Every game goes through the referee.
//!
//! The formats never start programs themselves: they ask an [`Arena`] to
//! play a batch of games and get [`Outcome`]s back. The real arena runs the
//! referee (in parallel, `--jobs`); tests use a scripted one, so every rule
//! can be checked on constructed results.

pub mod bracket_svg;
pub mod elo;
pub mod knockout;
pub mod ladder;

use crate::board::{Board, Color};
use crate::referee::{self, Ending, GameSetup};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// A named player: a command line that speaks the judge protocol.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entrant {
    pub name: String,
    pub command: String,
}

/// Reads a players file: one `NAME: COMMAND` a line; `#` comments and blank
/// lines are skipped. Names must be unique.
pub fn parse_entrants(text: &str) -> Result<Vec<Entrant>, String> {
    let mut out: Vec<Entrant> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (name, command) = line
            .split_once(':')
            .ok_or_else(|| format!("line {}: expected 'NAME: COMMAND'", i + 1))?;
        let (name, command) = (name.trim(), command.trim());
        if name.is_empty() || command.is_empty() {
            return Err(format!("line {}: empty name or command", i + 1));
        }
        if out.iter().any(|e| e.name == name) {
            return Err(format!("line {}: the name '{name}' is used twice", i + 1));
        }
        out.push(Entrant {
            name: name.to_string(),
            command: command.to_string(),
        });
    }
    if out.len() < 2 {
        return Err("a tournament needs at least two players".into());
    }
    Ok(out)
}

/// One game to play: entrant indices and where it starts.
#[derive(Clone, Debug)]
pub struct GameSpec {
    pub black: usize,
    pub white: usize,
    pub start: Board,
    pub to_move: Color,
    /// The opening's moves, for the record (empty: the standard start).
    pub opening: String,
}

/// What a format needs to know of a finished game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub black_discs: u32,
    pub white_discs: u32,
    /// A side that lost on a technicality, and why.
    pub forfeit: Option<(Color, String)>,
    /// The forfeit came before the loser's first move (no `OK`, or it died
    /// at once): the game may be restarted.
    pub before_first_move: bool,
    /// Legal replies made by black and by white.
    pub legal_replies: [u32; 2],
}

impl Outcome {
    /// A game played to the end.
    #[must_use]
    pub fn finished(black_discs: u32, white_discs: u32) -> Outcome {
        Outcome {
            black_discs,
            white_discs,
            forfeit: None,
            before_first_move: false,
            legal_replies: [30, 30],
        }
    }

    /// The winner, `None` for a draw on discs.
    #[must_use]
    pub fn winner(&self) -> Option<Color> {
        if let Some((loser, _)) = &self.forfeit {
            return Some(loser.other());
        }
        match self.black_discs.cmp(&self.white_discs) {
            std::cmp::Ordering::Greater => Some(Color::Black),
            std::cmp::Ordering::Less => Some(Color::White),
            std::cmp::Ordering::Equal => None,
        }
    }

    /// Discs of `color` at the end (0 for a side that forfeited; the winner
    /// of a forfeit keeps what it had).
    #[must_use]
    pub fn discs(&self, color: Color) -> u32 {
        match color {
            Color::Black => self.black_discs,
            Color::White => self.white_discs,
        }
    }
}

/// Plays batches of games; the results come back in the batch's order.
pub trait Arena {
    fn play(&self, games: &[GameSpec]) -> Vec<Outcome>;
}

/// The real arena: the referee on child processes, `jobs` games at a time.
pub struct RefereeArena {
    pub entrants: Vec<Entrant>,
    pub limit: Duration,
    pub jobs: usize,
    /// Transcripts and stderr go here, if set.
    pub record: Option<PathBuf>,
    /// Numbers the games across batches, for the file names.
    counter: AtomicUsize,
    /// Each game's one-line summary, in the order they finish.
    pub log: Mutex<Vec<String>>,
}

impl RefereeArena {
    #[must_use]
    pub fn new(
        entrants: Vec<Entrant>,
        limit: Duration,
        jobs: usize,
        record: Option<PathBuf>,
    ) -> Self {
        RefereeArena {
            entrants,
            limit,
            jobs: jobs.max(1),
            record,
            counter: AtomicUsize::new(0),
            log: Mutex::new(Vec::new()),
        }
    }

    fn play_one(&self, spec: &GameSpec) -> Outcome {
        let number = self.counter.fetch_add(1, Ordering::SeqCst) + 1;
        let names = [
            &self.entrants[spec.black].name,
            &self.entrants[spec.white].name,
        ];
        let stderr = match &self.record {
            Some(dir) => [
                Some(dir.join(format!("game-{number:04}-black.stderr"))),
                Some(dir.join(format!("game-{number:04}-white.stderr"))),
            ],
            None => [None, None],
        };
        let game = referee::play_game(&GameSetup {
            commands: [
                &self.entrants[spec.black].command,
                &self.entrants[spec.white].command,
            ],
            start: spec.start,
            to_move: spec.to_move,
            limit: self.limit,
            stderr,
        });
        let outcome = outcome_of(&game);
        let result = match &game.ending {
            Ending::Finished { black, white } => format!("{black}-{white}"),
            Ending::Forfeit { loser, reason } => format!("{} forfeits: {reason}", loser.name()),
        };
        if let Some(dir) = &self.record {
            for (i, color) in [Color::Black, Color::White].into_iter().enumerate() {
                let mut t = game.transcripts[i].clone();
                t.headers = vec![
                    ("game".into(), number.to_string()),
                    ("color".into(), color.name().into()),
                    ("player".into(), names[i].to_string()),
                    ("opponent".into(), names[1 - i].to_string()),
                    ("opening".into(), spec.opening.clone()),
                    ("moves".into(), game.move_text()),
                    ("result".into(), result.clone()),
                ];
                let path = dir.join(format!("game-{number:04}-{}.txt", color.name()));
                if let Err(e) = std::fs::write(&path, t.render()) {
                    eprintln!("tournament: {}: {e}", path.display());
                }
            }
        }
        let line = format!(
            "game {number}: {} (black) vs {} (white): {result}",
            names[0], names[1]
        );
        self.log.lock().expect("log lock").push(line);
        outcome
    }
}

/// The referee's record of a game, as a format sees it.
#[must_use]
pub fn outcome_of(game: &referee::Game) -> Outcome {
    match &game.ending {
        Ending::Finished { black, white } => Outcome {
            legal_replies: game.legal,
            ..Outcome::finished(*black, *white)
        },
        Ending::Forfeit { loser, reason } => {
            let i = match loser {
                Color::Black => 0,
                Color::White => 1,
            };
            Outcome {
                black_discs: 0,
                white_discs: 0,
                forfeit: Some((*loser, reason.clone())),
                // No reply at all from the loser: it failed in the setup or
                // at its first request (the referee times only replies).
                before_first_move: game.times[i].is_empty(),
                legal_replies: game.legal,
            }
        }
    }
}

impl Arena for RefereeArena {
    fn play(&self, games: &[GameSpec]) -> Vec<Outcome> {
        let results: Vec<Mutex<Option<Outcome>>> = games.iter().map(|_| Mutex::new(None)).collect();
        let next = AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for _ in 0..self.jobs.min(games.len()) {
                scope.spawn(|| loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= games.len() {
                        return;
                    }
                    let outcome = self.play_one(&games[i]);
                    *results[i].lock().expect("result lock") = Some(outcome);
                });
            }
        });
        results
            .into_iter()
            .map(|m| {
                m.into_inner()
                    .expect("result lock")
                    .expect("every game was played")
            })
            .collect()
    }
}

/// Openings for a tournament: XOT lines, shuffled by the seed, each used for
/// a pair of games with colours swapped; none means the standard start.
#[derive(Clone, Debug, Default)]
pub struct Openings {
    lines: Vec<(String, Board, Color)>,
    next: usize,
}

impl Openings {
    /// Parses XOT lines (moves from the standard start, e.g.
    /// `f5d6c4d3c2b3b4b5`); `#` lines and blank lines are skipped.
    pub fn parse(text: &str, seed: u64) -> Result<Openings, String> {
        let mut lines = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (board, color) = opening_position(line)
                .ok_or_else(|| format!("line {}: not a legal opening", n + 1))?;
            lines.push((line.to_string(), board, color));
        }
        let mut rng = fastrand::Rng::with_seed(seed);
        rng.shuffle(&mut lines);
        Ok(Openings { lines, next: 0 })
    }

    /// The next opening: (moves, position, side to move).
    pub fn take(&mut self) -> (String, Board, Color) {
        if self.lines.is_empty() {
            return (String::new(), Board::start(), Color::Black);
        }
        let o = self.lines[self.next % self.lines.len()].clone();
        self.next += 1;
        o
    }
}

/// The position after an opening's moves from the standard start, and the
/// side to move; `None` if a move is illegal.
#[must_use]
pub fn opening_position(line: &str) -> Option<(Board, Color)> {
    let mut board = Board::start();
    let mut color = Color::Black;
    let bytes = line.trim().as_bytes();
    if !bytes.len().is_multiple_of(2) {
        return None;
    }
    for pair in bytes.chunks(2) {
        let sq = crate::bitboard::Square::from_letter_digit(pair[0], pair[1])?;
        if !board.has_moves() {
            board = board.pass();
            color = color.other();
        }
        if !board.is_legal(sq) {
            return None;
        }
        board = board.play(sq);
        color = color.other();
    }
    Some((board, color))
}

/// Games for a pair: `count` games, colours alternating, each opening used
/// twice (once with each colour).
pub fn paired_games(a: usize, b: usize, count: usize, openings: &mut Openings) -> Vec<GameSpec> {
    let mut games = Vec::with_capacity(count);
    let mut current = openings.take();
    for g in 0..count {
        if g > 0 && g % 2 == 0 {
            current = openings.take();
        }
        let (black, white) = if g % 2 == 0 { (a, b) } else { (b, a) };
        games.push(GameSpec {
            black,
            white,
            start: current.1,
            to_move: current.2,
            opening: current.0.clone(),
        });
    }
    games
}

/// A standings table as CSV (header line first).
#[must_use]
pub fn to_csv(header: &[&str], rows: &[Vec<String>]) -> String {
    let quote = |s: &str| {
        if s.contains([',', '"', '\n']) {
            format!("\"{}\"", s.replace('"', "\"\""))
        } else {
            s.to_string()
        }
    };
    let mut out = header.join(",");
    out.push('\n');
    for row in rows {
        out.push_str(&row.iter().map(|c| quote(c)).collect::<Vec<_>>().join(","));
        out.push('\n');
    }
    out
}

/// A standings table as a JSON array of objects. Cells that parse as
/// numbers are written as numbers.
#[must_use]
pub fn to_json(header: &[&str], rows: &[Vec<String>]) -> String {
    let string = |s: &str| {
        let mut out = String::from("\"");
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
                c => out.push(c),
            }
        }
        out.push('"');
        out
    };
    let cell = |s: &str| {
        if s.parse::<f64>().is_ok_and(f64::is_finite) && !s.starts_with('+') {
            s.to_string()
        } else {
            string(s)
        }
    };
    let objects: Vec<String> = rows
        .iter()
        .map(|row| {
            let fields: Vec<String> = header
                .iter()
                .zip(row)
                .map(|(h, v)| format!("{}: {}", string(h), cell(v)))
                .collect();
            format!("  {{{}}}", fields.join(", "))
        })
        .collect();
    format!("[\n{}\n]\n", objects.join(",\n"))
}

/// Prints a table with aligned columns.
#[must_use]
pub fn to_text(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.len()).collect();
    for row in rows {
        for (i, c) in row.iter().enumerate() {
            widths[i] = widths[i].max(c.chars().count());
        }
    }
    let line = |cells: Vec<&str>| {
        cells
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{:>w$}", c, w = widths[i]))
            .collect::<Vec<_>>()
            .join("  ")
    };
    let mut out = line(header.to_vec());
    out.push('\n');
    for row in rows {
        out.push_str(&line(row.iter().map(String::as_str).collect()));
        out.push('\n');
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::cell::RefCell;

    /// An arena that returns scripted outcomes, chosen by a function of the
    /// game, and remembers what it was asked to play.
    pub struct Scripted<F: Fn(&GameSpec) -> Outcome> {
        pub decide: F,
        pub played: RefCell<Vec<(usize, usize)>>,
    }

    impl<F: Fn(&GameSpec) -> Outcome> Arena for Scripted<F> {
        fn play(&self, games: &[GameSpec]) -> Vec<Outcome> {
            games
                .iter()
                .map(|g| {
                    self.played.borrow_mut().push((g.black, g.white));
                    (self.decide)(g)
                })
                .collect()
        }
    }

    pub fn scripted<F: Fn(&GameSpec) -> Outcome>(decide: F) -> Scripted<F> {
        Scripted {
            decide,
            played: RefCell::new(Vec::new()),
        }
    }

    #[test]
    fn entrants_parse() {
        let e = parse_entrants("# players\nbot: self\n\ngreedy: self --player greedy\n").unwrap();
        assert_eq!(e.len(), 2);
        assert_eq!(e[1].command, "self --player greedy");
        assert!(parse_entrants("a: x\na: y\n").is_err());
        assert!(parse_entrants("a: x\n").is_err());
        assert!(parse_entrants("a x\nb: y\n").is_err());
    }

    #[test]
    fn paired_games_swap_colours_and_reuse_each_opening_twice() {
        let mut o = Openings::parse("f5d6c4d3c2b3b4b5\nf5f6e6f4e3c5c4d3\n", 1).unwrap();
        let games = paired_games(3, 7, 4, &mut o);
        assert_eq!(
            games.iter().map(|g| (g.black, g.white)).collect::<Vec<_>>(),
            [(3, 7), (7, 3), (3, 7), (7, 3)]
        );
        assert_eq!(games[0].opening, games[1].opening);
        assert_eq!(games[2].opening, games[3].opening);
        assert_ne!(games[0].opening, games[2].opening);
        assert_eq!(games[0].start.empty_count(), 52);
    }

    #[test]
    fn tables_render() {
        let rows = vec![vec!["a,b".to_string(), "3".to_string(), "+1".to_string()]];
        assert_eq!(
            to_csv(&["name", "points", "diff"], &rows),
            "name,points,diff\n\"a,b\",3,+1\n"
        );
        assert_eq!(
            to_json(&["name", "points", "diff"], &rows),
            "[\n  {\"name\": \"a,b\", \"points\": 3, \"diff\": \"+1\"}\n]\n"
        );
    }
}
