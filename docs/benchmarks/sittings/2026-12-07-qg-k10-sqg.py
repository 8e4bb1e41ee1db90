# SymphonyQG (rabitqlib's SymqgIndex, fp32 or SQG_BITS=8, degree 32, efc 200, PiPNN init) on
# wordnet-minilm-384, or the dataset directory XVEC_DATASET names:
#   build: build once and save to $SQG_INDEX (2 threads);  search EF K N: load, N queries one by one
#   through the Python binding (as peers.py searches), recall@K against the ground truth.
# Run with the rabitqlib venv peers-setup makes (~/.cache/xvec-bench/peers-venv-rabitq).
import sys, os, time, numpy as np, rabitqlib
W = os.environ.get("XVEC_DATASET") or os.path.expanduser("~/.cache/xvec-bench/wordnet-minilm-384")
BITS = int(os.environ.get("SQG_BITS", "0"))
def fvecs(p):
    a = np.fromfile(p, dtype=np.int32); d = a[0]
    return a.reshape(-1, d + 1)[:, 1:].view(np.float32).copy()
def ivecs(p):
    a = np.fromfile(p, dtype=np.int32); d = a[0]
    return a.reshape(-1, d + 1)[:, 1:].copy()
mode = sys.argv[1]; path = os.environ.get("SQG_INDEX", "/tmp/sqg-qg.idx")
q = fvecs(W + "/queries.fvecs"); gt = ivecs(W + "/gt_cosine_100.ivecs")
if mode == "build":
    x = fvecs(W + "/base.fvecs")
    idx = rabitqlib.SymqgIndex(dim=x.shape[1], max_degree=32, metric="ip", quantization_bits=BITS)
    t = time.time(); idx.build(x, ef_construction=200, num_threads=2, init="pipnn"); print("build", time.time() - t)
    idx.save(path); sys.exit()
idx = rabitqlib.SymqgIndex.load(path)
ef = int(sys.argv[2]); k = int(sys.argv[3]); n = int(sys.argv[4])
hits = 0; t = time.time()
for i in range(n):
    r = idx.search(q[i].reshape(1, -1), k, ef)[0][0]
    hits += len(set(r.tolist()) & set(gt[i, :k].tolist()))
dt = time.time() - t
print(f"ef {ef} k {k} bits {BITS} recall {hits/(n*k):.4f} qps {n/dt:.0f}")
