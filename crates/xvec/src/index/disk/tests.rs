use std::sync::atomic::AtomicBool;

use super::DiskGraph;
use super::build::{layout_of, write_blocks};
use super::search::{Beam, DiskScratch};
use crate::error::StorageError;
use crate::index::flat::PreparedQuery;
use crate::index::graph::BuildControl;
use crate::index::quant::rotation::Rotation;
use crate::index::quant::{QuantScratch, Quantizer};
use crate::index::scorer::Scored;
use crate::index::vamana::{self, Graph, clustered};
use crate::kernels;
use crate::schema::{Metric, Quantize, VamanaParams};
use crate::storage::column::{Validity, VectorColumn, VectorData};
use crate::storage::disk::DiskFile;

fn column<'a>(rows: &'a [f32], norms: &'a [f32], dim: usize, metric: Metric) -> VectorColumn<'a> {
    VectorColumn {
        dim,
        validity: Validity(None),
        data: VectorData::Fp32(rows),
        norms: (metric == Metric::Cosine).then_some(norms),
    }
}

fn graph(col: VectorColumn, n: usize, metric: Metric, degree: u32) -> Graph {
    let params = VamanaParams { degree, build_list: 48, ..VamanaParams::default() };
    let control = BuildControl { concurrency: 2, progress: &|_| {}, cancel: &AtomicBool::new(false) };
    vamana::build(kernels::best(), metric, col, n, &params, &control).unwrap()
}

/// The blocks of `col` under `g` written to `path` after `base` bytes of something else.
fn write_file(path: &std::path::Path, base: usize, col: &VectorColumn, n: usize, g: &Graph) {
    let mut f = DiskFile::create(path).unwrap();
    f.write_all(&vec![0xAB; base]).unwrap();
    write_blocks(col, n, &g.view(), |b| f.write_all(b)).unwrap();
    f.sync_all().unwrap();
}

fn open(path: &std::path::Path, base: usize, col: &VectorColumn, n: usize, g: &Graph, cache: u64) -> DiskGraph {
    let layout = layout_of(col, n, &g.view());
    DiskGraph::open(DiskFile::open_read(path).unwrap(), base as u64, layout, g.medoid, cache).unwrap()
}

/// Recall@10 against brute force for every metric, with RaBitQ codes ranking the
/// candidates and the blocks' vectors the results; the cache cuts the reads. Without a
/// cache every node expanded is read and so scored; with one holding every list, the
/// only reads are of the best candidates, at the end.
#[test]
fn recall_against_brute_force_per_metric() {
    let (n, dim, k) = (3000, 48, 10);
    let (rows, norms, queries) = clustered(n, 60, dim, 5);
    let dir = tempfile::tempdir().unwrap();
    let kern = kernels::best();
    for metric in [Metric::L2, Metric::Ip, Metric::Cosine] {
        let col = column(&rows, &norms, dim, metric);
        let g = graph(col, n, metric, 24);
        let path = dir.path().join(metric.name());
        write_file(&path, 4096, &col, n, &g);
        let qz = Quantizer::new(Quantize::Rabitq, 4, dim, metric, Some(Rotation::new(dim, 7)));
        let (codes, params) = qz.encode_rows(col, n);
        let codes = qz.view(&codes, &params);
        let (mut reads, mut rerank, mut hits_total) = ([0u64; 2], [0u64; 2], 0usize);
        for (c, cache) in [0u64, 1 << 20].into_iter().enumerate() {
            let disk = open(&path, 4096, &col, n, &g, cache);
            assert_eq!(disk.stats().cached_nodes > 0, cache > 0);
            let (mut sc, mut out) = (DiskScratch::default(), Vec::new());
            let mut hits = 0;
            for q in &queries {
                let exact = PreparedQuery::float(metric, q.clone());
                let mut truth: Vec<Scored> =
                    (0..n as u32).map(|r| Scored { dist: exact.distance(kern, &col, r as usize), id: r }).collect();
                truth.sort_unstable();
                let qq = qz.prepare(q, &mut QuantScratch::default());
                let cost = disk
                    .search(
                        |r| codes.distance(kern, &qq, metric, r, false),
                        |v| exact.distance(kern, v, 0),
                        Beam { list: 40, width: 4, rerank: 20, allowed: None },
                        &mut sc,
                        &mut out,
                    )
                    .unwrap();
                reads[c] += cost.blocks_read as u64;
                rerank[c] += cost.rerank_reads as u64;
                assert!(cost.blocks_read + cost.cache_hits > 0 && out.windows(2).all(|w| w[0] <= w[1]));
                // Results carry exact distances: the same as a scan's for the same row.
                let first = out[0];
                assert_eq!(first.dist, exact.distance(kern, &col, first.id as usize));
                hits += out.iter().take(k).filter(|r| truth[..k].iter().any(|t| t.id == r.id)).count();
            }
            let stats = disk.stats();
            assert_eq!((stats.searches, stats.blocks_read), (queries.len() as u64, reads[c]));
            let recall = hits as f64 / (queries.len() * k) as f64;
            assert!(recall >= 0.95, "{metric:?} cache {cache}: recall {recall}");
            hits_total += hits;
        }
        assert!(hits_total > 0);
        assert!(reads[1] < reads[0], "{metric:?}: the cache saves reads: {reads:?}");
        assert_eq!(rerank[0], 0, "{metric:?}: nothing to score at the end without a cache");
        assert!(rerank[1] > 0 && rerank[1] == reads[1], "{metric:?}: {rerank:?} of {reads:?}");
    }
}

