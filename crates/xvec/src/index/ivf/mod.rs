//! IVF: the rows of a segment split into lists by their nearest k-means centroid; a query
//! scores the centroids, then only the rows of its `nprobe` nearest lists.
//!
//! Every segment trains its own centroids on its own rows (see [`kmeans`]), so a segment
//! written by a flush, a merge or an optimize is searchable on its own and needs nothing
//! from the others; a query over `S` segments scores `S × lists` centroids (1,024 at
//! dim 384 are about 40 µs per segment). A segment of `n` rows gets
//! `min(nlist, n / MIN_POINTS_PER_LIST)` lists (at least one), and a query probes the
//! same share of them, `⌈nprobe × lists / nlist⌉`, so small segments are not over-probed.
//!
//! Lists are stored as one array of row ids in list order with `lists + 1` offsets into
//! it; a quantized index keeps the codes of each entry in the same order, coded as the
//! residual `x − c` to the entry's centroid (`x / |x| − c` for cosine), which is what
//! makes low-bit codes accurate: the residual is short and centred. The score of an entry
//! is then `⟨q, c⟩ + ⟨q, x − c⟩`, the first term once per list. With SOAR a row is also
//! kept in a second list ([`kmeans::assign`]), so `entries` can reach twice the rows; a
//! search removes the duplicates before it answers.
//!
//! Every entry also has a one-bit sketch of its residual in FastScan blocks
//! ([`sketches`]): a probe bounds a list 32 entries at a time and scores, on its codes or
//! its vector, only the entries whose bound beats the current k-th distance.

pub(crate) mod calibrate;
pub(crate) mod kmeans;
pub(crate) mod sketches;

use std::ops::Range;

use rayon::prelude::*;
use roaring::RoaringBitmap;

use super::graph::BuildControl;
use super::quant::fastscan::{self, ScanQuery};
use super::quant::rotation::Rotation;
use super::quant::{Codes, PARAMS_PER_ROW, QuantScratch, Quantizer};
use super::scorer::Scored;
use super::topk::{Candidate, Sink, TopK};
use crate::kernels::{Kernels, SCAN_BLOCK};
use crate::schema::{IvfParams, Metric, Quantize};
use crate::storage::column::{Validity, VectorColumn, VectorData};
use kmeans::Points;
use sketches::{LIST_SIGMAS, ListSketches};

/// Fewest rows per list a segment is trained for: below it centroids fit noise (faiss
/// warns under 39 points per centroid).
pub(crate) const MIN_POINTS_PER_LIST: usize = 32;

/// SOAR's λ: the weight of the residual-parallel error in the spilled assignment's loss.
/// 1.0 as in the paper's experiments.
pub(crate) const SOAR_LAMBDA: f32 = 1.0;

/// The lists a build made, before they are written.
#[derive(Debug)]
pub(crate) struct IvfLists {
    pub centroids: Vec<f32>,
    pub offsets: Vec<u64>,
    pub ids: Vec<u32>,
    /// Lists to probe per percent of recall ([`calibrate::recall_probes`]).
    pub recall_probes: Vec<u32>,
}

impl IvfLists {
    pub(crate) fn view(&self, dim: usize) -> IvfView<'_> {
        IvfView { dim, centroids: &self.centroids, offsets: &self.offsets, ids: &self.ids }
    }
}

/// The lists of one segment's index, as stored (mapped in place).
#[derive(Clone, Copy, Debug)]
pub(crate) struct IvfView<'a> {
    pub dim: usize,
    /// `lists × dim` floats.
    pub centroids: &'a [f32],
    /// `lists + 1` ascending offsets into `ids`, from 0 to `ids.len()`.
    pub offsets: &'a [u64],
    /// Row ids, list after list.
    pub ids: &'a [u32],
}

