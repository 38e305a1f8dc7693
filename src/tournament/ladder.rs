//! The weekly ladder of the Linkage bot contest
//! (`../shared/seeds/linkage-bot-ladder.txt`), for either game: Othello's
//! tournaments use it through the arena ([`Ladder::round`]), Linkage's
//! runner through [`Ladder::pairings`] and [`Ladder::record_round`].
//!
//! The ladder starts in the order of the players file. Each round every
//! player plays 10 games against the one above it and 10 against the one
//! below (so each neighbouring pair plays 10), half moving first (black in
//! Othello, More in Linkage). The rating is 100 x wins / games over all
//! rounds so far (a draw is not a win), also split into games moving
//! first and second. After each round the ladder is re-ordered by rating;
//! equal ratings keep their order.

use super::Table;
use crate::arena::{paired_games, Arena, Openings};
use reversi_core::board::Color;

/// Games per neighbouring pair per round, as in the seed.
pub const GAMES_PER_PAIR: usize = 10;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Record {
    pub games: u32,
    pub wins: u32,
    /// Games moving first (black, More), and their wins.
    pub first_games: u32,
    pub first_wins: u32,
    /// Games moving second (white, Fewer), and their wins.
    pub second_games: u32,
    pub second_wins: u32,
}

/// 100 x wins / games, 0 with no games.
#[must_use]
pub fn rating(wins: u32, games: u32) -> f64 {
    if games == 0 {
        0.0
    } else {
        100.0 * f64::from(wins) / f64::from(games)
    }
}

impl Record {
    #[must_use]
    pub fn rating(&self) -> f64 {
        rating(self.wins, self.games)
    }
}

#[derive(Clone, Debug)]
pub struct Ladder {
    /// Entrant indices, top first.
    pub order: Vec<usize>,
    pub records: Vec<Record>,
    /// The order after each round.
    pub history: Vec<Vec<usize>>,
}

impl Ladder {
    #[must_use]
    pub fn new(entrants: usize) -> Ladder {
        Ladder {
            order: (0..entrants).collect(),
            records: vec![Record::default(); entrants],
            history: Vec::new(),
        }
    }

    /// Re-orders by rating, highest first; a stable sort keeps ties in
    /// place.
    pub fn reorder(&mut self) {
        let records = &self.records;
        self.order.sort_by(|&a, &b| {
            records[b]
                .rating()
                .partial_cmp(&records[a].rating())
                .expect("finite")
        });
        self.history.push(self.order.clone());
    }

    /// One round's games, as (moves first, moves second): every
    /// neighbouring pair plays `per_pair`, each side first in turn.
    #[must_use]
    pub fn pairings(&self, per_pair: usize) -> Vec<(usize, usize)> {
        let mut games = Vec::new();
        for pair in self.order.windows(2) {
            for k in 0..per_pair {
                games.push(if k % 2 == 0 {
                    (pair[0], pair[1])
                } else {
                    (pair[1], pair[0])
                });
            }
        }
        games
    }

    /// Records a round's games, (first, second) and the winner's index
    /// (`None`: a draw), then re-orders the ladder.
    pub fn record_round(&mut self, games: &[(usize, usize)], winners: &[Option<usize>]) {
        for (&(first, second), &winner) in games.iter().zip(winners) {
            for (entrant, moves_first) in [(first, true), (second, false)] {
                let won = u32::from(winner == Some(entrant));
                let r = &mut self.records[entrant];
                r.games += 1;
                r.wins += won;
                if moves_first {
                    r.first_games += 1;
                    r.first_wins += won;
                } else {
                    r.second_games += 1;
                    r.second_wins += won;
                }
            }
        }
        self.reorder();
    }

    /// One round of Othello through `arena`: every neighbouring pair plays
    /// `per_pair` games from the openings, half with each colour.
    pub fn round(&mut self, arena: &dyn Arena, openings: &mut Openings, per_pair: usize) {
        let mut specs = Vec::new();
        for pair in self.order.windows(2) {
            specs.extend(paired_games(pair[0], pair[1], per_pair, openings));
        }
        let outcomes = arena.play(&specs);
        let games: Vec<(usize, usize)> = specs.iter().map(|s| (s.black, s.white)).collect();
        let winners: Vec<Option<usize>> = specs
            .iter()
            .zip(&outcomes)
            .map(|(spec, outcome)| match outcome.winner() {
                Some(Color::Black) => Some(spec.black),
                Some(Color::White) => Some(spec.white),
                None => None,
            })
            .collect();
        self.record_round(&games, &winners);
    }

    /// The ladder's order with each rating, overall and by side; `sides`
    /// heads the two side columns (`["as-black", "as-white"]`,
    /// `["as-More", "as-Fewer"]`).
    #[must_use]
    pub fn standings_table(&self, names: &[String], sides: [&'static str; 2]) -> Table {
        let columns = ["rating", sides[0], sides[1], "games", "wins"];
        // A side never played has no rating: `-`, not a 0 that reads as
        // every game lost.
        let side = |wins, games| match games {
            0 => "-".to_string(),
            _ => format!("{:.1}", rating(wins, games)),
        };
        Table::ranked(&columns, &self.order, names, |e| {
            let r = &self.records[e];
            vec![
                format!("{:.1}", r.rating()),
                side(r.first_wins, r.first_games),
                side(r.second_wins, r.second_games),
                r.games.to_string(),
                r.wins.to_string(),
            ]
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::Outcome;
    use crate::tournament::tests::scripted;

    #[test]
    fn each_neighbour_pair_plays_ten_games_five_per_colour() {
        let arena = scripted(|_| Outcome::finished(40, 24));
        let mut ladder = Ladder::new(4);
        ladder.round(&arena, &mut Openings::default(), GAMES_PER_PAIR);
        let played = arena.played.borrow();
        assert_eq!(played.len(), 30);
        for (a, b) in [(0, 1), (1, 2), (2, 3)] {
            let as_black = played.iter().filter(|&&g| g == (a, b)).count();
            let as_white = played.iter().filter(|&&g| g == (b, a)).count();
            assert_eq!((as_black, as_white), (5, 5));
        }
        // Black always wins: everyone's rating is 50, split 100 / 0.
        for r in &ladder.records {
            assert_eq!(r.rating(), 50.0);
            assert_eq!(rating(r.first_wins, r.first_games), 100.0);
            assert_eq!(rating(r.second_wins, r.second_games), 0.0);
        }
        // Ties keep their order.
        assert_eq!(ladder.order, vec![0, 1, 2, 3]);
    }

    #[test]
    fn the_ladder_reorders_by_rating() {
        // The higher index always wins: the bottom player climbs.
        let arena = scripted(|g| {
            if g.black > g.white {
                Outcome::finished(40, 24)
            } else {
                Outcome::finished(24, 40)
            }
        });
        let mut ladder = Ladder::new(3);
        ladder.round(&arena, &mut Openings::default(), 10);
        // 2: 10/10 = 100; 1: 10 of 20 = 50; 0: 0.
        assert_eq!(ladder.order, vec![2, 1, 0]);
        assert_eq!(ladder.records[1].rating(), 50.0);
        ladder.round(&arena, &mut Openings::default(), 10);
        assert_eq!(ladder.history.len(), 2);
    }
}
