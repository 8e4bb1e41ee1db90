//! A validator for the subset of JSON Schema (2020-12) that
//! `docs/bench-report.schema.json` uses: type, enum, const, properties, required,
//! additionalProperties: false, items, minItems, maxItems, minimum, maximum,
//! exclusiveMinimum, $ref into $defs, anyOf.

use serde_json::Value;

const KNOWN: &[&str] = &[
    "$schema",
    "title",
    "description",
    "type",
    "enum",
    "const",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "$ref",
    "$defs",
    "anyOf",
];

pub fn validate(report: &Value) {
    let path = crate::util::repo_root().join("docs/bench-report.schema.json");
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let mut errors = Vec::new();
    check(&schema, &schema, report, "", &mut errors);
    assert!(errors.is_empty(), "report does not match {}:\n{}", path.display(), errors.join("\n"));
}

fn type_ok(t: &str, v: &Value) -> bool {
    match t {
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "number" => v.is_number(),
        "integer" => v.is_u64() || v.is_i64(),
        "boolean" => v.is_boolean(),
        "null" => v.is_null(),
        other => panic!("schema uses unknown type {other}"),
    }
}

fn check(root: &Value, s: &Value, v: &Value, at: &str, errors: &mut Vec<String>) {
    let s = s.as_object().expect("schemas are objects");
    for key in s.keys() {
        assert!(KNOWN.contains(&key.as_str()), "the validator does not implement {key}");
    }
    if let Some(r) = s.get("$ref").and_then(Value::as_str) {
        let target = root.pointer(r.trim_start_matches('#')).unwrap_or_else(|| panic!("dangling $ref {r}"));
        return check(root, target, v, at, errors);
    }
    if let Some(alternatives) = s.get("anyOf").and_then(Value::as_array) {
        let fits = |alt: &Value| {
            let mut e = Vec::new();
            check(root, alt, v, at, &mut e);
            e.is_empty()
        };
        if !alternatives.iter().any(fits) {
            errors.push(format!("{}: matches none of anyOf", if at.is_empty() { "/" } else { at }));
        }
    }
    let mut fail = |what: String| errors.push(format!("{}: {what}", if at.is_empty() { "/" } else { at }));
    if let Some(t) = s.get("type") {
        let ok = match t {
            Value::String(t) => type_ok(t, v),
            Value::Array(ts) => ts.iter().any(|t| type_ok(t.as_str().unwrap(), v)),
            _ => panic!("bad type in schema"),
        };
        if !ok {
            return fail(format!("{v} is not of type {t}"));
        }
    }
    if let Some(e) = s.get("enum").and_then(Value::as_array)
        && !e.contains(v)
    {
        fail(format!("{v} is not one of {e:?}"));
    }
    if let Some(c) = s.get("const")
        && c != v
    {
        fail(format!("{v} is not {c}"));
    }
    if let Some(x) = v.as_f64() {
        let bound = |k: &str| s.get(k).and_then(Value::as_f64);
        if bound("minimum").is_some_and(|m| x < m) || bound("maximum").is_some_and(|m| x > m) {
            fail(format!("{x} is out of range"));
        }
        if bound("exclusiveMinimum").is_some_and(|m| x <= m) {
            fail(format!("{x} is not above {}", s["exclusiveMinimum"]));
        }
    }
    if let Some(o) = v.as_object() {
        for r in s.get("required").and_then(Value::as_array).into_iter().flatten() {
            if !o.contains_key(r.as_str().unwrap()) {
                fail(format!("missing {r}"));
            }
        }
        let props = s.get("properties").and_then(Value::as_object);
        for (k, val) in o {
            match props.and_then(|p| p.get(k)) {
                Some(ps) => check(root, ps, val, &format!("{at}/{k}"), errors),
                None if s.get("additionalProperties") == Some(&Value::Bool(false)) => {
                    errors.push(format!("{at}/{k}: not in the schema"))
                }
                None => {}
            }
        }
    }
    if let Some(a) = v.as_array() {
        let n = |k: &str| s.get(k).and_then(Value::as_u64).map(|n| n as usize);
        if n("minItems").is_some_and(|m| a.len() < m) || n("maxItems").is_some_and(|m| a.len() > m) {
            errors.push(format!("{at}: {} items", a.len()));
        }
        if let Some(items) = s.get("items") {
            for (i, x) in a.iter().enumerate() {
                check(root, items, x, &format!("{at}/{i}"), errors);
            }
        }
    }
}

#[test]
fn the_validator_rejects_what_it_should() {
    let root = serde_json::json!({
        "type": "object", "additionalProperties": false, "required": ["a"],
        "properties": {"a": {"$ref": "#/$defs/n"}, "b": {"type": ["string", "null"], "enum": ["x", null]}},
        "$defs": {"n": {"type": "array", "maxItems": 2, "items": {"type": "integer", "minimum": 0, "exclusiveMinimum": 0}}}
    });
    let errs = |v: Value| {
        let mut e = Vec::new();
        check(&root, &root, &v, "", &mut e);
        e
    };
    assert!(errs(serde_json::json!({"a": [1, 2], "b": null})).is_empty());
    assert_eq!(errs(serde_json::json!({"b": "x"})), ["/: missing \"a\""]);
    assert_eq!(errs(serde_json::json!({"a": [0]})), ["/a/0: 0 is not above 0"]);
    assert_eq!(errs(serde_json::json!({"a": [1, 2, 3]})), ["/a: 3 items"]);
    assert_eq!(errs(serde_json::json!({"a": [1.5]})).len(), 1);
    assert_eq!(errs(serde_json::json!({"a": [], "b": "y"})).len(), 1);
    assert_eq!(errs(serde_json::json!({"a": [], "c": 1})), ["/c: not in the schema"]);
    let either = serde_json::json!({"type": "object", "anyOf": [{"required": ["x"]}, {"required": ["y"]}]});
    let mut e = Vec::new();
    check(&either, &either, &serde_json::json!({"y": 1}), "", &mut e);
    assert!(e.is_empty(), "{e:?}");
    check(&either, &either, &serde_json::json!({"z": 1}), "", &mut e);
    assert_eq!(e, ["/: matches none of anyOf"]);
}
