//! The disk kind's index in verify and repair: a flipped byte anywhere in its file is
//! found in the right section, and one inside a node block is named by that block and its
//! file offset; blocks whose checksums hold but whose content is wrong (a vector that is
//! not the row's, a self loop, a node no block reaches) are found too; repair rebuilds the
//! index from the segment's rows, every row searchable again.

use std::os::unix::fs::FileExt;
use std::path::Path;

use xvec::index::disk::DiskGraph;
use xvec::index::segment_index::{self, IndexTarget, MemoryShare, SegmentIndex};
use xvec::index::vamana::{GraphView, NONE};
use xvec::storage::column::{SegmentView, VectorColumn, VectorData};
use xvec::storage::segment::Segment;
use xvec::verify::topology::disk_adjacency;
use xvec::verify::{self, Repair, RepairOptions, Severity, VerifyOptions};
use xvec::{Collection, DiskParams, Doc, Field, IndexParams, Metric, OpenOptions, OptimizeOptions, Query, Schema};

use crate::testutil::{copy_dir, random_vectors};

fn quick() -> VerifyOptions {
    VerifyOptions::default().threads(1).attempts(1)
}

const ROWS: usize = 200;

/// A collection of `ROWS` rows of dimension 8 with a disk index of degree 16 (39 nodes a
/// block, 6 blocks); its schema and vectors.
fn pristine(dir: &Path) -> (Schema, Vec<Vec<f32>>) {
    let disk = DiskParams::default().degree(16).build_list(32);
    let schema = Schema::builder("disk")
        .field(Field::vector("v", xvec::VectorType::Fp32, 8, Metric::L2).index(IndexParams::Disk(disk)))
        .build()
        .unwrap();
    let c = Collection::create(dir, schema.clone(), Default::default()).unwrap();
    let vectors = random_vectors(11, ROWS, 8);
    c.insert(vectors.iter().enumerate().map(|(i, v)| Doc::new(format!("k{i:03}")).set("v", v.clone())).collect())
        .unwrap();
    c.optimize(&OptimizeOptions::default().concurrency(1)).unwrap();
    c.close().unwrap();
    (schema, vectors)
}

fn index_name(dir: &Path) -> String {
    let mut names = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned());
    names.find(|n| n.ends_with("-vec.idx")).expect("an index file")
}

/// Repairs `dir` and checks every row is its own nearest neighbour again.
fn repaired(dir: &Path, vectors: &[Vec<f32>], case: &str) {
    let out = Repair::begin(dir, RepairOptions::default().concurrency(1)).unwrap().apply().unwrap();
    assert!(out.after.is_clean() && out.losses.is_empty(), "{case}: {:?}", out.after.findings);
    let r = verify::run(dir, &VerifyOptions::default().deep(true)).unwrap();
    assert!(r.is_clean() && r.recall.iter().all(|x| x.recall >= 0.9), "{case}: {:?} {:?}", r.findings, r.recall);
    let c = Collection::open(dir, &OpenOptions::read_only()).unwrap();
    for (i, v) in vectors.iter().enumerate() {
        let hits = c.query(&Query::vector(v.clone()).k(1)).unwrap();
        assert_eq!(hits[0].key, format!("k{i:03}"), "{case}");
    }
}

