//! The index flags (`--index TYPE --m N --quantize CODES ...`) and the engine's
//! [`IndexParams`] they stand for: one flag per parameter, a flag of another index type
//! refused, everything left out kept at the engine's default.

use std::str::FromStr;

use clap::Args;
use clap::builder::{PossibleValuesParser, TypedValueParser};
use xvec::{IndexParams, IndexType, QgBase, Quantize};

use super::CliError;

/// A parser over one of the engine's vocabularies: clap lists `all` in `--help`, man
/// pages and completions, and the engine's own `FromStr` turns the name into the value.
pub fn names<T>(all: impl IntoIterator<Item = &'static str>) -> impl TypedValueParser<Value = T>
where
    T: FromStr + Clone + Send + Sync + 'static,
    T::Err: std::error::Error + Send + Sync + 'static,
{
    PossibleValuesParser::new(all).try_map(|s| s.parse::<T>())
}

#[derive(Debug, Args)]
pub struct IndexFlags {
    /// Index type of the vector field.
    #[arg(long, value_name = "TYPE", default_value_t = IndexType::Flat,
        value_parser = names::<IndexType>(IndexType::ALL.map(IndexType::name)))]
    pub index: IndexType,
    /// HNSW edges per node (default: the engine's).
    #[arg(long, value_name = "N")]
    pub m: Option<u32>,
    /// HNSW candidate list size while building (default: the engine's).
    #[arg(long, value_name = "N")]
    pub ef_construction: Option<u32>,
    /// Vamana, qg, disk: most neighbours per node (qg: a multiple of 32).
    #[arg(long, value_name = "N")]
    pub degree: Option<u32>,
    /// Vamana, qg, disk: candidate list size while building, L (default: the engine's).
    #[arg(long, value_name = "N")]
    pub build_list: Option<u32>,
    /// qg: the graph its blocks are laid out from (default: vamana).
    #[arg(long, value_name = "GRAPH", value_parser = names::<QgBase>(QgBase::ALL.map(QgBase::name)))]
    pub graph: Option<QgBase>,
    /// Vamana, disk: prune relaxation, e.g. 1.2 (default: the engine's).
    #[arg(long, value_name = "X")]
    pub alpha: Option<f32>,
    /// IVF: lists per segment, 1..=65536 (default: the engine's).
    #[arg(long, value_name = "N")]
    pub nlist: Option<u32>,
    /// IVF: lists a query probes by default (default: the engine's).
    #[arg(long = "default-nprobe", value_name = "N")]
    pub default_nprobe: Option<u32>,
    /// IVF: keep every row in a second list chosen by SOAR (default: off).
    #[arg(long, value_name = "BOOL", action = clap::ArgAction::Set, num_args = 0..=1, default_missing_value = "true")]
    pub soar: Option<bool>,
    /// Vector codes inside the index (default: none).
    #[arg(long, value_name = "CODES", value_parser = names::<Quantize>(Quantize::ALL.map(Quantize::name)))]
    pub quantize: Option<Quantize>,
    /// Bits per dimension of RaBitQ codes, sign included, 1..=8 (default: the engine's).
    #[arg(long, value_name = "B")]
    pub bits: Option<u8>,
    /// Rotate vectors before quantizing (default: on for int8, int4 and rabitq).
    #[arg(long, value_name = "BOOL", action = clap::ArgAction::Set, num_args = 0..=1, default_missing_value = "true")]
    pub rotate: Option<bool>,
    /// Seed of graph construction and rotation.
    #[arg(long, value_name = "N", default_value_t = 42)]
    pub seed: u64,
}

impl IndexFlags {
    /// The engine's defaults for `--index`, with each flag given applied. Ranges are the
    /// engine's to check (when the schema is built), so flags and schema files agree.
    pub fn params(&self) -> Result<IndexParams, CliError> {
        let mut p = IndexParams::defaults(self.index);
        match p.hnsw_mut() {
            Some(h) => {
                h.m = self.m.unwrap_or(h.m);
                h.ef_construction = self.ef_construction.unwrap_or(h.ef_construction);
            }
            None => refuse(&[("m", self.m.is_some()), ("ef-construction", self.ef_construction.is_some())], |p| {
                p.hnsw_mut().is_some()
            })?,
        }
        if p.vamana_mut().is_none() && p.qg_mut().is_none() && p.disk_mut().is_none() {
            refuse(&[("degree", self.degree.is_some()), ("build-list", self.build_list.is_some())], |p| {
                p.vamana_mut().is_some() || p.qg_mut().is_some() || p.disk_mut().is_some()
            })?;
        }
        if p.vamana_mut().is_none() && p.disk_mut().is_none() {
            refuse(&[("alpha", self.alpha.is_some())], |p| p.vamana_mut().is_some() || p.disk_mut().is_some())?;
        }
        if let Some(v) = p.vamana_mut() {
            v.degree = self.degree.unwrap_or(v.degree);
            v.build_list = self.build_list.unwrap_or(v.build_list);
            v.alpha = self.alpha.unwrap_or(v.alpha);
        }
        if let Some(d) = p.disk_mut() {
            d.degree = self.degree.unwrap_or(d.degree);
            d.build_list = self.build_list.unwrap_or(d.build_list);
            d.alpha = self.alpha.unwrap_or(d.alpha);
        }
        match p.qg_mut() {
            Some(q) => {
                q.degree = self.degree.unwrap_or(q.degree);
                q.build_list = self.build_list.unwrap_or(q.build_list);
                q.graph = self.graph.unwrap_or(q.graph);
            }
            None => refuse(&[("graph", self.graph.is_some())], |p| p.qg_mut().is_some())?,
        }
        match p.ivf_mut() {
            Some(i) => {
                i.nlist = self.nlist.unwrap_or(i.nlist);
                i.nprobe = self.default_nprobe.unwrap_or(i.nprobe);
                i.soar = self.soar.unwrap_or(i.soar);
            }
            None => refuse(
                &[
                    ("nlist", self.nlist.is_some()),
                    ("default-nprobe", self.default_nprobe.is_some()),
                    ("soar", self.soar.is_some()),
                ],
                |p| p.ivf_mut().is_some(),
            )?,
        }
        // `--seed` has a default, so only a seed other than the engine's is refused.
        let default_seed = p.seed();
        match p.seed_mut() {
            Some(s) => *s = self.seed,
            None => refuse(&[("seed", self.seed != default_seed)], |p| p.seed_mut().is_some())?,
        }
        if let Some(q) = self.quantize {
            p.set_quantize(q);
        }
        if let Some(r) = self.rotate {
            p.set_rotate(r);
        }
        if let Some(b) = self.bits {
            p.set_bits(b);
        }
        Ok(p)
    }
}

