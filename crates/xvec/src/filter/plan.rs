//! Type checking against the schema, and lowering of the AST into an evaluation plan.
//!
//! NOT is pushed down to the leaves: De Morgan's laws hold in Kleene logic, and a negated
//! comparison is unknown exactly where the comparison is (its column is null). A plan in
//! this form only ever needs the set of rows where each node is TRUE.

use std::collections::HashSet;

use super::FilterError;
use super::lexer::{CmpOp, Span, clip};
use super::like::Like;
use super::params::{Params, bind_list, bind_scalar};
use super::parser::{Expr, Ident, LitKind, Literal};
use super::text_match::TextMatch;
use crate::schema::{FieldType, KEY_FIELD, ScalarType, Schema};

/// Where a leaf reads its values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Col {
    Key,
    Field(usize),
    /// The array field at this position: a leaf tests its element count
    /// (`array_length(f)`), IS NULL its validity.
    Array(usize),
}

/// Comparisons on integer columns, in exact `i128` arithmetic.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum IntTest {
    /// `lo <= x <= hi`, both inside the column type's range.
    Range { lo: i128, hi: i128 },
    /// Sorted, deduplicated.
    In(Vec<i128>),
}

/// Comparisons on float and double columns.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum FloatTest {
    Cmp {
        op: CmpOp,
        value: f64,
    },
    /// Sorted by `total_cmp`.
    In(Vec<f64>),
}

impl IntTest {
    #[inline]
    pub(super) fn holds(&self, x: i128) -> bool {
        match self {
            IntTest::Range { lo, hi } => *lo <= x && x <= *hi,
            IntTest::In(set) => set.binary_search(&x).is_ok(),
        }
    }
}

impl FloatTest {
    /// False for NaN, as SQL compares.
    #[inline]
    pub(super) fn holds(&self, x: f64) -> bool {
        match self {
            FloatTest::Cmp { op, value } => x.partial_cmp(value).is_some_and(|o| op.holds(o)),
            FloatTest::In(set) => {
                set.binary_search_by(|p| p.partial_cmp(&x).unwrap_or(std::cmp::Ordering::Less)).is_ok()
            }
        }
    }
}

#[derive(Clone, Debug)]
pub(super) enum StrTest {
    Cmp {
        op: CmpOp,
        value: Box<[u8]>,
    },
    In(HashSet<Box<[u8]>>),
    Like(Like),
    /// `ILIKE`: the pattern lowercased, matched against each value lowercased.
    ILike(Like),
    /// `MATCH`: the text's terms, as the field's full-text analyzer makes them.
    Match(std::sync::Arc<TextMatch>),
}

/// What a leaf checks on each non-null value.
#[derive(Clone, Debug)]
pub(super) enum Test {
    /// The same answer for every non-null value.
    Const(bool),
    Bool(bool),
    Int(IntTest),
    Float(FloatTest),
    Str(StrTest),
}

#[derive(Clone, Debug)]
pub(super) enum Node {
    And(Vec<Node>),
    Or(Vec<Node>),
    /// TRUE where the column is null (not null when `negate`); never unknown.
    IsNull {
        col: Col,
        negate: bool,
        /// The leaf's position in [`Plan::leaves`].
        id: u16,
    },
    /// TRUE where the column is not null and `test` holds (fails when `negate`).
    Leaf {
        col: Col,
        test: Test,
        negate: bool,
        id: u16,
    },
    /// TRUE where the array field at `field` is not null and some element passes each
    /// test (`all`, CONTAIN_ALL: one test per listed value) or the one test (CONTAIN_ANY,
    /// an IN test); the opposite when `negate`.
    Contains {
        field: usize,
        tests: Vec<Test>,
        all: bool,
        negate: bool,
        id: u16,
    },
}

#[derive(Clone, Debug)]
pub(super) struct Plan {
    pub root: Node,
    /// Each leaf as written (with `NOT` when one was pushed onto it), for `explain`.
    pub leaves: Vec<String>,
}

/// Binds the parameters of `expr` (parsed from `src`), type-checks it against `schema`
/// and lowers it.
pub(super) fn plan(src: &str, expr: &Expr, schema: &Schema, params: &Params) -> Result<Plan, FilterError> {
    let mut planner = Planner { src, schema, params, leaves: Vec::new() };
    let root = planner.lower(expr, false)?;
    Ok(Plan { root, leaves: planner.leaves })
}

