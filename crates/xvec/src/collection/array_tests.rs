//! Array fields through a whole collection: every element type through the WAL (a
//! reopen replays it), a flush, an optimize and a reopen, filtered with and without
//! inverted indexes; array field changes; the limits a document is held to.

use crate::error::DocError;
use crate::schema::{Field, FieldChange, FieldType, Metric, ScalarIndexKind, ScalarType, Schema, VectorType};
use crate::{Collection, Doc, OpenOptions, OptimizeOptions, Value};

const TYPES: [(&str, ScalarType); 8] = [
    ("as", ScalarType::String),
    ("ab", ScalarType::Bool),
    ("ai", ScalarType::Int32),
    ("al", ScalarType::Int64),
    ("au", ScalarType::Uint32),
    ("aw", ScalarType::Uint64),
    ("af", ScalarType::Float),
    ("ad", ScalarType::Double),
];

/// One array field of each type, nullable; the odd ones carry an inverted index.
fn schema() -> Schema {
    let mut b = Schema::builder("arrays").field(Field::vector("v", VectorType::Fp32, 2, Metric::L2));
    for (i, (name, ty)) in TYPES.iter().enumerate() {
        let f = Field::array(*name, *ty).nullable(true);
        b = b.field(if i % 2 == 1 { f.scalar_index(ScalarIndexKind::Inverted) } else { f });
    }
    b.build().unwrap()
}

/// Element `j` of row `i`'s array of type `ty`.
fn element(ty: ScalarType, i: usize, j: usize) -> Value {
    let x = (i * 7 + j * 3) % 11;
    match ty {
        ScalarType::String => Value::String(format!("w{x}")),
        ScalarType::Bool => Value::Bool(x.is_multiple_of(2)),
        ScalarType::Int32 => Value::Int32(x as i32 - 5),
        ScalarType::Int64 => Value::Int64((x as i64 - 5) << 40),
        ScalarType::Uint32 => Value::Uint32(u32::MAX - 20 + x as u32),
        ScalarType::Uint64 => Value::Uint64(u64::MAX - 20 + x as u64),
        ScalarType::Float => Value::Float(x as f32 * 0.25),
        ScalarType::Double => Value::Double(x as f64 / 3.0),
    }
}

/// Row `i`'s value of the field of type `ty`: NULL for every fifth row, else `i % 4`
/// elements (so empty arrays too).
fn value(ty: ScalarType, i: usize) -> Value {
    if i.is_multiple_of(5) {
        return Value::Null;
    }
    Value::Array((0..i % 4).map(|j| element(ty, i, j)).collect())
}

fn doc(i: usize) -> Doc {
    let d = Doc::new(format!("k{i:03}")).set("v", vec![i as f32, 1.0]);
    TYPES.iter().fold(d, |d, (name, ty)| d.set(*name, value(*ty, i)))
}

fn keys(c: &Collection, filter: &str) -> Vec<String> {
    let mut k = c.snapshot().keys_where(Some(filter)).unwrap_or_else(|e| panic!("{filter}: {e}"));
    k.sort();
    k
}

