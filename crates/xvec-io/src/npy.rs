//! NumPy `.npy` header: parsing (versions 1.0, 2.0 and 3.0) and writing.
//!
//! Owns only the file preamble and the header dict literal
//! (`{'descr': '<f4', 'fortran_order': False, 'shape': (N, D), }`); what the
//! descr and shape mean for a reader is decided by `bench::dataset`.

/// The six bytes every `.npy` file starts with.
pub const MAGIC: &[u8; 6] = b"\x93NUMPY";

/// A parsed `.npy` header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NpyHeader {
    /// Format version, e.g. `(1, 0)`.
    pub version: (u8, u8),
    /// The dtype string, e.g. `<f4`.
    pub descr: String,
    pub fortran_order: bool,
    pub shape: Vec<u64>,
    /// Byte offset of the array data from the start of the file.
    pub data_offset: usize,
}

/// A malformed or unsupported header; the message says what was expected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("npy header: {0}")]
pub struct NpyError(pub String);

fn err<T>(msg: impl Into<String>) -> Result<T, NpyError> {
    Err(NpyError(msg.into()))
}

/// Parses the header at the start of `bytes` (the whole file, or at least its
/// header). On success `data_offset <= bytes.len()`.
pub fn parse(bytes: &[u8]) -> Result<NpyHeader, NpyError> {
    if !bytes.starts_with(MAGIC) {
        if MAGIC.starts_with(bytes) {
            return err(format!("truncated: {} bytes, expected the magic \\x93NUMPY", bytes.len()));
        }
        return err("bad magic at byte 0, expected \\x93NUMPY");
    }
    let (major, minor) = match bytes.get(6..8) {
        Some(&[a, b]) => (a, b),
        _ => return err("truncated: expected the version at byte 6"),
    };
    let (len_size, prefix) = match (major, minor) {
        (1, 0) => (2, 10),
        (2, 0) | (3, 0) => (4, 12),
        _ => {
            return err(format!("unsupported version {major}.{minor} at byte 6, expected 1.0, 2.0 or 3.0"));
        }
    };
    let header_len = match bytes.get(8..8 + len_size) {
        Some(&[a, b]) => usize::from(u16::from_le_bytes([a, b])),
        Some(&[a, b, c, d]) => u32::from_le_bytes([a, b, c, d]) as usize,
        _ => {
            return err(format!("truncated: expected a {len_size}-byte header length at byte 8"));
        }
    };
    let data_offset = prefix + header_len;
    let Some(text) = bytes.get(prefix..data_offset) else {
        return err(format!(
            "truncated: {} bytes left at byte {prefix}, expected a header of {header_len} bytes",
            bytes.len() - prefix.min(bytes.len())
        ));
    };
    let mut p = Parser { b: text, pos: 0, base: prefix };
    let entries = p.dict()?;
    let mut descr = None;
    let mut fortran_order = None;
    let mut shape = None;
    for (key, value) in entries {
        let slot_taken = match (key.as_str(), value) {
            ("descr", Value::Str(s)) => descr.replace(s).is_some(),
            ("descr", _) => return err("'descr' must be a string such as '<f4'"),
            ("fortran_order", Value::Bool(b)) => fortran_order.replace(b).is_some(),
            ("fortran_order", _) => return err("'fortran_order' must be True or False"),
            ("shape", Value::Ints(v)) => shape.replace(v).is_some(),
            ("shape", _) => return err("'shape' must be a tuple of integers"),
            _ => false, // unknown keys are ignored
        };
        if slot_taken {
            return err(format!("duplicate key '{key}'"));
        }
    }
    let Some(descr) = descr else {
        return err("expected 'descr' key");
    };
    let Some(fortran_order) = fortran_order else {
        return err("expected 'fortran_order' key");
    };
    let Some(shape) = shape else {
        return err("expected 'shape' key");
    };
    Ok(NpyHeader { version: (major, minor), descr, fortran_order, shape, data_offset })
}

