//! Aggregation of what the workload publishes into what the panels show: rates, latency
//! percentiles over a sliding window, recall, memory with its peak, CPU per second, and
//! bounded histories for the charts with the settings changes marked on them.
//!
//! Pure: time comes in with each [`Tick`] (seconds since the start), so tests feed fixed
//! data and the snapshot tests render the same frames every run.

use std::collections::VecDeque;

use hdrhistogram::Histogram;
use serde::Serialize;
use xvec::MemoryUsage;

/// Seconds of history the charts keep.
pub const HISTORY_SECS: f64 = 300.0;
/// Seconds over which the "now" figures (QPS, percentiles, recall) are taken.
pub const WINDOW_SECS: f64 = 5.0;
/// Most settings changes kept for the charts.
const MAX_MARKERS: usize = 64;
/// Latency histogram buckets, upper bounds in microseconds (the last is open): 1-1.5-2-3-5-7
/// per decade, so that merging each even bucket with the next gives the 1-2-5 steps the
/// histogram falls back to when it has fewer rows.
pub const LATENCY_BUCKETS_US: [u64; 20] = [
    70,
    100,
    150,
    200,
    300,
    500,
    700,
    1_000,
    1_500,
    2_000,
    3_000,
    5_000,
    7_000,
    10_000,
    15_000,
    20_000,
    30_000,
    50_000,
    70_000,
    u64::MAX,
];

/// A latency histogram in microseconds, from 1 µs to one minute at 3 significant digits.
pub fn latency_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 60_000_000, 3).expect("valid histogram bounds")
}

/// What the workload did between two collections, plus process readings at the second.
#[derive(Clone, Debug)]
pub struct Tick {
    /// Seconds since the start of the run.
    pub t: f64,
    pub queries: u64,
    pub errors: u64,
    /// Query latencies in microseconds.
    pub latency: Histogram<u64>,
    /// Sum of recall@k over the queries that had a reference, and their number.
    pub recall_sum: f64,
    pub recall_n: u64,
    pub rss_bytes: Option<u64>,
    /// Process CPU time so far, user and system seconds.
    pub cpu: Option<(f64, f64)>,
    pub engine: Option<MemoryUsage>,
}

impl Tick {
    pub fn at(t: f64) -> Tick {
        Tick {
            t,
            queries: 0,
            errors: 0,
            latency: latency_histogram(),
            recall_sum: 0.0,
            recall_n: 0,
            rss_bytes: None,
            cpu: None,
            engine: None,
        }
    }
}

/// A settings change, drawn on the charts at its time.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Marker {
    pub t: f64,
    pub label: String,
}

/// One point of the charts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Point {
    pub t: f64,
    pub qps: f64,
    pub rss_mib: f64,
}

struct Slice {
    dt: f64,
    queries: u64,
    latency: Histogram<u64>,
    recall_sum: f64,
    recall_n: u64,
}

/// The aggregator the UI thread owns.
pub struct Metrics {
    now: f64,
    window: VecDeque<Slice>,
    total_queries: u64,
    total_errors: u64,
    total_latency: Histogram<u64>,
    history: VecDeque<Point>,
    markers: VecDeque<Marker>,
    rss: Option<u64>,
    rss_peak: u64,
    engine: Option<MemoryUsage>,
    engine_peak: u64,
    last_cpu: Option<(f64, f64)>,
    cpu_rate: Option<(f64, f64)>,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

fn ms(us: u64) -> f64 {
    us as f64 / 1000.0
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1u64 << 20) as f64
}

impl Metrics {
    pub fn new() -> Metrics {
        Metrics {
            now: 0.0,
            window: VecDeque::new(),
            total_queries: 0,
            total_errors: 0,
            total_latency: latency_histogram(),
            history: VecDeque::new(),
            markers: VecDeque::new(),
            rss: None,
            rss_peak: 0,
            engine: None,
            engine_peak: 0,
            last_cpu: None,
            cpu_rate: None,
        }
    }

