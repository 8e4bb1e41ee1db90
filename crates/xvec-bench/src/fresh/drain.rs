//! Waiting for background maintenance to finish after the last insert, by polling
//! `Collection::stats()`.
//!
//! The backlog has drained when no row is left unindexed. The background may still
//! merge segments after that, and a merge competing with the drained passes for the
//! cores would be measured as query latency. Idle is: no flush or job running
//! (`Stats::background_busy`), no job published, no segment or memtable change, and the
//! whole process (which runs nothing else while it waits) under a tenth of a core, for
//! [`QUIET`] in a row (the gap between two jobs is shorter). A backlog that stays put
//! while the process idles for [`STALL`] means the background stopped working: an error,
//! not a wait without end.

use std::time::{Duration, Instant};

use xvec::Collection;

use super::report::{Backlog, Drain};
use crate::phases::{BenchError, Progress};
use crate::sys;

const POLL: Duration = Duration::from_millis(50);
/// How long the background must look idle before it counts as idle.
pub(super) const QUIET: f64 = 0.5;
/// CPU cores the process may use and still count as idle (the polling itself).
const IDLE_CORES: f64 = 0.1;
/// How long a backlog may sit untouched by an idle process before the wait fails.
const STALL: f64 = 10.0;

/// One poll: seconds since the last insert returned, the process's CPU seconds so far
/// (when known), whether the engine runs a flush or job, the backlog and the
/// background's error.
#[derive(Clone, Debug)]
pub(super) struct Sample {
    pub at: f64,
    pub cpu_sec: Option<f64>,
    pub busy: bool,
    pub backlog: Backlog,
    pub error: Option<String>,
}

/// When the backlog drained and when the background went idle, in seconds since the
/// last insert returned, and the backlog then.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Settled {
    pub drain_sec: f64,
    pub idle_sec: f64,
    pub at_idle: Backlog,
}

/// Decides from successive samples when the background is done (see the module docs).
#[derive(Debug)]
pub(super) struct Watch {
    drained_at: Option<f64>,
    /// The sample a stretch without change or CPU use began with.
    quiet_since: Option<Sample>,
    quiet: f64,
    stall: f64,
}

impl Watch {
    pub(super) fn new(quiet: f64, stall: f64) -> Watch {
        Watch { drained_at: None, quiet_since: None, quiet, stall }
    }

    /// Takes the next sample: `Some` once settled, an error when the background failed
    /// or stalled.
    pub(super) fn observe(&mut self, s: Sample) -> Result<Option<Settled>, String> {
        if let Some(e) = &s.error {
            return Err(format!("background maintenance failed: {e}"));
        }
        if self.drained_at.is_none() && s.backlog.unindexed_rows == 0 {
            self.drained_at = Some(s.at);
        }
        let Some(since) = &self.quiet_since else {
            self.quiet_since = Some(s);
            return Ok(None);
        };
        let span = s.at - since.at;
        let busy = s.busy
            || match (since.cpu_sec, s.cpu_sec) {
                (Some(a), Some(b)) if span > 0.0 => (b - a) / span > IDLE_CORES,
                _ => false,
            };
        if busy || s.backlog != since.backlog {
            self.quiet_since = Some(s);
            return Ok(None);
        }
        if span < self.quiet.min(self.stall) {
            return Ok(None);
        }
        match (self.drained_at, s.backlog.unindexed_rows) {
            (Some(drain_sec), 0) => Ok(Some(Settled { drain_sec, idle_sec: since.at, at_idle: s.backlog })),
            (_, rows) if span >= self.stall => Err(format!(
                "background maintenance made no progress for {span:.1} s with {rows} rows unindexed and the process idle"
            )),
            _ => Ok(None),
        }
    }
}

