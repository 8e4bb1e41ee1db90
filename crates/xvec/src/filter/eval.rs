//! Evaluation of a plan over one segment: each leaf through a scalar index of its field
//! when the segment has one that answers it, else by scanning the column; an AND narrows
//! the rows its later children look at, probing them one by one once few are left.

use std::cmp::Ordering;
use std::ops::Bound;

use roaring::RoaringBitmap;

use super::lexer::CmpOp;
use super::like::Like;
use super::plan::{Col, FloatTest, IntTest, Node, StrTest, Test};
use crate::index::field_indexes::FieldIndexes;
use crate::index::scalar::{Lookup, float_extremes, float_key, int_key};
use crate::schema::{ScalarIndexKind, ScalarType};
use crate::storage::column::{ColumnData, ColumnSource, ScalarColumn, Validity, VarColumn};

/// An AND probes its remaining children row by row once fewer than one row in this many
/// is left: a probe costs a random read, a scan a sequential one per row.
const PROBE_BELOW: u64 = 64;

/// How a leaf reached its rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Looked up in a scalar index of this kind.
    Index(ScalarIndexKind),
    /// Read from the postings of the field's full-text index (`MATCH`).
    FullText,
    /// Tested on every row of the segment.
    Scan,
    /// Tested on the few rows an AND had left.
    Probe,
}

/// How one leaf was evaluated over one segment, for `explain`.
#[derive(Clone, Debug, PartialEq)]
pub struct LeafTrace {
    /// The leaf, a position in [`crate::Explain::leaves`].
    pub leaf: usize,
    /// How it found its rows.
    pub access: Access,
    /// Rows it was evaluated over: the segment's, or those an AND had left.
    pub scope: u64,
    /// Rows an index said match before the scope was applied (index lookups only).
    pub estimated: Option<u64>,
    /// Rows of the scope it matched.
    pub matched: u64,
    /// Time it took.
    pub nanos: u64,
}

/// Rows of `src` for which `root` is TRUE; `indexes` are the segment's scalar indexes
/// per field position (empty for a memtable). With `trace`, each leaf's evaluation is
/// recorded there.
pub(super) fn evaluate(
    root: &Node,
    src: &dyn ColumnSource,
    indexes: &[FieldIndexes],
    trace: Option<&mut Vec<LeafTrace>>,
) -> RoaringBitmap {
    let rows = u32::try_from(src.rows()).unwrap_or(u32::MAX);
    let Some(trace) = trace else {
        return Eval { src, rows, indexes, trace: None }.node(root, Scope::All);
    };
    let cell = std::cell::RefCell::new(std::mem::take(trace));
    let out = Eval { src, rows, indexes, trace: Some(&cell) }.node(root, Scope::All);
    *trace = cell.into_inner();
    out
}

/// The rows a node is evaluated over.
#[derive(Clone, Copy)]
enum Scope<'a> {
    All,
    Rows(&'a RoaringBitmap),
}

struct Eval<'a> {
    src: &'a dyn ColumnSource,
    rows: u32,
    indexes: &'a [FieldIndexes],
    trace: Option<&'a std::cell::RefCell<Vec<LeafTrace>>>,
}

