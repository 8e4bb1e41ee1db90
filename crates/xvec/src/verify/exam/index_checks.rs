//! Checks of an index file beyond its container: that it opens against its segment, its
//! graph topology, its codes and sketches re-encoded, and with `deep` a recall sample.

use std::collections::HashSet;
use std::sync::Arc;

use roaring::RoaringBitmap;

use super::files::{Checker, index_section_name};
use super::{IdxDamage, IdxState};
use crate::index::ivf::sketches::{ListSketches, SketchScratch};
use crate::index::ivf::{self, IvfView};
use crate::index::quant::rotation::Rotation;
use crate::index::quant::sketch;
use crate::index::segment_index::{self, Encodes, IndexTarget, MemoryShare, SearchParams, SegmentIndex};
use crate::index::{PreparedQuery, TopK, flat, qg};
use crate::kernels;
use crate::schema::{Knob, Schema, VectorSpec};
use crate::storage::FileKind;
use crate::storage::column::SegmentView;
use crate::storage::manifest::{IndexEntry, SegmentEntry};
use crate::storage::segment::Segment;
use crate::verify::scan::{self, ScanContext, describe};
use crate::verify::topology::{GraphTopology, check_index};
use crate::verify::{CodesReport, Finding, GraphReport, RecallReport, Severity};

