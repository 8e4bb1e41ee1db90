//! Facets and field statistics (`facets.rs`) against a brute-force count over a model
//! of the live rows: through inverted indexes and through column scans, with filters,
//! deletes and unflushed rows.

use std::collections::{BTreeMap, HashMap};

use crate::schema::{Field, ScalarIndexKind, ScalarType, Schema};
use crate::{Collection, Doc, Error, Params, QueryError, Value};

#[derive(Clone, Debug)]
struct Row {
    pos: Option<&'static str>,
    n: Option<i32>,
    x: f64,
    tags: Option<Vec<&'static str>>,
}

const POS: [&str; 5] = ["n", "v", "a", "r", "noun.animal"];
const TAGS: [&str; 4] = ["red", "green", "blue", "big"];

fn row(i: usize) -> Row {
    Row {
        pos: (!i.is_multiple_of(9)).then_some(POS[(i * i) % 5]),
        n: (!i.is_multiple_of(4)).then_some((i % 23) as i32 - 5),
        x: if i % 50 == 7 { f64::NAN } else { (i as f64 * 0.37).sin() },
        tags: match i % 6 {
            0 => None,
            1 => Some(vec![]),
            k => Some((0..k).map(|j| TAGS[(i + j * j) % 4]).collect()),
        },
    }
}

fn doc(i: usize, r: &Row) -> Doc {
    let mut d = Doc::new(format!("k{i:04}")).set("x", r.x);
    if let Some(p) = r.pos {
        d = d.set("pos", p);
    }
    if let Some(n) = r.n {
        d = d.set("n", n);
    }
    if let Some(t) = &r.tags {
        d = d.set("tags", Value::Array(t.iter().map(|s| Value::from(*s)).collect()));
    }
    d
}

/// 1,200 rows: two segments (indexed when `indexed`) and the memtable, 80 deleted.
fn collection(indexed: bool) -> (tempfile::TempDir, Collection, BTreeMap<String, Row>) {
    let with = |f: Field| if indexed { f.scalar_index(ScalarIndexKind::Inverted) } else { f };
    let schema = Schema::builder("facets")
        .field(with(Field::scalar("pos", ScalarType::String).nullable(true)))
        .field(with(Field::scalar("n", ScalarType::Int32).nullable(true)))
        .field(Field::scalar("x", ScalarType::Double))
        .field(with(Field::array("tags", ScalarType::String).nullable(true)))
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let coll = Collection::create(dir.path(), schema, Default::default()).unwrap();
    let mut model = BTreeMap::new();
    for part in 0..3 {
        let rows: Vec<(usize, Row)> = (part * 400..part * 400 + 400).map(|i| (i, row(i))).collect();
        coll.insert(rows.iter().map(|(i, r)| doc(*i, r)).collect()).unwrap();
        model.extend(rows.into_iter().map(|(i, r)| (format!("k{i:04}"), r)));
        if part < 2 {
            coll.flush().unwrap();
        }
    }
    let gone: Vec<String> = (3..1200).step_by(15).map(|i| format!("k{i:04}")).collect();
    coll.delete(&gone.iter().map(String::as_str).collect::<Vec<_>>()).unwrap();
    gone.iter().for_each(|k| drop(model.remove(k)));
    (dir, coll, model)
}

/// Counts per value the model gives, and the rows without one.
fn brute(rows: &[&Row], values: &dyn Fn(&Row) -> Vec<Value>) -> (HashMap<String, u64>, u64) {
    let (mut counts, mut missing) = (HashMap::new(), 0);
    for r in rows {
        let mut vs: Vec<String> = values(r).iter().map(|v| v.to_json().to_string()).collect();
        vs.sort();
        vs.dedup();
        missing += u64::from(vs.is_empty());
        for v in vs {
            *counts.entry(v).or_default() += 1;
        }
    }
    (counts, missing)
}

#[test]
fn facets_equal_a_brute_force_count_through_indexes_and_scans() {
    type Values = fn(&Row) -> Vec<Value>;
    let fields: [(&str, Values); 3] = [
        ("pos", |r| r.pos.map(Value::from).into_iter().collect()),
        ("n", |r| r.n.map(Value::Int32).into_iter().collect()),
        ("tags", |r| r.tags.iter().flatten().map(|t| Value::from(*t)).collect()),
    ];
    type Keep = fn(&Row) -> bool;
    let filters: [(Option<&str>, Keep); 4] = [
        (None, |_| true),
        (Some("x > 0.2"), |r| r.x > 0.2),
        (Some("pos = 'v' AND n < 0"), |r| r.pos == Some("v") && r.n.is_some_and(|n| n < 0)),
        (Some("n = 17 AND x > 0.9"), |r| r.n == Some(17) && r.x > 0.9),
    ];
    for indexed in [false, true] {
        let (_dir, coll, model) = collection(indexed);
        for (field, values) in fields {
            for (filter, keep) in filters {
                let what = format!("{field} {filter:?} indexed {indexed}");
                let rows: Vec<&Row> = model.values().filter(|r| keep(r)).collect();
                let (want, missing) = brute(&rows, &values);
                let all = coll.facets(field, filter, &Params::new(), 1000).unwrap();
                assert_eq!(all.rows, rows.len() as u64, "{what}");
                assert_eq!(all.missing, missing, "{what}");
                assert_eq!(all.distinct, want.len() as u64, "{what}");
                assert_eq!(all.others, 0, "{what}");
                let got: HashMap<String, u64> = all.values.iter().map(|(v, c)| (v.to_json().to_string(), *c)).collect();
                assert_eq!(got, want, "{what}");
                assert!(all.values.windows(2).all(|w| w[0].1 >= w[1].1), "{what}: most frequent first");
                let top = coll.facets(field, filter, &Params::new(), 2).unwrap();
                assert_eq!(top.values, all.values[..all.values.len().min(2)], "{what}");
                let rest: u64 = all.values.iter().skip(2).map(|v| v.1).sum();
                assert_eq!((top.others, top.distinct, top.missing), (rest, all.distinct, missing), "{what}");
            }
        }
    }
}

