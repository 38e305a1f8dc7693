//! `reversi show GAME` in a terminal: one position at a time, redrawn in
//! place, moved through with keys. The screen shows the players, the
//! result, the move with its recorded evaluation, the board and the
//! count; the keys are read one by one in the terminal's raw mode (an
//! arrow key is a key, not `^[[D` echoed on a line).
//!
//! | key | goes to |
//! | --- | --- |
//! | Right, Enter, Space, `n` | the next position |
//! | Left, Backspace, `b`, `p` | the one before |
//! | Home, End | the start, the end |
//! | digits, then Enter | that move |
//! | `q`, Esc, Ctrl-C | (quits) |

use crate::records::ggf::GgfGame;
use crate::study::show::{text_frame, Frame};
use crossterm::event::{self, Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use crossterm::{cursor, execute, queue, terminal};
use std::io::{self, Write};

/// What a key asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    Next,
    Back,
    First,
    Last,
    Digit(u8),
    /// Enter: the move typed, if any, else the next position.
    Enter,
    Quit,
    None,
}

/// The key's meaning.
#[must_use]
pub fn step(key: KeyEvent) -> Step {
    if key.kind == KeyEventKind::Release {
        return Step::None;
    }
    match key.code {
        KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => Step::Quit,
        KeyCode::Right | KeyCode::Char(' ' | 'n') => Step::Next,
        KeyCode::Left | KeyCode::Backspace | KeyCode::Char('b' | 'p') => Step::Back,
        KeyCode::Home => Step::First,
        KeyCode::End => Step::Last,
        KeyCode::Enter => Step::Enter,
        KeyCode::Char(c @ '0'..='9') => Step::Digit(c as u8 - b'0'),
        KeyCode::Char('q') | KeyCode::Esc => Step::Quit,
        _ => Step::None,
    }
}

/// Where the viewer is: the position shown and the move number typed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Place {
    pub at: usize,
    pub typed: String,
}

impl Place {
    /// The place after `step`, in a game of `last + 1` positions; `None`:
    /// quit.
    #[must_use]
    pub fn after(mut self, step: Step, last: usize) -> Option<Place> {
        match step {
            Step::Quit => return None,
            Step::Next => self.at = (self.at + 1).min(last),
            Step::Back => self.at = self.at.saturating_sub(1),
            Step::First => self.at = 0,
            Step::Last => self.at = last,
            Step::Digit(d) if self.typed.len() < 3 => self.typed.push(char::from(b'0' + d)),
            Step::Digit(_) | Step::None => {}
            Step::Enter => {
                let typed = std::mem::take(&mut self.typed);
                self.at = match typed.parse::<usize>() {
                    Ok(n) => n.min(last),
                    Err(_) => (self.at + 1).min(last),
                };
            }
        }
        Some(self)
    }
}

/// The header: the players and the result, as the game records them.
fn header(game: &GgfGame) -> String {
    let black = game.tag("PB").unwrap_or("?");
    let white = game.tag("PW").unwrap_or("?");
    let result = game.tag("RE").unwrap_or("not recorded");
    format!("black (X) {black}  -  white (O) {white}  -  result {result}")
}

/// The terminal in raw mode on the alternate screen, given back as it was
/// when dropped (on an error too).
struct Screen;

impl Screen {
    fn take() -> io::Result<Screen> {
        terminal::enable_raw_mode()?;
        let screen = Screen;
        execute!(io::stdout(), terminal::EnterAlternateScreen, cursor::Hide)?;
        Ok(screen)
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        let _ = execute!(io::stdout(), cursor::Show, terminal::LeaveAlternateScreen);
        let _ = terminal::disable_raw_mode();
    }
}

/// Shows `frames` of `game` until the reader quits.
pub fn browse(game: &GgfGame, frames: &[Frame]) -> io::Result<()> {
    let _screen = Screen::take()?;
    let last = frames.len().saturating_sub(1);
    let mut place = Place::default();
    loop {
        let mut out = io::stdout().lock();
        queue!(
            out,
            terminal::Clear(terminal::ClearType::All),
            cursor::MoveTo(0, 0)
        )?;
        let text = format!(
            "{}\r\n\r\n{}\r\nposition {} of {last}{}\r\n\r\n[->] next  [<-] back  [Home] [End]  [digits Enter] move  [q] quit",
            crate::util::escape_controls(&header(game)),
            text_frame(&frames[place.at]).replace('\n', "\r\n"),
            place.at,
            if place.typed.is_empty() {
                String::new()
            } else {
                format!("  go to: {}", place.typed)
            },
        );
        out.write_all(text.as_bytes())?;
        out.flush()?;
        drop(out);
        let key = match event::read()? {
            Event::Key(key) => key,
            _ => continue,
        };
        match place.clone().after(step(key), last) {
            Some(next) => place = next,
            None => return Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn keys_move_through_the_game_and_stop_at_its_ends() {
        let walk = |keys: &[KeyCode]| {
            let mut place = Place::default();
            for &k in keys {
                place = place.after(step(key(k)), 60)?;
            }
            Some(place.at)
        };
        assert_eq!(walk(&[KeyCode::Right, KeyCode::Right]), Some(2));
        assert_eq!(walk(&[KeyCode::Left]), Some(0));
        assert_eq!(walk(&[KeyCode::End, KeyCode::Right]), Some(60));
        assert_eq!(walk(&[KeyCode::End, KeyCode::Home]), Some(0));
        assert_eq!(
            walk(&[KeyCode::Char('4'), KeyCode::Char('2'), KeyCode::Enter]),
            Some(42)
        );
        assert_eq!(
            walk(&[KeyCode::Char('9'), KeyCode::Char('9'), KeyCode::Enter]),
            Some(60)
        );
        assert_eq!(walk(&[KeyCode::Enter, KeyCode::Char(' ')]), Some(2));
        assert_eq!(walk(&[KeyCode::Right, KeyCode::Char('q')]), None);
        assert_eq!(walk(&[KeyCode::Esc]), None);
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(step(ctrl_c), Step::Quit);
    }

    #[test]
    fn the_header_names_the_players_and_the_result() {
        let game = crate::records::ggf::parse("(;GM[Othello]PB[edax]PW[ours]RE[+12]BO[8 -------- -------- -------- ---O*--- ---*O--- -------- -------- -------- *]B[d3];)")
            .unwrap()
            .remove(0);
        assert_eq!(
            header(&game),
            "black (X) edax  -  white (O) ours  -  result +12"
        );
    }
}
