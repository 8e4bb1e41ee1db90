//! Index parameters of a vector field: one variant per index type, each with the
//! engine's defaults, and the range checks a schema and the tool's flags share.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::types::{UnknownName, parse_name};
use super::{Quantize, VectorSpec, VectorType};
use crate::error::SchemaError;

/// Quantization settings shared by every index type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct QuantSpec {
    /// How the index stores vectors.
    pub quantize: Quantize,
    /// Apply the seeded random orthogonal rotation before encoding.
    pub rotate: bool,
    /// Default re-rank factor: `refine × k` candidates are re-scored with the originals.
    pub refine: u32,
    /// Bits per dimension of RaBitQ codes, sign included (1..=8); 0 for other codes.
    pub bits: u8,
}

/// Bits per dimension of RaBitQ codes a new schema gets when it names none (see
/// `docs/format.md`, "RaBitQ codes", for the measurement behind it). A schema is built
/// with it written in ([`IndexParams::pin_defaults`]), so a later change of this default
/// never changes what a stored index means.
pub const DEFAULT_RABITQ_BITS: u8 = 8;

/// What a stored schema without `bits` means: the default of the builds that stored
/// schemas without pinning it (bdc8ae5 to 109c2f2).
const UNPINNED_RABITQ_BITS: u8 = 7;

/// The most bits per dimension a RaBitQ code holds: a sign bit and seven extended bits fill a byte.
pub const MAX_RABITQ_BITS: u8 = 8;

fn default_m() -> u32 {
    16
}
fn default_ef_construction() -> u32 {
    200
}
fn default_ef() -> u32 {
    64
}
fn default_seed() -> u64 {
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
    /// schema writes [`DEFAULT_RABITQ_BITS`] in when it names none; `None` is a schema
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
    /// schema writes [`DEFAULT_RABITQ_BITS`] in when it names none; `None` is a schema
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
    /// schema writes [`DEFAULT_RABITQ_BITS`] in when it names none; `None` is a schema
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
/// the index file, read as a search needs them; only RaBitQ codes and a cache of the
/// entry's neighbourhood stay in memory (sized by `OpenOptions::memory_budget`).
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
    /// schema writes [`DEFAULT_RABITQ_BITS`] in when it names none; `None` is a schema
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

/// The index types, without their parameters: what a flag or a report names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum IndexType {
    /// [`IndexParams::Flat`].
    Flat,
    /// [`IndexParams::Hnsw`].
    Hnsw,
    /// [`IndexParams::Vamana`].
    Vamana,
    /// [`IndexParams::Ivf`].
    Ivf,
    /// [`IndexParams::Qg`].
    Qg,
    /// [`IndexParams::Disk`].
    Disk,
}

impl IndexType {
    /// Every index type, in the order help texts list them.
    pub const ALL: [IndexType; 6] =
        [IndexType::Flat, IndexType::Hnsw, IndexType::Vamana, IndexType::Ivf, IndexType::Qg, IndexType::Disk];

    /// The `type` of the schema's index object.
    pub fn name(self) -> &'static str {
        match self {
            IndexType::Flat => "flat",
            IndexType::Hnsw => "hnsw",
            IndexType::Vamana => "vamana",
            IndexType::Ivf => "ivf",
            IndexType::Qg => "qg",
            IndexType::Disk => "disk",
        }
    }
}

impl FromStr for IndexType {
    type Err = UnknownName;

    fn from_str(s: &str) -> Result<IndexType, UnknownName> {
        parse_name("index type", &IndexType::ALL, IndexType::name, s)
    }
}

