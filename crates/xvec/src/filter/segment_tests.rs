//! End-to-end tests of compiled filters over an in-memory segment.

use std::cmp::Ordering;

use crate::filter::Filter;
use crate::index::field_indexes::{FieldIndex, FieldIndexes};
use crate::index::scalar::{self, ScalarIndex};
use crate::schema::{Field, Metric, ScalarIndexKind, ScalarType, Schema, VectorType};
use crate::storage::column::{
    ArrayColumn, ColumnBuf, ColumnSource, Offsets, ScalarColumn, Validity, VarBuf, VarColumn,
};

struct Column {
    validity: Option<Vec<u8>>,
    data: ColumnBuf,
}

fn var(values: &[&str]) -> VarBuf {
    let mut buf = VarBuf::new();
    values.iter().for_each(|v| buf.push(v.as_bytes()));
    buf
}

/// A column from optional values; nullable (with a validity bitmap) only if one is None.
fn column<T: Copy + Default>(values: &[Option<T>], wrap: impl Fn(Vec<T>) -> ColumnBuf) -> Column {
    let validity = values.iter().any(Option::is_none).then(|| {
        let mut bits = vec![0u8; values.len().div_ceil(8)];
        for (i, v) in values.iter().enumerate() {
            bits[i / 8] |= u8::from(v.is_some()) << (i % 8);
        }
        bits
    });
    Column { validity, data: wrap(values.iter().map(|v| v.unwrap_or_default()).collect()) }
}

fn strings(values: &[Option<&str>]) -> Column {
    let mut col = column(&values.iter().map(|v| v.map(|_| ())).collect::<Vec<_>>(), |_| ColumnBuf::Bool(vec![]));
    col.data = text(&values.iter().map(|v| v.unwrap_or("")).collect::<Vec<_>>());
    col
}

struct Segment {
    rows: usize,
    keys: VarBuf,
    columns: Vec<Option<Column>>,
    /// Array fields by position: the rows' offsets into `column`, the elements (its
    /// validity is the rows').
    arrays: Vec<Option<(Vec<u64>, Column)>>,
}

/// A string column of `values`.
fn text(values: &[&str]) -> ColumnBuf {
    ColumnBuf::String(var(values))
}

impl ColumnSource for Segment {
    fn rows(&self) -> usize {
        self.rows
    }

    fn keys(&self) -> VarColumn<'_> {
        self.keys.view()
    }

    fn scalar(&self, field: usize) -> ScalarColumn<'_> {
        let col = self.columns[field].as_ref().expect("scalar field");
        ScalarColumn { validity: Validity(col.validity.as_deref()), data: col.data.view() }
    }

    fn array(&self, field: usize) -> ArrayColumn<'_> {
        let (offsets, col) = self.arrays[field].as_ref().expect("array field");
        ArrayColumn {
            validity: Validity(col.validity.as_deref()),
            offsets: Offsets::Stored(offsets),
            elems: col.data.view(),
        }
    }
}

/// Field order of the test schema; `emb` (0) is a vector field, the last three are
/// array fields (of `s`'s, `i`'s and `d`'s types).
const NAMES: [&str; 12] = ["emb", "s", "b", "i", "l", "u", "w", "f", "d", "as", "ai", "ad"];
/// The first array field, and the scalar field each array's elements are typed like.
const ARRAYS: usize = 9;
const ELEMENT_OF: [usize; 3] = [1, 3, 8];

fn schema() -> Schema {
    use ScalarType::*;
    let mut fields = vec![Field::vector("emb", VectorType::Fp32, 2, Metric::L2)];
    for (name, ty) in NAMES[1..ARRAYS].iter().zip([String, Bool, Int32, Int64, Uint32, Uint64, Float, Double]) {
        fields.push(Field::scalar(*name, ty).nullable(true));
    }
    for (name, ty) in NAMES[ARRAYS..].iter().zip([String, Int32, Double]) {
        fields.push(Field::array(*name, ty).nullable(true));
    }
    Schema::new("t", fields).unwrap()
}

/// An array column from optional rows of elements (`wrap` makes their data).
fn array_column<T: Clone>(rows: &[Option<Vec<T>>], wrap: impl Fn(Vec<T>) -> ColumnBuf) -> (Vec<u64>, Column) {
    let mut offsets = vec![0u64];
    let mut elems = Vec::new();
    for r in rows {
        elems.extend(r.iter().flatten().cloned());
        offsets.push(elems.len() as u64);
    }
    let mut col = column(&rows.iter().map(|r| r.as_ref().map(|_| ())).collect::<Vec<_>>(), |_| ColumnBuf::Bool(vec![]));
    col.data = wrap(elems);
    (offsets, col)
}

fn string_arrays(rows: &[Option<Vec<&str>>]) -> (Vec<u64>, Column) {
    array_column(rows, |elems| text(&elems))
}

/// Six rows; every column is null in row 2.
fn segment() -> Segment {
    Segment {
        rows: 6,
        keys: var(&["k0", "k1", "k2", "k3", "k4", "k5"]),
        columns: vec![
            None,
            Some(strings(&[Some("apple"), Some("banana"), None, Some(""), Some("apricot"), Some("b_c")])),
            Some(column(&[Some(1u8), Some(0), None, Some(1), Some(0), Some(1)], ColumnBuf::Bool)),
            Some(column(&[Some(1), Some(-5), None, Some(i32::MAX), Some(i32::MIN), Some(2)], ColumnBuf::Int32)),
            Some(column(&[Some(1), Some(-5), None, Some(i64::MAX), Some(i64::MIN), Some(2)], ColumnBuf::Int64)),
            Some(column(&[Some(1), Some(0), None, Some(u32::MAX), Some(7), Some(2)], ColumnBuf::Uint32)),
            Some(column(&[Some(1), Some(0), None, Some(u64::MAX), Some(7), Some(2)], ColumnBuf::Uint64)),
            Some(column(&[Some(1.0), Some(-0.5), None, Some(0.1), Some(2.5), Some(-0.0)], ColumnBuf::Float)),
            Some(column(&[Some(1.0), Some(-0.5), None, Some(0.1), Some(2.5), Some(-0.0)], ColumnBuf::Double)),
            None,
            None,
            None,
        ],
        arrays: vec![
            None,
            None,
            None,
            None,
            None,
            None,
            None,
            None,
            None,
            Some(string_arrays(&[
                Some(vec!["a", "b"]),
                Some(vec![]),
                None,
                Some(vec!["b", "b", "c"]),
                Some(vec!["apple"]),
                Some(vec!["a"]),
            ])),
            Some(array_column(
                &[Some(vec![1, 2]), Some(vec![]), None, Some(vec![-5]), Some(vec![2, 2, 3]), Some(vec![i32::MAX])],
                ColumnBuf::Int32,
            )),
            Some(array_column(
                &[Some(vec![0.5]), Some(vec![]), None, Some(vec![1.0, -0.0]), Some(vec![2.5]), Some(vec![0.1])],
                ColumnBuf::Double,
            )),
        ],
    }
}

