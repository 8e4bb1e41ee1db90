//! The `xvec` binary and what it drives, plus crash tests that kill child processes. One
//! integration-test binary (linking one per file is slow on small machines).

mod harness;
mod util;

mod arch;
mod bench;
mod bench_fresh;
mod bench_stream;
mod cli;
mod crash;
mod durability;
mod durability_sparse;
mod tui;
mod verify;