/// A filter keeps other rows out of the results without stopping the walk through them.
#[test]
fn a_filter_returns_only_allowed_rows() {
    let (n, dim) = (1500, 16);
    let (rows, norms, queries) = clustered(n, 10, dim, 9);
    let col = column(&rows, &norms, dim, Metric::L2);
    let g = graph(col, n, Metric::L2, 16);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f");
    write_file(&path, 0, &col, n, &g);
    let disk = open(&path, 0, &col, n, &g, 0);
    let allowed: roaring::RoaringBitmap = (0..n as u32).filter(|r| r % 5 == 0).collect();
    let kern = kernels::best();
    let (mut sc, mut out) = (DiskScratch::default(), Vec::new());
    for q in &queries {
        let exact = PreparedQuery::float(Metric::L2, q.clone());
        let d = |v: &VectorColumn| exact.distance(kern, v, 0);
        let beam = Beam { list: 60, width: 2, rerank: 20, allowed: Some(&allowed) };
        disk.search(|r| exact.distance(kern, &col, r as usize), d, beam, &mut sc, &mut out).unwrap();
        assert!(out.len() >= 10, "{} results", out.len());
        assert!(out.iter().all(|r| r.id % 5 == 0));
    }
}

/// Every node reads back as written: its vector, its norm, its neighbours; blocks start
/// on pages and hold as many nodes as fit.
#[test]
fn layout_round_trips_every_node() {
    let (n, dim) = (700, 100);
    let (rows, norms, _) = clustered(n, 0, dim, 3);
    let col = column(&rows, &norms, dim, Metric::Cosine);
    let g = graph(col, n, Metric::Cosine, 32);
    let layout = layout_of(&col, n, &g.view());
    // 400 bytes of vector, a norm, a count, 32 ids: 536 bytes, 7 to a page.
    assert_eq!((layout.node_bytes(), layout.block_len(), layout.per_block()), (536, 4096, 7));
    let mut bytes = Vec::new();
    write_blocks(&col, n, &g.view(), |b| {
        bytes.extend_from_slice(b);
        Ok::<(), ()>(())
    })
    .unwrap();
    assert_eq!(bytes.len() as u64, layout.bytes());
    assert_eq!(layout.blocks(), n.div_ceil(7));
    let words: Vec<u64> = bytes.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect();
    let bytes = super::as_bytes(&words);
    for b in 0..layout.blocks() {
        layout.check_block(b, &bytes[b * 4096..(b + 1) * 4096]).unwrap();
    }
    for node in 0..n as u32 {
        let at = layout.block_of(node) * layout.block_len() + layout.slot_of(node);
        let got = layout.node(&bytes[at..at + layout.node_bytes()]);
        assert_eq!(got.neighbors(), g.view().neighbors(node));
        let v = got.column();
        let VectorData::Fp32(x) = v.data else { panic!("fp32 stays fp32") };
        assert_eq!(x, &rows[node as usize * dim..(node as usize + 1) * dim]);
        assert_eq!(v.norms, Some(&norms[node as usize..node as usize + 1]));
    }
    // A node larger than a page takes whole pages, alone.
    let wide = super::layout::Layout { dim: 1536, ..layout };
    assert_eq!((wide.block_len(), wide.per_block()), (8192, 1));
}

/// A flipped byte in a block, or a block read in another's place, is reported as
/// corruption at the block's offset when a search reads it, never searched through.
#[test]
fn block_checksums_catch_corruption() {
    let (n, dim) = (400, 16);
    let (rows, norms, queries) = clustered(n, 1, dim, 4);
    let col = column(&rows, &norms, dim, Metric::L2);
    let g = graph(col, n, Metric::L2, 16);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c");
    let base = 8192;
    write_file(&path, base, &col, n, &g);
    let layout = layout_of(&col, n, &g.view());
    let clean = std::fs::read(&path).unwrap();
    let kern = kernels::best();
    let exact = PreparedQuery::float(Metric::L2, queries[0].clone());
    let search = |disk: &DiskGraph| {
        let (mut sc, mut out) = (DiskScratch::default(), Vec::new());
        let beam = Beam { list: 20, width: 4, rerank: 10, allowed: None };
        disk.search(|r| exact.distance(kern, &col, r as usize), |v| exact.distance(kern, v, 0), beam, &mut sc, &mut out)
    };
    let medoid_block = layout.block_of(g.medoid);
    let at = base + medoid_block * 4096 + layout.slot_of(g.medoid) + 5;
    // A byte of the entry node's vector: every search reads that block first.
    let mut bad = clean.clone();
    bad[at] ^= 0x10;
    std::fs::write(&path, &bad).unwrap();
    let disk = open(&path, base, &col, n, &g, 0);
    match search(&disk) {
        Err(StorageError::Corrupted { offset, what, .. }) => {
            assert_eq!(offset, (base + medoid_block * 4096) as u64);
            assert!(what.contains(&format!("node block {medoid_block}")), "{what}");
        }
        other => panic!("expected corruption, got {other:?}"),
    }
    // The cache reads the same block at open, and refuses it there.
    let err = DiskGraph::open(DiskFile::open_read(&path).unwrap(), base as u64, layout, g.medoid, 1 << 20);
    assert!(matches!(err, Err(StorageError::Corrupted { .. })), "{err:?}");
    // A whole valid block copied over the entry's: its checksum is of another number.
    let other = (medoid_block + 1) % layout.blocks();
    let mut moved = clean.clone();
    let src = base + other * 4096;
    moved.copy_within(src..src + 4096, base + medoid_block * 4096);
    std::fs::write(&path, &moved).unwrap();
    assert!(matches!(search(&open(&path, base, &col, n, &g, 0)), Err(StorageError::Corrupted { .. })));
    // And the clean file searches.
    std::fs::write(&path, &clean).unwrap();
    assert!(search(&open(&path, base, &col, n, &g, 0)).unwrap().blocks_read > 0);
}