/// Every scalar index `kinds` allows on each field of `seg`, built in `dir`.
fn indexes(seg: &Segment, schema: &Schema, dir: &std::path::Path, kinds: &[ScalarIndexKind]) -> Vec<FieldIndexes> {
    let mut out = vec![FieldIndexes::default(); schema.fields().len()];
    for (pos, f) in schema.fields().iter().enumerate() {
        let ty = &f.ty;
        for &kind in kinds.iter().filter(|k| k.fits(ty)) {
            let path = dir.join(format!("f{pos}-{}.idx", kind.name()));
            let col = scalar::Indexed::of(seg, ty, pos);
            scalar::build(&path, 1, pos as u16, kind, ty, &col, seg.rows).unwrap();
            let index = ScalarIndex::open(&path, 1, pos as u16, kind, ty, seg.rows, false).unwrap();
            out[pos].set(FieldIndex::Scalar(kind, std::sync::Arc::new(index)));
        }
    }
    out
}

/// The index sets filters are checked with: none, each kind alone, and both.
const INDEX_SETS: [&[ScalarIndexKind]; 4] = [
    &[],
    &[ScalarIndexKind::Inverted],
    &[ScalarIndexKind::Range],
    &[ScalarIndexKind::Inverted, ScalarIndexKind::Range],
];

fn check(seg: &Segment, schema: &Schema, cases: &[(&str, &[u32])]) {
    let dir = tempfile::tempdir().unwrap();
    let _always = AlwaysAnswer::on();
    for kinds in INDEX_SETS {
        let ix = indexes(seg, schema, dir.path(), kinds);
        for &(text, want) in cases {
            let filter = Filter::compile(text, schema).unwrap_or_else(|e| panic!("{text}: {e}"));
            let got: Vec<u32> = filter.evaluate(seg, &ix).iter().collect();
            assert_eq!(got, want, "{text} with indexes {kinds:?}");
        }
    }
}

/// Makes this thread's indexes answer every lookup while it lives.
struct AlwaysAnswer;

impl AlwaysAnswer {
    fn on() -> AlwaysAnswer {
        scalar::ALWAYS_ANSWER.with(|a| a.set(true));
        AlwaysAnswer
    }
}

impl Drop for AlwaysAnswer {
    fn drop(&mut self) {
        scalar::ALWAYS_ANSWER.with(|a| a.set(false));
    }
}

const NON_NULL: &[u32] = &[0, 1, 3, 4, 5];

#[test]
fn strings_and_keys() {
    check(
        &segment(),
        &schema(),
        &[
            ("s = 'apple'", &[0]),
            ("s != 'apple'", &[1, 3, 4, 5]),
            ("s <> 'apple'", &[1, 3, 4, 5]),
            ("s < 'b'", &[0, 3, 4]),
            ("s <= 'banana'", NON_NULL),
            ("s > 'apricot'", &[1, 5]),
            ("s >= 'b_c'", &[1, 5]),
            ("s IN ('apple', 'zzz', '')", &[0, 3]),
            ("s NOT IN ('apple', '')", &[1, 4, 5]),
            ("s LIKE 'ap%'", &[0, 4]),
            ("s NOT LIKE 'ap%'", &[1, 3, 5]),
            ("s LIKE '%a'", &[1]),
            ("s LIKE '%an%'", &[1]),
            ("s LIKE 'b_c'", &[5]),
            ("s LIKE 'b\\_c'", &[5]),
            ("s LIKE '_a%a'", &[1]),
            ("s LIKE 'a%t'", &[4]),
            ("s LIKE 'apple'", &[0]),
            ("s LIKE ''", &[3]),
            ("s LIKE '%'", NON_NULL),
            ("s LIKE '_'", &[]),
            ("s like 'AP%'", &[]),
            ("s IS NULL", &[2]),
            ("s IS NOT NULL", NON_NULL),
            ("_key = 'k3'", &[3]),
            ("_key > 'k3'", &[4, 5]),
            ("\"_key\" LIKE 'k%'", &[0, 1, 2, 3, 4, 5]),
            ("_key IN ('k0', 'k5', 'x')", &[0, 5]),
            ("_key IS NULL", &[]),
            ("_key IS NOT NULL", &[0, 1, 2, 3, 4, 5]),
            ("NOT _key = 'k1'", &[0, 2, 3, 4, 5]),
        ],
    );
}

#[test]
fn bools() {
    check(
        &segment(),
        &schema(),
        &[
            ("b = TRUE", &[0, 3, 5]),
            ("b = false", &[1, 4]),
            ("b != TRUE", &[1, 4]),
            ("b <> FALSE", &[0, 3, 5]),
            ("b IN (TRUE)", &[0, 3, 5]),
            ("b IN (TRUE, FALSE)", NON_NULL),
            ("b NOT IN (TRUE, FALSE)", &[]),
            ("b NOT IN (FALSE)", &[0, 3, 5]),
            ("b IS NULL", &[2]),
            ("NOT b = TRUE", &[1, 4]),
        ],
    );
}

