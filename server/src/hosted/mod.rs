//! Hosted programs: teams whose command line the organiser registered,
//! and teams' active submitted programs (see [`crate::judge`]). The server
//! plays their side of each game itself, through the same seat as
//! `reversi connect` (`reversi::arena::seat`), with the moves judged and stored
//! as a remote bot's are. A program restarted mid-game (the server was)
//! is given the position as it stands.
//!
//! A program that fails (will not start, dies, answers nothing) loses the
//! game at once, as under our referee: its side forfeits with the reason.
//! It runs with a clean environment ([`Trust::Hosted`]): the server's
//! secrets are not its to read; what it writes to stderr is stored as the
//! game's log, which only the organiser and its own team may read, and
//! the public ending never quotes it.
//!
//! Each hosted side of a game in progress is a seat that one server
//! process holds for a lease (see [`crate::lease`]): with several
//! processes on one PostgreSQL database, any of them may play it, and
//! another takes it over if its holder dies.
//!
//! The programs run on the machine's cores as [`cores`] shares them out.

pub mod cores;

use crate::store::GameRow;
use crate::{now_ms, App};
use reversi::arena::program::Trust;
use reversi::arena::seat::{self, Stop, Table, View};
use reversi_core::board::Color;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A hosted side of one game, played from inside the server.
struct Seat {
    app: Arc<App>,
    id: i64,
    color: Color,
}

impl Seat {
    fn row(&self) -> Result<GameRow, String> {
        self.app
            .store
            .game(self.id)
            .map_err(|e| e.to_string())?
            .ok_or_else(|| format!("no game {}", self.id))
    }

    /// Whether another process has taken this seat's lease over.
    fn given_up(&self) -> bool {
        self.app.seats.given_up(&(self.id, self.color.index()))
    }

    fn view(&self, row: &GameRow) -> View {
        let moves: Vec<String> = row
            .moves
            .iter()
            .map(|m| m.clone().unwrap_or_else(|| "pass".into()))
            .collect();
        let to_move = if moves.len().is_multiple_of(2) {
            Color::Black
        } else {
            Color::White
        };
        View {
            moves,
            color: self.color,
            ending: row.ending.clone(),
            my_turn: row.ending.is_none() && to_move == self.color,
            move_time: Duration::from_millis(row.move_time_ms.max(0) as u64),
        }
    }
}

impl Table for Seat {
    fn look(&self, wait: Duration) -> Result<View, String> {
        let deadline = Instant::now() + wait;
        loop {
            if self.given_up() {
                return Err(format!("another server plays {} now", self.color.name()));
            }
            let seen = self.app.moved.seen();
            let view = self.view(&self.row()?);
            let now = Instant::now();
            if view.my_turn || view.ending.is_some() || now >= deadline {
                return Ok(view);
            }
            self.app.moved.wait_past(seen, deadline - now);
        }
    }

    fn send(&self, text: &str) -> Result<(), String> {
        let arrived = now_ms();
        let row = self.row()?;
        if !self.view(&row).my_turn {
            // Ended (on time, say) while the program thought.
            return Ok(());
        }
        match self.app.submit(&row, text, arrived, false) {
            Ok(()) | Err(crate::store::StoreError::Stale) => Ok(()),
            Err(e) => Err(e.to_string()),
        }
    }

    fn ready(&self) {
        // Should this fail to be stored, the clock starts at the end of
        // the setup allowance instead: later, never sooner.
        let _ = self
            .app
            .store
            .show_up(self.id, self.color.index(), now_ms());
    }
}

/// Seats the hosted sides of game `row` that no process plays yet: this
/// one claims each and plays it on a thread of its own, for the game's
/// length.
pub fn seat(app: &Arc<App>, row: &GameRow) {
    if row.ending.is_some() {
        return;
    }
    for side in 0..2 {
        play_side(app, row, side, false);
    }
}

/// Plays side `side` (0 black, 1 white) of game `id`, whose seat this
/// process has claimed, on a thread of its own.
pub fn take(app: &Arc<App>, id: i64, side: usize) {
    if let Ok(Some(row)) = app.store.game(id) {
        play_side(app, &row, side, true);
    }
}