impl Checker<'_> {
    /// Opens index file `ie` of segment `e` and scans its container, reporting what is
    /// wrong: the scan when it opened and names the segment, else the damage (missing,
    /// or broken).
    pub(super) fn scan_index_file(
        &mut self,
        e: &SegmentEntry,
        ie: &IndexEntry,
        name_of: &dyn Fn(usize, &crate::storage::container::RawSection) -> String,
    ) -> Result<scan::ContainerScan, IdxDamage> {
        let path = self.dir.join(&ie.file);
        let bytes = self.open(&ie.file, FileKind::Index, ie.size).ok_or(IdxDamage::Missing)?;
        let cx = ScanContext {
            file: &ie.file,
            path: &path,
            kind: FileKind::Index,
            expected_count: None,
            name_of,
            threads: self.opts.threads,
        };
        let scan = scan::scan_container(&cx, bytes.as_slice(), self.f, self.sum);
        if let Some(id) = scan.id
            && id != e.id
        {
            self.f.push(Finding::new(Severity::Corrupt, &ie.file, "header", "segment id").at(16).expected(e.id, id));
            return Err(IdxDamage::Broken);
        }
        Ok(scan)
    }

    /// Reports index file `ie` as corrupt where opening it failed with `err`, in the
    /// section of `scan` the error's offset falls in.
    pub(super) fn open_failed(
        &mut self,
        ie: &IndexEntry,
        scan: &scan::ContainerScan,
        err: &crate::error::StorageError,
        name_of: &dyn Fn(usize, &crate::storage::container::RawSection) -> String,
    ) {
        let (at, what) = describe(err);
        let section = scan::section_at(scan.table.as_deref(), at.unwrap_or(0), name_of);
        let mut finding = Finding::new(Severity::Corrupt, &ie.file, &section, what);
        finding.offset = at;
        self.f.push(finding);
    }

    pub(super) fn index(
        &mut self,
        e: &SegmentEntry,
        ie: &IndexEntry,
        schema: &Schema,
        rows: u64,
        seg: Option<&Segment>,
        deleted: &RoaringBitmap,
    ) -> IdxState {
        if ie.kind != crate::storage::IndexKind::Vector {
            return self.field_index(e, ie, schema, rows, seg);
        }
        let mut st = IdxState { entry: ie.clone(), field_ok: true, index: None, damage: IdxDamage::Broken, len: None };
        let Some((field, spec)) = schema
            .position_of_id(ie.field)
            .map(|p| schema.field(p))
            .and_then(|f| Some((f.name.clone(), f.as_vector()?.clone())))
        else {
            self.named.insert(ie.file.clone());
            self.f.push(Finding::new(
                Severity::Corrupt,
                &ie.file,
                "",
                format!("the manifest lists it for field {}, which is not a vector field", ie.field),
            ));
            st.field_ok = false;
            return st;
        };
        let path = self.dir.join(&ie.file);
        let scan = match self.scan_index_file(e, ie, &|_, s| index_section_name(s)) {
            Ok(opened) => opened,
            Err(damage) => {
                st.damage = damage;
                return st;
            }
        };
        let damaged = scan.damaged_sections();
        let only = |kind: &dyn Fn(u16) -> bool| {
            scan.id.is_some()
                && !scan.frame_damage
                && !damaged.is_empty()
                && scan.table.as_ref().is_some_and(|t| damaged.iter().all(|&i| t.get(i).is_some_and(|s| kind(s.kind))))
        };
        let codes_only = only(&|k| segment_index::CODE_SECTIONS.contains(&k));
        // Damage only in a disk index's node blocks: the index still opens (they are read
        // as searches go), so the blocks at fault can be named.
        let blocks_only = only(&segment_index::checked_as_read);
        if !scan.is_clean() && !codes_only && !blocks_only {
            return st;
        }
        let target = IndexTarget { path: &path, segment_id: e.id, field: ie.field, spec: &spec, rows: rows as usize };
        let index = match SegmentIndex::open(target, self.opts.mmap, false, MemoryShare::Cache(0)) {
            Ok(i) => Arc::new(i),
            Err(err) => {
                self.open_failed(ie, &scan, &err, &|_, s| index_section_name(s));
                return st;
            }
        };
        st.index = Some(index.clone());
        st.len = Some(index.file_len());
        if codes_only {
            st.damage = IdxDamage::Codes;
            return st;
        }
        // Rows a search never returns (deleted, or without a vector in this field) need
        // not be reachable.
        let mut ignored = deleted.clone();
        if let Some(seg) = seg {
            let col = vectors_of(seg, ie);
            ignored.extend((0..seg.rows() as u32).filter(|&r| !col.validity.is_valid(r as usize)));
        }
        let (topology, blocks_bad) = match index.disk() {
            Some(g) => self.disk_blocks(ie, g, seg, &ignored),
            None => (check_index(&index, &ignored), false),
        };
        st.damage = IdxDamage::None;
        if let Some(t) = topology {
            self.topology(e, ie, &field, t, &mut st);
        }
        if blocks_only || blocks_bad {
            // The rows' vectors are in the blocks too: only a rebuild mends them.
            st.damage = IdxDamage::Broken;
            return st;
        }
        if let Some(seg) = seg {
            // Both run: each reports its own finding.
            let (codes, sketches) = (self.codes(e, ie, &field, &index, seg), self.sketches(ie, &index, seg));
            let blocks = self.qg_blocks(ie, &index, seg);
            if codes || sketches || blocks {
                st.damage = IdxDamage::Codes;
            }
            if self.opts.deep && matches!(st.damage, IdxDamage::None | IdxDamage::Unreachable(_)) {
                self.recall(e, ie, &field, &spec, &index, seg);
            }
        }
        st
    }

    fn topology(&mut self, e: &SegmentEntry, ie: &IndexEntry, field: &str, t: GraphTopology, st: &mut IdxState) {
        let GraphTopology { kind, entry, layers, section } = t;
        let defects: u64 = layers.iter().map(|l| l.defects()).sum();
        if defects > 0 {
            let l: Vec<String> = layers
                .iter()
                .filter(|l| l.defects() > 0)
                .map(|l| {
                    format!(
                        "level {}: {} self loops, {} duplicate edges, {} out of range, {} over the degree bound, {} to nodes outside the level",
                        l.level, l.self_loops, l.duplicates, l.out_of_range, l.over_degree, l.foreign
                    )
                })
                .collect();
            self.f.push(Finding::new(Severity::Corrupt, &ie.file, section, format!("graph defects: {}", l.join("; "))));
            st.damage = IdxDamage::Broken;
        } else if let Some(base) = layers.first()
            && base.unreachable_live > 0
        {
            self.f.push(
                Finding::new(
                    Severity::Warning,
                    &ie.file,
                    section,
                    format!(
                        "{} live nodes are not reachable from the entry point {entry}; searches never return them (repair reconnects them)",
                        base.unreachable_live
                    ),
                )
                .expected(0, base.unreachable_live),
            );
            st.damage = IdxDamage::Unreachable(base.unreachable_ids.clone());
        }
        self.report.graphs.push(GraphReport {
            file: ie.file.clone(),
            segment: e.id,
            field: field.to_string(),
            kind: kind.into(),
            nodes: layers.first().map_or(0, |l| l.nodes),
            edges: layers.iter().map(|l| l.edges).sum(),
            entry,
            layers,
        });
    }

    /// Re-encodes the sketches of a sample of rows (all with `deep`) and compares with the
    /// stored ones. Returns true when they differ.
    fn sketches(&mut self, ie: &IndexEntry, index: &SegmentIndex, seg: &Segment) -> bool {
        let (Some(encodes), Some(rotation)) = (index.encodes(), index.rotation()) else { return false };
        let sketches = match encodes {
            Encodes::ListEntries { lists, sketches } => {
                return self.list_sketches(ie, index, seg, sketches, lists, rotation);
            }
            Encodes::Rows => index.sketches(),
        };
        let Some(sketches) = sketches else { return false };
        let col = vectors_of(seg, ie);
        let (mut y, mut tmp) = (vec![0f32; col.dim], Vec::new());
        let mut want = vec![0u64; sketch::words_per_row(col.dim)];
        let rows = sketches.rows().min(seg.rows());
        let sample = self.compare_sample(&ie.file, "sketches", rows, |r| {
            rotation.apply(&col.row_f32(r), &mut y, &mut tmp);
            sketch::encode(&y, index.meta().metric, &mut want);
            sketches.row_words(r as u32) == want
        });
        sample.first_mismatch.is_some()
    }

    /// Encodes the blocks of a sample of a quantized graph's nodes (all with `deep`) again
    /// from the segment's rows and the neighbours each names, and compares with the stored
    /// ones. Returns true when they differ.
    fn qg_blocks(&mut self, ie: &IndexEntry, index: &SegmentIndex, seg: &Segment) -> bool {
        let Some(g) = index.qg_graph() else { return false };
        let col = vectors_of(seg, ie);
        let k = kernels::best();
        let nodes = g.nodes().min(seg.rows());
        let sample = self.compare_sample(&ie.file, "quantized graph blocks", nodes, |r| {
            qg::reencode_block(k, &g, col, r as u32).is_some_and(|b| qg::same_block(g.layout, g.block(r as u32), &b))
        });
        sample.first_mismatch.is_some()
    }

    /// Re-encodes the sketches of a sample of IVF entries (all with `deep`) and compares
    /// with the stored ones. Returns true when they differ.
    fn list_sketches(
        &mut self,
        ie: &IndexEntry,
        index: &SegmentIndex,
        seg: &Segment,
        sk: ListSketches,
        lists: IvfView,
        rotation: &Rotation,
    ) -> bool {
        let col = vectors_of(seg, ie);
        let metric = index.meta().metric;
        let mut s = SketchScratch::default();
        let columns = sk.columns;
        let sample = self.compare_sample(&ie.file, "IVF list sketches", lists.ids.len(), |e| {
            let factors = ivf::sketches::encode_entry(rotation, metric, col, &lists, e, &mut s);
            let (bits, stored) = sk.entry(&lists, lists.list_of(e), e);
            let want = (0..columns).map(|p| (s.words()[p / 8] >> (8 * (p % 8))) as u8);
            bits.into_iter().eq(want) && stored.iter().zip(factors).all(|(a, b)| a.to_bits() == b.to_bits())
        });
        sample.first_mismatch.is_some()
    }

    /// Re-encodes a sample of `rows` (all with `deep`) through `same`, which says whether
    /// row `r`'s stored encoding matches; reports a finding on `section` of `file` when
    /// some do not.
    fn compare_sample(
        &mut self,
        file: &str,
        section: &str,
        rows: usize,
        mut same: impl FnMut(usize) -> bool,
    ) -> Sample {
        let mut s = Sample::default();
        for r in (0..rows).step_by(self.sample_step(rows)) {
            s.add(r, same(r));
        }
        self.report_sample(file, section, &s);
        s
    }

    /// Every how many rows of `rows` a sampled comparison looks (every row with `deep`).
    pub(super) fn sample_step(&self, rows: usize) -> usize {
        if self.opts.deep { 1 } else { (rows / self.opts.code_sample.max(1)).max(1) }
    }

    /// Reports a finding on `section` of `file` when rows of sample `s` differ.
    pub(super) fn report_sample(&mut self, file: &str, section: &str, s: &Sample) {
        if let Some(r) = s.first_mismatch {
            let (checked, mismatched) = (s.checked, s.mismatched);
            self.f.push(
                Finding::new(
                    Severity::Corrupt,
                    file,
                    section,
                    format!("stored {section} differ from the re-encoded originals (first at row {r})"),
                )
                .expected(format!("0 of {checked} rows"), format!("{mismatched} of {checked} rows")),
            );
        }
    }

    /// Re-encodes a sample of rows (all with `deep`) and compares with the stored codes.
    /// Returns true when they differ.
    fn codes(&mut self, e: &SegmentEntry, ie: &IndexEntry, field: &str, index: &SegmentIndex, seg: &Segment) -> bool {
        let (Some(codes), Some(qz), Some(encodes)) = (index.codes(), index.quantizer(), index.encodes()) else {
            return false;
        };
        let col = vectors_of(seg, ie);
        // IVF codes are per list entry: the residual of the entry's row to its centroid.
        let (rows, lists) = match encodes {
            Encodes::Rows => (codes.rows().min(seg.rows()), None),
            Encodes::ListEntries { lists, .. } => (codes.rows(), Some(lists)),
        };
        let cb = qz.code_bytes();
        let per = crate::index::quant::PARAMS_PER_ROW;
        let (mut buf, mut params, mut scratch) = (vec![0u8; cb], vec![0f32; per], Default::default());
        let mut entry_scratch = crate::index::ivf::EntryScratch::default();
        let metric = index.meta().metric;
        let Sample { checked, mismatched, first_mismatch: first } = self.compare_sample(&ie.file, "codes", rows, |r| {
            match &lists {
                Some(l) => {
                    crate::index::ivf::encode_entry(qz, metric, col, l, r, &mut buf, &mut params, &mut entry_scratch)
                }
                None => qz.encode(&col.row_f32(r), &mut buf, &mut params, &mut scratch),
            }
            let same_codes = r < codes.rows() && codes.row(r) == &buf[..];
            let same_params = codes
                .params
                .get(r * per..(r + 1) * per)
                .is_some_and(|p| p.iter().zip(&params).all(|(a, b)| a.to_bits() == b.to_bits()));
            same_codes && same_params
        });
        self.report.codes.push(CodesReport {
            file: ie.file.clone(),
            segment: e.id,
            field: field.to_string(),
            quantize: qz.kind().name().into(),
            rotated: qz.rotation().is_some(),
            rows: rows as u64,
            checked,
            mismatched,
            first_mismatch: first,
        });
        first.is_some()
    }

    /// Index search against exact search on stored vectors used as queries.
    fn recall(
        &mut self,
        e: &SegmentEntry,
        ie: &IndexEntry,
        field: &str,
        spec: &VectorSpec,
        index: &SegmentIndex,
        seg: &Segment,
    ) {
        let col = vectors_of(seg, ie);
        let rows = seg.rows();
        let k = self.opts.recall_k.max(1);
        // The field's defaults, as a query that gives no knob searches.
        let ef = spec.index.knob_default(Knob::Ef).unwrap_or(k);
        let refine = spec.index.knob_default(Knob::Refine).unwrap_or(0);
        let nprobe = spec.index.knob_default(Knob::Nprobe).unwrap_or(0);
        let beam_width = spec.index.knob_default(Knob::BeamWidth).unwrap_or(1);
        let kern = kernels::best();
        // Rows without a vector are never results; exact search skips them, so the index
        // search is restricted the same way.
        let valid: Option<RoaringBitmap> = (0..rows)
            .any(|r| !col.validity.is_valid(r))
            .then(|| (0..rows as u32).filter(|&r| col.validity.is_valid(r as usize)).collect());
        let step = (rows / self.opts.recall_queries.max(1)).max(1);
        let (mut queries, mut found, mut possible) = (0u64, 0u64, 0u64);
        for r in (0..rows).step_by(step).filter(|&r| col.validity.is_valid(r)).take(self.opts.recall_queries) {
            let raw = col.row_f32(r);
            let prepared = PreparedQuery::from_row(spec.metric, &col, r);
            let mut exact = TopK::new(k);
            flat::scan(kern, &col, rows, &prepared, None, 0, &mut exact);
            let mut approx = TopK::new(k);
            let p = SearchParams {
                k,
                ef: ef.max(k),
                refine,
                allowed: valid.as_ref(),
                position: 0,
                route: Default::default(),
                nprobe,
                target_recall: None,
                beam_width,
            };
            // A disk index reads its node blocks here; a damaged one fails the search.
            if let Err(e) = index.search(col, &prepared, &raw, p, &mut approx) {
                self.f.push(Finding::new(Severity::Corrupt, &ie.file, "", format!("index search failed: {e}")));
                return;
            }
            let truth: HashSet<u32> = exact.into_sorted().into_iter().map(|c| c.row).collect();
            found += approx.into_sorted().iter().filter(|c| truth.contains(&c.row)).count() as u64;
            possible += truth.len() as u64;
            queries += 1;
        }
        if queries == 0 {
            return;
        }
        let recall = found as f64 / possible.max(1) as f64;
        if recall < 0.8 {
            self.f.push(
                Finding::new(
                    Severity::Warning,
                    &ie.file,
                    "",
                    format!("recall@{k} of index search is low on {queries} sampled queries"),
                )
                .expected("at least 0.80", format!("{recall:.3}")),
            );
        }
        self.report.recall.push(RecallReport {
            file: ie.file.clone(),
            segment: e.id,
            field: field.to_string(),
            index: spec.index.describe(),
            queries,
            k: k as u64,
            recall,
        });
    }
}

/// What [`Checker::compare_sample`] found: rows checked, how many differ, the first.
#[derive(Default)]
pub(super) struct Sample {
    checked: u64,
    mismatched: u64,
    first_mismatch: Option<u64>,
}

impl Sample {
    /// Counts row `r`, the same as stored or not.
    pub(super) fn add(&mut self, r: usize, same: bool) {
        self.checked += 1;
        if !same {
            self.mismatched += 1;
            self.first_mismatch.get_or_insert(r as u64);
        }
    }

    pub(super) fn differs(&self) -> bool {
        self.first_mismatch.is_some()
    }
}

/// The vector column an index entry indexes (the segment is read under the schema that
/// lists the entry, so its field is there).
fn vectors_of<'s>(seg: &'s Segment, ie: &IndexEntry) -> crate::storage::column::VectorColumn<'s> {
    seg.vector(seg.schema().position_of_id(ie.field).expect("the entry's field was checked"))
}
