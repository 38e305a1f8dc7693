//! Perft: the number of move sequences of a given length, the standard check
//! of a move generator.
//!
//! Two conventions are in circulation (see `fixtures/perft.txt`). Both count a
//! forced pass as a ply; they differ in what a game that ends early counts:
//! - [`Convention::GamesDropped`] (OEIS A124004, Edax): nothing. The default.
//! - [`Convention::GamesKept`] (Aart Bik): one leaf at every deeper depth.
//!
//! They agree up to depth 9 and split from depth 10.
//!
//! Many move orders reach the same position, or one of its 7 mirror
//! images, which has the same count: so the count below a position is kept
//! in a `Memo` under the position's `canonical` image and reused when
//! it comes back with the same plies to go (as Edax's `count games` does).
//! [`perft`] counts every line without it, the move generator's plain
//! check.

use reversi_core::board::Board;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Convention {
    /// \[A\]: a game over before the last ply contributes 0.
    GamesDropped,
    /// \[B\]: a game over before the last ply contributes 1.
    GamesKept,
}

/// Leaf count of `depth` plies from `board`, every line enumerated.
#[must_use]
pub fn perft(board: &Board, depth: u32, convention: Convention) -> u64 {
    count(board, depth, convention, false, &mut None)
}

/// The same count, with counts of positions met again taken from a memo
/// of about `megabytes` MiB.
#[must_use]
pub fn perft_memo(board: &Board, depth: u32, convention: Convention, megabytes: usize) -> u64 {
    count(
        board,
        depth,
        convention,
        false,
        &mut Some(Memo::new(megabytes)),
    )
}

/// Below this many plies to go a position is counted afresh: a count of
/// two plies is a move generation per move, cheaper than a memo lookup
/// that mostly misses.
const MEMO_MIN_DEPTH: u32 = 3;

/// `passed`: the last ply was a pass (it matters only to
/// [`Convention::GamesKept`], where a second pass ends the game).
fn count(
    board: &Board,
    depth: u32,
    convention: Convention,
    passed: bool,
    memo: &mut Option<Memo>,
) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = board.moves();
    if moves == 0 {
        let next = board.pass();
        return match convention {
            Convention::GamesDropped if next.has_moves() => {
                count(&next, depth - 1, convention, true, memo)
            }
            Convention::GamesDropped => 0,
            Convention::GamesKept if passed => 1,
            Convention::GamesKept => count(&next, depth - 1, convention, true, memo),
        };
    }
    if depth == 1 {
        return u64::from(moves.count_ones());
    }
    let key = (depth << 1) | u32::from(passed);
    let name = (memo.is_some() && depth >= MEMO_MIN_DEPTH).then(|| canonical(board));
    if let (Some(m), Some(name)) = (memo.as_ref(), &name) {
        if let Some(n) = m.get(name, key) {
            return n;
        }
    }
    let n = reversi_core::bitboard::squares(moves)
        .map(|sq| count(&board.play(sq), depth - 1, convention, false, memo))
        .sum();
    if let (Some(m), Some(name)) = (memo.as_mut(), &name) {
        m.put(name, key, n);
    }
    n
}

/// Counts by position and plies to go: one slot per hash, the newest
/// count kept. A slot is four words: the two square sets and the plies
/// (the full key, so a hit is never a collision), then the count.
struct Memo {
    words: Vec<u64>,
    mask: usize,
}

impl Memo {
    fn new(megabytes: usize) -> Memo {
        let slots = (megabytes.max(1) * 1024 * 1024 / 32).next_power_of_two() / 2;
        Memo {
            // zeroed pages, mapped as they are touched; key 0 is no position
            words: vec![0; slots * 4],
            mask: slots - 1,
        }
    }

    fn slot(&self, board: &Board, key: u32) -> usize {
        let h = board.hash() ^ u64::from(key).wrapping_mul(0xD6E8_FEB8_6659_FD93);
        ((h >> 32) as usize & self.mask) * 4
    }

