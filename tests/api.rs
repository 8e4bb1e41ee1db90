//! The engine through its public API only: what an embedding program can do and see.
//! Tests that need the engine's internals are unit tests beside the code.

mod util;

mod bounds;
mod engine;
mod follow;
mod hybrid;
mod index;
mod recall;
mod sparse;
mod vamana;
mod versions;
