//! Drawing: a pure function of [`State`] into a frame. No I/O, no clocks, no locks, so the
//! snapshot tests render every view from a fixed feed. Colour only when `state.color`
//! (`NO_COLOR` unset); every mark also differs by its symbol, so nothing depends on it.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier};
use ratatui::symbols::Marker as Dots;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Block, Cell, Chart, Clear, Dataset, Gauge, GraphType, Paragraph, Row, Table, Tabs};

use super::state::{Load, OptimizeStatus, State, View};
use super::style::{FULL, bold, mib, opt, small, style};

/// The key map the `?` overlay shows.
pub const KEYS: &[(&str, &str)] = &[
    ("1-4, Tab", "switch view (Shift-Tab: back)"),
    ("space", "start / pause the workload"),
    ("+ / -", "more / fewer workload threads"),
    ("] / [", "ef (query list) or nprobe up / down"),
    ("k / K", "k up / down"),
    ("f", "filter on / off (--filter)"),
    ("r", "quantized only / refined"),
    ("} / {", "refine factor up / down"),
    ("o / c", "start / cancel optimize (--write)"),
    ("up / down", "select a segment"),
    ("?", "show / hide this key map"),
    ("q, Ctrl-C", "quit"),
];

pub fn render(state: &State, frame: &mut Frame) {
    let area = frame.area();
    if area.width < 20 || area.height < 5 {
        frame.render_widget(Paragraph::new("xvec tui: terminal too small"), area);
        return;
    }
    let [header, body, footer] = frame_areas(area);
    render_header(state, frame, header);
    match state.view {
        View::Overview => render_overview(state, frame, body),
        View::Search => super::search_view::render(state, frame, body),
        View::Optimize => render_optimize(state, frame, body),
        View::Segments => render_segments(state, frame, body),
    }
    render_footer(state, frame, footer);
    if state.help {
        render_help(state, frame, body);
    }
}

/// The header line (tabs), the view's body and the two footer lines (settings, note).
pub fn frame_areas(area: Rect) -> [Rect; 3] {
    Layout::vertical([Constraint::Length(1), Constraint::Min(1), Constraint::Length(2)]).areas(area)
}

fn render_header(state: &State, frame: &mut Frame, area: Rect) {
    let titles = View::ALL.iter().enumerate().map(|(i, v)| format!("{} {}", i + 1, v.title()));
    let tabs = Tabs::new(titles)
        .select(state.view.index())
        .highlight_style(if state.color { bold().fg(Color::Yellow) } else { bold().add_modifier(Modifier::REVERSED) })
        .divider("|")
        .padding(" ", " ");
    let name = format!(" {} ", state.overview.name);
    let [left, right] = Layout::horizontal([
        Constraint::Min(1),
        Constraint::Length(if area.width >= FULL.0 { name.len() as u16 + 9 } else { 0 }),
    ])
    .areas(area);
    frame.render_widget(tabs, left);
    frame.render_widget(Paragraph::new(format!("xvec tui{name}")).right_aligned(), right);
}

fn render_footer(state: &State, frame: &mut Frame, area: Rect) {
    let s = &state.search;
    let run = if s.settings.running { "running" } else { "paused" };
    let breadth = match (s.ef(), s.nprobe()) {
        (None, Some(n)) => format!("nprobe {n}"),
        (ef, _) => format!("ef {}", ef.map_or("n/a".into(), |e| e.to_string())),
    };
    let refine = match s.refine() {
        None => "n/a".to_string(),
        Some(0) => "off".to_string(),
        Some(r) => format!("x{r}"),
    };
    let filter = match (&s.filter, s.settings.filter) {
        (None, _) => "none",
        (Some(_), true) => "on",
        (Some(_), false) => "off",
    };
    let settings = format!(
        "{run} | threads {} | k {} | {breadth} | refine {refine} | filter {filter}",
        s.settings.concurrency, s.settings.k
    );
    let note = state.message.clone().unwrap_or_else(|| "? keys  q quit  space pause  ] [ ef  + - threads".into());
    let lines = vec![Line::styled(settings, style(state, Color::Cyan)), Line::raw(note)];
    frame.render_widget(Paragraph::new(lines), area);
}

fn render_help(state: &State, frame: &mut Frame, body: Rect) {
    let w = 52.min(body.width);
    let h = (KEYS.len() as u16 + 2).min(body.height);
    let area = Rect { x: body.x + (body.width - w) / 2, y: body.y + (body.height - h) / 2, width: w, height: h };
    let rows = KEYS.iter().map(|(k, what)| Row::new([Cell::from(*k), Cell::from(*what)]));
    let table = Table::new(rows, [Constraint::Length(11), Constraint::Min(1)])
        .block(Block::bordered().title(" keys (? to close) ").border_style(style(state, Color::Yellow)));
    frame.render_widget(Clear, area);
    frame.render_widget(table, area);
}

