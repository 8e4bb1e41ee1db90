//! SQL `LIKE` patterns: `%` and `_` over UTF-8 chars, with byte-slice fast paths for the
//! common shapes (exact, prefix, suffix, contains).

/// A compiled LIKE pattern; the common shapes get byte-slice fast paths.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Like {
    Exact(Box<[u8]>),
    /// `'abc%'`
    Prefix(Box<[u8]>),
    /// `'%abc'`, and `'%'` as the empty suffix.
    Suffix(Box<[u8]>),
    /// `'%abc%'`
    Contains(Box<[u8]>),
    General(Box<[Piece]>),
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Piece {
    Byte(u8),
    /// `_`: one char.
    One,
    /// `%`: any run of chars.
    Any,
}

impl Like {
    /// The bytes every match starts with, and whether any value starting with them
    /// matches (the pattern is that prefix and `%`, or the prefix alone when exact).
    pub(super) fn prefix(&self) -> (std::borrow::Cow<'_, [u8]>, bool) {
        match self {
            Like::Exact(lit) | Like::Prefix(lit) => {
                (std::borrow::Cow::Borrowed(&lit[..]), matches!(self, Like::Prefix(_)))
            }
            Like::Suffix(_) | Like::Contains(_) => (std::borrow::Cow::Borrowed(&[][..]), false),
            Like::General(pieces) => {
                let lead: Vec<u8> = pieces
                    .iter()
                    .map_while(|p| match p {
                        Piece::Byte(b) => Some(*b),
                        _ => None,
                    })
                    .collect();
                (std::borrow::Cow::Owned(lead), false)
            }
        }
    }

    /// Compiles a pattern: `%` any run, `_` one char, `\` makes the next char literal.
    pub(super) fn compile(pattern: &str) -> Result<Like, &'static str> {
        let mut pieces = Vec::with_capacity(pattern.len());
        let mut chars = pattern.chars();
        while let Some(c) = chars.next() {
            let c = match c {
                '%' if pieces.last() == Some(&Piece::Any) => continue,
                '%' => {
                    pieces.push(Piece::Any);
                    continue;
                }
                '_' => {
                    pieces.push(Piece::One);
                    continue;
                }
                '\\' => chars.next().ok_or("LIKE pattern ends with the escape character `\\`")?,
                c => c,
            };
            pieces.extend(c.encode_utf8(&mut [0; 4]).bytes().map(Piece::Byte));
        }
        let lead = pieces.first() == Some(&Piece::Any);
        let body = if lead { &pieces[1..] } else { &pieces[..] };
        let trail = body.last() == Some(&Piece::Any);
        let body = if trail { &body[..body.len() - 1] } else { body };
        let literal: Option<Box<[u8]>> = body
            .iter()
            .map(|p| match p {
                Piece::Byte(b) => Some(*b),
                _ => None,
            })
            .collect();
        Ok(match (literal, lead, trail) {
            (Some(lit), false, false) => Like::Exact(lit),
            (Some(lit), false, true) => Like::Prefix(lit),
            (Some(lit), true, false) => Like::Suffix(lit),
            (Some(lit), true, true) => Like::Contains(lit),
            (None, ..) => Like::General(pieces.into()),
        })
    }

    #[inline]
    pub(super) fn matches(&self, s: &[u8]) -> bool {
        match self {
            Like::Exact(lit) => s == &lit[..],
            Like::Prefix(lit) => s.starts_with(lit),
            Like::Suffix(lit) => s.ends_with(lit),
            Like::Contains(lit) => lit.is_empty() || s.windows(lit.len()).any(|w| w == &lit[..]),
            Like::General(pieces) => general(pieces, s),
        }
    }
}

