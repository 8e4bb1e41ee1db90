//! `verify`, `repair` and `inspect` against damage in every file kind: a clean collection
//! verifies clean; a flipped byte or a cut anywhere is found, in the right file and
//! section, never with a panic; repair brings every such collection back to clean without
//! losing a row that was not in the damaged part. (The binary's exit statuses are in the
//! root `tests/verify.rs`.)

use std::collections::BTreeMap;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use xvec::storage::container;
use xvec::storage::segment::{NO_FIELD, SectionKind};
use xvec::storage::wal::sync_record::SYNC_NAME;
use xvec::verify::{self, Repair, RepairOptions, Report, Severity, VerifyOptions};
use xvec::{Collection, Doc, OpenOptions};

use crate::testutil::verify_fixture::{build, contents, schema};
use crate::testutil::{copy_dir, wal_frames};

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != "LOCK")
        .collect();
    v.sort();
    v
}

fn quick() -> VerifyOptions {
    VerifyOptions::default().threads(1).attempts(1)
}

fn problems(r: &Report) -> Vec<String> {
    r.findings
        .iter()
        .filter(|f| f.severity.is_problem())
        .map(|f| format!("{} [{}] @{:?}: {}", f.file, f.section, f.offset, f.what))
        .collect()
}

#[test]
fn a_fresh_collection_verifies_clean_with_graphs_codes_and_recall() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), 40);
    let r = verify::run(dir.path(), &VerifyOptions::default().deep(true)).unwrap();
    assert!(r.is_clean(), "{:?}", problems(&r));
    assert_eq!(r.count(Severity::Warning), 0, "{:?}", r.findings);
    let kinds: Vec<&str> = r.graphs.iter().map(|g| g.kind.as_str()).collect();
    assert_eq!(kinds, ["hnsw", "vamana"]);
    for g in &r.graphs {
        assert_eq!(g.nodes, 40, "{g:?}");
        assert_eq!(g.unreachable_live(), 0, "{g:?}");
        assert!(g.layers.iter().all(|l| l.defects() == 0), "{g:?}");
    }
    // HNSW over int8 codes, Vamana over one-bit RaBitQ codes read from its sketches.
    assert_eq!(r.codes.len(), 2);
    assert!(r.codes.iter().all(|c| (c.checked, c.mismatched) == (40, 0)), "{:?}", r.codes);
    assert_eq!(r.recall.len(), 2);
    assert!(r.recall.iter().all(|x| x.recall >= 0.9), "{:?}", r.recall);
    assert_eq!(r.wal.as_ref().map(|w| w.records), Some(21));
    assert!(r.stats.bytes_checksummed > 0 && r.stats.mb_per_s > 0.0);
}

/// Where the byte at `offset` of a pristine file lies, as verify should name it: `None`
/// for the padding between sections (named by the section after it).
fn expected_section(name: &str, bytes: &[u8], offset: usize) -> Option<String> {
    let schema = schema();
    let kind = xvec::storage::FileKind::of_name(name);
    match kind {
        Some(k @ (xvec::storage::FileKind::Segment | xvec::storage::FileKind::Index)) => {
            let (_, table) = container::read(Path::new(name), bytes, k, |_| true).unwrap();
            if offset < 32 {
                return Some("header".into());
            }
            if offset < container::TABLE_AT + table.len() * container::ENTRY_LEN {
                return Some("section table".into());
            }
            // A section's bytes, or its block CRCs in the block table.
            let s = table.iter().find(|s| {
                ((offset as u64) >= s.offset && (offset as u64) < s.offset + s.len) || s.list_range().contains(&offset)
            })?;
            let scalar = name.ends_with("-inv.idx") || name.ends_with("-rng.idx");
            Some(if k == xvec::storage::FileKind::Index && scalar {
                xvec::index::scalar::section_name(s.kind).unwrap().to_string()
            } else if k == xvec::storage::FileKind::Index && name.ends_with("-fts.idx") {
                xvec::index::fulltext::section_name(s.kind).unwrap().to_string()
            } else if k == xvec::storage::FileKind::Index && name.ends_with("-spi.idx") {
                xvec::index::sparse_index::section_name(s.kind).unwrap().to_string()
            } else if k == xvec::storage::FileKind::Index {
                xvec::index::segment_index::section_name(s.kind).unwrap().to_string()
            } else {
                let kind = SectionKind::from_code(s.kind).unwrap().name();
                if s.field == NO_FIELD {
                    kind.to_string()
                } else {
                    format!("{kind} of `{}`", schema.field(s.field as usize).name)
                }
            })
        }
        Some(xvec::storage::FileKind::Manifest | xvec::storage::FileKind::Deletes) => Some(
            if offset < 32 {
                "header"
            } else if offset < 48 {
                "body header"
            } else {
                "body"
            }
            .into(),
        ),
        _ => Some(if offset < xvec::storage::wal::WAL_HEADER_LEN { "header".into() } else { "frame".into() }),
    }
}

