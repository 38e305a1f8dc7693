//! The arena: who plays ([`Entrant`]s), from where ([`Openings`]), which
//! games ([`GameSpec`]), and a parallel batch of refereed games that reports
//! each game as it finishes ([`RefereeArena`]). `reversi match` and every
//! tournament format play their games here.
//!
//! The formats never start programs themselves: they ask an [`Arena`] for a
//! batch and get [`Outcome`]s back. The real arena runs the referee; the
//! tournament tests use a scripted one, so every rule can be checked on
//! constructed results.

pub mod r#match;
pub mod program;
pub mod referee;
pub mod replay;
pub mod sandbox;
pub mod seat;

use referee::{Ending, GameSetup};
use reversi_core::board::{Board, Color};
use std::collections::BTreeMap;
use std::fmt;
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

/// Why a players file was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EntrantsError {
    /// A line without the `NAME: COMMAND` shape.
    NotNameColonCommand {
        line: usize,
    },
    EmptyNameOrCommand {
        line: usize,
    },
    NameUsedTwice {
        line: usize,
        name: String,
    },
    FewerThanTwo,
}

impl fmt::Display for EntrantsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EntrantsError::NotNameColonCommand { line } => {
                write!(f, "line {line}: expected 'NAME: COMMAND'")
            }
            EntrantsError::EmptyNameOrCommand { line } => {
                write!(f, "line {line}: empty name or command")
            }
            EntrantsError::NameUsedTwice { line, name } => {
                write!(f, "line {line}: the name '{name}' is used twice")
            }
            EntrantsError::FewerThanTwo => write!(f, "a tournament needs at least two players"),
        }
    }
}

impl std::error::Error for EntrantsError {}

/// Reads a players file: one `NAME: COMMAND` a line; `#` comments and blank
/// lines are skipped. Names must be unique.
pub fn parse_entrants(text: &str) -> Result<Vec<Entrant>, EntrantsError> {
    let mut out: Vec<Entrant> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let number = i + 1;
        let (name, command) = line
            .split_once(':')
            .ok_or(EntrantsError::NotNameColonCommand { line: number })?;
        let (name, command) = (name.trim(), command.trim());
        if name.is_empty() || command.is_empty() {
            return Err(EntrantsError::EmptyNameOrCommand { line: number });
        }
        if out.iter().any(|e| e.name == name) {
            return Err(EntrantsError::NameUsedTwice {
                line: number,
                name: name.to_string(),
            });
        }
        out.push(Entrant {
            name: name.to_string(),
            command: command.to_string(),
        });
    }
    if out.len() < 2 {
        return Err(EntrantsError::FewerThanTwo);
    }
    Ok(out)
}

/// An opening line that cannot be played from the standard start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IllegalOpening {
    pub line: usize,
}

impl fmt::Display for IllegalOpening {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: not a legal opening", self.line)
    }
}

impl std::error::Error for IllegalOpening {}

/// Openings to start games from: XOT lines, shuffled by the seed, each
/// used for a pair of games with colours swapped; none means the standard
/// start.
#[derive(Clone, Debug, Default)]
pub struct Openings {
    lines: Vec<Opening>,
    next: usize,
}

/// An opening's moves (empty for the standard start), the position they
/// reach and the side to move there.
#[derive(Clone, Debug)]
pub struct Opening {
    pub moves: String,
    pub board: Board,
    pub to_move: Color,
}

impl Opening {
    #[must_use]
    pub fn standard() -> Opening {
        Opening {
            moves: String::new(),
            board: Board::start(),
            to_move: Color::Black,
        }
    }
}