fn render_overview(state: &State, frame: &mut Frame, area: Rect) {
    let o = &state.overview;
    let mut lines = vec![
        Line::from(vec![
            Span::styled(o.name.clone(), bold()),
            Span::raw(format!(" {} ({})", o.dir, if o.writable { "writable" } else { "read-only" })),
        ]),
        Line::raw(format!(
            "documents {} live, {} deleted | {} segments | generation {} | {} on disk",
            o.live,
            o.deleted,
            o.segments.len(),
            o.generation,
            mib(o.disk_bytes)
        )),
        Line::raw(format!(
            "WAL {} bytes, {} unflushed rows | {} not indexed | ingest {}",
            o.wal_bytes,
            o.unflushed,
            o.unindexed,
            state.ingest_text()
        )),
    ];
    if small(area) {
        lines.extend(o.fields.iter().map(|f| {
            let built = f.built.map_or(String::new(), |b| format!(" built {:.0}%", b * 100.0));
            Line::raw(format!("{} {}{}", f.name, f.ty, built))
        }));
        frame.render_widget(Paragraph::new(lines), area);
        return;
    }
    let files_h = o.files.len() as u16 + 3;
    let [top, fields, files] =
        Layout::vertical([Constraint::Length(3), Constraint::Min(4), Constraint::Length(files_h)]).areas(area);
    frame.render_widget(Paragraph::new(lines), top);
    let rows = o.fields.iter().map(|f| {
        let built = f.built.map(|b| format!("{:>5.1}%", b * 100.0)).unwrap_or_default();
        Row::new([f.name.clone(), f.ty.clone(), built, f.index.clone().unwrap_or_default()])
    });
    let table =
        Table::new(rows, [Constraint::Length(14), Constraint::Length(12), Constraint::Length(7), Constraint::Min(10)])
            .header(Row::new(["field", "type", "built", "index"]).style(bold()))
            .block(Block::bordered().title(" schema "));
    frame.render_widget(table, fields);
    let rows = o.files.iter().map(|f| Row::new([f.kind.to_string(), f.files.to_string(), mib(f.bytes)]));
    let table = Table::new(rows, [Constraint::Length(12), Constraint::Length(7), Constraint::Min(10)])
        .header(Row::new(["file kind", "files", "size"]).style(bold()))
        .block(Block::bordered().title(" on disk "));
    frame.render_widget(table, files);
}

fn render_optimize(state: &State, frame: &mut Frame, area: Rect) {
    let o = &state.optimize;
    let status = match &o.status {
        OptimizeStatus::ReadOnly => "read-only handle: reopen with --write to optimize".to_string(),
        OptimizeStatus::Idle => "press o to optimize: compact segments and build every index".to_string(),
        OptimizeStatus::Running => format!("optimizing for {:.1} s (c cancels)", o.seconds),
        OptimizeStatus::Cancelling => "cancelling".to_string(),
        OptimizeStatus::Done(what) => format!("done in {:.1} s: {what}", o.seconds),
        OptimizeStatus::Cancelled => format!("cancelled after {:.1} s; the collection is unchanged", o.seconds),
        OptimizeStatus::Failed(e) => format!("failed: {e}"),
    };
    let s = state.metrics.summary();
    let figures = format!(
        "{:.0} vectors/s | RSS {} MiB (peak {}) | engine {}",
        o.rate,
        opt(s.rss_mib, 1),
        opt(s.rss_peak_mib, 1),
        s.engine_total_bytes.map_or("-".into(), mib)
    );
    let ratio = |done: u64, total: u64| if total == 0 { 0.0 } else { (done as f64 / total as f64).clamp(0.0, 1.0) };
    let seg = ratio(o.segments_done as u64, o.segments_total as u64);
    let vec = ratio(o.vectors_done, o.vectors_total);
    if small(area) {
        let lines = vec![
            Line::raw(status),
            Line::raw(format!("segments {}/{} ({:.0}%)", o.segments_done, o.segments_total, seg * 100.0)),
            Line::raw(format!("vectors {}/{} ({:.0}%)", o.vectors_done, o.vectors_total, vec * 100.0)),
            Line::raw(figures),
        ];
        frame.render_widget(Paragraph::new(lines), area);
        return;
    }
    let [head, g1, g2, rss_area] =
        Layout::vertical([Constraint::Length(2), Constraint::Length(3), Constraint::Length(3), Constraint::Min(4)])
            .areas(area);
    frame.render_widget(Paragraph::new(vec![Line::styled(status, bold()), Line::raw(figures)]), head);
    let gauge = |title: String, r: f64| {
        Gauge::default()
            .block(Block::bordered().title(title))
            .gauge_style(style(state, Color::Green))
            .use_unicode(true)
            .ratio(r)
    };
    frame.render_widget(gauge(format!(" segments {}/{} ", o.segments_done, o.segments_total), seg), g1);
    frame.render_widget(gauge(format!(" vectors indexed {}/{} ", o.vectors_done, o.vectors_total), vec), g2);
    let hist = state.metrics.history();
    let data: Vec<(f64, f64)> = hist.iter().map(|p| (p.t, p.rss_mib)).collect();
    let t0 = hist.front().map_or(0.0, |p| p.t);
    let t1 = state.metrics.now().max(t0 + 1.0);
    let top = data.iter().map(|p| p.1).fold(1.0, f64::max) * 1.1;
    let sets = vec![
        Dataset::default()
            .marker(Dots::Braille)
            .graph_type(GraphType::Line)
            .style(style(state, Color::Blue))
            .data(&data),
    ];
    let chart = Chart::new(sets)
        .block(Block::bordered().title(" RSS MiB during the run "))
        .x_axis(Axis::default().bounds([t0, t1]))
        .y_axis(Axis::default().bounds([0.0, top]).labels([Line::raw("0"), Line::raw(format!("{top:.0}"))]));
    frame.render_widget(chart, rss_area);
}

