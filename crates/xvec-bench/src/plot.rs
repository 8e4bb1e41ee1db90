//! `--plot FILE.svg`: the recall/QPS curve of one or more runs as a standalone SVG,
//! recall on a linear x axis, QPS on a log10 y axis, one labelled line per run.

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
}
