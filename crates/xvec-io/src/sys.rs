//! What the tool and the benchmark read about their own process and machine: RSS and its high-water
//! mark from `/proc/self/status`, CPU time and peak RSS from `getrusage`, the machine's
//! CPU, kernel, load and the source commit.
//!
//! Every reader degrades to `None` where the file or call is unavailable (non-Linux,
//! restricted containers): a benchmark reports what it could measure, never a guess.

use std::path::Path;
use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

const KIB_PER_MIB: f64 = 1024.0;

/// Most bytes read of one `/proc` file: the longest, `/proc/cpuinfo`, is some 300 KiB on a
/// 192-core machine; a file past this is read no further.
const MAX_PROC_FILE: u64 = 4 << 20;

/// A `/proc` file as text, at most [`MAX_PROC_FILE`] bytes of it.
fn read_proc(path: &str) -> Option<String> {
    use std::io::Read;
    let mut text = String::new();
    std::fs::File::open(path).ok()?.take(MAX_PROC_FILE).read_to_string(&mut text).ok()?;
    Some(text)
}

/// Resident set size now and its high-water mark, in MiB.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rss {
    pub rss_mib: f64,
    pub hwm_mib: f64,
}

/// Reads `VmRSS` and `VmHWM` from `/proc/self/status`.
pub fn rss() -> Option<Rss> {
    let text = read_proc("/proc/self/status")?;
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
    };
    Some(Rss { rss_mib: field("VmRSS:")? as f64 / KIB_PER_MIB, hwm_mib: field("VmHWM:")? as f64 / KIB_PER_MIB })
}

/// Resets `VmHWM` to the current RSS so the next reading is the peak of one phase.
/// Returns false where the kernel or the sandbox refuses (then HWM stays process-wide).
pub fn reset_hwm() -> bool {
    std::fs::write("/proc/self/clear_refs", b"5").is_ok()
}

/// `read_bytes` of `/proc/self/io`: bytes this process had the block device fetch
/// (read-ahead and page faults of mapped files included, page-cache hits not), so the
/// difference over a phase is what its reads cost the device and the page cache.
pub fn io_read_bytes() -> Option<u64> {
    let text = read_proc("/proc/self/io")?;
    text.lines().find_map(|l| l.strip_prefix("read_bytes:")).and_then(|v| v.trim().parse().ok())
}

/// CPU time and peak RSS of the whole process, from `getrusage(RUSAGE_SELF)`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Usage {
    pub user_sec: f64,
    pub sys_sec: f64,
    /// `ru_maxrss`: the largest RSS any thread of this process saw, not reset by
    /// `clear_refs` for threads that already exited.
    pub max_rss_mib: f64,
}

pub fn usage() -> Option<Usage> {
    let mut ru = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: `ru` points to writable memory of the size and alignment of `rusage`;
    // getrusage only writes it, and on success (0) every field is initialized.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, ru.as_mut_ptr()) };
    if rc != 0 {
        return None;
    }
    // SAFETY: getrusage returned 0, so it filled the struct (and it was zeroed before).
    let ru = unsafe { ru.assume_init() };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    Some(Usage {
        user_sec: secs(ru.ru_utime),
        sys_sec: secs(ru.ru_stime),
        // Linux reports ru_maxrss in KiB.
        max_rss_mib: ru.ru_maxrss as f64 / KIB_PER_MIB,
    })
}

/// The 1, 5 and 15 minute load averages from `/proc/loadavg`.
pub fn loadavg() -> Option<[f64; 3]> {
    let text = read_proc("/proc/loadavg")?;
    let mut it = text.split_whitespace().map(|s| s.parse::<f64>().ok());
    Some([it.next()??, it.next()??, it.next()??])
}

/// The machine a benchmark ran on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SystemInfo {
    pub cpu_model: Option<String>,
    /// Threads this process may run on (`available_parallelism`).
    pub cores: usize,
    pub kernel: Option<String>,
    pub mem_total_mib: Option<u64>,
    /// Instruction set of the engine's distance kernels (`xvec::kernels::best()`).
    pub isa: String,
    /// Source commit: `$XVEC_COMMIT`, else `git rev-parse` in the working directory,
    /// with `-dirty` when tracked files differ from it.
    pub commit: Option<String>,
    pub xvec_version: String,
}

impl SystemInfo {
    pub fn collect() -> SystemInfo {
        let cpuinfo = read_proc("/proc/cpuinfo").unwrap_or_default();
        let cpu_model = cpuinfo
            .lines()
            .find(|l| l.starts_with("model name"))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_string());
        let kernel = read_proc("/proc/sys/kernel/osrelease").map(|s| s.trim().to_string());
        let mem_total_mib = read_proc("/proc/meminfo").and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("MemTotal:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
                .map(|kib| kib / 1024)
        });
        SystemInfo {
            cpu_model,
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            kernel,
            mem_total_mib,
            isa: xvec::kernels::best().isa.to_string(),
            commit: commit(),
            xvec_version: xvec::VERSION.to_string(),
        }
    }
}

fn commit() -> Option<String> {
    if let Ok(c) = std::env::var("XVEC_COMMIT")
        && !c.trim().is_empty()
    {
        return Some(c.trim().to_string());
    }
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .stderr(std::process::Stdio::null())
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let head = git(&["rev-parse", "--short=12", "HEAD"])?;
    let dirty = git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
    Some(if dirty { format!("{head}-dirty") } else { head })
}

/// Bytes of every file under `dir`, recursively; unreadable entries count as 0.
pub fn dir_bytes(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    entries
        .flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => dir_bytes(&e.path()),
            Ok(_) => e.metadata().map_or(0, |m| m.len()),
            Err(_) => 0,
        })
        .sum()
}

/// Now as an RFC 3339 UTC timestamp with seconds, e.g. `2026-11-30T14:03:54Z`.
pub fn utc_now() -> String {
    let secs = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    utc_timestamp(secs)
}

/// Formats seconds since the Unix epoch (proleptic Gregorian calendar, UTC).
pub fn utc_timestamp(secs: u64) -> String {
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Howard Hinnant's civil_from_days, for days since 1970-01-01 (non-negative here).
    let z = days as i64 + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps() {
        assert_eq!(utc_timestamp(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc_timestamp(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(utc_timestamp(1_709_251_199), "2024-02-29T23:59:59Z");
        assert_eq!(utc_timestamp(4_102_444_800), "2100-01-01T00:00:00Z");
    }

    #[test]
    fn process_readings_are_sane() {
        let r = rss().expect("/proc/self/status on Linux");
        assert!(r.rss_mib > 0.0 && r.hwm_mib >= r.rss_mib * 0.5, "{r:?}");
        let u = usage().expect("getrusage");
        assert!(u.max_rss_mib > 0.0 && u.user_sec >= 0.0 && u.sys_sec >= 0.0, "{u:?}");
        assert!(io_read_bytes().is_some(), "/proc/self/io on Linux");
        let l = loadavg().expect("/proc/loadavg");
        assert!(l.iter().all(|x| *x >= 0.0));
        let s = SystemInfo::collect();
        assert!(s.cores >= 1 && !s.isa.is_empty());
    }

    #[test]
    fn dir_bytes_counts_nested_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a"), [0u8; 10]).unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("sub/b"), [0u8; 5]).unwrap();
        assert_eq!(dir_bytes(dir.path()), 15);
        assert_eq!(dir_bytes(&dir.path().join("missing")), 0);
    }
}
