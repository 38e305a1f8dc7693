//! Contests on the server: the knockout, the Elo pool and the ladder of
//! `reversi tournament`, run by the same rules code (`reversi::tournament`)
//! over an arena whose games are the server's: each game the rules ask for
//! is stored, played by remote bots or hosted programs, and its outcome
//! read back from the store.
//!
//! A contest's course is a function of its seed and its games' outcomes,
//! so a contest survives a restart by being run again from the start: the
//! games it made before (numbered in order) are found instead of made
//! anew, the finished ones answer at once, and the rules arrive where
//! they had got to. An Elo pool's later entrants are stored with the game
//! count at which they were taken in, so a rerun takes them in at the same
//! point. The same rerun lets another server process take a contest over
//! when the one that ran it dies (see [`crate::lease`]).

use crate::store::{ContestRow, EntrantRow, GameRow};
use crate::{hosted, now_ms, App};
use reversi::arena::{Arena, Entrant, GameSpec, Openings, Outcome};
use reversi::tournament::{bracket_svg, elo, knockout, ladder, Table};
use reversi_core::bitboard::Square;
use reversi_core::board::{Board, Color};
use std::cell::Cell;
use std::sync::Arc;
use std::time::Duration;

/// The formats, as the API names them.
pub const FORMATS: [&str; 3] = ["knockout", "elo", "ladder"];

/// How long a contest waits between looks at its games (a change wakes it
/// sooner).
const LOOK_EVERY: Duration = Duration::from_secs(1);

/// How often a bot waiting on its contest is noted as seen.
pub const SEEN_EVERY: Duration = Duration::from_secs(2);

/// How recently a remote bot must have been seen waiting on its contest to
/// count as present: a few of [`SEEN_EVERY`], so that the moment between
/// two of its requests does not count as gone.
const PRESENT_WITHIN_MS: i64 = 5000;

/// Whether `entrant` is there to play: a hosted program (a registered
/// command, or a submitted program that passed its check), or a remote
/// bot whose `connect` waits on the contest.
#[must_use]
pub fn present(app: &App, entrant: &EntrantRow, now_ms: i64) -> bool {
    entrant
        .seen_ms
        .is_some_and(|seen| now_ms - seen <= PRESENT_WITHIN_MS)
        || hosted::is_hosted(app, &entrant.team)
}

/// An opening's moves as stored (`None` a pass), from its XOT line; `None`
/// where a move does not replay.
#[must_use]
pub fn opening_moves(line: &str) -> Option<Vec<Option<String>>> {
    let mut board = Board::start();
    let mut moves = Vec::new();
    let chars: Vec<char> = line.chars().filter(|c| !c.is_whitespace()).collect();
    for pair in chars.chunks(2) {
        let text: String = pair.iter().collect();
        let sq = Square::parse(&text.to_ascii_lowercase())?;
        if !board.has_moves() && !board.is_game_over() {
            board = board.pass();
            moves.push(None);
        }
        if !board.is_legal(sq) {
            return None;
        }
        board = board.play(sq);
        moves.push(Some(sq.to_string()));
    }
    Some(moves)
}

/// A stored game's outcome, as the rules see it.
#[must_use]
pub fn outcome_of(row: &GameRow) -> Outcome {
    let mut legal = [0u32; 2];
    for ply in row.opening_plies..row.moves.len() {
        legal[ply % 2] += 1;
    }
    let ending = row.ending.clone().unwrap_or_default();
    let lost = |loser: Color| Outcome {
        black_discs: 0,
        white_discs: 0,
        forfeit: Some((loser, ending.clone())),
        double_forfeit: None,
        before_first_move: legal[loser.index()] == 0,
        legal_replies: legal,
        number: None,
    };
    match row.forfeit.as_deref() {
        Some("black") => lost(Color::Black),
        Some("white") => lost(Color::White),
        Some(_) => Outcome {
            forfeit: None,
            double_forfeit: Some([ending.clone(), ending.clone()]),
            before_first_move: true,
            ..lost(Color::Black)
        },
        None => {
            let position = crate::game::Position::of(row).ok();
            let (black, white) = position.map_or((0, 0), |p| {
                let (b, w) = p.board.colors(p.to_move);
                (b.count_ones(), w.count_ones())
            });
            Outcome {
                legal_replies: legal,
                ..Outcome::finished(black, white)
            }
        }
    }
}

