//! Counts in messages: `1 document`, `2 documents`, `1 index`, `3 indexes`.

/// `n` and `noun`, the noun made plural unless `n` is 1.
pub fn count(n: impl Into<u64>, noun: &str) -> String {
    let n = n.into();
    if n == 1 { format!("1 {noun}") } else { format!("{n} {}", plural(noun)) }
}

/// English plural of the nouns the tool counts.
fn plural(noun: &str) -> String {
    if let Some(stem) = noun.strip_suffix('y')
        && !stem.ends_with(['a', 'e', 'o', 'u'])
    {
        return format!("{stem}ies");
    }
    if noun.ends_with(['s', 'x']) || noun.ends_with("ch") || noun.ends_with("sh") {
        return format!("{noun}es");
    }
    format!("{noun}s")
}

#[cfg(test)]
mod tests {
    use super::count;

    #[test]
    fn singular_and_plural() {
        assert_eq!(count(1u64, "document"), "1 document");
        assert_eq!(count(0u64, "document"), "0 documents");
        assert_eq!(count(2u32, "index"), "2 indexes");
        assert_eq!(count(3u64, "query"), "3 queries");
        assert_eq!(count(3u64, "key"), "3 keys");
        assert_eq!(count(1u64, "problem"), "1 problem");
        assert_eq!(count(5u64, "bad frame"), "5 bad frames");
    }
}
