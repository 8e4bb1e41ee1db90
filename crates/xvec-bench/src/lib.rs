//! The `xvec bench` engine: dataset readers, benchmark phases and reports. Library
//! side only (no terminal crates); `cli::bench` is its face.
//!
//! - [`config`]: what a run does; [`source`], [`dataset`], [`npy`], `parquet`: the data;
//!   [`attributes`]: the base rows' scalar fields, for `--filter`;
//!   [`truth`]: exact ground truth when there is none; [`prefix_truth`]: of every prefix.
//! - [`phases`]: runs it and measures ([`sys`]: RSS, CPU, machine); [`report`]: the
//!   versioned JSON report.
//! - [`export`] (CSV rows), [`plot`] (SVG curve), [`compare`] (reports side by side).
//! - [`stream`]: `--streaming`, inserts and searches at once, reported over time.
//! - [`text`]: `--text`, full-text and hybrid query latency, and full-text indexing.
//! - [`fresh`]: `--fresh`, search latency with fresh rows, right after the inserts and
//!   once background maintenance indexed them, against a fully indexed collection.

pub mod attributes;
pub mod compare;
pub mod config;
pub mod dataset;
pub mod export;
pub mod fresh;
pub mod npy;
#[cfg(feature = "parquet")]
pub mod parquet;
pub mod phases;
pub mod plot;
pub mod prefix_truth;
pub mod report;
pub mod source;
pub mod stream;
pub mod sys;
pub mod text;
pub mod truth;
