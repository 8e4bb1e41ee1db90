//! The import's progress line on a terminal: bytes read of the input, and rates a reader
//! takes in at a glance (`107 MiB/s`, `12,345 rows/s`), not indicatif's raw floats.

use indicatif::{ProgressBar, ProgressState, ProgressStyle};

/// A bar over `total` input bytes; [`rows_read`] keeps its rows/s figure current.
pub fn bar(total: u64) -> ProgressBar {
    let style = ProgressStyle::with_template("{bar:40} {binary_bytes}/{binary_total_bytes} {rate}, {msg} eta {eta}")
        .expect("progress template")
        .with_key("rate", |state: &ProgressState, w: &mut dyn std::fmt::Write| {
            let _ = w.write_str(&byte_rate(state.per_sec()));
        });
    ProgressBar::new(total).with_style(style)
}

/// Updates the bar after a batch: `bytes` of the input read, `rows` documents so far.
pub fn rows_read(bar: &ProgressBar, bytes: u64, rows: u64) {
    bar.set_position(bytes);
    let secs = bar.elapsed().as_secs_f64();
    if secs > 0.0 {
        bar.set_message(format!("{} rows/s", thousands((rows as f64 / secs) as u64)));
    }
}

/// Bytes per second in whole binary units: `512 B/s`, `107 MiB/s`, `1.4 GiB/s` (one
/// decimal below 10 of a unit, where a whole number says too little).
pub fn byte_rate(per_sec: f64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut x = if per_sec.is_finite() { per_sec.max(0.0) } else { 0.0 };
    let mut unit = 0;
    while x >= 1024.0 && unit + 1 < UNITS.len() {
        x /= 1024.0;
        unit += 1;
    }
    if unit > 0 && x < 10.0 { format!("{x:.1} {}/s", UNITS[unit]) } else { format!("{x:.0} {}/s", UNITS[unit]) }
}

/// `12345` as `12,345`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_read_at_a_glance() {
        assert_eq!(byte_rate(112_289_884.721_4), "107 MiB/s");
        assert_eq!(byte_rate(512.0), "512 B/s");
        assert_eq!(byte_rate(1.5 * 1024.0 * 1024.0 * 1024.0), "1.5 GiB/s");
        assert_eq!(byte_rate(f64::NAN), "0 B/s");
        assert_eq!(thousands(12_345), "12,345");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000_000), "1,000,000");
        assert_eq!(thousands(0), "0");
    }

    /// The line as a terminal shows it: no float noise in the rates.
    #[test]
    fn the_bar_line_has_whole_rates() {
        let bar = bar(100 << 20);
        rows_read(&bar, 50 << 20, 12_345);
        std::thread::sleep(std::time::Duration::from_millis(20));
        rows_read(&bar, 60 << 20, 12_346);
        let msg = bar.message();
        assert!(msg.ends_with(" rows/s") && !msg.contains('.'), "{msg}");
    }
}
