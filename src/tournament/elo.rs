//! The Elo pool of the VG101 judge (`../shared/seeds/vg101-reversi-judge.txt`,
//! section 3).
//!
//! - Everyone starts at 1500. A match is two games, each side black once
//!   (from the same opening). The match is won by the side that won more of
//!   its two games; equal is a draw.
//! - Ratings move after each match: a win raises, a loss lowers, by the Elo
//!   rule with K = 32 (more for beating a stronger player); a draw leaves
//!   both unchanged, as the seed says.
//! - Two players may meet when: their ratings differ by at most 100, unless
//!   one of them is new (has not played yet) and is the lower rated; both
//!   are effective (have made a legal move, or have not played yet); and
//!   neither leads the other by 2 or more game wins head to head, unless the
//!   leader is the lower rated.
//! - Priority: new players first, then longer win streaks (matches won in a
//!   row), then the order of the players file; a player's opponent is the
//!   feasible one first in the same priority, then closest in rating.
//! - A player's new version (the online judge's: its team submitted one)
//!   keeps the player's rating and counts as new until its first match:
//!   top priority, and it may meet a higher-rated player beyond the
//!   100-point rule. The head-to-head wins of the old version are not
//!   the new one's, so they no longer bar any pairing; its streak starts
//!   again.

use super::Table;
use crate::arena::{paired_games, Arena, Openings, Outcome};
use reversi_core::board::Color;

pub const START_RATING: f64 = 1500.0;
pub const K: f64 = 32.0;
pub const MAX_GAP: f64 = 100.0;

#[derive(Clone, Debug, PartialEq)]
pub struct Rated {
    pub rating: f64,
    pub games: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    pub matches: u32,
    /// Matches won in a row, up to now.
    pub streak: u32,
    /// Has made at least one legal move, or not played yet.
    pub effective: bool,
    /// Its version is new since its last match.
    pub renewed: bool,
}

impl Default for Rated {
    fn default() -> Self {
        Rated {
            rating: START_RATING,
            games: 0,
            wins: 0,
            draws: 0,
            losses: 0,
            matches: 0,
            streak: 0,
            effective: true,
            renewed: false,
        }
    }
}

impl Rated {
    #[must_use]
    pub fn is_new(&self) -> bool {
        self.matches == 0 || self.renewed
    }
}

/// The pool: ratings and the head-to-head game wins.
#[derive(Clone, Debug)]
pub struct Pool {
    pub players: Vec<Rated>,
    /// `head[a][b]`: games `a` won against `b`.
    pub head: Vec<Vec<u32>>,
}

/// The expected score of a player rated `a` against one rated `b`.
#[must_use]
pub fn expected(a: f64, b: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf((b - a) / 400.0))
}

/// New ratings after a match `a` won (`Some(true)`), lost (`Some(false)`) or
/// drew (`None`: no change).
#[must_use]
pub fn update(a: f64, b: f64, a_won: Option<bool>) -> (f64, f64) {
    match a_won {
        None => (a, b),
        Some(won) => {
            let s = if won { 1.0 } else { 0.0 };
            let delta = K * (s - expected(a, b));
            (a + delta, b - delta)
        }
    }
}

impl Pool {
    #[must_use]
    pub fn new(n: usize) -> Pool {
        Pool {
            players: vec![Rated::default(); n],
            head: vec![vec![0; n]; n],
        }
    }

    /// A new player joins the pool (a new version registered).
    pub fn admit(&mut self) {
        self.players.push(Rated::default());
        for row in &mut self.head {
            row.push(0);
        }
        self.head.push(vec![0; self.players.len()]);
    }

    /// Player `i` has a new version (`effective`: one that may play; not:
    /// its team has none left that may).
    pub fn renew(&mut self, i: usize, effective: bool) {
        let p = &mut self.players[i];
        p.effective = effective;
        if !effective {
            return;
        }
        p.renewed = true;
        p.streak = 0;
        for (j, row) in self.head.iter_mut().enumerate() {
            row[i] = 0;
            if j == i {
                row.fill(0);
            }
        }
    }

