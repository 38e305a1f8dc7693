//! Linkage's rules (Ethan Larson; `../shared/seeds/linkage-bot-ladder.txt`)
//! on 49-bit square sets.
//!
//! A 7x7 board, square `row * 7 + column` (row 1 and column A are 0), the
//! centre D4 blocked. 24 dominoes, six of each colour, shared by both
//! players. More moves first, then Fewer, in turn: a move puts a domino of
//! any colour still in stock on two orthogonally adjacent empty squares,
//! not touching (orthogonally) the domino the opponent has just played. A
//! player with no such placement skips, and the next one may then play
//! anywhere. The game ends when no domino fits anywhere or the stock is
//! empty; a group is a set of orthogonally connected squares of one colour,
//! and fewer than 12 groups is Fewer's win, 12 or more More's.

/// Squares on the board.
pub const SQUARES: usize = 49;

/// Every square of the board.
pub const ALL: u64 = (1 << SQUARES) - 1;

/// The blocked centre, D4.
pub const CENTRE: u64 = 1 << (3 * 7 + 3);

/// Dominoes of each colour at the start.
pub const PER_COLOUR: u8 = 6;

/// More wins with at least this many groups at the end.
pub const MORE_WINS_FROM: u32 = 12;

/// Column A's squares, and column G's.
const COLUMN_A: u64 = {
    let mut m = 0u64;
    let mut r = 0;
    while r < 7 {
        m |= 1 << (r * 7);
        r += 1;
    }
    m
};
const COLUMN_G: u64 = COLUMN_A << 6;

/// The colours, in the order the input file counts them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Colour {
    Red,
    Blue,
    Green,
    Yellow,
}

impl Colour {
    pub const ALL: [Colour; 4] = [Colour::Red, Colour::Blue, Colour::Green, Colour::Yellow];

    #[must_use]
    pub fn letter(self) -> char {
        ['R', 'B', 'G', 'Y'][self as usize]
    }

    #[must_use]
    pub fn from_letter(c: char) -> Option<Colour> {
        Colour::ALL.into_iter().find(|col| col.letter() == c)
    }
}

/// The two players.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// Moves first; wins with 12 groups or more.
    More,
    /// Wins with fewer than 12 groups.
    Fewer,
}

impl Side {
    #[must_use]
    pub fn other(self) -> Side {
        match self {
            Side::More => Side::Fewer,
            Side::Fewer => Side::More,
        }
    }

    #[must_use]
    pub fn letter(self) -> char {
        match self {
            Side::More => 'M',
            Side::Fewer => 'F',
        }
    }
}

/// A square's name: column letter then row digit (`A1`, `G7`).
#[must_use]
pub fn square_name(square: u32) -> String {
    let (row, col) = (square / 7, square % 7);
    format!("{}{}", (b'A' + col as u8) as char, row + 1)
}

/// The square named `A1` … `G7` (upper or lower case).
#[must_use]
pub fn parse_square(name: &str) -> Option<u32> {
    let bytes = name.as_bytes();
    if bytes.len() != 2 {
        return None;
    }
    let col = bytes[0].to_ascii_uppercase().checked_sub(b'A')?;
    let row = bytes[1].checked_sub(b'1')?;
    (col < 7 && row < 7).then_some(u32::from(row) * 7 + u32::from(col))
}

/// The squares orthogonally next to those of `set`.
#[must_use]
pub fn neighbours(set: u64) -> u64 {
    (((set & !COLUMN_G) << 1) | ((set & !COLUMN_A) >> 1) | (set << 7) | (set >> 7)) & ALL
}

/// A domino's place: its two squares, the first the lower index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Placement(pub u64);

impl Placement {
    /// The domino on `first` and the square right of it (`horizontal`) or
    /// below it; `None` off the board.
    #[must_use]
    pub fn new(first: u32, horizontal: bool) -> Option<Placement> {
        let (row, col) = (first / 7, first % 7);
        let second = if horizontal {
            (col < 6).then_some(first + 1)?
        } else {
            (row < 6).then_some(first + 7)?
        };
        (first < SQUARES as u32).then_some(Placement(1 << first | 1 << second))
    }

    /// The domino on two squares, if they are orthogonal neighbours.
    #[must_use]
    pub fn of_squares(a: u32, b: u32) -> Option<Placement> {
        let (first, second) = (a.min(b), a.max(b));
        let placement = Placement::new(first, second == first + 1)?;
        (placement.0 == (1 << first | 1 << second)).then_some(placement)
    }

    /// Its squares, lower index first.
    #[must_use]
    pub fn squares(self) -> (u32, u32) {
        let first = self.0.trailing_zeros();
        (first, 63 - self.0.leading_zeros())
    }
}

/// Every placement on the board, the centre's aside: 80.
#[must_use]
pub fn all_placements() -> Vec<Placement> {
    (0..SQUARES as u32)
        .flat_map(|sq| [Placement::new(sq, true), Placement::new(sq, false)])
        .flatten()
        .filter(|p| p.0 & CENTRE == 0)
        .collect()
}

