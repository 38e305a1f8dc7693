//! The knockout of the PUG Challenge (`../shared/seeds/pug-challenge-othello.txt`).
//!
//! - Players get numbers 1..n at random (from the seed). Each round pairs
//!   them in number order (1-2, 3-4, ...) after the lowest number takes the
//!   bye when the count is odd. A bye scores nothing and plays nothing.
//! - Dark (black, who moves first) goes to the higher number in round one;
//!   later, to the higher points score, ties to the higher number.
//! - One game per pairing. Points are cumulative: +3 win, +1 more for a
//!   whitewash (the loser has no disc left), +1 each for a draw, 0 for a
//!   loss or a technical loss, -1 for a restart.
//! - A restart: the game is played again because a player failed before its
//!   first move (no `OK` to `DONE`, a crash or silence at its first request).
//!   That player loses a point; a second failure is a technical loss.
//! - The game's winner has more discs; on equal discs, the higher points
//!   score (this game's points included); then the table's tie-breakers
//!   (disc differential, then discs for); then "something similarly inane"
//!   (the seed): a coin toss.
//! - The points table: points, then disc differential, then discs for.

use super::Table;
use crate::arena::{Arena, GameSpec, Openings, Outcome};
use reversi_core::board::Color;

/// One entrant's running totals.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Standing {
    pub number: u32,
    pub points: i32,
    pub games: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    pub discs_for: i64,
    pub discs_against: i64,
    pub restarts: u32,
    /// The round it was knocked out in; `None` for the winner.
    pub out_in_round: Option<usize>,
}

impl Standing {
    #[must_use]
    pub fn differential(&self) -> i64 {
        self.discs_for - self.discs_against
    }
}

/// One pairing of a round.
#[derive(Clone, Debug)]
pub struct Pairing {
    /// Entrant with dark; for a bye, the entrant that goes through.
    pub dark: usize,
    /// `None` for a bye.
    pub light: Option<usize>,
    /// The game as finally played (after any restart).
    pub outcome: Option<Outcome>,
    pub winner: usize,
    /// Entrants that caused a restart.
    pub restarted_by: Vec<usize>,
    pub opening: String,
}

#[derive(Clone, Debug)]
pub struct Knockout {
    pub standings: Vec<Standing>,
    pub rounds: Vec<Vec<Pairing>>,
    pub winner: usize,
}

impl Knockout {
    /// Entrant indices in table order: points, differential, discs for.
    #[must_use]
    pub fn table_order(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.standings.len()).collect();
        order.sort_by(|&a, &b| {
            let (x, y) = (&self.standings[a], &self.standings[b]);
            (y.points, y.differential(), y.discs_for, x.number).cmp(&(
                x.points,
                x.differential(),
                x.discs_for,
                y.number,
            ))
        });
        order
    }

    /// The top points scorer (first in points order).
    #[must_use]
    pub fn top_scorer(&self) -> usize {
        self.table_order()[0]
    }

    /// Entrant indices in finishing order: the winner, then by the round
    /// each went out in, the later first; within a round, points order.
    /// The table's rank is this place, which the bracket decided.
    #[must_use]
    pub fn finishing_order(&self) -> Vec<usize> {
        let mut order = self.table_order();
        // Stable: points order stays within a round.
        order.sort_by_key(|&e| {
            std::cmp::Reverse(self.standings[e].out_in_round.unwrap_or(usize::MAX))
        });
        order
    }
}