    /// Player `i` lost its last match's games without being offered them
    /// (its bot never came for them): that says nothing of whether it
    /// plays, so it stays in the pool.
    pub fn excuse(&mut self, i: usize) {
        self.players[i].effective = true;
    }

    /// May `a` and `b` be matched now?
    #[must_use]
    pub fn feasible(&self, a: usize, b: usize) -> bool {
        let (pa, pb) = (&self.players[a], &self.players[b]);
        if a == b || !pa.effective || !pb.effective {
            return false;
        }
        let gap_ok = (pa.rating - pb.rating).abs() <= MAX_GAP
            || (pa.is_new() && pa.rating < pb.rating)
            || (pb.is_new() && pb.rating < pa.rating);
        let (wa, wb) = (self.head[a][b], self.head[b][a]);
        let lead_ok = if wa >= wb + 2 {
            pa.rating < pb.rating
        } else if wb >= wa + 2 {
            pb.rating < pa.rating
        } else {
            true
        };
        gap_ok && lead_ok
    }

    /// Players in priority order: new first, then longer streaks, then file
    /// order.
    #[must_use]
    pub fn priority(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.players.len()).collect();
        order.sort_by_key(|&i| {
            (
                !self.players[i].is_new(),
                std::cmp::Reverse(self.players[i].streak),
                i,
            )
        });
        order
    }

    /// Up to `max` disjoint pairs to play next, in priority order.
    #[must_use]
    pub fn next_pairs(&self, max: usize) -> Vec<(usize, usize)> {
        let order = self.priority();
        let mut busy = vec![false; self.players.len()];
        let mut pairs = Vec::new();
        for &a in &order {
            if pairs.len() >= max {
                break;
            }
            if busy[a] {
                continue;
            }
            let rank = |i: usize| order.iter().position(|&x| x == i).expect("in order");
            let partner = order
                .iter()
                .copied()
                .filter(|&b| !busy[b] && self.feasible(a, b))
                .min_by(|&x, &y| {
                    let gap = |i: usize| (self.players[i].rating - self.players[a].rating).abs();
                    (rank(x), gap(x))
                        .partial_cmp(&(rank(y), gap(y)))
                        .expect("ratings are finite")
                });
            if let Some(b) = partner {
                busy[a] = true;
                busy[b] = true;
                pairs.push((a, b));
            }
        }
        pairs
    }

    /// Records a match of two games between `a` and `b`.
    pub fn record(&mut self, a: usize, b: usize, games: &[(usize, usize, Outcome)]) {
        let mut wins = [0u32; 2];
        let mut legal = [0u32; 2];
        let mut forfeited = [false; 2];
        for (black, _white, outcome) in games {
            let a_is_black = *black == a;
            let a_color = if a_is_black {
                Color::Black
            } else {
                Color::White
            };
            let (ia, ib) = if a_is_black { (0, 1) } else { (1, 0) };
            legal[0] += outcome.legal_replies[ia];
            legal[1] += outcome.legal_replies[ib];
            if let Some((loser, _)) = &outcome.forfeit {
                forfeited[usize::from(*loser != a_color)] = true;
            }
            if outcome.double_forfeit.is_some() {
                forfeited = [true, true];
            }
            for (p, q) in [(a, b), (b, a)] {
                self.players[p].games += 1;
                let color = if p == a { a_color } else { a_color.other() };
                match outcome.winner() {
                    None if outcome.double_forfeit.is_some() => self.players[p].losses += 1,
                    None => self.players[p].draws += 1,
                    Some(c) if c == color => {
                        self.players[p].wins += 1;
                        self.head[p][q] += 1;
                        wins[usize::from(p != a)] += 1;
                    }
                    Some(_) => self.players[p].losses += 1,
                }
            }
        }
        let a_won = match wins[0].cmp(&wins[1]) {
            std::cmp::Ordering::Greater => Some(true),
            std::cmp::Ordering::Less => Some(false),
            std::cmp::Ordering::Equal => None,
        };
        // A match of double forfeits says nothing of either's strength:
        // the ratings stay.
        if !games.iter().all(|(_, _, o)| o.double_forfeit.is_some()) {
            let (ra, rb) = update(self.players[a].rating, self.players[b].rating, a_won);
            self.players[a].rating = ra;
            self.players[b].rating = rb;
        }
        for (k, p) in [a, b].into_iter().enumerate() {
            let won = a_won == Some(k == 0);
            let r = &mut self.players[p];
            r.matches += 1;
            r.renewed = false;
            r.streak = if won { r.streak + 1 } else { 0 };
            // Not effective: it lost on a technicality without ever making
            // a legal move (a player whose opponent failed at once was
            // simply never asked).
            if legal[k] == 0 && forfeited[k] {
                r.effective = false;
            }
        }
    }

    /// Entrant indices by rating, highest first.
    #[must_use]
    pub fn table_order(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.players.len()).collect();
        order.sort_by(|&x, &y| {
            self.players[y]
                .rating
                .partial_cmp(&self.players[x].rating)
                .expect("finite")
                .then(x.cmp(&y))
        });
        order
    }
}

