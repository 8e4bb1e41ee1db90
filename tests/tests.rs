//! One integration-test binary (linking one per file is slow on small machines).

mod util;

mod bench;
mod blocks;
mod bounds;
mod cli;
mod crash;
mod durability;
mod engine;
mod faults;
mod index;
mod recall;
mod tui;
mod vamana;
mod verify;
