//! The search view: throughput, latency histogram, QPS over time, recall and memory.
//! Pure like the rest of [`super::render`]; its layout is a function of the area alone
//! ([`layout`]) so the tests check it at every size.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Color;
use ratatui::symbols::Marker as Dots;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Block, Chart, Dataset, GraphType, Paragraph, Sparkline};

use super::metrics::LATENCY_BUCKETS_US;
use super::state::{QuerySource, State};
use super::style::{bold, mib, opt, short, small, style};

/// Fill symbols and colours of the memory kinds, in [`xvec::MemoryUsage::by_kind`] order,
/// one per kind (a test checks the count).
const FILLS: [char; 17] = ['█', '▓', '▒', '░', '#', '=', '-', '@', '&', '$', '!', '^', '+', '~', '%', '*', ':'];
const COLORS: [Color; 17] = [
    Color::Blue,
    Color::Cyan,
    Color::LightBlue,
    Color::Green,
    Color::LightGreen,
    Color::Yellow,
    Color::Indexed(136),
    Color::White,
    Color::LightYellow,
    Color::LightCyan,
    Color::Indexed(208),
    Color::LightMagenta,
    Color::Magenta,
    Color::Red,
    Color::LightRed,
    Color::Gray,
    Color::DarkGray,
];
/// Rows of the recall panel: recall, reference, query source, CPU, queries scored, borders.
const RECALL_ROWS: u16 = 7;
/// Fewest rows of the top panels (throughput figures and sparkline; latency with four
/// histogram rows) and of the QPS chart.
const TOP_MIN: u16 = 7;
const CHART_MIN: u16 = 5;

/// A memory kind's legend name, short enough for four or more on a line at 80 columns.
fn legend_name(kind: &str) -> &str {
    match kind {
        "mapped vectors" => "vectors",
        "mapped keys and scalars" => "keys+scalars",
        "disk node cache" => "disk cache",
        "owned segments" => "owned",
        "query scratch" => "scratch",
        "scan codes" => "scan",
        "scalar indexes" => "scalar idx",
        "full-text indexes" => "text idx",
        "sparse indexes" => "sparse idx",
        "unflushed vectors" => "unfl.vectors",
        "unflushed other" => "unfl.other",
        "delete bitmaps" => "deletes",
        "WAL buffer" => "wal",
        other => other,
    }
}

/// Where the search view's panels go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchLayout {
    pub throughput: Rect,
    pub latency: Rect,
    pub chart: Rect,
    pub recall: Rect,
    pub memory: Rect,
}

impl SearchLayout {
    /// Rows the latency histogram has (the panel less its borders and percentiles line).
    pub fn histogram_rows(&self) -> u16 {
        self.latency.height.saturating_sub(3)
    }
}

/// The panels of a full-size search view: the bottom row as tall as the recall panel or
/// the memory legend needs; of the rest, two fifths to throughput and latency (up to a row
/// per latency bucket) and the other three to the QPS chart, each above its minimum.
pub fn layout(area: Rect, memory_lines: impl Fn(u16) -> u16) -> SearchLayout {
    let columns = |r: Rect| Layout::horizontal([Constraint::Percentage(35), Constraint::Percentage(65)]).areas(r);
    let [_, mem] = columns(area);
    let bottom_h = RECALL_ROWS.max(4 + memory_lines(mem.width.saturating_sub(2)));
    let rest = area.height.saturating_sub(bottom_h);
    let most = 3 + LATENCY_BUCKETS_US.len() as u16;
    let top_h = (rest * 2 / 5).clamp(TOP_MIN, most).min(rest.saturating_sub(CHART_MIN));
    let [top, chart, bottom] =
        Layout::vertical([Constraint::Length(top_h), Constraint::Min(0), Constraint::Length(bottom_h)]).areas(area);
    let [throughput, latency] = Layout::horizontal([Constraint::Percentage(45), Constraint::Percentage(55)]).areas(top);
    let [recall, memory] = columns(bottom);
    SearchLayout { throughput, latency, chart, recall, memory }
}