#[test]
fn field_stats_equal_a_brute_force_over_kept_rows() {
    let (_dir, coll, model) = collection(true);
    for (filter, keep) in [
        (None, &(|_: &Row| true) as &dyn Fn(&Row) -> bool),
        (Some("pos = 'noun.animal'"), &|r: &Row| r.pos == Some("noun.animal")),
    ] {
        let rows: Vec<&Row> = model.values().filter(|r| keep(r)).collect();
        let ns: Vec<i32> = rows.iter().filter_map(|r| r.n).collect();
        let s = coll.field_stats("n", filter, &Params::new()).unwrap();
        assert_eq!((s.rows, s.count), (rows.len() as u64, ns.len() as u64), "{filter:?}");
        assert_eq!(s.min, Value::Int32(*ns.iter().min().unwrap()));
        assert_eq!(s.max, Value::Int32(*ns.iter().max().unwrap()));
        let sum: i64 = ns.iter().map(|&n| n as i64).sum();
        assert_eq!(s.sum, Value::Int64(sum));
        assert!((s.avg.unwrap() - sum as f64 / ns.len() as f64).abs() < 1e-12);
        // NaNs count as missing.
        let xs: Vec<f64> = rows.iter().map(|r| r.x).filter(|x| !x.is_nan()).collect();
        let s = coll.field_stats("x", filter, &Params::new()).unwrap();
        assert_eq!(s.count, xs.len() as u64);
        assert_eq!(s.max, Value::Double(xs.iter().copied().fold(f64::MIN, f64::max)));
        let Value::Double(sum) = s.sum else { panic!("{:?}", s.sum) };
        assert!((sum - xs.iter().sum::<f64>()).abs() < 1e-9);
        let s = coll.field_stats("pos", filter, &Params::new()).unwrap();
        let mut ps: Vec<&str> = rows.iter().filter_map(|r| r.pos).collect();
        ps.sort();
        assert_eq!((s.min, s.max), (Value::from(ps[0]), Value::from(ps[ps.len() - 1])));
        assert_eq!((s.sum, s.avg), (Value::Null, None));
    }
    let none = coll.field_stats("n", Some("n > 1000"), &Params::new()).unwrap();
    assert_eq!((none.count, none.min, none.sum, none.avg), (0, Value::Null, Value::Null, None));
}

#[test]
fn aggregates_of_fields_they_cannot_take_are_errors_naming_them() {
    let (_dir, coll, _) = collection(false);
    let err = |r: Result<(), Error>| match r {
        Err(Error::Query(QueryError::BadAggregateField { field, expected })) => format!("{field}: {expected}"),
        other => panic!("{other:?}"),
    };
    assert_eq!(err(coll.facets("nope", None, &Params::new(), 3).map(drop)), "nope: a scalar or array field");
    assert_eq!(err(coll.field_stats("tags", None, &Params::new()).map(drop)), "tags: a scalar field");
}

/// `explain_facets` counts what `facets` counts and says, per source, whether the values
/// came from the inverted index (an indexed segment whose kept rows outnumber its values)
/// or the column (the memtable, a filter keeping no rows, no index); `explain_field_stats`
/// refuses the fields `field_stats` refuses.
#[test]
fn explained_aggregates_count_the_rows_and_name_where_values_came_from() {
    use crate::SearchKind;
    for indexed in [false, true] {
        let (_dir, coll, _model) = collection(indexed);
        let snap = coll.snapshot();
        let mut sources_by = [0; 2];
        for filter in [None, Some("x > 2.0")] {
            let ex = snap.explain_facets("pos", filter, &Params::new()).unwrap();
            let facets = snap.facets("pos", filter, &Params::new(), 10).unwrap();
            assert_eq!(ex.hits as u64, facets.rows, "{filter:?}");
            assert_eq!(ex.sources.len(), 3, "two segments and the memtable");
            for (i, s) in ex.sources.iter().enumerate() {
                // A segment's index has a handful of values: its postings are read for all
                // its rows, not for none.
                let postings = indexed && i < 2 && filter.is_none();
                assert_eq!(s.search, SearchKind::Grouped { postings }, "source {i}, {filter:?}, indexed {indexed}");
                sources_by[usize::from(postings)] += 1;
            }
            let ex = snap.explain_field_stats(&["n", "x"], filter, &Params::new()).unwrap();
            assert_eq!(ex.hits as u64, snap.field_stats("x", filter, &Params::new()).unwrap().rows);
            assert!(ex.sources.iter().all(|s| s.search == SearchKind::Aggregated));
        }
        assert!(sources_by[0] > 0 && (sources_by[1] > 0) == indexed, "both ways taken: {sources_by:?}");
        let err = snap.explain_field_stats(&["n", "tags"], None, &Params::new()).unwrap_err();
        assert!(
            matches!(err, Error::Query(QueryError::BadAggregateField { ref field, .. }) if field == "tags"),
            "{err}"
        );
        assert!(snap.explain_facets("nope", None, &Params::new()).is_err());
    }
}