/// A move: a colour on a placement, or a skip.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Move {
    Place(Colour, Placement),
    Skip,
}

impl Move {
    /// The order file's text: `YA1A2`, or `Skip`.
    #[must_use]
    pub fn order(self) -> String {
        match self {
            Move::Place(colour, placement) => {
                let (a, b) = placement.squares();
                format!("{}{}{}", colour.letter(), square_name(a), square_name(b))
            }
            Move::Skip => "Skip".to_string(),
        }
    }

    /// Reads an order (`GE4F4`, `Skip`); case of the letters is ignored.
    #[must_use]
    pub fn parse_order(text: &str) -> Option<Move> {
        let text = text.trim();
        if text.eq_ignore_ascii_case("skip") {
            return Some(Move::Skip);
        }
        if text.len() != 5 || !text.is_ascii() {
            return None;
        }
        let colour = Colour::from_letter(text.as_bytes()[0].to_ascii_uppercase() as char)?;
        let placement =
            Placement::of_squares(parse_square(&text[1..3])?, parse_square(&text[3..5])?)?;
        Some(Move::Place(colour, placement))
    }
}

/// A position: the squares of each colour, the stock, the squares the
/// side to move may not use (next to the opponent's last domino) and the
/// side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    pub colours: [u64; 4],
    pub stock: [u8; 4],
    pub forbidden: u64,
    pub to_move: Side,
}

impl Position {
    /// The start: an empty board, six of each colour, More to move.
    #[must_use]
    pub fn start() -> Position {
        Position {
            colours: [0; 4],
            stock: [PER_COLOUR; 4],
            forbidden: 0,
            to_move: Side::More,
        }
    }

    /// Squares that hold a domino, or the centre.
    #[must_use]
    pub fn taken(&self) -> u64 {
        self.colours.iter().fold(CENTRE, |acc, c| acc | c)
    }

    /// The placements with both squares free, ignoring the opponent's
    /// last domino: where a domino fits at all.
    #[must_use]
    pub fn fitting(&self, placements: &[Placement]) -> Vec<Placement> {
        let taken = self.taken();
        placements
            .iter()
            .copied()
            .filter(|p| p.0 & taken == 0)
            .collect()
    }

    /// Whether the game is over: no domino left, or none fits anywhere.
    #[must_use]
    pub fn is_over(&self, placements: &[Placement]) -> bool {
        let taken = self.taken();
        self.stock.iter().all(|&n| n == 0) || placements.iter().all(|p| p.0 & taken != 0)
    }

    /// The side to move's legal moves: every colour in stock on every
    /// placement clear of taken and forbidden squares; `[Skip]` when there
    /// is none and the game is not over; empty when it is over.
    #[must_use]
    pub fn moves(&self, placements: &[Placement]) -> Vec<Move> {
        if self.is_over(placements) {
            return Vec::new();
        }
        let blocked = self.taken() | self.forbidden;
        let mut moves = Vec::new();
        for p in placements.iter().filter(|p| p.0 & blocked == 0) {
            for colour in Colour::ALL {
                if self.stock[colour as usize] > 0 {
                    moves.push(Move::Place(colour, *p));
                }
            }
        }
        if moves.is_empty() {
            moves.push(Move::Skip);
        }
        moves
    }

    /// Whether `mv` is legal here.
    #[must_use]
    pub fn is_legal(&self, mv: Move, placements: &[Placement]) -> bool {
        match mv {
            Move::Skip => self.moves(placements) == [Move::Skip],
            Move::Place(colour, p) => {
                !self.is_over(placements)
                    && self.stock[colour as usize] > 0
                    && p.0 & (self.taken() | self.forbidden) == 0
            }
        }
    }

    /// The position after `mv` (which must be legal): the opponent may not
    /// touch the new domino; after a skip, nothing is forbidden.
    #[must_use]
    pub fn play(&self, mv: Move) -> Position {
        let mut next = *self;
        next.to_move = self.to_move.other();
        match mv {
            Move::Place(colour, p) => {
                next.colours[colour as usize] |= p.0;
                next.stock[colour as usize] -= 1;
                next.forbidden = neighbours(p.0) & !next.taken();
            }
            Move::Skip => next.forbidden = 0,
        }
        next
    }

    /// The number of groups: orthogonally connected squares of one colour.
    #[must_use]
    pub fn groups(&self) -> u32 {
        self.colours.iter().map(|&c| groups_of(c)).sum()
    }

    /// Who wins with the board as it stands (the game's end decides).
    #[must_use]
    pub fn winner(&self) -> Side {
        if self.groups() >= MORE_WINS_FROM {
            Side::More
        } else {
            Side::Fewer
        }
    }
}