impl Knockout {
    /// Each round's games, the winner and the top points scorer, as text.
    #[must_use]
    pub fn report(&self, names: &[String]) -> String {
        use std::fmt::Write as _;
        let mut out = String::new();
        let tag = |e: usize| format!("#{} {}", self.standings[e].number, names[e]);
        for (r, pairings) in self.rounds.iter().enumerate() {
            let _ = writeln!(out, "round {}:", r + 1);
            for p in pairings {
                match (p.light, &p.outcome) {
                    (None, _) => {
                        let _ = writeln!(out, "  {} has the bye", tag(p.dark));
                    }
                    (Some(l), Some(o)) => {
                        let how = match (&o.forfeit, &o.double_forfeit) {
                            (Some((loser, why)), _) => {
                                format!("{} forfeits ({why})", loser.name())
                            }
                            (None, Some([black, white])) => {
                                format!("both forfeit (dark: {black}; light: {white})")
                            }
                            (None, None) => format!("{}-{}", o.black_discs, o.white_discs),
                        };
                        let restart = if p.restarted_by.is_empty() {
                            String::new()
                        } else {
                            let who: Vec<&str> =
                                p.restarted_by.iter().map(|&e| names[e].as_str()).collect();
                            format!(" (restarted for {})", who.join(", "))
                        };
                        let _ = writeln!(
                            out,
                            "  {} (dark) v {} (light): {how}, {} goes through{restart}",
                            tag(p.dark),
                            tag(l),
                            names[p.winner]
                        );
                    }
                    (Some(_), None) => {}
                }
            }
        }
        let _ = writeln!(out, "winner: {}", names[self.winner]);
        let top = self.top_scorer();
        let _ = writeln!(
            out,
            "top points scorer: {} ({} points)",
            names[top], self.standings[top].points
        );
        out
    }

    /// The standings in finishing order, with each player's points,
    /// differential and discs for (which order players out in the same
    /// round, and decide the top points scorer).
    #[must_use]
    pub fn standings_table(&self, names: &[String]) -> Table {
        let columns = [
            "number", "points", "games", "wins", "draws", "losses", "diff", "for", "restarts",
            "result",
        ];
        Table::ranked(&columns, &self.finishing_order(), names, |e| {
            let s = &self.standings[e];
            vec![
                s.number.to_string(),
                s.points.to_string(),
                s.games.to_string(),
                s.wins.to_string(),
                s.draws.to_string(),
                s.losses.to_string(),
                s.differential().to_string(),
                s.discs_for.to_string(),
                s.restarts.to_string(),
                s.out_in_round
                    .map_or("winner".to_string(), |r| format!("out in round {r}")),
            ]
        })
    }
}

/// The standings of a knockout still under way, as the final table would
/// show them, with `in` for those not yet knocked out.
#[must_use]
pub fn standings_so_far(standings: &[Standing], names: &[String]) -> Table {
    let so_far = Knockout {
        standings: standings.to_vec(),
        rounds: Vec::new(),
        winner: 0,
    };
    let mut table = so_far.standings_table(names);
    for (row, &e) in table.rows.iter_mut().zip(&so_far.finishing_order()) {
        if standings[e].out_in_round.is_none() {
            *row.last_mut().expect("a result column") = "in".into();
        }
    }
    table
}

/// Who gets dark: round one the higher number, then the higher points
/// score, ties to the higher number.
#[must_use]
pub fn dark_of(round: usize, a: usize, b: usize, standings: &[Standing]) -> usize {
    let (sa, sb) = (&standings[a], &standings[b]);
    let a_first = if round == 1 {
        sa.number > sb.number
    } else {
        (sa.points, sa.number) > (sb.points, sb.number)
    };
    if a_first {
        a
    } else {
        b
    }
}

/// Points a game gives each side: (dark, light). A double forfeit is a
/// technical loss for both: 0 each.
#[must_use]
pub fn game_points(outcome: &Outcome) -> (i32, i32) {
    if outcome.double_forfeit.is_some() {
        return (0, 0);
    }
    let whitewash = |loser_discs: u32| {
        if outcome.forfeit.is_none() && loser_discs == 0 {
            1
        } else {
            0
        }
    };
    match outcome.winner() {
        None => (1, 1),
        Some(Color::Black) => (3 + whitewash(outcome.white_discs), 0),
        Some(Color::White) => (0, 3 + whitewash(outcome.black_discs)),
    }
}