impl Eval<'_> {
    fn node(&self, node: &Node, scope: Scope) -> RoaringBitmap {
        match node {
            Node::And(xs) => {
                // Children an index answers first: they narrow the rows the others scan.
                let mut order: Vec<&Node> = xs.iter().collect();
                order.sort_by_key(|x| !self.indexed(x));
                let mut acc: Option<RoaringBitmap> = None;
                for x in order {
                    acc = Some(match acc {
                        None => self.node(x, scope),
                        Some(a) if a.len() * PROBE_BELOW < u64::from(self.rows) => self.node(x, Scope::Rows(&a)),
                        Some(a) => a & self.node(x, scope),
                    });
                    if acc.as_ref().is_some_and(|a| a.is_empty()) {
                        break;
                    }
                }
                acc.unwrap_or_else(|| self.all(scope))
            }
            Node::Or(xs) => {
                let full = match scope {
                    Scope::All => u64::from(self.rows),
                    Scope::Rows(r) => r.len(),
                };
                let mut acc = RoaringBitmap::new();
                for x in xs {
                    if acc.len() == full {
                        break;
                    }
                    acc |= self.node(x, scope);
                }
                acc
            }
            Node::IsNull { col, negate, id } => {
                let start = self.clock();
                let valid = self.valid_in(*col, scope);
                let out = if *negate { valid } else { self.all(scope) - valid };
                self.record(*id, Access::Scan, scope, None, &out, start);
                out
            }
            Node::Leaf { col, test, negate, id } => {
                let start = self.clock();
                let (out, access, estimated) = self.leaf(*col, test, *negate, scope);
                self.record(*id, access, scope, estimated, &out, start);
                out
            }
            Node::Contains { field, tests, all, negate, id } => {
                let start = self.clock();
                let (out, access, estimated) = self.contains(*field, tests, *all, *negate, scope);
                self.record(*id, access, scope, estimated, &out, start);
                out
            }
        }
    }

    /// The rows of `scope` where a CONTAIN_ANY (`all` false: some element passes
    /// `tests[0]`) or CONTAIN_ALL (each test is passed by some element) holds, or fails
    /// when `negate`; through the field's inverted index when it answers every test.
    fn contains(
        &self,
        field: usize,
        tests: &[Test],
        all: bool,
        negate: bool,
        scope: Scope,
    ) -> (RoaringBitmap, Access, Option<u64>) {
        let col = self.src.array(field);
        let few = matches!(scope, Scope::Rows(r) if r.len() * PROBE_BELOW < u64::from(self.rows));
        let ty = col.elems.scalar_type();
        if !few && let Some(ix) = self.indexes.get(field) {
            let mut hits: Option<(RoaringBitmap, ScalarIndexKind)> = None;
            for t in tests {
                let Some((h, kind)) = index_hits(ix, ty, col.validity, self.rows, t) else {
                    hits = None;
                    break;
                };
                hits = Some(match hits {
                    Some((acc, _)) => (acc & h, kind),
                    None => (h, kind),
                });
            }
            if let Some((hits, kind)) = hits.filter(|_| !tests.is_empty()) {
                let hits = if negate { valid_rows(col.validity, self.rows) - hits } else { hits };
                let estimated = Some(hits.len());
                let hits = match scope {
                    Scope::All => hits,
                    Scope::Rows(r) => hits & r,
                };
                return (hits, Access::Index(kind), estimated);
            }
        }
        let matchers: Vec<Box<dyn Fn(usize) -> bool + '_>> = tests.iter().map(|t| elem_matcher(t, col.elems)).collect();
        let out = select(self.rows, scope, col.validity, |r| {
            let range = col.range(r);
            let hit = match all {
                true => matchers.iter().all(|m| range.clone().any(m)),
                false => matchers.first().is_some_and(|m| range.clone().any(m)),
            };
            hit != negate
        });
        (out, if few { Access::Probe } else { Access::Scan }, None)
    }

    /// The time now when tracing (an untraced evaluation reads no clock).
    fn clock(&self) -> Option<std::time::Instant> {
        self.trace.map(|_| std::time::Instant::now())
    }

    fn record(
        &self,
        id: u16,
        access: Access,
        scope: Scope,
        estimated: Option<u64>,
        out: &RoaringBitmap,
        start: Option<std::time::Instant>,
    ) {
        let (Some(trace), Some(start)) = (self.trace, start) else { return };
        let scope = match scope {
            Scope::All => u64::from(self.rows),
            Scope::Rows(r) => r.len(),
        };
        let nanos = start.elapsed().as_nanos() as u64;
        let leaf = LeafTrace { leaf: id as usize, access, scope, estimated, matched: out.len(), nanos };
        trace.borrow_mut().push(leaf);
    }

    /// Whether an index of this segment answers `node` (a leaf on an indexed field).
    fn indexed(&self, node: &Node) -> bool {
        let field = match node {
            Node::Leaf { col: Col::Field(f), .. } | Node::Contains { field: f, .. } => *f,
            _ => return false,
        };
        self.indexes.get(field).is_some_and(|i| i.scalar().next().is_some())
    }

    /// Rows of `scope` whose value is not null: of a scalar or an array field.
    fn valid_in(&self, col: Col, scope: Scope) -> RoaringBitmap {
        let validity = match col {
            Col::Key => Validity(None),
            Col::Array(idx) => self.src.array(idx).validity,
            Col::Field(idx) => self.src.scalar(idx).validity,
        };
        self.valid(validity, scope)
    }

    fn column(&self, col: Col) -> ScalarColumn<'_> {
        match col {
            Col::Key => ScalarColumn { validity: Validity(None), data: ColumnData::String(self.src.keys()) },
            Col::Field(idx) => self.src.scalar(idx),
            Col::Array(_) => unreachable!("array leaves read the array column"),
        }
    }

    fn all(&self, scope: Scope) -> RoaringBitmap {
        match scope {
            Scope::All => {
                let mut all = RoaringBitmap::new();
                all.insert_range(0..self.rows);
                all
            }
            Scope::Rows(r) => r.clone(),
        }
    }

    /// Rows of `scope` holding a value.
    fn valid(&self, validity: Validity, scope: Scope) -> RoaringBitmap {
        let Some(bits) = validity.0 else {
            return self.all(scope);
        };
        match scope {
            Scope::All => valid_rows(Validity(Some(bits)), self.rows),
            Scope::Rows(r) => r.iter().filter(|&r| validity.is_valid(r as usize)).collect(),
        }
    }

    /// The rows of `scope` where the leaf is TRUE, how they were found, and (from an
    /// index) how many of the segment's rows match.
    fn leaf(&self, col: Col, test: &Test, negate: bool, scope: Scope) -> (RoaringBitmap, Access, Option<u64>) {
        let few = matches!(scope, Scope::Rows(r) if r.len() * PROBE_BELOW < u64::from(self.rows));
        let access = if few { Access::Probe } else { Access::Scan };
        if let Col::Array(f) = col {
            let a = self.src.array(f);
            let Test::Int(t) = test else {
                return (
                    select(self.rows, scope, a.validity, |_| matches!(test, Test::Const(true)) != negate),
                    access,
                    None,
                );
            };
            let length = |r: usize| a.range(r).len() as i128;
            return (select(self.rows, scope, a.validity, |r| t.holds(length(r)) != negate), access, None);
        }
        let column = self.column(col);
        let indexed = match (col, few) {
            (Col::Field(f), false) => self.indexes.get(f).and_then(|ix| match test {
                Test::Str(StrTest::Match(m)) => Some((m.index_hits(ix.text.as_deref()?, column)?, Access::FullText)),
                _ => index_hits(ix, column.data.scalar_type(), column.validity, self.rows, test)
                    .map(|(hits, kind)| (hits, Access::Index(kind))),
            }),
            _ => None,
        };
        if let Some((hits, access)) = indexed {
            let hits = if negate { valid_rows(column.validity, self.rows) - hits } else { hits };
            let estimated = Some(hits.len());
            let hits = match scope {
                Scope::All => hits,
                Scope::Rows(r) => hits & r,
            };
            return (hits, access, estimated);
        }
        (scan(self.rows, scope, column, test, negate), access, None)
    }
}

