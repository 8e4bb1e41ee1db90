//! HNSW: a layered proximity graph (Malkov & Yashunin), built in parallel over a
//! segment's rows and searched in place from a mapped index file.
//!
//! Layout: the base layer is one fixed-stride `u32` array, `m0 + 1` words per node (count,
//! then neighbours, unused slots = [`NONE`]); nodes above layer 0 own `level` blocks of
//! `m + 1` words in a compact upper array, found through a per-node offset.

mod build;
mod search;

pub(crate) use build::build;
pub(crate) use search::search;

/// Unused neighbour slot (outside the index module, tests and verify spell it here).
pub(crate) use crate::index::graph::NONE;
use crate::index::graph::{GraphError, GraphSection, Links};

/// Upper-offset of a node with no upper layers.
pub(crate) const NO_UPPER: u32 = u32::MAX;
/// Highest level a node may have (keeps `u8` levels and hostile files bounded).
pub(crate) const MAX_LEVEL: u8 = 32;

/// A finished graph, borrowed from an index file (mapped) or from a fresh build.
#[derive(Clone, Copy, Debug)]
pub(crate) struct GraphView<'a> {
    pub m: usize,
    pub m0: usize,
    pub entry: u32,
    pub max_level: usize,
    pub levels: &'a [u8],
    pub base: &'a [u32],
    pub upper_offsets: &'a [u32],
    pub upper: &'a [u32],
}

impl GraphView<'_> {
    pub(crate) fn nodes(&self) -> usize {
        self.levels.len()
    }

    /// An owned copy, to change and write again (repair, tests).
    pub(crate) fn to_graph(self) -> Graph {
        Graph {
            m: self.m,
            m0: self.m0,
            entry: self.entry,
            max_level: self.max_level,
            levels: self.levels.to_vec(),
            base: self.base.to_vec(),
            upper_offsets: self.upper_offsets.to_vec(),
            upper: self.upper.to_vec(),
        }
    }

    /// The base-layer neighbours of `node`, in place.
    #[inline]
    pub(crate) fn base_neighbors(&self, node: u32) -> &[u32] {
        let at = node as usize * (self.m0 + 1);
        let n = self.base[at] as usize;
        &self.base[at + 1..at + 1 + n]
    }

    #[inline]
    pub(crate) fn level_neighbors(&self, node: u32, level: usize) -> &[u32] {
        if level == 0 {
            return self.base_neighbors(node);
        }
        let at = self.upper_offsets[node as usize] as usize + (level - 1) * (self.m + 1);
        let n = self.upper[at] as usize;
        &self.upper[at + 1..at + 1 + n]
    }

    /// Checks everything search relies on: sizes, counts within bounds, ids in range,
    /// offsets consistent with levels, a valid entry point. Returns the first problem found.
    pub(crate) fn validate(&self) -> Result<(), GraphError> {
        let whole = |what: String| Err(GraphError { at: None, what });
        let at = |section: GraphSection, i: usize, what: String| Err(GraphError { at: Some((section, i)), what });
        let n = self.nodes();
        if n == 0 {
            return if self.base.is_empty() && self.upper.is_empty() {
                Ok(())
            } else {
                whole("empty graph with links".into())
            };
        }
        if self.base.len() != n * (self.m0 + 1) {
            return whole(format!(
                "base layer has {} words, expected {} for {n} nodes",
                self.base.len(),
                n * (self.m0 + 1)
            ));
        }
        if self.upper_offsets.len() != n {
            return whole(format!("{} upper offsets for {n} nodes", self.upper_offsets.len()));
        }
        if self.entry as usize >= n || self.levels[self.entry as usize] as usize != self.max_level {
            return whole(format!("entry point {} is not a node of the top level {}", self.entry, self.max_level));
        }
        let mut next = 0usize;
        for (node, &level) in self.levels.iter().enumerate() {
            if level > MAX_LEVEL || level as usize > self.max_level {
                let what = format!("node {node} has level {level}, above the top level {}", self.max_level);
                return at(GraphSection::Levels, node, what);
            }
            let off = self.upper_offsets[node];
            if level == 0 {
                if off != NO_UPPER {
                    return at(
                        GraphSection::UpperOffsets,
                        node,
                        format!("node {node} has level 0 but upper offset {off}"),
                    );
                }
                continue;
            }
            if off as usize != next {
                return at(
                    GraphSection::UpperOffsets,
                    node,
                    format!("node {node}: upper offset {off}, expected {next}"),
                );
            }
            next += level as usize * (self.m + 1);
        }
        if next != self.upper.len() {
            return whole(format!("upper layers have {} words, the levels need {next}", self.upper.len()));
        }
        let check = |words: &[u32], section: GraphSection, stride: usize, cap: usize| -> Result<(), GraphError> {
            let name = if section == GraphSection::Base { "base layer" } else { "upper layer" };
            for (b, block) in words.chunks_exact(stride).enumerate() {
                let count = block[0] as usize;
                if count > cap {
                    return at(section, b * stride, format!("{name} block {b}: {count} neighbours, more than {cap}"));
                }
                if let Some(i) = block[1..1 + count].iter().position(|&id| id as usize >= n) {
                    let what = format!("{name} block {b}: neighbour {} is out of range for {n} nodes", block[1 + i]);
                    return at(section, b * stride + 1 + i, what);
                }
            }
            Ok(())
        };
        check(self.base, GraphSection::Base, self.m0 + 1, self.m0)?;
        check(self.upper, GraphSection::Upper, self.m + 1, self.m)
    }
}

impl Links for GraphView<'_> {
    #[inline]
    fn neighbors(&self, node: u32, level: usize, out: &mut Vec<u32>) {
        out.clear();
        out.extend_from_slice(self.level_neighbors(node, level));
    }

    #[inline]
    fn prefetch(&self, node: u32, level: usize) {
        if level == 0 {
            let at = node as usize * (self.m0 + 1);
            crate::kernels::prefetch_lines(&self.base[at..at + self.m0 + 1], 3);
        }
    }
}

/// An owned graph, as a build produces it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Graph {
    pub m: usize,
    pub m0: usize,
    pub entry: u32,
    pub max_level: usize,
    pub levels: Vec<u8>,
    pub base: Vec<u32>,
    pub upper_offsets: Vec<u32>,
    pub upper: Vec<u32>,
}

impl Graph {
    pub(crate) fn view(&self) -> GraphView<'_> {
        GraphView {
            m: self.m,
            m0: self.m0,
            entry: self.entry,
            max_level: self.max_level,
            levels: &self.levels,
            base: &self.base,
            upper_offsets: &self.upper_offsets,
            upper: &self.upper,
        }
    }
}
