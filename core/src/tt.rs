//! The transposition table: what earlier searches learned about a position.
//!
//! A position may sit in either slot of a two-slot bucket (a power of two
//! of slots in all; two ways cut the solver's nodes on FFO #20-#39 by 2%
//! against one way at the same size). A slot is three words: the
//! two square sets (the full key, so a hit is never a collision) and a packed
//! word with the score, its bound, the depth, the best move and an age.
//! The slots live in one flat `Vec<u64>`, three words each: `vec![0u64; n]`
//! is served by the allocator's zeroed pages, mapped lazily, so even a large
//! table costs nothing at start-up (an array element type such as
//! `[u64; 3]` is zeroed eagerly instead: measured 119 ms for 256 MB). On
//! Linux the table asks for huge pages (`huge_pages`), which spares
//! most probes a miss in the processor's page cache.

use crate::board::Board;

/// Depth recorded for a result searched to the end of the game: it satisfies
/// a probe of any depth.
pub const DEPTH_EXACT: u8 = 255;

/// The best-move field of an entry that names no move (square indices
/// are 0..64).
pub const NO_MOVE: u8 = 64;

/// Default size in MiB; `--hash` changes it.
pub const DEFAULT_MB: usize = 16;

/// What a stored score says of the true score.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The score is exact.
    Exact,
    /// The true score is at least this (a fail high).
    Lower,
    /// The true score is at most this (a fail low).
    Upper,
}

/// What a probe finds.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    /// The stored score, in hundredths of a disc.
    pub score: i32,
    /// What the score says of the true score.
    pub bound: Bound,
    /// The depth it was searched to.
    pub depth: u8,
    /// Best move's square index, or [`NO_MOVE`].
    pub best: u8,
}

/// The transposition table: what earlier searches learned, two slots a
/// bucket (see the module).
pub struct Table {
    /// Three words a slot: player, opponent, packed data (0 = empty).
    words: Vec<u64>,
    mask: usize,
    age: u8,
    /// Anything stored since the last clear.
    used: bool,
    /// Less memory than asked for could be had.
    short: bool,
}

/// Asks the kernel for 2 MiB pages under the table where it gives them
/// on request (Linux's transparent huge pages in "madvise" mode; in
/// "always" mode it would anyway, in "never" mode this does nothing). A
/// probe lands anywhere in the table, so with 4 KiB pages nearly every one
/// also misses the processor's page cache (TLB): FFO #20-#39 took 10-20%
/// less time with them (BENCHMARKS.md, "Endgame solver"). The pages stay
/// lazily mapped, so start-up is unchanged.
// MADV_HUGEPAGE's number differs on a few rarer architectures: asked only
// where it is the one below.
#[cfg(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
))]
fn huge_pages(words: &[u64]) {
    // The C library's madvise (glibc and musl alike): std links it anyway,
    // and one call does not justify the libc crate.
    extern "C" {
        fn madvise(addr: *mut std::ffi::c_void, len: usize, advice: i32) -> i32;
    }
    const MADV_HUGEPAGE: i32 = 14;
    const PAGE: usize = 4096;
    // madvise wants a page-aligned start; the allocator's block of a large
    // table starts a few bytes into its first page.
    let start = (words.as_ptr() as usize).next_multiple_of(PAGE);
    let end = words.as_ptr() as usize + std::mem::size_of_val(words);
    if end > start {
        // SAFETY: the range lies inside `words`, which stays allocated
        // while the advice matters; advice changes no data, and a refusal
        // (an old kernel, huge pages off) only leaves the small pages.
        unsafe {
            madvise(start as *mut std::ffi::c_void, end - start, MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
)))]
fn huge_pages(_words: &[u64]) {}

/// `len` zeroed words from the allocator's zeroed pages (mapped lazily, so
/// a large table costs nothing until it is used), in huge pages where the
/// kernel gives them, or `None` where that much memory cannot be had (a
/// capped address space): the caller asks for less instead of aborting.
fn fresh_words(len: usize) -> Option<Vec<u64>> {
    let layout = std::alloc::Layout::array::<u64>(len).ok()?;
    if layout.size() == 0 {
        return Some(Vec::new());
    }
    // SAFETY: the layout has a non-zero size; a null pointer is refused
    // below; a non-null one points to `len` zeroed words, a valid Vec of
    // `len` u64s allocated by the global allocator with this very layout,
    // which is what from_raw_parts requires.
    let words = unsafe {
        let ptr = std::alloc::alloc_zeroed(layout).cast::<u64>();
        if ptr.is_null() {
            return None;
        }
        Vec::from_raw_parts(ptr, len, len)
    };
    huge_pages(&words);
    Some(words)
}

