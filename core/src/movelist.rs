//! A list of up to 64 moves on the stack. Only 33 legal moves have ever been
//! found reachable, but 64 (one per square) makes overflow impossible.
//!
//! Kept behind this alias so the playing core can be bundled without the
//! crate (`reversi bundle`, which builds with `cfg(bundle)`): there the
//! alias names [`Fixed`], a plain array and a length.

use std::mem::MaybeUninit;
use std::ops::{Deref, DerefMut};

/// The moves of a position, on the stack (`arrayvec` in the crate, [`Fixed`] in the bundle).
#[cfg(not(bundle))]
pub type MoveList<T> = arrayvec::ArrayVec<T, 64>;
#[cfg(bundle)]
pub type MoveList<T> = Fixed<T>;

/// The in-house stand-in for `ArrayVec<T, 64>`: the part of its interface
/// the search uses, for `Copy` items (moves, boards, scores), which need no
/// dropping.
pub struct Fixed<T: Copy> {
    items: [MaybeUninit<T>; 64],
    len: usize,
}

impl<T: Copy> Fixed<T> {
    /// An empty list.
    #[must_use]
    pub fn new() -> Fixed<T> {
        Fixed {
            items: [MaybeUninit::uninit(); 64],
            len: 0,
        }
    }

    /// Adds `item` at the end. Panics past 64 items, as `ArrayVec` does:
    /// a position has at most 64 moves, so that is a bug, not an input.
    pub fn push(&mut self, item: T) {
        self.items[self.len] = MaybeUninit::new(item);
        self.len += 1;
    }
}

impl<T: Copy> Default for Fixed<T> {
    fn default() -> Fixed<T> {
        Fixed::new()
    }
}

impl<T: Copy> Deref for Fixed<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        // SAFETY: the first `len` items were written by `push`, and `T`
        // is `Copy`, so reading them as `T` is sound.
        unsafe { std::slice::from_raw_parts(self.items.as_ptr().cast::<T>(), self.len) }
    }
}

impl<T: Copy> DerefMut for Fixed<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as in `deref`, and `&mut self` makes the borrow unique.
        unsafe { std::slice::from_raw_parts_mut(self.items.as_mut_ptr().cast::<T>(), self.len) }
    }
}

impl<T: Copy> FromIterator<T> for Fixed<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Fixed<T> {
        let mut list = Fixed::new();
        for item in iter {
            list.push(item);
        }
        list
    }
}

impl<T: Copy> Extend<T> for Fixed<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        for item in iter {
            self.push(item);
        }
    }
}

impl<'a, T: Copy> IntoIterator for &'a Fixed<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stand_in_behaves_as_arrayvec_for_what_the_search_does() {
        let mut ours: Fixed<(u8, i32)> = Fixed::new();
        let mut theirs: arrayvec::ArrayVec<(u8, i32), 64> = arrayvec::ArrayVec::new();
        for i in 0..64u8 {
            let item = (i, (i32::from(i) * 37) % 11 - 5);
            ours.push(item);
            theirs.push(item);
        }
        ours.sort_by_key(|&(sq, key)| (-key, sq));
        theirs.sort_by_key(|&(sq, key)| (-key, sq));
        assert_eq!(&ours[..], &theirs[..]);
        ours.swap(0, 63);
        theirs.swap(0, 63);
        assert_eq!(
            ours.iter().collect::<Vec<_>>(),
            (&theirs).into_iter().collect::<Vec<_>>()
        );
        let mut collected: Fixed<u8> = (0..5).collect();
        collected.extend([5, 6]);
        assert_eq!((collected.len(), collected[6]), (7, 6));
        assert!(Fixed::<u8>::default().is_empty());
    }
}
