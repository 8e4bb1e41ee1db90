//! Styles and compact number formats shared by the views.

use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};

use super::state::State;

/// Smallest area the full layouts need; below it views fall back to plain text lines.
pub(super) const FULL: (u16, u16) = (80, 24);

pub(super) fn style(state: &State, color: Color) -> Style {
    if state.color { Style::default().fg(color) } else { Style::default() }
}

pub(super) fn bold() -> Style {
    Style::default().add_modifier(Modifier::BOLD)
}

/// Bytes in the largest binary unit that keeps a digit before the point.
pub fn mib(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut v = bytes as f64 / 1024.0;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    format!("{v:.1} {}", UNITS[unit])
}

/// Bytes in a few characters: `512B`, `9.0K`, `146.1M`, `1.2G`.
pub(super) fn short(bytes: u64) -> String {
    let s = mib(bytes);
    match s.split_once(' ') {
        Some((v, unit)) => format!("{v}{}", &unit[..1]),
        None => s,
    }
}

pub(super) fn opt(v: Option<f64>, digits: usize) -> String {
    v.map_or("-".into(), |v| format!("{v:.digits$}"))
}

pub(super) fn small(area: Rect) -> bool {
    area.width < FULL.0 || area.height < FULL.1 - 3
}