/// The corruption matrix: every byte of every file flipped in turn, and cuts at a few
/// offsets. Verify must return (no panic), and every change outside the WAL's last frame
/// must be a problem named in the right file and section.
#[test]
fn every_flipped_byte_and_cut_is_found_in_its_file_and_section() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), 12);
    let opts = quick();
    for name in names(dir.path()) {
        let path = dir.path().join(&name);
        let original = std::fs::read(&path).unwrap();
        let is_wal = name.starts_with("WAL-");
        let frames = if is_wal { wal_frames(&original) } else { Vec::new() };
        // In place: rewriting whole files costs more than verifying them.
        let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        for at in 0..original.len() {
            file.write_at(&[original[at] ^ 0x5A], at as u64).unwrap();
            let r = verify::run(dir.path(), &opts).unwrap_or_else(|e| panic!("{name} byte {at}: {e}"));
            file.write_at(&[original[at]], at as u64).unwrap();
            let last_frame = is_wal && frames.last().is_some_and(|&f| at >= f);
            if name == SYNC_NAME {
                // Its damage loses nothing; it must never pass for a loss, and a damaged
                // header is said (a damaged slot falls back to the other one).
                assert!(r.is_clean(), "{name} byte {at}: {:?}", r.findings);
                if at < 32 {
                    assert!(r.findings.iter().any(|f| f.file == name), "{name} byte {at}: {:?}", r.findings);
                }
                continue;
            }
            if last_frame {
                assert!(r.findings.iter().any(|f| f.file == name), "{name} byte {at}: torn tail not reported");
                continue;
            }
            let mine: Vec<_> = r.findings.iter().filter(|f| f.severity.is_problem() && f.file == name).collect();
            assert!(!mine.is_empty(), "{name} byte {at} went unnoticed: {:?}", r.findings);
            match expected_section(&name, &original, at) {
                _ if name == "CURRENT" => {}
                None => assert!(mine.iter().any(|f| f.what.contains("padding")), "{name} byte {at}: {mine:?}"),
                Some(s) if s == "body header" => {
                    assert!(mine.iter().any(|f| f.section.starts_with("body")), "{name} byte {at}: {mine:?}")
                }
                Some(s) if s == "frame" => {
                    let frame = frames.iter().rev().find(|&&f| f <= at).copied().unwrap() as u64;
                    assert!(
                        mine.iter().any(|f| f.section == "frame" && f.offset == Some(frame)),
                        "{name} byte {at} (frame {frame}): {mine:?}"
                    );
                }
                Some(s) => assert!(mine.iter().any(|f| f.section == s), "{name} byte {at}, expected {s}: {mine:?}"),
            }
        }
        for cut in
            [0, 1, 31, 32, 47, original.len() / 2, original.len() - 1].into_iter().filter(|&c| c < original.len())
        {
            std::fs::write(&path, &original[..cut]).unwrap();
            let r = verify::run(dir.path(), &opts).unwrap_or_else(|e| panic!("{name} cut {cut}: {e}"));
            if (!is_wal || cut < 32) && name != SYNC_NAME {
                assert!(
                    r.findings.iter().any(|f| f.severity.is_problem() && f.file == name),
                    "{name} cut at {cut} went unnoticed: {:?}",
                    r.findings
                );
            }
        }
        std::fs::write(&path, &original).unwrap();
    }
    assert!(verify::run(dir.path(), &opts).unwrap().is_clean());
}

/// The file a key's live version is in, for the collection `build(dir, 12)` makes: keys
/// 0..12 were optimized into segment 1 (kept, indexed), 12..18 flushed into segment 2, the rest is in
/// the WAL.
fn home(key: &str) -> &'static str {
    match key[1..].parse::<usize>().unwrap() {
        0..12 => "SEG-000001.xseg",
        12..18 => "SEG-000002.xseg",
        _ => "WAL-000003.log",
    }
}