/// Every row of `0..n` reads back as written, and filters agree with the values.
fn check(c: &Collection, n: usize, stage: &str) {
    let names: Vec<String> = (0..n).map(|i| format!("k{i:03}")).collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    for (i, got) in c.fetch(&refs, None).unwrap().into_iter().enumerate() {
        let got = got.unwrap_or_else(|| panic!("{stage}: k{i:03} is live"));
        for (name, ty) in TYPES {
            assert_eq!(got.get(name).cloned().unwrap_or(Value::Null), value(ty, i), "{stage}: k{i:03}.{name}");
        }
    }
    let rows_where = |pred: &dyn Fn(usize) -> bool| -> Vec<String> {
        (0..n).filter(|&i| pred(i)).map(|i| names[i].clone()).collect()
    };
    for (name, ty) in TYPES {
        let has = |i: usize, want: &Value| matches!(value(ty, i), Value::Array(xs) if xs.contains(want));
        let probe = element(ty, 2, 1);
        let literal = match &probe {
            Value::String(s) => format!("'{s}'"),
            Value::Bool(b) => b.to_string(),
            other => other.to_json().to_string(),
        };
        assert_eq!(
            keys(c, &format!("{name} CONTAIN_ANY ({literal})")),
            rows_where(&|i| has(i, &probe)),
            "{stage}: {name}"
        );
        let other = element(ty, 3, 2);
        let other_lit = match &other {
            Value::String(s) => format!("'{s}'"),
            Value::Bool(b) => b.to_string(),
            v => v.to_json().to_string(),
        };
        let filter = format!("{name} CONTAIN_ALL ({literal}, {other_lit})");
        assert_eq!(keys(c, &filter), rows_where(&|i| has(i, &probe) && has(i, &other)), "{stage}: {filter}");
        let filter = format!("{name} NOT CONTAIN_ANY ({literal})");
        assert_eq!(
            keys(c, &filter),
            rows_where(&|i| value(ty, i) != Value::Null && !has(i, &probe)),
            "{stage}: {filter}"
        );
        let filter = format!("array_length({name}) >= 2");
        assert_eq!(keys(c, &filter), rows_where(&|i| !i.is_multiple_of(5) && i % 4 >= 2), "{stage}: {filter}");
        assert_eq!(
            keys(c, &format!("{name} IS NULL")),
            rows_where(&|i| i.is_multiple_of(5)),
            "{stage}: {name} IS NULL"
        );
    }
}

#[test]
fn every_array_type_round_trips_through_wal_flush_optimize_and_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let c = Collection::create(dir.path(), schema(), Default::default()).unwrap();
    c.insert((0..40).map(doc).collect()).unwrap();
    c.flush().unwrap();
    c.insert((40..70).map(doc).collect()).unwrap();
    check(&c, 70, "a segment and the memtable");
    drop(c);
    let c = Collection::open(dir.path(), &OpenOptions::writable()).unwrap();
    check(&c, 70, "the WAL replayed");
    c.flush().unwrap();
    check(&c, 70, "two segments");
    c.optimize(&OptimizeOptions::default()).unwrap();
    assert_eq!(c.stats().segments.len(), 1);
    check(&c, 70, "optimized");
    drop(c);
    let c = Collection::open(dir.path(), &OpenOptions::read_only()).unwrap();
    check(&c, 70, "reopened");
    drop(c);
    let report = crate::verify::run(dir.path(), &crate::verify::VerifyOptions::default().deep(true)).unwrap();
    let problems: Vec<_> = report.findings.iter().filter(|f| f.severity.is_problem()).collect();
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn array_fields_are_added_and_widened_without_rewriting() {
    let dir = tempfile::tempdir().unwrap();
    let schema = Schema::builder("w")
        .field(Field::scalar("tag", ScalarType::String).nullable(true).scalar_index(ScalarIndexKind::Inverted))
        .field(Field::array("ns", ScalarType::Int32))
        .field(Field::vector("v", VectorType::Fp32, 2, Metric::L2))
        .build()
        .unwrap();
    let c = Collection::create(dir.path(), schema, Default::default()).unwrap();
    let doc = |i: i32| {
        let d = Doc::new(format!("k{i}")).set("v", vec![i as f32, 0.0]);
        let d = d.set("ns", Value::Array((0..i % 3).map(|j| Value::Int32(i + j)).collect()));
        if i % 4 == 0 { d } else { d.set("tag", format!("t{}", i % 3)) }
    };
    c.insert((0..30).map(doc).collect()).unwrap();
    c.flush().unwrap();
    c.insert((30..40).map(doc).collect()).unwrap();
    let added = Field::array("labels", ScalarType::String).default_value(serde_json::json!(["new"]));
    c.change_field(FieldChange::Add(added)).unwrap();
    let widen = |field: &str, to| FieldChange::Widen { field: field.into(), to };
    c.change_field(widen("tag", FieldType::Array(ScalarType::String))).unwrap();
    c.change_field(widen("ns", FieldType::Array(ScalarType::Int64))).unwrap();
    let check = |c: &Collection, stage: &str| {
        let got = c.fetch(&["k5", "k8"], None).unwrap();
        let k5 = got[0].as_ref().unwrap();
        assert_eq!(k5.get("tag"), Some(&Value::Array(vec![Value::String("t2".into())])), "{stage}");
        assert_eq!(k5.get("ns"), Some(&Value::Array(vec![Value::Int64(5), Value::Int64(6)])), "{stage}");
        assert_eq!(k5.get("labels"), Some(&Value::Array(vec![Value::String("new".into())])), "{stage}");
        assert_eq!(got[1].as_ref().unwrap().get("tag"), None, "{stage}: k8's tag stays NULL");
        let want: Vec<String> = (0..40).filter(|i| i % 4 != 0 && i % 3 == 1).map(|i| format!("k{i}")).collect();
        let mut want = want;
        want.sort();
        assert_eq!(keys(c, "tag CONTAIN_ANY ('t1')"), want, "{stage}");
        assert_eq!(keys(c, "labels CONTAIN_ALL ('new') AND ns CONTAIN_ANY (9)"), ["k8"], "{stage}");
        assert_eq!(keys(c, "tag IS NULL AND _key != 'k40'").len(), 10, "{stage}");
    };
    check(&c, "changed");
    let k40 = Doc::new("k40").set("v", vec![40.0f32, 0.0]).set("labels", Value::Array(vec![]));
    c.insert(vec![k40.set("ns", Value::Array(vec![Value::Int64(1)]))]).unwrap().remove(0).unwrap();
    c.flush().unwrap();
    c.optimize(&OptimizeOptions::default()).unwrap();
    check(&c, "optimized");
    drop(c);
    let c = Collection::open(dir.path(), &OpenOptions::read_only()).unwrap();
    check(&c, "reopened");
    let k40 = c.fetch(&["k40"], None).unwrap().remove(0).unwrap();
    assert_eq!(k40.get("labels"), Some(&Value::Array(vec![])));
    assert_eq!(keys(&c, "array_length(labels) = 0"), ["k40"]);
}

