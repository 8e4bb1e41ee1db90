//! What the examples share: one schema and seeded documents for it. `data/schema.json`
//! is the same schema in its JSON form, and `data/sample.jsonl` holds documents for it.

use xvec::{Doc, Field, HnswParams, IndexParams, Metric, ScalarType, Schema, SchemaError, VectorType};

/// Dimension of the `emb` vectors: small, so the examples run in a blink.
pub const DIM: u32 = 8;

/// The categories documents are spread over; filters and group-bys use them.
pub const CATEGORIES: [&str; 4] = ["book", "film", "music", "game"];

/// Scalar fields plus one HNSW-indexed vector field. The index is built by `optimize`;
/// until then a segment is searched exactly.
pub fn schema() -> Result<Schema, SchemaError> {
    // The params types are `#[non_exhaustive]`: start from the defaults, then set.
    let hnsw = HnswParams::default().m(16).ef_construction(100).ef(64).seed(7);
    Schema::builder("items")
        .field(Field::scalar("title", ScalarType::String))
        .field(Field::scalar("category", ScalarType::String))
        .field(Field::scalar("year", ScalarType::Int32))
        .field(Field::scalar("rating", ScalarType::Double).nullable(true))
        .field(Field::vector("emb", VectorType::Fp32, DIM, Metric::Cosine).index(IndexParams::Hnsw(hnsw)))
        .build()
}

/// xorshift64*: enough randomness for sample data, with no dependency.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// A random vector with components in [-1, 1).
    pub fn vector(&mut self) -> Vec<f32> {
        (0..DIM).map(|_| self.unit() * 2.0 - 1.0).collect()
    }
}

/// Documents `doc-{first}` .. `doc-{first + n - 1}`, every fifth without a rating and the
/// others rated 0.0 to 5.0 in steps of 0.1.
pub fn random_docs(rng: &mut Rng, first: u64, n: u64) -> Vec<Doc> {
    (first..first + n)
        .map(|i| {
            let category = CATEGORIES[rng.below(CATEGORIES.len() as u64) as usize];
            let doc = Doc::new(format!("doc-{i:05}"))
                .set("title", format!("{category} #{i}"))
                .set("category", category)
                .set("year", 1970 + rng.below(55) as i32)
                .set("emb", rng.vector());
            if i % 5 == 0 { doc } else { doc.set("rating", f64::from((rng.unit() * 50.0).round()) / 10.0) }
        })
        .collect()
}