/// Corrupts a copy of `pristine`, repairs it, and checks that it verifies clean and that
/// every row outside what repair reports lost is present with its values.
fn round_trip(pristine: &Path, model: &BTreeMap<String, Doc>, name: &str, what: &str, corrupt: impl Fn(&Path)) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("c");
    copy_dir(pristine, &dir);
    corrupt(&dir.join(name));
    let before = verify::run(&dir, &quick()).unwrap();
    let mut repair = Repair::begin(&dir, RepairOptions::default().concurrency(1).schema(None)).unwrap();
    if repair.plan().blocked.is_some() {
        // Nothing left holds the schema (the manifest was cut inside it): the user gives it.
        drop(repair);
        repair = Repair::begin(&dir, RepairOptions::default().concurrency(1).schema(Some(schema()))).unwrap();
    }
    let plan = repair.plan().clone();
    let out = repair.apply().unwrap_or_else(|e| panic!("{name} {what}: {e}\nplan: {plan:#?}"));
    let ctx =
        || format!("{name} {what}\nbefore: {:#?}\nplan: {plan:#?}\nafter: {:#?}", before.findings, out.after.findings);
    assert!(out.after.is_clean(), "{}", ctx());
    let again = verify::run(&dir, &quick()).unwrap();
    assert!(again.is_clean() && again.count(Severity::Warning) == 0, "{}\nagain: {:?}", ctx(), again.findings);
    // What repair may have given up: the keys it lists, or every key of a file whose
    // loss it reports without keys; a truncated torn tail takes the WAL's last record.
    let mut affected: Vec<String> = Vec::new();
    let mut files: Vec<&str> = Vec::new();
    for l in &out.losses {
        affected.extend(l.keys.iter().cloned());
        if l.keys.is_empty() {
            files.push(l.file.as_str());
        }
    }
    if before.wal.as_ref().is_some_and(|w| w.torn.is_some()) {
        files.push("WAL-000003.log");
    }
    let now = contents(&dir);
    for (k, d) in model {
        if affected.contains(k) || files.contains(&home(k)) {
            continue;
        }
        assert_eq!(now.get(k), Some(d), "key {k} after {}", ctx());
    }
    let lost_keys = out.losses.iter().any(|l| !l.keys.is_empty() || l.rows > 0);
    assert_eq!(!out.losses.is_empty(), lost_keys || out.losses.iter().any(|l| l.rows == 0), "{}", ctx());
}

/// Repair after each kind of damage to each file: verify is clean afterwards and no row
/// outside the damaged part is lost.
#[test]
fn repair_restores_a_clean_collection_after_any_single_corruption() {
    let tmp = tempfile::tempdir().unwrap();
    let pristine = tmp.path().join("pristine");
    build(&pristine, 12);
    let model = contents(&pristine);
    for name in names(&pristine) {
        let len = std::fs::metadata(pristine.join(&name)).unwrap().len() as usize;
        let step = (len / 9).max(1);
        for at in (0..len).step_by(step) {
            round_trip(&pristine, &model, &name, &format!("byte {at}"), |p| {
                let f = std::fs::OpenOptions::new().read(true).write(true).open(p).unwrap();
                let mut b = [0u8];
                f.read_at(&mut b, at as u64).unwrap();
                f.write_at(&[b[0] ^ 0x5A], at as u64).unwrap();
            });
        }
        for cut in [len / 2, len - 1] {
            round_trip(&pristine, &model, &name, &format!("cut at {cut}"), |p| {
                std::fs::OpenOptions::new().write(true).open(p).unwrap().set_len(cut as u64).unwrap();
            });
        }
        if name != "CURRENT" {
            round_trip(&pristine, &model, &name, "removed", |p| std::fs::remove_file(p).unwrap());
        }
    }
}

/// Fuzzing the file readers: valid files damaged at random (bytes overwritten, cut,
/// garbage appended) and plain random bytes. Every reader returns Ok or Err, never
/// panics; verify always returns a report, and repair always leaves a clean collection.
mod fuzz {
    use std::sync::OnceLock;

    use proptest::prelude::*;
    use xvec::index::quant::rotation::Rotation;
    use xvec::index::segment_index::{IndexTarget, MemoryShare, SegmentIndex};
    use xvec::storage::manifest::Manifest;
    use xvec::storage::segment::Segment;
    use xvec::storage::{FileKind, deletes, wal};

    use super::*;

    /// A collection directory and its files' names and bytes.
    type Seeds = (tempfile::TempDir, PathBuf, Vec<(String, Vec<u8>)>);

    /// A small collection built once; its files are the seeds the cases damage.
    fn seeds() -> (&'static Path, &'static [(String, Vec<u8>)]) {
        static SEEDS: OnceLock<Seeds> = OnceLock::new();
        let (_, dir, files) = SEEDS.get_or_init(|| {
            let tmp = tempfile::tempdir().unwrap();
            let dir = tmp.path().join("seed");
            build(&dir, 12);
            let files = names(&dir).into_iter().map(|n| (n.clone(), std::fs::read(dir.join(&n)).unwrap())).collect();
            (tmp, dir, files)
        });
        (dir, files)
    }