impl Openings {
    /// Parses XOT lines (moves from the standard start, e.g.
    /// `f5d6c4d3c2b3b4b5`); `#` lines and blank lines are skipped.
    pub fn parse(text: &str, seed: u64) -> Result<Openings, IllegalOpening> {
        let mut lines = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (board, to_move) = opening_position(line).ok_or(IllegalOpening { line: n + 1 })?;
            lines.push(Opening {
                moves: line.to_string(),
                board,
                to_move,
            });
        }
        let mut rng = fastrand::Rng::with_seed(seed);
        rng.shuffle(&mut lines);
        Ok(Openings { lines, next: 0 })
    }

    /// The next opening, round the list again when it runs out.
    pub fn take(&mut self) -> Opening {
        if self.lines.is_empty() {
            return Opening::standard();
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
    crate::records::read::replay_moves(line).ok()
}

/// One game to play: entrant indices and where it starts.
#[derive(Clone, Debug)]
pub struct GameSpec {
    pub black: usize,
    pub white: usize,
    pub opening: Opening,
}

/// Games for a pair: `count` games, colours alternating (`a` black first),
/// each opening used twice (once with each colour).
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
            opening: current.clone(),
        });
    }
    games
}

/// What a format needs to know of a finished game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub black_discs: u32,
    pub white_discs: u32,
    /// A side that lost on a technicality, and why.
    pub forfeit: Option<(Color, String)>,
    /// Both sides lost on a technicality before the game started (black's
    /// reason, white's): no winner, and not a draw either.
    pub double_forfeit: Option<[String; 2]>,
    /// The forfeit came before the loser's first move (no `OK`, or it died
    /// at once): the game may be restarted.
    pub before_first_move: bool,
    /// Legal replies made by black and by white.
    pub legal_replies: [u32; 2],
    /// The game's number in the arena's records (its files' names), when
    /// it was played by the real arena.
    pub number: Option<usize>,
}

impl Outcome {
    /// A game played to the end.
    #[must_use]
    pub fn finished(black_discs: u32, white_discs: u32) -> Outcome {
        Outcome {
            black_discs,
            white_discs,
            forfeit: None,
            double_forfeit: None,
            before_first_move: false,
            legal_replies: [30, 30],
            number: None,
        }
    }

    /// The referee's record of a game, as a format sees it.
    #[must_use]
    pub fn of(game: &referee::Game) -> Outcome {
        match &game.ending {
            Ending::Finished { black, white } => Outcome {
                legal_replies: game.legal,
                ..Outcome::finished(*black, *white)
            },
            Ending::DoubleForfeit { reasons } => Outcome {
                black_discs: 0,
                white_discs: 0,
                forfeit: None,
                double_forfeit: Some(reasons.clone()),
                before_first_move: true,
                legal_replies: game.legal,
                number: None,
            },
            Ending::Forfeit { loser, reason } => Outcome {
                black_discs: 0,
                white_discs: 0,
                forfeit: Some((*loser, reason.clone())),
                double_forfeit: None,
                // No reply at all from the loser: it failed in the setup
                // or at its first request (the referee times only replies).
                before_first_move: game.times[loser.index()].is_empty(),
                legal_replies: game.legal,
                number: None,
            },
        }
    }

    /// The winner, `None` for a draw on discs or a double forfeit.
    #[must_use]
    pub fn winner(&self) -> Option<Color> {
        if let Some((loser, _)) = &self.forfeit {
            return Some(loser.other());
        }
        if self.double_forfeit.is_some() {
            return None;
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

/// A game the real arena has just finished.
pub struct Finished<'a> {
    /// The game's number over the arena's life, from 1: its files' names.
    pub number: usize,
    /// Its place in the batch.
    pub index: usize,
    pub spec: &'a GameSpec,
    pub game: &'a referee::Game,
}

/// The real arena: the referee on child processes, `jobs` games at a time.
pub struct RefereeArena {
    pub entrants: Vec<Entrant>,
    pub limit: Duration,
    pub jobs: usize,
    /// Transcripts and stderr go here, if set.
    pub record: Option<PathBuf>,
    /// Every program runs in this sandbox, if set.
    pub sandbox: Option<sandbox::Sandbox>,
    /// The entrants' names are only labels (a match's A and B): the
    /// records name the players by their commands.
    pub commands_named: bool,
    /// Games numbered so far, across batches.
    numbered: AtomicUsize,
    /// The entrants that could not be started, each with the first reason
    /// seen, by index.
    unstarted: Mutex<BTreeMap<usize, String>>,
    /// Records (transcripts) that could not be written, each `PATH: why`.
    unwritten: Mutex<Vec<String>>,
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
            sandbox: None,
            commands_named: false,
            numbered: AtomicUsize::new(0),
            unstarted: Mutex::new(BTreeMap::new()),
            unwritten: Mutex::new(Vec::new()),
        }
    }

