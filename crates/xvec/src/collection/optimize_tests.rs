//! Optimize with writers running: nothing acknowledged is lost, nothing deleted returns.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::schema::{Field, HnswParams, IndexParams, Metric, ScalarType, Schema, VectorType};
use crate::{Collection, Doc, OptimizeOptions, Value};

fn schema() -> Schema {
    let hnsw = IndexParams::Hnsw(HnswParams::default().m(8));
    Schema::builder("o")
        .field(Field::scalar("n", ScalarType::Int64))
        .field(Field::vector("v", VectorType::Fp32, 16, Metric::L2).index(hnsw))
        .build()
        .unwrap()
}

fn doc(key: &str, n: i64) -> Doc {
    Doc::new(key).set("n", n).set("v", (0..16).map(|j| ((n * 7 + j) % 53) as f32).collect::<Vec<f32>>())
}

/// Fails naming the first keys that differ, not printing both maps whole.
fn assert_same(seen: &BTreeMap<String, i64>, model: &BTreeMap<String, i64>) {
    let wrong: Vec<_> = model.iter().filter(|(k, n)| seen.get(*k) != Some(n)).take(5).collect();
    let extra: Vec<_> = seen.keys().filter(|k| !model.contains_key(*k)).take(5).collect();
    assert!(wrong.is_empty() && extra.is_empty(), "missing or wrong: {wrong:?}; deleted but seen: {extra:?}");
}

fn contents(coll: &Collection) -> BTreeMap<String, i64> {
    let snap = coll.snapshot();
    let keys = snap.keys_where(None).unwrap();
    let refs: Vec<&str> = keys.iter().map(String::as_str).collect();
    let docs = snap.fetch(&refs, None).unwrap();
    keys.into_iter()
        .zip(docs)
        .map(|(k, d)| match d.unwrap().get("n") {
            Some(Value::Int64(n)) => (k, *n),
            other => panic!("{other:?}"),
        })
        .collect()
}

#[test]
fn writes_and_deletes_during_an_optimize_are_kept_and_carried_over() {
    let dir = tempfile::tempdir().unwrap();
    let coll = Collection::create(dir.path(), schema(), Default::default()).unwrap();
    let mut model = BTreeMap::new();
    for s in 0..4 {
        let docs: Vec<Doc> = (0..3000).map(|i| doc(&format!("k{s}-{i:05}"), i)).collect();
        for d in &docs {
            if let Some(Value::Int64(n)) = d.get("n") {
                model.insert(d.key.clone(), *n);
            }
        }
        coll.insert(docs).unwrap();
        coll.flush().unwrap();
    }
    // Deletes before the optimize make it rewrite segments rather than keep them.
    let early: Vec<String> = model.keys().step_by(11).cloned().collect();
    coll.delete(&early.iter().map(String::as_str).collect::<Vec<_>>()).unwrap();
    for k in &early {
        model.remove(k);
    }

    let done = AtomicBool::new(false);
    let during = AtomicU64::new(0);
    let model = std::thread::scope(|s| {
        let writer = s.spawn(|| {
            let mut model = model;
            let mut step = 0i64;
            while !done.load(Ordering::Acquire) || step < 20 {
                step += 1;
                // Upsert, delete and insert keys of the segments being rewritten.
                let old: Vec<String> =
                    model.keys().cycle().skip((step as usize * 37) % model.len()).take(5).cloned().collect();
                let docs: Vec<Doc> = old[..3].iter().map(|k| doc(k, 100_000 + step)).collect();
                coll.upsert(docs).unwrap();
                for k in &old[..3] {
                    model.insert(k.clone(), 100_000 + step);
                }
                coll.delete(&[old[3].as_str(), old[4].as_str()]).unwrap();
                model.remove(&old[3]);
                model.remove(&old[4]);
                let key = format!("new{step:05}");
                coll.insert(vec![doc(&key, step)]).unwrap();
                model.insert(key, step);
                if step % 25 == 0 {
                    coll.flush().unwrap();
                }
                if !done.load(Ordering::Acquire) {
                    during.fetch_add(1, Ordering::Relaxed);
                }
            }
            model
        });
        let report = coll.optimize(&OptimizeOptions::default().concurrency(1)).unwrap();
        done.store(true, Ordering::Release);
        assert!(report.changed && report.indexes_built >= 1);
        writer.join().unwrap()
    });
    assert!(during.load(Ordering::Relaxed) > 0, "no write went through during the optimize");
    assert_same(&contents(&coll), &model);
    assert_eq!(coll.count(), model.len() as u64);
    // The same after a reopen: the carried deletes were published, not only held in memory.
    let dir_path = dir.path().to_path_buf();
    drop(coll);
    let coll = Collection::open(&dir_path, &crate::OpenOptions::writable()).unwrap();
    assert_same(&contents(&coll), &model);
    // And after a second optimize, which folds everything.
    coll.optimize(&OptimizeOptions::default().concurrency(1)).unwrap();
    assert_same(&contents(&coll), &model);
    assert_eq!(coll.stats().deleted_docs, 0);
}