/// The throughput panel's title in `width` columns: the query source stays readable, so
/// the rest goes first ("throughput", then the path's directories), and a file name too
/// long on its own keeps its end.
pub fn throughput_title(queries: usize, source: &QuerySource, width: usize) -> String {
    let fits = |t: &String| t.chars().count() <= width;
    let candidates = match source {
        QuerySource::Sampled => {
            vec![
                format!(" throughput, {queries} sampled queries "),
                format!(" {queries} sampled queries "),
                " sampled ".into(),
            ]
        }
        QuerySource::File(path) => {
            let name =
                std::path::Path::new(path).file_name().map_or(path.clone(), |n| n.to_string_lossy().into_owned());
            vec![
                format!(" throughput, {queries} queries from {path} "),
                format!(" {queries} queries from {path} "),
                format!(" {queries} queries from {name} "),
                format!(" {name} "),
            ]
        }
    };
    if let Some(t) = candidates.iter().find(|t| fits(t)) {
        return t.clone();
    }
    let last = candidates.last().expect("candidates").trim();
    let keep = width.saturating_sub(3);
    let tail: String = last.chars().skip(last.chars().count().saturating_sub(keep)).collect();
    format!(" …{tail} ")
}

/// One histogram row: latencies in `[lo, hi)` µs (`hi` = `u64::MAX`: open).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LatencyRow {
    pub lo: u64,
    pub hi: u64,
    pub count: u64,
}

impl LatencyRow {
    pub fn label(&self) -> String {
        let ms = |us: u64| us as f64 / 1000.0;
        if self.hi == u64::MAX { format!(">={}ms", ms(self.lo)) } else { format!("<{}ms", ms(self.hi)) }
    }
}

/// The histogram in at most `room` rows: the buckets from the first non-empty one to the
/// last; when they do not fit, neighbouring pairs merged (1-2-5 steps); when those do not
/// fit either, what is left over folded into an open last row.
pub fn latency_rows(counts: &[u64], room: usize) -> Vec<LatencyRow> {
    let room = room.max(2);
    let fine: Vec<LatencyRow> = LATENCY_BUCKETS_US
        .iter()
        .zip(counts)
        .enumerate()
        .map(|(i, (&hi, &count))| LatencyRow { lo: if i == 0 { 0 } else { LATENCY_BUCKETS_US[i - 1] }, hi, count })
        .collect();
    let trim = |rows: Vec<LatencyRow>| -> Vec<LatencyRow> {
        match (rows.iter().position(|r| r.count > 0), rows.iter().rposition(|r| r.count > 0)) {
            (Some(a), Some(b)) => rows[a..=b].to_vec(),
            _ => Vec::new(),
        }
    };
    let mut rows = trim(fine.clone());
    if rows.len() > room {
        let pairs = fine.chunks(2).map(|c| LatencyRow {
            lo: c[0].lo,
            hi: c[c.len() - 1].hi,
            count: c.iter().map(|r| r.count).sum(),
        });
        rows = trim(pairs.collect());
    }
    if rows.len() > room {
        let tail =
            LatencyRow { lo: rows[room - 1].lo, hi: u64::MAX, count: rows[room - 1..].iter().map(|r| r.count).sum() };
        rows.truncate(room - 1);
        rows.push(tail);
    }
    rows
}

/// The memory legend's lines in `width` columns: every kind the engine accounts for that
/// holds bytes, then the key to the RSS marks.
pub fn memory_legend(state: &State, width: u16) -> Vec<String> {
    let s = state.metrics.summary();
    let engine = s.engine_bytes.unwrap_or_default();
    let items = engine
        .iter()
        .enumerate()
        .filter(|(_, e)| e.bytes > 0)
        .map(|(i, e)| format!("{}{} {}", FILLS[i % FILLS.len()], legend_name(e.kind), short(e.bytes)));
    let mut lines = Vec::new();
    let mut line = String::new();
    for item in items.chain(std::iter::once("·other RSS |peak".to_string())) {
        if !line.is_empty() && line.chars().count() + item.chars().count() + 2 > width as usize {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push_str("  ");
        }
        line.push_str(&item);
    }
    lines.push(line);
    lines
}

