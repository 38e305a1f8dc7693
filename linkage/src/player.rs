//! Linkage players: the bot (Monte Carlo tree search), and a random and a
//! greedy one for the runner and the tests.
//!
//! Why tree search with random games to the end rather than alpha-beta:
//! the game's value is one bit (12 groups or not) decided at the very end,
//! with up to 320 moves a turn, so a static evaluation of the group count
//! mid-game says little, while a random game to the end takes a
//! microsecond. The tree spends the playouts on the moves that keep
//! winning them (UCT).

use super::rules::{Colour, Move, Placement, Position, Side};
use std::time::{Duration, Instant};

pub trait Player {
    /// The move for the side to move in `position`, which has one.
    fn choose(&mut self, position: &Position, placements: &[Placement]) -> Move;
}

/// The two simple players, seeded: a uniformly random legal move, or the
/// move that does its side the most good at once (for More the most
/// groups after it, for Fewer the fewest), ties at random. Random is
/// greedy with every move worth the same.
pub struct SimplePlayer {
    rng: fastrand::Rng,
    greedy: bool,
}

impl SimplePlayer {
    /// The greedy player if `greedy`, else the random one.
    #[must_use]
    pub fn new(seed: u64, greedy: bool) -> SimplePlayer {
        SimplePlayer {
            rng: fastrand::Rng::with_seed(seed),
            greedy,
        }
    }
}

impl Player for SimplePlayer {
    fn choose(&mut self, position: &Position, placements: &[Placement]) -> Move {
        let moves = position.moves(placements);
        let value = |mv: &Move| {
            if !self.greedy {
                return 0;
            }
            let groups = i64::from(position.play(*mv).groups());
            match position.to_move {
                Side::More => groups,
                Side::Fewer => -groups,
            }
        };
        let best = moves.iter().map(value).max().unwrap_or(0);
        let ties: Vec<Move> = moves.into_iter().filter(|m| value(m) == best).collect();
        ties[self.rng.usize(..ties.len())]
    }
}

/// How long the bot thinks: the contest allows 5 s a turn, from the
/// runner starting the program to its exit. The margin covers starting
/// the process and reading and writing the two files (milliseconds), and
/// a busy machine's scheduler, which can hold a process back for much
/// longer; 1 s of it is ample.
pub const THINK_TIME: Duration = Duration::from_millis(4000);

/// The tree's exploration constant (UCT's `c`): the usual √2.
const EXPLORATION: f64 = std::f64::consts::SQRT_2;

/// Playouts between looks at the clock.
const CLOCK_EVERY: u32 = 256;

/// The search stops early once its best move has won this share of at
/// least [`SURE_AFTER`] playouts, or every move has lost as many: the
/// rest of the time would not change the move.
const SURE: f64 = 0.99;
const SURE_AFTER: u32 = 20_000;

/// A node of the tree: the position after `mv`.
struct Node {
    position: Position,
    mv: Move,
    parent: Option<usize>,
    children: Vec<usize>,
    untried: Vec<Move>,
    visits: u32,
    /// Playouts won by the side that played `mv`.
    wins: f64,
}

/// The bot: Monte Carlo tree search (UCT) under a time limit, or for a
/// fixed number of playouts (reproducible for a given seed).
pub struct MctsPlayer {
    rng: fastrand::Rng,
    pub think: Duration,
    /// A fixed number of playouts instead of the clock.
    pub playouts: Option<u32>,
    /// What the last search did, for the log: playouts, and the chosen
    /// move's share of wins.
    pub last: (u32, f64),
}

impl MctsPlayer {
    #[must_use]
    pub fn new(seed: u64, think: Duration) -> MctsPlayer {
        MctsPlayer {
            rng: fastrand::Rng::with_seed(seed),
            think,
            playouts: None,
            last: (0, 0.0),
        }
    }

    fn new_node(
        position: Position,
        mv: Move,
        parent: Option<usize>,
        placements: &[Placement],
    ) -> Node {
        Node {
            position,
            mv,
            parent,
            children: Vec::new(),
            untried: position.moves(placements),
            visits: 0,
            wins: 0.0,
        }
    }

    /// A random game from `position` to its end; who won.
    fn playout(&mut self, mut position: Position, placements: &[Placement]) -> Side {
        let mut open: Vec<Placement> = position.fitting(placements);
        loop {
            let taken = position.taken();
            open.retain(|p| p.0 & taken == 0);
            let in_stock: Vec<Colour> = Colour::ALL
                .into_iter()
                .filter(|&c| position.stock[c as usize] > 0)
                .collect();
            if open.is_empty() || in_stock.is_empty() {
                return position.winner();
            }
            let allowed: Vec<Placement> = open
                .iter()
                .copied()
                .filter(|p| p.0 & position.forbidden == 0)
                .collect();
            let mv = if allowed.is_empty() {
                Move::Skip
            } else {
                let p = allowed[self.rng.usize(..allowed.len())];
                Move::Place(in_stock[self.rng.usize(..in_stock.len())], p)
            };
            position = position.play(mv);
        }
    }

