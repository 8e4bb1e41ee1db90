use xvec::bench::dataset::VectorFile;
use xvec::*;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let coll = Collection::open(&args[1], &OpenOptions::read_only()).unwrap();
    let ef: usize = args[2].parse().unwrap();
    let refine: usize = args[3].parse().unwrap();
    let nq: usize = args[4].parse().unwrap();
    let qf = VectorFile::open(std::path::Path::new("/root/.cache/xvec-bench/wordnet-minilm-384/queries.fvecs")).unwrap();
    let qs: Vec<Vec<f32>> = (0..nq).map(|i| { let mut v = Vec::new(); qf.read_row(i, &mut v); v }).collect();
    let snap = coll.snapshot();
    let t = std::time::Instant::now();
    let mut n = 0;
    for q in &qs { let qq = Query::vector(q.clone()).k(10).ef(ef).refine(refine).fields(Vec::<String>::new()); n += snap.query(&qq).unwrap().len(); }
    eprintln!("{:.0} QPS ({n} hits)", nq as f64 / t.elapsed().as_secs_f64());
}