    fn seed(prefix: &str) -> &'static [u8] {
        &seeds().1.iter().find(|(n, _)| n.starts_with(prefix) || n.ends_with(prefix)).unwrap().1
    }

    /// Damage: up to 8 bytes overwritten at positions taken modulo the length, an optional
    /// cut, optional garbage at the end.
    fn damage() -> impl Strategy<Value = (Vec<(usize, u8)>, Option<usize>, Vec<u8>)> {
        (
            proptest::collection::vec((any::<usize>(), any::<u8>()), 0..8),
            proptest::option::of(any::<usize>()),
            proptest::collection::vec(any::<u8>(), 0..4),
        )
    }

    fn apply(bytes: &[u8], (edits, cut, tail): &(Vec<(usize, u8)>, Option<usize>, Vec<u8>)) -> Vec<u8> {
        let mut b = bytes.to_vec();
        for &(at, v) in edits {
            if !b.is_empty() {
                let n = b.len();
                b[at % n] = v;
            }
        }
        if let Some(c) = cut {
            b.truncate(c % (b.len() + 1));
        }
        b.extend_from_slice(tail);
        b
    }

    fn config(cases: u32) -> ProptestConfig {
        ProptestConfig { cases, ..ProptestConfig::default() }
    }

    proptest! {
        #![proptest_config(config(256))]

        #[test]
        fn manifest_decoder(d in damage(), raw in proptest::collection::vec(any::<u8>(), 0..300)) {
            let p = Path::new("MANIFEST-000004");
            let _ = Manifest::decode(p, &apply(seed("MANIFEST-"), &d));
            let _ = Manifest::decode(p, &raw);
        }

        #[test]
        fn delete_file_decoder(d in damage(), raw in proptest::collection::vec(any::<u8>(), 0..200)) {
            let p = Path::new("SEG-000001-000004.del");
            let _ = deletes::decode(p, &apply(seed(".del"), &d), 2, 12);
            let _ = deletes::decode(p, &raw, 2, 12);
        }

        #[test]
        fn wal_reader(d in damage(), raw in proptest::collection::vec(any::<u8>(), 0..300)) {
            let p = Path::new("WAL-000003.log");
            let m = xvec::storage::manifest::load(seeds().0).unwrap();
            let schema = m.schema(p).unwrap();
            let _ = wal::read(p, &apply(seed("WAL-"), &d), Some((m.wal_seq, m.wal_salt)), &schema);
            let _ = wal::read(p, &raw, None, &schema);
        }

        #[test]
        fn container_table_reader(d in damage(), raw in proptest::collection::vec(any::<u8>(), 0..300)) {
            for (name, kind) in [("SEG-000001.xseg", FileKind::Segment), ("f002-vec.idx", FileKind::Index)] {
                let _ = container::read(Path::new(name), &apply(seed(name), &d), kind, |_| true);
            }
            let _ = container::read(Path::new("x"), &raw, FileKind::Segment, |_| true);
            let _ = Rotation::decode(&raw, 4);
        }
    }

    proptest! {
        #![proptest_config(config(48))]

        /// Whole-file readers through the file system, with every check on.
        #[test]
        fn segment_and_index_open(d in damage(), field in 2u16..4) {
            let tmp = tempfile::tempdir().unwrap();
            let s = schema();
            let seg = tmp.path().join("SEG-000001.xseg");
            std::fs::write(&seg, apply(seed("SEG-000001.xseg"), &d)).unwrap();
            for mmap in [true, false] {
                let _ = Segment::open(&seg, std::sync::Arc::new(s.clone()), mmap, true);
            }
            let name = format!("f00{field}-vec.idx");
            let idx = tmp.path().join(&name);
            std::fs::write(&idx, apply(seed(&name), &d)).unwrap();
            let spec = s.field(field as usize).as_vector().unwrap();
            let _ = SegmentIndex::open(IndexTarget { path: &idx, segment_id: 1, field, spec, rows: 12 }, true, true, MemoryShare::Cache(0));
        }

        /// Damage to any one file: verify reports, repair leaves a clean collection.
        #[test]
        fn verify_and_repair_any_damaged_file(which in any::<usize>(), d in damage()) {
            let (pristine, files) = seeds();
            let (name, bytes) = &files[which % files.len()];
            let tmp = tempfile::tempdir().unwrap();
            let dir = tmp.path().join("c");
            copy_dir(pristine, &dir);
            std::fs::write(dir.join(name), apply(bytes, &d)).unwrap();
            let r = verify::run(&dir, &quick());
            prop_assert!(r.is_ok(), "{name}: {r:?}");
            let mut repair = Repair::begin(&dir, RepairOptions::default().concurrency(1).schema(None)).unwrap();
            if repair.plan().blocked.is_some() {
                drop(repair);
                repair = Repair::begin(&dir, RepairOptions::default().concurrency(1).schema(Some(schema()))).unwrap();
            }
            let out = repair.apply().unwrap();
            prop_assert!(out.after.is_clean(), "{name} {d:?}: {:#?}", out.after.findings);
            let back = Collection::open(&dir, &OpenOptions::read_only());
            prop_assert!(back.is_ok(), "{name} {d:?}: {:?}", back.err());
        }
    }
}