#[test]
fn every_flipped_byte_of_a_disk_index_is_found_by_block_and_repaired() {
    let tmp = tempfile::tempdir().unwrap();
    let clean = tmp.path().join("pristine");
    let (_, vectors) = pristine(&clean);
    let r = verify::run(&clean, &VerifyOptions::default().deep(true)).unwrap();
    assert!(r.is_clean() && r.count(Severity::Warning) == 0, "{:?}", r.findings);
    let graphs: Vec<_> = r.graphs.iter().map(|g| (g.kind.as_str(), g.nodes, g.unreachable_live())).collect();
    assert_eq!(graphs, [("disk", ROWS as u64, 0)]);
    assert!(r.recall.iter().all(|x| x.recall >= 0.9), "{:?}", r.recall);
    let name = index_name(&clean);
    let path = clean.join(&name);
    let original = std::fs::read(&path).unwrap();
    let (_, table) =
        xvec::storage::container::read(&path, &original, xvec::storage::FileKind::Index, |_| true).unwrap();
    let s = table.iter().find(|s| s.kind == 16).expect("the node blocks");
    let first = s.offset.next_multiple_of(4096) as usize;
    let blocks = ROWS.div_ceil(39);
    assert_eq!(s.len as usize, (blocks + 1) * 4096);
    let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    for at in (0..original.len()).step_by(5) {
        file.write_at(&[original[at] ^ 0x5A], at as u64).unwrap();
        let r = verify::run(&clean, &quick()).unwrap_or_else(|e| panic!("byte {at}: {e}"));
        file.write_at(&[original[at]], at as u64).unwrap();
        let mine: Vec<_> = r.findings.iter().filter(|f| f.severity.is_problem() && f.file == name).collect();
        assert!(!mine.is_empty(), "byte {at}: {:?}", r.findings);
        if (first..first + blocks * 4096).contains(&at) {
            // The block itself is named, at its offset, beside the container's finding.
            let b = (at - first) / 4096;
            let named = mine.iter().any(|f| {
                f.section == "disk node blocks"
                    && f.what == format!("node block {b}: checksum mismatch")
                    && f.offset == Some((first + b * 4096) as u64)
            });
            assert!(named, "byte {at}: {mine:?}");
        }
    }
    for cut in [1, 47, first + 4096, original.len() - 1] {
        std::fs::write(&path, &original[..cut]).unwrap();
        let r = verify::run(&clean, &quick()).unwrap_or_else(|e| panic!("cut {cut}: {e}"));
        assert!(r.findings.iter().any(|f| f.severity.is_problem() && f.file == name), "cut {cut}: {:?}", r.findings);
    }
    std::fs::write(&path, &original).unwrap();
    assert!(verify::run(&clean, &quick()).unwrap().is_clean());

    // A damaged block fails a query that reads it with the file and offset; repair
    // rebuilds the index from the rows.
    let dir = tmp.path().join("flipped");
    copy_dir(&clean, &dir);
    let mut bytes = original.clone();
    for b in 0..blocks {
        bytes[first + b * 4096 + 17] ^= 0x01;
    }
    std::fs::write(dir.join(&name), &bytes).unwrap();
    let ro = Collection::open(&dir, &OpenOptions::read_only().memory_budget(0)).unwrap();
    let err = ro.query(&Query::vector(vectors[0].clone()).k(3)).unwrap_err().to_string();
    assert!(err.contains(&name) && err.contains("checksum mismatch") && err.contains("offset"), "{err}");
    drop(ro);
    repaired(&dir, &vectors, "flipped");
}

/// Node blocks written with sound checksums but wrong content: verify finds each, in the
/// node blocks' section, and repair rebuilds the index.
#[test]
fn disk_blocks_with_sound_checksums_and_wrong_content_are_found_and_rebuilt() {
    let tmp = tempfile::tempdir().unwrap();
    let clean = tmp.path().join("pristine");
    let (schema, vectors) = pristine(&clean);
    let name = index_name(&clean);
    let spec = schema.field(0).as_vector().unwrap().clone();
    for case in ["vector", "self loop", "unlinked"] {
        let dir = tmp.path().join(case);
        copy_dir(&clean, &dir);
        let seg = Segment::open(&dir.join("SEG-000001.xseg"), std::sync::Arc::new(schema.clone()), true, true).unwrap();
        let col = seg.vector(0);
        let path = dir.join(&name);
        let target = IndexTarget { path: &path, segment_id: 1, field: 0, spec: &spec, rows: seg.rows() };
        let index = SegmentIndex::open(target, true, true, MemoryShare::Cache(0)).unwrap();
        let g: &DiskGraph = index.disk().unwrap();
        let (degree, medoid) = (g.layout().degree, g.medoid());
        let mut adjacency = disk_adjacency(g, |_, _| {}, |b, e| panic!("block {b}: {e}")).unwrap();
        drop(index);
        let stride = degree + 1;
        let victim = (0..ROWS as u32).find(|&n| n != medoid).unwrap();
        let mut rows: Vec<f32> = match col.data {
            VectorData::Fp32(d) => d.to_vec(),
            _ => unreachable!("an fp32 field"),
        };
        match case {
            "vector" => rows[0] += 1.0,
            "self loop" => adjacency[victim as usize * stride + 1] = victim,
            _ => {
                for list in adjacency.chunks_exact_mut(stride) {
                    let kept: Vec<u32> =
                        list[1..1 + list[0] as usize].iter().copied().filter(|&v| v != victim).collect();
                    list[1..].fill(NONE);
                    list[1..1 + kept.len()].copy_from_slice(&kept);
                    list[0] = kept.len() as u32;
                }
            }
        }
        let blocks = VectorColumn { data: VectorData::Fp32(&rows), ..col };
        let view = GraphView { degree, medoid, adjacency: &adjacency };
        segment_index::write_disk(target, col, blocks, view).unwrap();
        let r = verify::run(&dir, &quick()).unwrap();
        let found = r.findings.iter().find(|f| f.file == name && f.section == "disk node blocks");
        let what = match case {
            "vector" => "stored disk node blocks differ from the re-encoded originals (first at row 0)",
            "self loop" => "graph defects: level 0: 1 self loops",
            _ => "1 live nodes are not reachable",
        };
        let severity = if case == "unlinked" { Severity::Warning } else { Severity::Corrupt };
        assert!(found.is_some_and(|f| f.severity == severity && f.what.starts_with(what)), "{case}: {:?}", r.findings);
        drop(seg);
        repaired(&dir, &vectors, case);
    }
}
