//! `--plot FILE.svg`: the recall/QPS curve of one or more runs as a standalone SVG,
//! recall on a linear x axis, QPS on a log10 y axis, one labelled line per run; and for
//! `--streaming`, figures over time ([`timeline_svg`]), one panel each.

use std::fmt::Write;

/// One line of the plot: a run's points `(recall, qps, label)` in sweep order.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64, String)>,
}

const W: f64 = 760.0;
const H: f64 = 500.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 200.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 60.0;
const COLORS: [&str; 6] = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"];

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// Renders `series` under `title`. Points with QPS <= 0 or non-finite values are left out.
pub fn svg(title: &str, series: &[Series]) -> String {
    let valid = |p: &&(f64, f64, String)| p.0.is_finite() && p.1.is_finite() && p.1 > 0.0;
    let all: Vec<&(f64, f64, String)> = series.iter().flat_map(|s| s.points.iter().filter(valid)).collect();
    // x: recall from a tenth below the lowest point (at most 0.9) up to 1.
    let min_r = all.iter().map(|p| p.0).fold(1.0, f64::min);
    let x0 = ((min_r * 10.0).floor() / 10.0).clamp(0.0, 0.9);
    // y: whole decades around every QPS.
    let (lo, hi) = all.iter().fold((f64::MAX, f64::MIN), |(lo, hi), p| (lo.min(p.1), hi.max(p.1)));
    let (d0, d1) = if all.is_empty() { (0, 1) } else { (lo.log10().floor() as i32, hi.log10().ceil() as i32) };
    let d1 = d1.max(d0 + 1);
    let (pw, ph) = (W - LEFT - RIGHT, H - TOP - BOTTOM);
    let x = |r: f64| LEFT + (r - x0) / (1.0 - x0) * pw;
    let y = |q: f64| TOP + ph - (q.log10() - f64::from(d0)) / f64::from(d1 - d0) * ph;

    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="{W}" height="{H}" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="22" text-anchor="middle" font-size="15">{}</text>"#,
        LEFT + pw / 2.0,
        esc(title)
    );
    // Grid and ticks: recall every 0.05 (labels every 0.1), QPS at each decade.
    let steps = ((1.0 - x0) / 0.05).round() as i32;
    for i in 0..=steps {
        let r = x0 + f64::from(i) * 0.05;
        let _ =
            writeln!(s, r##"<line x1="{0:.1}" y1="{TOP}" x2="{0:.1}" y2="{1:.1}" stroke="#e5e5e5"/>"##, x(r), TOP + ph);
        if i % 2 == 0 {
            let _ =
                writeln!(s, r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{r:.2}</text>"#, x(r), TOP + ph + 18.0);
        }
    }
    for d in d0..=d1 {
        let q = 10f64.powi(d);
        let _ = writeln!(
            s,
            r##"<line x1="{LEFT}" y1="{0:.1}" x2="{1:.1}" y2="{0:.1}" stroke="#e5e5e5"/>"##,
            y(q),
            LEFT + pw
        );
        let _ = writeln!(s, r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{q}</text>"#, LEFT - 6.0, y(q) + 4.0);
    }
    let _ = writeln!(
        s,
        r##"<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="none" stroke="#333"/>
<text x="{:.1}" y="{:.1}" text-anchor="middle">recall</text>
<text transform="translate(20 {:.1}) rotate(-90)" text-anchor="middle">QPS (log scale)</text>"##,
        LEFT + pw / 2.0,
        H - 15.0,
        TOP + ph / 2.0
    );
    for (i, ser) in series.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let pts: Vec<&(f64, f64, String)> = ser.points.iter().filter(valid).collect();
        let path: Vec<String> = pts.iter().map(|p| format!("{:.1},{:.1}", x(p.0), y(p.1))).collect();
        let _ = writeln!(s, r#"<polyline points="{}" fill="none" stroke="{color}" stroke-width="2"/>"#, path.join(" "));
        for p in &pts {
            let _ = writeln!(s, r#"<circle cx="{:.1}" cy="{:.1}" r="3.5" fill="{color}"/>"#, x(p.0), y(p.1));
            let _ = writeln!(
                s,
                r#"<text x="{:.1}" y="{:.1}" font-size="10" fill="{color}">{}</text>"#,
                x(p.0) + 5.0,
                y(p.1) - 6.0,
                esc(&p.2)
            );
        }
        let ly = TOP + 10.0 + 20.0 * i as f64;
        let lx = LEFT + pw + 15.0;
        let _ = writeln!(
            s,
            r#"<line x1="{lx}" y1="{ly}" x2="{}" y2="{ly}" stroke="{color}" stroke-width="2"/>"#,
            lx + 20.0
        );
        let _ = writeln!(s, r#"<text x="{}" y="{}">{}</text>"#, lx + 26.0, ly + 4.0, esc(&ser.name));
    }
    s.push_str("</svg>\n");
    s
}

/// One panel of a timeline: a figure's `(seconds, value)` points.
#[derive(Clone, Debug, PartialEq)]
pub struct Panel {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

const PANEL_H: f64 = 130.0;
const PANEL_GAP: f64 = 36.0;

/// The smallest 1, 2 or 5 times a power of ten at or above `v` (1 for nothing above 0).
fn nice_ceil(v: f64) -> f64 {
    if !(v.is_finite() && v > 0.0) {
        return 1.0;
    }
    let p = 10f64.powf(v.log10().floor());
    [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * p).find(|&c| c >= v * (1.0 - 1e-12)).unwrap_or(10.0 * p)
}

/// Renders `panels` stacked under one time axis (seconds from the start), each with a
/// linear y axis from 0 and its own line. Non-finite points are left out.
pub fn timeline_svg(title: &str, panels: &[Panel]) -> String {
    let valid = |p: &&(f64, f64)| p.0.is_finite() && p.1.is_finite();
    let t_max = nice_ceil(panels.iter().flat_map(|p| p.points.iter().filter(valid)).map(|p| p.0).fold(0.0, f64::max));
    let pw = W - LEFT - 40.0;
    let h = TOP + panels.len() as f64 * (PANEL_H + PANEL_GAP) + BOTTOM - PANEL_GAP + 10.0;
    let x = |t: f64| LEFT + t / t_max * pw;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{h}" viewBox="0 0 {W} {h}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="{W}" height="{h}" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="22" text-anchor="middle" font-size="15">{}</text>"#,
        LEFT + pw / 2.0,
        esc(title)
    );
    for (i, panel) in panels.iter().enumerate() {
        let top = TOP + i as f64 * (PANEL_H + PANEL_GAP);
        let color = COLORS[i % COLORS.len()];
        let pts: Vec<&(f64, f64)> = panel.points.iter().filter(valid).collect();
        let y_max = nice_ceil(pts.iter().map(|p| p.1).fold(0.0, f64::max));
        let y = |v: f64| top + PANEL_H - v / y_max * PANEL_H;
        for j in 0..=4 {
            let v = y_max * f64::from(j) / 4.0;
            let _ = writeln!(
                s,
                r##"<line x1="{LEFT}" y1="{0:.1}" x2="{1:.1}" y2="{0:.1}" stroke="#e5e5e5"/>"##,
                y(v),
                LEFT + pw
            );
            let _ = writeln!(
                s,
                r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
                LEFT - 6.0,
                y(v) + 4.0,
                tick(v)
            );
        }
        for j in 0..=10 {
            let t = t_max * f64::from(j) / 10.0;
            let _ = writeln!(
                s,
                r##"<line x1="{0:.1}" y1="{top}" x2="{0:.1}" y2="{1:.1}" stroke="#e5e5e5"/>"##,
                x(t),
                top + PANEL_H
            );
            if i + 1 == panels.len() {
                let _ = writeln!(
                    s,
                    r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
                    x(t),
                    top + PANEL_H + 18.0,
                    tick(t)
                );
            }
        }
        let _ = writeln!(
            s,
            r##"<rect x="{LEFT}" y="{top}" width="{pw}" height="{PANEL_H}" fill="none" stroke="#333"/>
<text x="{}" y="{:.1}" fill="{color}">{}</text>"##,
            LEFT + 4.0,
            top - 6.0,
            esc(&panel.name)
        );
        let path: Vec<String> = pts.iter().map(|p| format!("{:.1},{:.1}", x(p.0), y(p.1))).collect();
        let _ = writeln!(s, r#"<polyline points="{}" fill="none" stroke="{color}" stroke-width="2"/>"#, path.join(" "));
    }
    let _ = writeln!(s, r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">seconds</text>"#, LEFT + pw / 2.0, h - 15.0);
    s.push_str("</svg>\n");
    s
}

/// A tick label: integers plain, fractions with up to three decimals.
fn tick(v: f64) -> String {
    if (v - v.round()).abs() < 1e-9 {
        format!("{}", v.round())
    } else {
        format!("{:.3}", v).trim_end_matches('0').to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_every_valid_point_once() {
        let a = Series {
            name: "xvec <hnsw>".into(),
            points: vec![(0.9, 5000.0, "ef=16".into()), (0.99, 800.0, "ef=128".into()), (0.5, 0.0, "bad".into())],
        };
        let b = Series { name: "flat".into(), points: vec![(1.0, 55.0, "exact".into())] };
        let out = svg("wordnet & co", &[a, b]);
        assert!(out.starts_with("<svg") && out.ends_with("</svg>\n"));
        assert_eq!(out.matches("<circle").count(), 3);
        assert_eq!(out.matches("<polyline").count(), 2);
        assert!(out.contains("wordnet &amp; co") && out.contains("xvec &lt;hnsw&gt;"));
        // Decades 10..10000 cover 55..5000; x starts at 0.9.
        assert!(out.contains(">10000<") && out.contains(">10<") && out.contains(">0.90<"));
        assert!(!out.contains("NaN") && !out.contains("inf"));
        // Nothing to draw still makes a valid document.
        assert!(svg("empty", &[]).ends_with("</svg>\n"));
    }

    #[test]
    fn timelines_stack_one_panel_per_figure() {
        let panels = [
            Panel { name: "ingest rows/s".into(), points: vec![(0.5, 1200.0), (1.5, 900.0), (2.2, f64::NAN)] },
            Panel { name: "recall@10 <exact>".into(), points: vec![(0.5, 1.0), (1.5, 0.95)] },
        ];
        let out = timeline_svg("stream & co", &panels);
        assert!(out.starts_with("<svg") && out.ends_with("</svg>\n"));
        assert_eq!(out.matches("<polyline").count(), 2);
        assert!(out.contains("stream &amp; co") && out.contains("recall@10 &lt;exact&gt;"));
        // y up to 2000 for the rates, 1 for recall; time up to 2 s (the NaN point dropped).
        assert!(out.contains(">2000<") && out.contains(">0.25<") && out.contains(">1.8<"), "{out}");
        assert!(!out.contains("NaN") && !out.contains("inf"));
        assert!(timeline_svg("empty", &[]).ends_with("</svg>\n"));
        assert_eq!((nice_ceil(0.0), nice_ceil(3.0), nice_ceil(1.0), nice_ceil(120.0)), (1.0, 5.0, 1.0, 200.0));
    }
}