impl fmt::Display for IndexType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for IndexType {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// Index built over a vector field. Grows with each index type the engine learns.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
#[non_exhaustive]
pub enum IndexParams {
    /// Exact search over every stored vector (or its codes).
    Flat(FlatParams),
    /// Approximate search over an HNSW graph.
    Hnsw(HnswParams),
    /// Approximate search over a Vamana (DiskANN) graph.
    Vamana(VamanaParams),
    /// Approximate search over k-means lists.
    Ivf(IvfParams),
    /// Approximate search over a quantized graph.
    Qg(QgParams),
    /// Approximate search over a Vamana graph kept on disk with the vectors.
    Disk(DiskParams),
}

impl Default for IndexParams {
    fn default() -> Self {
        IndexParams::Flat(FlatParams::default())
    }
}

impl IndexParams {
    /// Whether searches of the index may miss true neighbours (the graphs); a flat
    /// field's search is exact and scans unindexed rows exactly too.
    pub fn is_approximate(&self) -> bool {
        match self {
            IndexParams::Flat(_) => false,
            IndexParams::Hnsw(_)
            | IndexParams::Vamana(_)
            | IndexParams::Ivf(_)
            | IndexParams::Qg(_)
            | IndexParams::Disk(_) => true,
        }
    }

    /// The engine's defaults for every parameter of `kind`.
    pub fn defaults(kind: IndexType) -> IndexParams {
        match kind {
            IndexType::Flat => IndexParams::Flat(FlatParams::default()),
            IndexType::Hnsw => IndexParams::Hnsw(HnswParams::default()),
            IndexType::Vamana => IndexParams::Vamana(VamanaParams::default()),
            IndexType::Ivf => IndexParams::Ivf(IvfParams::default()),
            IndexType::Qg => IndexParams::Qg(QgParams::default()),
            IndexType::Disk => IndexParams::Disk(DiskParams::default()),
        }
    }

    /// The index type, without its parameters.
    pub fn kind(&self) -> IndexType {
        match self {
            IndexParams::Flat(_) => IndexType::Flat,
            IndexParams::Hnsw(_) => IndexType::Hnsw,
            IndexParams::Vamana(_) => IndexType::Vamana,
            IndexParams::Ivf(_) => IndexType::Ivf,
            IndexParams::Qg(_) => IndexType::Qg,
            IndexParams::Disk(_) => IndexType::Disk,
        }
    }

    /// The `type` of the schema's index object (`flat`, `hnsw`, `vamana`, `ivf`, `qg`,
    /// `disk`).
    pub fn name(&self) -> &'static str {
        self.kind().name()
    }

    /// The HNSW parameters, `None` for another index type.
    pub fn hnsw_mut(&mut self) -> Option<&mut HnswParams> {
        match self {
            IndexParams::Hnsw(p) => Some(p),
            IndexParams::Flat(_)
            | IndexParams::Vamana(_)
            | IndexParams::Ivf(_)
            | IndexParams::Qg(_)
            | IndexParams::Disk(_) => None,
        }
    }

    /// The Vamana parameters, `None` for another index type.
    pub fn vamana_mut(&mut self) -> Option<&mut VamanaParams> {
        match self {
            IndexParams::Vamana(p) => Some(p),
            IndexParams::Flat(_)
            | IndexParams::Hnsw(_)
            | IndexParams::Ivf(_)
            | IndexParams::Qg(_)
            | IndexParams::Disk(_) => None,
        }
    }

    /// The IVF parameters, `None` for another index type.
    pub fn ivf_mut(&mut self) -> Option<&mut IvfParams> {
        match self {
            IndexParams::Ivf(p) => Some(p),
            IndexParams::Flat(_)
            | IndexParams::Hnsw(_)
            | IndexParams::Vamana(_)
            | IndexParams::Qg(_)
            | IndexParams::Disk(_) => None,
        }
    }

    /// The quantized graph's parameters, `None` for another index type.
    pub fn qg_mut(&mut self) -> Option<&mut QgParams> {
        match self {
            IndexParams::Qg(p) => Some(p),
            IndexParams::Flat(_)
            | IndexParams::Hnsw(_)
            | IndexParams::Vamana(_)
            | IndexParams::Ivf(_)
            | IndexParams::Disk(_) => None,
        }
    }

    /// The IVF parameters, `None` for another index type.
    pub fn ivf(&self) -> Option<&IvfParams> {
        match self {
            IndexParams::Ivf(p) => Some(p),
            IndexParams::Flat(_)
            | IndexParams::Hnsw(_)
            | IndexParams::Vamana(_)
            | IndexParams::Qg(_)
            | IndexParams::Disk(_) => None,
        }
    }