impl IvfView<'_> {
    pub(crate) fn lists(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// The entries of list `l`.
    pub(crate) fn list(&self, l: usize) -> Range<usize> {
        self.offsets[l] as usize..self.offsets[l + 1] as usize
    }

    pub(crate) fn centroid(&self, l: usize) -> &[f32] {
        &self.centroids[l * self.dim..(l + 1) * self.dim]
    }

    /// The list holding entry `e`.
    pub(crate) fn list_of(&self, e: usize) -> usize {
        self.offsets.partition_point(|&o| o as usize <= e) - 1
    }

    /// Checks the lists against a segment of `rows` rows: what is wrong and the index of
    /// the offending element (`(section, index)`: 0 = centroids, 1 = offsets, 2 = ids).
    pub(crate) fn validate(&self, rows: usize) -> Result<(), (String, u8, usize)> {
        if self.offsets.is_empty() || self.offsets[0] != 0 {
            return Err(("list offsets do not start at 0".into(), 1, 0));
        }
        if self.centroids.len() != self.lists() * self.dim {
            return Err((
                format!("{} centroid floats for {} lists of dim {}", self.centroids.len(), self.lists(), self.dim),
                0,
                0,
            ));
        }
        if let Some(i) = self.centroids.iter().position(|c| !c.is_finite()) {
            return Err(("a centroid is not finite".into(), 0, i));
        }
        if let Some(i) = self.offsets.windows(2).position(|w| w[1] < w[0]) {
            return Err((
                format!("list offset {} falls from {} to {}", i + 1, self.offsets[i], self.offsets[i + 1]),
                1,
                i + 1,
            ));
        }
        let last = self.offsets[self.lists()];
        if last != self.ids.len() as u64 {
            return Err((format!("lists end at entry {last}, expected {}", self.ids.len()), 1, self.lists()));
        }
        if self.ids.len() > 2 * rows {
            return Err((format!("{} entries for {rows} rows (at most two lists a row)", self.ids.len()), 2, 0));
        }
        if let Some(i) = self.ids.iter().position(|&r| r as usize >= rows) {
            return Err((format!("entry {i} names row {} of {rows}", self.ids[i]), 2, i));
        }
        Ok(())
    }
}

/// Lists of a segment of `points` rows with vectors, for an index asking for `nlist`.
pub(crate) fn lists_for(nlist: u32, points: usize) -> usize {
    (nlist as usize).min(points / MIN_POINTS_PER_LIST).max(usize::from(points > 0))
}

/// Lists a query probes in a segment of `lists` lists, for an index of `nlist` lists
/// asked for `nprobe`: the same share.
pub(crate) fn probes_for(nprobe: usize, nlist: u32, lists: usize) -> usize {
    (nprobe * lists).div_ceil(nlist.max(1) as usize).clamp(usize::from(lists > 0), lists)
}

/// Trains the lists of rows `0..rows` of `col` (null vectors left out) and assigns every
/// row; `None` when cancelled.
pub(crate) fn build(
    metric: Metric,
    col: VectorColumn,
    rows: usize,
    p: &IvfParams,
    ctl: &BuildControl,
) -> Option<IvfLists> {
    let valid: Vec<u32> = (0..rows as u32).filter(|&r| col.validity.is_valid(r as usize)).collect();
    let lists = lists_for(p.nlist, valid.len());
    let points = Points { col, rows: &valid, spherical: metric == Metric::Cosine };
    let pool = super::build_pool(ctl.concurrency).ok()?;
    let total = kmeans::TRAIN_ROUNDS + 1;
    let cancelled = || ctl.cancel.load(std::sync::atomic::Ordering::Relaxed);
    let report = |done| (ctl.progress)(super::graph::BuildProgress { done, total });
    let (centroids, assigned, recall_probes) = pool.install(|| {
        let centroids =
            if lists == 0 { Vec::new() } else { kmeans::train(&points, lists, p.seed, &report, &cancelled)? };
        let soar = p.soar.then_some(SOAR_LAMBDA);
        let assigned = if lists == 0 { Vec::new() } else { kmeans::assign(&points, &centroids, soar) };
        let recall_probes = calibrate::recall_probes(&points, &centroids, &assigned, metric, p.seed);
        Some((centroids, assigned, recall_probes))
    })?;
    report(total);
    // Counting sort by list; rows ascend within a list.
    let mut offsets = vec![0u64; lists + 1];
    for pair in &assigned {
        for &l in pair.iter().filter(|&&l| l != u32::MAX) {
            offsets[l as usize + 1] += 1;
        }
    }
    for l in 0..lists {
        offsets[l + 1] += offsets[l];
    }
    let mut next: Vec<u64> = offsets[..lists].to_vec();
    let mut ids = vec![0u32; offsets[lists] as usize];
    for (&row, pair) in valid.iter().zip(&assigned) {
        for &l in pair.iter().filter(|&&l| l != u32::MAX) {
            ids[next[l as usize] as usize] = row;
            next[l as usize] += 1;
        }
    }
    Some(IvfLists { centroids, offsets, ids, recall_probes })
}

