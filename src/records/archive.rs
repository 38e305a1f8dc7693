//! The game archives the tools learn from (`../shared/data/games/`; the
//! formats are described in its README): WTHOR's binary `.wtb` files, with
//! each game's perfect-play score at 24 empties, and Logistello's
//! gzip-compressed text list, one game a line, the format `reversi
//! selfplay` writes too. `train`, `pack`, `book build` and `bench
//! --probcut-errors` read games only through here.

use flate2::read::GzDecoder;
use reversi_core::bitboard::Square;
use reversi_core::board::Board;
use std::io::{self, Write};
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

/// WTHOR's file header: 16 bytes, then 68 a game.
const WTHOR_HEADER: usize = 16;
const WTHOR_RECORD: usize = 68;

/// A malformed archive: the file, where in it, and why.
fn malformed(path: &Path, at: impl std::fmt::Display, why: impl std::fmt::Display) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("{}: {at}: {why}", path.display()),
    )
}

/// [`read_wthor`], with each record's theoretical score: its byte 7 is
/// black's disc count with perfect play (empties to the winner) from the
/// position with as many empties as the file header's byte 14 says (24 in
/// these files; 0 would mean none was computed). A file whose header does
/// not match its size, or a record with a move that is not a square, is
/// refused, naming the file and the record.
pub fn read_wthor_records(dir: &Path) -> io::Result<Vec<Record>> {
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| malformed(dir, "folder", e))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("wtb")))
        .collect();
    if names.is_empty() {
        return Err(malformed(dir, "folder", "no WTHOR .wtb file"));
    }
    names.sort();
    let mut games = Vec::new();
    for path in names {
        let bytes = crate::util::files::read_capped(&path)?;
        games.extend(parse_wthor(&path, &bytes)?);
    }
    Ok(games)
}

/// The games of one WTHOR file's bytes (`path` names it in errors).
pub fn parse_wthor(path: &Path, bytes: &[u8]) -> io::Result<Vec<Record>> {
    let header = bytes
        .get(..WTHOR_HEADER)
        .ok_or_else(|| malformed(path, "header", "shorter than 16 bytes"))?;
    let count = u32::from_le_bytes([header[4], header[5], header[6], header[7]]) as usize;
    let expected = count
        .checked_mul(WTHOR_RECORD)
        .and_then(|n| n.checked_add(WTHOR_HEADER));
    if expected != Some(bytes.len()) {
        return Err(malformed(
            path,
            "header",
            format!(
                "{count} games would take {} bytes, the file has {}",
                expected.map_or("too many".to_string(), |n| n.to_string()),
                bytes.len()
            ),
        ));
    }
    if !matches!(header[12], 0 | 8) {
        return Err(malformed(
            path,
            "header",
            format!("board size {}, not 8", header[12]),
        ));
    }
    let depth = u32::from(header[14]);
    let mut games = Vec::with_capacity(count);
    for (i, record) in bytes[WTHOR_HEADER..].chunks_exact(WTHOR_RECORD).enumerate() {
        let mut moves = Vec::with_capacity(60);
        for &m in record[8..].iter().take_while(|&&m| m != 0) {
            let square = Square::from_file_rank((m % 10).wrapping_sub(1), (m / 10).wrapping_sub(1))
                .filter(|_| (11..=88).contains(&m));
            moves.push(square.ok_or_else(|| {
                malformed(
                    path,
                    format!("game {}", i + 1),
                    format!("move byte {m} is not a square"),
                )
            })?);
        }
        let theory = (1..=60).contains(&depth) && record[7] <= 64;
        games.push(Record {
            game: moves,
            theory: theory.then(|| Theory {
                empties: depth,
                black: (2 * i32::from(record[7]) - 64) as i8,
            }),
        });
    }
    Ok(games)
}

/// Parses Logistello's game list: one game a line, `+d3-c3...: -04 10`
/// (blank lines and `#` comments, such as the first line of a file that
/// `reversi selfplay --out` grows, skipped). A line that is not a game is refused with its
/// number.
pub fn parse_logistello(text: &str) -> Result<Vec<Game>, String> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty() && !line.starts_with('#'))
        .map(|(i, line)| {
            let moves = line.split(':').next().unwrap_or("").trim_end();
            let game = moves
                .as_bytes()
                .chunks(3)
                .map(|c| match c {
                    [b'+' | b'-', _, _] => {
                        std::str::from_utf8(&c[1..]).ok().and_then(Square::parse)
                    }
                    _ => None,
                })
                .collect::<Option<Game>>()
                .filter(|game| !game.is_empty() && game.len() <= 60);
            game.ok_or_else(|| format!("line {}: not a game (+d3-c3...: score)", i + 1))
        })
        .collect()
}

/// Reads the gzip-compressed Logistello list.
pub fn read_logistello(path: &Path) -> io::Result<Vec<Game>> {
    let file = std::fs::File::open(path).map_err(|e| malformed(path, "open", e))?;
    let bytes =
        crate::util::files::read_all_capped(GzDecoder::new(file), &path.display().to_string())?;
    let text = String::from_utf8(bytes).map_err(|e| malformed(path, "text", e))?;
    parse_logistello(&text).map_err(|e| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{}: {e}", path.display()),
        )
    })
}

/// The fewest games `train`, `pack` and `book build` learn from: fewer
/// means a damaged or missing archive, and a result from it would replace
/// good weights or a good book with bad ones.
pub const MIN_GAMES: usize = 1000;

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
    let games: Vec<Record> = wthor
        .into_iter()
        .chain(logistello.into_iter().chain(extra).map(Record::moves))
        .enumerate()
        .filter(|(i, _)| i % every.max(1) == 0)
        .map(|(_, g)| g)
        .collect();
    if games.len() < MIN_GAMES {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "{}: {} games to learn from, fewer than the {MIN_GAMES} a result needs: nothing written",
                games_dir.display(),
                games.len()
            ),
        ));
    }
    Ok(games)
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