#[test]
fn integers() {
    check(
        &segment(),
        &schema(),
        &[
            ("i = 1", &[0]),
            ("i != 1", &[1, 3, 4, 5]),
            ("i < 2", &[0, 1, 4]),
            ("i <= 2", &[0, 1, 4, 5]),
            ("i > 1", &[3, 5]),
            ("i >= 1", &[0, 3, 5]),
            ("i = 2147483647", &[3]),
            ("i = -2147483648", &[4]),
            ("i IN (1, 2, 3)", &[0, 5]),
            ("i NOT IN (1, 2)", &[1, 3, 4]),
            ("i IS NULL", &[2]),
            // Non-integer and out-of-range literals compare mathematically.
            ("i < 1e10", NON_NULL),
            ("i > 1e10", &[]),
            ("i = 1e10", &[]),
            ("i != 1e10", NON_NULL),
            ("i > -1e10", NON_NULL),
            ("i < 2147483648", NON_NULL),
            ("i = 2147483648", &[]),
            ("i < 2.5", &[0, 1, 4, 5]),
            ("i = 2.5", &[]),
            ("i != 2.5", NON_NULL),
            ("i > 1.5", &[3, 5]),
            ("i >= 2.0", &[3, 5]),
            ("i <= -4.5", &[1, 4]),
            ("i = 20e-1", &[5]),
            ("i IN (2.5, 1e10, 1)", &[0]),
            ("i NOT IN (2.5, 1e10)", NON_NULL),
            ("l = 9223372036854775807", &[3]),
            ("l > 9223372036854775807", &[]),
            ("l < 9223372036854775808", NON_NULL),
            ("l >= -9223372036854775808", NON_NULL),
            ("l < -9223372036854775808", &[]),
            ("l < -1e30", &[]),
            ("l > -5.5", &[0, 1, 3, 5]),
            ("l IN (-5, 2)", &[1, 5]),
            ("u < 0", &[]),
            ("u >= 0", NON_NULL),
            ("u > -1", NON_NULL),
            ("u = -1", &[]),
            ("u != -1", NON_NULL),
            ("u = 4294967295", &[3]),
            ("u > 4294967295", &[]),
            ("u IN (0, 7, -3)", &[1, 4]),
            ("u <= 1", &[0, 1]),
            ("w = 18446744073709551615", &[3]),
            ("w > 18446744073709551614", &[3]),
            ("w < 18446744073709551616", NON_NULL),
            ("w >= 1e19", &[3]),
            ("w < 1", &[1]),
            ("w NOT IN (0, 1)", &[3, 4, 5]),
        ],
    );
}

#[test]
fn floats() {
    check(
        &segment(),
        &schema(),
        &[
            ("f = 0.1", &[3]),
            ("f = 1", &[0]),
            ("f < 0", &[1]),
            ("f <= 0", &[1, 5]),
            ("f = 0", &[5]),
            ("f > 1e39", &[]),
            ("f < 1e39", NON_NULL),
            ("f >= -0.5", NON_NULL),
            ("f != 2.5", &[0, 1, 3, 5]),
            ("f IN (0, 2.5)", &[4, 5]),
            ("f NOT IN (1, -0.5)", &[3, 4, 5]),
            ("f > 2", &[4]),
            ("d = 0.1", &[3]),
            ("d IN (0.1, 1)", &[0, 3]),
            ("d < 1e400", NON_NULL),
            ("d > 2.4999999999", &[4]),
            ("d = -0", &[5]),
            ("d <> -0.5", &[0, 3, 4, 5]),
            ("d IS NOT NULL", NON_NULL),
        ],
    );
}

#[test]
fn arrays() {
    check(
        &segment(),
        &schema(),
        &[
            ("as CONTAIN_ANY ('a')", &[0, 5]),
            ("as contain_any ('a', 'c')", &[0, 3, 5]),
            ("as CONTAIN_ALL ('a', 'b')", &[0]),
            ("as CONTAIN_ALL ('b')", &[0, 3]),
            ("as CONTAIN_ALL ('b', 'b')", &[0, 3]),
            ("as NOT CONTAIN_ANY ('a')", &[1, 3, 4]),
            ("NOT as CONTAIN_ALL ('b', 'c')", &[0, 1, 4, 5]),
            ("as CONTAIN_ANY ('zzz')", &[]),
            ("as NOT CONTAIN_ANY ('zzz')", &[0, 1, 3, 4, 5]),
            ("array_length(as) = 0", &[1]),
            ("ARRAY_LENGTH(as) >= 2", &[0, 3]),
            ("array_length(ai) > 2.5", &[4]),
            ("NOT array_length(ai) < 1", &[0, 3, 4, 5]),
            ("array_length(ad) <> 1", &[1, 3]),
            ("as IS NULL", &[2]),
            ("as IS NOT NULL", NON_NULL),
            ("ai CONTAIN_ANY (2, 1e10)", &[0, 4]),
            ("ai CONTAIN_ALL (2, 3)", &[4]),
            ("ai CONTAIN_ANY (2147483647)", &[5]),
            ("ai CONTAIN_ANY (2.5)", &[]),
            ("ai NOT CONTAIN_ANY (2)", &[1, 3, 5]),
            ("ai CONTAIN_ALL (2, 2.5)", &[]),
            ("ad CONTAIN_ANY (0)", &[3]),
            ("ad CONTAIN_ANY (0.1, 2.5)", &[4, 5]),
            ("ad CONTAIN_ALL (1, -0)", &[3]),
            ("as CONTAIN_ANY ('b') AND ai CONTAIN_ANY (-5)", &[3]),
            ("as CONTAIN_ANY ('apple') OR array_length(ai) = 0", &[1, 4]),
        ],
    );
    let err = |text: &str| Filter::compile(text, &schema()).unwrap_err().message;
    assert!(err("as = 'a'").contains("array field (array_string); test it with CONTAIN_ANY"));
    assert_eq!(err("s CONTAIN_ANY ('a')"), "CONTAIN_ANY applies to array fields; field `s` is string");
    assert_eq!(err("array_length(i) > 1"), "array_length applies to array fields; field `i` is int32");
    assert!(err("as CONTAIN_ALL (1)").contains("field `as` is string but `1` is a number"));
    assert!(err("ai CONTAIN_ANY 1").contains("`(` or a list $parameter after CONTAIN_ANY"));
    assert!(err("array_length(as) LIKE 'x'").contains("a comparison operator after array_length"));
}