/// The codes of every entry, in entry order (see [`encode_entry`]).
pub(crate) fn encode(qz: &Quantizer, metric: Metric, col: VectorColumn, ivf: IvfView) -> (Vec<u8>, Vec<f32>) {
    const CHUNK: usize = 1024;
    let cb = qz.code_bytes();
    let mut codes = vec![0u8; cb * ivf.ids.len()];
    let mut params = vec![0f32; PARAMS_PER_ROW * ivf.ids.len()];
    codes.par_chunks_mut(cb * CHUNK).zip(params.par_chunks_mut(PARAMS_PER_ROW * CHUNK)).enumerate().for_each(
        |(chunk, (codes, params))| {
            let mut s = EntryScratch::default();
            let pairs = codes.chunks_exact_mut(cb).zip(params.chunks_exact_mut(PARAMS_PER_ROW));
            for (i, (c, p)) in pairs.enumerate() {
                encode_entry(qz, metric, col, &ivf, chunk * CHUNK + i, c, p, &mut s);
            }
        },
    );
    (codes, params)
}

/// Buffers of [`encode_entry`].
#[derive(Default)]
pub(crate) struct EntryScratch {
    x: Vec<f32>,
    quant: QuantScratch,
}

/// The codes of entry `e`: the residual of its row to its list's centroid, with the
/// original's norm (1 for a non-zero cosine row) kept as the norm.
#[allow(clippy::too_many_arguments)]
pub(crate) fn encode_entry(
    qz: &Quantizer,
    metric: Metric,
    col: VectorColumn,
    ivf: &IvfView,
    e: usize,
    codes: &mut [u8],
    params: &mut [f32],
    s: &mut EntryScratch,
) {
    let x = &mut s.x;
    x.clear();
    col.extend_f32(ivf.ids[e] as usize, x);
    if metric == Metric::Cosine {
        kmeans::unit(x);
    }
    let norm = x.iter().map(|&v| v as f64 * v as f64).sum::<f64>().sqrt() as f32;
    x.iter_mut().zip(ivf.centroid(ivf.list_of(e))).for_each(|(v, c)| *v -= c);
    qz.encode(x, codes, params, &mut s.quant);
    params[2] = norm;
}

/// Per-thread buffers of an IVF search.
#[derive(Default, Debug)]
pub(crate) struct IvfScratch {
    query: Vec<f32>,
    lists: Vec<Scored>,
    /// `⟨q, c⟩` of every list.
    dots: Vec<f32>,
    /// The query rotated for the sketches, and the rotation's buffer.
    rotated: Vec<f32>,
    tmp: Vec<f32>,
    /// The coarse codes' query buffers.
    quant: QuantScratch,
}

impl IvfScratch {
    pub(crate) fn heap_bytes(&self) -> usize {
        let floats = self.query.capacity() + self.dots.capacity() + self.rotated.capacity() + self.tmp.capacity();
        floats * 4 + self.lists.capacity() * size_of::<Scored>()
    }
}

/// How a list scan scores an entry `e` (of row `row`) given `⟨q, c⟩` of its list.
pub(crate) trait EntryScorer {
    fn dist(&self, e: usize, row: u32, centroid_dot: f32) -> f32;
    fn prefetch(&self, e: usize, row: u32);
}

/// One IVF search's inputs besides the scorer.
pub(crate) struct ListSearch<'a> {
    pub kernels: &'static Kernels,
    pub metric: Metric,
    /// `|c|²` of every list (L2 orders lists by it).
    pub centroid_norms: &'a [f32],
    pub probes: usize,
    pub want: usize,
    pub allowed: Option<&'a RoaringBitmap>,
    /// Whether a row may sit in two lists (SOAR), so duplicates must be removed.
    pub spilled: bool,
    /// The entries' sketches and their rotation: entries are bounded a block at a time
    /// and only those whose bound beats the k-th distance scored.
    pub sketches: (ListSketches<'a>, &'a Rotation),
    /// The centroids as int8 codes and their quantizer, for a segment with many lists:
    /// see [`CoarseCodes`].
    pub coarse: Option<(&'a Quantizer, Codes<'a>)>,
    /// The k-th distance the query has found so far in other segments (infinite before
    /// the first): an entry whose sketch bound exceeds it cannot be a hit, whatever this
    /// segment's own results (each segment's lists start with none).
    pub bound: f32,
}

