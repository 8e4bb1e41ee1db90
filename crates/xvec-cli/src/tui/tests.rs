//! Snapshot tests: every view drawn with ratatui's `TestBackend` at 80×24 and 160×48
//! (and the fallbacks below them) from a fixed feed: no clocks, no process readings.
//! The expected frames are committed under `tests/tui/`; `XVEC_BLESS=1` rewrites them.

use std::path::Path;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;
use xvec::MemoryUsage;
use xvec::verify::{GraphReport, LayerStats};

use super::metrics::{LATENCY_BUCKETS_US, Metrics, Tick};
use super::render::{frame_areas, render};
use super::search_view::{self, LatencyRow, SearchLayout};
use super::state::{
    FieldInfo, FileKindInfo, Load, OptimizeState, OptimizeStatus, Overview, QuerySource, SearchInfo, SegmentRow, State,
    View,
};
use super::workload::{self, Settings};

fn feed() -> Metrics {
    let mut m = Metrics::new();
    m.mark("start");
    for i in 1..=240u64 {
        let mut t = Tick::at(i as f64 * 0.25);
        t.queries = 250 + (i % 7) * 20 + if i > 120 { 150 } else { 0 };
        for j in 0..50 {
            t.latency.record(80 + (i * 37 + j * 53) % 900).unwrap();
        }
        t.latency.record(4_000 + i * 10).unwrap();
        t.recall_sum = 0.95 * 20.0;
        t.recall_n = 20;
        t.rss_bytes = Some((180 << 20) + (i << 16));
        t.cpu = Some((i as f64 * 0.45, i as f64 * 0.02));
        t.engine = Some(MemoryUsage {
            mapped_vectors: 96 << 20,
            mapped_other: 9 << 20,
            codes: 24 << 20,
            sketches: 7_500_000,
            graph: 12 << 20,
            query_scratch: 1 << 20,
            mem_vectors: 3 << 20,
            mem_other: 1 << 20,
            wal_buffer: 64 << 10,
            ..Default::default()
        });
        m.push(t);
        if i == 80 {
            m.mark("ef 80");
        }
        if i == 120 {
            m.mark("threads 3");
        }
    }
    m
}

fn state(view: View) -> State {
    let segments = (1..=3)
        .map(|id| SegmentRow {
            id,
            file: format!("SEG-{id:06}.xseg"),
            rows: 25_000 * id,
            deleted: id * 7,
            bytes: 40_000_000 * id,
        })
        .collect();
    let field = |name: &str, ty: &str| FieldInfo { name: name.into(), ty: ty.into(), index: None, built: None };
    let overview = Overview {
        name: "wordnet".into(),
        dir: "/data/wordnet".into(),
        writable: true,
        generation: 12,
        live: 149_958,
        deleted: 42,
        unflushed: 310,
        wal_records: 12,
        unindexed: 310,
        background_jobs: 0,
        wal_bytes: 96_412,
        disk_bytes: 251_000_000,
        fields: vec![
            field("lemma", "string"),
            field("lexname", "string"),
            FieldInfo {
                name: "emb".into(),
                ty: "vector_fp32".into(),
                index: Some("cosine hnsw m=16 efc=200 ef=64 int8+rot refine=2".into()),
                built: Some(0.998),
            },
        ],
        files: [
            ("current", 1, 21),
            ("manifest", 1, 2_310),
            ("wal", 1, 96_412),
            ("segment", 3, 240_000_000),
            ("index", 3, 10_900_000),
        ]
        .into_iter()
        .map(|(kind, files, bytes)| FileKindInfo { kind, files, bytes })
        .collect(),
        segments,
    };
    let histogram: Vec<u64> = (0..=32u64).map(|d| if d < 4 { 0 } else { (d * 37 + 11) % 400 }).collect();
    let layer = |level: u32, nodes: u64| LayerStats {
        level,
        nodes,
        edges: nodes * 20,
        degree_bound: if level == 0 { 32 } else { 16 },
        degree_histogram: if level == 0 { histogram.clone() } else { vec![0; 17] },
        unreachable: if level == 0 { 2 } else { 0 },
        unreachable_live: if level == 0 { 1 } else { 0 },
        ..Default::default()
    };
    State {
        view,
        help: false,
        color: false,
        overview,
        search: SearchInfo {
            settings: Settings {
                running: true,
                concurrency: 3,
                k: 10,
                ef: Some(80),
                nprobe: None,
                refine: None,
                filter: true,
            },
            default_ef: Some(64),
            default_nprobe: None,
            default_refine: Some(2),
            filter: Some("lexname = 'noun.animal'".into()),
            queries: 1000,
            query_source: QuerySource::Sampled,
            recall_source: "exact search, 100 queries".into(),
            reference_ready: true,
        },
        metrics: feed(),
        optimize: OptimizeState {
            status: OptimizeStatus::Running,
            segments_done: 2,
            segments_total: 3,
            vectors_done: 50_000,
            vectors_total: 75_000,
            rate: 12_500.0,
            seconds: 4.0,
        },
        selected: 1,
        graphs: Load::Ready(vec![GraphReport {
            file: "SEG-000002-f2.idx".into(),
            segment: 2,
            field: "emb".into(),
            kind: "hnsw".into(),
            nodes: 50_000,
            edges: 1_052_000,
            entry: 17,
            layers: vec![layer(0, 50_000), layer(1, 3_100), layer(2, 190), layer(3, 12)],
        }]),
        message: Some("ef 80".into()),
        ingest: Some(2_150.0),
    }
}