    /// Folds in one tick. Ticks come in time order; a tick at or before the previous one
    /// counts its work but adds no rate.
    pub fn push(&mut self, tick: Tick) {
        let dt = (tick.t - self.now).max(0.0);
        if let (Some((u0, s0)), Some((u1, s1))) = (self.last_cpu, tick.cpu)
            && dt > 0.0
        {
            self.cpu_rate = Some((((u1 - u0) / dt).max(0.0), ((s1 - s0) / dt).max(0.0)));
        }
        if tick.cpu.is_some() {
            self.last_cpu = tick.cpu;
        }
        self.now = self.now.max(tick.t);
        self.total_queries += tick.queries;
        self.total_errors += tick.errors;
        // Both histograms have the same bounds, so adding cannot fail.
        let _ = self.total_latency.add(&tick.latency);
        if let Some(r) = tick.rss_bytes {
            self.rss = Some(r);
            self.rss_peak = self.rss_peak.max(r);
        }
        if let Some(e) = tick.engine {
            self.engine_peak = self.engine_peak.max(e.total());
            self.engine = Some(e);
        }
        self.window.push_back(Slice {
            dt,
            queries: tick.queries,
            latency: tick.latency,
            recall_sum: tick.recall_sum,
            recall_n: tick.recall_n,
        });
        let mut span: f64 = self.window.iter().map(|s| s.dt).sum();
        while self.window.len() > 1 && span - self.window[0].dt >= WINDOW_SECS {
            span -= self.window[0].dt;
            self.window.pop_front();
        }
        let latest = self.window.back().expect("just pushed");
        let point = Point {
            t: self.now,
            qps: if latest.dt > 0.0 { latest.queries as f64 / latest.dt } else { 0.0 },
            rss_mib: self.rss.map_or(0.0, mib),
        };
        self.history.push_back(point);
        while self.history.front().is_some_and(|p| p.t < self.now - HISTORY_SECS) {
            self.history.pop_front();
        }
        while self.markers.front().is_some_and(|m| m.t < self.now - HISTORY_SECS) {
            self.markers.pop_front();
        }
    }

    /// Marks a settings change at the current time.
    pub fn mark(&mut self, label: impl Into<String>) {
        if self.markers.len() == MAX_MARKERS {
            self.markers.pop_front();
        }
        self.markers.push_back(Marker { t: self.now, label: label.into() });
    }

    pub fn now(&self) -> f64 {
        self.now
    }

    pub fn history(&self) -> &VecDeque<Point> {
        &self.history
    }

    pub fn markers(&self) -> &VecDeque<Marker> {
        &self.markers
    }

    /// The latencies of the window merged.
    pub fn window_latency(&self) -> Histogram<u64> {
        let mut h = latency_histogram();
        for s in &self.window {
            let _ = h.add(&s.latency);
        }
        h
    }

    /// Queries of the window per latency bucket ([`LATENCY_BUCKETS_US`]).
    pub fn latency_buckets(&self) -> Vec<u64> {
        let mut counts = vec![0; LATENCY_BUCKETS_US.len()];
        for v in self.window_latency().iter_recorded() {
            let us = v.value_iterated_to();
            let at = LATENCY_BUCKETS_US.iter().position(|&hi| us < hi).unwrap_or(LATENCY_BUCKETS_US.len() - 1);
            counts[at] += v.count_at_value();
        }
        counts
    }

    pub fn summary(&self) -> Summary {
        let span: f64 = self.window.iter().map(|s| s.dt).sum();
        let queries: u64 = self.window.iter().map(|s| s.queries).sum();
        let h = self.window_latency();
        let (recall_sum, recall_n) = self.window.iter().fold((0.0, 0), |(s, n), w| (s + w.recall_sum, n + w.recall_n));
        let engine = self
            .engine
            .as_ref()
            .map(|e| e.by_kind().iter().map(|&(kind, bytes)| EngineKind { kind, bytes }).collect::<Vec<_>>());
        Summary {
            elapsed_s: self.now,
            queries: self.total_queries,
            errors: self.total_errors,
            qps: if span > 0.0 { queries as f64 / span } else { 0.0 },
            qps_avg: if self.now > 0.0 { self.total_queries as f64 / self.now } else { 0.0 },
            latency_ms: Latency {
                p50: ms(h.value_at_quantile(0.5)),
                p95: ms(h.value_at_quantile(0.95)),
                p99: ms(h.value_at_quantile(0.99)),
                max: ms(h.max()),
                mean: h.mean() / 1000.0,
            },
            latency_ms_all: Latency {
                p50: ms(self.total_latency.value_at_quantile(0.5)),
                p95: ms(self.total_latency.value_at_quantile(0.95)),
                p99: ms(self.total_latency.value_at_quantile(0.99)),
                max: ms(self.total_latency.max()),
                mean: self.total_latency.mean() / 1000.0,
            },
            recall: (recall_n > 0).then(|| recall_sum / recall_n as f64),
            recall_queries: recall_n,
            rss_mib: self.rss.map(mib),
            rss_peak_mib: (self.rss_peak > 0).then(|| mib(self.rss_peak)),
            engine_bytes: engine,
            engine_total_bytes: self.engine.as_ref().map(MemoryUsage::total),
            engine_peak_bytes: self.engine.as_ref().map(|_| self.engine_peak),
            cpu_user: self.cpu_rate.map(|c| c.0),
            cpu_sys: self.cpu_rate.map(|c| c.1),
        }
    }
}

