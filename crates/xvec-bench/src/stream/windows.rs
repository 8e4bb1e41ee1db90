//! A recorded streaming run cut into windows of equal length, each query scored against
//! the exact top-k of the prefix it searched, and the run's totals.

use hdrhistogram::Histogram;

use super::drive::Recorded;
use super::report::{DuringOptimize, Totals, Window};
use crate::dataset::recall_at;
use crate::phases::histogram;
use crate::prefix_truth::PrefixTruth;
use crate::report::Latency;

/// One window's running sums.
struct Acc {
    inserted: u64,
    total: u64,
    hist: Histogram<u64>,
    recall_sum: f64,
    scored: u64,
    visible: Option<u64>,
    flushes: u64,
}

/// The windows of `rec` (`window` seconds each, the last cut at the last
/// acknowledgement) and its totals.
pub(crate) fn summarize(rec: &Recorded, truth: &PrefixTruth, k: usize, window: f64) -> (Vec<Window>, Totals) {
    let end = rec.ingest_sec;
    let count = ((end / window).ceil() as usize).max(1);
    let index = |at: f64| ((at / window).floor().max(0.0) as usize).min(count - 1);
    let mut accs: Vec<Acc> = (0..count)
        .map(|_| Acc {
            inserted: 0,
            total: 0,
            hist: histogram(),
            recall_sum: 0.0,
            scored: 0,
            visible: None,
            flushes: 0,
        })
        .collect();
    let mut before = 0;
    for a in &rec.acks {
        accs[index(a.at)].inserted += a.total - before;
        before = a.total;
    }
    let mut total = 0;
    for acc in &mut accs {
        total += acc.inserted;
        acc.total = total;
    }
    for &f in &rec.flushes {
        accs[index(f)].flushes += 1;
    }
    let mut all = histogram();
    let (mut recall_sum, mut scored) = (0.0, 0u64);
    for s in &rec.searches {
        let acc = &mut accs[index(s.at)];
        acc.hist.saturating_record(s.latency_ns);
        all.saturating_record(s.latency_ns);
        acc.visible = acc.visible.max(Some(s.visible));
        if s.visible > 0 {
            let r = recall_at(&s.found, &truth.top_k(s.query, s.visible), k);
            acc.recall_sum += r;
            acc.scored += 1;
            recall_sum += r;
            scored += 1;
        }
    }
    let windows: Vec<Window> = accs
        .into_iter()
        .enumerate()
        .map(|(i, a)| {
            let (start, stop) = (i as f64 * window, if i + 1 == count { end } else { (i + 1) as f64 * window });
            let span = (stop - start).max(f64::MIN_POSITIVE);
            // A monitor that woke only after the insert ended took no sample for the
            // windows it slept through: they get the last one, taken soonest after.
            let sample = if i + 1 == count { rec.last_sample } else { rec.samples.get(i).copied().or(rec.last_sample) };
            Window {
                start_sec: start,
                end_sec: stop,
                inserted_rows: a.inserted,
                total_rows: a.total,
                ingest_rows_per_sec: a.inserted as f64 / span,
                visible_rows: a.visible,
                queries: a.hist.len(),
                qps: a.hist.len() as f64 / span,
                latency: Latency::of(&a.hist),
                recall: (a.scored > 0).then(|| a.recall_sum / a.scored as f64),
                rss_mib: sample.and_then(|s| s.rss_mib),
                engine_bytes: sample.map(|s| s.engine_bytes),
                flushes: a.flushes,
            }
        })
        .collect();
    let span = end.max(f64::MIN_POSITIVE);
    let recalls = || windows.iter().filter_map(|w| w.recall);
    let totals = Totals {
        rows: total,
        duration_sec: end,
        rows_per_sec: total as f64 / span,
        queries: all.len(),
        qps: all.len() as f64 / span,
        latency: Latency::of(&all),
        recall: (scored > 0).then(|| recall_sum / scored as f64),
        recall_last_window: recalls().next_back(),
        recall_min_window: recalls().reduce(f64::min),
        flushes: rec.flushes.len() as u64,
        rss_max_mib: windows.iter().filter_map(|w| w.rss_mib).reduce(f64::max),
        engine_max_bytes: windows.iter().filter_map(|w| w.engine_bytes).max(),
        optimize: rec.optimize.map(|(start, stop)| during_optimize(rec, start, stop)),
    };
    (windows, totals)
}

