//! CodinGame's Othello protocol (`reversi --protocol codingame`, and the
//! bundle for that arena).
//!
//! First turn only: our `id` (0 plays black and moves first, 1 white) and
//! `boardSize` (8). Every turn: 8 board lines, top row first, columns a-h
//! (`.` empty, `0` black, `1` white), `actionCount`, then that many legal
//! moves (`d3`). We answer one of them on one line. The arena passes for a
//! player with no move, so a turn after the opponent passed is just our
//! turn again, with the whole board given as always.
//!
//! The arena is the authority on the position and the legal moves: a bad
//! line is noted on stderr and read as far as it can be; the answer is our
//! search's move when the arena lists it, else the first listed action, so
//! no answer is ever outside the list. The clock: [`Budget`], the first
//! turn's (which includes starting up) and every other's, with the usual
//! margins (`clock::Deadline::for_limit`).

use crate::bitboard::Square;
use crate::board::Board;
use crate::lines::read_line;
use crate::player::Player;
use std::io::{self, BufRead, Write};
use std::time::{Duration, Instant};

/// The time per turn the arena gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// The first turn's: CodinGame gives 2 s, which also covers start-up.
    pub first: Duration,
    /// Every later turn's: CodinGame gives 150 ms.
    pub rest: Duration,
}

impl Default for Budget {
    fn default() -> Budget {
        Budget {
            first: Duration::from_millis(2000),
            rest: Duration::from_millis(150),
        }
    }
}

/// One turn as read: the board, from our side, and the listed actions.
#[derive(Debug, PartialEq, Eq)]
pub struct Turn {
    /// The position, our discs as the player's.
    pub board: Board,
    /// The actions the referee lists as legal.
    pub actions: Vec<Square>,
}

/// Reads the protocol's lines, with their numbers for the notes.
struct Reader<'a, R: BufRead, L: Write> {
    input: &'a mut R,
    log: &'a mut L,
    line: u64,
}

impl<R: BufRead, L: Write> Reader<'_, R, L> {
    /// The next line, trimmed; `None` at the end of input.
    fn next(&mut self) -> io::Result<Option<String>> {
        let mut cut = false;
        let line = read_line(self.input, &mut cut)?;
        if line.is_some() {
            self.line += 1;
        }
        if cut {
            self.note("longer than the protocol allows, the rest was dropped");
        }
        Ok(line.map(|l| l.trim().to_string()))
    }

    /// A note about the line just read; stderr problems never stop play.
    fn note(&mut self, what: &str) {
        let _ = writeln!(self.log, "line {}: {what}", self.line);
    }

    /// A number line (`id`, `boardSize`, `actionCount`): its first word.
    fn number(&mut self, what: &str) -> io::Result<Option<Option<u32>>> {
        let Some(line) = self.next()? else {
            return Ok(None);
        };
        let value = line.split_whitespace().next().and_then(|w| w.parse().ok());
        if value.is_none() {
            self.note(&format!(
                "expected {what}, a number, got {:?}",
                truncate(&line)
            ));
        }
        Ok(Some(value))
    }

    /// Reads one turn for player `id` (0 black, 1 white), and when its
    /// first line arrived (the turn's clock starts there); `None` at the
    /// end of input.
    fn turn(&mut self, id: u32) -> io::Result<Option<(Turn, Instant)>> {
        let (ours, theirs) = if id == 0 { ('0', '1') } else { ('1', '0') };
        let (mut player, mut opponent) = (0u64, 0u64);
        let mut started = Instant::now();
        for row in 0..8 {
            let Some(line) = self.next()? else {
                return Ok(None);
            };
            if row == 0 {
                started = Instant::now();
            }
            let cells: Vec<char> = line.chars().collect();
            if cells.len() != 8 || cells.iter().any(|c| !matches!(c, '.' | '0' | '1')) {
                self.note(&format!(
                    "board row {} should be 8 of '.', '0', '1', got {:?}: read as far as it goes, anything else empty",
                    row + 1,
                    truncate(&line)
                ));
            }
            for (col, &c) in cells.iter().take(8).enumerate() {
                let bit = 1u64 << (row * 8 + col);
                if c == ours {
                    player |= bit;
                } else if c == theirs {
                    opponent |= bit;
                }
            }
        }
        let Some(count) = self.number("actionCount")? else {
            return Ok(None);
        };
        let mut actions = Vec::new();
        for _ in 0..count.unwrap_or(0).min(64) {
            let Some(line) = self.next()? else {
                return Ok(None);
            };
            let word = line.split_whitespace().next().unwrap_or("");
            match Square::parse(word) {
                Some(square) => actions.push(square),
                None => self.note(&format!("not an action: {:?}: ignored", truncate(&line))),
            }
        }
        let turn = Turn {
            board: Board::new(player, opponent),
            actions,
        };
        Ok(Some((turn, started)))
    }
}

