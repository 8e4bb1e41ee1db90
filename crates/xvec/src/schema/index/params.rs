//! Each vector index kind's parameters (`FlatParams`, `HnswParams`, `VamanaParams`,
//! `DiskParams`, `IvfParams`, `QgParams`), their defaults and builder setters. What they
//! share (the `IndexParams` enum, quantization, validation) is in `mod.rs`.

use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::schema::Quantize;
use crate::schema::types::{UnknownName, parse_name};

fn default_m() -> u32 {
    16
}
fn default_ef_construction() -> u32 {
    200
}
fn default_ef() -> u32 {
    64
}
pub(super) fn default_seed() -> u64 {
    42
}
fn default_degree() -> u32 {
    64
}
fn default_build_list() -> u32 {
    100
}
fn default_query_list() -> u32 {
    200
}
fn default_alpha() -> f32 {
    1.2
}
fn default_occlusion() -> u32 {
    750
}
fn default_nlist() -> u32 {
    1024
}
fn default_nprobe() -> u32 {
    16
}

/// Most neighbour slots per node of a quantized graph.
pub const MAX_QG_DEGREE: u32 = 256;

/// Most lists an IVF index may ask for.
pub const MAX_NLIST: u32 = 65_536;

/// Exact search, over the originals or over quantized codes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct FlatParams {
    /// How the index stores vectors; with the default (none) no index file is built and
    /// search scans the segment's originals.
    #[serde(default)]
    pub quantize: Quantize,
    /// Defaults to true for int8 and int4.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotate: Option<bool>,
    /// Default re-rank factor, 0..=1000 (`None`: 0, scores come from the codes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refine: Option<u32>,
    /// Bits per dimension of RaBitQ codes, 1..=8; only with `quantize = rabitq`. A new
    /// schema writes [`DEFAULT_RABITQ_BITS`](super::DEFAULT_RABITQ_BITS) in when it names none; `None` is a schema
    /// stored before that, whose codes have 7 bits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bits: Option<u8>,
}

/// Hierarchical navigable small world graph.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct HnswParams {
    /// Edges per node on the upper layers; the base layer keeps `2 m`.
    #[serde(default = "default_m")]
    pub m: u32,
    /// Candidate list size while building.
    #[serde(default = "default_ef_construction")]
    pub ef_construction: u32,
    /// Default candidate list size while searching (a query may override it).
    #[serde(default = "default_ef")]
    pub ef: u32,
    /// Seed of level assignment and rotation: one thread + one seed = one graph.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// How the index stores vectors (default: the originals, no codes).
    #[serde(default)]
    pub quantize: Quantize,
    /// Rotate before encoding; `None` means true for int8 and int4, false otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotate: Option<bool>,
    /// Default re-rank factor, 0..=1000 (`None`: 0, scores come from the codes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refine: Option<u32>,
    /// Bits per dimension of RaBitQ codes, 1..=8; only with `quantize = rabitq`. A new
    /// schema writes [`DEFAULT_RABITQ_BITS`](super::DEFAULT_RABITQ_BITS) in when it names none; `None` is a schema
    /// stored before that, whose codes have 7 bits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bits: Option<u8>,
}

impl Default for HnswParams {
    fn default() -> Self {
        HnswParams {
            m: default_m(),
            ef_construction: default_ef_construction(),
            ef: default_ef(),
            seed: default_seed(),
            quantize: Quantize::None,
            rotate: None,
            refine: None,
            bits: None,
        }
    }
}

/// Vamana (DiskANN) graph: one layer of bounded degree, built by greedy search and
/// alpha-relaxed robust prune.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct VamanaParams {
    /// Most neighbours per node (R).
    #[serde(default = "default_degree")]
    pub degree: u32,
    /// Candidate list size while building (L).
    #[serde(default = "default_build_list")]
    pub build_list: u32,
    /// Default candidate list size while searching (a query's `ef` overrides it).
    #[serde(default = "default_query_list")]
    pub query_list: u32,
    /// Prune relaxation: a candidate survives unless a kept neighbour is `alpha` times
    /// closer to it than the node is (for L2 and cosine distances).
    #[serde(default = "default_alpha")]
    pub alpha: f32,
    /// Most candidates robust prune considers per node.
    #[serde(default = "default_occlusion")]
    pub occlusion: u32,
    /// Seed of the initial graph, insertion order and rotation: one seed = one graph.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// How the index stores vectors (default: the originals, no codes).
    #[serde(default)]
    pub quantize: Quantize,
    /// Rotate before encoding; `None` means true for int8 and int4, false otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotate: Option<bool>,
    /// Default re-rank factor, 0..=1000 (`None`: 0, scores come from the codes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refine: Option<u32>,
    /// Bits per dimension of RaBitQ codes, 1..=8; only with `quantize = rabitq`. A new
    /// schema writes [`DEFAULT_RABITQ_BITS`](super::DEFAULT_RABITQ_BITS) in when it names none; `None` is a schema
    /// stored before that, whose codes have 7 bits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bits: Option<u8>,
}

