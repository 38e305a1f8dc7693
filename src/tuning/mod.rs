//! Fitting the search's numbers to measurements: ProbCut's margins, and
//! the least-squares solver that fits them (and the bundle's packed
//! model).

pub mod least_squares;
pub mod probcut;