    /// The count stored for `name` (a `canonical` board) with `key`.
    fn get(&self, name: &Board, key: u32) -> Option<u64> {
        let i = self.slot(name, key);
        let w = &self.words[i..i + 4];
        (w[0] == name.player && w[1] == name.opponent && w[2] == u64::from(key)).then(|| w[3])
    }

    fn put(&mut self, name: &Board, key: u32, n: u64) {
        let i = self.slot(name, key);
        self.words[i..i + 4].copy_from_slice(&[name.player, name.opponent, u64::from(key), n]);
    }
}

/// The least of the 8 images of `board` under the board's symmetries
/// (ordered by the player's set, then the opponent's): one name for all of
/// them.
fn canonical(board: &Board) -> Board {
    (0..8)
        .map(|symmetry| board.transform(symmetry))
        .min_by_key(|image| (image.player, image.opponent))
        .expect("8 images")
}

/// Memo size for `reversi perft`, in MiB.
pub const MEMO_MB: usize = 64;

/// `reversi perft N`: the count, time and speed for each depth 1..=N from
/// the start position, a line each on stdout. `memo`: reuse the counts of
/// positions met again ([`perft_memo`]); without it every line is
/// enumerated.
pub fn print_table(
    out: &mut dyn std::io::Write,
    depth: u32,
    convention: Convention,
    memo: bool,
) -> std::io::Result<()> {
    let board = Board::start();
    for d in 1..=depth {
        let start = std::time::Instant::now();
        let count = if memo {
            perft_memo(&board, d, convention, MEMO_MB)
        } else {
            perft(&board, d, convention)
        };
        let secs = start.elapsed().as_secs_f64();
        writeln!(
            out,
            "perft {d:2} {count:>16} {:>9.3}s {:>8.1} Mleaves/s",
            secs,
            count as f64 / secs.max(1e-9) / 1e6
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shallow_counts() {
        let b = Board::start();
        let a: Vec<u64> = (1..=6)
            .map(|d| perft(&b, d, Convention::GamesDropped))
            .collect();
        assert_eq!(a, vec![4, 12, 56, 244, 1396, 8200]);
        let k: Vec<u64> = (1..=6)
            .map(|d| perft(&b, d, Convention::GamesKept))
            .collect();
        assert_eq!(a, k);
    }

    /// A position of random play with `empties` empties, if the game
    /// lasts that long.
    fn random_position(rng: &mut fastrand::Rng, empties: u32) -> Option<Board> {
        let mut b = Board::start();
        while b.empty_count() > empties {
            let moves: Vec<_> = reversi_core::bitboard::squares(b.moves()).collect();
            if moves.is_empty() {
                b = b.pass();
                if !b.has_moves() {
                    return None;
                }
                continue;
            }
            b = b.play(moves[rng.usize(..moves.len())]);
        }
        Some(b)
    }

    #[test]
    fn canonical_names_all_eight_images_alike() {
        let mut rng = fastrand::Rng::with_seed(5);
        for _ in 0..200 {
            let empties = 1 + rng.u32(..58);
            let Some(b) = random_position(&mut rng, empties) else {
                continue;
            };
            let name = canonical(&b);
            let images: Vec<Board> = (0..8).map(|sym| b.transform(sym)).collect();
            assert!(images.contains(&name));
            for image in &images {
                assert_eq!(canonical(image), name);
            }
        }
    }

    #[test]
    fn the_memo_changes_no_count() {
        // Depth 10 is where the conventions split, so passes and ended
        // games are both exercised; a tiny memo forces replacements.
        let b = Board::start();
        for convention in [Convention::GamesDropped, Convention::GamesKept] {
            for depth in [8, 10] {
                let plain = perft(&b, depth, convention);
                assert_eq!(perft_memo(&b, depth, convention, 1), plain);
                assert_eq!(perft_memo(&b, depth, convention, 16), plain);
            }
        }
    }
}