/// Lists from which a segment's centroids are ranked on int8 codes first.
pub(crate) const COARSE_MIN_LISTS: usize = 256;

/// The centroids of a segment with many lists as int8 codes (a quarter of their bytes),
/// made when the index opens. A query ranks every list on them and scores only the best
/// `2 × probes + 16` in f32: reading every f32 centroid of S segments (1.5 MiB per 1,024
/// lists at d = 384) left the caches once S × L passed about 2,000 lists and cost more
/// than the lists' entries.
pub(crate) struct CoarseCodes {
    pub quantizer: Quantizer,
    pub codes: Vec<u8>,
    pub params: Vec<f32>,
}

impl CoarseCodes {
    /// Codes of `view`'s centroids, or `None` below [`COARSE_MIN_LISTS`] lists.
    pub(crate) fn of(view: &IvfView, metric: Metric) -> Option<CoarseCodes> {
        if view.lists() < COARSE_MIN_LISTS {
            return None;
        }
        let quantizer = Quantizer::new(Quantize::Int8, 0, view.dim, metric, None);
        let col = VectorColumn {
            dim: view.dim,
            validity: Validity(None),
            data: VectorData::Fp32(view.centroids),
            norms: None,
        };
        let (codes, params) = quantizer.encode_rows(col, view.lists());
        Some(CoarseCodes { quantizer, codes, params })
    }

    pub(crate) fn view(&self) -> (&Quantizer, Codes<'_>) {
        (&self.quantizer, self.quantizer.view(&self.codes, &self.params))
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        self.codes.capacity() + 4 * self.params.capacity()
    }
}

/// The `want` best entries of the `probes` lists nearest the raw query `q`, best first
/// (`Scored::id` is the entry; [`IvfView::ids`] maps it to its row), duplicates of a row
/// removed; `⟨q, c⟩` of each entry's list is left in `scratch` for [`centroid_dot`].
pub(crate) fn search(
    ivf: &IvfView,
    s: &impl EntryScorer,
    q: &[f32],
    ls: &ListSearch,
    scratch: &mut IvfScratch,
    out: &mut Vec<Scored>,
) {
    let IvfScratch { query, lists, dots, rotated, tmp, quant } = scratch;
    query.clear();
    query.extend_from_slice(q);
    if ls.metric == Metric::Cosine {
        kmeans::unit(query);
    }
    let exact = |l: usize, d: f32| {
        let dist = if ls.metric == Metric::L2 { ls.centroid_norms[l] - 2.0 * d } else { -d };
        Scored { dist, id: l as u32 }
    };
    let probes = ls.probes.min(ivf.lists());
    dots.clear();
    lists.clear();
    match ls.coarse {
        // Every list ranked on its int8 code; the best few scored again in f32.
        Some((quantizer, codes)) if 2 * probes + 16 < ivf.lists() => {
            let qq = quantizer.prepare(query, quant);
            lists.extend(
                (0..ivf.lists() as u32)
                    .map(|l| Scored { dist: codes.distance(ls.kernels, &qq, ls.metric, l, false), id: l }),
            );
            let keep = 2 * probes + 16;
            lists.select_nth_unstable(keep);
            lists.truncate(keep);
            dots.resize(ivf.lists(), f32::NAN);
            for c in lists.iter_mut() {
                let l = c.id as usize;
                dots[l] = (ls.kernels.dot_f32)(query, ivf.centroid(l));
                *c = exact(l, dots[l]);
            }
        }
        _ => {
            dots.extend((0..ivf.lists()).map(|l| (ls.kernels.dot_f32)(query, ivf.centroid(l))));
            lists.extend(dots.iter().enumerate().map(|(l, &d)| exact(l, d)));
        }
    }
    if probes < lists.len() {
        lists.select_nth_unstable(probes);
    }
    lists.truncate(probes);
    lists.sort_unstable();
    // A spilled row can fill two places; twice the places keep `want` distinct rows.
    let mut top = TopK::new(if ls.spilled { ls.want.saturating_mul(2) } else { ls.want });
    let (sk, rotation) = ls.sketches;
    rotated.resize(ivf.dim, 0.0);
    rotation.apply(query, rotated, tmp);
    let norm_sq = if ls.metric == Metric::Cosine { 1.0 } else { (ls.kernels.dot_f32)(query, query) };
    let sq = ScanQuery::rotated(rotated, norm_sq, ls.metric, LIST_SIGMAS);
    for l in lists.iter() {
        let range = ivf.list(l.id as usize);
        let ids = &ivf.ids[range.clone()];
        scan_blocks(&sk, &sq, s, ls, l.id as usize, range.start, ids, dots[l.id as usize], &mut top);
    }
    out.clear();
    out.extend(top.into_sorted().into_iter().map(|c| Scored { dist: c.dist, id: c.row }));
    if ls.spilled {
        dedup_rows(ivf, out);
    }
    out.truncate(ls.want);
}