/// Polls `coll` from `since`, the last insert's return, until the background is idle.
/// `at_last_insert` is the backlog then (for progress and the job count).
pub(super) fn wait(
    coll: &Collection,
    since: Instant,
    at_last_insert: Backlog,
    progress: &mut dyn Progress,
) -> Result<Drain, BenchError> {
    let mut watch = Watch::new(QUIET, STALL);
    progress.begin("drain", at_last_insert.unindexed_rows, "rows");
    loop {
        let stats = coll.stats();
        let backlog = Backlog::of(&stats);
        progress.set(at_last_insert.unindexed_rows.saturating_sub(backlog.unindexed_rows));
        let sample = Sample {
            at: since.elapsed().as_secs_f64(),
            cpu_sec: sys::usage().map(|u| u.user_sec + u.sys_sec),
            busy: stats.background_busy,
            backlog,
            error: stats.background_error,
        };
        match watch.observe(sample).map_err(BenchError::Invalid)? {
            Some(s) => {
                let jobs = s.at_idle.background_jobs.saturating_sub(at_last_insert.background_jobs);
                progress.end(&format!(
                    "drained {} unindexed rows in {:.2} s; background idle at {:.2} s after {jobs} job{}, {} segment{}",
                    at_last_insert.unindexed_rows,
                    s.drain_sec,
                    s.idle_sec,
                    if jobs == 1 { "" } else { "s" },
                    s.at_idle.segments,
                    if s.at_idle.segments == 1 { "" } else { "s" }
                ));
                return Ok(Drain {
                    drain_sec: s.drain_sec,
                    idle_sec: s.idle_sec,
                    quiet_sec: QUIET,
                    at_idle: s.at_idle,
                    jobs,
                });
            }
            None => std::thread::sleep(POLL),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(at: f64, cpu_sec: f64, unindexed_rows: u64, jobs: u64) -> Sample {
        let backlog = Backlog { unindexed_rows, mem_rows: 0, segments: 3, background_jobs: jobs };
        Sample { at, cpu_sec: Some(cpu_sec), busy: false, backlog, error: None }
    }

    /// Feeds samples every 0.05 s from `t0`; the first verdict that is not "waiting".
    fn run(w: &mut Watch, samples: impl IntoIterator<Item = Sample>) -> Option<Result<Settled, String>> {
        samples.into_iter().find_map(|s| w.observe(s).transpose())
    }

    #[test]
    fn idle_comes_after_the_drain_and_a_quiet_stretch() {
        let mut w = Watch::new(0.5, 10.0);
        // Indexing: a core busy, the backlog falling by a segment at 1.0 s and 2.0 s.
        let busy = (0..40).map(|i| {
            let t = i as f64 * 0.05;
            sample(
                t,
                t,
                if t < 1.0 {
                    200
                } else if t < 2.0 {
                    100
                } else {
                    0
                },
                if t < 1.0 {
                    0
                } else if t < 2.0 {
                    1
                } else {
                    2
                },
            )
        });
        assert_eq!(run(&mut w, busy), None);
        // Idle from 2.0 s: settled once 0.5 s passed without change.
        let idle = (40..80).map(|i| sample(i as f64 * 0.05, 2.0 + i as f64 * 0.0001, 0, 2));
        let s = run(&mut w, idle).unwrap().unwrap();
        assert_eq!((s.drain_sec, s.idle_sec, s.at_idle.background_jobs), (2.0, 2.0, 2));
    }

    #[test]
    fn a_merge_after_the_drain_is_waited_for() {
        let mut w = Watch::new(0.5, 10.0);
        assert_eq!(w.observe(sample(0.0, 0.0, 0, 5)), Ok(None));
        // Drained at once, but a core busy (a merge) until 3 s, which then publishes.
        let merging = (1..=60).map(|i| {
            let t = i as f64 * 0.05;
            sample(t, t, 0, 5)
        });
        assert_eq!(run(&mut w, merging), None);
        let after = (61..100).map(|i| sample(i as f64 * 0.05, 3.0, 0, 6));
        let s = run(&mut w, after).unwrap().unwrap();
        assert_eq!(s.drain_sec, 0.0);
        assert!((s.idle_sec - 3.05).abs() < 1e-9, "{s:?}");
        assert_eq!(s.at_idle.background_jobs, 6);
    }

    #[test]
    fn a_short_burst_restarts_the_quiet_stretch() {
        let mut w = Watch::new(0.5, 10.0);
        let mut cpu = 0.0;
        let samples = (0..40).map(|i| {
            if i == 6 {
                cpu += 0.05;
            }
            sample(i as f64 * 0.05, cpu, 0, 0)
        });
        let s = run(&mut w, samples).unwrap().unwrap();
        assert!((s.idle_sec - 0.3).abs() < 1e-9, "{s:?}");
    }

    /// A job the engine reports running holds the wait, though it leaves the process
    /// looking idle (blocked on the disk, say).
    #[test]
    fn a_running_job_holds_the_wait() {
        let mut w = Watch::new(0.5, 10.0);
        let running = (0..60).map(|i| Sample { busy: i < 30, ..sample(i as f64 * 0.05, 0.0, 0, 1) });
        let s = run(&mut w, running).unwrap().unwrap();
        // Quiet from the last sample that saw it running.
        assert!((s.idle_sec - 1.45).abs() < 1e-9, "{s:?}");
    }

    #[test]
    fn errors_and_stalls_end_the_wait() {
        let mut w = Watch::new(0.5, 10.0);
        let mut s = sample(0.0, 0.0, 100, 0);
        s.error = Some("disk full".into());
        assert_eq!(w.observe(s), Err("background maintenance failed: disk full".into()));
        // A backlog nobody works on.
        let mut w = Watch::new(0.5, 10.0);
        let e = run(&mut w, (0..400).map(|i| sample(i as f64 * 0.05, 0.0, 100, 0))).unwrap().unwrap_err();
        assert!(e.starts_with("background maintenance made no progress for 10.0 s with 100 rows unindexed"), "{e}");
        // Without CPU figures, idle is judged on the backlog alone.
        let mut w = Watch::new(0.5, 10.0);
        let blind = (0..20).map(|i| Sample { cpu_sec: None, ..sample(i as f64 * 0.05, 0.0, 0, 1) });
        assert_eq!(run(&mut w, blind).unwrap().unwrap().idle_sec, 0.0);
    }
}
