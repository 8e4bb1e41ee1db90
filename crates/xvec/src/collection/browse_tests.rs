//! Ordered, paged scans (`browse.rs`) against a sorted brute force over a model of the
//! live rows: every order, with filters, deletes, overwrites and unflushed rows, paged by
//! offset and by cursor.

use std::collections::BTreeMap;

use crate::index::rng::SplitMix64;
use crate::schema::{Field, ScalarType, Schema};
use crate::{Collection, Doc, Error, QueryError, ScanRequest, SearchKind, Value};

/// A live row of the model: `n` (int64), `s` (string), `d` (double), each nullable.
#[derive(Clone, Debug)]
struct Row {
    n: Option<i64>,
    s: Option<String>,
    d: Option<f64>,
}

fn doc(key: &str, r: &Row) -> Doc {
    let mut d = Doc::new(key);
    if let Some(n) = r.n {
        d = d.set("n", n);
    }
    if let Some(s) = &r.s {
        d = d.set("s", s.as_str());
    }
    if let Some(x) = r.d {
        d = d.set("d", x);
    }
    d
}

/// 900 rows with shuffled keys in two segments and the memtable, 60 deleted, 41
/// written again (some into the memtable), values with many ties and nulls.
fn collection() -> (tempfile::TempDir, Collection, BTreeMap<String, Row>) {
    let dir = tempfile::tempdir().unwrap();
    let schema = Schema::builder("browse")
        .field(Field::scalar("n", ScalarType::Int64).nullable(true))
        .field(Field::scalar("s", ScalarType::String).nullable(true))
        .field(Field::scalar("d", ScalarType::Double).nullable(true))
        .build()
        .unwrap();
    let coll = Collection::create(dir.path(), schema, Default::default()).unwrap();
    let mut rng = SplitMix64::new(7);
    let mut model = BTreeMap::new();
    let mut order: Vec<usize> = (0..900).collect();
    for i in (1..order.len()).rev() {
        order.swap(i, rng.next_u64() as usize % (i + 1));
    }
    let row = |rng: &mut SplitMix64| Row {
        n: (!rng.next_u64().is_multiple_of(7)).then(|| (rng.next_u64() % 20) as i64 - 5),
        s: (!rng.next_u64().is_multiple_of(5)).then(|| format!("w{}", rng.next_u64() % 30)),
        d: (!rng.next_u64().is_multiple_of(6)).then(|| (rng.next_u64() % 1000) as f64 / 7.0 - 50.0),
    };
    for (part, chunk) in order.chunks(300).enumerate() {
        let docs: Vec<Doc> = chunk
            .iter()
            .map(|&i| {
                let (key, r) = (format!("k{i:04}"), row(&mut rng));
                let d = doc(&key, &r);
                model.insert(key, r);
                d
            })
            .collect();
        coll.insert(docs).unwrap();
        if part < 2 {
            coll.flush().unwrap();
        }
    }
    let gone: Vec<String> = (0..900).step_by(15).map(|i| format!("k{i:04}")).collect();
    coll.delete(&gone.iter().map(String::as_str).collect::<Vec<_>>()).unwrap();
    gone.iter().for_each(|k| drop(model.remove(k)));
    let again: Vec<Doc> = (1..900)
        .step_by(22)
        .map(|i| {
            let (key, r) = (format!("k{i:04}"), row(&mut rng));
            let d = doc(&key, &r);
            model.insert(key, r);
            d
        })
        .collect();
    // Upsert merges fields: a new version with nulls is a delete and an insert.
    let again_keys: Vec<String> = again.iter().map(|d| d.key.clone()).collect();
    let live: Vec<&str> =
        again_keys.iter().map(String::as_str).filter(|k| coll.fetch(&[k], None).unwrap()[0].is_some()).collect();
    coll.delete(&live).unwrap();
    coll.insert(again).unwrap();
    (dir, coll, model)
}