impl Default for VamanaParams {
    fn default() -> Self {
        VamanaParams {
            degree: default_degree(),
            build_list: default_build_list(),
            query_list: default_query_list(),
            alpha: default_alpha(),
            occlusion: default_occlusion(),
            seed: default_seed(),
            quantize: Quantize::None,
            rotate: None,
            refine: None,
            bits: None,
        }
    }
}

/// Bits per dimension of a disk-resident index's RaBitQ codes when the schema names none:
/// the codes only rank which nodes to read (the results are scored on the full vectors
/// read with them), so they can be coarser than an in-memory index's.
pub const DEFAULT_DISK_BITS: u8 = 4;

fn default_disk_list() -> u32 {
    100
}
fn default_beam_width() -> u32 {
    4
}
fn default_disk_quantize() -> Quantize {
    Quantize::Rabitq
}

/// Disk-resident Vamana (DiskANN): the graph and the full vectors in 4 KiB node blocks of
/// the index file, read as a search needs them; only RaBitQ codes and a cache of
/// neighbour lists stay in memory (sized by `OpenOptions::memory_budget`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct DiskParams {
    /// Most neighbours per node (R).
    #[serde(default = "default_degree")]
    pub degree: u32,
    /// Candidate list size while building (L).
    #[serde(default = "default_build_list")]
    pub build_list: u32,
    /// Default candidate list size while searching (a query's `ef` overrides it).
    #[serde(default = "default_disk_list")]
    pub query_list: u32,
    /// Prune relaxation, as Vamana's.
    #[serde(default = "default_alpha")]
    pub alpha: f32,
    /// Most candidates robust prune considers per node.
    #[serde(default = "default_occlusion")]
    pub occlusion: u32,
    /// Seed of the graph and the rotation.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Nodes expanded per hop, whose blocks are read together (W).
    #[serde(default = "default_beam_width")]
    pub beam_width: u32,
    /// The in-memory codes: `rabitq`, the only kind this index takes.
    #[serde(default = "default_disk_quantize")]
    pub quantize: Quantize,
    /// Rotate before encoding (RaBitQ needs it: only true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotate: Option<bool>,
    /// Always 0: the results are scored on the full vectors of the blocks read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refine: Option<u32>,
    /// Bits per dimension of the RaBitQ codes, 1..=8 ([`DEFAULT_DISK_BITS`] when none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bits: Option<u8>,
}

impl Default for DiskParams {
    fn default() -> Self {
        DiskParams {
            degree: default_degree(),
            build_list: default_build_list(),
            query_list: default_disk_list(),
            alpha: default_alpha(),
            occlusion: default_occlusion(),
            seed: default_seed(),
            beam_width: default_beam_width(),
            quantize: default_disk_quantize(),
            rotate: None,
            refine: None,
            bits: None,
        }
    }
}

impl DiskParams {
    /// The Vamana parameters its graph is built with.
    pub(crate) fn vamana(&self) -> VamanaParams {
        VamanaParams {
            degree: self.degree,
            build_list: self.build_list,
            query_list: self.query_list,
            alpha: self.alpha,
            occlusion: self.occlusion,
            seed: self.seed,
            ..VamanaParams::default()
        }
    }
}

/// Inverted file: k-means lists per segment; a query scores the rows of its nearest
/// `nprobe` lists.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct IvfParams {
    /// Lists of a segment, 1..=65536; a segment of n rows gets at most n / 32.
    #[serde(default = "default_nlist")]
    pub nlist: u32,
    /// Default lists a query probes (of `nlist`; a query may override it).
    #[serde(default = "default_nprobe")]
    pub nprobe: u32,
    /// Keep every row in a second list too, chosen by SOAR's spilled loss: higher recall
    /// at the same `nprobe`, for twice the entries.
    #[serde(default)]
    pub soar: bool,
    /// Seed of the k-means sample and of the rotation.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// How the lists store vectors (default: row ids only, scored on the originals).
    #[serde(default)]
    pub quantize: Quantize,
    /// Rotate before encoding; `None` means true for int8, int4 and rabitq.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotate: Option<bool>,
    /// Default re-rank factor, 0..=1000 (`None`: 0, scores come from the codes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refine: Option<u32>,
    /// Bits per dimension of RaBitQ codes, 1..=8; only with `quantize = rabitq`. A new
    /// schema writes [`DEFAULT_RABITQ_BITS`](super::DEFAULT_RABITQ_BITS) in when it names none; `None` is a schema
    /// stored before that, whose codes have 7 bits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bits: Option<u8>,
}

impl Default for IvfParams {
    fn default() -> Self {
        IvfParams {
            nlist: default_nlist(),
            nprobe: default_nprobe(),
            soar: false,
            seed: default_seed(),
            quantize: Quantize::None,
            rotate: None,
            refine: None,
            bits: None,
        }
    }
}