#[test]
fn three_valued_logic() {
    // Every (x, y) pair over {1, 0, NULL}.
    let x = [Some(1), Some(1), Some(1), Some(0), Some(0), Some(0), None, None, None];
    let y = [Some(1), Some(0), None, Some(1), Some(0), None, Some(1), Some(0), None];
    let seg = Segment {
        rows: 9,
        keys: var(&["a"; 9]),
        columns: vec![Some(column(&x, ColumnBuf::Int32)), Some(column(&y, ColumnBuf::Int32))],
        arrays: vec![],
    };
    let schema = Schema::builder("t")
        .field(Field::scalar("x", ScalarType::Int32).nullable(true))
        .field(Field::scalar("y", ScalarType::Int32).nullable(true))
        .build()
        .unwrap();
    check(
        &seg,
        &schema,
        &[
            ("x = 1", &[0, 1, 2]),
            ("NOT (x = 1)", &[3, 4, 5]),
            ("x != 1", &[3, 4, 5]),
            ("NOT NOT x = 1", &[0, 1, 2]),
            ("x NOT IN (1)", &[3, 4, 5]),
            ("NOT (x NOT IN (1))", &[0, 1, 2]),
            ("x = 1 AND y = 1", &[0]),
            ("NOT (x = 1 AND y = 1)", &[1, 3, 4, 5, 7]),
            ("x = 1 OR y = 1", &[0, 1, 2, 3, 6]),
            ("NOT (x = 1 OR y = 1)", &[4]),
            ("x IS NULL OR x = 1", &[0, 1, 2, 6, 7, 8]),
            ("NOT x IS NULL AND NOT y = 1", &[1, 4]),
            ("x = 1 AND y IS NULL", &[2]),
            ("(x = 1 OR y IS NULL) AND NOT (x = 0 AND y = 0)", &[0, 1, 2]),
            ("NOT (x = 1 OR y = 1) OR x IS NULL", &[4, 6, 7, 8]),
            ("x = 1 OR x = 0 AND y = 0", &[0, 1, 2, 4]),
            ("(x = 1 OR x = 0) AND y = 0", &[1, 4]),
            ("x = 0 AND y = 0 OR x = 1", &[0, 1, 2, 4]),
            ("NOT (NOT (x = 1) OR y IS NOT NULL)", &[2]),
            ("x = 5 AND y = 1", &[]),
            ("x IS NULL OR x IS NOT NULL", &[0, 1, 2, 3, 4, 5, 6, 7, 8]),
        ],
    );
}

#[test]
fn validity_tail_and_multiline() {
    // 11 rows: the validity bitmap's second byte is partly beyond the segment.
    let vals: Vec<Option<i64>> = (0..11).map(|i| (i % 3 != 0).then_some(i)).collect();
    let mut col = column(&vals, ColumnBuf::Int64);
    col.validity.as_mut().unwrap()[1] |= 0xF8;
    let seg = Segment { rows: 11, keys: var(&["k"; 11]), columns: vec![Some(col)], arrays: vec![] };
    let schema = Schema::builder("t").field(Field::scalar("v", ScalarType::Int64).nullable(true)).build().unwrap();
    check(
        &seg,
        &schema,
        &[
            ("v IS NULL", &[0, 3, 6, 9]),
            ("v IS NOT NULL", &[1, 2, 4, 5, 7, 8, 10]),
            ("v >= 5\n  AND\n  v <= 8", &[5, 7, 8]),
        ],
    );
}