/// Builds a C-order header for `descr` and `shape` in format `version`
/// (1, 2 or 3; anything else is written as 1 or 2, whichever fits), padded
/// so the data starts at a multiple of 64 bytes.
pub fn header_bytes(descr: &str, shape: &[u64], version: u8) -> Vec<u8> {
    let shape_text = match shape {
        [n] => format!("({n},)"),
        _ => {
            let parts: Vec<String> = shape.iter().map(u64::to_string).collect();
            format!("({})", parts.join(", "))
        }
    };
    let mut dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape_text}, }}");
    let version = match version {
        1..=3 => version,
        _ if dict.len() + 11 <= usize::from(u16::MAX) => 1,
        _ => 2,
    };
    let prefix = if version == 1 { 10 } else { 12 };
    let total = (prefix + dict.len() + 1).div_ceil(64) * 64;
    while prefix + dict.len() + 1 < total {
        dict.push(' ');
    }
    dict.push('\n');
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[version, 0]);
    if version == 1 {
        let len = u16::try_from(dict.len()).unwrap_or(u16::MAX);
        out.extend_from_slice(&len.to_le_bytes());
    } else {
        let len = u32::try_from(dict.len()).unwrap_or(u32::MAX);
        out.extend_from_slice(&len.to_le_bytes());
    }
    out.extend_from_slice(dict.as_bytes());
    out
}

enum Value {
    Str(String),
    Bool(bool),
    Ints(Vec<u64>),
}