/// The graph a quantized graph lays out its blocks from. Vamana is the default: on
/// wordnet-minilm-384 (degree 32, build list 200) it reached recall@10 0.980 at ef 48
/// where HNSW's base layer reached 0.973 (0.982 at ef 64), so 19,355 against 13,511 QPS
/// at 0.98 (`index/qg/` sweep, a loaded 2-core AMD EPYC); its alpha-pruned long edges
/// suit a single layer searched from the medoid. It builds slower (111 s against 82 s
/// there).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum QgBase {
    /// HNSW's base layer, `m = degree / 2` (`m0 = degree`).
    Hnsw,
    /// Vamana, `R = degree`, alpha 1.2.
    #[default]
    Vamana,
}

impl QgBase {
    /// Every base graph, in the order help texts list them.
    pub const ALL: [QgBase; 2] = [QgBase::Vamana, QgBase::Hnsw];

    /// The `graph` of the schema's qg object.
    pub fn name(self) -> &'static str {
        match self {
            QgBase::Hnsw => "hnsw",
            QgBase::Vamana => "vamana",
        }
    }
}

impl FromStr for QgBase {
    type Err = UnknownName;

    fn from_str(s: &str) -> Result<QgBase, UnknownName> {
        parse_name("qg base graph", &QgBase::ALL, QgBase::name, s)
    }
}

/// Quantized graph (SymphonyQG): per node one block of its neighbours' one-bit RaBitQ
/// codes, scored 32 at a time; only the nodes a search expands are scored exactly.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct QgParams {
    /// Neighbour slots per node: 32, 64, ... (a multiple of 32, up to 256).
    #[serde(default = "default_qg_degree")]
    pub degree: u32,
    /// The graph the blocks are laid out from.
    #[serde(default)]
    pub graph: QgBase,
    /// The base graph's candidate list while building (HNSW `ef_construction`, Vamana `L`).
    #[serde(default = "default_ef_construction")]
    pub build_list: u32,
    /// Default search breadth (a query's `ef` overrides it).
    #[serde(default = "default_ef")]
    pub ef: u32,
    /// Seed of the base graph and the rotation.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// How expanded nodes are scored (default: the originals).
    #[serde(default)]
    pub quantize: Quantize,
    /// Rotate before encoding; `None` means true for int8, int4 and rabitq.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotate: Option<bool>,
    /// Default re-rank factor, 0..=1000 (`None`: 0, scores come from the codes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refine: Option<u32>,
    /// Bits per dimension of RaBitQ codes, 1..=8; only with `quantize = rabitq`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bits: Option<u8>,
}

fn default_qg_degree() -> u32 {
    32
}

impl Default for QgParams {
    fn default() -> Self {
        QgParams {
            degree: default_qg_degree(),
            graph: QgBase::default(),
            build_list: default_ef_construction(),
            ef: default_ef(),
            seed: default_seed(),
            quantize: Quantize::None,
            rotate: None,
            refine: None,
            bits: None,
        }
    }
}

/// Builder-style setters, one per field, because the structs are `#[non_exhaustive]`
/// and cannot be built literally outside the engine: `HnswParams::default().m(8)`.
/// Fields after `;` are optional in the schema; their setter takes the plain value.
macro_rules! setters {
    ($ty:ident { $($field:ident: $t:ty),* ; $($opt:ident: $ot:ty),* }) => {
        impl $ty {
            $(
                #[doc = concat!("Sets `", stringify!($field), "`.")]
                pub fn $field(mut self, value: $t) -> Self {
                    self.$field = value;
                    self
                }
            )*
            $(
                #[doc = concat!("Sets `", stringify!($opt), "`.")]
                pub fn $opt(mut self, value: $ot) -> Self {
                    self.$opt = Some(value);
                    self
                }
            )*
        }
    };
}

setters!(FlatParams { quantize: Quantize; rotate: bool, refine: u32, bits: u8 });
setters!(HnswParams { m: u32, ef_construction: u32, ef: u32, seed: u64, quantize: Quantize; rotate: bool, refine: u32, bits: u8 });
setters!(VamanaParams {
    degree: u32, build_list: u32, query_list: u32, alpha: f32, occlusion: u32, seed: u64, quantize: Quantize;
    rotate: bool, refine: u32, bits: u8
});
setters!(QgParams {
    degree: u32, graph: QgBase, build_list: u32, ef: u32, seed: u64, quantize: Quantize; rotate: bool, refine: u32, bits: u8
});
setters!(DiskParams {
    degree: u32, build_list: u32, query_list: u32, alpha: f32, occlusion: u32, seed: u64, beam_width: u32;
    bits: u8
});
setters!(IvfParams { nlist: u32, nprobe: u32, soar: bool, seed: u64, quantize: Quantize; rotate: bool, refine: u32, bits: u8 });
