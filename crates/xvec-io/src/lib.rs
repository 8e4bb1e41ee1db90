//! Files of vectors and the process's statistics, outside the engine: what the `xvec` tool
//! (`import`, `export`, `query --file`, the dashboard, `verify`'s memory line) and the
//! benchmark (`xvec-bench`) both read. Library only, no terminal; of the engine it names only
//! the kernel set and version, in the machine report.
//!
//! - [`dataset`]: TEXMEX (`.fvecs`, `.bvecs`, `.ivecs`) and NumPy matrices as memory-mapped
//!   [`dataset::VectorFile`]s, validated once at open (an error names the file, the row and
//!   the byte offset), ground-truth neighbour lists, and the recall and nDCG metrics.
//! - [`npy`]: the NumPy `.npy` header, read and written.
//! - [`sys`]: resident memory, CPU time, load and the machine, from `/proc` and `getrusage`.

pub mod dataset;
pub mod npy;
pub mod sys;
