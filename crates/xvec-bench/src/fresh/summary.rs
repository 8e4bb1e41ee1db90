//! From passes to the figures a reader compares: the median of each figure over a
//! setting's passes, and each state's p50 at the target recall with its ratio to the
//! baseline's. No I/O, no clock: what the unit tests pin down.

use super::report::{AtTarget, PassReport, State, StateAtTarget, StateReport, StateSearch};
use crate::config::SearchPoint;
use crate::report::Latency;

/// Recall is a mean of fractions: a setting whose mean lands a rounding error below the
/// target (0.9499999999 for 0.95) reached it.
const RECALL_SLACK: f64 = 1e-9;

/// The median of `values` (the mean of the middle two for an even count); 0 for none.
pub fn median(values: impl IntoIterator<Item = f64>) -> f64 {
    let mut v: Vec<f64> = values.into_iter().collect();
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    let mid = v.len() / 2;
    if v.len() % 2 == 1 { v[mid] } else { (v[mid - 1] + v[mid]) / 2.0 }
}

/// One setting's passes, in the order run, as medians; the backlog from the first pass's
/// start to the last one's end.
pub fn combine(point: SearchPoint, runs: Vec<PassReport>) -> StateSearch {
    assert!(!runs.is_empty(), "a setting has at least one pass");
    let m = |f: fn(&PassReport) -> f64| median(runs.iter().map(f));
    StateSearch {
        ef: point.ef.map(|v| v as u64),
        refine: point.refine.map(|v| v as u64),
        passes: runs.len() as u64,
        qps: m(|r| r.serial.qps),
        recall: m(|r| r.serial.recall),
        ndcg: m(|r| r.serial.ndcg),
        latency: Latency {
            latency_avg_ms: m(|r| r.serial.latency.latency_avg_ms),
            latency_p50_ms: m(|r| r.serial.latency.latency_p50_ms),
            latency_p95_ms: m(|r| r.serial.latency.latency_p95_ms),
            latency_p99_ms: m(|r| r.serial.latency.latency_p99_ms),
            latency_max_ms: m(|r| r.serial.latency.latency_max_ms),
        },
        start: runs[0].start,
        end: runs[runs.len() - 1].end,
        runs,
    }
}

/// The setting of `searches` with the smallest swept value (ef, or refine in a refine
/// sweep; the other one is the same in every setting) whose recall reaches `target`.
pub fn first_reaching(searches: &[StateSearch], target: f64) -> Option<&StateSearch> {
    (searches.iter())
        .filter(|s| s.recall + RECALL_SLACK >= target)
        .min_by_key(|s| (s.ef.unwrap_or(0), s.refine.unwrap_or(0)))
}