    /// The disk index's parameters, `None` for another index type.
    pub fn disk_mut(&mut self) -> Option<&mut DiskParams> {
        match self {
            IndexParams::Disk(p) => Some(p),
            IndexParams::Flat(_)
            | IndexParams::Hnsw(_)
            | IndexParams::Vamana(_)
            | IndexParams::Ivf(_)
            | IndexParams::Qg(_) => None,
        }
    }

    /// The disk index's parameters, `None` for another index type.
    pub fn disk(&self) -> Option<&DiskParams> {
        match self {
            IndexParams::Disk(p) => Some(p),
            IndexParams::Flat(_)
            | IndexParams::Hnsw(_)
            | IndexParams::Vamana(_)
            | IndexParams::Ivf(_)
            | IndexParams::Qg(_) => None,
        }
    }

    /// The seed of randomized construction, for the index types that have one.
    pub fn seed_mut(&mut self) -> Option<&mut u64> {
        match self {
            IndexParams::Flat(_) => None,
            IndexParams::Hnsw(p) => Some(&mut p.seed),
            IndexParams::Vamana(p) => Some(&mut p.seed),
            IndexParams::Ivf(p) => Some(&mut p.seed),
            IndexParams::Qg(p) => Some(&mut p.seed),
            IndexParams::Disk(p) => Some(&mut p.seed),
        }
    }

    /// The quantization fields every index type has.
    fn quant_mut(&mut self) -> (&mut Quantize, &mut Option<bool>, &mut Option<u32>, &mut Option<u8>) {
        match self {
            IndexParams::Flat(p) => (&mut p.quantize, &mut p.rotate, &mut p.refine, &mut p.bits),
            IndexParams::Hnsw(p) => (&mut p.quantize, &mut p.rotate, &mut p.refine, &mut p.bits),
            IndexParams::Vamana(p) => (&mut p.quantize, &mut p.rotate, &mut p.refine, &mut p.bits),
            IndexParams::Ivf(p) => (&mut p.quantize, &mut p.rotate, &mut p.refine, &mut p.bits),
            IndexParams::Qg(p) => (&mut p.quantize, &mut p.rotate, &mut p.refine, &mut p.bits),
            IndexParams::Disk(p) => (&mut p.quantize, &mut p.rotate, &mut p.refine, &mut p.bits),
        }
    }

    /// Sets the `quantize` of whichever index type this is.
    pub fn set_quantize(&mut self, quantize: Quantize) {
        *self.quant_mut().0 = quantize;
    }

    /// Sets the `rotate` of whichever index type this is.
    pub fn set_rotate(&mut self, rotate: bool) {
        *self.quant_mut().1 = Some(rotate);
    }

    /// Sets the default `refine` (0..=1000) of whichever index type this is.
    pub fn set_refine(&mut self, refine: u32) {
        *self.quant_mut().2 = Some(refine);
    }

    /// Writes in the defaults whose value may change between builds (RaBitQ's `bits`), so
    /// what a stored index means never depends on the build that reads it.
    pub fn pin_defaults(&mut self) {
        let default = match self {
            IndexParams::Disk(_) => DEFAULT_DISK_BITS,
            IndexParams::Flat(_)
            | IndexParams::Hnsw(_)
            | IndexParams::Vamana(_)
            | IndexParams::Ivf(_)
            | IndexParams::Qg(_) => DEFAULT_RABITQ_BITS,
        };
        let (quantize, _, _, bits) = self.quant_mut();
        if *quantize == Quantize::Rabitq && bits.is_none() {
            *bits = Some(default);
        }
    }

    /// Sets the RaBitQ `bits` (1..=8) of whichever index type this is.
    pub fn set_bits(&mut self, bits: u8) {
        *self.quant_mut().3 = Some(bits);
    }

    /// The same index with the defaults of `rotate` and `refine` spelled out, so its JSON
    /// form names every parameter the engine uses.
    pub fn resolved(&self) -> IndexParams {
        let q = self.quant();
        let mut p = self.clone();
        p.set_rotate(q.rotate);
        p.set_refine(q.refine);
        if q.quantize == Quantize::Rabitq {
            p.set_bits(q.bits);
        }
        p
    }