/// The server's games as an arena, for one contest.
struct Games<'a> {
    app: &'a Arc<App>,
    contest: &'a ContestRow,
    /// The entrants' teams, by index.
    teams: std::cell::RefCell<Vec<String>>,
    /// The number the next game asked for gets.
    next: Cell<i64>,
    /// The entrants (by index) that lost a game of the last round without
    /// ever showing up for it: an Elo pool does not drop them for that.
    absent: std::cell::RefCell<Vec<usize>>,
}

/// Runs `work` until the store answers: a contest waits out a database
/// that is failing rather than lose its place.
fn patiently<T>(what: &str, work: impl Fn() -> Result<T, crate::store::StoreError>) -> T {
    let mut said = false;
    loop {
        match work() {
            Ok(value) => return value,
            Err(e) => {
                if !said {
                    eprintln!("reversi-server: {what}: {e} (trying again)");
                    said = true;
                }
                std::thread::sleep(LOOK_EVERY);
            }
        }
    }
}

impl Games<'_> {
    /// Whether game number `seq` was made before (the contest is being
    /// run again after a restart, and has not caught up).
    fn made(&self, seq: i64) -> bool {
        patiently("a contest's games", || {
            self.app.store.contest_game(self.contest.id, seq)
        })
        .is_some()
    }

    /// Stops the contest's run here if another process has taken its
    /// lease over: the rules code is left by unwinding (the run holds
    /// nothing that is not in the store).
    fn check_lease(&self) {
        if self.app.contests.given_up(&self.contest.id) {
            std::panic::resume_unwind(Box::new(LeaseLost));
        }
    }

    /// Waits while the contest has not started, or the organiser has it
    /// paused; starts it at its start time.
    fn while_paused(&self) {
        loop {
            self.check_lease();
            let seen = self.app.moved.seen();
            let Some(contest) = patiently("a contest", || self.app.store.contest(self.contest.id))
            else {
                return;
            };
            match contest.state.as_str() {
                "waiting" if contest.start_at_ms.is_some_and(|at| at <= now_ms()) => {
                    patiently("a contest's start", || {
                        self.app
                            .store
                            .set_contest_state(contest.id, "waiting", "running")
                    });
                    self.app.moved.poke();
                }
                "waiting" | "paused" => self.app.moved.wait_past(seen, LOOK_EVERY),
                _ => return,
            }
        }
    }

    /// Waits, before making a game that the server plays a side of (one
    /// of `teams`), until one of its judge slots is free (see
    /// [`crate::hosted::cores`]): a game's programs have a core of their own.
    fn wait_for_a_judge(&self, teams: &[&str]) {
        // A free slot is known without asking the store who is hosted.
        if self.app.cores.free() || !teams.iter().any(|team| hosted::is_hosted(self.app, team)) {
            return;
        }
        loop {
            self.check_lease();
            let seen = self.app.moved.seen();
            if self.app.cores.free() {
                return;
            }
            self.app.moved.wait_past(seen, LOOK_EVERY);
        }
    }

    fn save(&self, table: &Table, bracket: Option<&str>, finished: bool) {
        self.save_rated(table, bracket, None, finished);
    }

    /// Saves the standings, with an Elo pool's ratings after `seq` games.
    fn save_rated(
        &self,
        table: &Table,
        bracket: Option<&str>,
        ratings: Option<(i64, &[(String, i64)])>,
        finished: bool,
    ) {
        patiently("a contest's standings", || {
            self.app.store.save_standings(
                self.contest.id,
                &table.to_json(),
                bracket,
                ratings,
                finished,
            )
        });
        self.app.moved.poke();
    }
}