struct Planner<'a> {
    src: &'a str,
    schema: &'a Schema,
    params: &'a Params,
    leaves: Vec<String>,
}

impl Planner<'_> {
    /// Records the text of leaf `expr` (negated when `negate`) and returns its id.
    fn leaf_id(&mut self, expr: &Expr, negate: bool) -> u16 {
        let src = |a: Span, b: Span| self.src.get(a.start..b.end).unwrap_or("").to_string();
        let text = match expr {
            Expr::Cmp { field, value, .. } => src(field.span, value.span),
            Expr::Like { field, pattern, .. } => src(field.span, pattern.span),
            Expr::Between { field, hi, .. } => src(field.span, hi.span),
            Expr::Match { field, query, .. } => src(field.span, query.span),
            Expr::IsNull { field, negated } => format!("{} IS {}NULL", field.name, if *negated { "NOT " } else { "" }),
            Expr::In { field, negated, list } => {
                let mut items: Vec<String> = list.iter().map(|l| src(l.span, l.span)).collect();
                items.dedup();
                format!("{} {}IN ({})", field.name, if *negated { "NOT " } else { "" }, items.join(", "))
            }
            Expr::Contain { field, all, negated, list, .. } => {
                let items: Vec<String> = list.iter().map(|l| src(l.span, l.span)).collect();
                let op = if *all { "CONTAIN_ALL" } else { "CONTAIN_ANY" };
                format!("{} {}{op} ({})", field.name, if *negated { "NOT " } else { "" }, items.join(", "))
            }
            Expr::Length { call, value, .. } => src(*call, value.span),
            Expr::And(_) | Expr::Or(_) | Expr::Not(_) | Expr::Const(_) => String::new(),
        };
        self.leaves.push(if negate { format!("NOT {text}") } else { text });
        (self.leaves.len() - 1).min(u16::MAX as usize) as u16
    }

    fn lower(&mut self, expr: &Expr, negate: bool) -> Result<Node, FilterError> {
        let id = match expr {
            Expr::And(_) | Expr::Or(_) | Expr::Not(_) | Expr::Const(_) => 0,
            leaf => self.leaf_id(leaf, negate),
        };
        let leaf = |col, (test, neg): (Test, bool)| Node::Leaf { col, test, negate: neg != negate, id };
        Ok(match expr {
            Expr::Not(inner) => self.lower(inner, !negate)?,
            // Every row (an empty AND) or none (an empty OR); never unknown.
            Expr::Const(value) => match value != &negate {
                true => Node::And(Vec::new()),
                false => Node::Or(Vec::new()),
            },
            // Both ends under one leaf text: `lo <= f AND f <= hi`, or when negated (by NOT
            // BETWEEN or an outer NOT) `f < lo OR f > hi`, which is what SQL's three-valued
            // logic makes of the negated AND.
            Expr::Between { field, negated, keyword, lo, hi } => {
                let (col, ty) = self.resolve(field)?;
                let ends = [(CmpOp::Ge, lo), (CmpOp::Le, hi)].map(|(op, lit)| {
                    let lit = bind_scalar(lit, self.params)?;
                    let (test, neg) = compare(field, ty, op, *keyword, &lit)?;
                    Ok::<_, FilterError>(Node::Leaf { col, test, negate: neg != (*negated != negate), id })
                });
                let [ge, le] = ends;
                let nodes = vec![ge?, le?];
                if *negated != negate { Node::Or(nodes) } else { Node::And(nodes) }
            }
            Expr::And(xs) | Expr::Or(xs) => {
                let nodes = xs.iter().map(|x| self.lower(x, negate)).collect::<Result<Vec<_>, _>>()?;
                if matches!(expr, Expr::And(_)) != negate { Node::And(nodes) } else { Node::Or(nodes) }
            }
            Expr::IsNull { field, negated } => {
                let col = match self.array(field, "IS NULL", field.span) {
                    Ok((idx, _)) => Col::Array(idx),
                    Err(_) => self.resolve(field)?.0,
                };
                Node::IsNull { col, negate: *negated != negate, id }
            }
            Expr::Contain { field, all, negated, keyword, list } => {
                let op = if *all { "CONTAIN_ALL" } else { "CONTAIN_ANY" };
                let (idx, ty) = self.array(field, op, *keyword)?;
                let list = bind_list(list, self.params)?;
                let tests = match all {
                    false => vec![in_list(field, ty, &list)?],
                    true => list
                        .iter()
                        .map(|lit| compare(field, ty, CmpOp::Eq, lit.span, lit).map(|(t, _)| t))
                        .collect::<Result<_, _>>()?,
                };
                Node::Contains { field: idx, tests, all: *all, negate: *negated != negate, id }
            }
            Expr::Length { field, call, op, op_span, value } => {
                let (idx, _) = self.array(field, "array_length", field.span)?;
                let value = bind_scalar(value, self.params)?;
                let shown = Ident { name: self.src.get(call.start..call.end).unwrap_or("").to_string(), span: *call };
                leaf(Col::Array(idx), compare(&shown, ScalarType::Uint32, *op, *op_span, &value)?)
            }
            Expr::Cmp { field, op, op_span, value } => {
                let (col, ty) = self.resolve(field)?;
                let value = bind_scalar(value, self.params)?;
                leaf(col, compare(field, ty, *op, *op_span, &value)?)
            }
            Expr::In { field, negated, list } => {
                let (col, ty) = self.resolve(field)?;
                let list = bind_list(list, self.params)?;
                leaf(col, (in_list(field, ty, &list)?, *negated))
            }
            Expr::Like { field, negated, fold, keyword, pattern } => {
                let (col, ty) = self.resolve(field)?;
                let name = if *fold { "ILIKE" } else { "LIKE" };
                if ty != ScalarType::String {
                    let msg = format!("{name} applies to string fields only; field `{}` is {}", field.name, ty.name());
                    return Err(keyword.error(msg));
                }
                let pattern = bind_scalar(pattern, self.params)?;
                let LitKind::Str(text) = &pattern.kind else {
                    let (shown, kind) = shown(&pattern);
                    let msg = format!("{name} takes a string pattern, but {shown} is {kind}");
                    return Err(pattern.span.error(msg));
                };
                let test = match fold {
                    false => StrTest::Like(Like::compile(text).map_err(|msg| pattern.span.error(msg))?),
                    true => StrTest::ILike(Like::compile(&text.to_lowercase()).map_err(|msg| pattern.span.error(msg))?),
                };
                leaf(col, (Test::Str(test), *negated))
            }
            Expr::Match { field, negated, keyword, query } => {
                let index =
                    self.schema.index_of(&field.name).and_then(|i| self.schema.field(i).text.as_ref().map(|t| (i, t)));
                let Some((idx, index)) = index else {
                    let msg = format!("MATCH needs a field with a full-text (fts) index; `{}` has none", field.name);
                    return Err(keyword.error(msg));
                };
                let query = bind_scalar(query, self.params)?;
                let LitKind::Str(text) = &query.kind else {
                    let (shown, kind) = shown(&query);
                    return Err(query.span.error(format!("MATCH takes a string, but {shown} is {kind}")));
                };
                let m = TextMatch::compile(index, text).map_err(|msg| query.span.error(msg))?;
                leaf(Col::Field(idx), (Test::Str(StrTest::Match(std::sync::Arc::new(m))), *negated))
            }
        })
    }

    /// Column and type of a field name.
    fn resolve(&mut self, field: &Ident) -> Result<(Col, ScalarType), FilterError> {
        if field.name == KEY_FIELD {
            return Ok((Col::Key, ScalarType::String));
        }
        let Some(idx) = self.schema.index_of(&field.name) else {
            return Err(field.span.error(unknown_field(&field.name, self.schema)));
        };
        match &self.schema.field(idx).ty {
            FieldType::Scalar(ty) => Ok((Col::Field(idx), *ty)),
            FieldType::Array(ty) => Err(field.span.error(format!(
                "field `{}` is an array field ({}); test it with CONTAIN_ANY, CONTAIN_ALL, array_length() or IS NULL",
                field.name,
                ty.array_name()
            ))),
            FieldType::Vector(v) => Err(field.span.error(format!(
                "field `{}` is a vector field ({}); filters apply to scalar and array fields only",
                field.name,
                v.elem.name()
            ))),
            FieldType::Sparse(t) => Err(field.span.error(format!(
                "field `{}` is a sparse vector field ({}); filters apply to scalar and array fields only",
                field.name,
                t.name()
            ))),
        }
    }

    /// Position and element type of array field `field`; a field of another type is an
    /// error at `at` saying what `op` applies to.
    fn array(&mut self, field: &Ident, op: &str, at: Span) -> Result<(usize, ScalarType), FilterError> {
        let Some(idx) = self.schema.index_of(&field.name) else {
            return Err(field.span.error(unknown_field(&field.name, self.schema)));
        };
        match &self.schema.field(idx).ty {
            FieldType::Array(ty) => Ok((idx, *ty)),
            ty => Err(at.error(format!("{op} applies to array fields; field `{}` is {}", field.name, ty.name()))),
        }
    }
}