    /// Quantization with defaults resolved.
    pub fn quant(&self) -> QuantSpec {
        let (quantize, rotate, refine, bits) = match self {
            IndexParams::Flat(p) => (p.quantize, p.rotate, p.refine, p.bits),
            IndexParams::Hnsw(p) => (p.quantize, p.rotate, p.refine, p.bits),
            IndexParams::Vamana(p) => (p.quantize, p.rotate, p.refine, p.bits),
            IndexParams::Ivf(p) => (p.quantize, p.rotate, p.refine, p.bits),
            IndexParams::Qg(p) => (p.quantize, p.rotate, p.refine, p.bits),
            IndexParams::Disk(p) => (p.quantize, p.rotate, p.refine, p.bits.or(Some(DEFAULT_DISK_BITS))),
        };
        QuantSpec {
            quantize,
            rotate: rotate.unwrap_or(matches!(quantize, Quantize::Int8 | Quantize::Int4 | Quantize::Rabitq)),
            refine: refine.unwrap_or(0),
            bits: match quantize {
                Quantize::Rabitq => bits.unwrap_or(UNPINNED_RABITQ_BITS),
                _ => bits.unwrap_or(0),
            },
        }
    }

    /// True when optimize builds something for this field (a graph or codes).
    pub fn builds_index(&self) -> bool {
        match self {
            IndexParams::Flat(p) => p.quantize != Quantize::None,
            IndexParams::Hnsw(_)
            | IndexParams::Vamana(_)
            | IndexParams::Ivf(_)
            | IndexParams::Qg(_)
            | IndexParams::Disk(_) => true,
        }
    }

    /// Seed for randomized parts of the index (rotation, levels).
    pub fn seed(&self) -> u64 {
        match self {
            IndexParams::Flat(_) => default_seed(),
            IndexParams::Hnsw(p) => p.seed,
            IndexParams::Vamana(p) => p.seed,
            IndexParams::Ivf(p) => p.seed,
            IndexParams::Qg(p) => p.seed,
            IndexParams::Disk(p) => p.seed,
        }
    }

    /// A compact description, e.g. `hnsw m=16 efc=200 ef=64 int8+rot refine=4`.
    pub fn describe(&self) -> String {
        let q = self.quant();
        let quant = match q.quantize {
            Quantize::None => String::new(),
            Quantize::Rabitq => format!(" rabitq{}{}", q.bits, if q.rotate { "+rot" } else { "" }),
            other => format!(" {}{}", other.name(), if q.rotate { "+rot" } else { "" }),
        };
        let refine = if q.refine > 0 { format!(" refine={}", q.refine) } else { String::new() };
        match self {
            IndexParams::Flat(_) => format!("flat{quant}{refine}"),
            IndexParams::Hnsw(p) => format!("hnsw m={} efc={} ef={}{quant}{refine}", p.m, p.ef_construction, p.ef),
            IndexParams::Vamana(p) => format!(
                "vamana degree={} build_list={} query_list={} alpha={} occlusion={}{quant}{refine}",
                p.degree, p.build_list, p.query_list, p.alpha, p.occlusion
            ),
            IndexParams::Ivf(p) => {
                let soar = if p.soar { " soar" } else { "" };
                format!("ivf nlist={} nprobe={}{soar}{quant}{refine}", p.nlist, p.nprobe)
            }
            IndexParams::Qg(p) => format!(
                "qg degree={} graph={} build_list={} ef={}{quant}{refine}",
                p.degree,
                p.graph.name(),
                p.build_list,
                p.ef
            ),
            IndexParams::Disk(p) => format!(
                "disk degree={} build_list={} query_list={} alpha={} occlusion={} beam_width={}{quant}",
                p.degree, p.build_list, p.query_list, p.alpha, p.occlusion, p.beam_width
            ),
        }
    }

