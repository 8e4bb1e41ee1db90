//! One search pass over a collection in one state: per search setting, `--warmup`
//! untimed queries, then every query once through `Collection::query`, which takes the
//! newest snapshot per query: what an application sees while background maintenance
//! publishes indexes under it. The backlog is sampled before the warm-up and after the
//! last query of each setting.

use xvec::Collection;

use super::report::{Backlog, PassReport, State};
use crate::config::BenchConfig;
use crate::dataset::GroundTruth;
use crate::phases::{BenchError, Progress, engine, queries, run_serial};

/// What every pass searches with: the settings, the query vectors and their truth.
pub(super) struct Searches<'a> {
    pub cfg: &'a BenchConfig,
    pub vectors: &'a [Vec<f32>],
    pub truth: &'a GroundTruth,
}

/// One pass of every search setting over `coll`, in sweep order.
pub(super) fn pass(
    coll: &Collection,
    s: &Searches,
    state: State,
    progress: &mut dyn Progress,
) -> Result<Vec<PassReport>, BenchError> {
    let cfg = s.cfg;
    let mut out = Vec::new();
    for point in cfg.search_points() {
        let queries = queries(cfg, s.vectors, point);
        let name = format!("{} {}", state.name(), point.label());
        let start = Backlog::of(&coll.stats());
        for i in 0..cfg.warmup {
            coll.query(&queries[i % queries.len()]).map_err(engine("warmup"))?;
        }
        progress.begin(&name, queries.len() as u64, "queries");
        let serial = run_serial(&|q| coll.query(q), None, &queries, s.truth, cfg.k, progress)?;
        let end = Backlog::of(&coll.stats());
        progress.end(&format!(
            "{name}: {:.1} QPS, recall@{} {:.4}, p50 {:.3} ms, p99 {:.3} ms; unindexed rows {} -> {}",
            serial.qps,
            cfg.k,
            serial.recall,
            serial.latency.latency_p50_ms,
            serial.latency.latency_p99_ms,
            start.unindexed_rows,
            end.unindexed_rows
        ));
        out.push(PassReport { serial, start, end });
    }
    Ok(out)
}
