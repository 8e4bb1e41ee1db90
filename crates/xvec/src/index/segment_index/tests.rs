use std::sync::atomic::AtomicBool;

use super::file::{Encoded, write};
use super::*;
use crate::index::flat::PreparedQuery;
use crate::index::graph::{Beam, SearchScratch};
use crate::index::quant::QuantScratch;
use crate::index::rng::SplitMix64;
use crate::index::scorer::{CodeScorer, Originals, Scored, Scorer};
use crate::index::topk::TopK;
use crate::kernels;
use crate::schema::{Metric, VectorType};
use crate::storage::column::{Validity, VectorColumn, VectorData};

/// The index file at `path` of field 0 of segment 1, as these tests build and open it.
fn target<'a>(path: &'a Path, spec: &'a VectorSpec, rows: usize) -> IndexTarget<'a> {
    IndexTarget { path, segment_id: 1, field: 0, spec, rows }
}

/// A graph search screens neighbours with their sketches, over int8 codes and over
/// FP32 originals: it scores fewer rows than without them, and finds the same
/// neighbours.
#[test]
fn sketches_skip_most_rows_and_keep_recall() {
    let (n, dim, k, ef) = (4000, 256, 10, 40);
    let mut rng = SplitMix64::new(21);
    let mut unit = || rng.next_unit() as f32 * 2.0 - 1.0;
    let centers: Vec<Vec<f32>> = (0..20).map(|_| (0..dim).map(|_| unit()).collect()).collect();
    let mut point = |i: usize| -> Vec<f32> { centers[i % 20].iter().map(|c| c + unit()).collect() };
    let data: Vec<f32> = (0..n).flat_map(&mut point).collect();
    let norms: Vec<f32> = data.chunks_exact(dim).map(|r| r.iter().map(|v| v * v).sum::<f32>().sqrt()).collect();
    let queries: Vec<Vec<f32>> = (0..100).map(|i| point(i * 7)).collect();
    let dir = tempfile::tempdir().unwrap();
    let kern = kernels::best();
    for quantize in ["int8", "none"] {
        for metric in [Metric::Cosine, Metric::L2, Metric::Ip] {
            let col = VectorColumn {
                dim,
                validity: Validity(None),
                data: VectorData::Fp32(&data),
                norms: (metric == Metric::Cosine).then_some(&norms[..]),
            };
            let json = format!(r#"{{"type":"hnsw","m":12,"ef_construction":100,"quantize":"{quantize}"}}"#);
            let index: IndexParams = serde_json::from_str(&json).unwrap();
            let spec = VectorSpec { elem: VectorType::Fp32, dim: dim as u32, metric, index };
            let path = dir.path().join(format!("{quantize}-{}.idx", metric.name()));
            build(target(&path, &spec, n), col, 1, &|_| {}, &AtomicBool::new(false)).unwrap();
            let idx = SegmentIndex::open(target(&path, &spec, n), true, true, MemoryShare::Cache(0)).unwrap();
            assert_eq!(idx.sketches().map(|s| s.rows()), Some(n));
            let g = idx.graph().unwrap();
            let (mut hits, mut scored) = ([0usize; 2], [0u64; 2]);
            for q in &queries {
                let exact = PreparedQuery::float(metric, q.clone());
                let orig = Originals { kernels: kern, col, query: &exact, screen: None };
                let mut truth: Vec<Scored> = (0..n as u32).map(|r| Scored { dist: orig.dist(r), id: r }).collect();
                truth.sort_unstable();
                let sq = idx.sketch_query(q, &mut Vec::new());
                let qq = idx.quantizer().map(|qz| qz.prepare(q, &mut QuantScratch::default()));
                for (i, screen) in [None, idx.screen(sq.as_ref())].into_iter().enumerate() {
                    let beam = Beam { ef, allowed: None, budget: usize::MAX };
                    let (mut sc, mut out) = (SearchScratch::default(), Vec::new());
                    match &qq {
                        Some(qq) => {
                            let s =
                                CodeScorer { kernels: kern, codes: idx.codes().unwrap(), screen, query: qq, metric };
                            assert!(hnsw::search(&g, &s, beam, &mut sc, &mut out));
                        }
                        None => assert!(hnsw::search(&g, &Originals { screen, ..orig }, beam, &mut sc, &mut out)),
                    }
                    hits[i] += out.iter().take(k).filter(|c| truth[..k].iter().any(|t| t.id == c.id)).count();
                    scored[i] += sc.distances;
                }
            }
            let recall = hits.map(|h| h as f64 / (queries.len() * k) as f64);
            let case = format!("{quantize} {metric:?}");
            assert!(recall[1] >= recall[0] - 0.015 && recall[1] > 0.9, "{case}: recall {recall:?}");
            // Spread-out clusters; on real embeddings (wordnet-minilm-384) seven in ten go.
            assert!(scored[1] * 10 < scored[0] * 8, "{case}: scored {scored:?} rows without and with sketches");
        }
    }
}

/// Index files written before sketches existed (no sketches; no rotation unless the
/// codes are rotated) still open, and search without screening.
#[test]
fn indexes_without_sketches_still_open() {
    let (n, dim) = (300, 16);
    let mut rng = SplitMix64::new(4);
    let data: Vec<f32> = (0..n * dim).map(|_| rng.next_unit() as f32).collect();
    let col = VectorColumn { dim, validity: Validity(None), data: VectorData::Fp32(&data), norms: None };
    let dir = tempfile::tempdir().unwrap();
    for quantize in ["none", "int8"] {
        let json = format!(r#"{{"type":"hnsw","m":8,"ef_construction":32,"quantize":"{quantize}"}}"#);
        let spec = VectorSpec {
            elem: VectorType::Fp32,
            dim: dim as u32,
            metric: Metric::L2,
            index: serde_json::from_str(&json).unwrap(),
        };
        let path = dir.path().join(format!("{quantize}.idx"));
        build(target(&path, &spec, n), col, 1, &|_| {}, &AtomicBool::new(false)).unwrap();
        let new = SegmentIndex::open(target(&path, &spec, n), true, true, MemoryShare::Cache(0)).unwrap();
        assert!(new.sketches().is_some() && new.rotation().is_some(), "{quantize}");
        let graph = new.graph_index().unwrap();
        let codes = new.codes().map(|c| (c.codes.to_vec(), c.params.to_vec()));
        let rotation = new.quantizer().and_then(|q| q.rotation()).cloned();
        let old = dir.path().join(format!("{quantize}-old.idx"));
        let encoded = Encoded { keeps: kinds::keeps(&spec.index), rotation, codes, sketches: None };
        write(&old, 1, 0, new.meta(), &encoded, &kinds::KindParts::graph(graph).sections, None).unwrap();
        let idx = SegmentIndex::open(target(&old, &spec, n), true, true, MemoryShare::Cache(0)).unwrap();
        assert!(idx.sketches().is_none(), "{quantize}");
        assert_eq!(idx.rotation().is_some(), quantize == "int8");
        let q = &data[..dim];
        let (mut a, mut b) = (TopK::new(5), TopK::new(5));
        let p = SearchParams {
            k: 5,
            ef: 32,
            refine: 0,
            allowed: None,
            position: 0,
            route: Default::default(),
            nprobe: 0,
            target_recall: None,
            beam_width: 1,
        };
        let exact = PreparedQuery::float(Metric::L2, q.to_vec());
        idx.search(col, &exact, q, p, &mut a).unwrap();
        new.search(col, &exact, q, p, &mut b).unwrap();
        let ids = |t: TopK| t.into_sorted().into_iter().map(|c| c.row).collect::<Vec<_>>();
        assert_eq!(ids(a)[0], 0, "{quantize}: a row is its own nearest neighbour");
        assert_eq!(ids(b)[0], 0, "{quantize}");
    }
}

/// One-bit RaBitQ codes of a graph index are its sketches' sign bits, read in place: the
/// file stores only their params, every row's view holds what the quantizer encodes, and
/// the index's memory counts the bits once.
#[test]
fn one_bit_codes_of_graph_indexes_are_read_from_the_sketches() {
    let (n, dim) = (400, 100);
    let mut rng = SplitMix64::new(5);
    let mut data: Vec<f32> = (0..n * dim).map(|_| rng.next_unit() as f32 - 0.5).collect();
    data[..dim].fill(0.0);
    let col = VectorColumn { dim, validity: Validity(None), data: VectorData::Fp32(&data), norms: None };
    let dir = tempfile::tempdir().unwrap();
    for graph in [r#""type":"hnsw","m":8,"ef_construction":32"#, r#""type":"vamana","degree":8,"build_list":16"#] {
        for bits in [1, 2] {
            let json = format!(r#"{{{graph},"quantize":"rabitq","bits":{bits}}}"#);
            let spec = VectorSpec {
                elem: VectorType::Fp32,
                dim: dim as u32,
                metric: Metric::Ip,
                index: serde_json::from_str(&json).unwrap(),
            };
            let path = dir.path().join(format!("{bits}-{}.idx", graph.len()));
            build(target(&path, &spec, n), col, 1, &|_| {}, &AtomicBool::new(false)).unwrap();
            let idx = SegmentIndex::open(target(&path, &spec, n), true, true, MemoryShare::Cache(0)).unwrap();
            let (codes, qz, sketches) = (idx.codes().unwrap(), idx.quantizer().unwrap(), idx.sketches().unwrap());
            let params = (crate::index::quant::PARAMS_PER_ROW * 4 * n) as u64;
            let own = if bits == 1 { 0 } else { (qz.code_bytes() * n) as u64 };
            assert_eq!(idx.bytes_by_kind().codes, own + params, "{json}");
            let (mut buf, mut p, mut s) = (vec![0u8; qz.code_bytes()], [0f32; 3], QuantScratch::default());
            for r in 0..n {
                qz.encode(&data[r * dim..(r + 1) * dim], &mut buf, &mut p, &mut s);
                assert_eq!(codes.row(r), &buf[..], "{json}: row {r}");
                if bits == 1 {
                    let words = &sketches.row_words(r as u32)[..dim.div_ceil(64)];
                    assert_eq!(crate::storage::mmap::as_bytes(words), &buf[..], "{json}: row {r}");
                }
            }
        }
    }
}

/// Counts the rows a scan scores.
struct Counting<'a, S> {
    inner: &'a S,
    scored: std::cell::Cell<u64>,
}

impl<S: Scorer> Scorer for Counting<'_, S> {
    fn dist(&self, row: u32) -> f32 {
        self.scored.set(self.scored.get() + 1);
        self.inner.dist(row)
    }
    fn row_bytes(&self) -> usize {
        self.inner.row_bytes()
    }
    fn prefetch(&self, row: u32) {
        self.inner.prefetch(row)
    }
    fn screen(&self) -> Option<&crate::index::quant::sketch::Screen<'_>> {
        self.inner.screen()
    }
}

