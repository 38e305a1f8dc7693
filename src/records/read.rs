//! Recorded games in the three forms users have them, read into one
//! [`GgfGame`] each: GGF files (`(;GM[Othello]...;)`, several a file), our
//! judge transcripts (`> TURN d 3` / `< c 5`, as `match --record` writes
//! them), and plain move lists (`f5d6c3d3c4`, with or without spaces,
//! passes written `--`, `PA` or `pass`, or left out where the side to move
//! has no move).
//!
//! `replay`, `show` and `analyze` take any of them.

use crate::records::ggf::{self, GgfGame, GgfMove};
use crate::records::transcript::{Direction, Transcript};
use reversi_core::bitboard::Square;
use reversi_core::board::{Board, Color};
use reversi_core::protocol::{parse, Command, MoveReply, Owner};

/// The games in `text`, whichever of the three forms it is in.
pub fn read_games(text: &str) -> Result<Vec<GgfGame>, String> {
    let trimmed = text.trim_start();
    if trimmed.contains("(;") {
        return ggf::parse(text).map_err(|e| e.to_string());
    }
    let transcript_like = trimmed
        .lines()
        .next()
        .is_some_and(|l| l.starts_with(['>', '<', '#']));
    if transcript_like {
        let transcript = Transcript::parse(text).map_err(|e| e.to_string())?;
        return from_transcript(&transcript);
    }
    move_list(text).map(|game| vec![game])
}

/// A move list from the standard start.
pub fn move_list(text: &str) -> Result<GgfGame, String> {
    moves_from(GgfGame::standard(), text)
}

/// `game` (its start, no moves yet) with the moves of a list played.
fn moves_from(mut game: GgfGame, text: &str) -> Result<GgfGame, String> {
    let compact: String = text
        .chars()
        .filter(|c| !c.is_whitespace() && *c != ',')
        .collect::<String>()
        .to_ascii_lowercase();
    if compact.is_empty() {
        return Err("no moves: a game is GGF, a transcript or a move list like f5d6c3".into());
    }
    game.moves.clear();
    let mut board = game.start();
    let mut color = game.to_move;
    let mut rest = compact.as_str();
    while !rest.is_empty() {
        let (square, after) = if let Some(after) = rest.strip_prefix("pass") {
            (None, after)
        } else if let Some(after) = rest.strip_prefix("--").or_else(|| rest.strip_prefix("pa")) {
            (None, after)
        } else {
            let (word, after) =
                rest.split_at(rest.char_indices().nth(2).map_or(rest.len(), |(i, _)| i));
            let square = Square::parse(word).ok_or_else(|| {
                format!("move {}: '{word}' is not a square", game.moves.len() + 1)
            })?;
            (Some(square), after)
        };
        // A pass left out: the side to move has none, the move is the other's.
        if square.is_some() && !board.has_moves() && !board.is_game_over() {
            game.moves.push(pass(color));
            board = board.pass();
            color = color.other();
        }
        board = match square {
            Some(sq) if board.is_legal(sq) => board.play(sq),
            None if !board.has_moves() && !board.is_game_over() => board.pass(),
            _ => {
                return Err(format!(
                    "move {}: {} is not legal for {}",
                    game.moves.len() + 1,
                    square.map_or("a pass".to_string(), |s| s.to_string()),
                    color.name()
                ))
            }
        };
        game.moves.push(GgfMove {
            color,
            square,
            eval: String::new(),
            time: String::new(),
        });
        color = color.other();
        rest = after;
    }
    finish(&mut game, &board);
    Ok(game)
}

fn pass(color: Color) -> GgfMove {
    GgfMove {
        color,
        square: None,
        eval: String::new(),
        time: String::new(),
    }
}

/// Writes the result (`RE`, black's disc difference) once the game is over.
fn finish(game: &mut GgfGame, board: &Board) {
    if board.is_game_over() {
        let to_move = if game.moves.len().is_multiple_of(2) {
            game.to_move
        } else {
            game.to_move.other()
        };
        let score = board.final_score();
        let black = if to_move == Color::Black {
            score
        } else {
            -score
        };
        game.set_tag("RE", &format!("{black:+}"));
    }
}