/// A batch's games in waves in which no entrant plays twice, each game in
/// the wave after the last one where one of its players plays (so a
/// player's games keep their order). A remote bot or a GGS client plays
/// its games one after another: a second game made beside its first would
/// run out its setup allowance, then its clock, while the first was
/// played. A knockout's or an Elo pool's round is one wave; a ladder's
/// round, where a player meets each neighbour `per_pair` times, is several.
#[must_use]
pub fn waves(games: &[GameSpec]) -> Vec<Vec<usize>> {
    let mut waves: Vec<Vec<usize>> = Vec::new();
    for (k, game) in games.iter().enumerate() {
        let meets = |j: &usize| {
            let other = &games[*j];
            [other.black, other.white].contains(&game.black)
                || [other.black, other.white].contains(&game.white)
        };
        // The first wave after the last one where a player of this game
        // plays: an earlier wave has been played by then.
        let after = waves
            .iter()
            .rposition(|w| w.iter().any(meets))
            .map_or(0, |w| w + 1);
        match waves.get_mut(after) {
            Some(wave) => wave.push(k),
            None => waves.push(vec![k]),
        }
    }
    waves
}

impl Arena for Games<'_> {
    fn play(&self, games: &[GameSpec]) -> Vec<Outcome> {
        let first = self.next.get();
        self.next.set(first + games.len() as i64);
        self.absent.borrow_mut().clear();
        let mut outcomes: Vec<Option<Outcome>> = games.iter().map(|_| None).collect();
        for (w, wave) in waves(games).into_iter().enumerate() {
            let played = self.play_wave(games, first, &wave, w == 0);
            for (k, outcome) in wave.into_iter().zip(played) {
                outcomes[k] = Some(outcome);
            }
        }
        outcomes.into_iter().flatten().collect()
    }
}

impl Games<'_> {
    /// Makes the games `wave` of `games` (numbered from `first`) and waits
    /// for their ends; their outcomes, in `wave`'s order. `opens_batch`:
    /// no game of the batch was made before this wave's.
    fn play_wave(
        &self,
        games: &[GameSpec],
        first: i64,
        wave: &[usize],
        opens_batch: bool,
    ) -> Vec<Outcome> {
        let mut ids = Vec::with_capacity(wave.len());
        for (n, &k) in wave.iter().enumerate() {
            let spec = &games[k];
            let seq = first + k as i64;
            let teams = self.teams.borrow();
            if !self.made(seq) {
                self.wait_for_a_judge(&[&teams[spec.black], &teams[spec.white]]);
            }
            let opening = opening_moves(&spec.opening.moves).unwrap_or_default();
            let id = loop {
                // As before each new game: a run whose lease another
                // process took makes no more.
                self.check_lease();
                let made = patiently("a contest's game", || {
                    self.app.store.make_contest_game(
                        self.contest.id,
                        seq,
                        &teams[spec.black],
                        &teams[spec.white],
                        self.contest.move_time_ms,
                        self.contest.setup_ms,
                        &opening,
                        now_ms(),
                    )
                });
                match made {
                    Some(id) => break id,
                    None => {
                        self.while_paused();
                        // A round none of whose games was made before the
                        // pause is chosen again after it, with whoever
                        // came meanwhile: the contest is run again from
                        // its stored games, which arrives here.
                        if opens_batch && n == 0 {
                            std::panic::resume_unwind(Box::new(ChooseAgain));
                        }
                    }
                }
            };
            if let Some(row) = patiently("a game", || self.app.store.game(id)) {
                hosted::seat(self.app, &row);
            }
            self.app.moved.raise(id);
            ids.push(id);
        }
        loop {
            self.check_lease();
            let seen = self.app.moved.seen();
            let rows: Vec<GameRow> = ids
                .iter()
                .filter_map(|&id| patiently("a game", || self.app.store.game(id)))
                .collect();
            if rows.len() == ids.len() && rows.iter().all(|r| r.ending.is_some()) {
                let mut absent = self.absent.borrow_mut();
                for (row, spec) in rows.iter().zip(wave.iter().map(|&k| &games[k])) {
                    for (side, entrant) in [spec.black, spec.white].into_iter().enumerate() {
                        let forfeited = matches!(
                            (row.forfeit.as_deref(), side),
                            (Some("black"), 0) | (Some("white"), 1) | (Some("both"), _)
                        );
                        // A remote bot that never came; a hosted program
                        // that never set up was offered its game, and failed.
                        let team = if side == 0 { &row.black } else { &row.white };
                        let remote = row.programs[side].is_none()
                            && !matches!(self.app.store.command_of(team), Ok(Some(_)));
                        if forfeited && remote && row.setup_until_ms[side].is_some() {
                            absent.push(entrant);
                        }
                    }
                }
                return rows.iter().map(outcome_of).collect();
            }
            self.app.moved.wait_past(seen, LOOK_EVERY);
        }
    }
}