/// Found by `fuzz::verify_and_repair_any_damaged_file`: a manifest damaged in two places
/// (so no single byte explains it) whose schema still parses, but is invalid or does not
/// fit the segments, blocked repair even when the user gave the schema. Such a schema is
/// now passed over.
#[test]
fn regression_a_damaged_schema_that_still_parses_does_not_block_repair() {
    let tmp = tempfile::tempdir().unwrap();
    let pristine = tmp.path().join("pristine");
    build(&pristine, 12);
    let model = contents(&pristine);
    let manifest = names(&pristine).into_iter().find(|n| n.starts_with("MANIFEST-")).unwrap();
    let text = std::fs::read(pristine.join(&manifest)).unwrap();
    let body = String::from_utf8_lossy(&text[48..]).into_owned();
    // An invalid field name, or a dimension the segments contradict; plus damage after
    // the schema that makes the whole body unparseable.
    for (from, to) in [("\"tag\"", "\"t-g\""), ("\"dim\": 4", "\"dim\": 6")] {
        assert!(body.contains(from), "{from}");
        let damaged = body.replacen(from, to, 1).replacen("\"segments\"", "\"segmentz\"", 1);
        assert_ne!(damaged, body);
        let mut bytes = text[..48].to_vec();
        bytes.extend_from_slice(damaged.as_bytes());
        round_trip(&pristine, &model, &manifest, &format!("{from} -> {to}"), |p| std::fs::write(p, &bytes).unwrap());
    }
}

/// Damage confined to the codes or sketches keeps the graph (both are re-encoded from the
/// originals);
/// a node no link reaches is reported as a warning and linked back in by repair.
#[test]
fn repair_re_encodes_codes_and_reconnects_unreachable_nodes() {
    use xvec::index::hnsw::NONE;
    use xvec::index::segment_index::{self, IndexTarget, MemoryShare, SegmentIndex};
    use xvec::storage::column::SegmentView;
    use xvec::storage::segment::Segment;

    let tmp = tempfile::tempdir().unwrap();
    let pristine = tmp.path().join("pristine");
    build(&pristine, 40);
    let model = contents(&pristine);
    let idx = "SEG-000001-f002-vec.idx";

    // One byte of the codes section, or of the sketches.
    let bytes = std::fs::read(pristine.join(idx)).unwrap();
    let (_, table) = container::read(Path::new(idx), &bytes, xvec::storage::FileKind::Index, |_| true).unwrap();
    for section in ["codes", "sketches"] {
        let at = table.iter().find(|s| segment_index::section_name(s.kind) == Some(section)).unwrap().offset;
        let dir = tmp.path().join(section);
        copy_dir(&pristine, &dir);
        let f = std::fs::OpenOptions::new().write(true).open(dir.join(idx)).unwrap();
        f.write_at(&[bytes[at as usize + 3] ^ 0x10], at + 3).unwrap();
        let r = Repair::begin(&dir, RepairOptions::default().concurrency(1).schema(None)).unwrap();
        assert_eq!(r.plan().actions.len(), 1, "{section}: {:?}", r.plan());
        assert_eq!(r.plan().actions[0].what, "re-encode the codes and sketches from the originals", "{section}");
        let out = r.apply().unwrap();
        assert!(out.after.is_clean() && out.losses.is_empty(), "{section}: {:?}", out.after.findings);
        assert_eq!(contents(&dir), model, "{section}");
    }

    // Unlink one node from every list that points to it.
    let dir = tmp.path().join("graph");
    copy_dir(&pristine, &dir);
    let s = schema();
    let spec = s.field(2).as_vector().unwrap();
    let seg = Segment::open(&dir.join("SEG-000001.xseg"), std::sync::Arc::new(s.clone()), true, true).unwrap();
    let path = dir.join(idx);
    let target = IndexTarget { path: &path, segment_id: 1, field: 2, spec, rows: seg.rows() };
    let index = SegmentIndex::open(target, true, true, MemoryShare::Cache(0)).unwrap();
    let g = index.graph().unwrap();
    let mut graph = g.to_graph();
    let victim =
        (0..seg.rows() as u32).find(|&n| n != g.entry && g.levels[n as usize] == 0 && n != 1 && n != 2).unwrap();
    for block in graph.base.chunks_exact_mut(g.m0 + 1) {
        let count = block[0] as usize;
        let kept: Vec<u32> = block[1..1 + count].iter().copied().filter(|&v| v != victim).collect();
        block[0] = kept.len() as u32;
        block[1..].fill(NONE);
        block[1..1 + kept.len()].copy_from_slice(&kept);
    }
    drop(index);
    let graph = Some(xvec::index::graph_index::GraphIndexView::Hnsw(graph.view()));
    segment_index::write_with_graph_index(target, seg.vector(2), graph).unwrap();
    let report = verify::run(&dir, &quick()).unwrap();
    assert!(report.is_clean(), "{:?}", report.findings);
    let warning = report.findings.iter().find(|f| f.severity == Severity::Warning).unwrap();
    assert!(warning.file == idx && warning.what.starts_with("1 live nodes are not reachable"), "{warning:?}");
    let r = Repair::begin(&dir, RepairOptions::default().concurrency(1).schema(None)).unwrap();
    assert_eq!(r.plan().actions[0].what, "reconnect 1 unreachable nodes (or rebuild the graph)");
    let out = r.apply().unwrap();
    // Only the note that lost+found/ holds what repair replaced.
    assert!(
        out.after.findings.iter().all(|f| f.file == "lost+found" && f.severity == Severity::Info),
        "{:?}",
        out.after.findings
    );
    assert_eq!(contents(&dir), model);
}