/// "unknown field" message: the closest spelling if one is close, then a few field names.
fn unknown_field(name: &str, schema: &Schema) -> String {
    const SHOWN: usize = 8;
    let scalars = schema.fields().iter().filter(|f| f.as_vector().is_none()).map(|f| f.name.as_str());
    let names: Vec<&str> = scalars.chain([KEY_FIELD]).collect();
    let lower = name.to_ascii_lowercase();
    // Field names have at most 128 bytes; much longer names are no typo of one.
    let close = names
        .iter()
        .filter(|_| name.len() <= 256)
        .map(|n| (edit_distance(&n.to_ascii_lowercase(), &lower), n))
        .min_by_key(|c| c.0);
    let mut msg = format!("unknown field `{}`", clip(name));
    if let Some((distance, close)) = close
        && distance <= (name.chars().count() / 3).max(1)
    {
        msg.push_str(&format!(" (did you mean `{close}`?)"));
    }
    msg.push_str("; fields: ");
    msg.push_str(&names[..names.len().min(SHOWN)].join(", "));
    if names.len() > SHOWN {
        msg.push_str(&format!(", ... ({} more)", names.len() - SHOWN));
    }
    msg
}

/// Levenshtein distance over chars.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let next = (diag + usize::from(ca != cb)).min(row[j] + 1).min(row[j + 1] + 1);
            diag = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// `field op literal` as a test and whether to negate it.