    /// Checks the parameters against their ranges and against the field `v` they index
    /// (element type, dimension). Schemas run it on every vector field; the tool's flags
    /// reach the same check through the schema they build.
    pub fn validate(&self, field: &str, v: &VectorSpec) -> Result<(), SchemaError> {
        let bad = |what: String| Err(SchemaError::BadIndex { field: field.to_string(), what });
        let q = self.quant();
        if q.quantize != Quantize::None && v.elem != VectorType::Fp32 {
            return bad(format!("quantize = {} needs a vector_fp32 field, not {}", q.quantize.name(), v.elem.name()));
        }
        if q.quantize == Quantize::Int4 && !v.dim.is_multiple_of(2) {
            return bad(format!("quantize = int4 needs an even dimension, not {}", v.dim));
        }
        if q.quantize == Quantize::Rabitq && !(1..=MAX_RABITQ_BITS).contains(&q.bits) {
            return bad(format!("bits {} is out of range; expected 1..=8", q.bits));
        }
        if q.quantize == Quantize::Rabitq && (2..=4).contains(&q.bits) && !v.dim.is_multiple_of(2) {
            return bad(format!("quantize = rabitq with {} bits needs an even dimension, not {}", q.bits, v.dim));
        }
        if q.quantize != Quantize::Rabitq && q.bits != 0 {
            return bad(format!("bits = {} needs quantize = rabitq, not {}", q.bits, q.quantize.name()));
        }
        if q.refine > 1000 {
            return bad(format!("refine {} is out of range; expected 0..=1000", q.refine));
        }
        if let IndexParams::Hnsw(p) = self {
            if !(2..=512).contains(&p.m) {
                return bad(format!("m {} is out of range; expected 2..=512", p.m));
            }
            if !(1..=100_000).contains(&p.ef_construction) {
                return bad(format!("ef_construction {} is out of range; expected 1..=100000", p.ef_construction));
            }
            if !(1..=100_000).contains(&p.ef) {
                return bad(format!("ef {} is out of range; expected 1..=100000", p.ef));
            }
        }
        if let IndexParams::Ivf(p) = self {
            if !(1..=MAX_NLIST).contains(&p.nlist) {
                return bad(format!("nlist {} is out of range; expected 1..={MAX_NLIST}", p.nlist));
            }
            if !(1..=p.nlist).contains(&p.nprobe) {
                return bad(format!("nprobe {} is out of range; expected 1..=nlist ({})", p.nprobe, p.nlist));
            }
        }
        if let IndexParams::Qg(p) = self {
            if !(32..=MAX_QG_DEGREE).contains(&p.degree) || !p.degree.is_multiple_of(32) {
                return bad(format!(
                    "degree {} is out of range; expected a multiple of 32 in 32..={MAX_QG_DEGREE}",
                    p.degree
                ));
            }
            if !(1..=100_000).contains(&p.build_list) {
                return bad(format!("build_list {} is out of range; expected 1..=100000", p.build_list));
            }
            if !(1..=100_000).contains(&p.ef) {
                return bad(format!("ef {} is out of range; expected 1..=100000", p.ef));
            }
        }
        if let IndexParams::Disk(p) = self {
            if q.quantize != Quantize::Rabitq || !q.rotate || q.refine != 0 {
                return bad("a disk index keeps rotated rabitq codes and no refine (its results are exact)".into());
            }
            if !(1..=64).contains(&p.beam_width) {
                return bad(format!("beam_width {} is out of range; expected 1..=64", p.beam_width));
            }
            return IndexParams::Vamana(p.vamana()).validate(field, v);
        }
        if let IndexParams::Vamana(p) = self {
            if !(2..=1024).contains(&p.degree) {
                return bad(format!("degree {} is out of range; expected 2..=1024", p.degree));
            }
            if !(1..=100_000).contains(&p.build_list) {
                return bad(format!("build_list {} is out of range; expected 1..=100000", p.build_list));
            }
            if !(1..=100_000).contains(&p.query_list) {
                return bad(format!("query_list {} is out of range; expected 1..=100000", p.query_list));
            }
            if !(1.0..=4.0).contains(&p.alpha) {
                return bad(format!("alpha {} is out of range; expected 1.0..=4.0", p.alpha));
            }
            if !(p.degree..=100_000).contains(&p.occlusion) {
                return bad(format!(
                    "occlusion {} is out of range; expected degree ({})..=100000 candidates",
                    p.occlusion, p.degree
                ));
            }
        }
        Ok(())
    }
}