fn render_segments(state: &State, frame: &mut Frame, area: Rect) {
    let segs = &state.overview.segments;
    let sel = segs.get(state.selected);
    let table_h = (segs.len() as u16 + 3).min(area.height / 2).max(4);
    let [list, detail] = Layout::vertical([Constraint::Length(table_h), Constraint::Min(3)]).areas(area);
    let visible = table_h.saturating_sub(3) as usize;
    let skip = state.selected.saturating_sub(visible.saturating_sub(1));
    let rows = segs.iter().enumerate().skip(skip).map(|(i, s)| {
        let mark = if i == state.selected { ">" } else { " " };
        let row = Row::new([
            format!("{mark}{}", s.id),
            s.file.clone(),
            s.rows.to_string(),
            s.deleted.to_string(),
            mib(s.bytes),
        ]);
        if i == state.selected { row.style(if state.color { bold().fg(Color::Yellow) } else { bold() }) } else { row }
    });
    let table = Table::new(
        rows,
        [
            Constraint::Length(6),
            Constraint::Min(12),
            Constraint::Length(10),
            Constraint::Length(8),
            Constraint::Length(11),
        ],
    )
    .header(Row::new(["id", "file", "rows", "deleted", "size"]).style(bold()))
    .block(Block::bordered().title(format!(" segments ({}) ", segs.len())));
    frame.render_widget(table, list);

    let block = Block::bordered().title(match sel {
        Some(s) => format!(" graph of segment {} ", s.id),
        None => " graph ".to_string(),
    });
    let inner = block.inner(detail);
    frame.render_widget(block, detail);
    let lines = match (&state.graphs, sel) {
        (_, None) => vec![Line::raw("no segments: flush or optimize first")],
        (Load::NotStarted | Load::Loading, _) => vec![Line::raw("reading graphs (inspect)...")],
        (Load::Failed(e), _) => vec![Line::raw(format!("error: {e}"))],
        (Load::Ready(graphs), Some(seg)) => graph_lines(state, graphs, seg.id, inner),
    };
    frame.render_widget(Paragraph::new(lines), inner);
}

/// Layer sizes, reachability and the base layer's degree histogram of one segment's graphs.
fn graph_lines(state: &State, graphs: &[xvec::verify::GraphReport], segment: u64, area: Rect) -> Vec<Line<'static>> {
    let mine: Vec<_> = graphs.iter().filter(|g| g.segment == segment).collect();
    if mine.is_empty() {
        return vec![Line::raw("no graph index in this segment (flat, or not built yet)")];
    }
    let mut lines = Vec::new();
    for g in mine {
        lines.push(Line::styled(
            format!("{} `{}`: {} nodes, {} edges, entry {}", g.kind, g.field, g.nodes, g.edges, g.entry),
            bold(),
        ));
        let sizes: Vec<String> = g.layers.iter().map(|l| format!("L{} {}", l.level, l.nodes)).collect();
        lines.push(Line::raw(format!("layers: {}", sizes.join(" | "))));
        let base = g.layers.first();
        let (unreach, live) = base.map_or((0, 0), |l| (l.unreachable, l.unreachable_live));
        let nodes = base.map_or(0, |l| l.nodes).max(1);
        lines.push(Line::raw(format!(
            "reachable from entry: {:.2}% ({} unreachable, {} live)",
            100.0 * (nodes - unreach.min(nodes)) as f64 / nodes as f64,
            unreach,
            live
        )));
        let Some(base) = base else { continue };
        // The histogram in at most as many rows as fit, degrees grouped evenly.
        let room = (area.height as usize).saturating_sub(lines.len() + 1).max(1);
        let h = &base.degree_histogram;
        let width = h.len().div_ceil(room).max(1);
        let groups: Vec<(usize, usize, u64)> =
            h.chunks(width).enumerate().map(|(i, c)| (i * width, i * width + c.len() - 1, c.iter().sum())).collect();
        let max = groups.iter().map(|g| g.2).max().unwrap_or(0).max(1);
        let bar_w = area.width.saturating_sub(22) as u64;
        lines.push(Line::raw(format!("out-degree, base layer (bound {}):", base.degree_bound)));
        for (lo, hi, n) in groups {
            let label = if lo == hi { format!("{lo}") } else { format!("{lo}-{hi}") };
            lines.push(Line::from(vec![
                Span::raw(format!("{label:>7} ")),
                Span::styled("■".repeat((n * bar_w).div_ceil(max) as usize), style(state, Color::Cyan)),
                Span::raw(format!(" {n}")),
            ]));
        }
    }
    lines
}