    /// Plays `games`, `jobs` at a time, and hands each to `on_finished` as
    /// it ends (on this thread). Games are numbered in batch order, so the
    /// files of a game are named the same whichever job played it.
    /// Transcripts that cannot be written are reported on stderr; the games
    /// still count.
    pub fn play_reporting(
        &self,
        games: &[GameSpec],
        mut on_finished: impl FnMut(&Finished),
    ) -> Vec<Outcome> {
        let first = self.numbered.fetch_add(games.len(), Ordering::SeqCst) + 1;
        let numbered: Vec<(usize, &GameSpec)> = games
            .iter()
            .enumerate()
            .map(|(i, spec)| (first + i, spec))
            .collect();
        let mut outcomes: Vec<Option<Outcome>> = vec![None; games.len()];
        crate::util::parallel::run(
            self.jobs,
            &numbered,
            || (),
            |(), &(number, spec)| self.play_one(number, spec, &mut |_| {}),
            |index, game| {
                let (number, spec) = numbered[index];
                self.note_unstarted(spec, &game);
                self.record(number, spec, &game);
                on_finished(&Finished {
                    number,
                    index,
                    spec,
                    game: &game,
                });
                outcomes[index] = Some(Outcome {
                    number: Some(number),
                    ..Outcome::of(&game)
                });
            },
        );
        outcomes
            .into_iter()
            .map(|o| o.expect("every game was played"))
            .collect()
    }

    /// Plays one game on this thread, handing each move to `watch` as it
    /// is played; numbered and recorded as [`RefereeArena::play_reporting`]
    /// does. Returns its number and the game.
    pub fn play_watched(
        &self,
        spec: &GameSpec,
        watch: &mut dyn FnMut(&referee::Played),
    ) -> (usize, referee::Game) {
        let number = self.numbered.fetch_add(1, Ordering::SeqCst) + 1;
        let game = self.play_one(number, spec, watch);
        self.note_unstarted(spec, &game);
        self.record(number, spec, &game);
        (number, game)
    }

    /// The entrants that could not be started in any game so far, each
    /// with why: a run with one of them says so and fails, rather than
    /// report its forfeits as results.
    pub fn unstarted(&self) -> Vec<(&Entrant, String)> {
        let unstarted = self.unstarted.lock().unwrap_or_else(|e| e.into_inner());
        unstarted
            .iter()
            .map(|(&i, why)| (&self.entrants[i], why.clone()))
            .collect()
    }