/// An orphan left under the name repair writes next (a crashed flush's segment) is moved
/// aside first, not overwritten.
#[test]
fn repair_moves_orphans_before_writing_under_their_names() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("c");
    build(&dir, 12);
    let model = contents(&dir);
    std::fs::write(dir.join("SEG-000003.xseg"), b"left by a crash").unwrap();
    let f = std::fs::OpenOptions::new().write(true).open(dir.join("SEG-000002.xseg")).unwrap();
    f.write_at(b"Y", 0).unwrap();
    let out = Repair::begin(&dir, RepairOptions::default().concurrency(1).schema(None)).unwrap().apply().unwrap();
    assert!(out.after.is_clean() && out.losses.is_empty(), "{:?} {:?}", out.after.findings, out.losses);
    assert_eq!(contents(&dir), model);
    let kept = dir.join("lost+found").join(format!("repair-{:06}", out.generation.unwrap())).join("SEG-000003.xseg");
    assert_eq!(std::fs::read(kept).unwrap(), b"left by a crash");
}

/// The corruption matrix of an IVF index (RaBitQ residual codes, SOAR spills): every byte
/// of its file flipped in turn is found in the right section (centroids, list offsets,
/// list entries, list sketches, codes, ...), and repair rebuilds a damaged file so the
/// collection verifies clean with every row searchable.
#[test]
fn every_flipped_byte_of_an_ivf_index_is_found_and_repaired() {
    use xvec::{Field, IndexParams, IvfParams, Metric, OptimizeOptions, Quantize, Query, Schema, VectorType};
    let dim = 4;
    let ivf = IvfParams::default().nlist(4).nprobe(4).soar(true).quantize(Quantize::Rabitq).bits(4);
    let schema = Schema::builder("ivf")
        .field(Field::vector("v", VectorType::Fp32, dim, Metric::Cosine).index(IndexParams::Ivf(ivf)))
        .build()
        .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let pristine = tmp.path().join("pristine");
    let c = Collection::create(&pristine, schema, Default::default()).unwrap();
    let vectors = crate::testutil::random_vectors(3, 160, dim as usize);
    c.insert(vectors.iter().enumerate().map(|(i, v)| Doc::new(format!("k{i:03}")).set("v", v.clone())).collect())
        .unwrap();
    c.optimize(&OptimizeOptions::default().concurrency(1)).unwrap();
    c.close().unwrap();
    let name = names(&pristine).into_iter().find(|n| n.ends_with("-vec.idx")).expect("an index file");
    let path = pristine.join(&name);
    let original = std::fs::read(&path).unwrap();
    let sections: std::collections::BTreeSet<String> =
        (0..original.len()).filter_map(|at| expected_section(&name, &original, at)).collect();
    for s in ["IVF centroids", "IVF list offsets", "IVF list entries", "IVF list sketches", "codes", "code params"] {
        assert!(sections.contains(s), "{s} not in {sections:?}");
    }
    let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    for at in 0..original.len() {
        file.write_at(&[original[at] ^ 0x5A], at as u64).unwrap();
        let r = verify::run(&pristine, &quick()).unwrap_or_else(|e| panic!("byte {at}: {e}"));
        file.write_at(&[original[at]], at as u64).unwrap();
        let mine: Vec<_> = r.findings.iter().filter(|f| f.severity.is_problem() && f.file == name).collect();
        match expected_section(&name, &original, at) {
            None => assert!(mine.iter().any(|f| f.what.contains("padding")), "byte {at}: {mine:?}"),
            Some(s) => assert!(mine.iter().any(|f| f.section == s), "byte {at}, expected {s}: {mine:?}"),
        }
    }
    assert!(verify::run(&pristine, &quick()).unwrap().is_clean());

    for at in [original.len() / 3, original.len() / 2, original.len() - 5] {
        let dir = tmp.path().join(format!("c{at}"));
        copy_dir(&pristine, &dir);
        let damaged = dir.join(&name);
        let mut bytes = std::fs::read(&damaged).unwrap();
        bytes[at] ^= 0x5A;
        std::fs::write(&damaged, &bytes).unwrap();
        assert!(!verify::run(&dir, &quick()).unwrap().is_clean(), "byte {at}");
        let repair = Repair::begin(&dir, RepairOptions::default().concurrency(1)).unwrap();
        let out = repair.apply().unwrap();
        assert!(out.after.is_clean() && out.losses.is_empty(), "byte {at}: {:?}", out.after.findings);
        let c = Collection::open(&dir, &OpenOptions::read_only()).unwrap();
        for (i, v) in vectors.iter().enumerate().step_by(17) {
            let hits = c.query(&Query::vector(v.clone()).k(1).nprobe(4)).unwrap();
            assert_eq!(hits[0].key, format!("k{i:03}"), "byte {at}");
        }
    }
}

