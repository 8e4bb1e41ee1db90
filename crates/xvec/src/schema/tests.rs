use super::*;

#[test]
fn json_round_trip() {
    let text = r#"{"name":"w","fields":[
        {"name":"lemma","type":"string"},
        {"name":"n","type":"int32","nullable":true},
        {"name":"emb","type":"vector_fp16","dim":8,"metric":"ip","index":{"type":"flat"}}]}"#;
    let s = Schema::from_json(text).unwrap();
    assert_eq!(s.fields().len(), 3);
    assert!(s.field(1).nullable);
    assert_eq!(Schema::from_json(&s.to_json()).unwrap(), s);
}

#[test]
fn rejects_bad_schemas() {
    let bad = [
        (r#"{"name":"w","fields":[{"name":"v","type":"vector_fp32","dim":0,"metric":"l2"}]}"#, "dimension"),
        (r#"{"name":"w","fields":[{"name":"v","type":"vector_fp32","dim":20001,"metric":"l2"}]}"#, "dimension"),
        (r#"{"name":"w","fields":[{"name":"v","type":"vector_fp32","metric":"l2"}]}"#, "dim"),
        (r#"{"name":"w","fields":[{"name":"v","type":"text"}]}"#, "unknown type"),
        (r#"{"name":"w","fields":[{"name":"a","type":"bool"},{"name":"a","type":"bool"}]}"#, "twice"),
        (r#"{"name":"w","fields":[{"name":"_key","type":"bool"}]}"#, "field name"),
        (r#"{"name":"w","fields":[{"name":"a","type":"bool","dim":3}]}"#, "scalar"),
        (r#"{"name":"w","fields":[{"name":"a","type":"bool","extra":3}]}"#, "unknown field"),
    ];
    for (text, needle) in bad {
        let err = Schema::from_json(text).unwrap_err().to_string();
        assert!(err.contains(needle), "{text}: {err}");
    }
    let idx = |index: &str| {
        format!(
            r#"{{"name":"w","fields":[{{"name":"v","type":"vector_fp32","dim":3,"metric":"l2","index":{index}}}]}}"#
        )
    };
    for (index, needle) in [
        (r#"{"type":"hnsw","m":1}"#, "m 1 is out of range"),
        (r#"{"type":"hnsw","quantize":"int4"}"#, "even dimension"),
        (r#"{"type":"hnsw","bogus":1}"#, "unknown field"),
        (r#"{"type":"ivfpq"}"#, "unknown variant"),
        (r#"{"type":"ivf","nlist":0}"#, "nlist 0 is out of range; expected 1..=65536"),
        (r#"{"type":"ivf","nprobe":0}"#, "nprobe"),
        (r#"{"type":"ivf","ef_search":8}"#, "unknown field"),
        (r#"{"type":"flat","quantize":"int9"}"#, "unknown variant"),
        (r#"{"type":"hnsw","quantize":"rabitq","bits":9}"#, "bits 9 is out of range; expected 1..=8"),
        (r#"{"type":"hnsw","quantize":"rabitq","bits":0}"#, "bits 0 is out of range"),
        (r#"{"type":"flat","quantize":"rabitq","bits":4}"#, "rabitq with 4 bits needs an even dimension"),
        (r#"{"type":"flat","quantize":"int8","bits":4}"#, "bits = 4 needs quantize = rabitq, not int8"),
    ] {
        let err = Schema::from_json(&idx(index)).unwrap_err().to_string();
        assert!(err.contains(needle), "{index}: {err}");
    }
    let s = Schema::from_json(&idx(r#"{"type":"hnsw","quantize":"int8"}"#)).unwrap();
    let spec = s.field(0).as_vector().unwrap();
    assert!(spec.index.quant().rotate);
    assert_eq!(spec.index.describe(), "hnsw m=16 efc=200 ef=64 int8+rot");
    assert_eq!(Schema::from_json(&s.to_json()).unwrap(), s);
    // One-bit and byte codes take odd dimensions; the default is spelled out on resolving.
    for (index, describe) in [
        (r#"{"type":"hnsw","quantize":"rabitq","bits":1}"#, "hnsw m=16 efc=200 ef=64 rabitq1+rot"),
        (r#"{"type":"flat","quantize":"rabitq"}"#, "flat rabitq8+rot"),
    ] {
        let s = Schema::from_json(&idx(index)).unwrap();
        let spec = s.field(0).as_vector().unwrap();
        assert_eq!(spec.index.describe(), describe);
        assert_eq!(spec.index.resolved().quant(), spec.index.quant());
        assert_eq!(Schema::from_json(&s.to_json()).unwrap(), s);
    }
    // A new schema writes the default bits in; a stored one without them (written before
    // they were pinned) keeps meaning the 7 bits its codes were made with.
    let s = Schema::from_json(&idx(r#"{"type":"ivf","quantize":"rabitq"}"#)).unwrap();
    assert!(s.to_json().contains(r#""bits": 8"#), "{}", s.to_json());
    let stored = crate::schema::RawSchema::from(&s);
    let mut stored = serde_json::to_value(stored).unwrap();
    stored["fields"][0]["index"].as_object_mut().unwrap().remove("bits");
    stored["fields"][0]["id"] = 0.into();
    stored["next_field_id"] = 1.into();
    let raw: crate::schema::RawSchema = serde_json::from_value(stored).unwrap();
    let old = raw.into_schema().unwrap();
    assert_eq!(old.field(0).as_vector().unwrap().index.quant().bits, 7);
    for (index, needle) in [
        (r#"{"type":"vamana","degree":1}"#, "degree 1 is out of range"),
        (r#"{"type":"vamana","build_list":0}"#, "build_list 0 is out of range"),
        (r#"{"type":"vamana","query_list":0}"#, "query_list 0 is out of range"),
        (r#"{"type":"vamana","alpha":0.9}"#, "alpha 0.9 is out of range"),
        (r#"{"type":"vamana","degree":32,"occlusion":16}"#, "occlusion 16 is out of range; expected degree (32)"),
        (r#"{"type":"vamana","quantize":"int4"}"#, "even dimension"),
        (r#"{"type":"vamana","m":16}"#, "unknown field"),
    ] {
        let err = Schema::from_json(&idx(index)).unwrap_err().to_string();
        assert!(err.contains(needle), "{index}: {err}");
    }
    let s = Schema::from_json(&idx(r#"{"type":"vamana","quantize":"int8","refine":4}"#)).unwrap();
    let spec = s.field(0).as_vector().unwrap();
    assert_eq!(spec.index, IndexParams::Vamana(VamanaParams::default().quantize(Quantize::Int8).refine(4)));
    assert!(spec.index.builds_index());
    assert_eq!(
        spec.index.describe(),
        "vamana degree=64 build_list=100 query_list=200 alpha=1.2 occlusion=750 int8+rot refine=4"
    );
    assert_eq!(Schema::from_json(&s.to_json()).unwrap(), s);
    let six: Vec<Field> = (0..6).map(|i| Field::vector(format!("v{i}"), VectorType::Fp32, 4, Metric::L2)).collect();
    assert!(matches!(Schema::new("w", six), Err(SchemaError::TooManyVectorFields(6))));
}

#[test]
fn names_parse_and_list_the_valid_ones() {
    for t in IndexType::ALL {
        assert_eq!(t.name().parse::<IndexType>(), Ok(t));
        assert_eq!(IndexParams::defaults(t).kind(), t);
        assert_eq!(t.to_string(), t.name());
    }
    for m in Metric::ALL {
        assert_eq!(m.name().parse::<Metric>(), Ok(m));
    }
    for q in Quantize::ALL {
        assert_eq!(q.name().parse::<Quantize>(), Ok(q));
    }
    assert_eq!(
        "ivfpq".parse::<IndexType>().unwrap_err().to_string(),
        r#"unknown index type "ivfpq"; expected flat, hnsw, vamana, ivf, qg, disk"#
    );
    assert_eq!("dot".parse::<Metric>().unwrap_err().to_string(), r#"unknown metric "dot"; expected l2, ip, cosine"#);
    assert!("int3".parse::<Quantize>().unwrap_err().to_string().ends_with("expected none, fp16, int8, int4, rabitq"));
}

#[test]
fn setters_reach_every_variant() {
    let mut p = IndexParams::defaults(IndexType::Hnsw);
    p.hnsw_mut().unwrap().m = 8;
    p.set_quantize(Quantize::Int8);
    p.set_refine(4);
    *p.seed_mut().unwrap() = 7;
    let built = HnswParams::default().m(8).quantize(Quantize::Int8).refine(4).seed(7);
    assert_eq!(p, IndexParams::Hnsw(built));
    assert!(p.vamana_mut().is_none());
    assert!(IndexParams::defaults(IndexType::Flat).seed_mut().is_none());
    // Resolving spells out the defaults without changing what they mean.
    let r = p.resolved();
    assert_eq!((r.quant(), r.describe()), (p.quant(), p.describe()));
    let json = serde_json::to_value(&r).unwrap();
    assert_eq!(
        json,
        serde_json::json!({"type": "hnsw", "m": 8, "ef_construction": 200, "ef": 64, "seed": 7,
            "quantize": "int8", "rotate": true, "refine": 4})
    );
    let mut flat = IndexParams::defaults(IndexType::Flat);
    flat.set_rotate(false);
    assert_eq!(flat, IndexParams::Flat(FlatParams::default().rotate(false)));
}
