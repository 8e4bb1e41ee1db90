//! Quantization, the component of an index file beside its kind: the rotation, the
//! quantizer and the codes it made (one per row, or per IVF list entry), and the one-bit
//! sketches graph kinds screen with. A kind that takes codes composes with it; what it
//! stores depends on the parameters' quantization and on what the kind keeps
//! ([`keeps_sketches`], [`sketches_entries`], decided by the kinds).

use std::ops::Range;

use crate::error::StorageError;
use crate::index::quant::rotation::Rotation;
use crate::index::quant::sketch::{self, Sketches};
use crate::index::quant::{Codes, PARAMS_PER_ROW, Quantizer};
use crate::schema::{IndexParams, Quantize, VectorSpec};
use crate::storage::container::RawSection;
use crate::storage::mmap::cast_slice;

use super::{Section, find};

pub(super) const ROTATION: Section = Section { code: 1, name: "rotation" };
pub(super) const CODES: Section = Section { code: 2, name: "codes" };
pub(super) const PARAMS: Section = Section { code: 3, name: "code params" };
pub(super) const SKETCHES: Section = Section { code: 9, name: "sketches" };

/// The quantization sections of an open index file, as ranges of its bytes.
pub(super) struct Quantization {
    keeps: Keeps,
    pub(super) quantizer: Option<Quantizer>,
    /// The stored rotation: of the codes (when rotated) and of the sketches.
    pub(super) rotation: Option<Rotation>,
    /// The codes and their per-row params.
    pub(super) codes: Option<(Range<usize>, Range<usize>)>,
    /// The rows' sketches (graph kinds).
    pub(super) sketches: Option<Range<usize>>,
}

/// The quantizer of `spec`'s codes, `None` without quantization.
pub(super) fn quantizer_for(spec: &VectorSpec, rotation: Option<Rotation>) -> Option<Quantizer> {
    let q = spec.index.quant();
    (q.quantize != Quantize::None).then(|| Quantizer::new(q.quantize, q.bits, spec.dim as usize, spec.metric, rotation))
}

/// What an index kind keeps of the quantization, as the kind says
/// ([`keeps`](super::kinds::keeps)).
#[derive(Clone, Copy, Debug)]
pub(super) struct Keeps {
    /// The rows' sketches: the graph kinds screen neighbours with them before reading them.
    pub(super) row_sketches: bool,
    /// Sketches of its IVF list entries (in the kind's own section, with this component's
    /// rotation).
    pub(super) entry_sketches: bool,
    /// Codes one per row, in row order, so they can be encoded before (and re-encoded
    /// without) the kind's own structure; IVF codes are per list entry, in list order, made
    /// with the lists.
    pub(super) codes_per_row: bool,
}

impl Keeps {
    /// Whether the index's codes are the sign bits of its sketches (one-bit RaBitQ of the
    /// rotated rows of a graph index), read in place from the sketches section: the bits
    /// are stored once, and a code row is one aligned 64-byte line at d = 384 (not 48
    /// bytes straddling two).
    pub(super) fn codes_in_sketches(self, index: &IndexParams) -> bool {
        let q = index.quant();
        self.row_sketches && q.quantize == Quantize::Rabitq && q.bits == 1 && q.rotate
    }

    /// Whether an index of `index` stores a rotation: for rotated codes, for sketches of
    /// rows, or for sketches of IVF entries.
    pub(super) fn rotation(self, index: &IndexParams) -> bool {
        let quant = index.quant();
        (quant.quantize != Quantize::None && quant.rotate) || self.row_sketches || self.entry_sketches
    }
}

/// How an open check names a damaged spot: the file offset and what is wrong.
pub(super) type Bad<'a> = &'a dyn Fn(u64, String) -> StorageError;