/// Each state's p50 at `target` recall, and its ratio to the baseline's.
pub fn at_target(states: &[StateReport], target: f64) -> AtTarget {
    let reached = |state: State| {
        let s = states.iter().find(|s| s.state == state)?;
        first_reaching(&s.searches, target)
    };
    let baseline_p50 = reached(State::Baseline).map(|s| s.latency.latency_p50_ms);
    let entries = State::ALL
        .iter()
        .map(|&state| match reached(state) {
            Some(s) => StateAtTarget {
                state,
                reached: true,
                ef: s.ef,
                refine: s.refine,
                recall: Some(s.recall),
                latency_p50_ms: Some(s.latency.latency_p50_ms),
                p50_over_baseline: baseline_p50.filter(|&b| b > 0.0).map(|b| s.latency.latency_p50_ms / b),
            },
            None => StateAtTarget {
                state,
                reached: false,
                ef: None,
                refine: None,
                recall: None,
                latency_p50_ms: None,
                p50_over_baseline: None,
            },
        })
        .collect();
    AtTarget { target_recall: target, states: entries }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fresh::report::Backlog;
    use crate::report::SerialReport;

    fn pass(recall: f64, p50: f64, unindexed: (u64, u64)) -> PassReport {
        let latency = Latency { latency_p50_ms: p50, latency_p99_ms: 2.0 * p50, ..Latency::default() };
        let serial = SerialReport {
            queries: 10,
            k: 10,
            qps: 1000.0 / p50,
            recall,
            ndcg: recall,
            latency,
            duration_sec: 0.1,
            reads: Default::default(),
        };
        let backlog = |n| Backlog { unindexed_rows: n, ..Backlog::default() };
        PassReport { serial, start: backlog(unindexed.0), end: backlog(unindexed.1) }
    }

    fn ef(v: usize) -> SearchPoint {
        SearchPoint { ef: Some(v), ..SearchPoint::default() }
    }

    /// A state whose settings are `(ef, recall, p50)`, one pass each.
    fn state(state: State, settings: &[(usize, f64, f64)]) -> StateReport {
        let searches = settings.iter().map(|&(e, r, p)| combine(ef(e), vec![pass(r, p, (0, 0))])).collect();
        StateReport { state, searches }
    }

    #[test]
    fn medians() {
        assert_eq!(median([3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median([4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!((median([7.0]), median([])), (7.0, 0.0));
    }

    #[test]
    fn passes_combine_into_medians_and_the_outer_backlog() {
        let runs = vec![pass(0.9, 0.30, (500, 400)), pass(0.9, 0.10, (0, 0)), pass(0.9, 0.20, (0, 0))];
        let s = combine(ef(40), runs);
        assert_eq!((s.ef, s.refine, s.passes, s.recall), (Some(40), None, 3, 0.9));
        assert_eq!((s.latency.latency_p50_ms, s.latency.latency_p99_ms), (0.20, 0.40));
        assert_eq!((s.start.unindexed_rows, s.end.unindexed_rows), (500, 0));
        assert_eq!(s.qps, 1000.0 / 0.20);
    }

    #[test]
    fn the_smallest_swept_value_reaching_the_target_counts_whatever_the_order() {
        let s = state(State::Baseline, &[(80, 0.99, 0.5), (20, 0.90, 0.1), (40, 0.96, 0.3), (10, 0.80, 0.05)]);
        assert_eq!(first_reaching(&s.searches, 0.95).and_then(|s| s.ef), Some(40));
        assert_eq!(first_reaching(&s.searches, 0.90).and_then(|s| s.ef), Some(20), "reaching is >=");
        assert_eq!(first_reaching(&s.searches, 0.995).map(|s| s.ef), None);
        // A rounding error below the target reaches it.
        let s = state(State::Baseline, &[(10, 0.95 - 1e-12, 0.1)]);
        assert!(first_reaching(&s.searches, 0.95).is_some());
        // A refine sweep: ef is the same everywhere, refine decides.
        let refine = |r| SearchPoint { ef: Some(64), refine: Some(r), ..SearchPoint::default() };
        let searches =
            vec![combine(refine(4), vec![pass(0.97, 0.4, (0, 0))]), combine(refine(2), vec![pass(0.96, 0.3, (0, 0))])];
        assert_eq!(first_reaching(&searches, 0.95).and_then(|s| s.refine), Some(2));
    }

    #[test]
    fn ratios_at_the_target_compare_each_state_at_its_own_setting() {
        let states = [
            state(State::Baseline, &[(10, 0.90, 0.10), (20, 0.96, 0.20), (40, 0.99, 0.40)]),
            // Fresh rows scanned exactly: recall higher at every ef, latency too.
            state(State::After, &[(10, 0.95, 0.50), (20, 0.97, 0.60), (40, 0.99, 0.80)]),
            state(State::Drained, &[(10, 0.91, 0.12), (20, 0.95, 0.25), (40, 0.99, 0.45)]),
        ];
        let t = at_target(&states, 0.95);
        assert_eq!(t.target_recall, 0.95);
        let [b, a, d] = &t.states[..] else { panic!("three states: {:?}", t.states) };
        assert_eq!(
            (b.state, b.ef, b.latency_p50_ms, b.p50_over_baseline),
            (State::Baseline, Some(20), Some(0.20), Some(1.0))
        );
        assert_eq!((a.state, a.ef, a.recall, a.latency_p50_ms), (State::After, Some(10), Some(0.95), Some(0.50)));
        assert_eq!(a.p50_over_baseline, Some(0.50 / 0.20));
        assert_eq!((d.ef, d.p50_over_baseline), (Some(20), Some(0.25 / 0.20)));
        assert!(t.states.iter().all(|s| s.reached));
    }

    #[test]
    fn a_state_or_a_baseline_short_of_the_target_has_no_ratio() {
        let states = [
            state(State::Baseline, &[(10, 0.90, 0.10)]),
            state(State::After, &[(10, 0.97, 0.50)]),
            state(State::Drained, &[(10, 0.93, 0.12)]),
        ];
        let t = at_target(&states, 0.95);
        let [b, a, d] = &t.states[..] else { panic!("three states") };
        assert!(!b.reached && b.latency_p50_ms.is_none() && b.p50_over_baseline.is_none());
        assert!(a.reached && a.latency_p50_ms == Some(0.50) && a.p50_over_baseline.is_none());
        assert_eq!(
            d,
            &StateAtTarget {
                state: State::Drained,
                reached: false,
                ef: None,
                refine: None,
                recall: None,
                latency_p50_ms: None,
                p50_over_baseline: None
            }
        );
        // A state that was not measured at all is not reached either.
        let t = at_target(&states[..1], 0.5);
        assert_eq!(t.states.iter().map(|s| s.reached).collect::<Vec<_>>(), [true, false, false]);
    }
}
