//! Index parameters of a vector field: one variant per index type, each with the
//! engine's defaults, and the range checks a schema and the tool's flags share. Each
//! kind's parameter struct is in `params.rs`.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::types::{UnknownName, parse_name};
use super::{Quantize, VectorSpec, VectorType};
use crate::error::SchemaError;
use params::default_seed;

mod params;

pub use params::{
    DEFAULT_DISK_BITS, DiskParams, FlatParams, HnswParams, IvfParams, MAX_NLIST, MAX_QG_DEGREE, QgBase, QgParams,
    VamanaParams,
};

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
            if !(1..=super::MAX_BEAM_WIDTH as u32).contains(&p.beam_width) {
                let max = super::MAX_BEAM_WIDTH;
                return bad(format!("beam_width {} is out of range; expected 1..={max}", p.beam_width));
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
