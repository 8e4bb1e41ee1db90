use std::sync::Arc;

use super::MemSegment;
use crate::schema::{Field, Metric, ScalarType, Schema, VectorType};
use crate::value::{Row, Value};

fn schema(dim: u32) -> Schema {
    Schema::builder("m")
        .field(Field::scalar("n", ScalarType::Int64).nullable(true))
        .field(Field::vector("v", VectorType::Fp32, dim, Metric::L2))
        .build()
        .unwrap()
}

fn row(key: &str, n: i64, dim: u32) -> Row {
    Row { key: key.into(), values: vec![Value::Int64(n), Value::VectorFp32(vec![n as f32; dim as usize])] }
}

/// Every live (key, n) of a view, read through its chunks as a query would.
fn live(m: &MemSegment) -> Vec<(String, i64)> {
    let mut out = Vec::new();
    for i in 0..m.chunk_count() {
        let p = m.part(i).unwrap();
        for r in (0..p.view.rows()).filter(|&r| !p.deleted.contains(r as u32)) {
            let Value::Int64(n) = p.view.scalar(0).value(r) else { panic!("n is set") };
            out.push((p.view.keys().get_str(r).to_string(), n));
        }
    }
    out.sort();
    out
}

#[test]
fn appends_across_chunks_and_finds_every_key() {
    let s = schema(4);
    let mut m = MemSegment::new(&s);
    let n = m.chunk_rows * 3 + 7;
    for i in 0..n {
        m.put(&s, &row(&format!("k{i}"), i as i64, 4));
    }
    assert_eq!((m.len(), m.live_count(), m.chunk_count()), (n, n, 4));
    for i in (0..n).step_by(97) {
        let at = m.find(&format!("k{i}")).unwrap();
        let (view, local) = m.view(at);
        assert_eq!(view.keys().get_str(local), format!("k{i}"));
        assert_eq!(view.vector(1).value(local), Value::VectorFp32(vec![i as f32; 4]));
    }
    assert_eq!(m.find("nope"), None);
}

#[test]
fn a_held_view_sees_exactly_its_rows_while_the_writer_goes_on() {
    let s = schema(8);
    let mut m = MemSegment::new(&s);
    for i in 0..100 {
        m.put(&s, &row(&format!("k{i}"), i, 8));
    }
    let pinned = m.clone();
    let before = live(&pinned);
    // Upserts of pinned keys, deletes of pinned keys, new keys: none reach the pin.
    for i in 0..100 {
        m.put(&s, &row(&format!("k{i}"), 1000 + i, 8));
    }
    for i in 0..50 {
        assert!(m.delete(&format!("k{i}")));
    }
    for i in 100..5000 {
        m.put(&s, &row(&format!("k{i}"), i, 8));
    }
    assert_eq!(live(&pinned), before);
    assert_eq!(pinned.live_count(), 100);
    assert_eq!(pinned.find("k3").map(|r| pinned.view(r).1), Some(3));
    assert_eq!(pinned.find("k4000"), None);
    let (v, r) = pinned.view(pinned.find("k70").unwrap());
    assert_eq!(v.scalar(0).value(r), Value::Int64(70));
    assert_eq!(pinned.keys_with_prefix("k9").len(), 11);
    // The writer's view has the new versions.
    assert_eq!(m.find("k3"), None);
    let (v, r) = m.view(m.find("k70").unwrap());
    assert_eq!(v.scalar(0).value(r), Value::Int64(1070));
    assert_eq!(m.live_count(), 50 + 4900);
    assert_eq!(m.dead_count(), 150);
    assert_eq!(m.versions("k70").iter().map(|&(_, dead)| dead).collect::<Vec<_>>(), [true, false]);
    assert_eq!(pinned.versions("k70").len(), 1);
}