/// Rows where `test` holds, from an index of `ix` that answers it more cheaply than a
/// scan, and that index's kind; `None` to scan.
fn index_hits(
    ix: &FieldIndexes,
    ty: ScalarType,
    validity: Validity,
    rows: u32,
    test: &Test,
) -> Option<(RoaringBitmap, ScalarIndexKind)> {
    let keys = |ranges: &[(u64, u64)], prefer: ScalarIndexKind| {
        let other = match prefer {
            ScalarIndexKind::Inverted => ScalarIndexKind::Range,
            _ => ScalarIndexKind::Inverted,
        };
        if ranges.is_empty() {
            let kind = [prefer, other].into_iter().find(|&k| ix.get(k).is_some())?;
            return Some((RoaringBitmap::new(), kind));
        }
        [prefer, other].into_iter().find_map(|k| Some((ix.get(k)?.find(&Lookup::Keys(ranges))?, k)))
    };
    // Single values suit the inverted index, spans of values the range index.
    let points = ScalarIndexKind::Inverted;
    let spans = |r: &[(u64, u64)]| if r.iter().all(|(a, b)| a == b) { points } else { ScalarIndexKind::Range };
    let terms = |lookup: Lookup| Some((ix.inverted.as_ref()?.find(&lookup)?, ScalarIndexKind::Inverted));
    match test {
        Test::Const(_) => None,
        Test::Bool(want) => keys(&[(u64::from(*want), u64::from(*want))], points),
        Test::Int(IntTest::Range { lo, hi }) => {
            let r = [(int_key(ty, *lo), int_key(ty, *hi))];
            keys(&r, spans(&r))
        }
        Test::Int(IntTest::In(set)) => {
            let (min, max) = int_limits(ty);
            let r: Vec<(u64, u64)> =
                set.iter().filter(|v| (min..=max).contains(*v)).map(|&v| (int_key(ty, v), int_key(ty, v))).collect();
            keys(&r, points)
        }
        Test::Float(FloatTest::Cmp { op, value }) => {
            let r = float_ranges(*op, *value);
            keys(&r, spans(&r))
        }
        Test::Float(FloatTest::In(set)) => {
            let mut k: Vec<u64> = set.iter().filter_map(|&x| float_key(x)).collect();
            k.sort_unstable();
            k.dedup();
            let r: Vec<(u64, u64)> = k.into_iter().map(|k| (k, k)).collect();
            keys(&r, points)
        }
        Test::Str(StrTest::Cmp { op, value }) => {
            let v: &[u8] = value;
            let (lo, hi) = match op {
                CmpOp::Eq | CmpOp::Ne => {
                    let (hits, kind) = terms(Lookup::TermSet(&[v]))?;
                    return Some(match op {
                        CmpOp::Ne => (valid_rows(validity, rows) - hits, kind),
                        _ => (hits, kind),
                    });
                }
                CmpOp::Lt => (Bound::Unbounded, Bound::Excluded(v)),
                CmpOp::Le => (Bound::Unbounded, Bound::Included(v)),
                CmpOp::Gt => (Bound::Excluded(v), Bound::Unbounded),
                CmpOp::Ge => (Bound::Included(v), Bound::Unbounded),
            };
            terms(Lookup::Terms { lo, hi, keep: None })
        }
        Test::Str(StrTest::In(set)) => {
            let set: Vec<&[u8]> = set.iter().map(|s| &s[..]).collect();
            terms(Lookup::TermSet(&set))
        }
        // A full-text match is answered by the full-text index (`TextMatch::index_hits`);
        // the term index is in byte order, which case folding does not follow.
        Test::Str(StrTest::Match(_) | StrTest::ILike(_)) => None,
        Test::Str(StrTest::Like(like)) => {
            if let Like::Exact(lit) = like {
                return terms(Lookup::TermSet(&[lit]));
            }
            let (prefix, whole) = like.prefix();
            let successor = successor(&prefix);
            let lo = Bound::Included(&prefix[..]);
            let hi = successor.as_deref().map_or(Bound::Unbounded, Bound::Excluded);
            let keep = |t: &[u8]| like.matches(t);
            terms(Lookup::Terms { lo, hi, keep: (!whole).then_some(&keep as &dyn Fn(&[u8]) -> bool) })
        }
    }
}