/// `ILIKE`: `like` (compiled from the lowercased pattern) matched against `s` lowercased.
/// ASCII values fold into a reused per-thread buffer; others go through Unicode's
/// lowercase mapping (PostgreSQL folds by the locale's; this is the locale-free
/// equivalent).
pub(super) fn matches_folded(like: &Like, s: &[u8]) -> bool {
    thread_local! {
        static FOLDED: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    if s.is_ascii() {
        return FOLDED.with_borrow_mut(|buf| {
            buf.clear();
            buf.extend(s.iter().map(u8::to_ascii_lowercase));
            like.matches(buf)
        });
    }
    match std::str::from_utf8(s) {
        Ok(text) => like.matches(text.to_lowercase().as_bytes()),
        Err(_) => like.matches(&s.to_ascii_lowercase()),
    }
}

/// Wildcard matching with backtracking to the last `%` only, so O(len(s) * len(pattern)).
/// `s` is UTF-8; positions stay on char boundaries.
fn general(pieces: &[Piece], s: &[u8]) -> bool {
    let (mut p, mut t) = (0, 0);
    let mut retry: Option<(usize, usize)> = None;
    while t < s.len() {
        match pieces.get(p) {
            Some(Piece::Any) => {
                p += 1;
                retry = Some((p, t));
                continue;
            }
            Some(Piece::One) => {
                p += 1;
                t += char_len(s[t]);
                continue;
            }
            Some(Piece::Byte(b)) if *b == s[t] => {
                p += 1;
                t += 1;
                continue;
            }
            _ => {}
        }
        let Some((rp, rt)) = retry else { return false };
        let next = rt + char_len(s[rt]);
        retry = Some((rp, next));
        (p, t) = (rp, next);
    }
    t == s.len() && pieces[p..].iter().all(|x| *x == Piece::Any)
}

/// Bytes of the UTF-8 char starting with `lead`.
#[inline]
fn char_len(lead: u8) -> usize {
    match lead {
        0xF0.. => 4,
        0xE0.. => 3,
        0xC0.. => 2,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reference matcher over chars, by plain recursion.
    fn naive(p: &[char], s: &[char]) -> bool {
        match p.split_first() {
            None => s.is_empty(),
            Some(('%', rest)) => (0..=s.len()).any(|i| naive(rest, &s[i..])),
            Some(('_', rest)) => !s.is_empty() && naive(rest, &s[1..]),
            Some((c, rest)) => s.first() == Some(c) && naive(rest, &s[1..]),
        }
    }

    fn like(p: &str, s: &str) -> bool {
        Like::compile(p).unwrap().matches(s.as_bytes())
    }

    #[test]
    fn shapes() {
        assert_eq!(Like::compile("ab").unwrap(), Like::Exact((*b"ab").into()));
        assert_eq!(Like::compile("").unwrap(), Like::Exact((*b"").into()));
        assert_eq!(Like::compile("ab%%").unwrap(), Like::Prefix((*b"ab").into()));
        assert_eq!(Like::compile("%ab").unwrap(), Like::Suffix((*b"ab").into()));
        assert_eq!(Like::compile("%").unwrap(), Like::Suffix((*b"").into()));
        assert_eq!(Like::compile("%%a%").unwrap(), Like::Contains((*b"a").into()));
        assert_eq!(Like::compile("a\\%b\\_\\\\%").unwrap(), Like::Prefix((*b"a%b_\\").into()));
        assert!(matches!(Like::compile("a_").unwrap(), Like::General(_)));
        assert!(matches!(Like::compile("a%b").unwrap(), Like::General(_)));
        assert!(Like::compile("ab\\").is_err());
    }

    #[test]
    fn matching() {
        assert!(like("abc%", "abcdef") && like("abc%", "abc") && !like("abc%", "ab") && !like("abc%", "xabc"));
        assert!(like("%def", "abcdef") && !like("%def", "defx"));
        assert!(like("%cd%", "abcdef") && !like("%cd%", "abdc"));
        assert!(like("a_c", "abc") && like("a_c", "aéc") && !like("a_c", "ac") && !like("a_c", "abbc"));
        assert!(like("", "") && !like("", "a"));
        assert!(like("%", "") && like("%", "anything"));
        assert!(!like("ABC%", "abc"), "case-sensitive");
        assert!(like("a\\%", "a%") && !like("a\\%", "ab"));
        assert!(like("%a%b%c%", "xxaxxbxxcxx") && !like("%a%b%c%", "xxcxxbxxaxx"));
        assert!(like("_é_", "aéb") && like("%é", "ééé") && like("é%é", "éxé") && !like("é%é", "é"));
    }

    #[test]
    fn folded_matching_ignores_case() {
        let ilike = |p: &str, s: &str| matches_folded(&Like::compile(&p.to_lowercase()).unwrap(), s.as_bytes());
        assert!(ilike("ABC%", "abcdef") && ilike("abc%", "ABCDEF") && ilike("%Dog", "hot DOG"));
        assert!(ilike("_É_", "aéB") && ilike("straße", "STRAßE") && !ilike("abc", "abd"));
        assert!(ilike("%ÄB%", "xxäbxx") && !ilike("a\\%", "AB"));
    }

    #[test]
    fn general_agrees_with_naive() {
        let alphabet = ['a', 'b', 'é', '%', '_'];
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: usize| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as usize % n
        };
        for _ in 0..20_000 {
            let p: Vec<char> = (0..next(7)).map(|_| alphabet[next(5)]).collect();
            let s: Vec<char> = (0..next(8)).map(|_| alphabet[next(3)]).collect();
            let (ps, ss): (String, String) = (p.iter().collect(), s.iter().collect());
            assert_eq!(like(&ps, &ss), naive(&p, &s), "{ps:?} LIKE {ss:?}");
        }
    }
}
