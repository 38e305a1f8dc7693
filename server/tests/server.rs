//! The server's tests, in one binary: its modules on their own, then the
//! server as a user meets it.

mod attack;
mod contests;
mod ggs;
mod judge;
mod pages;
mod pg;
mod remote;
mod shared;
mod units;