/// A usage error for the first flag given whose parameter the chosen index type lacks,
/// naming the types that have it (those for which `has` holds).
fn refuse(flags: &[(&str, bool)], has: fn(&mut IndexParams) -> bool) -> Result<(), CliError> {
    let Some((flag, _)) = flags.iter().find(|(_, given)| *given) else {
        return Ok(());
    };
    let kinds: Vec<&str> =
        IndexType::ALL.into_iter().filter(|&k| has(&mut IndexParams::defaults(k))).map(IndexType::name).collect();
    Err(CliError::usage(format!("--{flag} applies to --index {}", kinds.join(" or "))))
}

#[cfg(test)]
mod tests {
    use clap::Parser;
    use xvec::{DiskParams, FlatParams, HnswParams, IvfParams, QgParams, VamanaParams};

    use super::*;

    #[derive(Parser)]
    struct Flags {
        #[command(flatten)]
        index: IndexFlags,
    }

    fn params(args: &[&str]) -> Result<IndexParams, String> {
        let f = Flags::try_parse_from([&["x"], args].concat()).map_err(|e| e.to_string())?;
        f.index.params().map_err(|e| e.message)
    }

    #[test]
    fn flags_become_the_params() {
        assert_eq!(params(&[]), Ok(IndexParams::Flat(FlatParams::default())));
        assert_eq!(
            params(&["--index", "hnsw", "--m", "8", "--quantize", "int8", "--rotate", "--seed", "7"]),
            Ok(IndexParams::Hnsw(HnswParams::default().m(8).quantize(Quantize::Int8).rotate(true).seed(7)))
        );
        assert_eq!(
            params(&["--index", "vamana", "--degree", "32", "--alpha", "1.5", "--rotate", "false"]),
            Ok(IndexParams::Vamana(VamanaParams::default().degree(32).alpha(1.5).rotate(false)))
        );
        assert_eq!(params(&["--seed", "42"]), Ok(IndexParams::default()));
        assert_eq!(
            params(&["--index", "ivf", "--nlist", "256", "--default-nprobe", "8", "--soar", "--quantize", "int8"]),
            Ok(IndexParams::Ivf(IvfParams::default().nlist(256).nprobe(8).soar(true).quantize(Quantize::Int8)))
        );
        assert_eq!(
            params(&["--index", "qg", "--degree", "64", "--build-list", "100", "--graph", "hnsw"]),
            Ok(IndexParams::Qg(QgParams::default().degree(64).build_list(100).graph(QgBase::Hnsw)))
        );
        assert_eq!(
            params(&["--index", "disk", "--degree", "48", "--build-list", "80", "--alpha", "1.3", "--bits", "2"]),
            Ok(IndexParams::Disk(DiskParams::default().degree(48).build_list(80).alpha(1.3).bits(2)))
        );
        assert_eq!(
            params(&["--index", "hnsw", "--quantize", "rabitq", "--bits", "4"]),
            Ok(IndexParams::Hnsw(HnswParams::default().quantize(Quantize::Rabitq).bits(4)))
        );
    }

    #[test]
    fn a_flag_of_another_index_type_is_refused() {
        assert_eq!(params(&["--m", "8"]), Err("--m applies to --index hnsw".into()));
        assert_eq!(
            params(&["--index", "hnsw", "--build-list", "8"]),
            Err("--build-list applies to --index vamana or qg or disk".into())
        );
        assert_eq!(
            params(&["--index", "qg", "--alpha", "1.1"]),
            Err("--alpha applies to --index vamana or disk".into())
        );
        assert_eq!(params(&["--index", "vamana", "--graph", "hnsw"]), Err("--graph applies to --index qg".into()));
        assert_eq!(
            params(&["--index", "vamana", "--ef-construction", "8"]),
            Err("--ef-construction applies to --index hnsw".into())
        );
        assert_eq!(
            params(&["--seed", "7"]),
            Err("--seed applies to --index hnsw or vamana or ivf or qg or disk".into())
        );
        assert_eq!(params(&["--index", "hnsw", "--nlist", "64"]), Err("--nlist applies to --index ivf".into()));
        let bad = params(&["--index", "ivfpq"]).unwrap_err();
        assert!(
            bad.contains("invalid value 'ivfpq'")
                && bad.contains("[possible values: flat, hnsw, vamana, ivf, qg, disk]"),
            "{bad}"
        );
    }
}