/// Seeded LCG, so failures reproduce.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) as usize % n
    }

    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())]
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Value {
    Str(&'static str),
    Bool(bool),
    Int(i128),
    Num(f64),
}

#[derive(Clone, Debug)]
enum Lit {
    Str(&'static str),
    Bool(bool),
    /// Twice the value, so halves are exact.
    Half(i128),
    Num(f64),
}

#[derive(Clone, Debug)]
enum Expr {
    And(Vec<Expr>),
    Or(Vec<Expr>),
    Not(Box<Expr>),
    Cmp(usize, &'static str, Lit),
    In(usize, bool, Vec<Lit>),
    /// Field, negated, ILIKE (else LIKE), the pattern.
    Like(usize, bool, bool, String),
    /// Field, negated, the two ends.
    Between(usize, bool, Lit, Lit),
    /// `TRUE` or `FALSE` as a condition.
    Const(bool),
    IsNull(usize, bool),
    /// Array field, CONTAIN_ALL (else ANY), negated, the values.
    Contain(usize, bool, bool, Vec<Lit>),
    /// `array_length(field) op lit` (a `Lit::Half`).
    Length(usize, &'static str, Lit),
}

/// One row of plain values: scalars (the key last) and arrays, by field position.
struct Row {
    one: Vec<Option<Value>>,
    many: Vec<Option<Vec<Value>>>,
}

const WORDS: [&str; 12] = ["", "a", "ab", "abc", "b", "ba", "é", "aé", "a_", "%", "Ab", "É"];
const KEYS: [&str; 8] = ["k0", "k1", "k10", "k2", "k", "", "a", "é"];
const FLOATS: [f64; 9] = [-2.0, -0.5, 0.0, -0.0, 0.5, 1.25, 3.0, 1e10, 0.1];
const KEY: usize = NAMES.len();

fn int_range(field: usize) -> (i128, i128) {
    match NAMES[field] {
        "i" => (i32::MIN.into(), i32::MAX.into()),
        "l" => (i64::MIN.into(), i64::MAX.into()),
        "u" => (0, u32::MAX.into()),
        _ => (0, u64::MAX.into()),
    }
}

fn random_value(rng: &mut Rng, field: usize) -> Value {
    match NAMES[field] {
        "s" => Value::Str(rng.pick(&WORDS)),
        "b" => Value::Bool(rng.below(2) == 1),
        "f" | "d" => Value::Num(rng.pick(&FLOATS)),
        _ => {
            let (min, max) = int_range(field);
            Value::Int(rng.pick(&[min, max, -1, 0, 1, 2, 3]).clamp(min, max))
        }
    }
}

fn random_lit(rng: &mut Rng, field: usize) -> Lit {
    match NAMES.get(field).copied().unwrap_or("_key") {
        "_key" => Lit::Str(rng.pick(&KEYS)),
        "s" => Lit::Str(rng.pick(&WORDS)),
        "b" => Lit::Bool(rng.below(2) == 1),
        "f" | "d" => {
            let stored = rng.pick(&FLOATS);
            Lit::Num(rng.pick(&[stored, stored, 1.0, -1.0, 2.0, 1e300, -1e39]))
        }
        _ => {
            let (min, max) = int_range(field);
            let base = rng.pick(&[min, max, -1, 0, 1, 2, 3, min - 1, max + 1, 10_000_000_000, -10_000_000_000]);
            Lit::Half(base * 2 + rng.pick(&[-1, 0, 0, 1]))
        }
    }
}

fn random_expr(rng: &mut Rng, depth: u32) -> Expr {
    let kind = if depth == 0 { 3 } else { rng.below(6) };
    if rng.below(40) == 0 {
        return Expr::Const(rng.below(2) == 1);
    }
    let children = |rng: &mut Rng| (0..2 + rng.below(2)).map(|_| random_expr(rng, depth - 1)).collect();
    match kind {
        0 => Expr::And(children(rng)),
        1 => Expr::Or(children(rng)),
        2 => Expr::Not(Box::new(random_expr(rng, depth - 1))),
        _ if rng.below(4) == 0 => {
            let field = ARRAYS + rng.below(KEY - ARRAYS);
            let elem = ELEMENT_OF[field - ARRAYS];
            let list = |rng: &mut Rng| (0..1 + rng.below(3)).map(|_| random_lit(rng, elem)).collect();
            match rng.below(4) {
                0 | 1 => Expr::Contain(field, rng.below(2) == 1, rng.below(3) == 0, list(rng)),
                2 => {
                    let op = rng.pick(&["=", "!=", "<>", "<", "<=", ">", ">="]);
                    Expr::Length(field, op, Lit::Half(rng.pick(&[-1, 0, 1, 2, 3, 5]) * 2 + rng.pick(&[-1, 0, 0, 1])))
                }
                _ => Expr::IsNull(field, rng.below(2) == 1),
            }
        }
        _ => {
            let field = 1 + rng.below(ARRAYS - 1);
            let field = if rng.below(9) == 0 { KEY } else { field };
            let string = field == KEY || NAMES[field] == "s";
            let bool_field = NAMES.get(field) == Some(&"b");
            if !bool_field && rng.below(8) == 0 {
                return Expr::Between(field, rng.below(3) == 0, random_lit(rng, field), random_lit(rng, field));
            }
            match rng.below(if string { 4 } else { 3 }) {
                0 => {
                    let ops = if NAMES.get(field) == Some(&"b") {
                        &["=", "!=", "<>"][..]
                    } else {
                        &["=", "!=", "<>", "<", "<=", ">", ">="]
                    };
                    Expr::Cmp(field, rng.pick(ops), random_lit(rng, field))
                }
                1 => {
                    Expr::In(field, rng.below(2) == 1, (0..1 + rng.below(4)).map(|_| random_lit(rng, field)).collect())
                }
                2 => Expr::IsNull(field, rng.below(2) == 1),
                _ => {
                    let fold = rng.below(3) == 0;
                    let chars: &[char] = if fold {
                        &['a', 'B', 'é', 'É', '%', '_', 'K', '1']
                    } else {
                        &['a', 'b', 'é', '%', '_', 'k', '1']
                    };
                    let pattern = (0..rng.below(5)).map(|_| rng.pick(chars)).collect();
                    Expr::Like(field, rng.below(2) == 1, fold, pattern)
                }
            }
        }
    }
}

fn render_lit(lit: &Lit, rng: &mut Rng) -> String {
    match lit {
        Lit::Str(s) => format!("'{}'", s.replace('\'', "''")),
        Lit::Bool(b) => (if *b { "TRUE" } else { "false" }).to_string(),
        Lit::Num(x) => format!("{x:?}"),
        Lit::Half(h) if h % 2 == 0 => match rng.below(3) {
            0 => format!("{}", h / 2),
            1 => format!("{}e0", h / 2),
            _ => format!("{}0E-1", h / 2),
        },
        Lit::Half(h) => format!("{}{}.5", if *h < 0 { "-" } else { "" }, h.abs() / 2),
    }
}

fn field_name(field: usize) -> &'static str {
    NAMES.get(field).copied().unwrap_or("_key")
}

/// Text with the fewest parentheses the precedence rules allow.
fn render(e: &Expr, rng: &mut Rng) -> String {
    let kw = |rng: &mut Rng, k: &str| {
        if rng.below(2) == 0 { k.to_string() } else { k.to_lowercase() }
    };
    let group = |e: &Expr, rng: &mut Rng, wrap: bool| {
        if wrap { format!("({})", render(e, rng)) } else { render(e, rng) }
    };
    match e {
        Expr::And(xs) => {
            let parts: Vec<String> = xs.iter().map(|x| group(x, rng, matches!(x, Expr::Or(_)))).collect();
            parts.join(&format!(" {} ", kw(rng, "AND")))
        }
        Expr::Or(xs) => {
            let parts: Vec<String> = xs.iter().map(|x| group(x, rng, false)).collect();
            parts.join(&format!("\n{} ", kw(rng, "OR")))
        }
        Expr::Not(x) => format!("{} {}", kw(rng, "NOT"), group(x, rng, matches!(**x, Expr::And(_) | Expr::Or(_)))),
        Expr::Cmp(f, op, lit) => format!("{} {op} {}", field_name(*f), render_lit(lit, rng)),
        Expr::In(f, neg, list) => {
            let items: Vec<String> = list.iter().map(|l| render_lit(l, rng)).collect();
            format!("{} {}IN ({})", field_name(*f), if *neg { "NOT " } else { "" }, items.join(", "))
        }
        Expr::Like(f, neg, fold, p) => {
            let op = kw(rng, if *fold { "ILIKE" } else { "LIKE" });
            format!("{} {}{op} '{p}'", field_name(*f), if *neg { "NOT " } else { "" })
        }
        Expr::Between(f, neg, lo, hi) => {
            let (lo, hi) = (render_lit(lo, rng), render_lit(hi, rng));
            format!("{} {}{} {lo} AND {hi}", field_name(*f), if *neg { "NOT " } else { "" }, kw(rng, "BETWEEN"))
        }
        Expr::Const(v) => kw(rng, if *v { "TRUE" } else { "FALSE" }),
        Expr::IsNull(f, neg) => format!("{} IS {}NULL", field_name(*f), if *neg { "NOT " } else { "" }),
        Expr::Contain(f, all, neg, list) => {
            let items: Vec<String> = list.iter().map(|l| render_lit(l, rng)).collect();
            let op = kw(rng, if *all { "CONTAIN_ALL" } else { "CONTAIN_ANY" });
            format!("{} {}{op} ({})", field_name(*f), if *neg { "NOT " } else { "" }, items.join(", "))
        }
        Expr::Length(f, op, lit) => format!("array_length({}) {op} {}", field_name(*f), render_lit(lit, rng)),
    }
}

fn naive_like(p: &[char], s: &[char]) -> bool {
    match p.split_first() {
        None => s.is_empty(),
        Some(('%', rest)) => (0..=s.len()).any(|i| naive_like(rest, &s[i..])),
        Some(('_', rest)) => !s.is_empty() && naive_like(rest, &s[1..]),
        Some((c, rest)) => s.first() == Some(c) && naive_like(rest, &s[1..]),
    }
}

/// `value ? lit` for a non-null value; `None` for type pairs that never meet.
fn naive_cmp(field: usize, value: Value, lit: &Lit) -> Option<Ordering> {
    match (value, lit) {
        (Value::Str(v), Lit::Str(l)) => Some(v.as_bytes().cmp(l.as_bytes())),
        (Value::Bool(v), Lit::Bool(l)) => Some(v.cmp(l)),
        (Value::Int(v), Lit::Half(h)) => Some((2 * v).cmp(h)),
        (Value::Num(v), Lit::Num(l)) => {
            let l = if NAMES[field] == "f" { f64::from(*l as f32) } else { *l };
            v.partial_cmp(&l)
        }
        _ => None,
    }
}

fn holds(op: &str, ord: Option<Ordering>) -> bool {
    ord.is_some_and(|o| match op {
        "=" => o.is_eq(),
        "!=" | "<>" => o.is_ne(),
        "<" => o.is_lt(),
        "<=" => o.is_le(),
        ">" => o.is_gt(),
        _ => o.is_ge(),
    })
}

/// Three-valued evaluation of one row over plain values.
fn naive(e: &Expr, row: &Row) -> Option<bool> {
    match e {
        Expr::And(xs) => {
            let vs: Vec<Option<bool>> = xs.iter().map(|x| naive(x, row)).collect();
            if vs.contains(&Some(false)) {
                Some(false)
            } else if vs.contains(&None) {
                None
            } else {
                Some(true)
            }
        }
        Expr::Or(xs) => {
            let vs: Vec<Option<bool>> = xs.iter().map(|x| naive(x, row)).collect();
            if vs.contains(&Some(true)) {
                Some(true)
            } else if vs.contains(&None) {
                None
            } else {
                Some(false)
            }
        }
        Expr::Not(x) => naive(x, row).map(|b| !b),
        Expr::IsNull(f, neg) if *f >= ARRAYS && *f < KEY => Some(row.many[*f].is_none() != *neg),
        Expr::IsNull(f, neg) => Some(row.one[*f].is_none() != *neg),
        Expr::Contain(f, all, neg, list) => row.many[*f].as_ref().map(|xs| {
            let elem = ELEMENT_OF[*f - ARRAYS];
            let has = |l: &Lit| xs.iter().any(|v| holds("=", naive_cmp(elem, *v, l)));
            let hit = if *all { list.iter().all(has) } else { list.iter().any(has) };
            hit != *neg
        }),
        Expr::Length(f, op, Lit::Half(h)) => {
            row.many[*f].as_ref().map(|xs| holds(op, Some((2 * xs.len() as i128).cmp(h))))
        }
        Expr::Length(..) => unreachable!("lengths compare with integers"),
        Expr::Cmp(f, op, lit) => row.one[*f].map(|v| holds(op, naive_cmp(*f, v, lit))),
        Expr::In(f, neg, list) => row.one[*f].map(|v| list.iter().any(|l| holds("=", naive_cmp(*f, v, l))) != *neg),
        Expr::Like(f, neg, fold, p) => row.one[*f].map(|v| match v {
            Value::Str(s) => {
                let (p, s) = if *fold { (p.to_lowercase(), s.to_lowercase()) } else { (p.clone(), s.to_string()) };
                let (p, s): (Vec<char>, Vec<char>) = (p.chars().collect(), s.chars().collect());
                naive_like(&p, &s) != *neg
            }
            _ => false,
        }),
        Expr::Between(f, neg, lo, hi) => {
            row.one[*f].map(|v| (holds(">=", naive_cmp(*f, v, lo)) && holds("<=", naive_cmp(*f, v, hi))) != *neg)
        }
        Expr::Const(v) => Some(*v),
    }
}

fn random_segment(rng: &mut Rng, rows: usize) -> (Segment, Vec<Row>) {
    let keys: Vec<&'static str> = (0..rows).map(|_| rng.pick(&KEYS)).collect();
    // table[row].one[field], with the key at index KEY.
    let mut table: Vec<Row> = (0..rows).map(|_| Row { one: vec![None; KEY + 1], many: vec![None; KEY] }).collect();
    let mut columns: Vec<Option<Column>> = vec![None];
    for (field, &name) in NAMES.iter().enumerate().take(ARRAYS).skip(1) {
        let nullable = !matches!(name, "u" | "d");
        let values: Vec<Option<Value>> =
            (0..rows).map(|_| (!nullable || rng.below(4) > 0).then(|| random_value(rng, field))).collect();
        for (row, v) in values.iter().enumerate() {
            table[row].one[field] = *v;
        }
        macro_rules! typed {
            ($variant:ident, $pat:pat => $e:expr) => {
                column(&values.iter().map(|v| v.map(|$pat| $e)).collect::<Vec<_>>(), ColumnBuf::$variant)
            };
        }
        columns.push(Some(match name {
            "s" => strings(
                &values.iter().map(|v| v.map(|v| if let Value::Str(s) = v { s } else { "" })).collect::<Vec<_>>(),
            ),
            "b" => typed!(Bool, v => u8::from(v == Value::Bool(true))),
            "f" => typed!(Float, v => if let Value::Num(x) = v { x as f32 } else { 0.0 }),
            "d" => typed!(Double, v => if let Value::Num(x) = v { x } else { 0.0 }),
            name => {
                let int = |v: Value| if let Value::Int(x) = v { x } else { 0 };
                match name {
                    "i" => typed!(Int32, v => int(v) as i32),
                    "l" => typed!(Int64, v => int(v) as i64),
                    "u" => typed!(Uint32, v => int(v) as u32),
                    _ => typed!(Uint64, v => int(v) as u64),
                }
            }
        }));
    }
    let mut arrays: Vec<Option<(Vec<u64>, Column)>> = (0..ARRAYS).map(|_| None).collect();
    for field in ARRAYS..KEY {
        let elem = ELEMENT_OF[field - ARRAYS];
        let lists: Vec<Option<Vec<Value>>> = (0..rows)
            .map(|_| (rng.below(4) > 0).then(|| (0..rng.below(5)).map(|_| random_value(rng, elem)).collect()))
            .collect();
        arrays.push(Some(match NAMES[elem] {
            "s" => string_arrays(
                &lists
                    .iter()
                    .map(|l| {
                        l.as_ref().map(|xs| xs.iter().map(|v| if let Value::Str(s) = v { *s } else { "" }).collect())
                    })
                    .collect::<Vec<_>>(),
            ),
            "i" => array_column(
                &lists
                    .iter()
                    .map(|l| {
                        l.as_ref()
                            .map(|xs| xs.iter().map(|v| if let Value::Int(x) = v { *x as i32 } else { 0 }).collect())
                    })
                    .collect::<Vec<_>>(),
                ColumnBuf::Int32,
            ),
            _ => array_column(
                &lists
                    .iter()
                    .map(|l| {
                        l.as_ref().map(|xs| xs.iter().map(|v| if let Value::Num(x) = v { *x } else { 0.0 }).collect())
                    })
                    .collect::<Vec<_>>(),
                ColumnBuf::Double,
            ),
        }));
        columns.push(None);
        for (row, l) in lists.into_iter().enumerate() {
            table[row].many[field] = l;
        }
    }
    for (row, key) in keys.iter().enumerate() {
        table[row].one[KEY] = Some(Value::Str(key));
    }
    // Float columns hold f32: the naive side sees the stored value.
    for row in table.iter_mut() {
        if let Some(Value::Num(x)) = row.one[7] {
            row.one[7] = Some(Value::Num(f64::from(x as f32)));
        }
    }
    (Segment { rows, keys: var(&keys), columns, arrays }, table)
}

#[test]
fn agrees_with_naive_evaluation() {
    let schema = schema();
    let mut rng = Rng(0x5eed);
    let dir = tempfile::tempdir().unwrap();
    for round in 0..48 {
        let rows = [0, 1, 7, 8, 9, 64, 100, 3000][round % 8];
        let (seg, table) = random_segment(&mut rng, rows);
        // Small segments answer from their indexes only when made to; the large one also
        // the way a collection does, index or scan by cost.
        let always = (rows < 3000 || round % 16 == 7).then(AlwaysAnswer::on);
        let sets: Vec<Vec<FieldIndexes>> =
            INDEX_SETS.iter().map(|kinds| indexes(&seg, &schema, dir.path(), kinds)).collect();
        for _ in 0..150 {
            let expr = random_expr(&mut rng, 3);
            let text = render(&expr, &mut rng);
            let filter = Filter::compile(&text, &schema).unwrap_or_else(|e| panic!("{text}\n{e}"));
            let want: Vec<u32> = (0..rows as u32).filter(|&r| naive(&expr, &table[r as usize]) == Some(true)).collect();
            for (ix, kinds) in sets.iter().zip(INDEX_SETS) {
                let got: Vec<u32> = filter.evaluate(&seg, ix).iter().collect();
                assert_eq!(got, want, "{text} with indexes {kinds:?} over {rows} rows");
            }
        }
        drop(always);
    }
}

/// Filter trees for the property below: leaves drawn like the random oracle's (from a
/// seed), AND/OR/NOT above them, which proptest shrinks to the smallest failing tree.
fn expr_tree() -> impl proptest::strategy::Strategy<Value = Expr> {
    use proptest::prelude::*;
    let leaf = any::<u64>().prop_map(|seed| random_expr(&mut Rng(seed), 0));
    leaf.prop_recursive(3, 24, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 2..4).prop_map(Expr::And),
            prop::collection::vec(inner.clone(), 2..4).prop_map(Expr::Or),
            inner.prop_map(|e| Expr::Not(Box::new(e))),
        ]
    })
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]

    /// Every operator against the naive evaluator, NULLs included, without scalar indexes,
    /// with each kind and with both, the indexes answering by cost or always.
    #[test]
    fn filters_agree_with_the_naive_evaluator(
        rows in proptest::sample::select(vec![0usize, 1, 7, 9, 64, 500]),
        segment_seed in proptest::prelude::any::<u64>(),
        exprs in proptest::collection::vec(expr_tree(), 1..12),
        render_seed in proptest::prelude::any::<u64>(),
        always in proptest::prelude::any::<bool>(),
    ) {
        let schema = schema();
        let dir = tempfile::tempdir().unwrap();
        let (seg, table) = random_segment(&mut Rng(segment_seed), rows);
        let _always = always.then(AlwaysAnswer::on);
        let sets: Vec<Vec<FieldIndexes>> =
            INDEX_SETS.iter().map(|kinds| indexes(&seg, &schema, dir.path(), kinds)).collect();
        let mut rng = Rng(render_seed);
        for expr in &exprs {
            let text = render(expr, &mut rng);
            let filter = Filter::compile(&text, &schema).unwrap_or_else(|e| panic!("{text}\n{e}"));
            let want: Vec<u32> = (0..rows as u32).filter(|&r| naive(expr, &table[r as usize]) == Some(true)).collect();
            for (ix, kinds) in sets.iter().zip(INDEX_SETS) {
                let got: Vec<u32> = filter.evaluate(&seg, ix).iter().collect();
                proptest::prop_assert_eq!(&got, &want, "{} with indexes {:?} over {} rows", text, kinds, rows);
            }
        }
    }
}