/// Scores list `l` (entries `first..`, rows `ids`) block by block: every entry's sketch
/// bound at once, then, with their lines prefetched together, the entries whose bound
/// does not exceed the k-th distance.
#[allow(clippy::too_many_arguments)]
#[inline]
fn scan_blocks(
    sk: &ListSketches,
    sq: &ScanQuery,
    s: &impl EntryScorer,
    ls: &ListSearch,
    l: usize,
    first: usize,
    ids: &[u32],
    dot: f32,
    top: &mut TopK,
) {
    for (i, rows) in ids.chunks(SCAN_BLOCK).enumerate() {
        let b = sk.starts[l] + i;
        let sums = fastscan::block_sums(ls.kernels, sk.block(b), sq.lut(), sk.columns);
        let bounds = sq.bounds_of(&sums, sk.block_factors(b), dot);
        let threshold = top.threshold().min(ls.bound);
        // Bit j: entry j's bound does not exceed the k-th distance (a compare per lane).
        let mut pass = bounds.iter().enumerate().fold(0u32, |m, (j, &b)| m | u32::from(b <= threshold) << j);
        pass &= u32::MAX >> (SCAN_BLOCK - rows.len());
        if let Some(allowed) = ls.allowed {
            set_bits(pass).filter(|&j| !allowed.contains(rows[j])).for_each(|j| pass &= !(1 << j));
        }
        let base = first + i * SCAN_BLOCK;
        set_bits(pass).for_each(|j| s.prefetch(base + j, rows[j]));
        for j in set_bits(pass) {
            if bounds[j] > top.threshold().min(ls.bound) {
                continue;
            }
            let dist = s.dist(base + j, rows[j], dot);
            if dist <= top.threshold() {
                top.push(Candidate { dist, segment: 0, row: (base + j) as u32 });
            }
        }
    }
}

/// The positions of the set bits of `mask`, lowest first.
#[inline]
fn set_bits(mut mask: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        let j = (mask != 0).then(|| mask.trailing_zeros() as usize)?;
        mask &= mask - 1;
        Some(j)
    })
}

/// `⟨q, c⟩` of the list holding entry `e`, from the last [`search`] with `scratch`.
pub(crate) fn centroid_dot(ivf: &IvfView, scratch: &IvfScratch, e: usize) -> f32 {
    scratch.dots[ivf.list_of(e)]
}

/// Allowed entries of the lists the last [`search`] probed (every entry without a filter),
/// counted up to `enough`: whether the lists held enough allowed rows, when the search
/// found fewer (its bound may have skipped them).
pub(crate) fn allowed_in_probed(
    ivf: &IvfView,
    scratch: &IvfScratch,
    allowed: Option<&RoaringBitmap>,
    enough: usize,
) -> usize {
    let mut n = 0;
    for l in &scratch.lists {
        let ids = &ivf.ids[ivf.list(l.id as usize)];
        n += match allowed {
            None => ids.len(),
            Some(a) => ids.iter().filter(|&&r| a.contains(r)).count(),
        };
        if n >= enough {
            break;
        }
    }
    n
}

/// Keeps the first (best) entry of each row, in order.
fn dedup_rows(ivf: &IvfView, found: &mut Vec<Scored>) {
    let mut seen = std::collections::HashSet::with_capacity(found.len());
    found.retain(|c| seen.insert(ivf.ids[c.id as usize]));
}

/// The search cost of one IVF probe of a segment, in entries scored: what a filtered
/// search weighs against an exact scan of the allowed rows.
pub(crate) fn entries_scanned(ivf: &IvfView, probes: usize) -> usize {
    (ivf.ids.len() * probes).div_ceil(ivf.lists().max(1))
}

#[cfg(test)]
mod tests;
