//! The `xvec bench` engine: dataset readers, benchmark phases and reports.

pub mod dataset;
pub mod npy;