fn compare(
    field: &Ident,
    ty: ScalarType,
    op: CmpOp,
    op_span: Span,
    lit: &Literal,
) -> Result<(Test, bool), FilterError> {
    Ok(match ty {
        ScalarType::String => {
            let value = string_lit(field, lit)?;
            (Test::Str(StrTest::Cmp { op, value: value.as_bytes().into() }), false)
        }
        ScalarType::Bool => {
            if !matches!(op, CmpOp::Eq | CmpOp::Ne) {
                let msg = format!("bool field `{}` can only be compared with =, !=, <> or IN", field.name);
                return Err(op_span.error(msg));
            }
            (Test::Bool(bool_lit(field, lit)?), op == CmpOp::Ne)
        }
        ScalarType::Float | ScalarType::Double => {
            let value = float_lit(field, ty, lit)?;
            (Test::Float(FloatTest::Cmp { op, value }), false)
        }
        ScalarType::Int32 | ScalarType::Int64 | ScalarType::Uint32 | ScalarType::Uint64 => {
            let (floor, ceil) = int_bounds(number_text(field, ty, lit)?);
            let (lo, hi, negate) = match op {
                // An empty range when the literal is not an integer.
                CmpOp::Eq | CmpOp::Ne => (ceil, floor, op == CmpOp::Ne),
                CmpOp::Lt => (i128::MIN, ceil - 1, false),
                CmpOp::Le => (i128::MIN, floor, false),
                CmpOp::Gt => (floor + 1, i128::MAX, false),
                CmpOp::Ge => (ceil, i128::MAX, false),
            };
            let (min, max) = int_range(ty);
            let (lo, hi) = (lo.max(min), hi.min(max));
            let test = if lo > hi {
                Test::Const(false)
            } else if (lo, hi) == (min, max) {
                Test::Const(true)
            } else {
                Test::Int(IntTest::Range { lo, hi })
            };
            (test, negate)
        }
    })
}