#[test]
fn array_values_are_held_to_their_limits() {
    let dir = tempfile::tempdir().unwrap();
    let c = Collection::create(dir.path(), schema(), Default::default()).unwrap();
    let base = || Doc::new("k").set("v", vec![0.0f32, 1.0]);
    let long = Value::Array((0..crate::MAX_ARRAY_LEN as i32 + 1).map(Value::Int32).collect());
    let refused = |d: Doc| c.insert(vec![d]).unwrap().remove(0).unwrap_err();
    let err = refused(base().set("ai", long));
    assert!(matches!(err, DocError::ArrayTooLong { len: 4097, .. }), "{err}");
    let err = refused(base().set("ai", Value::Array(vec![Value::Int32(1), Value::Null])));
    assert!(err.to_string().contains("int32 elements, found null at index 1"), "{err}");
    let err = refused(base().set("ai", Value::Int32(1)));
    assert!(err.to_string().contains("an array of int32 values"), "{err}");
    let full = Value::Array((0..crate::MAX_ARRAY_LEN as i32).map(Value::Int32).collect());
    c.insert(vec![base().set("ai", full.clone())]).unwrap().remove(0).unwrap();
    assert_eq!(c.fetch(&["k"], None).unwrap()[0].as_ref().unwrap().get("ai"), Some(&full));
    // JSON documents: a null element and a nested array are refused with their index.
    let s = c.schema();
    let obj = |t: &str| serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(t).unwrap();
    let e = Doc::from_json(&s, &obj(r#"{"_key": "j", "as": ["a", null]}"#), "_key").unwrap_err().to_string();
    assert!(e.contains("field `as` expects a string at index 1, found null"), "{e}");
    let e = Doc::from_json(&s, &obj(r#"{"_key": "j", "ai": [1, [2]]}"#), "_key").unwrap_err().to_string();
    assert!(e.contains("an integer at index 1, found an array"), "{e}");
    let d = Doc::from_json(&s, &obj(r#"{"_key": "j", "af": [0.5, 2], "ab": []}"#), "_key").unwrap();
    assert_eq!(d.get("af"), Some(&Value::Array(vec![Value::Float(0.5), Value::Float(2.0)])));
}
