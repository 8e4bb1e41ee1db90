//! Evaluation of a plan over one segment's columns, and LIKE pattern matching.

use std::cmp::Ordering;

use roaring::RoaringBitmap;

use super::plan::{Col, FloatTest, IntTest, Node, StrTest, Test};
use crate::storage::column::{ColumnData, ColumnSource, ScalarColumn, Validity, VarColumn};

/// Rows of `src` for which `root` is TRUE.
pub(super) fn evaluate(root: &Node, src: &dyn ColumnSource) -> RoaringBitmap {
    let rows = u32::try_from(src.rows()).unwrap_or(u32::MAX);
    Eval { src, rows }.node(root)
}

struct Eval<'a> {
    src: &'a dyn ColumnSource,
    rows: u32,
}

impl Eval<'_> {
    fn node(&self, node: &Node) -> RoaringBitmap {
        match node {
            Node::And(xs) => {
                let mut xs = xs.iter();
                let mut acc = xs.next().map_or_else(|| self.all(), |x| self.node(x));
                for x in xs {
                    if acc.is_empty() {
                        break;
                    }
                    acc &= self.node(x);
                }
                acc
            }
            Node::Or(xs) => {
                let mut acc = RoaringBitmap::new();
                for x in xs {
                    if acc.len() == u64::from(self.rows) {
                        break;
                    }
                    acc |= self.node(x);
                }
                acc
            }
            Node::IsNull { col, negate } => {
                let valid = self.valid(self.column(*col).validity);
                if *negate { valid } else { self.all() - valid }
            }
            Node::Leaf { col, test, negate } => self.leaf(self.column(*col), test, *negate),
        }
    }

    fn column(&self, col: Col) -> ScalarColumn<'_> {
        match col {
            Col::Key => ScalarColumn { validity: Validity(None), data: ColumnData::String(self.src.keys()) },
            Col::Field(idx) => self.src.scalar(idx),
        }
    }

    fn all(&self) -> RoaringBitmap {
        let mut all = RoaringBitmap::new();
        all.insert_range(0..self.rows);
        all
    }

    /// Rows holding a value.
    fn valid(&self, validity: Validity) -> RoaringBitmap {
        let Some(bits) = validity.0 else {
            return self.all();
        };
        let bytes = bits.len().min(self.rows.div_ceil(8) as usize);
        let mut valid = RoaringBitmap::from_lsb0_bytes(0, &bits[..bytes]);
        valid.remove_range(self.rows..);
        valid
    }

    fn leaf(&self, col: ScalarColumn, test: &Test, negate: bool) -> RoaringBitmap {
        let (rows, v) = (self.rows, col.validity);
        match (test, col.data) {
            (Test::Const(hit), _) if *hit != negate => self.valid(v),
            (Test::Const(_), _) => RoaringBitmap::new(),
            (Test::Bool(want), ColumnData::Bool(d)) => select(rows, v, |r| ((d[r] != 0) == *want) != negate),
            (Test::Int(t), ColumnData::Int32(d)) => ints(rows, v, d, t, negate),
            (Test::Int(t), ColumnData::Int64(d)) => ints(rows, v, d, t, negate),
            (Test::Int(t), ColumnData::Uint32(d)) => ints(rows, v, d, t, negate),
            (Test::Int(t), ColumnData::Uint64(d)) => ints(rows, v, d, t, negate),
            (Test::Float(t), ColumnData::Float(d)) => floats(rows, v, d, t, negate),
            (Test::Float(t), ColumnData::Double(d)) => floats(rows, v, d, t, negate),
            (Test::Str(t), ColumnData::String(d)) => strings(rows, v, d, t, negate),
            // The segment's column type disagrees with the schema the filter was compiled for.
            _ => RoaringBitmap::new(),
        }
    }
}

/// Valid rows for which `test` holds, without allocating per row: bits are set in a dense
/// word array first (one store per row), then handed to roaring in one bulk conversion,
/// which is an order of magnitude faster than inserting dense results one by one.
fn select(rows: u32, v: Validity, test: impl Fn(usize) -> bool) -> RoaringBitmap {
    let mut words = vec![0u64; (rows as usize).div_ceil(64)];
    for (w, word) in words.iter_mut().enumerate() {
        let base = w * 64;
        let end = (base + 64).min(rows as usize);
        let mut bits = 0u64;
        for r in base..end {
            bits |= ((v.is_valid(r) && test(r)) as u64) << (r - base);
        }
        *word = bits;
    }
    RoaringBitmap::from_lsb0_bytes(0, crate::storage::mmap::as_bytes(&words))
}

fn ints<T: Copy + Into<i128>>(rows: u32, v: Validity, d: &[T], test: &IntTest, negate: bool) -> RoaringBitmap {
    match test {
        IntTest::Range { lo, hi } => select(rows, v, |r| {
            let x: i128 = d[r].into();
            (*lo <= x && x <= *hi) != negate
        }),
        IntTest::In(set) => select(rows, v, |r| set.binary_search(&d[r].into()).is_ok() != negate),
    }
}

fn floats<T: Copy + Into<f64>>(rows: u32, v: Validity, d: &[T], test: &FloatTest, negate: bool) -> RoaringBitmap {
    match test {
        FloatTest::Cmp { op, value } => select(rows, v, |r| {
            let x: f64 = d[r].into();
            x.partial_cmp(value).is_some_and(|o| op.holds(o)) != negate
        }),
        FloatTest::In(set) => select(rows, v, |r| {
            let x: f64 = d[r].into();
            set.binary_search_by(|p| p.partial_cmp(&x).unwrap_or(Ordering::Less)).is_ok() != negate
        }),
    }
}

fn strings(rows: u32, v: Validity, d: VarColumn, test: &StrTest, negate: bool) -> RoaringBitmap {
    match test {
        StrTest::Cmp { op, value } => select(rows, v, |r| op.holds(cmp_bytes(d.get(r), value)) != negate),
        StrTest::In(set) => select(rows, v, |r| set.contains(d.get(r)) != negate),
        StrTest::Like(like) => select(rows, v, |r| like.matches(d.get(r)) != negate),
    }
}

/// Byte-wise order. Empty sides are decided by length: glibc's AVX-512 `memcmp` takes a
/// slow path for zero-length compares on some CPUs (measured: 65 ns a row on `!= ''`).
#[inline]
fn cmp_bytes(a: &[u8], b: &[u8]) -> Ordering {
    if a.is_empty() || b.is_empty() { a.len().cmp(&b.len()) } else { a.cmp(b) }
}