/// Where a scalar index stops paying against a scan of the column, on a segment the size
/// of wordnet-minilm-384 (a manual measurement, not a check; its numbers are in
/// `docs/format.md`, "Filters through scalar indexes"):
/// `cargo test --release -p xvec --lib index_scan_crossover -- --ignored --nocapture`.
#[test]
#[ignore = "a measurement"]
fn index_scan_crossover() {
    use crate::filter::eval::Access;
    const ROWS: usize = 116_659;
    let schema = Schema::builder("x")
        .field(Field::scalar("i", ScalarType::Int32))
        .field(Field::scalar("s", ScalarType::String))
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    // Row r holds value h(r) % distinct: values spread over the rows, as a real column's.
    let spread = |r: usize, distinct: usize| (r.wrapping_mul(0x9e37_79b1) >> 7) % distinct;
    let segment = |distinct: usize| {
        let ints: Vec<Option<i32>> = (0..ROWS).map(|r| Some(spread(r, distinct) as i32)).collect();
        let words: Vec<String> = (0..ROWS).map(|r| format!("w{:06}", spread(r, distinct))).collect();
        let words: Vec<Option<&str>> = words.iter().map(|w| Some(w.as_str())).collect();
        let keys: Vec<&str> = vec![""; ROWS];
        Segment {
            rows: ROWS,
            keys: var(&keys),
            columns: vec![Some(column(&ints, ColumnBuf::Int32)), Some(strings(&words))],
            arrays: vec![None, None],
        }
    };
    let best_of = |f: &dyn Fn() -> u64| -> (f64, u64) {
        let mut best = f64::MAX;
        let mut out = 0;
        for _ in 0..15 {
            let t = std::time::Instant::now();
            out = f();
            best = best.min(t.elapsed().as_secs_f64() * 1e6);
        }
        (best, out)
    };
    let none = vec![FieldIndexes::default(); 2];
    let measure = |seg: &Segment, ix: &[FieldIndexes], text: &str, label: &str| {
        let filter = Filter::compile(text, &schema).unwrap();
        let (scan, n) = best_of(&|| filter.evaluate(seg, &none).len());
        let forced = {
            let _always = AlwaysAnswer::on();
            best_of(&|| filter.evaluate(seg, ix).len()).0
        };
        let (chosen, _) = best_of(&|| filter.evaluate(seg, ix).len());
        let mut trace = Vec::new();
        filter.evaluate_traced(seg, ix, &mut trace);
        let way = match trace[0].access {
            Access::Index(k) => k.name(),
            Access::FullText => "fts",
            _ => "scan",
        };
        let short: String = text.chars().take(30).collect::<String>() + label;
        println!("{short:48} {:>7.3}% {scan:>9.1} {forced:>9.1} {chosen:>9.1}  {way}", n as f64 * 100.0 / ROWS as f64);
    };
    println!("{:48} {:>8} {:>9} {:>9} {:>9}  chosen", "filter", "rows", "scan µs", "index µs", "chosen µs");
    // Unions of postings: IN over m of 4,096 values (inverted index).
    let seg = segment(4096);
    let inv = indexes(&seg, &schema, dir.path(), &[ScalarIndexKind::Inverted]);
    for m in [1, 4, 16, 64, 256, 1024, 2048, 4096] {
        let list: Vec<String> = (0..m).map(|v| v.to_string()).collect();
        measure(&seg, &inv, &format!("i IN ({})", list.join(", ")), &format!(" ({m} values)"));
    }
    // One posting of a share of the rows: = over few distinct values (inverted index).
    for distinct in [2, 10, 100, 1000, 10_000, 100_000] {
        let seg = segment(distinct);
        let inv = indexes(&seg, &schema, dir.path(), &[ScalarIndexKind::Inverted]);
        measure(&seg, &inv, "s = 'w000001'", &format!(" (1 of {distinct})"));
    }
    // Spans: i < t over 4,096 values, through the range index, then through the inverted
    // index (a union of t postings); s < 'w00t' through the inverted index.
    let rng_ix = indexes(&seg, &schema, dir.path(), &[ScalarIndexKind::Range]);
    for t in [4, 41, 205, 410, 1024, 1638, 2048, 2458, 3072, 4096] {
        measure(&seg, &rng_ix, &format!("i < {t}"), " (range)");
    }
    for t in [100, 400, 700, 1000, 2000, 4096] {
        measure(&seg, &inv, &format!("i < {t}"), " (inverted)");
    }
    let seg = segment(20_000);
    let inv = indexes(&seg, &schema, dir.path(), &[ScalarIndexKind::Inverted]);
    for t in [300, 1000, 2000, 3000, 5000, 10_000] {
        measure(&seg, &inv, &format!("s < 'w{t:06}'"), " (of 20,000 values)");
    }
    // LIKE tested on each distinct value instead of each row.
    for distinct in [100, 1000, 10_000, 50_000, 100_000] {
        let seg = segment(distinct);
        let inv = indexes(&seg, &schema, dir.path(), &[ScalarIndexKind::Inverted]);
        measure(&seg, &inv, "s LIKE '%99%'", &format!(" ({distinct} values)"));
    }
}