/// Rows `0..rows` holding a value.
fn valid_rows(validity: Validity, rows: u32) -> RoaringBitmap {
    match validity.0 {
        None => {
            let mut all = RoaringBitmap::new();
            all.insert_range(0..rows);
            all
        }
        Some(bits) => {
            let mut valid = RoaringBitmap::from_lsb0_bytes(0, &bits[..bits.len().min(rows.div_ceil(8) as usize)]);
            valid.remove_range(rows..);
            valid
        }
    }
}

/// The smallest byte string above every string starting with `prefix` (`None`: there is
/// none, every string from `prefix` on qualifies).
fn successor(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut s = prefix.to_vec();
    while let Some(last) = s.pop() {
        if last < u8::MAX {
            s.push(last + 1);
            return Some(s);
        }
    }
    None
}

/// Whether element `i` of `d` passes `test`: what array filters ask of each element.
fn elem_matcher<'a>(test: &'a Test, d: ColumnData<'a>) -> Box<dyn Fn(usize) -> bool + 'a> {
    match (test, d) {
        (Test::Const(hit), _) => Box::new(move |_| *hit),
        (Test::Bool(want), ColumnData::Bool(d)) => Box::new(move |i| (d[i] != 0) == *want),
        (Test::Int(t), ColumnData::Int32(d)) => Box::new(move |i| t.holds(d[i].into())),
        (Test::Int(t), ColumnData::Int64(d)) => Box::new(move |i| t.holds(d[i].into())),
        (Test::Int(t), ColumnData::Uint32(d)) => Box::new(move |i| t.holds(d[i].into())),
        (Test::Int(t), ColumnData::Uint64(d)) => Box::new(move |i| t.holds(d[i].into())),
        (Test::Float(t), ColumnData::Float(d)) => Box::new(move |i| t.holds(d[i].into())),
        (Test::Float(t), ColumnData::Double(d)) => Box::new(move |i| t.holds(d[i])),
        (Test::Str(StrTest::Cmp { op, value }), ColumnData::String(d)) => {
            Box::new(move |i| op.holds(cmp_bytes(d.get(i), value)))
        }
        (Test::Str(StrTest::In(set)), ColumnData::String(d)) => Box::new(move |i| set.contains(d.get(i))),
        (Test::Str(StrTest::Like(like)), ColumnData::String(d)) => Box::new(move |i| like.matches(d.get(i))),
        (Test::Str(StrTest::ILike(like)), ColumnData::String(d)) => {
            Box::new(move |i| super::like::matches_folded(like, d.get(i)))
        }
        (Test::Str(StrTest::Match(m)), ColumnData::String(d)) => Box::new(move |i| m.matches(d.get(i))),
        // The segment's column type disagrees with the schema the filter was compiled for.
        _ => Box::new(|_| false),
    }
}

