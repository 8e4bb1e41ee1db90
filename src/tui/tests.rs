//! Snapshot tests: every view drawn with ratatui's `TestBackend` at 80×24 and 160×48
//! (and the fallbacks below them) from a fixed feed: no clocks, no process readings.
//! The expected frames are committed under `tests/tui/`; `XVEC_BLESS=1` rewrites them.

use std::path::Path;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use xvec::MemoryUsage;
use xvec::verify::{GraphReport, topology::LayerStats};

use super::metrics::{Metrics, Tick};
use super::render::render;
use super::state::{
    FieldInfo, FileKindInfo, Load, OptimizeState, OptimizeStatus, Overview, SearchInfo, SegmentRow, State, View,
};
use super::workload::Settings;

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
            settings: Settings { running: true, concurrency: 3, k: 10, ef: Some(80), refine: None, filter: true },
            default_ef: Some(64),
            default_refine: Some(2),
            filter: Some("lexname = 'noun.animal'".into()),
            queries: 1000,
            query_source: "sampled".into(),
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
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tui").join(format!("{name}.txt"));
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