/// Rows and batch times of the batches whose insert overlapped `start..stop`, and of the rest.
fn during_optimize(rec: &Recorded, start: f64, stop: f64) -> DuringOptimize {
    let (mut rows, mut secs, mut max) = ([0u64; 2], [0f64; 2], [0f64; 2]);
    let mut prev = (0.0, 0u64);
    for a in &rec.acks {
        let i = usize::from(!(a.at > start && prev.0 < stop));
        let took = a.at - prev.0;
        rows[i] += a.total - prev.1;
        secs[i] += took;
        max[i] = max[i].max(took * 1e3);
        prev = (a.at, a.total);
    }
    let rate = |i: usize| if secs[i] > 0.0 { rows[i] as f64 / secs[i] } else { 0.0 };
    DuringOptimize {
        start_sec: start,
        end_sec: stop,
        rows_per_sec_during: rate(0),
        rows_per_sec_outside: rate(1),
        max_batch_ms_during: max[0],
        max_batch_ms_outside: max[1],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::VectorFile;
    use crate::source::Vectors;
    use crate::stream::drive::{Ack, Sample, Search};
    use xvec::Metric;

    #[test]
    fn rows_queries_and_recall_land_in_their_windows() {
        // Four rows on a line; the query sits on row 3, so its top-1 of a prefix is its last row.
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("b.fvecs");
        let mut bytes = Vec::new();
        for x in [0.0f32, 1.0, 2.0, 3.0] {
            bytes.extend_from_slice(&1i32.to_le_bytes());
            bytes.extend_from_slice(&x.to_le_bytes());
        }
        std::fs::write(&p, bytes).unwrap();
        let base = Vectors::Mapped(VectorFile::open(&p).unwrap());
        let truth = PrefixTruth::compute(&base, &[vec![3.0]], Metric::L2, 1, 1);
        let search = |at: f64, visible: u64, found: u32| Search {
            at,
            latency_ns: 1_000_000,
            query: 0,
            visible,
            found: vec![found],
        };
        let sample = |mib: f64| Sample { rss_mib: Some(mib), engine_bytes: mib as u64 };
        let rec = Recorded {
            acks: vec![Ack { at: 0.2, total: 2 }, Ack { at: 1.5, total: 3 }, Ack { at: 2.5, total: 4 }],
            flushes: vec![1.6],
            // Right (row 1 of 2 rows), wrong (row 0 of 3), right (row 3 of 4, finished late).
            searches: vec![search(0.5, 2, 1), search(1.7, 3, 0), search(2.6, 4, 3)],
            samples: vec![sample(10.0), sample(20.0)],
            last_sample: Some(sample(30.0)),
            ingest_sec: 2.5,
            optimize: Some((1.4, 1.6)),
        };
        let (w, t) = summarize(&rec, &truth, 1, 1.0);
        assert_eq!(w.len(), 3);
        assert_eq!(w.iter().map(|w| w.inserted_rows).collect::<Vec<_>>(), [2, 1, 1]);
        assert_eq!(w.iter().map(|w| w.total_rows).collect::<Vec<_>>(), [2, 3, 4]);
        assert_eq!(w.iter().map(|w| w.recall).collect::<Vec<_>>(), [Some(1.0), Some(0.0), Some(1.0)]);
        assert_eq!(w.iter().map(|w| w.visible_rows).collect::<Vec<_>>(), [Some(2), Some(3), Some(4)]);
        assert_eq!(w.iter().map(|w| w.rss_mib).collect::<Vec<_>>(), [Some(10.0), Some(20.0), Some(30.0)]);
        assert_eq!((w[1].flushes, w[2].end_sec, w[2].ingest_rows_per_sec), (1, 2.5, 2.0));
        assert_eq!(
            (t.rows, t.queries, t.flushes, t.recall_last_window, t.recall_min_window),
            (4, 3, 1, Some(1.0), Some(0.0))
        );
        assert!((t.recall.unwrap() - 2.0 / 3.0).abs() < 1e-12 && (t.qps - 1.2).abs() < 1e-12);
        assert_eq!((t.rss_max_mib, t.engine_max_bytes), (Some(30.0), Some(30)));
        assert!((w[0].latency.latency_p99_ms - 1.0).abs() < 0.01);
        // The optimize (1.4 to 1.6 s) overlapped the second and third batches (0.2 to 1.5,
        // 1.5 to 2.5 s); the first (0 to 0.2 s) ran outside it.
        let o = t.optimize.unwrap();
        assert!((o.rows_per_sec_during - 2.0 / 2.3).abs() < 1e-9 && (o.max_batch_ms_during - 1300.0).abs() < 1e-6);
        assert!((o.rows_per_sec_outside - 10.0).abs() < 1e-9 && (o.max_batch_ms_outside - 200.0).abs() < 1e-6);
        // Windows the monitor slept through take the sample after the insert.
        let late = Recorded { samples: vec![sample(10.0)], ..rec };
        let (w, _) = summarize(&late, &truth, 1, 1.0);
        assert_eq!(w.iter().map(|w| w.rss_mib).collect::<Vec<_>>(), [Some(10.0), Some(30.0), Some(30.0)]);
    }
}