/// The games of one program's judge session: each `START` begins one; the
/// placed discs are its start, black (whoever moves first) to move; the
/// opponent's moves are the `TURN`s and `PASS`es sent, the program's its
/// replies. The judge never tells a program the game's last move when the
/// opponent made it, so where the header `moves` (as `match --record`
/// writes it) lists a one-game session's moves, they are read from it.
pub fn from_transcript(transcript: &Transcript) -> Result<Vec<GgfGame>, String> {
    let mut games = Vec::new();
    let mut current: Option<(GgfGame, u64, u64, Option<Color>)> = None;
    let mut board = Board::start();
    for (i, entry) in transcript.entries.iter().enumerate() {
        let at = |why: String| format!("transcript entry {}: {why}", i + 1);
        if entry.direction == Direction::Received {
            let Some((game, _, _, Some(us))) = current.as_mut() else {
                continue;
            };
            let square = match MoveReply::parse(&entry.text, &board) {
                Ok(MoveReply::Play(sq)) => Some(sq),
                Ok(MoveReply::Pass) => None,
                // `OK` and anything that is not a move: not part of the game.
                Err(_) if entry.text == "OK" => continue,
                Err(e) => return Err(at(format!("the reply '{}': {e}", entry.text))),
            };
            board = square.map_or_else(|| board.pass(), |sq| board.play(sq));
            game.moves.push(GgfMove {
                color: *us,
                square,
                eval: String::new(),
                time: String::new(),
            });
            continue;
        }
        let Ok(command) = parse(&entry.text).0 else {
            continue;
        };
        match command {
            Command::Start => {
                if let Some((mut game, ..)) = current.take() {
                    finish(&mut game, &board);
                    games.push(game);
                }
                current = Some((GgfGame::standard(), 0, 0, None));
            }
            Command::Place(square, owner) => {
                if let Some((_, ours, theirs, None)) = current.as_mut() {
                    let bit = 1u64 << square.index();
                    let (set, clear) = if owner == Owner::Mine {
                        (ours, theirs)
                    } else {
                        (theirs, ours)
                    };
                    *set |= bit;
                    *clear &= !bit;
                }
            }
            Command::Begin | Command::Turn(_) | Command::Pass => {
                let Some((game, ours, theirs, us)) = current.as_mut() else {
                    return Err(at("a move before START".into()));
                };
                if us.is_none() {
                    // The first move: BEGIN makes the program black.
                    let color = if command == Command::Begin {
                        Color::Black
                    } else {
                        Color::White
                    };
                    *us = Some(color);
                    if *ours | *theirs != 0 {
                        (game.black, game.white) = match color {
                            Color::Black => (*ours, *theirs),
                            Color::White => (*theirs, *ours),
                        };
                    }
                    game.to_move = Color::Black;
                    board = game.start();
                }
                let them = us.expect("set above").other();
                let square = match command {
                    Command::Turn(sq) if board.is_legal(sq) => Some(sq),
                    Command::Turn(sq) => return Err(at(format!("{sq} is not legal here"))),
                    Command::Pass if !board.has_moves() => None,
                    Command::Pass => return Err(at("a pass with a move to play".into())),
                    _ => continue,
                };
                board = square.map_or_else(|| board.pass(), |sq| board.play(sq));
                game.moves.push(GgfMove {
                    color: them,
                    square,
                    eval: String::new(),
                    time: String::new(),
                });
            }
            Command::Done | Command::End => {}
        }
    }
    if let Some((mut game, ..)) = current.take() {
        finish(&mut game, &board);
        games.push(game);
    }
    if games.is_empty() {
        return Err("the transcript has no game (no START)".into());
    }
    if let (Some(list), [game]) = (transcript.header("moves"), games.as_mut_slice()) {
        let listed = moves_from(game.clone(), list).map_err(|e| format!("header 'moves': {e}"))?;
        let seen = game.moves.len();
        if listed.moves.len() < seen || listed.moves[..seen] != game.moves[..] {
            return Err("the header 'moves' is not the game the session played".into());
        }
        *game = listed;
    }
    let names = (transcript.header("player"), transcript.header("opponent"));
    if let (Some(player), Some(opponent)) = names {
        let (black, white) = match transcript.header("color") {
            Some("white") => (opponent, player),
            _ => (player, opponent),
        };
        for game in &mut games {
            game.set_tag("PB", black);
            game.set_tag("PW", white);
        }
    }
    Ok(games)
}

/// The position after `moves` (squares written one after another, as
/// `f5d6`, either case) from the standard start, passing before a move
/// wherever the side to move has none, and the side to move; an error
/// names the first move that cannot be played.
pub fn replay_moves(moves: &str) -> Result<(Board, Color), String> {
    let mut board = Board::start();
    let mut color = Color::Black;
    let bytes = moves.trim().as_bytes();
    if !bytes.len().is_multiple_of(2) {
        return Err(format!(
            "'{moves}': moves are two characters each, like f5d6"
        ));
    }
    for (i, pair) in bytes.chunks(2).enumerate() {
        let text = String::from_utf8_lossy(pair);
        let Some(sq) = Square::from_letter_digit(pair[0], pair[1]) else {
            return Err(format!("move {}: '{text}' is not a square", i + 1));
        };
        if !board.has_moves() {
            board = board.pass();
            color = color.other();
        }
        if !board.is_legal(sq) {
            return Err(format!("move {}: {text} is not legal there", i + 1));
        }
        board = board.play(sq);
        color = color.other();
    }
    Ok((board, color))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_lists_with_and_without_passes() {
        let game = move_list("f5 d6 C3d3").unwrap();
        assert_eq!(game.moves.len(), 4);
        assert_eq!(game.moves[2].square, Square::parse("c3"));
        assert!(move_list("f5 z9")
            .unwrap_err()
            .contains("'z9' is not a square"));
        assert!(move_list("f5 f5").unwrap_err().contains("f5 is not legal"));
        assert!(move_list("f5 --")
            .unwrap_err()
            .contains("a pass is not legal"));
        assert!(move_list("").is_err());
    }

    #[test]
    fn a_transcript_gives_its_game() {
        let text = "# color: white\n# player: B\n# opponent: A\n> START\n> DONE\n< OK\n> TURN d 3\n< c 5\n> TURN f 6\n< e 3\n> END\n";
        let games = read_games(text).unwrap();
        assert_eq!(games.len(), 1);
        let moves: Vec<String> = games[0]
            .moves
            .iter()
            .map(|m| m.square.unwrap().to_string())
            .collect();
        assert_eq!(moves, ["d3", "c5", "f6", "e3"]);
        assert_eq!(games[0].tag("PB"), Some("A"));
        assert_eq!(games[0].tag("PW"), Some("B"));
        assert!(games[0].positions().is_ok());
    }
}