/// The model's keys the filter keeps, in the order a scan by `field` (or key) gives.
fn sorted(model: &BTreeMap<String, Row>, keep: &dyn Fn(&Row) -> bool, field: Option<&str>, desc: bool) -> Vec<String> {
    #[derive(PartialEq, PartialOrd)]
    enum V {
        Num(f64),
        Str(String),
        Null,
    }
    let value = |r: &Row| match field {
        Some("n") => r.n.map_or(V::Null, |n| V::Num(n as f64)),
        Some("s") => r.s.clone().map_or(V::Null, V::Str),
        Some("d") => r.d.map_or(V::Null, V::Num),
        _ => V::Null,
    };
    let mut rows: Vec<(&String, &Row)> = model.iter().filter(|(_, r)| keep(r)).collect();
    rows.sort_by(|a, b| {
        let by_value = value(a.1).partial_cmp(&value(b.1)).unwrap();
        let by_value = if desc { by_value.reverse() } else { by_value };
        match field {
            None if desc => b.0.cmp(a.0),
            _ => by_value.then(a.0.cmp(b.0)),
        }
    });
    rows.into_iter().map(|(k, _)| k.clone()).collect()
}

fn keys(docs: &[Doc]) -> Vec<String> {
    docs.iter().map(|d| d.key.clone()).collect()
}

#[test]
fn every_order_pages_by_offset_and_cursor_like_a_sorted_brute_force() {
    let (_dir, coll, model) = collection();
    type Keep<'a> = &'a dyn Fn(&Row) -> bool;
    let filters: [(Option<&str>, Keep); 3] = [
        (None, &|_| true),
        (Some("n >= 3"), &|r| r.n.is_some_and(|n| n >= 3)),
        (Some("s IS NULL OR d < 0"), &|r| r.s.is_none() || r.d.is_some_and(|d| d < 0.0)),
    ];
    for (filter, keep) in filters {
        for field in [None, Some("n"), Some("s"), Some("d"), Some("_key")] {
            for desc in [false, true] {
                let what = format!("{filter:?} by {field:?} desc {desc}");
                let want = sorted(&model, keep, field.filter(|f| *f != "_key"), desc);
                let req = ScanRequest::new().filter_opt(filter.map(String::from)).order_by_opt(field.map(String::from));
                let req = req.desc(desc);
                let all = coll.scan_page(&req).unwrap();
                assert_eq!(keys(&all.docs), want, "{what}");
                assert_eq!(all.next, None, "{what}");
                // By offset, 37 rows at a time.
                let mut by_offset = Vec::new();
                for offset in (0..want.len() + 37).step_by(37) {
                    let page = coll.scan_page(&req.clone().offset(offset).limit(37)).unwrap();
                    assert_eq!(page.next.is_some(), offset + 37 < want.len(), "{what} at {offset}");
                    by_offset.extend(keys(&page.docs));
                }
                assert_eq!(by_offset, want, "{what}");
                // By cursor, 50 rows at a time, until no cursor is left.
                let (mut by_cursor, mut after, mut pages) = (Vec::new(), None, 0);
                loop {
                    let page = coll.scan_page(&req.clone().limit(50).after(after)).unwrap();
                    by_cursor.extend(keys(&page.docs));
                    pages += 1;
                    match page.next {
                        Some(next) => after = Some(next),
                        None => break,
                    }
                }
                assert_eq!(by_cursor, want, "{what}");
                assert_eq!(pages, want.len().div_ceil(50).max(1), "{what}");
            }
        }
    }
}

#[test]
fn a_page_carries_the_fields_asked_for_and_an_offset_applies_after_the_cursor() {
    let (_dir, coll, model) = collection();
    let want = sorted(&model, &|_| true, Some("d"), true);
    let first = coll.scan_page(&ScanRequest::new().order_by("d").desc(true).limit(10).fields(["d"])).unwrap();
    assert_eq!(keys(&first.docs), want[..10]);
    for d in &first.docs {
        let r = &model[&d.key];
        assert_eq!(d.get("d"), r.d.map(Value::Double).as_ref(), "{}", d.key);
        assert!(d.get("n").is_none() && d.get("s").is_none());
    }
    let next =
        coll.scan_page(&ScanRequest::new().order_by("d").desc(true).limit(5).offset(3).after(first.next)).unwrap();
    assert_eq!(keys(&next.docs), want[13..18]);
    // A key cursor can be typed: the rows after that key.
    let page = coll.scan_page(&ScanRequest::new().after("k0450".to_string()).limit(3)).unwrap();
    let after: Vec<&String> = model.keys().filter(|k| k.as_str() > "k0450").take(3).collect();
    assert_eq!(keys(&page.docs).iter().collect::<Vec<_>>(), after);
    assert!(coll.scan_page(&ScanRequest::new().limit(0)).unwrap().docs.is_empty());
}