fn int_limits(ty: ScalarType) -> (i128, i128) {
    match ty {
        ScalarType::Int32 => (i32::MIN.into(), i32::MAX.into()),
        ScalarType::Int64 => (i64::MIN.into(), i64::MAX.into()),
        ScalarType::Uint32 => (0, u32::MAX.into()),
        _ => (0, u64::MAX.into()),
    }
}

/// The key ranges of floats `x` with `x op value` (NaN matches nothing).
fn float_ranges(op: CmpOp, value: f64) -> Vec<(u64, u64)> {
    let Some(k) = float_key(value) else { return Vec::new() };
    let (min, max) = float_extremes();
    let below = (k > min).then(|| (min, k - 1));
    let above = (k < max).then(|| (k + 1, max));
    match op {
        CmpOp::Eq => vec![(k, k)],
        CmpOp::Ne => below.into_iter().chain(above).collect(),
        CmpOp::Lt => below.into_iter().collect(),
        CmpOp::Le => vec![(min, k)],
        CmpOp::Gt => above.into_iter().collect(),
        CmpOp::Ge => vec![(k, max)],
    }
}

/// Rows of `scope` (all `rows`, or a set) holding a value for which `test` holds, without
/// allocating per row over a whole segment: bits are set in a dense word array first (one
/// store per row), then handed to roaring in one bulk conversion, an order of magnitude
/// faster than inserting dense results one by one.
fn select(rows: u32, scope: Scope, v: Validity, test: impl Fn(usize) -> bool) -> RoaringBitmap {
    if let Scope::Rows(r) = scope {
        let hits = r.iter().filter(|&r| v.is_valid(r as usize) && test(r as usize));
        return RoaringBitmap::from_sorted_iter(hits).expect("ascending");
    }
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

fn scan(rows: u32, scope: Scope, col: ScalarColumn, test: &Test, negate: bool) -> RoaringBitmap {
    let v = col.validity;
    let sel = |t: &dyn Fn(usize) -> bool| select(rows, scope, v, t);
    match (test, col.data) {
        (Test::Const(hit), _) => sel(&|_| *hit != negate),
        (Test::Bool(want), ColumnData::Bool(d)) => sel(&|r| ((d[r] != 0) == *want) != negate),
        (Test::Int(t), ColumnData::Int32(d)) => select(rows, scope, v, |r| t.holds(d[r].into()) != negate),
        (Test::Int(t), ColumnData::Int64(d)) => select(rows, scope, v, |r| t.holds(d[r].into()) != negate),
        (Test::Int(t), ColumnData::Uint32(d)) => select(rows, scope, v, |r| t.holds(d[r].into()) != negate),
        (Test::Int(t), ColumnData::Uint64(d)) => select(rows, scope, v, |r| t.holds(d[r].into()) != negate),
        (Test::Float(t), ColumnData::Float(d)) => select(rows, scope, v, |r| t.holds(d[r].into()) != negate),
        (Test::Float(t), ColumnData::Double(d)) => select(rows, scope, v, |r| t.holds(d[r]) != negate),
        (Test::Str(t), ColumnData::String(d)) => strings(rows, scope, v, d, t, negate),
        // The segment's column type disagrees with the schema the filter was compiled for.
        _ => RoaringBitmap::new(),
    }
}

fn strings(rows: u32, scope: Scope, v: Validity, d: VarColumn, test: &StrTest, negate: bool) -> RoaringBitmap {
    match test {
        StrTest::Cmp { op, value } => select(rows, scope, v, |r| op.holds(cmp_bytes(d.get(r), value)) != negate),
        StrTest::In(set) => select(rows, scope, v, |r| set.contains(d.get(r)) != negate),
        StrTest::Like(like) => select(rows, scope, v, |r| like.matches(d.get(r)) != negate),
        StrTest::ILike(like) => select(rows, scope, v, |r| super::like::matches_folded(like, d.get(r)) != negate),
        StrTest::Match(m) => select(rows, scope, v, |r| m.matches(d.get(r)) != negate),
    }
}

/// Byte-wise order. Empty sides are decided by length: glibc's AVX-512 `memcmp` takes a
/// slow path for zero-length compares on some CPUs (measured: 65 ns a row on `!= ''`).
#[inline]
fn cmp_bytes(a: &[u8], b: &[u8]) -> Ordering {
    if a.is_empty() || b.is_empty() { a.len().cmp(&b.len()) } else { a.cmp(b) }
}