/// The fewest slots a table has.
const MIN_SLOTS: usize = 1024;

impl Table {
    /// A table of about `megabytes` MiB (rounded down to a power of two
    /// slots; at least 1024 slots). Where that much memory cannot be had,
    /// half as much, and so on: [`Table::megabytes`] says what it got.
    #[must_use]
    pub fn new(megabytes: usize) -> Table {
        let bytes = megabytes.max(1).saturating_mul(1024 * 1024);
        let wanted = (bytes / 24).max(MIN_SLOTS);
        let asked = 1usize << (usize::BITS - 1 - wanted.leading_zeros());
        let mut count = asked;
        let words = loop {
            match fresh_words(3 * count) {
                Some(words) => break words,
                None if count > MIN_SLOTS => count /= 2,
                // 24 KB that cannot be had: nothing else can run either.
                None => std::alloc::handle_alloc_error(
                    std::alloc::Layout::array::<u64>(3 * count).expect("a small layout"),
                ),
            }
        };
        Table {
            words,
            mask: count - 1,
            age: 0,
            used: false,
            short: count < asked,
        }
    }

    /// Whether the table got less memory than asked for, and is smaller.
    #[must_use]
    pub fn short(&self) -> bool {
        self.short
    }

    /// The table's size in MiB, rounded down (0 for the smallest tables).
    #[must_use]
    pub fn megabytes(&self) -> usize {
        self.words.len() * 8 / (1024 * 1024)
    }

    /// Forgets everything (a new game). A fresh zeroed allocation rather
    /// than a loop: writing every word would touch every page, which costs
    /// ~8 ms per 16 MB at each START, before the first move.
    pub fn clear(&mut self) {
        if self.used {
            let len = self.words.len();
            self.words = Vec::new();
            // The same size again is all but certain to be had; if not,
            // the old table's size is gone, and the smallest will do.
            self.words = fresh_words(len).unwrap_or_else(|| {
                self.mask = MIN_SLOTS - 1;
                self.short = true;
                vec![0; 3 * MIN_SLOTS]
            });
            self.used = false;
        }
        self.age = 0;
    }

    /// Forgets everything by writing zeros over the table, which keeps (or
    /// first maps) every page: slower than [`Table::clear`] but leaves no
    /// page faults for the next search to pay. For tools that time each
    /// search on its own (`reversi solve`), as an engine that sets its
    /// table up before the clock starts.
    pub fn wipe(&mut self) {
        self.words.fill(0);
        self.used = false;
        self.age = 0;
    }

    /// Marks the start of a new search: older entries become cheaper to
    /// replace.
    pub fn next_age(&mut self) {
        self.age = self.age.wrapping_add(1);
    }

    /// The first of the two slots where `board` may be kept.
    #[inline]
    fn bucket(&self, board: &Board) -> usize {
        board.hash() as usize & self.mask & !1
    }

    /// The entry stored for `board`, if any.
    #[inline]
    #[must_use]
    pub fn probe(&self, board: &Board) -> Option<Entry> {
        let base = self.bucket(board);
        for i in [base, base + 1] {
            let slot = &self.words[3 * i..3 * i + 3];
            if slot[0] != board.player || slot[1] != board.opponent || slot[2] == 0 {
                continue;
            }
            let data = slot[2];
            return Some(Entry {
                score: (data & 0xffff) as u16 as i16 as i32,
                bound: match (data >> 16) & 3 {
                    1 => Bound::Exact,
                    2 => Bound::Lower,
                    _ => Bound::Upper,
                },
                depth: stored_depth(data),
                best: stored_best(data),
            });
        }
        None
    }