#[test]
fn a_shared_tail_is_copied_when_small_and_sealed_when_large_never_shared_in_place() {
    let s = schema(4);
    let mut m = MemSegment::new(&s);
    let quarter = m.chunk_rows / 4;
    for i in 0..quarter - 1 {
        m.put(&s, &row(&format!("a{i}"), 0, 4));
    }
    let small = m.clone();
    m.put(&s, &row("b", 0, 4));
    // Copied: still one chunk, and the held view's chunk is a different allocation.
    assert_eq!(m.chunk_count(), 1);
    assert!(!Arc::ptr_eq(&m.chunks[0], &small.chunks[0]));
    assert_eq!(small.chunks[0].len(), quarter - 1);
    m.put(&s, &row("c", 0, 4));
    let large = m.clone();
    m.put(&s, &row("d", 0, 4));
    // Sealed: the held view's last chunk is shared as it is, and writes go to a new one.
    assert_eq!(m.chunk_count(), 2);
    assert!(Arc::ptr_eq(&m.chunks[0], &large.chunks[0]));
    assert_eq!(large.len(), quarter + 1);
    drop((small, large));
    // Unshared: appended in place.
    let before = Arc::as_ptr(&m.chunks[1]);
    m.put(&s, &row("e", 0, 4));
    assert_eq!(Arc::as_ptr(&m.chunks[1]), before);
}

#[test]
fn wide_rows_get_small_chunks() {
    let s = schema(20_000);
    let m = MemSegment::new(&s);
    assert!(m.chunk_rows * 20_000 * 4 <= super::CHUNK_BYTES && m.chunk_rows >= 1);
}

/// A vector field with an approximate index, whose rows a search scans with codes.
fn indexed(dim: u32) -> Schema {
    use crate::schema::{HnswParams, IndexParams};
    Schema::builder("m")
        .field(Field::scalar("n", ScalarType::Int64).nullable(true))
        .field(
            Field::vector("v", VectorType::Fp32, dim, Metric::Cosine).index(IndexParams::Hnsw(HnswParams::default())),
        )
        .build()
        .unwrap()
}

fn varied(key: &str, i: usize, dim: u32) -> Row {
    let v = (0..dim as usize).map(|d| ((i * 31 + d * 7) % 23) as f32 - 11.0).collect();
    Row { key: key.into(), values: vec![Value::Int64(i as i64), Value::VectorFp32(v)] }
}

/// The codes of a chunk's rows encoded in one go, as a segment's are.
fn encoded(m: &MemSegment, chunk: usize) -> crate::index::quant::fastscan::ScanCodes {
    let p = m.part(chunk).unwrap();
    crate::index::quant::fastscan::ScanCodes::of_column(&p.view.vector(1), p.view.rows(), Metric::Cosine)
}

/// Writes make no scan codes: a chunk encodes its rows when a search (or a flush) first
/// asks, then keeps its codes up to date as rows are appended, equal to the codes of all
/// its rows encoded at once; a view taken before keeps the codes of its own rows.
#[test]
fn scan_codes_are_made_when_first_asked_for_then_kept_up_to_date() {
    let s = indexed(40);
    let mut m = MemSegment::new(&s);
    let n = m.chunk_rows + 100;
    for i in 0..n {
        m.put(&s, &varied(&format!("k{i}"), i, 40));
    }
    assert_eq!(m.scan_bytes(), 0, "a write made scan codes");
    assert!(m.part(0).unwrap().scan.field(0).is_none(), "a scalar field has no codes");
    // The tail chunk, asked for while it is still being written.
    let tail = m.part(1).unwrap().scan.field(1).unwrap().clone();
    assert!(tail.same_codes(&encoded(&m, 1)));
    assert!(m.scan_bytes() > 0 && m.part(0).unwrap().scan.field(1).is_some());
    let pinned = m.clone();
    for i in n..n + 50 {
        m.put(&s, &varied(&format!("k{i}"), i, 40));
    }
    let now = m.part(1).unwrap().scan.field(1).unwrap();
    assert!(now.same_codes(&encoded(&m, 1)), "appended rows' codes");
    assert!(pinned.part(1).unwrap().scan.field(1).unwrap().same_codes(&tail), "a held view's codes moved");
    assert!(m.part(0).unwrap().scan.field(1).unwrap().same_codes(&encoded(&m, 0)));
}