fn draw(state: &State, w: u16, h: u16) -> String {
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    term.draw(|f| render(state, f)).unwrap();
    let buf = term.backend().buffer();
    let mut out = String::new();
    for y in 0..h {
        let line: String = (0..w).map(|x| buf[(x, y)].symbol()).collect();
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn check(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/tui/snapshots").join(format!("{name}.txt"));
    if std::env::var_os("XVEC_BLESS").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        expected == actual,
        "{} is stale; if the change is intended: XVEC_BLESS=1 cargo test --bin xvec tui::\n--- expected ---\n{expected}\n--- actual ---\n{actual}",
        path.display()
    );
}

#[test]
fn every_view_at_80x24_and_160x48() {
    for view in View::ALL {
        for (w, h) in [(80, 24), (160, 48)] {
            check(&format!("{}-{w}x{h}", view.title().to_lowercase()), &draw(&state(view), w, h));
        }
    }
}

#[test]
fn views_degrade_below_80x24() {
    for view in View::ALL {
        check(&format!("{}-60x16", view.title().to_lowercase()), &draw(&state(view), 60, 16));
    }
    check("tiny-16x4", &draw(&state(View::Search), 16, 4));
}

#[test]
fn help_overlay_and_states_without_data() {
    let mut s = state(View::Search);
    s.help = true;
    check("help-80x24", &draw(&s, 80, 24));
    let mut s = state(View::Segments);
    (s.graphs, s.optimize.status) = (Load::Loading, OptimizeStatus::ReadOnly);
    s.metrics = Metrics::new();
    s.search.reference_ready = false;
    check("empty-segments-80x24", &draw(&s, 80, 24));
    s.view = View::Search;
    check("empty-search-80x24", &draw(&s, 80, 24));
    s.view = View::Optimize;
    check("empty-optimize-80x24", &draw(&s, 80, 24));
}

/// The search view's panels at a size, as the view lays them out for the fixed feed.
fn search_panels(w: u16, h: u16) -> SearchLayout {
    let [_, body, _] = frame_areas(Rect::new(0, 0, w, h));
    let s = state(View::Search);
    search_view::layout(body, |width| search_view::memory_legend(&s, width).len() as u16)
}

#[test]
fn search_layout_gives_the_histogram_a_fair_share_at_every_size() {
    for (w, h) in [(80, 24), (120, 40), (160, 48)] {
        let l = search_panels(w, h);
        let [_, body, _] = frame_areas(Rect::new(0, 0, w, h));
        let (hist, chart) = (l.histogram_rows(), l.chart.height);
        assert!(hist >= 4 && chart >= 5, "{w}x{h}: histogram {hist} rows, chart {chart}: {l:?}");
        // The chart never takes more than three times the histogram's rows.
        assert!(chart <= 3 * hist, "{w}x{h}: histogram {hist} rows, chart {chart}: {l:?}");
        assert_eq!(l.throughput.height + l.chart.height + l.recall.height, body.height, "{w}x{h}: {l:?}");
        assert_eq!(l.recall.height, l.memory.height);
        // The recall panel's five lines fit.
        assert!(l.recall.height >= 7, "{w}x{h}: {l:?}");
    }
    let big = search_panels(160, 48);
    assert!(big.histogram_rows() >= 10, "{big:?}");
    // At 160x48 every bucket of the feed has its own row: no pairs merged, nothing folded.
    let frame = draw(&state(View::Search), 160, 48);
    for label in ["<0.1ms", "<0.15ms", "<0.2ms", "<0.3ms", "<0.5ms", "<0.7ms", "<1ms", "<5ms", "<7ms"] {
        assert!(frame.contains(&format!("{label} ")), "{label} missing:\n{frame}");
    }
}

#[test]
fn latency_rows_merge_pairs_then_fold_the_tail() {
    let mut counts = vec![0u64; LATENCY_BUCKETS_US.len()];
    for (i, c) in [(1, 5), (2, 7), (3, 1), (6, 2), (9, 4), (12, 3)] {
        counts[i] = c;
    }
    let fine = search_view::latency_rows(&counts, 20);
    assert_eq!(fine.len(), 12);
    assert_eq!(fine[0], LatencyRow { lo: 70, hi: 100, count: 5 });
    assert_eq!(fine.iter().map(|r| r.count).sum::<u64>(), 22);
    // Seven rows: the pairs merged into the 1-2-5 steps.
    let coarse = search_view::latency_rows(&counts, 7);
    let labels: Vec<String> = coarse.iter().map(LatencyRow::label).collect();
    assert_eq!(labels, ["<0.1ms", "<0.2ms", "<0.5ms", "<1ms", "<2ms", "<5ms", "<10ms"]);
    assert_eq!(coarse.iter().map(|r| r.count).collect::<Vec<_>>(), [5, 8, 0, 2, 4, 0, 3]);
    // Four rows: the coarse rows past the third fold into an open last one.
    let folded = search_view::latency_rows(&counts, 4);
    let labels: Vec<String> = folded.iter().map(LatencyRow::label).collect();
    assert_eq!(labels, ["<0.1ms", "<0.2ms", "<0.5ms", ">=0.5ms"]);
    assert_eq!(folded[3].count, 9);
    assert_eq!(folded.iter().map(|r| r.count).sum::<u64>(), 22);
    assert!(search_view::latency_rows(&[0; 20], 5).is_empty());
}

#[test]
fn the_throughput_title_keeps_a_long_query_source_readable_at_80_columns() {
    let mut s = state(View::Search);
    let path = "/srv/datasets/embeddings/wordnet/2026-11/queries-holdout.fvecs";
    s.search.query_source = QuerySource::File(path.into());
    let frame = draw(&s, 80, 24);
    let title = frame.lines().nth(1).unwrap();
    assert!(title.contains(" queries-holdout.fvecs "), "{frame}");
    let t = search_view::throughput_title(1000, &QuerySource::File(path.into()), 60);
    assert_eq!(t, " 1000 queries from queries-holdout.fvecs ");
    // Wide enough, the whole path shows.
    let frame = draw(&s, 240, 48);
    assert!(frame.contains(&format!("throughput, 1000 queries from {path}")), "{frame}");
    // A file name longer than the panel keeps its end, where the kind is.
    let name = "queries-of-the-wordnet-holdout-split-for-recall-at-ten.fvecs";
    let t = search_view::throughput_title(1000, &QuerySource::File(format!("/d/{name}")), 34);
    assert_eq!(t.chars().count(), 34, "{t}");
    assert!(t.starts_with(" …") && t.ends_with("recall-at-ten.fvecs "), "{t}");
    assert_eq!(search_view::throughput_title(1000, &QuerySource::Sampled, 34), " throughput, 1000 sampled queries ");
}

#[test]
fn the_memory_panel_shows_every_kind_and_they_sum_to_the_total() {
    for (w, h) in [(80, 24), (160, 48)] {
        let s = state(View::Search);
        let summary = s.metrics.summary();
        let parts = summary.engine_bytes.clone().unwrap();
        assert_eq!(parts.iter().map(|p| p.bytes).sum::<u64>(), summary.engine_total_bytes.unwrap());
        let frame = draw(&s, w, h);
        for name in [
            "vectors",
            "keys+scalars",
            "codes",
            "sketches 7.2M",
            "graph",
            "scratch",
            "unfl.vectors",
            "unfl.other",
            "wal",
        ] {
            assert!(frame.contains(name), "{w}x{h}: {name} missing:\n{frame}");
        }
        let total = super::style::short(summary.engine_total_bytes.unwrap());
        assert!(frame.contains(&format!("engine {total}")), "{w}x{h}: total {total} missing:\n{frame}");
    }
}

/// A collection of `n` clustered 16-d vectors (keys "0".."n-1") under a small HNSW
/// graph, optimized, so searches at a low ef miss some neighbours.
fn small_hnsw(dir: &Path, n: usize) -> (xvec::Collection, Vec<Vec<f32>>) {
    let schema = r#"{"name":"t","fields":[{"name":"v","type":"vector_fp32","dim":16,"metric":"l2",
        "index":{"type":"hnsw","m":4,"ef_construction":8,"ef":10}}]}"#;
    let coll = xvec::Collection::create(dir, xvec::Schema::from_json(schema).unwrap(), Default::default()).unwrap();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 40) as f32 / (1u64 << 24) as f32 - 0.5
    };
    let centers: Vec<Vec<f32>> = (0..8).map(|_| (0..16).map(|_| next() * 4.0).collect()).collect();
    let data: Vec<Vec<f32>> = (0..n).map(|i| centers[i % 8].iter().map(|c| c + next()).collect()).collect();
    coll.insert(data.iter().enumerate().map(|(i, v)| xvec::Doc::new(i.to_string()).set("v", v.clone())).collect())
        .unwrap();
    coll.optimize(&xvec::OptimizeOptions::default().concurrency(1)).unwrap();
    (coll, data)
}

