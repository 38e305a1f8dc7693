//! Legal moves and flipped discs, by shifting whole square sets in the 8
//! directions (no loops over squares).
//!
//! `player` is the side to move, `opponent` the other; neither function knows
//! about colours.

use crate::bitboard::{FILE_A, FILE_H};

/// One step in direction `D`, dropping what would wrap around a side of the
/// board. 0 east, 1 west, 2 south (towards rank 8), 3 north, 4 south-east,
/// 5 north-west, 6 south-west, 7 north-east.
#[inline(always)]
fn step<const D: usize>(x: u64) -> u64 {
    match D {
        0 => (x << 1) & !FILE_A,
        1 => (x >> 1) & !FILE_H,
        2 => x << 8,
        3 => x >> 8,
        4 => (x << 9) & !FILE_A,
        5 => (x >> 9) & !FILE_H,
        6 => (x << 7) & !FILE_H,
        _ => (x >> 7) & !FILE_A,
    }
}

/// Empty squares reached from a `player` disc over a run of `opponent` discs
/// in direction `D`. A run is at most 6 discs, hence the 5 extra steps.
#[inline(always)]
fn moves_in<const D: usize>(player: u64, opponent: u64, empty: u64) -> u64 {
    let mut run = step::<D>(player) & opponent;
    run |= step::<D>(run) & opponent;
    run |= step::<D>(run) & opponent;
    run |= step::<D>(run) & opponent;
    run |= step::<D>(run) & opponent;
    run |= step::<D>(run) & opponent;
    step::<D>(run) & empty
}

/// The squares where `player` may move.
#[inline]
#[must_use]
pub fn legal_moves(player: u64, opponent: u64) -> u64 {
    let empty = !(player | opponent);
    moves_in::<0>(player, opponent, empty)
        | moves_in::<1>(player, opponent, empty)
        | moves_in::<2>(player, opponent, empty)
        | moves_in::<3>(player, opponent, empty)
        | moves_in::<4>(player, opponent, empty)
        | moves_in::<5>(player, opponent, empty)
        | moves_in::<6>(player, opponent, empty)
        | moves_in::<7>(player, opponent, empty)
}

#[inline(always)]
fn flips_in<const D: usize>(mv: u64, player: u64, opponent: u64) -> u64 {
    let mut run = 0;
    let mut x = step::<D>(mv);
    while x & opponent != 0 {
        run |= x;
        x = step::<D>(x);
    }
    if x & player != 0 {
        run
    } else {
        0
    }
}

/// The opponent discs that a `player` disc on square `index` turns over
/// (0 when the move is not legal). The square itself is not included and
/// must be empty.
#[inline]
#[must_use]
pub fn flips(index: usize, player: u64, opponent: u64) -> u64 {
    let mv = 1u64 << index;
    flips_in::<0>(mv, player, opponent)
        | flips_in::<1>(mv, player, opponent)
        | flips_in::<2>(mv, player, opponent)
        | flips_in::<3>(mv, player, opponent)
        | flips_in::<4>(mv, player, opponent)
        | flips_in::<5>(mv, player, opponent)
        | flips_in::<6>(mv, player, opponent)
        | flips_in::<7>(mv, player, opponent)
}

/// Empty squares next to an opponent disc: where moves may appear later
/// ("potential mobility").
#[inline]
#[must_use]
pub fn potential_moves(player: u64, opponent: u64) -> u64 {
    crate::bitboard::neighbours(opponent) & !(player | opponent)
}

/// A slow, obviously correct move generator on an 8x8 array, for checking the
/// fast one.
#[cfg(test)]
pub(crate) mod naive {
    const DIRECTIONS: [(i32, i32); 8] = [
        (1, 0),
        (-1, 0),
        (0, 1),
        (0, -1),
        (1, 1),
        (-1, -1),
        (-1, 1),
        (1, -1),
    ];

    fn cell(player: u64, opponent: u64, file: i32, rank: i32) -> u8 {
        let bit = 1u64 << (rank * 8 + file);
        if player & bit != 0 {
            1
        } else if opponent & bit != 0 {
            2
        } else {
            0
        }
    }

    pub fn flips(index: usize, player: u64, opponent: u64) -> u64 {
        let (file, rank) = ((index % 8) as i32, (index / 8) as i32);
        if cell(player, opponent, file, rank) != 0 {
            return 0;
        }
        let mut all = 0;
        for (df, dr) in DIRECTIONS {
            let (mut f, mut r) = (file + df, rank + dr);
            let mut run = 0u64;
            while (0..8).contains(&f) && (0..8).contains(&r) && cell(player, opponent, f, r) == 2 {
                run |= 1u64 << (r * 8 + f);
                f += df;
                r += dr;
            }
            if run != 0
                && (0..8).contains(&f)
                && (0..8).contains(&r)
                && cell(player, opponent, f, r) == 1
            {
                all |= run;
            }
        }
        all
    }

    pub fn legal_moves(player: u64, opponent: u64) -> u64 {
        (0..64)
            .filter(|&i| flips(i, player, opponent) != 0)
            .fold(0, |acc, i| acc | (1u64 << i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;

    /// Plays thousands of seeded random games and compares every position's
    /// moves and flips with the naive generator.
    #[test]
    fn agrees_with_naive_generator_over_random_games() {
        let mut rng = fastrand::Rng::with_seed(20261122);
        let mut positions = 0;
        for _ in 0..3000 {
            let mut board = Board::start();
            loop {
                let moves = legal_moves(board.player, board.opponent);
                assert_eq!(moves, naive::legal_moves(board.player, board.opponent));
                for i in crate::bitboard::squares(board.empties()).map(|s| s.index()) {
                    assert_eq!(
                        flips(i, board.player, board.opponent),
                        naive::flips(i, board.player, board.opponent),
                        "square {i} in {board:?}"
                    );
                }
                positions += 1;
                if moves == 0 {
                    if board.pass().has_moves() {
                        board = board.pass();
                        continue;
                    }
                    break;
                }
                let list: Vec<usize> = crate::bitboard::squares(moves).map(|s| s.index()).collect();
                let pick = list[rng.usize(..list.len())];
                board = board.play_index(pick);
            }
        }
        assert!(positions > 150_000);
    }

    #[test]
    fn random_sets_agree_too() {
        // Arbitrary, not necessarily reachable, positions: the edges and wraps
        // get exercised in ways real games rarely do.
        let mut rng = fastrand::Rng::with_seed(99);
        for _ in 0..20_000 {
            let a = rng.u64(..);
            let b = rng.u64(..) & !a;
            assert_eq!(legal_moves(a, b), naive::legal_moves(a, b));
            let i = rng.usize(..64);
            if (a | b) >> i & 1 == 0 {
                assert_eq!(flips(i, a, b), naive::flips(i, a, b));
            }
        }
    }
}
