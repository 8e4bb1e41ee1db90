//! The `xvec bench` engine: dataset readers, benchmark phases and reports. Library
//! side only (no terminal crates); `cli::bench` is its face.
//!
//! - [`config`]: what a run does; [`source`], `parquet`: the data (vector files through
//!   `xvec_io`'s [`dataset`]);
//!   [`attributes`]: the base rows' scalar fields, for `--filter`;
//!   [`truth`]: exact ground truth when there is none; [`prefix_truth`]: of every prefix.
//! - [`phases`]: runs it and measures (`xvec_io`'s [`sys`]: RSS, CPU, machine); [`report`]: the
//!   versioned JSON report.
//! - [`export`] (CSV rows), [`plot`] (SVG curve), [`compare`] (reports side by side).
//! - [`stream`]: `--streaming`, inserts and searches at once, reported over time.
//! - [`text`]: `--text`, full-text and hybrid query latency, and full-text indexing.
//! - [`fresh`]: `--fresh`, search latency with fresh rows, right after the inserts and
//!   once background maintenance indexed them, against a fully indexed collection.

// The data files and process statistics are `xvec-io`'s, shared with the tool.
use xvec_io::{dataset, sys};

pub mod attributes;
pub mod compare;
pub mod config;
pub mod export;
pub mod fresh;
#[cfg(feature = "parquet")]
pub mod parquet;
pub mod phases;
pub mod plot;
pub mod prefix_truth;
pub mod report;
pub mod source;
pub mod stream;
pub mod text;
pub mod truth;