pub fn render(state: &State, frame: &mut Frame, area: Rect) {
    let s = state.metrics.summary();
    let k = state.search.settings.k;
    let recall = match (s.recall, state.search.reference_ready) {
        (Some(r), _) => format!("{r:.4}"),
        (None, false) => "computing reference".into(),
        (None, true) => "-".into(),
    };
    if small(area) {
        let lines = vec![
            Line::raw(format!(
                "QPS {:.1} (avg {:.1}) | {} queries | ingest {} | {} not indexed",
                s.qps,
                s.qps_avg,
                s.queries,
                state.ingest_text(),
                state.overview.unindexed
            )),
            Line::raw(format!(
                "latency ms p50 {:.3} p95 {:.3} p99 {:.3}",
                s.latency_ms.p50, s.latency_ms.p95, s.latency_ms.p99
            )),
            Line::raw(format!("recall@{k} {recall} ({})", state.search.query_source.describe())),
            Line::raw(format!(
                "RSS {} MiB (peak {}) | engine {}",
                opt(s.rss_mib, 1),
                opt(s.rss_peak_mib, 1),
                s.engine_total_bytes.map_or("-".into(), mib)
            )),
            Line::raw(format!("CPU user {} sys {} /s", opt(s.cpu_user, 2), opt(s.cpu_sys, 2))),
        ];
        frame.render_widget(Paragraph::new(lines), area);
        return;
    }
    let l = layout(area, |w| memory_legend(state, w).len() as u16);

    // Throughput: figures, then a sparkline of the most recent points that fit.
    let title = throughput_title(
        state.search.queries,
        &state.search.query_source,
        l.throughput.width.saturating_sub(2) as usize,
    );
    let block = Block::bordered().title(title);
    let inner = block.inner(l.throughput);
    frame.render_widget(block, l.throughput);
    let [figs, spark] = Layout::vertical([Constraint::Length(3), Constraint::Min(1)]).areas(inner);
    let figures = vec![
        Line::from(vec![
            Span::raw("QPS "),
            Span::styled(format!("{:.1}", s.qps), bold()),
            Span::raw(format!("  avg {:.1}", s.qps_avg)),
        ]),
        Line::raw(format!("queries {}  errors {}", s.queries, s.errors)),
        Line::raw(format!(
            "ingest {}/s  unindexed {}",
            state.ingest.map_or("-".into(), |r| format!("{r:.0}")),
            state.overview.unindexed
        )),
    ];
    frame.render_widget(Paragraph::new(figures), figs);
    let hist = state.metrics.history();
    let points: Vec<u64> =
        hist.iter().skip(hist.len().saturating_sub(spark.width as usize)).map(|p| p.qps.round() as u64).collect();
    frame.render_widget(Sparkline::default().data(&points).style(style(state, Color::Green)), spark);

    // Latency: percentiles, then the window's histogram as horizontal bars.
    let block = Block::bordered().title(" latency (last 5 s) ");
    let inner = block.inner(l.latency);
    frame.render_widget(block, l.latency);
    let mut lines = vec![Line::from(vec![
        Span::raw("p50 "),
        Span::styled(format!("{:.3}", s.latency_ms.p50), bold()),
        Span::raw(format!("  p95 {:.3}  p99 {:.3} ms", s.latency_ms.p95, s.latency_ms.p99)),
    ])];
    let rows = latency_rows(&state.metrics.latency_buckets(), l.histogram_rows() as usize);
    let max = rows.iter().map(|r| r.count).max().unwrap_or(0).max(1);
    let bar_w = inner.width.saturating_sub(20) as u64;
    for row in rows {
        let n = (row.count * bar_w).div_ceil(max) as usize;
        lines.push(Line::from(vec![
            Span::raw(format!("{:>9} ", row.label())),
            Span::styled("■".repeat(n), style(state, Color::Magenta)),
            Span::raw(format!(" {}", row.count)),
        ]));
    }
    frame.render_widget(Paragraph::new(lines), inner);

    render_qps_chart(state, frame, l.chart);

    let queries = match &state.search.query_source {
        QuerySource::Sampled => QuerySource::Sampled.describe(),
        QuerySource::File(path) => format!(
            "queries from {}",
            std::path::Path::new(path).file_name().map_or(path.clone(), |n| n.to_string_lossy().into_owned())
        ),
    };
    let lines = vec![
        Line::from(vec![Span::raw(format!("recall@{k} ")), Span::styled(recall, bold())]),
        Line::raw(state.search.recall_source.clone()),
        Line::raw(queries),
        Line::raw(format!("CPU user {} sys {} s/s", opt(s.cpu_user, 2), opt(s.cpu_sys, 2))),
        Line::raw(format!("{} queries scored", s.recall_queries)),
    ];
    frame.render_widget(Paragraph::new(lines).block(Block::bordered().title(" recall, CPU ")), l.recall);
    render_memory(state, frame, l.memory);
}