    /// The child of `node` with the best upper confidence bound.
    fn select(nodes: &[Node], node: usize) -> usize {
        let log_n = f64::from(nodes[node].visits.max(1)).ln();
        let bound = |&c: &usize| {
            let child = &nodes[c];
            let n = f64::from(child.visits.max(1));
            child.wins / n + EXPLORATION * (log_n / n).sqrt()
        };
        *nodes[node]
            .children
            .iter()
            .max_by(|a, b| bound(a).total_cmp(&bound(b)))
            .expect("a node with no untried move has children")
    }
}

impl Player for MctsPlayer {
    fn choose(&mut self, position: &Position, placements: &[Placement]) -> Move {
        let started = Instant::now();
        let moves = position.moves(placements);
        if moves.len() == 1 {
            self.last = (0, 0.0);
            return moves[0];
        }
        let mut nodes = vec![MctsPlayer::new_node(
            *position,
            Move::Skip,
            None,
            placements,
        )];
        let mut playouts = 0u32;
        loop {
            // Selection: down the tree while every move has been tried.
            let mut node = 0;
            while nodes[node].untried.is_empty() && !nodes[node].children.is_empty() {
                node = MctsPlayer::select(&nodes, node);
            }
            // Expansion: one untried move.
            if !nodes[node].untried.is_empty() {
                let k = self.rng.usize(..nodes[node].untried.len());
                let mv = nodes[node].untried.swap_remove(k);
                let child = nodes[node].position.play(mv);
                nodes.push(MctsPlayer::new_node(child, mv, Some(node), placements));
                let id = nodes.len() - 1;
                nodes[node].children.push(id);
                node = id;
            }
            // Simulation, then the result back up the path.
            let winner = self.playout(nodes[node].position, placements);
            let mut at = Some(node);
            while let Some(n) = at {
                nodes[n].visits += 1;
                if let Some(parent) = nodes[n].parent {
                    if nodes[parent].position.to_move == winner {
                        nodes[n].wins += 1.0;
                    }
                }
                at = nodes[n].parent;
            }
            playouts += 1;
            if let Some(limit) = self.playouts {
                if playouts >= limit {
                    break;
                }
            } else if playouts.is_multiple_of(CLOCK_EVERY) {
                if started.elapsed() >= self.think {
                    break;
                }
                if playouts >= SURE_AFTER {
                    let root = &nodes[0];
                    let share = |c: &usize| nodes[*c].wins / f64::from(nodes[*c].visits.max(1));
                    let best = root.children.iter().map(share).fold(0.0, f64::max);
                    if best >= SURE || best <= 1.0 - SURE {
                        break;
                    }
                }
            }
        }
        // The most tried move: the one the search trusts most.
        let best = *nodes[0]
            .children
            .iter()
            .max_by_key(|&&c| nodes[c].visits)
            .expect("the root has children");
        self.last = (
            playouts,
            nodes[best].wins / f64::from(nodes[best].visits.max(1)),
        );
        nodes[best].mv
    }
}

/// The other search the issue asked to measure against the tree search:
/// alpha-beta (negamax) to increasing depths under the same time limit,
/// scoring a position by its group count. Kept as a built-in player of
/// the runner (`alphabeta`) so the comparison can be replayed; the tree
/// search won it (BENCHMARKS.md, "Linkage").
pub struct AlphaBetaPlayer {
    pub think: Duration,
    rng: fastrand::Rng,
}

/// A finished game's score, beyond any estimate.
const WON: f64 = 1000.0;

/// Each domino still to come is worth this many groups to More in the
/// estimate: a domino placed at random starts a group of its own more
/// often than not.
const GROUPS_PER_DOMINO_LEFT: f64 = 0.5;

impl AlphaBetaPlayer {
    #[must_use]
    pub fn new(seed: u64, think: Duration) -> AlphaBetaPlayer {
        AlphaBetaPlayer {
            think,
            rng: fastrand::Rng::with_seed(seed),
        }
    }

    /// The estimate for the side to move: groups against the 12 More
    /// needs, counting the dominoes left; a finished game is won or lost.
    fn evaluate(position: &Position, placements: &[Placement]) -> f64 {
        let for_more = if position.is_over(placements) {
            if position.winner() == Side::More {
                WON
            } else {
                -WON
            }
        } else {
            let left: u8 = position.stock.iter().sum();
            f64::from(position.groups()) + GROUPS_PER_DOMINO_LEFT * f64::from(left) - 11.5
        };
        match position.to_move {
            Side::More => for_more,
            Side::Fewer => -for_more,
        }
    }

    /// Negamax to `depth` within (`alpha`, `beta`); `None` when time ran out.
    fn search(
        &self,
        position: &Position,
        placements: &[Placement],
        depth: u32,
        mut alpha: f64,
        beta: f64,
        deadline: Instant,
    ) -> Option<f64> {
        let moves = position.moves(placements);
        if depth == 0 || moves.is_empty() {
            return Some(AlphaBetaPlayer::evaluate(position, placements));
        }
        if Instant::now() >= deadline {
            return None;
        }
        let mut best = -f64::INFINITY;
        for mv in moves {
            let score = -self.search(
                &position.play(mv),
                placements,
                depth - 1,
                -beta,
                -alpha,
                deadline,
            )?;
            best = best.max(score);
            alpha = alpha.max(score);
            if alpha >= beta {
                break;
            }
        }
        Some(best)
    }
}