/// The connected parts of `set`.
#[must_use]
pub fn groups_of(mut set: u64) -> u32 {
    let mut count = 0;
    while set != 0 {
        let mut group = set & set.wrapping_neg();
        loop {
            let grown = (group | neighbours(group)) & set;
            if grown == group {
                break;
            }
            group = grown;
        }
        set &= !group;
        count += 1;
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Groups the plain way: a flood fill over a grid.
    fn groups_by_grid(set: u64) -> u32 {
        let mut seen = [false; SQUARES];
        let mut count = 0;
        for start in 0..SQUARES {
            if set >> start & 1 == 0 || seen[start] {
                continue;
            }
            count += 1;
            let mut stack = vec![start];
            seen[start] = true;
            while let Some(sq) = stack.pop() {
                let (r, c) = (sq / 7, sq % 7);
                let mut next = Vec::new();
                if r > 0 {
                    next.push(sq - 7);
                }
                if r < 6 {
                    next.push(sq + 7);
                }
                if c > 0 {
                    next.push(sq - 1);
                }
                if c < 6 {
                    next.push(sq + 1);
                }
                for n in next {
                    if set >> n & 1 == 1 && !seen[n] {
                        seen[n] = true;
                        stack.push(n);
                    }
                }
            }
        }
        count
    }

    /// Whether two placements touch, the plain way: some square of one is
    /// an orthogonal neighbour of some square of the other.
    fn touching_by_grid(a: Placement, b: Placement) -> bool {
        let near = |x: u32, y: u32| {
            let (rx, cx, ry, cy) = (x / 7, x % 7, y / 7, y % 7);
            rx.abs_diff(ry) + cx.abs_diff(cy) == 1
        };
        let (a1, a2) = a.squares();
        let (b1, b2) = b.squares();
        [a1, a2]
            .iter()
            .any(|&x| [b1, b2].iter().any(|&y| near(x, y)))
    }

    #[test]
    fn eighty_placements_and_none_on_the_centre() {
        let placements = all_placements();
        assert_eq!(placements.len(), 80);
        assert!(placements
            .iter()
            .all(|p| p.0.count_ones() == 2 && p.0 & CENTRE == 0));
        // every one is two orthogonal neighbours
        for p in &placements {
            let (a, b) = p.squares();
            assert_eq!(Placement::of_squares(b, a), Some(*p));
        }
        assert_eq!(
            Placement::of_squares(6, 7),
            None,
            "G1 and A2 are not neighbours"
        );
    }

    #[test]
    fn seeded_random_games_follow_the_plain_rules() {
        let placements = all_placements();
        let mut rng = fastrand::Rng::with_seed(24);
        for _ in 0..300 {
            let mut position = Position::start();
            let mut last: Option<Placement> = None;
            loop {
                let moves = position.moves(&placements);
                // The plain reference: free squares, colours in stock, not
                // touching the opponent's last domino.
                let taken = position.taken();
                let free: Vec<Placement> = placements
                    .iter()
                    .copied()
                    .filter(|p| p.0 & taken == 0)
                    .collect();
                let over = free.is_empty() || position.stock.iter().all(|&n| n == 0);
                let allowed: Vec<Placement> = free
                    .iter()
                    .copied()
                    .filter(|p| last.is_none_or(|l| !touching_by_grid(*p, l)))
                    .collect();
                let colours = position.stock.iter().filter(|&&n| n > 0).count();
                if over {
                    assert!(moves.is_empty());
                    assert_eq!(
                        position.groups(),
                        position
                            .colours
                            .iter()
                            .map(|&c| groups_by_grid(c))
                            .sum::<u32>()
                    );
                    break;
                }
                if allowed.is_empty() {
                    assert_eq!(moves, [Move::Skip]);
                } else {
                    assert_eq!(moves.len(), allowed.len() * colours);
                }
                let mv = moves[rng.usize(..moves.len())];
                assert!(position.is_legal(mv, &placements));
                last = match mv {
                    Move::Place(_, p) => Some(p),
                    Move::Skip => None,
                };
                position = position.play(mv);
            }
        }
    }

    #[test]
    fn orders_read_back() {
        let mv = Move::parse_order("YA1A2").expect("an order");
        assert_eq!(mv.order(), "YA1A2");
        assert_eq!(
            Move::parse_order("gf4e4").map(Move::order),
            Some("GE4F4".to_string())
        );
        assert_eq!(Move::parse_order("Skip"), Some(Move::Skip));
        for bad in [
            "", "YA1A3", "XA1A2", "YA1", "YA1A2B", "YH1H2", "YA0A1", "YÄ1A2",
        ] {
            assert_eq!(Move::parse_order(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_skip_frees_the_next_player() {
        let placements = all_placements();
        let p = Placement::of_squares(0, 1).expect("A1B1");
        let after = Position::start().play(Move::Place(Colour::Red, p));
        assert_eq!(after.forbidden, neighbours(p.0) & !p.0);
        assert_eq!(after.to_move, Side::Fewer);
        assert!(!after.is_legal(
            Move::Place(Colour::Red, Placement::of_squares(2, 3).expect("C1D1")),
            &placements
        ));
        assert_eq!(after.play(Move::Skip).forbidden, 0);
    }
}
