use std::sync::Arc;
use xvec::*;
fn main() {
    let dir = std::path::Path::new("/tmp/bench-hnsw");
    let coll = Collection::open(dir, &OpenOptions::read_only()).unwrap();
    let schema = Arc::new(coll.schema().clone());
    let seg = xvec::storage::segment::Segment::open(&dir.join("SEG-000002.xseg"), schema.clone(), true, false).unwrap();
    for f in ["_key != ''", "_key LIKE '11%'", "_key = '5'"] {
        let filter = xvec::filter::Filter::compile(f, &schema).unwrap();
        eprintln!("{filter:?}");
        let t = std::time::Instant::now();
        let mut n = 0;
        for _ in 0..20 { n += filter.evaluate(&seg).len(); }
        eprintln!("{f}: {:.3} ms per evaluate ({})", t.elapsed().as_secs_f64() * 1e3 / 20.0, n / 20);
    }
}