impl Player for AlphaBetaPlayer {
    fn choose(&mut self, position: &Position, placements: &[Placement]) -> Move {
        let deadline = Instant::now() + self.think;
        let mut moves = position.moves(placements);
        self.rng.shuffle(&mut moves);
        let mut chosen = moves[0];
        for depth in 1.. {
            let mut best = (-f64::INFINITY, moves[0]);
            for &mv in &moves {
                let Some(score) = self.search(
                    &position.play(mv),
                    placements,
                    depth - 1,
                    -f64::INFINITY,
                    -best.0,
                    deadline,
                ) else {
                    return chosen;
                };
                if -score > best.0 {
                    best = (-score, mv);
                }
            }
            chosen = best.1;
            // The best first next time, for the cut-offs.
            if let Some(k) = moves.iter().position(|&m| m == chosen) {
                moves.swap(0, k);
            }
            if depth >= 24 {
                break;
            }
        }
        chosen
    }
}

#[cfg(test)]
mod tests {
    use super::super::rules::all_placements;
    use super::*;

    /// Plays one game; the winner.
    fn game(more: &mut dyn Player, fewer: &mut dyn Player) -> Side {
        let placements = all_placements();
        let mut position = Position::start();
        loop {
            if position.moves(&placements).is_empty() {
                return position.winner();
            }
            let mv = match position.to_move {
                Side::More => more.choose(&position, &placements),
                Side::Fewer => fewer.choose(&position, &placements),
            };
            assert!(position.is_legal(mv, &placements), "{mv:?}");
            position = position.play(mv);
        }
    }

    #[test]
    fn the_bot_beats_random_play_on_both_sides_at_a_few_thousand_playouts() {
        let mut wins = 0;
        for seed in 0..6 {
            let mut bot = MctsPlayer::new(seed, THINK_TIME);
            bot.playouts = Some(3000);
            let mut random = SimplePlayer::new(seed, false);
            let (more, fewer): (&mut dyn Player, &mut dyn Player) = if seed % 2 == 0 {
                (&mut bot, &mut random)
            } else {
                (&mut random, &mut bot)
            };
            let bot_side = if seed % 2 == 0 {
                Side::More
            } else {
                Side::Fewer
            };
            wins += u32::from(game(more, fewer) == bot_side);
        }
        assert!(wins >= 5, "{wins} of 6");
    }

    #[test]
    fn greedy_moves_change_the_groups_its_way() {
        let placements = all_placements();
        let mut greedy = SimplePlayer::new(1, true);
        let first = greedy.choose(&Position::start(), &placements);
        let after = Position::start().play(first);
        // Fewer joins a domino of the same colour to More's if it can.
        let reply = greedy.choose(&after, &placements);
        let groups = after.play(reply).groups();
        assert!(groups <= after.groups() + 1);
        for mv in after.moves(&placements) {
            assert!(after.play(mv).groups() >= groups);
        }
    }

    #[test]
    fn alpha_beta_plays_legal_moves_and_sees_a_won_last_move() {
        let placements = all_placements();
        let mut player = AlphaBetaPlayer::new(1, Duration::from_millis(50));
        let mut position = Position::start();
        for _ in 0..6 {
            let mv = player.choose(&position, &placements);
            assert!(position.is_legal(mv, &placements));
            position = position.play(mv);
        }
        // One domino left, More to move with 11 groups: the isolated
        // placement wins, joining a group loses.
        let domino = |a: u32, b: u32| Placement::of_squares(a, b).expect("neighbours").0;
        let mut last = Position::start();
        // (squares, colour): no two of a colour touch
        let spots = [
            (0, 1, 0),
            (3, 4, 1),
            (14, 15, 2),
            (17, 18, 3),
            (28, 29, 0),
            (31, 32, 1),
            (42, 43, 2),
            (45, 46, 3),
            (5, 12, 0),
            (37, 44, 1),
            (35, 36, 3),
        ];
        for &(a, b, colour) in &spots {
            last.colours[colour] |= domino(a, b);
        }
        last.stock = [0, 0, 0, 1];
        assert_eq!(last.groups(), 11);
        let mv = AlphaBetaPlayer::new(2, Duration::from_millis(200)).choose(&last, &placements);
        assert_eq!(last.play(mv).groups(), 12, "{mv:?}");
    }

    #[test]
    fn a_fixed_number_of_playouts_replays_exactly() {
        let placements = all_placements();
        let choose = || {
            let mut bot = MctsPlayer::new(9, THINK_TIME);
            bot.playouts = Some(2000);
            bot.choose(&Position::start(), &placements)
        };
        assert_eq!(choose(), choose());
    }
}