    /// Stores a result. A bucket holds two slots; the same position is
    /// updated in place unless this search stored it deeper already (a
    /// result with no best move, [`NO_MOVE`], keeps the move stored), else
    /// the slot that is older or shallower is replaced.
    #[inline]
    pub fn store(&mut self, board: &Board, score: i32, bound: Bound, depth: u8, mut best: u8) {
        let base = self.bucket(board);
        let mut target = base;
        let mut found = false;
        for i in [base, base + 1] {
            let slot = &self.words[3 * i..3 * i + 3];
            if slot[0] == board.player && slot[1] == board.opponent {
                let kept = slot[2];
                if kept != 0 && stored_age(kept) == self.age && stored_depth(kept) > depth {
                    // This search already knows more of the position:
                    // ProbCut's shallow searches visit the very positions
                    // the deep ones stored, and overwriting those cost
                    // 19% more nodes at depth 20 and nearly twice as many
                    // at depth 26 (BENCHMARKS.md, "Strength III: a deeper
                    // entry is kept").
                    return;
                }
                target = i;
                found = true;
                if best == NO_MOVE {
                    best = stored_best(kept);
                }
                break;
            }
        }
        if !found {
            // replace the less valuable of the two: an empty slot, else one
            // from an older search, else the shallower
            let value = |data: u64| -> i32 {
                if data == 0 {
                    return -1;
                }
                let age_bonus = if stored_age(data) == self.age { 256 } else { 0 };
                age_bonus + i32::from(stored_depth(data))
            };
            let (a, b) = (self.words[3 * base + 2], self.words[3 * base + 5]);
            target = if value(b) < value(a) { base + 1 } else { base };
        }
        let bound_bits = match bound {
            Bound::Exact => 1u64,
            Bound::Lower => 2,
            Bound::Upper => 3,
        };
        self.used = true;
        let score = score.clamp(i16::MIN as i32, i16::MAX as i32) as i16 as u16 as u64;
        let slot = &mut self.words[3 * target..3 * target + 3];
        slot[0] = board.player;
        slot[1] = board.opponent;
        slot[2] = score
            | (bound_bits << 16)
            | (u64::from(depth) << 24)
            | (u64::from(best) << 32)
            | (u64::from(self.age) << 40);
    }

    /// The enhanced transposition cut-off, for both searches: the first of
    /// `board`'s `children` (each with the move that leads to it) whose
    /// entry, at least `child_depth` deep, bounds its score at `-beta` or
    /// under refutes beta before any child is searched. Its score, from
    /// `board`'s side, is stored as `board`'s lower bound at `depth` and
    /// returned.
    #[inline]
    pub fn refutation(
        &mut self,
        board: &Board,
        children: impl Iterator<Item = (u8, Board)>,
        child_depth: u8,
        depth: u8,
        beta: i32,
    ) -> Option<i32> {
        for (best, child) in children {
            let Some(entry) = self.probe(&child) else {
                continue;
            };
            if entry.depth >= child_depth && entry.bound != Bound::Lower && -entry.score >= beta {
                self.store(board, -entry.score, Bound::Lower, depth, best);
                return Some(-entry.score);
            }
        }
        None
    }

    /// Asks the processor to bring `board`'s bucket into the cache, so that
    /// a probe soon after does not wait on memory: the solver probes every
    /// child of a deep node (enhanced transposition cut-off) right after
    /// generating them, and a probe that misses the cache is most of
    /// `deep`'s own time.
    #[inline]
    pub fn prefetch(&self, board: &Board) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let first = self.words[3 * self.bucket(board)..].as_ptr();
            // SAFETY: a prefetch is only a hint: it reads nothing and
            // cannot fault, whatever the address; SSE, which it needs, is
            // part of every x86-64. A bucket is 48 bytes and may straddle
            // two cache lines, hence two.
            unsafe {
                _mm_prefetch::<_MM_HINT_T0>(first.cast());
                _mm_prefetch::<_MM_HINT_T0>(first.wrapping_add(5).cast());
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = board;
    }

    /// Slots in the table.
    #[must_use]
    pub fn len(&self) -> usize {
        self.words.len() / 3
    }

    /// Whether the table has no slot at all.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }
}

/// The depth field of a slot's packed word (see [`Table::store`]).
#[inline]
fn stored_depth(data: u64) -> u8 {
    (data >> 24) as u8
}