impl Pool {
    /// Rating, games, wins, draws, losses; highest rating first.
    #[must_use]
    pub fn standings_table(&self, names: &[String]) -> Table {
        let columns = ["rating", "games", "wins", "draws", "losses"];
        Table::ranked(&columns, &self.table_order(), names, |e| {
            let p = &self.players[e];
            vec![
                format!("{:.0}", p.rating),
                p.games.to_string(),
                p.wins.to_string(),
                p.draws.to_string(),
                p.losses.to_string(),
            ]
        })
    }
}

/// Plays matches until `games` games have been played (or no pair is
/// feasible any more), `jobs` matches at a time.
pub fn run(
    entrants: usize,
    arena: &dyn Arena,
    openings: &mut Openings,
    games: u32,
    jobs: usize,
) -> (Pool, Option<String>) {
    let mut pool = Pool::new(entrants);
    let mut played = 0u32;
    while played < games {
        let room = ((games - played).div_ceil(2)) as usize;
        let matches = play_round(&mut pool, arena, openings, jobs.max(1).min(room));
        if matches == 0 {
            return (
                pool,
                Some(format!(
                    "stopped after {played} games: no feasible pairing left"
                )),
            );
        }
        played += 2 * matches as u32;
    }
    (pool, None)
}

/// Plays up to `most` matches at once, the next pairs by the matching
/// rules, and records them; returns how many were played (0: no pair is
/// feasible).
pub fn play_round(
    pool: &mut Pool,
    arena: &dyn Arena,
    openings: &mut Openings,
    most: usize,
) -> usize {
    let pairs = pool.next_pairs(most);
    let mut specs = Vec::new();
    for &(a, b) in &pairs {
        specs.extend(paired_games(a, b, 2, openings));
    }
    if pairs.is_empty() {
        return 0;
    }
    let outcomes = arena.play(&specs);
    for (k, &(a, b)) in pairs.iter().enumerate() {
        let games: Vec<(usize, usize, Outcome)> = (0..2)
            .map(|g| {
                let spec = &specs[2 * k + g];
                (spec.black, spec.white, outcomes[2 * k + g].clone())
            })
            .collect();
        pool.record(a, b, &games);
    }
    pairs.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::tests::scripted;

    #[test]
    fn elo_arithmetic() {
        assert!((expected(1500.0, 1500.0) - 0.5).abs() < 1e-12);
        let (a, b) = update(1500.0, 1500.0, Some(true));
        assert!((a - 1516.0).abs() < 1e-9 && (b - 1484.0).abs() < 1e-9);
        // Beating a stronger player gains more than beating a weaker one.
        let (up, _) = update(1400.0, 1500.0, Some(true));
        let (down, _) = update(1500.0, 1400.0, Some(true));
        assert!(up - 1400.0 > down - 1500.0);
        assert!(((up - 1400.0) - 32.0 * (1.0 - expected(1400.0, 1500.0))).abs() < 1e-9);
        assert_eq!(update(1520.0, 1480.0, None), (1520.0, 1480.0));
    }

    /// Three players who have all played once, rated 1600, 1499, 1550.
    fn played_pool() -> Pool {
        let mut pool = Pool::new(3);
        for p in &mut pool.players {
            p.matches = 1;
        }
        pool.players[0].rating = 1600.0;
        pool.players[1].rating = 1499.0;
        pool.players[2].rating = 1550.0;
        pool
    }

    #[test]
    fn rule_ratings_at_most_100_apart() {
        let pool = played_pool();
        assert!(!pool.feasible(0, 1), "101 apart");
        assert!(pool.feasible(0, 2), "50 apart");
        assert!(pool.feasible(1, 2), "51 apart");
    }

    #[test]
    fn rule_a_new_player_rated_lower_may_meet_anyone() {
        let mut pool = played_pool();
        pool.players[1].matches = 0;
        assert!(pool.feasible(0, 1), "new and lower");
        // New but the higher rated: the gap rule holds.
        pool.players[1].matches = 1;
        pool.players[0].matches = 0;
        assert!(!pool.feasible(0, 1), "new but higher");
    }

    #[test]
    fn rule_a_leader_by_two_wins_meets_again_only_if_lower_rated() {
        let mut pool = played_pool();
        pool.head[0][2] = 3;
        pool.head[2][0] = 2;
        assert!(pool.feasible(0, 2), "a lead of one");
        pool.head[2][0] = 1;
        assert!(!pool.feasible(0, 2), "a lead of two, leader higher rated");
        pool.players[0].rating = 1540.0;
        assert!(pool.feasible(0, 2), "a lead of two, leader lower rated");
    }

    #[test]
    fn rule_a_player_that_never_moved_is_not_matched() {
        let mut pool = played_pool();
        pool.players[2].effective = false;
        assert!(!pool.feasible(0, 2) && !pool.feasible(1, 2));
        assert_eq!(pool.next_pairs(3), Vec::new());
    }

    #[test]
    fn rule_the_opponent_is_the_next_feasible_in_priority() {
        let mut pool = Pool::new(4);
        for (p, rating) in pool
            .players
            .iter_mut()
            .zip([1500.0, 1620.0, 1580.0, 1530.0])
        {
            p.matches = 1;
            p.rating = rating;
        }
        // No streaks: priority is file order. 1 is out of 0's reach; 2
        // comes before 3 in priority though 3 is the closer in rating.
        assert_eq!(pool.next_pairs(2), vec![(0, 2), (1, 3)]);
    }

    #[test]
    fn a_player_admitted_later_is_new_and_first() {
        let mut pool = played_pool();
        pool.head[0][2] = 1;
        pool.admit();
        assert_eq!(pool.players.len(), 4);
        assert!(pool.players[3].is_new());
        assert_eq!(pool.head.len(), 4);
        assert!(pool.head.iter().all(|row| row.len() == 4));
        assert_eq!(pool.head[0][2], 1, "what was there stays");
        assert_eq!(pool.priority()[0], 3);
    }

    #[test]
    fn priority_new_then_streak() {
        let mut pool = Pool::new(4);
        pool.players[0].matches = 3;
        pool.players[0].streak = 1;
        pool.players[1].matches = 3;
        pool.players[1].streak = 4;
        pool.players[2].matches = 3;
        assert_eq!(pool.priority(), vec![3, 1, 0, 2]);
        // The new player picks first, and picks the next in priority.
        assert_eq!(pool.next_pairs(1), vec![(3, 1)]);
        assert_eq!(pool.next_pairs(2), vec![(3, 1), (0, 2)]);
    }

    #[test]
    fn a_new_version_keeps_its_rating_goes_first_and_may_reach_up() {
        let mut pool = Pool::new(3);
        for p in &mut pool.players {
            p.matches = 5;
        }
        pool.players[0].rating = 1700.0;
        pool.players[1].rating = 1450.0;
        pool.players[1].streak = 0;
        pool.players[2].rating = 1500.0;
        pool.players[2].streak = 3;
        // 0 leads 2 by three games: 2, though lower rated, may meet it;
        // 1 is 250 below 0: out of reach, until it renews.
        pool.head[0][1] = 3;
        assert!(!pool.feasible(0, 1));
        assert_eq!(pool.priority()[0], 2);
        pool.renew(1, true);
        assert_eq!(pool.players[1].rating, 1450.0, "the rating is kept");
        assert_eq!(pool.priority()[0], 1, "the new version goes first");
        assert!(
            pool.feasible(0, 1),
            "it may reach up, and the old lead is gone"
        );
        assert_eq!(pool.head[0][1], 0);
        assert_eq!(pool.next_pairs(1), vec![(1, 2)]);
        // After a match it is one player among others again.
        pool.record(1, 2, &[]);
        assert!(!pool.players[1].renewed);
        assert!(!pool.feasible(0, 1));
        // A team left with no version that may play is matched with no one.
        pool.renew(2, false);
        assert!(!pool.feasible(1, 2));
    }

    #[test]
    fn a_run_plays_matches_of_two_games_each_side_black_once() {
        // Black always wins: every match is 1-1, a draw, so no rating moves
        // and no one leads anyone: all 12 games are played.
        let arena = scripted(|_| Outcome::finished(40, 24));
        let (pool, stopped) = run(3, &arena, &mut Openings::default(), 12, 1);
        assert!(stopped.is_none());
        let played = arena.played.borrow();
        assert_eq!(played.len(), 12);
        for pair in played.chunks(2) {
            assert_eq!(pair[0], (pair[1].1, pair[1].0), "each side black once");
        }
        assert!(pool
            .players
            .iter()
            .all(|p| p.rating == START_RATING && p.draws == 0));
        assert_eq!(pool.players.iter().map(|p| p.games).sum::<u32>(), 24);
    }

    #[test]
    fn the_win_difference_rule_ends_a_run_of_one_sided_pairs() {
        // The lower index always wins 2-0: after each pair has met once, the
        // higher-rated side leads by 2 everywhere and no pair is feasible.
        let arena = scripted(|g| {
            if g.black < g.white {
                Outcome::finished(40, 24)
            } else {
                Outcome::finished(24, 40)
            }
        });
        let (pool, stopped) = run(3, &arena, &mut Openings::default(), 20, 1);
        assert_eq!(
            stopped.as_deref(),
            Some("stopped after 6 games: no feasible pairing left")
        );
        assert_eq!(pool.table_order(), vec![0, 1, 2]);
        assert!(pool.players[0].rating > START_RATING && pool.players[2].rating < START_RATING);
        assert_eq!(pool.head[0][1], 2);
    }

    #[test]
    fn a_player_that_never_moves_is_dropped() {
        let arena = scripted(|g| Outcome {
            black_discs: 0,
            white_discs: 0,
            forfeit: Some((
                if g.black == 2 {
                    Color::Black
                } else {
                    Color::White
                },
                "crash".into(),
            )),
            double_forfeit: None,
            before_first_move: true,
            legal_replies: [0, 0],
            number: None,
        });
        let mut pool = Pool::new(3);
        let specs = paired_games(0, 2, 2, &mut Openings::default());
        let outcomes = arena.play(&specs);
        let games: Vec<_> = specs
            .iter()
            .zip(outcomes)
            .map(|(s, o)| (s.black, s.white, o))
            .collect();
        pool.record(0, 2, &games);
        assert!(!pool.players[2].effective);
        assert!(
            pool.players[0].effective,
            "never asked to move is not a fault"
        );
        assert!(pool.next_pairs(3).iter().all(|&(a, b)| a != 2 && b != 2));
    }
}
