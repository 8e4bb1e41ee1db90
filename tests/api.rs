//! Integration tests of the engine through its public API.

mod util;
