//! Names from a closed vocabulary (metrics, index types, tokenizers, ...) parsed in one
//! way, with an error that lists the names there are.

/// A name outside a vocabulary (a metric, a quantization, an index type); the message
/// lists the names that are.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} {input:?}; expected {}", expected.join(", "))]
#[non_exhaustive]
pub struct UnknownName {
    /// What was being named, e.g. `metric`.
    pub what: &'static str,
    /// The name given.
    pub input: String,
    /// Every name the vocabulary has, in its listing order.
    pub expected: Vec<&'static str>,
}

/// The member of `all` whose `name` is `input`.
pub(crate) fn parse_name<T: Copy>(
    what: &'static str,
    all: &[T],
    name: fn(T) -> &'static str,
    input: &str,
) -> Result<T, UnknownName> {
    all.iter().copied().find(|&t| name(t) == input).ok_or_else(|| UnknownName {
        what,
        input: input.to_string(),
        expected: all.iter().map(|&t| name(t)).collect(),
    })
}