fn in_list(field: &Ident, ty: ScalarType, list: &[Literal]) -> Result<Test, FilterError> {
    // An empty list parameter: IN () holds for no value.
    if list.is_empty() {
        return Ok(Test::Const(false));
    }
    Ok(match ty {
        ScalarType::String => {
            let set = list.iter().map(|l| Ok(string_lit(field, l)?.as_bytes().into())).collect::<Result<_, _>>()?;
            Test::Str(StrTest::In(set))
        }
        ScalarType::Bool => {
            let values = list.iter().map(|l| bool_lit(field, l)).collect::<Result<Vec<_>, _>>()?;
            match (values.contains(&false), values.contains(&true)) {
                (true, true) => Test::Const(true),
                (_, value) => Test::Bool(value),
            }
        }
        ScalarType::Float | ScalarType::Double => {
            let mut values = list.iter().map(|l| float_lit(field, ty, l)).collect::<Result<Vec<_>, _>>()?;
            values.sort_by(f64::total_cmp);
            Test::Float(FloatTest::In(values))
        }
        ScalarType::Int32 | ScalarType::Int64 | ScalarType::Uint32 | ScalarType::Uint64 => {
            let (min, max) = int_range(ty);
            let mut values = Vec::with_capacity(list.len());
            for lit in list {
                // Only integers inside the type's range can be equal to a value.
                let (floor, ceil) = int_bounds(number_text(field, ty, lit)?);
                if floor == ceil && (min..=max).contains(&floor) {
                    values.push(floor);
                }
            }
            values.sort_unstable();
            values.dedup();
            if values.is_empty() { Test::Const(false) } else { Test::Int(IntTest::In(values)) }
        }
    })
}

/// How a message names a literal and its type: `` `'x'` `` and "a string"; a bound
/// parameter by its name, with its value: `` `$cat` `` and "a string ('fruit')".
fn shown(lit: &Literal) -> (String, String) {
    let (text, kind) = match &lit.kind {
        LitKind::Str(s) => (format!("'{}'", s.replace('\'', "''")), "a string"),
        LitKind::Num(n) => (n.clone(), "a number"),
        LitKind::Bool(b) => ((if *b { "TRUE" } else { "FALSE" }).to_string(), "a bool"),
        LitKind::Param(name) => (format!("${name}"), "a parameter"),
    };
    match &lit.from {
        Some((label, value)) => (label.clone(), format!("{kind} ({})", clip(value))),
        None => (format!("`{}`", clip(&text)), kind.to_string()),
    }
}

fn type_error(field: &Ident, ty: ScalarType, lit: &Literal) -> FilterError {
    let (shown, kind) = shown(lit);
    let expected = match ty {
        ScalarType::String => "a 'quoted' string",
        ScalarType::Bool => "TRUE or FALSE",
        _ => "a number",
    };
    lit.span.error(format!("field `{}` is {} but {shown} is {kind}; expected {expected}", field.name, ty.name()))
}

fn string_lit<'a>(field: &Ident, lit: &'a Literal) -> Result<&'a str, FilterError> {
    match &lit.kind {
        LitKind::Str(s) => Ok(s),
        _ => Err(type_error(field, ScalarType::String, lit)),
    }
}

fn bool_lit(field: &Ident, lit: &Literal) -> Result<bool, FilterError> {
    match lit.kind {
        LitKind::Bool(b) => Ok(b),
        _ => Err(type_error(field, ScalarType::Bool, lit)),
    }
}

fn number_text<'a>(field: &Ident, ty: ScalarType, lit: &'a Literal) -> Result<&'a str, FilterError> {
    match &lit.kind {
        LitKind::Num(text) => Ok(text),
        _ => Err(type_error(field, ty, lit)),
    }
}

/// A number literal rounded to the column's precision (`float` rounds to f32), as f64.
fn float_lit(field: &Ident, ty: ScalarType, lit: &Literal) -> Result<f64, FilterError> {
    let text = number_text(field, ty, lit)?;
    let parsed = match ty {
        ScalarType::Float => text.parse::<f32>().map(f64::from),
        _ => text.parse::<f64>(),
    };
    parsed.map_err(|e| lit.span.error(format!("bad number `{text}`: {e}")))
}