/// At most 40 characters of a bad line, for a note.
fn truncate(line: &str) -> String {
    line.chars().take(40).collect()
}

/// The answer to `turn`: `chosen` (our search's move) if the arena lists
/// it, else the first listed action; with no action listed, our move, or
/// `PASS` (nothing else could be right).
#[must_use]
pub fn answer(turn: &Turn, chosen: Option<Square>) -> String {
    match (chosen, turn.actions.first()) {
        (Some(sq), _) if turn.actions.contains(&sq) => sq.to_string(),
        (_, Some(first)) => first.to_string(),
        (Some(sq), None) => sq.to_string(),
        (None, None) => "PASS".to_string(),
    }
}

/// Plays the protocol until the end of input.
pub fn run(
    input: &mut impl BufRead,
    output: &mut impl Write,
    log: &mut impl Write,
    player: &mut dyn Player,
    budget: Budget,
) -> io::Result<()> {
    for text in player.notes() {
        // stderr problems must never stop the game.
        let _ = writeln!(log, "{text}");
    }
    let mut reader = Reader {
        input,
        log,
        line: 0,
    };
    let Some(id) = reader.number("id")? else {
        return Ok(());
    };
    let id = match id {
        Some(id @ (0 | 1)) => id,
        other => {
            if let Some(id) = other {
                reader.note(&format!("id {id} is neither 0 nor 1: playing as 0 (black)"));
            }
            0
        }
    };
    if let Some(Some(size)) = reader.number("boardSize")? {
        if size != 8 {
            reader.note(&format!("boardSize {size}: this bot plays 8 x 8 only"));
        }
    }
    player.new_game();
    let mut first = true;
    loop {
        let Some((turn, started)) = reader.turn(id)? else {
            return Ok(());
        };
        player.set_limit(if first { budget.first } else { budget.rest });
        first = false;
        let choice = if turn.board.has_moves() {
            Some(player.choose(&turn.board, started))
        } else {
            None
        };
        let chosen = choice.as_ref().and_then(|c| c.square);
        let text = answer(&turn, chosen);
        output.write_all(text.as_bytes())?;
        output.write_all(b"\n")?;
        output.flush()?;
        if chosen.is_some_and(|sq| sq.to_string() != text) {
            reader.note("our move is not among the listed actions: played the first listed");
        }
        if let Some(choice) = choice {
            let _ = writeln!(reader.log, "played {text}: {}", choice.info);
        }
        let _ = reader.log.flush();
    }
}