/// How a run whose lease another process took over ends.
struct LeaseLost;

/// How a run ends whose next round was chosen before a pause and never
/// begun: it is run again.
struct ChooseAgain;

/// Starts running contest `id`, whose lease this process holds, on a
/// thread of its own, unless it runs.
pub fn start(app: &Arc<App>, id: i64) {
    let worker = Arc::clone(app);
    let spawned = app
        .contests
        .spawn(id, format!("contest-{id}"), move || loop {
            let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(&worker, id)));
            match run {
                Err(why) if why.is::<ChooseAgain>() => {}
                Err(why) if !why.is::<LeaseLost>() => std::panic::resume_unwind(why),
                _ => return,
            }
        });
    if !spawned {
        eprintln!("reversi-server: contest {id}: no thread to run it on");
    }
}

/// Runs contest `id` to its end.
fn run(app: &Arc<App>, id: i64) {
    let Some(contest) = patiently("a contest", || app.store.contest(id)) else {
        return;
    };
    let entrants = patiently("a contest's entrants", || app.store.entrants(id));
    let mut openings = match Openings::parse(&contest.openings, contest.seed as u64) {
        Ok(openings) => openings,
        Err(e) => {
            eprintln!("reversi-server: contest {id}: {e}");
            return;
        }
    };
    let names: Vec<String> = entrants
        .iter()
        .filter(|e| e.admitted_at == Some(0))
        .map(|e| e.team.clone())
        .collect();
    let games = Games {
        app,
        contest: &contest,
        teams: std::cell::RefCell::new(names.clone()),
        next: Cell::new(0),
        absent: std::cell::RefCell::new(Vec::new()),
    };
    let seed = contest.seed as u64;
    match contest.format.as_str() {
        "knockout" => {
            let k = knockout::run_observed(
                names.len(),
                &games,
                &mut openings,
                seed,
                &mut |standings| {
                    games.save(&knockout::standings_so_far(standings, &names), None, false);
                },
            );
            let entrants: Vec<Entrant> = names
                .iter()
                .map(|name| Entrant {
                    name: name.clone(),
                    command: String::new(),
                })
                .collect();
            let svg = bracket_svg::render(&k, &entrants);
            games.save(&k.standings_table(&names), Some(&svg), true);
        }
        "ladder" => {
            let mut l = ladder::Ladder::new(names.len());
            let rounds = contest.games.max(1);
            for round in 1..=rounds {
                l.round(&games, &mut openings, contest.per_pair.max(1) as usize);
                let table = l.standings_table(&names, ["as-black", "as-white"]);
                games.save(&table, None, round == rounds);
            }
        }
        _ => run_pool(&games, &mut openings),
    }
}