/// QPS over the kept history, each settings change a vertical line with its label below.
fn render_qps_chart(state: &State, frame: &mut Frame, area: Rect) {
    let hist = state.metrics.history();
    let data: Vec<(f64, f64)> = hist.iter().map(|p| (p.t, p.qps)).collect();
    let t0 = hist.front().map_or(0.0, |p| p.t);
    let t1 = state.metrics.now().max(t0 + 1.0);
    let top = data.iter().map(|p| p.1).fold(1.0, f64::max) * 1.1;
    let markers: Vec<_> = state.metrics.markers().iter().filter(|m| m.t >= t0).collect();
    let lines: Vec<[(f64, f64); 2]> = markers.iter().map(|m| [(m.t, 0.0), (m.t, top)]).collect();
    let mut sets = vec![
        Dataset::default()
            .marker(Dots::Braille)
            .graph_type(GraphType::Line)
            .style(style(state, Color::Green))
            .data(&data),
    ];
    for l in &lines {
        sets.push(
            Dataset::default().marker(Dots::Dot).graph_type(GraphType::Line).style(style(state, Color::Yellow)).data(l),
        );
    }
    let label =
        markers.iter().rev().take(4).rev().map(|m| format!("{:.0}s {}", m.t, m.label)).collect::<Vec<_>>().join(" | ");
    let title = format!(" QPS, last {:.0} s ", t1 - t0);
    let chart = Chart::new(sets)
        .block(Block::bordered().title(title).title_bottom(Line::raw(label).left_aligned()))
        .x_axis(Axis::default().bounds([t0, t1]))
        .y_axis(Axis::default().bounds([0.0, top]).labels([Line::raw("0"), Line::raw(format!("{top:.0}"))]));
    frame.render_widget(chart, area);
}

/// RSS and the engine's accounting by kind as one stacked bar scaled to the RSS peak.
fn render_memory(state: &State, frame: &mut Frame, area: Rect) {
    let s = state.metrics.summary();
    let block = Block::bordered().title(" memory ");
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let mb = |b: u64| b as f64 / (1u64 << 20) as f64;
    let engine = s.engine_bytes.clone().unwrap_or_default();
    let rss = s.rss_mib.unwrap_or(0.0);
    let peak = s.rss_peak_mib.unwrap_or(0.0).max(s.engine_peak_bytes.map_or(0.0, mb));
    let width = inner.width as usize;
    let scale = if peak > 0.0 { width as f64 / peak } else { 0.0 };
    let mut spans = Vec::new();
    let mut used = 0;
    for (i, e) in engine.iter().enumerate() {
        let n = ((mb(e.bytes) * scale).round() as usize).min(width - used);
        if n > 0 {
            spans.push(Span::styled(
                FILLS[i % FILLS.len()].to_string().repeat(n),
                style(state, COLORS[i % COLORS.len()]),
            ));
            used += n;
        }
    }
    let rss_cells = ((rss * scale).round() as usize).min(width);
    if rss_cells > used {
        spans.push(Span::raw("·".repeat(rss_cells - used)));
        used = rss_cells;
    }
    if used < width {
        spans.push(Span::raw(" ".repeat(width - used - 1)));
        spans.push(Span::raw("|"));
    }
    let mut lines = vec![
        Line::from(spans),
        Line::raw(format!(
            "RSS {} peak {} | engine {} peak {}",
            s.rss_mib.map_or("-".into(), |m| short((m * 1048576.0) as u64)),
            s.rss_peak_mib.map_or("-".into(), |m| short((m * 1048576.0) as u64)),
            s.engine_total_bytes.map_or("-".into(), short),
            s.engine_peak_bytes.map_or("-".into(), short)
        )),
    ];
    lines.extend(memory_legend(state, inner.width).into_iter().map(Line::raw));
    frame.render_widget(Paragraph::new(lines), inner);
}

#[cfg(test)]
mod tests {
    /// Every memory kind has a fill and a colour of its own.
    #[test]
    fn one_fill_and_colour_per_memory_kind() {
        let kinds = xvec::MemoryUsage::default().by_kind().len();
        assert_eq!((super::FILLS.len(), super::COLORS.len()), (kinds, kinds));
    }
}