/// Plays the whole knockout.
pub fn run(entrants: usize, arena: &dyn Arena, openings: &mut Openings, seed: u64) -> Knockout {
    run_observed(entrants, arena, openings, seed, &mut |_| {})
}

/// Plays the whole knockout, showing `after_round` the standings after
/// each round (those still in have no `out_in_round`).
pub fn run_observed(
    entrants: usize,
    arena: &dyn Arena,
    openings: &mut Openings,
    seed: u64,
    after_round: &mut dyn FnMut(&[Standing]),
) -> Knockout {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut numbering: Vec<usize> = (0..entrants).collect();
    rng.shuffle(&mut numbering);
    let mut standings = vec![Standing::default(); entrants];
    for (position, &entrant) in numbering.iter().enumerate() {
        standings[entrant].number = position as u32 + 1;
    }
    let mut alive: Vec<usize> = (0..entrants).collect();
    let mut rounds = Vec::new();
    let mut round = 1;
    while alive.len() > 1 {
        alive.sort_by_key(|&e| standings[e].number);
        let bye = if alive.len() % 2 == 1 {
            Some(alive.remove(0))
        } else {
            None
        };
        let mut pairings: Vec<Pairing> = alive
            .chunks(2)
            .map(|pair| {
                let dark = dark_of(round, pair[0], pair[1], &standings);
                let light = if dark == pair[0] { pair[1] } else { pair[0] };
                Pairing {
                    dark,
                    light: Some(light),
                    outcome: None,
                    winner: dark,
                    restarted_by: Vec::new(),
                    opening: String::new(),
                }
            })
            .collect();
        let mut specs: Vec<GameSpec> = pairings
            .iter_mut()
            .map(|p| {
                let opening = openings.take();
                p.opening = opening.moves.clone();
                GameSpec {
                    black: p.dark,
                    white: p.light.expect("a pairing"),
                    opening,
                }
            })
            .collect();
        let mut outcomes = arena.play(&specs);
        // A failure before the first move restarts the game, once.
        let restart: Vec<usize> = (0..outcomes.len())
            .filter(|&i| {
                (outcomes[i].forfeit.is_some() || outcomes[i].double_forfeit.is_some())
                    && outcomes[i].before_first_move
            })
            .collect();
        if !restart.is_empty() {
            let again: Vec<GameSpec> = restart.iter().map(|&i| specs[i].clone()).collect();
            for &i in &restart {
                let culprits = match &outcomes[i].forfeit {
                    Some((Color::Black, _)) => vec![specs[i].black],
                    Some((Color::White, _)) => vec![specs[i].white],
                    None => vec![specs[i].black, specs[i].white],
                };
                for culprit in culprits {
                    pairings[i].restarted_by.push(culprit);
                    standings[culprit].points -= 1;
                    standings[culprit].restarts += 1;
                }
            }
            for (k, outcome) in arena.play(&again).into_iter().enumerate() {
                outcomes[restart[k]] = outcome;
            }
        }
        for (i, outcome) in outcomes.into_iter().enumerate() {
            let spec = specs.remove(0);
            let (dark, light) = (spec.black, spec.white);
            let (pd, pl) = game_points(&outcome);
            // A double forfeit counts as a 0-64 loss for each side.
            let both_lost = outcome.double_forfeit.is_some();
            let against = |discs: u32| if both_lost { 64 } else { discs };
            for (e, p, own, other) in [
                (dark, pd, outcome.black_discs, against(outcome.white_discs)),
                (light, pl, outcome.white_discs, against(outcome.black_discs)),
            ] {
                let s = &mut standings[e];
                s.points += p;
                s.games += 1;
                s.discs_for += i64::from(own);
                s.discs_against += i64::from(other);
            }
            let winner = match outcome.winner() {
                Some(Color::Black) => dark,
                Some(Color::White) => light,
                None => {
                    let key = |e: usize| {
                        let s = &standings[e];
                        (s.points, s.differential(), s.discs_for)
                    };
                    match key(dark).cmp(&key(light)) {
                        std::cmp::Ordering::Greater => dark,
                        std::cmp::Ordering::Less => light,
                        std::cmp::Ordering::Equal => {
                            if rng.bool() {
                                dark
                            } else {
                                light
                            }
                        }
                    }
                }
            };
            let loser = if winner == dark { light } else { dark };
            match outcome.winner() {
                None if both_lost => {
                    standings[dark].losses += 1;
                    standings[light].losses += 1;
                }
                None => {
                    standings[dark].draws += 1;
                    standings[light].draws += 1;
                }
                Some(_) => {
                    standings[winner].wins += 1;
                    standings[loser].losses += 1;
                }
            }
            standings[loser].out_in_round = Some(round);
            pairings[i].winner = winner;
            pairings[i].outcome = Some(outcome);
        }
        let mut next: Vec<usize> = pairings.iter().map(|p| p.winner).collect();
        if let Some(b) = bye {
            pairings.insert(
                0,
                Pairing {
                    dark: b,
                    light: None,
                    outcome: None,
                    winner: b,
                    restarted_by: Vec::new(),
                    opening: String::new(),
                },
            );
            next.push(b);
        }
        rounds.push(pairings);
        alive = next;
        round += 1;
        after_round(&standings);
    }
    Knockout {
        standings,
        rounds,
        winner: alive[0],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::tests::scripted;

    fn numbers(k: &Knockout) -> Vec<u32> {
        k.standings.iter().map(|s| s.number).collect()
    }

    #[test]
    fn odd_count_gives_the_bye_to_the_lowest_number_and_dark_to_the_higher() {
        // Black always wins 40-24.
        let arena = scripted(|_| Outcome::finished(40, 24));
        let k = run(5, &arena, &mut Openings::default(), 3);
        let n = numbers(&k);
        let first = &k.rounds[0];
        // The bye is listed first and belongs to number 1.
        assert!(first[0].light.is_none());
        assert_eq!(n[first[0].dark], 1);
        // Pairs 2-3 and 4-5, dark to the higher number.
        let pairs: Vec<(u32, u32)> = first[1..]
            .iter()
            .map(|p| (n[p.dark], n[p.light.unwrap()]))
            .collect();
        assert_eq!(pairs, [(3, 2), (5, 4)]);
        // Round 2 has three players (3, 5 and the bye 1): 1 gets the bye
        // again; 3 and 5 both have 3 points, so dark goes to the higher
        // number, 5.
        let second = &k.rounds[1];
        assert_eq!(n[second[0].dark], 1);
        assert_eq!((n[second[1].dark], n[second[1].light.unwrap()]), (5, 3));
        assert_eq!(k.standings[k.winner].out_in_round, None);
    }

    #[test]
    fn dark_goes_to_the_higher_points_score_after_round_one() {
        let mut s = vec![Standing::default(); 2];
        s[0].number = 1;
        s[1].number = 2;
        assert_eq!(dark_of(1, 0, 1, &s), 1);
        s[0].points = 4;
        s[1].points = 3;
        assert_eq!(dark_of(2, 0, 1, &s), 0);
        s[1].points = 4;
        assert_eq!(dark_of(2, 0, 1, &s), 1);
    }

    #[test]
    fn points_for_win_whitewash_draw_and_technical_loss() {
        assert_eq!(game_points(&Outcome::finished(40, 24)), (3, 0));
        assert_eq!(game_points(&Outcome::finished(0, 20)), (0, 4));
        assert_eq!(game_points(&Outcome::finished(32, 32)), (1, 1));
        let forfeit = Outcome {
            black_discs: 0,
            white_discs: 0,
            forfeit: Some((Color::White, "illegal".into())),
            double_forfeit: None,
            before_first_move: false,
            legal_replies: [10, 9],
            number: None,
        };
        // A technical win is a win, never a whitewash.
        assert_eq!(game_points(&forfeit), (3, 0));
    }

    #[test]
    fn a_drawn_game_goes_to_the_higher_points_score() {
        use std::cell::Cell;
        // Round 1 (the first two games): entrant 0 whitewashes its opponent,
        // the other game is drawn (1 point each; equal on everything, so the
        // coin decides). The final is drawn too: entrant 0, with 4 + 1
        // points against 1 + 1, must win it.
        let calls = Cell::new(0);
        let arena = scripted(|g: &GameSpec| {
            calls.set(calls.get() + 1);
            match (calls.get() <= 2, g.black, g.white) {
                (true, 0, _) => Outcome::finished(64, 0),
                (true, _, 0) => Outcome::finished(0, 64),
                _ => Outcome::finished(32, 32),
            }
        });
        let k = run(4, &arena, &mut Openings::default(), 11);
        let last = &k.rounds.last().unwrap()[0];
        assert!(last.dark == 0 || last.light == Some(0));
        assert_eq!(k.winner, 0);
        assert_eq!(k.standings[0].points, 5);
        assert_eq!(k.top_scorer(), 0);
    }

    #[test]
    fn a_failure_before_the_first_move_restarts_once_and_costs_a_point() {
        use std::cell::Cell;
        let calls = Cell::new(0);
        // The first game played fails at once for white; the replay is a
        // normal white win.
        let arena = scripted(|_| {
            calls.set(calls.get() + 1);
            if calls.get() == 1 {
                Outcome {
                    black_discs: 0,
                    white_discs: 0,
                    forfeit: Some((Color::White, "no OK".into())),
                    double_forfeit: None,
                    before_first_move: true,
                    legal_replies: [0, 0],
                    number: None,
                }
            } else {
                Outcome::finished(20, 44)
            }
        });
        let k = run(2, &arena, &mut Openings::default(), 1);
        let p = &k.rounds[0][0];
        let light = p.light.unwrap();
        assert_eq!(p.restarted_by, vec![light]);
        assert_eq!(k.winner, light);
        assert_eq!(k.standings[light].points, 3 - 1);
        assert_eq!(k.standings[light].restarts, 1);
    }

    #[test]
    fn table_breaks_ties_by_differential_then_discs_for() {
        let mut s = vec![Standing::default(); 3];
        for (i, x) in s.iter_mut().enumerate() {
            x.number = i as u32 + 1;
            x.points = 3;
        }
        s[0].discs_for = 40;
        s[0].discs_against = 24; // +16
        s[1].discs_for = 50;
        s[1].discs_against = 34; // +16, more for
        s[2].discs_for = 60;
        s[2].discs_against = 50; // +10
        let k = Knockout {
            standings: s,
            rounds: Vec::new(),
            winner: 0,
        };
        assert_eq!(k.table_order(), vec![1, 0, 2]);
    }

    #[test]
    fn the_table_ranks_by_the_round_reached_then_points() {
        let mut s = vec![Standing::default(); 4];
        for (i, x) in s.iter_mut().enumerate() {
            x.number = i as u32 + 1;
        }
        // 0 won; 3 lost the final with few points; 1 and 2 went out in
        // round 1, 2 with more points than the finalist.
        (s[0].points, s[0].out_in_round) = (6, None);
        (s[3].points, s[3].out_in_round) = (1, Some(2));
        (s[1].points, s[1].out_in_round) = (1, Some(1));
        (s[2].points, s[2].out_in_round) = (2, Some(1));
        let k = Knockout {
            standings: s,
            rounds: Vec::new(),
            winner: 0,
        };
        assert_eq!(k.finishing_order(), vec![0, 3, 2, 1]);
        assert_eq!(k.table_order(), vec![0, 2, 1, 3]);
        assert_eq!(k.top_scorer(), 0);
    }
}