#[test]
fn bad_orders_and_cursors_are_errors_naming_them() {
    let (_dir, coll, _) = collection();
    let err = |req: ScanRequest| match coll.scan_page(&req) {
        Err(Error::Query(q)) => q,
        other => panic!("{other:?}"),
    };
    assert_eq!(err(ScanRequest::new().order_by("nope")), QueryError::BadOrderField("nope".into()));
    for cursor in ["k0001", "[1]", "[\"x\", \"k1\"]", "[1, 2]", "{}"] {
        let q = err(ScanRequest::new().order_by("n").after(cursor.to_string()));
        assert!(matches!(&q, QueryError::BadCursor { cursor: c, .. } if c == cursor), "{q:?}");
        assert!(q.is_parameter() && q.to_string().contains("[n value, key]"), "{q}");
    }
    assert!(matches!(coll.scan_page(&ScanRequest::new().filter("n >")), Err(Error::Filter(_))));
    assert!(matches!(
        coll.scan_page(&ScanRequest::new().fields(["zz"])),
        Err(Error::Query(QueryError::UnknownField(_)))
    ));
}

/// Float cursors read back exactly (f32 values printed short), NaN and nulls included.
#[test]
fn float_cursors_round_trip_nan_and_null() {
    let dir = tempfile::tempdir().unwrap();
    let schema = Schema::builder("f").field(Field::scalar("x", ScalarType::Float).nullable(true)).build().unwrap();
    let coll = Collection::create(dir.path(), schema, Default::default()).unwrap();
    let xs = [Some(0.1f32), Some(f32::NAN), None, Some(-0.3), Some(0.1), Some(f32::INFINITY), None, Some(2.5)];
    coll.insert(
        xs.iter()
            .enumerate()
            .map(|(i, x)| x.map_or(Doc::new(format!("k{i}")), |x| Doc::new(format!("k{i}")).set("x", x)))
            .collect(),
    )
    .unwrap();
    coll.flush().unwrap();
    for desc in [false, true] {
        let all = keys(&coll.scan_page(&ScanRequest::new().order_by("x").desc(desc)).unwrap().docs);
        let mut paged = Vec::new();
        let mut after = None;
        loop {
            let page = coll.scan_page(&ScanRequest::new().order_by("x").desc(desc).limit(1).after(after)).unwrap();
            paged.extend(keys(&page.docs));
            match page.next {
                Some(n) => after = Some(n),
                None => break,
            }
        }
        assert_eq!(paged, all, "desc {desc}");
    }
    let asc = keys(&coll.scan_page(&ScanRequest::new().order_by("x")).unwrap().docs);
    assert_eq!(asc, ["k3", "k0", "k4", "k7", "k5", "k1", "k2", "k6"]);
}

/// A page by key reads about offset + limit rows of each segment's key order, not the
/// segment; a page by field reads each kept row's value once.
#[test]
fn a_key_page_reads_a_page_of_each_segment_not_the_collection() {
    let (_dir, coll, model) = collection();
    let ex = coll.snapshot().explain_scan(&ScanRequest::new().limit(10).offset(5)).unwrap();
    assert_eq!(ex.hits, 10);
    // The walk's time is the source's search time (what `explain analyze` prints).
    assert!(ex.sources.iter().map(|s| s.search_nanos).sum::<u64>() > 0);
    let segments = ex.segment_ids.len();
    assert_eq!(segments, 2);
    for s in &ex.sources {
        let SearchKind::KeyOrder { read } = s.search else { panic!("{:?}", s.search) };
        assert!(read <= 16 + s.deleted, "source {} read {read}", s.position);
    }
    let ex = coll.snapshot().explain_scan(&ScanRequest::new().order_by("n").filter("n >= 3").limit(10)).unwrap();
    let kept: u64 = ex.sources.iter().map(|s| s.allowed).sum();
    let read: u64 = ex
        .sources
        .iter()
        .map(|s| match s.search {
            SearchKind::FieldOrder { read } => read,
            other => panic!("{other:?}"),
        })
        .sum();
    assert_eq!(read, kept);
    assert_eq!(kept as usize, model.values().filter(|r| r.n.is_some_and(|n| n >= 3)).count());
    assert_eq!(ex.leaves, ["n >= 3"]);
    let count = coll.snapshot().explain_count(Some("n >= 3"), &Default::default()).unwrap();
    assert_eq!(count.hits as u64, kept);
    assert!(count.sources.iter().all(|s| s.search == SearchKind::Counted && s.leaves.len() == 1));
}
