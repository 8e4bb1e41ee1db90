//! Search knobs: the per-query settings of a vector index (`ef`, `nprobe`,
//! `target_recall`, `refine`, `beam_width`), defined once. Which knobs an index kind takes, the field's
//! defaults, the bounds a query's value keeps and the help text all come from here; the
//! query planner, verify's recall check, the tool's flags and the dashboard read them, so
//! a knob an index would ignore is refused everywhere rather than silently dropped.

use std::fmt;

use serde::Serialize;

use super::{IndexParams, MAX_NLIST, Quantize};
use crate::error::QueryError;

/// Largest search breadth a query may ask for: HNSW `ef`, Vamana `query_list`.
pub const MAX_EF: usize = 100_000;

/// Most candidates a query may re-rank with the originals: `refine × k` (with
/// [`GroupBy`](crate::GroupBy), `refine ×` the candidates the index is asked for).
pub const MAX_REFINE_CANDIDATES: usize = 1_000_000;

/// Widest beam a disk index may search with, per query or as the index's `beam_width`:
/// nodes expanded, and so blocks read, per hop.
pub const MAX_BEAM_WIDTH: usize = 64;

/// A per-query search setting (see [`Query`](crate::Query)'s setter of the same name).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Knob {
    /// Search breadth of a graph (HNSW `ef`, Vamana `query_list`).
    Ef,
    /// IVF lists to probe.
    Nprobe,
    /// IVF lists to probe, chosen by the share of true neighbours they held at build.
    TargetRecall,
    /// Re-rank factor of a quantized index.
    Refine,
    /// Nodes a disk index expands, and so blocks it reads, per hop.
    BeamWidth,
}

impl Knob {
    /// Every knob, in the order help texts list them.
    pub const ALL: [Knob; 5] = [Knob::Ef, Knob::Nprobe, Knob::TargetRecall, Knob::Refine, Knob::BeamWidth];

    /// The knob's name, as [`Query`](crate::Query)'s setter and hybrid JSON spell it.
    pub fn name(self) -> &'static str {
        match self {
            Knob::Ef => "ef",
            Knob::Nprobe => "nprobe",
            Knob::TargetRecall => "target_recall",
            Knob::Refine => "refine",
            Knob::BeamWidth => "beam_width",
        }
    }

    /// What the knob does, and for which indexes, as a message completes "`ef` ...".
    pub fn help(self) -> &'static str {
        match self {
            Knob::Ef => {
                "sets the search breadth of hnsw, vamana and disk indexes (at least k; more is slower, higher recall)"
            }
            Knob::Nprobe => "sets the lists an ivf index probes (more lists, higher recall, slower)",
            Knob::TargetRecall => {
                "sets the lists an ivf index probes by the share, in (0, 1], of true neighbours they held at build"
            }
            Knob::Refine => {
                "re-ranks refine × k candidates of a quantized index (\"quantize\": \"int8\", ...) with the original vectors; a qg index on the originals scores refine × k of the neighbours its beam turned away"
            }
            Knob::BeamWidth => {
                "sets the nodes a disk index expands, and so blocks it reads, per hop (1..=64; wider: more reads, fewer round trips)"
            }
        }
    }

    /// The least value a query may give (`min_exclusive`: values must be above it).
    fn bounds(self) -> (f64, bool, f64) {
        match self {
            Knob::Ef => (1.0, false, MAX_EF as f64),
            Knob::Nprobe => (1.0, false, MAX_NLIST as f64),
            Knob::TargetRecall => (0.0, true, 1.0),
            Knob::Refine => (0.0, false, MAX_REFINE_CANDIDATES as f64),
            Knob::BeamWidth => (1.0, false, MAX_BEAM_WIDTH as f64),
        }
    }
}

