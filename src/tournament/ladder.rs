//! The weekly ladder of the Linkage bot contest
//! (`../shared/seeds/linkage-bot-ladder.txt`), for Othello.
//!
//! The ladder starts in the order of the players file. Each round every
//! player plays 10 games against the one above it and 10 against the one
//! below (so each neighbouring pair plays 10), half with each colour. The
//! rating is 100 x wins / games over all rounds so far (a draw is not a
//! win), also split into games as black and as white. After each round the
//! ladder is re-ordered by rating; equal ratings keep their order.

use super::Table;
use crate::arena::{paired_games, Arena, Openings};
use crate::board::Color;

/// Games per neighbouring pair per round, as in the seed.
pub const GAMES_PER_PAIR: usize = 10;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Record {
    pub games: u32,
    pub wins: u32,
    pub black_games: u32,
    pub black_wins: u32,
    pub white_games: u32,
    pub white_wins: u32,
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

    /// One round: every neighbouring pair plays `per_pair` games.
    pub fn round(&mut self, arena: &dyn Arena, openings: &mut Openings, per_pair: usize) {
        let mut specs = Vec::new();
        for pair in self.order.windows(2) {
            specs.extend(paired_games(pair[0], pair[1], per_pair, openings));
        }
        let outcomes = arena.play(&specs);
        for (spec, outcome) in specs.iter().zip(&outcomes) {
            for (entrant, color) in [(spec.black, Color::Black), (spec.white, Color::White)] {
                let won = outcome.winner() == Some(color);
                let r = &mut self.records[entrant];
                r.games += 1;
                r.wins += u32::from(won);
                match color {
                    Color::Black => {
                        r.black_games += 1;
                        r.black_wins += u32::from(won);
                    }
                    Color::White => {
                        r.white_games += 1;
                        r.white_wins += u32::from(won);
                    }
                }
            }
        }
        self.reorder();
    }
}

impl Ladder {
    /// The ladder's order with each rating, overall and by colour.
    #[must_use]
    pub fn standings_table(&self, names: &[String]) -> Table {
        let columns = ["rating", "as-black", "as-white", "games", "wins"];
        Table::ranked(&columns, &self.order, names, |e| {
            let r = &self.records[e];
            vec![
                format!("{:.1}", r.rating()),
                format!("{:.1}", rating(r.black_wins, r.black_games)),
                format!("{:.1}", rating(r.white_wins, r.white_games)),
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
            assert_eq!(rating(r.black_wins, r.black_games), 100.0);
            assert_eq!(rating(r.white_wins, r.white_games), 0.0);
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
