//! The game archives the tools learn from (`../shared/data/games/`; the
//! formats are described in its README): WTHOR's binary `.wtb` files, with
//! each game's perfect-play score at 24 empties, and Logistello's
//! gzip-compressed text list, one game a line, the format `reversi
//! selfplay` writes too. `train`, `pack`, `book build` and `bench
//! --probcut-errors` read games only through here.

use flate2::read::GzDecoder;
use reversi_core::bitboard::Square;
use reversi_core::board::Board;
use std::io::{self, Read, Write};
use std::path::Path;

/// What every tool that learns from the archives is given (`train`,
/// `pack`, `book build`): where the games are and how many of them to use,
/// where its result goes, its threads, and the command line that its
/// result's header records.
pub struct ArchiveRun<'a> {
    pub games_dir: &'a Path,
    /// Use one game in this many (1: all), for a quicker run.
    pub every: usize,
    pub out: &'a Path,
    pub jobs: usize,
    pub command: String,
}

/// A game as a move list (`None` never appears: passes are implied).
pub type Game = Vec<Square>;

/// A game as its archive records it: the moves and, where the archive
/// gives it, the perfect-play score of one of its positions.
#[derive(Clone, Debug, Default)]
pub struct Record {
    pub game: Game,
    pub theory: Option<Theory>,
}

/// The exact score of a game's position at `empties` empties, in discs
/// from black's view (WTHOR's "theoretical score").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Theory {
    pub empties: u32,
    pub black: i8,
}

impl Record {
    /// A record with no score beside its moves.
    #[must_use]
    pub fn moves(game: Game) -> Record {
        Record { game, theory: None }
    }
}

/// Reads the WTHOR `.wtb` files of `dir`, in name order.
pub fn read_wthor(dir: &Path) -> io::Result<Vec<Game>> {
    Ok(read_wthor_records(dir)?
        .into_iter()
        .map(|r| r.game)
        .collect())
}

/// [`read_wthor`], with each record's theoretical score: its byte 7 is
/// black's disc count with perfect play (empties to the winner) from the
/// position with as many empties as the file header's byte 14 says (24 in
/// these files; 0 would mean none was computed).
pub fn read_wthor_records(dir: &Path) -> io::Result<Vec<Record>> {
    let mut names: Vec<_> = std::fs::read_dir(dir)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("wtb")))
        .collect();
    names.sort();
    let mut games = Vec::new();
    for path in names {
        let bytes = std::fs::read(&path)?;
        let count = bytes
            .get(4..8)
            .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        let depth = bytes.get(14).map_or(0, |&d| u32::from(d));
        for record in bytes
            .get(16..)
            .unwrap_or(&[])
            .chunks_exact(68)
            .take(count as usize)
        {
            let moves = record[8..]
                .iter()
                .take_while(|&&m| m != 0)
                .filter_map(|&m| {
                    Square::from_file_rank((m % 10).wrapping_sub(1), (m / 10).wrapping_sub(1))
                })
                .collect();
            let theory = (1..=60).contains(&depth) && record[7] <= 64;
            games.push(Record {
                game: moves,
                theory: theory.then(|| Theory {
                    empties: depth,
                    black: (2 * i32::from(record[7]) - 64) as i8,
                }),
            });
        }
    }
    Ok(games)
}

/// Parses Logistello's game list: one game a line, `+d3-c3...: -04 10`.
#[must_use]
pub fn parse_logistello(text: &str) -> Vec<Game> {
    text.lines()
        .filter_map(|line| {
            let moves = line.split(':').next()?;
            moves
                .as_bytes()
                .chunks(3)
                .map(|c| {
                    std::str::from_utf8(c.get(1..3)?)
                        .ok()
                        .and_then(Square::parse)
                })
                .collect::<Option<Game>>()
        })
        .collect()
}

/// Reads the gzip-compressed Logistello list.
pub fn read_logistello(path: &Path) -> io::Result<Vec<Game>> {
    let mut text = String::new();
    GzDecoder::new(std::fs::File::open(path)?).read_to_string(&mut text)?;
    Ok(parse_logistello(&text))
}

/// The games of both archives under `games_dir` (WTHOR's, then
/// Logistello's), then `extra`; one in `every` of them (1: all), the
/// counts read written to `log`. What `train` and `book build` learn from.
pub fn read_games(
    games_dir: &Path,
    extra: Vec<Game>,
    every: usize,
    log: &mut impl Write,
) -> io::Result<Vec<Record>> {
    let wthor = read_wthor_records(&games_dir.join("wthor"))?;
    let logistello = read_logistello(&games_dir.join("logistello/logbook.gam.gz"))?;
    writeln!(
        log,
        "read {} WTHOR games, {} Logistello games and {} more",
        wthor.len(),
        logistello.len(),
        extra.len()
    )?;
    Ok(wthor
        .into_iter()
        .chain(logistello.into_iter().chain(extra).map(Record::moves))
        .enumerate()
        .filter(|(i, _)| i % every.max(1) == 0)
        .map(|(_, g)| g)
        .collect())
}

/// The positions of `game`, each with whether black is to move there (only
/// positions where the side to move has a move, the final one aside), or
/// `None` if a move is illegal.
pub fn replay(game: &Game) -> Option<Vec<(Board, bool)>> {
    let mut board = Board::start();
    let mut black = true;
    let mut positions = Vec::with_capacity(61);
    for &sq in game {
        if !board.has_moves() {
            board = board.pass();
            black = !black;
        }
        if !board.is_legal(sq) {
            return None;
        }
        positions.push((board, black));
        board = board.play(sq);
        black = !black;
    }
    if !board.has_moves() && board.pass().has_moves() {
        board = board.pass();
        black = !black;
    }
    positions.push((board, black));
    Some(positions)
}