fn int_range(ty: ScalarType) -> (i128, i128) {
    match ty {
        ScalarType::Int32 => (i32::MIN.into(), i32::MAX.into()),
        ScalarType::Uint32 => (0, u32::MAX.into()),
        ScalarType::Uint64 => (0, u64::MAX.into()),
        _ => (i64::MIN.into(), i64::MAX.into()),
    }
}

/// Magnitudes are clamped here: far outside every integer column type, and never overflow.
const SATURATED: i128 = 10i128.pow(30);

/// Exact floor and ceiling of a number literal (`-?digits(.digits)?(e[+-]?digits)?`),
/// clamped to `±SATURATED`; they are equal exactly when the literal is an integer.
pub(super) fn int_bounds(text: &str) -> (i128, i128) {
    let (negative, text) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (mantissa, exp) = text.split_once(['e', 'E']).unwrap_or((text, "0"));
    let (exp_negative, exp_digits) = match exp.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, exp.strip_prefix('+').unwrap_or(exp)),
    };
    let exp = exp_digits.bytes().fold(0i64, |e, d| (e * 10 + i64::from(d.saturating_sub(b'0'))).min(1 << 40));
    let (int_part, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits: Vec<u8> = int_part.bytes().chain(frac.bytes()).map(|d| d.saturating_sub(b'0')).collect();
    // value = digits * 10^scale
    let scale = if exp_negative { -exp } else { exp } - i64::try_from(frac.len()).unwrap_or(i64::MAX);
    let whole_len = usize::try_from(digits.len() as i64 + scale.min(0)).unwrap_or(0);
    let (whole, fraction) = digits.split_at(whole_len.min(digits.len()));
    let push = |q: i128, d: u8| (q * 10 + i128::from(d)).min(SATURATED);
    let mut q = whole.iter().fold(0i128, |q, &d| push(q, d));
    for _ in 0..scale.max(0) {
        if q == 0 || q == SATURATED {
            break;
        }
        q = push(q, 0);
    }
    let inexact = i128::from(fraction.iter().any(|&d| d != 0));
    if negative { (-q - inexact, -q) } else { (q, q + inexact) }
}

#[cfg(test)]
mod tests {
    use super::super::Filter;
    use super::*;
    use crate::schema::{Field, Metric, VectorType};

    #[test]
    fn exact_integer_bounds() {
        let cases: &[(&str, (i128, i128))] = &[
            ("0", (0, 0)),
            ("-0", (0, 0)),
            ("42", (42, 42)),
            ("-42", (-42, -42)),
            ("2.5", (2, 3)),
            ("-2.5", (-3, -2)),
            ("2.000", (2, 2)),
            ("0.001", (0, 1)),
            ("-0.001", (-1, 0)),
            ("1e3", (1000, 1000)),
            ("1.5E+1", (15, 15)),
            ("15e-1", (1, 2)),
            ("150e-2", (1, 2)),
            ("100e-2", (1, 1)),
            ("9223372036854775807", (i64::MAX as i128, i64::MAX as i128)),
            ("18446744073709551616", (1 << 64, 1 << 64)),
            ("1e10", (10_000_000_000, 10_000_000_000)),
            ("1e99999999999999999999", (SATURATED, SATURATED)),
            ("-1e99999999999999999999", (-SATURATED, -SATURATED)),
            ("0e99999999999999999999", (0, 0)),
            ("1e-99999999999999999999", (0, 1)),
            ("-1e-99999999999999999999", (-1, 0)),
            ("000000000000000000000000000000000000000000007", (7, 7)),
            ("99999999999999999999999999999999999999999999999", (SATURATED, SATURATED)),
        ];
        for &(text, want) in cases {
            assert_eq!(int_bounds(text), want, "{text}");
        }
    }

    fn schema() -> Schema {
        Schema::builder("t")
            .field(Field::scalar("lemma", ScalarType::String))
            .field(Field::scalar("pos", ScalarType::String))
            .field(Field::vector("emb", VectorType::Fp32, 4, Metric::L2))
            .field(Field::scalar("n", ScalarType::Int32).nullable(true))
            .field(Field::scalar("flag", ScalarType::Bool))
            .field(Field::scalar("f", ScalarType::Float))
            .build()
            .unwrap()
    }