impl fmt::Display for Knob {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for Knob {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// One knob a field's index takes: its default for the field, the bounds of a query's
/// value and what it does. Integer knobs (all but `target_recall`) hold whole numbers.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[non_exhaustive]
pub struct SearchKnob {
    /// Which knob.
    #[serde(rename = "name")]
    pub knob: Knob,
    /// What a query that does not give the knob gets (the field's index parameters);
    /// `None`: the knob is off unless given (`target_recall`, where `nprobe` rules).
    pub default: Option<f64>,
    /// The least value a query may give (with `min_exclusive`, values must be above it).
    pub min: f64,
    /// Whether `min` itself is refused (`target_recall` must be above 0).
    pub min_exclusive: bool,
    /// The largest value a query may give (`refine`: the bound of `refine × k`; `ef`: at
    /// least `k` besides).
    pub max: f64,
    /// What it does, for help texts.
    pub help: &'static str,
}

impl IndexParams {
    /// The knob `knob` of this index, `None` when the index does not take it (a query
    /// giving it fails with [`QueryError::KnobDoesNotApply`]).
    pub fn search_knob(&self, knob: Knob) -> Option<SearchKnob> {
        let default = match knob {
            Knob::Ef => match self {
                IndexParams::Hnsw(p) => Some(p.ef as f64),
                IndexParams::Vamana(p) => Some(p.query_list as f64),
                IndexParams::Qg(p) => Some(p.ef as f64),
                IndexParams::Disk(p) => Some(p.query_list as f64),
                IndexParams::Flat(_) | IndexParams::Ivf(_) => return None,
            },
            Knob::Nprobe => match self {
                IndexParams::Ivf(p) => Some(p.nprobe as f64),
                IndexParams::Flat(_)
                | IndexParams::Hnsw(_)
                | IndexParams::Vamana(_)
                | IndexParams::Qg(_)
                | IndexParams::Disk(_) => {
                    return None;
                }
            },
            Knob::TargetRecall => match self {
                IndexParams::Ivf(_) => None,
                IndexParams::Flat(_)
                | IndexParams::Hnsw(_)
                | IndexParams::Vamana(_)
                | IndexParams::Qg(_)
                | IndexParams::Disk(_) => {
                    return None;
                }
            },
            // A quantization knob: any kind with codes takes it but the disk kind, whose
            // results are scored on the full vectors already. A qg index ranks its beam on
            // its neighbours' one-bit codes, so it takes it on the originals too.
            Knob::Refine => {
                let q = self.quant();
                let quantized = q.quantize != Quantize::None || self.kind() == super::IndexType::Qg;
                if !quantized || self.kind() == super::IndexType::Disk {
                    return None;
                }
                Some(q.refine as f64)
            }
            Knob::BeamWidth => match self {
                IndexParams::Disk(p) => Some(p.beam_width as f64),
                IndexParams::Flat(_)
                | IndexParams::Hnsw(_)
                | IndexParams::Vamana(_)
                | IndexParams::Qg(_)
                | IndexParams::Ivf(_) => return None,
            },
        };
        let (min, min_exclusive, max) = knob.bounds();
        Some(SearchKnob { knob, default, min, min_exclusive, max, help: knob.help() })
    }

    /// Every knob this index takes, in [`Knob::ALL`]'s order.
    ///
    /// ```
    /// use xvec::{IndexParams, IvfParams, Knob, Quantize};
    /// let ivf = IndexParams::Ivf(IvfParams::default().nprobe(8).quantize(Quantize::Int8).refine(4));
    /// let knobs: Vec<(Knob, Option<f64>)> = ivf.search_knobs().iter().map(|k| (k.knob, k.default)).collect();
    /// assert_eq!(knobs, [(Knob::Nprobe, Some(8.0)), (Knob::TargetRecall, None), (Knob::Refine, Some(4.0))]);
    /// assert!(IndexParams::default().search_knobs().is_empty());
    /// ```
    pub fn search_knobs(&self) -> Vec<SearchKnob> {
        Knob::ALL.into_iter().filter_map(|k| self.search_knob(k)).collect()
    }

    /// The field's default of an integer knob, `None` when the index does not take it.
    pub(crate) fn knob_default(&self, knob: Knob) -> Option<usize> {
        self.search_knob(knob).and_then(|k| k.default).map(|d| d as usize)
    }

    /// How a message names this index where `knob` does not apply: its type, and for
    /// `refine` that it scores the original vectors.
    pub fn knob_refusal(&self, knob: Knob) -> Option<String> {
        if self.search_knob(knob).is_some() {
            return None;
        }
        Some(match knob {
            Knob::Refine if self.kind() == super::IndexType::Disk => {
                format!("{}, whose results are scored on the original vectors already", self.name())
            }
            Knob::Refine => format!("{} with no quantization, scoring the original vectors", self.name()),
            Knob::Ef | Knob::Nprobe | Knob::TargetRecall | Knob::BeamWidth => self.name().to_string(),
        })
    }

    /// Fails when a query gives `knob` and this index (of vector field `field`) does not
    /// take it.
    pub(crate) fn check_knob(&self, knob: Knob, given: bool, field: &str) -> Result<(), QueryError> {
        match self.knob_refusal(knob) {
            Some(index) if given => Err(QueryError::KnobDoesNotApply {
                knob: knob.name(),
                help: knob.help(),
                field: field.to_string(),
                index,
            }),
            _ => Ok(()),
        }
    }

    /// Fails when a query's `ef` is below its `k`: the index could not return `k` hits.
    pub(crate) fn check_ef(&self, ef: usize, k: usize) -> Result<(), QueryError> {
        if ef >= k {
            return Ok(());
        }
        match self {
            IndexParams::Vamana(_) | IndexParams::Disk(_) => Err(QueryError::QueryListBelowK { list: ef, k }),
            IndexParams::Hnsw(_) | IndexParams::Qg(_) | IndexParams::Flat(_) | IndexParams::Ivf(_) => {
                Err(QueryError::EfBelowK { ef, k })
            }
        }
    }
}