/// The k nearest rows of `q` by brute force, leaving out row `skip`.
fn nearest(data: &[Vec<f32>], q: &[f32], k: usize, skip: Option<usize>) -> Vec<usize> {
    let d = |v: &[f32]| v.iter().zip(q).map(|(a, b)| (a - b) * (a - b)).sum::<f32>();
    let mut rows: Vec<usize> = (0..data.len()).filter(|&i| Some(i) != skip).collect();
    rows.sort_by(|&a, &b| d(&data[a]).total_cmp(&d(&data[b])).then(a.cmp(&b)));
    rows.truncate(k);
    rows
}

#[test]
fn sampled_recall_leaves_each_query_s_own_row_out() {
    let dir = tempfile::tempdir().unwrap();
    let (coll, data) = small_hnsw(dir.path(), 3000);
    let (k, ef) = (10, 12);
    let queries = workload::sample_queries(&coll.snapshot(), "v", &Default::default(), 200).unwrap();
    let own: Vec<usize> = queries.own_keys.clone().unwrap().iter().map(|k| k.parse().unwrap()).collect();
    assert_eq!(own.len(), 200);
    let settings =
        Settings { running: true, concurrency: 1, k, ef: Some(ef), nprobe: None, refine: None, filter: false };
    let truth = workload::Truth::Exact { sample: own.len(), keys: Default::default() };
    let w = workload::Workload::new(
        &coll,
        (Some("v".into()), Default::default()),
        None,
        Default::default(),
        queries,
        truth,
        settings.clone(),
    );
    w.compute_reference();
    let mut q = w.query_for(&settings);
    let reported: f64 =
        (0..own.len()).map(|qi| w.run_query(qi, &settings, &mut q).unwrap().unwrap()).sum::<f64>() / own.len() as f64;

    // Independently: the index's answer and brute force, both without the query's row.
    let (mut honest, mut inflated) = (0.0, 0.0);
    for &row in &own {
        let v = &data[row];
        let search = |k: usize| -> Vec<usize> {
            coll.query(&xvec::Query::vector(v.clone()).k(k).ef(ef))
                .unwrap()
                .iter()
                .map(|h| h.key.parse().unwrap())
                .collect()
        };
        let got: Vec<usize> = search(k + 1).into_iter().filter(|&r| r != row).take(k).collect();
        let want = nearest(&data, v, k, Some(row));
        honest += got.iter().filter(|r| want.contains(r)).count() as f64 / k as f64;
        let got = search(k);
        let want = nearest(&data, v, k, None);
        inflated += got.iter().filter(|r| want.contains(r)).count() as f64 / k as f64;
    }
    let (honest, inflated) = (honest / own.len() as f64, inflated / own.len() as f64);
    assert!((reported - honest).abs() < 1e-9, "reported {reported}, without the own row {honest}");
    // Counting the free self-match would have reported more.
    assert!(inflated > honest + 0.01, "inflated {inflated}, honest {honest}: the graph is too good for this test");
    assert!(honest < 0.99, "{honest}");
}

