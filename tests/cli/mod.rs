//! The real `xvec` binary: argv commands, the shell in batch mode and under a terminal,
//! generated docs, example scripts and output modes.

mod backup;
mod bounds;
mod browse;
mod cgroup;
mod commands;
mod docs;
mod errors;
mod export;
mod habits;

mod input;
mod interrupt;
mod messages;
mod meta;
mod modes;
mod open_files;
mod params;
pub(crate) mod pty;
mod scripts;
mod set_index;
mod shell;
mod versions;
mod wal_cut;