/// An exact scan of a filter's rows screened with sketches returns what the unscreened
/// scan does (recall ≥ 0.995 over every metric) while scoring under half of the rows.
#[test]
fn screened_exact_scan_keeps_recall_and_scores_few_rows() {
    let (n, dim, k) = (6000, 128, 10);
    let mut rng = SplitMix64::new(5);
    let mut unit = || rng.next_unit() as f32 * 2.0 - 1.0;
    let centers: Vec<Vec<f32>> = (0..30).map(|_| (0..dim).map(|_| unit()).collect()).collect();
    let mut point = |i: usize| -> Vec<f32> { centers[i % 30].iter().map(|c| c + 0.7 * unit()).collect() };
    let data: Vec<f32> = (0..n).flat_map(&mut point).collect();
    let norms: Vec<f32> = data.chunks_exact(dim).map(|r| r.iter().map(|v| v * v).sum::<f32>().sqrt()).collect();
    let queries: Vec<Vec<f32>> = (0..60).map(|i| point(i * 11 + 3)).collect();
    let allowed: roaring::RoaringBitmap = (0..n as u32).filter(|r| r % 9 == 2 || r % 13 == 0).collect();
    let dir = tempfile::tempdir().unwrap();
    let kern = kernels::best();
    for metric in [Metric::Cosine, Metric::L2, Metric::Ip] {
        let col = VectorColumn {
            dim,
            validity: Validity(None),
            data: VectorData::Fp32(&data),
            norms: (metric == Metric::Cosine).then_some(&norms[..]),
        };
        let index: IndexParams = serde_json::from_str(r#"{"type":"hnsw","m":8,"ef_construction":40}"#).unwrap();
        let spec = VectorSpec { elem: VectorType::Fp32, dim: dim as u32, metric, index };
        let path = dir.path().join(format!("{}.idx", metric.name()));
        build(target(&path, &spec, n), col, 1, &|_| {}, &AtomicBool::new(false)).unwrap();
        let idx = SegmentIndex::open(target(&path, &spec, n), true, true, MemoryShare::Cache(0)).unwrap();
        let (mut hits, mut scored) = (0usize, 0u64);
        for q in &queries {
            let exact = PreparedQuery::float(metric, q.clone());
            let plain = Originals { kernels: kern, col, query: &exact, screen: None };
            let sq = idx.sketch_query(q, &mut Vec::new());
            let screened = Originals { screen: idx.screen(sq.as_ref()), ..plain };
            let (mut bounds, mut want, mut got) = (Vec::new(), Vec::new(), Vec::new());
            super::search::exact_scan(&plain, n, k, Some(&allowed), &mut bounds, &mut want);
            let counting = Counting { inner: &screened, scored: Default::default() };
            super::search::exact_scan(&counting, n, k, Some(&allowed), &mut bounds, &mut got);
            assert_eq!(want.len(), k);
            assert!(got.iter().all(|c| allowed.contains(c.id)));
            hits += got.iter().filter(|c| want.iter().any(|w| w.id == c.id)).count();
            scored += counting.scored.get();
        }
        let recall = hits as f64 / (queries.len() * k) as f64;
        assert!(recall >= 0.995, "{metric:?}: recall {recall}");
        let share = scored as f64 / (queries.len() as u64 * allowed.len()) as f64;
        assert!(share < 0.5, "{metric:?}: scored {share:.3} of the allowed rows");
    }
}

/// Index files of version 2 (`tests/data/compat/index-v2`, made by commit e5919a9: a flat
/// int8, an HNSW int8, a Vamana and an IVF int8 field over 64 rows of 8-d) kept the graph
/// entry, top level and IVF calibration beside the params for every kind; they open with
/// each kind's meta, answer queries and verify clean, and files written again are
/// version 3 with the kind's own meta.
#[test]
fn version_2_index_files_still_open() {
    use crate::{Collection, Doc, OpenOptions, Query};
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("v2");
    crate::testutil::copy_dir(&crate::testutil::repo_root().join("tests/data/compat/index-v2"), &dir);
    let version = |file: &std::path::Path| u32::from_le_bytes(std::fs::read(file).unwrap()[8..12].try_into().unwrap());
    let vec_files = |d: &std::path::Path| -> Vec<std::path::PathBuf> {
        let mut v: Vec<_> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.to_string_lossy().ends_with("-vec.idx"))
            .collect();
        v.sort();
        v
    };
    assert!(vec_files(&dir).iter().all(|f| version(f) == 2));
    let row =
        |i: usize| -> Vec<f32> { (0..8).map(|j| ((i * 7 + j * 3) % 11) as f32 - 5.0 + i as f32 / 64.0).collect() };
    let fields = ["flat", "hnsw", "vamana", "ivf"];
    let check = |d: &std::path::Path, rows: usize| {
        let c = Collection::open(d, &OpenOptions::read_only()).unwrap();
        let snap = c.snapshot();
        let metas: Vec<KindMeta> = (0..4)
            .map(|f| snap.segments[0].indexes[f].as_ref().expect("the index opens").meta().kind.clone())
            .collect();
        assert!(matches!(metas[0], KindMeta::Flat), "{metas:?}");
        assert!(matches!(metas[1], KindMeta::Hnsw { max_level, .. } if max_level > 0), "{metas:?}");
        assert!(matches!(metas[2], KindMeta::Vamana { medoid } if medoid > 0), "{metas:?}");
        assert!(matches!(&metas[3], KindMeta::Ivf { recall_probes } if recall_probes.len() == 101), "{metas:?}");
        for f in fields {
            for i in [0, 17, rows - 1] {
                // Rows 11 apart differ by 0.17 a dimension: int8 codes may rank one first.
                let hits = c.query(&Query::vector(row(i)).field(f).k(3)).unwrap();
                assert!(hits.iter().any(|h| h.key == format!("k{i:02}")), "{f} {i}: {hits:?}");
            }
        }
        drop(c);
        let r = crate::verify::run(d, &crate::verify::VerifyOptions::default().threads(1).attempts(1)).unwrap();
        assert!(r.is_clean(), "{:#?}", r.findings);
    };
    check(&dir, 64);
    // Written again (optimize after an insert): version 3, each kind with its own meta.
    let c = Collection::open(&dir, &OpenOptions::writable()).unwrap();
    let v = row(64);
    let doc = Doc::new("k64").set("flat", v.clone()).set("hnsw", v.clone()).set("vamana", v.clone()).set("ivf", v);
    c.insert(vec![doc]).unwrap();
    c.flush().unwrap();
    c.optimize(&Default::default()).unwrap();
    drop(c);
    let files = vec_files(&dir);
    assert_eq!(files.len(), 4);
    for f in &files {
        assert_eq!(version(f), 3, "{f:?}");
        let text = String::from_utf8_lossy(&std::fs::read(f).unwrap()).into_owned();
        assert!(text.contains(r#""kind":{"type":""#) && !text.contains(r#""max_level":0"#), "{f:?}");
    }
    check(&dir, 65);
}

/// Read without a mapping, a disk index holds everything but its node blocks: the blocks
/// stay in the file for the searches' reads (holding them would cost what the kind exists
/// to save). It answers as the mapped one does, and knows the whole file's length.
#[test]
fn a_disk_index_read_without_a_mapping_leaves_its_node_blocks_in_the_file() {
    use crate::index::disk::layout::PAGE;
    let (n, dim) = (600, 16);
    let mut rng = SplitMix64::new(40);
    let data: Vec<f32> = (0..n * dim).map(|_| rng.next_unit() as f32).collect();
    let col = VectorColumn { dim, validity: Validity(None), data: VectorData::Fp32(&data), norms: None };
    let index: IndexParams = serde_json::from_str(r#"{"type":"disk","degree":16,"build_list":32}"#).unwrap();
    let spec = VectorSpec { elem: VectorType::Fp32, dim: dim as u32, metric: Metric::L2, index };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("disk.idx");
    build(target(&path, &spec, n), col, 1, &|_| {}, &AtomicBool::new(false)).unwrap();
    let size = std::fs::metadata(&path).unwrap().len();
    let mapped = SegmentIndex::open(target(&path, &spec, n), true, true, MemoryShare::Cache(0)).unwrap();
    let read = SegmentIndex::open(target(&path, &spec, n), false, true, MemoryShare::Cache(0)).unwrap();
    let blocks = read.disk().unwrap().layout().bytes();
    // 64 + 8 + 64 bytes a node, 30 a block: 20 blocks, and the section's page of padding.
    assert_eq!(blocks, 20 * PAGE as u64);
    assert_eq!((mapped.file_len(), read.file_len()), (size, size));
    assert!(read.held_bytes() + blocks <= size && read.held_bytes() < size / 3, "{} of {size}", read.held_bytes());
    for q in data.chunks_exact(dim).step_by(37) {
        let prepared = PreparedQuery::float(Metric::L2, q.to_vec());
        let found: Vec<Vec<u32>> = [&mapped, &read]
            .map(|idx| {
                let mut top = TopK::new(5);
                let p = SearchParams {
                    k: 5,
                    ef: 32,
                    refine: 0,
                    allowed: None,
                    position: 0,
                    route: Default::default(),
                    nprobe: 0,
                    target_recall: None,
                    beam_width: 4,
                };
                idx.search(col, &prepared, q, p, &mut top).unwrap();
                top.into_sorted().into_iter().map(|c| c.row).collect()
            })
            .into_iter()
            .collect();
        assert_eq!(found[0], found[1]);
        assert_eq!(found[0].len(), 5);
    }
}