#[test]
fn the_dashboard_starts_on_the_first_view() {
    let dir = tempfile::tempdir().unwrap();
    let (coll, _) = small_hnsw(dir.path(), 200);
    let s = State::new(Overview::read(&coll), state(View::Search).search, false);
    assert_eq!(s.view, View::Overview);
    assert_eq!(s.view, View::ALL[0]);
    assert_eq!((s.help, s.selected, s.optimize.status.clone()), (false, 0, OptimizeStatus::Idle));
    let frame = draw(&s, 80, 24);
    assert!(frame.lines().next().unwrap().starts_with(" 1 Overview "), "{frame}");
    assert!(frame.contains("on disk") && frame.contains("hnsw m=4"), "{frame}");
}

#[test]
fn a_cancelled_optimize_shows_cancelled_not_failed() {
    let dir = tempfile::tempdir().unwrap();
    let (coll, data) = small_hnsw(dir.path(), 300);
    coll.insert(data.iter().enumerate().map(|(i, v)| xvec::Doc::new(format!("n{i}")).set("v", v.clone())).collect())
        .unwrap();
    let cancel = std::sync::atomic::AtomicBool::new(true);
    let result = coll.optimize(&xvec::OptimizeOptions::default().concurrency(1).cancel(Some(&cancel)));
    let mut s = state(View::Optimize);
    (s.optimize.status, s.optimize.seconds) = (OptimizeStatus::of(result), 1.5);
    assert_eq!(s.optimize.status, OptimizeStatus::Cancelled);
    for (w, h) in [(80, 24), (60, 16)] {
        let frame = draw(&s, w, h);
        assert!(frame.contains("cancelled after 1.5 s; the collection is unchanged"), "{frame}");
        assert!(!frame.contains("failed"), "{frame}");
    }
    // Any other error is a failure.
    let status = OptimizeStatus::of(Err(xvec::Error::ReadOnly(xvec::ReadOnly)));
    assert!(matches!(&status, OptimizeStatus::Failed(e) if e.contains("read-only")), "{status:?}");
    s.optimize.status = status;
    assert!(draw(&s, 80, 24).contains("failed: "), "{}", draw(&s, 80, 24));
}