/// Whether team `team` is played by the server: a registered command, or
/// an active submitted program.
#[must_use]
pub fn is_hosted(app: &App, team: &str) -> bool {
    matches!(app.store.command_of(team), Ok(Some(_)))
        || matches!(app.store.active_program(team), Ok(Some(_)))
}

/// The command that plays side `side` of game `row`: the submitted
/// program it was made with, or its team's registered command; `None` for
/// a remote side. A program this process cannot run (it has no judge) is
/// said, and left to a process that can.
fn command_for(app: &App, row: &GameRow, side: usize) -> Option<String> {
    let team = if side == 0 { &row.black } else { &row.white };
    let Some(program) = row.programs[side] else {
        return app.store.command_of(team).ok().flatten();
    };
    let Some(judge) = &app.judge else {
        eprintln!(
            "reversi-server: game {}: this server has no judge to run program {program}",
            row.id
        );
        return None;
    };
    let language = app.store.program(program).ok().flatten()?.language;
    match judge.command(app, program, &language) {
        Ok(command) => Some(command),
        Err(e) => {
            eprintln!("reversi-server: game {}: {e}", row.id);
            None
        }
    }
}

/// A game's core, held by one of its seats until dropped.
struct Seated {
    app: Arc<App>,
    game: i64,
    core: usize,
}

impl Drop for Seated {
    fn drop(&mut self) {
        self.app.cores.leave(self.game);
        // A contest may be waiting for the core.
        self.app.moved.poke();
    }
}

/// Plays side `side` of game `row` on a thread of its own if it is hosted
/// and a judge slot is free, pinned to the game's core, claiming its seat
/// unless `claimed`. Without a slot the seat is left (or let go) unclaimed:
/// its clock does not run, and it is claimed again once a slot is free.
fn play_side(app: &Arc<App>, row: &GameRow, side: usize, claimed: bool) {
    let color = if side == 0 {
        Color::Black
    } else {
        Color::White
    };
    let Some(command) = command_for(app, row, side) else {
        return;
    };
    let Some(core) = app.cores.try_seat(row.id) else {
        if claimed {
            let _ = app.store.release_seat(row.id, side, &app.holder);
        }
        return;
    };
    // Held from now, so that a contest counts the game at once; given back
    // with the thread, or at once if the seat is not played here.
    let seated = Seated {
        app: Arc::clone(app),
        game: row.id,
        core,
    };
    let claimed = claimed
        || app.store.claim_seat(
            row.id,
            side,
            &app.holder,
            now_ms(),
            crate::store::lease::until(),
        ) == Ok(true);
    if !claimed {
        return;
    }
    let seat = Seat {
        app: Arc::clone(app),
        id: row.id,
        color,
    };
    let name = format!("game-{}-{}", row.id, color.name());
    if !app.seats.spawn((row.id, side), name, move || {
        crate::hosted::cores::pin_thread(seated.core);
        play(&seat, &command);
        drop(seated);
    }) {
        eprintln!(
            "reversi-server: game {}: no thread for {}",
            row.id,
            color.name()
        );
    }
}

/// Plays the seat to the end; a program's failure loses its side the game.
/// What it wrote to stderr is kept for the organiser and its team.
fn play(seat: &Seat, command: &str) {
    let sitting = seat::sit(seat, command, Trust::Hosted, seat.app.sandbox.as_ref());
    if let Err(e) = seat
        .app
        .store
        .add_log(seat.id, seat.color.index(), &sitting.stderr)
    {
        eprintln!("reversi-server: game {}: its log: {e}", seat.id);
    }
    match sitting.outcome {
        Ok(_) => {}
        Err(Stop::Program(why)) => {
            let Ok(row) = seat.row() else { return };
            if row.ending.is_none() && !seat.given_up() {
                let name = seat.color.name();
                let ending = format!("{name} forfeits: {why}");
                if seat
                    .app
                    .store
                    .end(row.id, row.moves.len(), name, &ending)
                    .is_ok()
                {
                    seat.app.moved.raise(row.id);
                }
            }
        }
        Err(Stop::Table(why)) => {
            // The lease lapses and the seat is taken up again (the
            // program started anew), by this process or another.
            eprintln!("reversi-server: game {}: {why}", seat.id);
        }
    }
}
