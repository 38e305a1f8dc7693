//! A list of up to 64 moves on the stack. Only 33 legal moves have ever been
//! found reachable, but 64 (one per square) makes overflow impossible.
//!
//! Kept behind this alias so the playing core can be bundled without the
//! crate by swapping the alias for a fixed array.

pub type MoveList<T> = arrayvec::ArrayVec<T, 64>;
