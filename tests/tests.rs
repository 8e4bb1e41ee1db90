//! One integration-test binary (linking one per file is slow on small machines).

mod util;

mod bench;
mod blocks;
mod cli;
mod crash;
mod engine;
mod index;
mod recall;
mod tui;
mod vamana;
mod verify;