impl Quantization {
    /// The rotation and the sketches of an index file, checked against `spec`: what must
    /// be known before the kind's sections (the codes come after, sized by the kind).
    /// Index files written before sketches existed have neither sketches nor (for
    /// unrotated codes) a rotation: they open, and their searches do not screen.
    pub(super) fn open_rotation(
        spec: &VectorSpec,
        keeps: Keeps,
        rows: usize,
        b: &[u8],
        sections: &[RawSection],
        bad: Bad,
    ) -> Result<Quantization, StorageError> {
        let sketches = match (keeps.row_sketches, find(sections, SKETCHES)) {
            (true, Some(s)) => {
                if s.len != (sketch::words_per_row(spec.dim as usize) * 8 * rows) as u64 {
                    return Err(bad(s.offset, format!("sketches of {} bytes do not fit {rows} rows", s.len)));
                }
                Some(s.range())
            }
            (_, None) => None,
            (false, Some(s)) => return Err(bad(s.offset, "sketch section in an index that keeps none".into())),
        };
        let quant = spec.index.quant();
        // A kind that keeps sketches but has none (an old file) needs no rotation for them.
        let wants_rotation =
            (quant.quantize != Quantize::None && quant.rotate) || sketches.is_some() || keeps.entry_sketches;
        let rotation = match (find(sections, ROTATION), wants_rotation) {
            (Some(s), true) => Some(
                Rotation::decode(&b[s.range()], spec.dim as usize)
                    .map_err(|e| bad(s.offset + e.at.unwrap_or(0) as u64, e.what))?,
            ),
            (None, false) => None,
            (Some(s), false) => return Err(bad(s.offset, "rotation section in an index without rotation".into())),
            (None, true) => return Err(bad(32, "rotation section missing".into())),
        };
        let quantizer = quantizer_for(spec, rotation.clone().filter(|_| quant.rotate));
        Ok(Quantization { keeps, quantizer, rotation, codes: None, sketches })
    }

    /// The codes of `entries` rows or list entries, checked against the quantizer.
    pub(super) fn open_codes(
        &mut self,
        spec: &VectorSpec,
        entries: usize,
        sections: &[RawSection],
        bad: Bad,
    ) -> Result<(), StorageError> {
        let params_fit = |p: &RawSection| {
            if p.len == (PARAMS_PER_ROW * 4 * entries) as u64 {
                Ok(())
            } else {
                Err(bad(p.offset, format!("code params of {} bytes do not fit {entries} entries", p.len)))
            }
        };
        self.codes = match (&self.quantizer, find(sections, CODES), find(sections, PARAMS)) {
            (Some(qz), Some(c), Some(p)) => {
                if c.len != (qz.code_bytes() * entries) as u64 {
                    return Err(bad(c.offset, format!("codes of {} bytes do not fit {entries} entries", c.len)));
                }
                params_fit(p)?;
                Some((c.range(), p.range()))
            }
            // One-bit codes read from the sketches.
            (Some(_), None, Some(p)) if self.keeps.codes_in_sketches(&spec.index) => {
                params_fit(p)?;
                let s = self.sketches.clone().ok_or_else(|| bad(p.offset, "one-bit codes without sketches".into()))?;
                Some((s, p.range()))
            }
            (None, None, None) => None,
            _ => return Err(bad(32, "code sections do not match the quantization".into())),
        };
        Ok(())
    }

    /// Sections of the file this component holds (the one-bit codes read from the
    /// sketches count once).
    pub(super) fn sections(&self, sections: &[RawSection]) -> usize {
        [ROTATION, CODES, PARAMS].into_iter().filter(|&k| find(sections, k).is_some()).count()
            + self.sketches.is_some() as usize
    }

    /// Fails when a code param is not finite.
    pub(super) fn validate(&self, b: &[u8], bad: Bad) -> Result<(), StorageError> {
        if let Some(c) = self.codes(b)
            && let Some(i) = c.params.iter().position(|p| !p.is_finite())
        {
            let params = &self.codes.as_ref().expect("codes").1;
            return Err(bad(params.start as u64 + i as u64 * 4, "code params are not finite".into()));
        }
        Ok(())
    }

    /// The codes, for quantized indexes.
    pub(super) fn codes<'a>(&self, b: &'a [u8]) -> Option<Codes<'a>> {
        let (c, p) = self.codes.as_ref()?;
        let qz = self.quantizer.as_ref()?;
        let (codes, params) = (&b[c.clone()], cast_slice(&b[p.clone()])?);
        Some(if self.codes_in_sketches() { qz.view_in_sketches(codes, params) } else { qz.view(codes, params) })
    }

    /// Whether the codes are read from the sketches section (see [`Keeps::codes_in_sketches`]);
    /// files written before that have a codes section of their own.
    pub(super) fn codes_in_sketches(&self) -> bool {
        matches!((&self.codes, &self.sketches), (Some((c, _)), Some(s)) if c == s)
    }

    /// The rows' sketches, for graph indexes.
    pub(super) fn sketches<'a>(&self, b: &'a [u8], dim: usize) -> Option<Sketches<'a>> {
        Some(Sketches { words: cast_slice(&b[self.sketches.clone()?])?, dim })
    }

    /// Bytes of the codes (with their params) and of the sketches.
    pub(super) fn bytes(&self) -> (u64, u64) {
        let own = |c: &Range<usize>| if self.codes_in_sketches() { 0 } else { c.len() };
        let codes = self.codes.as_ref().map_or(0, |(c, p)| (own(c) + p.len()) as u64);
        (codes, self.sketches.as_ref().map_or(0, |r| r.len() as u64))
    }
}