/// The protocol on stdin, stdout and stderr; success whatever the input,
/// as with the judge protocol.
#[must_use]
pub fn serve_stdio(player: &mut dyn Player, budget: Budget) -> std::process::ExitCode {
    crate::lines::serve_stdio(|input, output, log| run(input, output, log, player, budget))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::player::Choice;

    /// Plays the first legal move in square order, and records its limits.
    struct First {
        limits: Vec<Duration>,
    }

    impl Player for First {
        fn new_game(&mut self) {}
        fn choose(&mut self, board: &Board, _started: Instant) -> Choice {
            Choice {
                square: crate::bitboard::squares(board.moves()).next(),
                info: "first".into(),
            }
        }
        fn set_limit(&mut self, limit: Duration) {
            self.limits.push(limit);
        }
    }

    fn play(input: &str) -> (String, String, Vec<Duration>) {
        let mut player = First { limits: Vec::new() };
        let (mut out, mut log) = (Vec::new(), Vec::new());
        run(
            &mut input.as_bytes(),
            &mut out,
            &mut log,
            &mut player,
            Budget::default(),
        )
        .expect("in memory");
        let text = |v: Vec<u8>| String::from_utf8(v).expect("utf-8");
        (text(out), text(log), player.limits)
    }

    const START: &str =
        "........\n........\n........\n...10...\n...01...\n........\n........\n........\n";

    #[test]
    fn the_first_turn_reads_the_board_from_our_side() {
        let (out, log, limits) = play(&format!("0\n8\n{START}4\nd3\nc4\nf5\ne6\n"));
        // black (0) to move: first legal in square order is d3
        assert_eq!(out, "d3\n");
        assert!(log.contains("played d3"), "{log}");
        assert_eq!(limits, [Duration::from_millis(2000)]);
        let (out, _, _) = play(&format!("1\n8\n{START}4\nc5\nd6\ne3\nf4\n"));
        // as white, '1' is ours: e3 comes first in square order
        assert_eq!(out, "e3\n");
    }

    #[test]
    fn our_move_not_listed_gives_the_first_listed_action() {
        // The arena lists only f5; our player would choose d3.
        let (out, log, _) = play(&format!("0\n8\n{START}1\nf5\n"));
        assert_eq!(out, "f5\n");
        assert!(log.contains("not among the listed actions"), "{log}");
    }

    #[test]
    fn bad_lines_are_noted_and_play_goes_on() {
        let board = START.replace("...10...", "...1x...");
        let (out, log, _) = play(&format!("7\n9\n{board}two\n"));
        assert_eq!(out.lines().count(), 1, "one answer: {out}");
        for note in ["id 7", "boardSize 9", "board row 4", "actionCount"] {
            assert!(log.contains(note), "no note on {note}: {log}");
        }
    }

    #[test]
    fn the_second_turn_has_the_short_budget() {
        let (out, _, limits) = play(&format!(
            "0\n8\n{START}4\nd3\nc4\nf5\ne6\n{START}4\nd3\nc4\nf5\ne6\n"
        ));
        assert_eq!(out, "d3\nd3\n");
        assert_eq!(
            limits,
            [Duration::from_millis(2000), Duration::from_millis(150)]
        );
    }

    #[test]
    fn random_input_never_panics_and_every_answer_is_one_line_of_a_square_or_pass() {
        let mut rng = fastrand::Rng::with_seed(16);
        let pieces = [
            "0",
            "1",
            "8",
            "4",
            "d3",
            "c4",
            "x",
            "",
            "........",
            "...10...",
            "...01...",
            "..1",
            "99999999999",
            "-3",
            "PASS",
            "e6 hello",
            "\u{0}\u{7f}",
            "1111111111",
        ];
        for _ in 0..300 {
            let lines: Vec<&str> = (0..rng.usize(0..80))
                .map(|_| pieces[rng.usize(..pieces.len())])
                .collect();
            let input = lines.join("\n");
            let (out, _, _) = play(&input);
            for answer in out.lines() {
                assert!(
                    answer == "PASS" || Square::parse(answer).is_some(),
                    "{answer:?} from {input:?}"
                );
            }
        }
    }

    #[test]
    fn the_answer_is_always_listed_when_anything_is() {
        let d3 = Square::parse("d3");
        let turn = Turn {
            board: Board::start(),
            actions: vec![Square::parse("f5").expect("square")],
        };
        assert_eq!(answer(&turn, d3), "f5");
        let empty = Turn {
            board: Board::start(),
            actions: Vec::new(),
        };
        assert_eq!(answer(&empty, d3), "d3");
        assert_eq!(answer(&empty, None), "PASS");
    }
}