/// Recursive-descent parser for the subset of Python literals npy headers use.
struct Parser<'a> {
    b: &'a [u8],
    pos: usize,
    /// File offset of `b[0]`, for error messages.
    base: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    fn at(&self) -> usize {
        self.base + self.pos
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn fail<T>(&self, expected: &str) -> Result<T, NpyError> {
        let found = match self.peek() {
            Some(c) if c.is_ascii_graphic() => format!("'{}'", char::from(c)),
            Some(c) => format!("byte 0x{c:02x}"),
            None => "end of header".to_string(),
        };
        err(format!("expected {expected} at byte {}, found {found}", self.at()))
    }

    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn dict(&mut self) -> Result<Vec<(String, Value)>, NpyError> {
        self.ws();
        if !self.eat(b'{') {
            return self.fail("'{' opening the header dict");
        }
        let mut entries = Vec::new();
        loop {
            self.ws();
            if self.eat(b'}') {
                break;
            }
            let key = match self.peek() {
                Some(b'\'' | b'"') => self.string()?,
                _ => return self.fail("a quoted key or '}'"),
            };
            self.ws();
            if !self.eat(b':') {
                return self.fail("':'");
            }
            self.ws();
            let value = self.value()?;
            entries.push((key, value));
            self.ws();
            if self.eat(b'}') {
                break;
            }
            if !self.eat(b',') {
                return self.fail("',' or '}'");
            }
        }
        self.ws();
        if self.pos != self.b.len() {
            return self.fail("end of header after '}'");
        }
        Ok(entries)
    }

    fn string(&mut self) -> Result<String, NpyError> {
        let Some(quote) = self.peek() else {
            return self.fail("a string");
        };
        self.pos += 1;
        let mut out = Vec::new();
        loop {
            match self.peek() {
                None => return self.fail("a closing quote"),
                Some(c) if c == quote => {
                    self.pos += 1;
                    break;
                }
                Some(b'\\') => {
                    self.pos += 1;
                    match self.peek() {
                        Some(c) => out.push(c),
                        None => return self.fail("a closing quote"),
                    }
                    self.pos += 1;
                }
                Some(c) => {
                    out.push(c);
                    self.pos += 1;
                }
            }
        }
        Ok(String::from_utf8_lossy(&out).into_owned())
    }

    fn value(&mut self) -> Result<Value, NpyError> {
        match self.peek() {
            Some(b'\'' | b'"') => Ok(Value::Str(self.string()?)),
            Some(b'(') => self.tuple(),
            // Only a structured dtype's 'descr' is a list.
            Some(b'[') => err(format!("structured dtypes (a list at byte {}) are not supported", self.at())),
            Some(b'T' | b'F') => {
                let rest = &self.b[self.pos..];
                if rest.starts_with(b"True") {
                    self.pos += 4;
                    Ok(Value::Bool(true))
                } else if rest.starts_with(b"False") {
                    self.pos += 5;
                    Ok(Value::Bool(false))
                } else {
                    self.fail("True or False")
                }
            }
            _ => self.fail("a string, True, False or a tuple"),
        }
    }

    fn tuple(&mut self) -> Result<Value, NpyError> {
        self.pos += 1; // '('
        let mut items = Vec::new();
        loop {
            self.ws();
            if self.eat(b')') {
                break;
            }
            items.push(self.int()?);
            self.ws();
            if self.eat(b')') {
                break;
            }
            if !self.eat(b',') {
                return self.fail("',' or ')' in the tuple");
            }
        }
        Ok(Value::Ints(items))
    }

    fn int(&mut self) -> Result<u64, NpyError> {
        let start = self.pos;
        let mut v: u64 = 0;
        while let Some(c @ b'0'..=b'9') = self.peek() {
            v = match v.checked_mul(10).and_then(|v| v.checked_add(u64::from(c - b'0'))) {
                Some(v) => v,
                None => {
                    return err(format!("integer at byte {} is too large", self.base + start));
                }
            };
            self.pos += 1;
        }
        if self.pos == start {
            return self.fail("a non-negative integer");
        }
        // Python 2 wrote long integers as `10L`.
        if matches!(self.peek(), Some(b'L' | b'l')) {
            self.pos += 1;
        }
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(version: u8, dict: &str) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(&[version, 0]);
        if version == 1 {
            out.extend_from_slice(&(dict.len() as u16).to_le_bytes());
        } else {
            out.extend_from_slice(&(dict.len() as u32).to_le_bytes());
        }
        out.extend_from_slice(dict.as_bytes());
        out
    }

    #[test]
    fn round_trip_all_versions() {
        for version in 1..=3 {
            let bytes = header_bytes("<f4", &[10, 3], version);
            assert_eq!(bytes.len() % 64, 0);
            assert_eq!(bytes.last(), Some(&b'\n'));
            let h = parse(&bytes).unwrap();
            assert_eq!(h.version, (version, 0));
            assert_eq!(h.descr, "<f4");
            assert!(!h.fortran_order);
            assert_eq!(h.shape, vec![10, 3]);
            assert_eq!(h.data_offset, bytes.len());
        }
        let h = parse(&header_bytes("|u1", &[7], 1)).unwrap();
        assert_eq!(h.shape, vec![7]);
    }

    #[test]
    fn lenient_syntax() {
        let h = parse(&file(1, "{\"shape\":(5L,2L),'fortran_order':True,'descr':'<i8','extra':'x'}")).unwrap();
        assert_eq!(h.shape, vec![5, 2]);
        assert!(h.fortran_order);
        assert_eq!(h.descr, "<i8");
        let h = parse(&file(2, "{'descr': '<f2', 'fortran_order': False, 'shape': (), }\n")).unwrap();
        assert!(h.shape.is_empty());
    }

    #[test]
    fn errors() {
        let cases: &[(Vec<u8>, &str)] = &[
            (b"\x93NUM".to_vec(), "truncated: 4 bytes"),
            (b"PK\x03\x04 not npy".to_vec(), "bad magic"),
            (b"\x93NUMPY\x04\x00\x00\x00".to_vec(), "unsupported version 4.0"),
            (b"\x93NUMPY\x01\x00\x05".to_vec(), "2-byte header length"),
            (b"\x93NUMPY\x01\x00\x50\x00{'de".to_vec(), "expected a header of 80 bytes"),
            (file(1, "{'descr': '<f4', 'fortran_order': False}"), "expected 'shape' key"),
            (file(1, "{'shape': (1, 2), 'fortran_order': False}"), "expected 'descr' key"),
            (file(1, "{'descr': '<f4', 'shape': (1, 2)}"), "expected 'fortran_order' key"),
            (
                file(1, "{'descr': '<f4' 'fortran_order': False, 'shape': (1,)}"),
                "expected ',' or '}' at byte 26, found '''",
            ),
            (file(1, "['descr']"), "expected '{' opening the header dict at byte 10"),
            (file(1, "{'descr': '<f4', 'fortran_order': Fals}"), "expected True or False"),
            (file(1, "{'descr': '<f4', 'shape': (1, -2)}"), "expected a non-negative integer"),
            (file(1, "{'descr': '<f4', 'shape': (1 2)}"), "expected ',' or ')'"),
            (file(1, "{'descr': '<f4', 'shape': (99999999999999999999,)}"), "too large"),
            (file(1, "{'descr': [('a', '<f4')], 'shape': (1,)}"), "structured dtypes"),
            (file(1, "{'descr': 3}"), "expected a string, True, False or a tuple"),
            (file(1, "{'shape': 'x'}"), "'shape' must be a tuple"),
            (file(1, "{'descr': '<f4', 'descr': '<f4'}"), "duplicate key 'descr'"),
            (file(1, "{'descr': '<f4} "), "expected a closing quote"),
            (file(1, "{} x"), "expected end of header after '}'"),
        ];
        for (bytes, want) in cases {
            let msg = parse(bytes).unwrap_err().to_string();
            assert!(msg.starts_with("npy header: "), "{msg}");
            assert!(msg.contains(want), "{msg:?} lacks {want:?}");
        }
    }

    #[test]
    fn never_panics_on_prefixes() {
        let bytes = header_bytes("<f4", &[3, 4], 1);
        for n in 0..=bytes.len() {
            let _ = parse(&bytes[..n]);
        }
    }
}