    /// The records that could not be written, each `PATH: why`: a run
    /// with any fails, rather than say its results are all kept.
    pub fn unwritten(&self) -> Vec<String> {
        self.unwritten
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Writes the game's record; one that cannot be written is reported
    /// now, on stderr, and kept for [`RefereeArena::unwritten`].
    fn record(&self, number: usize, spec: &GameSpec, game: &referee::Game) {
        if let Err(e) = self.write_record(number, spec, game) {
            eprintln!("arena: {e}");
            let mut unwritten = self.unwritten.lock().unwrap_or_else(|e| e.into_inner());
            unwritten.push(e);
        }
    }

    fn note_unstarted(&self, spec: &GameSpec, game: &referee::Game) {
        if let Some((color, why)) = game.unstarted() {
            let entrant = [spec.black, spec.white][color.index()];
            let mut unstarted = self.unstarted.lock().unwrap_or_else(|e| e.into_inner());
            unstarted.entry(entrant).or_insert_with(|| why.to_string());
        }
    }

    fn play_one(
        &self,
        number: usize,
        spec: &GameSpec,
        watch: &mut dyn FnMut(&referee::Played),
    ) -> referee::Game {
        let stderr = match &self.record {
            Some(dir) => [
                Some(dir.join(format!("game-{number:04}-black.stderr"))),
                Some(dir.join(format!("game-{number:04}-white.stderr"))),
            ],
            None => [None, None],
        };
        let setup = GameSetup {
            commands: [
                &self.entrants[spec.black].command,
                &self.entrants[spec.white].command,
            ],
            start: spec.opening.board,
            to_move: spec.opening.to_move,
            limit: self.limit,
            stderr,
            sandbox: self.sandbox.as_ref(),
        };
        referee::play_watched(&setup, watch)
    }

    /// Each side's transcript, `game-NNNN-black.txt` and `-white.txt`,
    /// headed with who played, from where, and how it ended.
    fn write_record(
        &self,
        number: usize,
        spec: &GameSpec,
        game: &referee::Game,
    ) -> Result<(), String> {
        let Some(dir) = &self.record else {
            return Ok(());
        };
        let sides = [&self.entrants[spec.black], &self.entrants[spec.white]];
        for color in [Color::Black, Color::White] {
            let (me, them) = (sides[color.index()], sides[color.other().index()]);
            let mut t = game.transcripts[color.index()].clone();
            t.headers = vec![
                ("game".into(), number.to_string()),
                ("color".into(), color.name().into()),
                ("player".into(), me.name.clone()),
                ("program".into(), me.command.clone()),
                ("opponent".into(), them.name.clone()),
                ("opening".into(), spec.opening.moves.clone()),
                ("moves".into(), game.move_text()),
                ("result".into(), game.result_text()),
            ];
            let path = dir.join(format!("game-{number:04}-{}.txt", color.name()));
            std::fs::write(&path, t.render()).map_err(|e| format!("{}: {e}", path.display()))?;
        }
        let ggf = game_ggf(&sides, spec, game, self.limit, self.commands_named);
        let path = dir.join(format!("game-{number:04}.ggf"));
        std::fs::write(&path, ggf.render() + "\n")
            .map_err(|e| format!("{}: {e}", path.display()))?;
        // The page to look at it (`reversi show --html`), which a
        // tournament's bracket links to.
        let page = crate::study::show::html_page(&ggf)?;
        let path = dir.join(format!("game-{number:04}.html"));
        std::fs::write(&path, page).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(())
    }
}

/// Black's disc difference as GGS counts it: the empty squares go to the
/// winner; a forfeit counts 64-0.
fn ggf_result(game: &referee::Game) -> i32 {
    match game.ending {
        Ending::Finished { black, white } => {
            let (black, white) = (black as i32, white as i32);
            let empties = 64 - black - white;
            match black.cmp(&white) {
                std::cmp::Ordering::Greater => black - white + empties,
                std::cmp::Ordering::Less => black - white - empties,
                std::cmp::Ordering::Equal => 0,
            }
        }
        _ => game.black_margin(),
    }
}

/// A refereed game as GGF: the players (their commands where `commands`:
/// a match's A and B name nobody), when it ended (`DT`, UTC), the time a
/// move (`TI`, as GGS writes a clock), the opening's position as the
/// start, every move and pass with its reply time, and the result (see
/// [`ggf_result`]; a forfeit's reason in a comment tag).
fn game_ggf(
    sides: &[&Entrant; 2],
    spec: &GameSpec,
    game: &referee::Game,
    limit: Duration,
    commands: bool,
) -> crate::records::ggf::GgfGame {
    let (black, white) = spec.opening.board.colors(spec.opening.to_move);
    let name = |e: &Entrant| {
        if commands {
            e.command.clone()
        } else {
            e.name.clone()
        }
    };
    let mut ggf = crate::records::ggf::GgfGame {
        tags: vec![
            ("GM".into(), "Othello".into()),
            ("PC".into(), "reversi".into()),
            (
                "DT".into(),
                crate::records::ggf::date(std::time::SystemTime::now()),
            ),
            ("PB".into(), name(sides[0])),
            ("PW".into(), name(sides[1])),
            (
                "TI".into(),
                crate::records::ggf::clock(limit.as_millis() as u64),
            ),
            ("TY".into(), "8".into()),
            ("RE".into(), format!("{:+}", ggf_result(game))),
        ],
        black,
        white,
        to_move: spec.opening.to_move,
        moves: Vec::new(),
    };
    if !matches!(game.ending, Ending::Finished { .. }) {
        ggf.tags.push(("C".into(), game.result_text()));
    }
    // Each side's reply times, in order: of every reply where there is
    // one a ply, else of its moves only (passes untimed).
    let plies = |c: Color, all: bool| {
        let mut color = spec.opening.to_move;
        let mut n = 0;
        for square in &game.moves {
            if color == c && (all || square.is_some()) {
                n += 1;
            }
            color = color.other();
        }
        n
    };
    let every_ply =
        [Color::Black, Color::White].map(|c| game.times[c.index()].len() == plies(c, true));
    let mut taken = [0usize; 2];
    let mut color = spec.opening.to_move;
    for &square in &game.moves {
        let side = color.index();
        let time = if square.is_some() || every_ply[side] {
            let t = game.times[side].get(taken[side]);
            taken[side] += 1;
            t.map_or(String::new(), |t| format!("{:.2}", t.as_secs_f64()))
        } else {
            String::new()
        };
        ggf.moves.push(crate::records::ggf::GgfMove {
            color,
            square,
            eval: String::new(),
            time,
        });
        color = color.other();
    }
    ggf
}

impl Arena for RefereeArena {
    /// Plays the batch, printing a line for each game as it finishes.
    fn play(&self, games: &[GameSpec]) -> Vec<Outcome> {
        self.play_reporting(games, |f| {
            crate::say!(
                "game {}: {} (black) vs {} (white): {}",
                f.number,
                self.entrants[f.spec.black].name,
                self.entrants[f.spec.white].name,
                f.game.result_text()
            );
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entrants_parse() {
        let e = parse_entrants("# players\nbot: self\n\ngreedy: self --player greedy\n").unwrap();
        assert_eq!(e.len(), 2);
        assert_eq!(e[1].command, "self --player greedy");
        assert_eq!(
            parse_entrants("a: x\na: y\n"),
            Err(EntrantsError::NameUsedTwice {
                line: 2,
                name: "a".into()
            })
        );
        assert_eq!(parse_entrants("a: x\n"), Err(EntrantsError::FewerThanTwo));
        assert_eq!(
            parse_entrants("a x\nb: y\n"),
            Err(EntrantsError::NotNameColonCommand { line: 1 })
        );
        assert_eq!(
            parse_entrants("a: x\n: y\n"),
            Err(EntrantsError::EmptyNameOrCommand { line: 2 })
        );
    }

    #[test]
    fn paired_games_swap_colours_and_reuse_each_opening_twice() {
        let mut o = Openings::parse("f5d6c4d3c2b3b4b5\nf5f6e6f4e3c5c4d3\n", 1).unwrap();
        let games = paired_games(3, 7, 4, &mut o);
        assert_eq!(
            games.iter().map(|g| (g.black, g.white)).collect::<Vec<_>>(),
            [(3, 7), (7, 3), (3, 7), (7, 3)]
        );
        assert_eq!(games[0].opening.moves, games[1].opening.moves);
        assert_eq!(games[2].opening.moves, games[3].opening.moves);
        assert_ne!(games[0].opening.moves, games[2].opening.moves);
        assert_eq!(games[0].opening.board.empty_count(), 52);
    }

    #[test]
    fn an_illegal_opening_names_its_line() {
        let e = Openings::parse("# xot\nf5d6\nf5f5\n", 1).unwrap_err();
        assert_eq!(e, IllegalOpening { line: 3 });
        assert_eq!(e.to_string(), "line 3: not a legal opening");
    }
}