/// The Elo pool: matches by the rules until the contest's games are played
/// or no pair may meet (never, when it asks for 0 games: it waits for new
/// entrants instead), taking in new entrants between rounds.
fn run_pool(games: &Games<'_>, openings: &mut Openings) {
    let id = games.contest.id;
    let mut pool = elo::Pool::new(0);
    let mut names: Vec<String> = Vec::new();
    let target = games.contest.games.max(0);
    let mut played = 0i64;
    let mut renewals_taken = std::collections::HashSet::new();
    loop {
        let seq = games.next.get();
        if !games.made(seq) {
            // The next pairs are chosen once the pool may go on, so that
            // they are chosen with whoever came meanwhile.
            let teams: Vec<&str> = names.iter().map(String::as_str).collect();
            games.wait_for_a_judge(&teams);
            games.while_paused();
            patiently("a contest's entrants", || {
                games.app.store.admit_entrants(id, seq)
            });
        }
        let entrants = patiently("a contest's entrants", || games.app.store.entrants(id));
        let before = names.len();
        for e in entrants.iter().skip(names.len()) {
            if e.admitted_at.is_none_or(|at| at > seq) {
                break;
            }
            pool.admit();
            names.push(e.team.clone());
        }
        let admitted = names.len() > before;
        *games.teams.borrow_mut() = names.clone();
        if !games.made(seq) {
            note_renewals(games, &names, seq);
        }
        let renewed = take_renewals(games, &names, seq, &mut pool, &mut renewals_taken);
        if target > 0 && played >= target {
            games.save(&pool.standings_table(&names), None, true);
            return;
        }
        let room = if target > 0 {
            ((target - played + 1) / 2) as usize
        } else {
            usize::MAX
        };
        if admitted {
            // Where a newcomer's rating starts.
            games.save_rated(
                &pool.standings_table(&names),
                None,
                Some((seq, &ratings_of(&pool, &names))),
                false,
            );
        }
        games.absent.borrow_mut().clear();
        let matches = elo::play_round(&mut pool, games, openings, room);
        // Never offered its game (its bot never came for it): it lost the
        // game, but may play the next when it comes.
        for &i in games.absent.borrow().iter() {
            pool.excuse(i);
        }
        // Saved when something changed: an idle pool looks every second.
        if matches > 0 || admitted || renewed {
            games.save_rated(
                &pool.standings_table(&names),
                None,
                Some((games.next.get(), &ratings_of(&pool, &names))),
                false,
            );
        }
        if matches == 0 && target > 0 && names.len() >= 2 {
            // A pool of set length stops where no pair may meet, as
            // `reversi tournament` does.
            games.save(&pool.standings_table(&names), None, true);
            return;
        }
        if matches == 0 {
            // No pair may meet (or there are not two yet): wait for a new
            // entrant.
            let seen = games.app.moved.seen();
            games.app.moved.wait_past(seen, LOOK_EVERY);
        }
        played += 2 * matches as i64;
    }
}

/// Each entrant's rating, rounded, as the ratings table keeps it.
fn ratings_of(pool: &elo::Pool, names: &[String]) -> Vec<(String, i64)> {
    names
        .iter()
        .zip(&pool.players)
        .map(|(name, p)| (name.clone(), p.rating.round() as i64))
        .collect()
}

/// Records, before game number `seq`, each entrant of the pool whose
/// submitted program has changed since the pool last took one in: a new
/// active version, or none left (0). Teams that never submitted (remote
/// bots, registered commands) have nothing to record.
fn note_renewals(games: &Games<'_>, names: &[String], seq: i64) {
    let store = &games.app.store;
    let id = games.contest.id;
    let known = patiently("a contest's renewals", || store.renewals(id));
    for team in names {
        let now = match patiently("a team's program", || store.active_program(team)) {
            Some(program) => program,
            None if patiently("a team's programs", || store.submits(team)) => 0,
            None => continue,
        };
        let last = known
            .iter()
            .rev()
            .find(|(_, t, _)| t == team)
            .map(|(_, _, p)| *p);
        if last != Some(now) {
            patiently("a contest's renewal", || {
                store.add_renewal(id, seq, team, now)
            });
        }
    }
}

/// Takes into `pool` the renewals recorded up to game number `seq` that it
/// has not taken yet (those in `taken`); whether there were any. A rerun
/// takes each in at the same game number as the first run.
fn take_renewals(
    games: &Games<'_>,
    names: &[String],
    seq: i64,
    pool: &mut elo::Pool,
    taken: &mut std::collections::HashSet<(i64, String)>,
) -> bool {
    let all = patiently("a contest's renewals", || {
        games.app.store.renewals(games.contest.id)
    });
    let mut any = false;
    for (at, team, program) in all {
        if at > seq || taken.contains(&(at, team.clone())) {
            continue;
        }
        if let Some(i) = names.iter().position(|n| *n == team) {
            pool.renew(i, program > 0);
            any = true;
        }
        taken.insert((at, team));
    }
    any
}