/// Latency percentiles in milliseconds.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Latency {
    pub p50: f64,
    pub p95: f64,
    pub p99: f64,
    pub max: f64,
    pub mean: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EngineKind {
    pub kind: &'static str,
    pub bytes: u64,
}

/// The panel values: what the search view shows and `--headless --json` prints.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    pub elapsed_s: f64,
    pub queries: u64,
    pub errors: u64,
    /// Over the last [`WINDOW_SECS`].
    pub qps: f64,
    /// Over the whole run.
    pub qps_avg: f64,
    /// Over the last [`WINDOW_SECS`].
    pub latency_ms: Latency,
    /// Over the whole run.
    pub latency_ms_all: Latency,
    /// Mean recall@k over the last [`WINDOW_SECS`] of queries with a reference.
    pub recall: Option<f64>,
    pub recall_queries: u64,
    pub rss_mib: Option<f64>,
    pub rss_peak_mib: Option<f64>,
    /// Every kind of the engine's accounting ([`MemoryUsage::by_kind`]); they sum to
    /// `engine_total_bytes`.
    pub engine_bytes: Option<Vec<EngineKind>>,
    pub engine_total_bytes: Option<u64>,
    pub engine_peak_bytes: Option<u64>,
    /// CPU seconds per second (1.0 = one core busy), user and system.
    pub cpu_user: Option<f64>,
    pub cpu_sys: Option<f64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tick(t: f64, queries: u64, latency_us: &[u64]) -> Tick {
        let mut k = Tick::at(t);
        k.queries = queries;
        for &l in latency_us {
            k.latency.record(l).unwrap();
        }
        k
    }

    #[test]
    fn rates_are_per_second_over_the_window() {
        let mut m = Metrics::new();
        m.push(tick(1.0, 100, &[]));
        m.push(tick(2.0, 300, &[]));
        let s = m.summary();
        assert_eq!(s.queries, 400);
        assert!((s.qps - 200.0).abs() < 1e-9, "{}", s.qps);
        assert!((s.qps_avg - 200.0).abs() < 1e-9);
        assert!((m.history().back().unwrap().qps - 300.0).abs() < 1e-9);
    }

    #[test]
    fn the_window_forgets_old_ticks_but_totals_do_not() {
        let mut m = Metrics::new();
        m.push(tick(1.0, 1000, &[10_000]));
        for i in 2..=10 {
            m.push(tick(i as f64, 10, &[100]));
        }
        let s = m.summary();
        // The last 5 s hold 10 queries per second at 0.1 ms; the first second is gone.
        assert!((s.qps - 10.0).abs() < 1e-9, "{}", s.qps);
        assert!((s.latency_ms.p99 - 0.1).abs() < 0.001, "{:?}", s.latency_ms);
        assert!((s.latency_ms_all.max - 10.0).abs() < 0.01, "{:?}", s.latency_ms_all);
        assert_eq!(s.queries, 1090);
    }

    #[test]
    fn percentiles_follow_the_recorded_distribution() {
        let mut m = Metrics::new();
        let lat: Vec<u64> = (1..=1000).collect();
        m.push(tick(1.0, 1000, &lat));
        let l = m.summary().latency_ms;
        assert!((l.p50 - 0.5).abs() < 0.001, "{l:?}");
        assert!((l.p95 - 0.95).abs() < 0.001, "{l:?}");
        assert!((l.p99 - 0.99).abs() < 0.001, "{l:?}");
        assert!((l.max - 1.0).abs() < 0.001 && (l.mean - 0.5005).abs() < 0.001, "{l:?}");
    }

    #[test]
    fn latency_buckets_partition_the_window() {
        let mut m = Metrics::new();
        m.push(tick(1.0, 7, &[50, 90, 150, 160, 700, 3_000, 90_000]));
        let b = m.latency_buckets();
        assert_eq!(b.len(), LATENCY_BUCKETS_US.len());
        assert_eq!(b.iter().sum::<u64>(), 7, "{b:?}");
        assert_eq!(b, [1, 1, 0, 2, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1]);
    }

    #[test]
    fn recall_memory_peak_and_cpu() {
        let mut m = Metrics::new();
        let mut a = tick(1.0, 10, &[]);
        (a.recall_sum, a.recall_n, a.rss_bytes, a.cpu) = (1.8, 2, Some(300 << 20), Some((1.0, 0.5)));
        a.engine = Some(MemoryUsage { mapped_vectors: 100, graph: 50, ..Default::default() });
        m.push(a);
        let mut b = tick(3.0, 10, &[]);
        (b.recall_sum, b.recall_n, b.rss_bytes, b.cpu) = (1.0, 1, Some(200 << 20), Some((4.0, 1.5)));
        b.engine = Some(MemoryUsage { mapped_vectors: 100, ..Default::default() });
        m.push(b);
        let s = m.summary();
        assert!((s.recall.unwrap() - 2.8 / 3.0).abs() < 1e-9);
        assert_eq!((s.rss_mib, s.rss_peak_mib), (Some(200.0), Some(300.0)));
        assert_eq!((s.engine_total_bytes, s.engine_peak_bytes), (Some(100), Some(150)));
        assert_eq!((s.cpu_user, s.cpu_sys), (Some(1.5), Some(0.5)));
        assert!(Metrics::new().summary().recall.is_none());
    }

    #[test]
    fn engine_parts_are_every_kind_and_sum_to_the_total() {
        let mut m = Metrics::new();
        let mut t = tick(1.0, 1, &[]);
        let usage = MemoryUsage {
            mapped_vectors: 1 << 20,
            mapped_other: 2,
            owned_segments: 3,
            codes: 4,
            sketches: 7_500_000,
            graph: 6,
            disk_cache: 17,
            lists: 14,
            scalar_indexes: 13,
            text_indexes: 15,
            sparse_indexes: 16,
            scan_codes: 12,
            query_scratch: 7,
            mem_vectors: 8,
            mem_other: 9,
            delete_bitmaps: 10,
            wal_buffer: 11,
        };
        t.engine = Some(usage.clone());
        m.push(t);
        let s = m.summary();
        let parts = s.engine_bytes.unwrap();
        assert_eq!(parts.len(), usage.by_kind().len());
        assert!(parts.iter().any(|p| p.kind == "sketches" && p.bytes == 7_500_000), "{parts:?}");
        assert!(parts.iter().all(|p| p.bytes > 0), "a kind is left out: {parts:?}");
        assert_eq!(parts.iter().map(|p| p.bytes).sum::<u64>(), s.engine_total_bytes.unwrap());
        assert_eq!(s.engine_total_bytes, Some(usage.total()));
    }

    #[test]
    fn history_and_markers_are_bounded_in_time() {
        let mut m = Metrics::new();
        m.mark("start");
        for i in 1..=400 {
            m.push(tick(i as f64, 1, &[]));
            if i % 100 == 0 {
                m.mark(format!("ef {i}"));
            }
        }
        assert_eq!(m.history().front().unwrap().t, 100.0);
        assert_eq!(m.history().len(), 301);
        let labels: Vec<&str> = m.markers().iter().map(|k| k.label.as_str()).collect();
        assert_eq!(labels, ["ef 100", "ef 200", "ef 300", "ef 400"]);
        for i in 0..100 {
            m.mark(format!("{i}"));
        }
        assert_eq!(m.markers().len(), MAX_MARKERS);
    }
}