/// The best-move field of a slot's packed word.
#[inline]
fn stored_best(data: u64) -> u8 {
    (data >> 32) as u8
}

/// The age field of a slot's packed word: the search that stored it.
#[inline]
fn stored_age(data: u64) -> u8 {
    (data >> 40) as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_and_finds() {
        let mut t = Table::new(1);
        let b = Board::start();
        assert!(t.probe(&b).is_none());
        t.store(&b, -1234, Bound::Lower, 7, 19);
        let e = t.probe(&b).unwrap();
        assert_eq!(
            (e.score, e.bound, e.depth, e.best),
            (-1234, Bound::Lower, 7, 19)
        );
        assert!(t.probe(&b.pass()).is_none());
        t.clear();
        assert!(t.probe(&b).is_none());
    }

    #[test]
    fn two_positions_of_one_bucket_are_both_kept() {
        let mut t = Table::new(1);
        let mut rng = fastrand::Rng::with_seed(5);
        // Random positions until three share a bucket.
        let mut buckets: std::collections::HashMap<usize, Vec<Board>> = Default::default();
        let (a, b, c) = loop {
            let board = Board::new(
                rng.u64(..) & 0x00ff_00ff_00ff_00ff,
                rng.u64(..) & 0xff00_ff00_ff00_ff00,
            );
            let same = buckets.entry(t.bucket(&board)).or_default();
            if !same.contains(&board) {
                same.push(board);
            }
            if same.len() == 3 {
                break (same[0], same[1], same[2]);
            }
        };
        t.store(&a, 100, Bound::Exact, 5, 1);
        t.store(&b, 200, Bound::Lower, 6, 2);
        assert_eq!(t.probe(&a).map(|e| e.score), Some(100));
        assert_eq!(t.probe(&b).map(|e| e.score), Some(200));
        // A third position replaces the shallower of the two.
        t.store(&c, 300, Bound::Exact, 7, 3);
        assert!(t.probe(&a).is_none());
        assert_eq!(t.probe(&b).map(|e| e.score), Some(200));
        assert_eq!(t.probe(&c).map(|e| e.score), Some(300));
        // The same position is updated in place.
        t.store(&b, 250, Bound::Exact, 9, 4);
        assert_eq!(t.probe(&b).map(|e| (e.score, e.depth)), Some((250, 9)));
    }

    #[test]
    fn a_shallower_result_of_the_same_search_leaves_the_deeper_one() {
        let mut t = Table::new(1);
        let b = Board::start();
        let found = |t: &Table| t.probe(&b).map(|e| (e.score, e.bound, e.depth, e.best));
        t.store(&b, 300, Bound::Lower, 12, 19);
        // A shallow search of the same position (ProbCut's) stores less.
        t.store(&b, -50, Bound::Upper, 4, 26);
        assert_eq!(found(&t), Some((300, Bound::Lower, 12, 19)));
        // As deep or deeper replaces it.
        t.store(&b, 280, Bound::Exact, 12, 37);
        assert_eq!(found(&t), Some((280, Bound::Exact, 12, 37)));
        // The next search's results replace the last one's at any depth.
        t.next_age();
        t.store(&b, 10, Bound::Upper, 2, 44);
        assert_eq!(found(&t), Some((10, Bound::Upper, 2, 44)));
    }

    #[test]
    fn a_result_with_no_best_move_keeps_the_stored_one() {
        let mut t = Table::new(1);
        let b = Board::start();
        let found = |t: &Table| t.probe(&b).map(|e| (e.score, e.bound, e.depth, e.best));
        t.store(&b, 120, Bound::Exact, 6, 19);
        t.next_age();
        t.store(&b, -40, Bound::Upper, 8, NO_MOVE);
        assert_eq!(found(&t), Some((-40, Bound::Upper, 8, 19)));
        // A move, when there is one, replaces it.
        t.store(&b, 60, Bound::Lower, 8, 37);
        assert_eq!(found(&t), Some((60, Bound::Lower, 8, 37)));
        // A new position with no best move names none.
        let other = b.play_index(19);
        t.store(&other, 0, Bound::Upper, 3, NO_MOVE);
        assert_eq!(t.probe(&other).map(|e| e.best), Some(NO_MOVE));
    }
}