/// A quantized graph's index is a whole citizen of verify and repair: a byte of its file
/// flipped (one in seven, every part of a block included) or the file cut is found in the
/// right section; blocks that pass their CRC but differ from the re-encoded rows, and a
/// node no block reaches, are found too; repair rebuilds the index, every row searchable.
#[test]
fn every_flipped_byte_of_a_qg_index_is_found_and_repaired() {
    use xvec::index::qg::{NONE, QgGraph};
    use xvec::index::segment_index::{self, IndexTarget, MemoryShare, SegmentIndex};
    use xvec::storage::column::SegmentView;
    use xvec::storage::segment::Segment;
    use xvec::{Field, IndexParams, Metric, OptimizeOptions, QgParams, Query, Schema, VectorType};
    let dim = 8;
    let schema = Schema::builder("qg")
        .field(Field::vector("v", VectorType::Fp32, dim, Metric::L2).index(IndexParams::Qg(QgParams::default())))
        .build()
        .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let pristine = tmp.path().join("pristine");
    let c = Collection::create(&pristine, schema.clone(), Default::default()).unwrap();
    let vectors = crate::testutil::random_vectors(5, 48, dim as usize);
    c.insert(vectors.iter().enumerate().map(|(i, v)| Doc::new(format!("k{i:03}")).set("v", v.clone())).collect())
        .unwrap();
    c.optimize(&OptimizeOptions::default().concurrency(1)).unwrap();
    c.close().unwrap();
    let r = verify::run(&pristine, &VerifyOptions::default().deep(true)).unwrap();
    assert!(r.is_clean() && r.count(Severity::Warning) == 0, "{:?}", r.findings);
    assert_eq!(r.graphs.iter().map(|g| (g.kind.as_str(), g.nodes)).collect::<Vec<_>>(), [("qg", 48)]);
    assert!(r.recall.iter().all(|x| x.recall >= 0.9), "{:?}", r.recall);
    let name = names(&pristine).into_iter().find(|n| n.ends_with("-vec.idx")).expect("an index file");
    let path = pristine.join(&name);
    let original = std::fs::read(&path).unwrap();
    let sections: std::collections::BTreeSet<String> =
        (0..original.len()).filter_map(|at| expected_section(&name, &original, at)).collect();
    for s in ["quantized graph blocks", "quantized graph rotation", "meta"] {
        assert!(sections.contains(s), "{s} not in {sections:?}");
    }
    let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    for at in (0..original.len()).step_by(7) {
        file.write_at(&[original[at] ^ 0x5A], at as u64).unwrap();
        let r = verify::run(&pristine, &quick()).unwrap_or_else(|e| panic!("byte {at}: {e}"));
        file.write_at(&[original[at]], at as u64).unwrap();
        let mine: Vec<_> = r.findings.iter().filter(|f| f.severity.is_problem() && f.file == name).collect();
        match expected_section(&name, &original, at) {
            None => assert!(mine.iter().any(|f| f.what.contains("padding")), "byte {at}: {mine:?}"),
            Some(s) => assert!(mine.iter().any(|f| f.section == s), "byte {at}, expected {s}: {mine:?}"),
        }
    }
    for cut in [1, 47, original.len() / 2, original.len() - 1] {
        std::fs::write(&path, &original[..cut]).unwrap();
        let r = verify::run(&pristine, &quick()).unwrap_or_else(|e| panic!("cut {cut}: {e}"));
        assert!(r.findings.iter().any(|f| f.severity.is_problem() && f.file == name), "cut {cut}: {:?}", r.findings);
    }
    std::fs::write(&path, &original).unwrap();
    assert!(verify::run(&pristine, &quick()).unwrap().is_clean());

    // Blocks written with sound CRCs but wrong content: one factor changed, or one node
    // unlinked from every block that names it.
    let spec = schema.field(0).as_vector().unwrap().clone();
    let (seg_name, field) = ("SEG-000001.xseg", 0u16);
    assert!(name.contains("-f000-"), "{name}");
    for case in ["factor", "unlinked"] {
        let dir = tmp.path().join(case);
        copy_dir(&pristine, &dir);
        let seg = Segment::open(&dir.join(seg_name), std::sync::Arc::new(schema.clone()), true, true).unwrap();
        let path = dir.join(&name);
        let target = IndexTarget { path: &path, segment_id: 1, field, spec: &spec, rows: seg.rows() };
        let index = SegmentIndex::open(target, true, true, MemoryShare::Cache(0)).unwrap();
        let g = index.qg_graph().unwrap();
        let mut owned = QgGraph {
            layout: g.layout,
            metric: g.metric,
            entry: g.entry,
            blocks: g.blocks.to_vec(),
            rotation: g.rotation.clone(),
        };
        let (stride, ids) = (g.layout.stride(), g.layout.ids());
        let victim = (0..seg.rows() as u32).find(|&n| n != g.entry).unwrap();
        match case {
            "factor" => {
                let a = stride * 3 + g.layout.factors(1);
                owned.blocks[a] = (f32::from_bits(owned.blocks[a]) * 2.0 + 1.0).to_bits();
            }
            _ => {
                let mut touched = Vec::new();
                for (node, block) in owned.blocks.chunks_exact_mut(stride).enumerate() {
                    let list = &mut block[ids..ids + g.layout.degree];
                    let kept: Vec<u32> = list.iter().copied().filter(|&v| v != victim).collect();
                    if kept.len() < list.len() {
                        list.fill(NONE);
                        list[..kept.len()].copy_from_slice(&kept);
                        touched.push(node as u32);
                    }
                }
                // Their blocks as a build would have written them without the victim.
                let col = seg.vector(field as usize);
                let fresh: Vec<Vec<u32>> = touched
                    .iter()
                    .map(|&n| xvec::index::qg::reencode_block(xvec::kernels::best(), &owned.view(), col, n).unwrap())
                    .collect();
                for (&n, b) in touched.iter().zip(fresh) {
                    owned.blocks[n as usize * stride..(n as usize + 1) * stride].copy_from_slice(&b);
                }
            }
        }
        drop(index);
        segment_index::write_qg(target, seg.vector(field as usize), &owned).unwrap();
        let r = verify::run(&dir, &quick()).unwrap();
        let found = r.findings.iter().find(|f| f.file == name && f.section == "quantized graph blocks");
        match case {
            "factor" => assert!(
                found.is_some_and(|f| f.severity.is_problem() && f.what.contains("differ from the re-encoded")),
                "{:?}",
                r.findings
            ),
            _ => assert!(
                found.is_some_and(|f| f.severity == Severity::Warning && f.what.starts_with("1 live nodes")),
                "{:?}",
                r.findings
            ),
        }
        let out = Repair::begin(&dir, RepairOptions::default().concurrency(1)).unwrap().apply().unwrap();
        assert!(out.after.is_clean() && out.losses.is_empty(), "{case}: {:?}", out.after.findings);
        assert!(out.after.findings.iter().all(|f| f.file == "lost+found"), "{case}: {:?}", out.after.findings);
        let c = Collection::open(&dir, &OpenOptions::read_only()).unwrap();
        for (i, v) in vectors.iter().enumerate() {
            let hits = c.query(&Query::vector(v.clone()).k(1)).unwrap();
            assert_eq!(hits[0].key, format!("k{i:03}"), "{case}");
        }
    }
}