    fn err(src: &str) -> (u32, u32, u32, String) {
        let e = Filter::compile(src, &schema()).unwrap_err();
        (e.line, e.column, e.len, e.message)
    }

    #[test]
    fn type_errors() {
        let fields = "fields: lemma, pos, n, flag, f, _key";
        type Case<'a> = (&'a str, (u32, u32, u32, &'a str));
        let cases: &[Case] = &[
            ("lemm = 'x'", (1, 1, 4, &format!("unknown field `lemm` (did you mean `lemma`?); {fields}"))),
            ("n = 1 AND\n  zzzzzz = 1", (2, 3, 6, &format!("unknown field `zzzzzz`; {fields}"))),
            ("\"Key\" = 'a'", (1, 1, 5, &format!("unknown field `Key` (did you mean `_key`?); {fields}"))),
            (
                "emb = 1",
                (1, 1, 3, "field `emb` is a vector field (vector_fp32); filters apply to scalar and array fields only"),
            ),
            (
                "emb IS NULL",
                (1, 1, 3, "field `emb` is a vector field (vector_fp32); filters apply to scalar and array fields only"),
            ),
            ("n = '1'", (1, 5, 3, "field `n` is int32 but `'1'` is a string; expected a number")),
            ("n IN (1, 'it''s')", (1, 10, 7, "field `n` is int32 but `'it''s'` is a string; expected a number")),
            ("f > TRUE", (1, 5, 4, "field `f` is float but `TRUE` is a bool; expected a number")),
            ("lemma = 1.5", (1, 9, 3, "field `lemma` is string but `1.5` is a number; expected a 'quoted' string")),
            (
                "_key IN ('a', FALSE)",
                (1, 15, 5, "field `_key` is string but `FALSE` is a bool; expected a 'quoted' string"),
            ),
            ("flag = 1", (1, 8, 1, "field `flag` is bool but `1` is a number; expected TRUE or FALSE")),
            (
                "flag NOT IN (TRUE, 'x')",
                (1, 20, 3, "field `flag` is bool but `'x'` is a string; expected TRUE or FALSE"),
            ),
            ("flag < TRUE", (1, 6, 1, "bool field `flag` can only be compared with =, !=, <> or IN")),
            ("flag >= FALSE", (1, 6, 2, "bool field `flag` can only be compared with =, !=, <> or IN")),
            ("n LIKE '1%'", (1, 3, 4, "LIKE applies to string fields only; field `n` is int32")),
            ("flag not like 'x'", (1, 10, 4, "LIKE applies to string fields only; field `flag` is bool")),
            ("lemma LIKE 'a\\'", (1, 12, 4, "LIKE pattern ends with the escape character `\\`")),
        ];
        for (src, (line, column, len, message)) in cases {
            assert_eq!(err(src), (*line, *column, *len, message.to_string()), "{src:?}");
        }
    }

    #[test]
    fn parameters_bind_typed_values() {
        use super::super::{FilterErrorKind, Param};
        let p = Params::new()
            .set("s", "x' OR n = 1 OR lemma = 'y")
            .set("n", 2)
            .set("half", 2.5)
            .set("b", true)
            .set("l", vec![Param::from(1), Param::from("a")])
            .set("nested", vec![Param::List(vec![])]);
        let compile = |src: &str| Filter::compile_with(src, &schema(), &p);
        // A string parameter is one literal: the quotes inside it change nothing.
        let f = compile("lemma = $s").unwrap();
        let Node::Leaf { test: Test::Str(StrTest::Cmp { value, .. }), .. } = &f.plan.root else { panic!() };
        assert_eq!(&**value, b"x' OR n = 1 OR lemma = 'y");
        let f = compile("n >= $half").unwrap();
        let Node::Leaf { test, .. } = &f.plan.root else { panic!() };
        assert_eq!(format!("{test:?}"), format!("{:?}", Test::Int(IntTest::Range { lo: 3, hi: i32::MAX.into() })));
        assert!(compile("flag = $b AND n IN ($n, 3) AND lemma LIKE $s").is_ok());
        let err = |src: &str| {
            let e = compile(src).unwrap_err();
            (e.column, e.len, e.message)
        };
        let cases: &[(&str, (u32, u32, &str))] = &[
            (
                "n = $s",
                (5, 2, "field `n` is int32 but `$s` is a string ('x'' OR n = 1 OR lemma = ''y'); expected a number"),
            ),
            ("lemma = $n", (9, 2, "field `lemma` is string but `$n` is a number (2); expected a 'quoted' string")),
            ("flag = $n", (8, 2, "field `flag` is bool but `$n` is a number (2); expected TRUE or FALSE")),
            ("n IN $l", (6, 2, "field `n` is int32 but element 2 of `$l` is a string ('a'); expected a number")),
            ("n = $l", (5, 2, "parameter `$l` is a list; a list goes after IN, e.g. `field IN $l`")),
            ("n IN $nested", (6, 7, "element 1 of `$nested` is a list; IN takes a flat list")),
            ("lemma LIKE $n", (12, 2, "LIKE takes a string pattern, but `$n` is a number (2)")),
            ("n = 1 OR\n lemma = $missing", (10, 8, "parameter `$missing` is not bound")),
        ];
        for &(src, (column, len, message)) in cases {
            assert_eq!(err(src), (column, len, message.to_string()), "{src}");
        }
        let e = compile("lemma = $missing").unwrap_err();
        assert_eq!(e.kind, FilterErrorKind::UnboundParam("missing".into()));
        assert_eq!(e.caret("lemma = $missing"), "lemma = $missing\n        ^^^^^^^^");
        assert_eq!(
            Filter::compile("lemma = $s", &schema()).unwrap_err().kind,
            FilterErrorKind::UnboundParam("s".into())
        );
        assert!(compile("lemma = '$missing'").is_ok(), "a quoted $name is text, not a parameter");
    }

    #[test]
    fn unknown_field_lists_a_few() {
        let fields: Vec<Field> = (0..20).map(|i| Field::scalar(format!("f{i}"), ScalarType::Bool)).collect();
        let schema = Schema::new("t", fields).unwrap();
        let e = Filter::compile("x = TRUE", &schema).unwrap_err();
        assert_eq!(e.message, "unknown field `x`; fields: f0, f1, f2, f3, f4, f5, f6, f7, ... (13 more)");
    }

    #[test]
    fn negation_is_pushed_to_leaves() {
        let f = Filter::compile("NOT (n = 1 OR NOT (lemma = 'a' AND n IS NULL))", &schema()).unwrap();
        let Node::And(xs) = &f.plan.root else { panic!("{:?}", f.plan.root) };
        assert!(matches!(xs[0], Node::Leaf { col: Col::Field(3), negate: true, .. }));
        let Node::And(ys) = &xs[1] else { panic!() };
        assert!(matches!(ys[0], Node::Leaf { col: Col::Field(0), negate: false, .. }));
        assert!(matches!(ys[1], Node::IsNull { col: Col::Field(3), negate: false, .. }));
        let texts = ["NOT n = 1", "lemma = 'a'", "n IS NULL"];
        assert_eq!(f.plan.leaves, texts);
    }

    #[test]
    fn out_of_range_literals_fold() {
        let cases = [
            ("n < 1e10", Test::Const(true), false),
            ("n > 1e10", Test::Const(false), false),
            ("n = 1e10", Test::Const(false), false),
            ("n != 1e10", Test::Const(false), true),
            ("n >= -2147483648", Test::Const(true), false),
            ("n > -2147483648.5", Test::Const(true), false),
            ("n IN (2.5, 3e20)", Test::Const(false), false),
            ("n < 2.5", Test::Int(IntTest::Range { lo: i32::MIN.into(), hi: 2 }), false),
            ("n >= 2.5", Test::Int(IntTest::Range { lo: 3, hi: i32::MAX.into() }), false),
        ];
        for (src, want, want_negate) in cases {
            let f = Filter::compile(src, &schema()).unwrap();
            let Node::Leaf { test, negate, .. } = &f.plan.root else { panic!() };
            assert_eq!((format!("{test:?}"), *negate), (format!("{want:?}"), want_negate), "{src}");
        }
    }
}
