//! Vamana (DiskANN): a single-layer proximity graph of bounded degree whose edges survive
//! an alpha-relaxed robust prune, built in batches over a segment's rows and searched in
//! place from a mapped index file.
//!
//! Layout: one fixed-stride `u32` array, `degree + 1` words per node: the neighbour count,
//! then the neighbours, unused slots = [`NONE`]. Search starts at the medoid. Vectors are
//! never copied in: construction and FP32 search score against the segment's rows.

mod build;
#[cfg(test)]
pub(crate) use build::tests::clustered;
mod search;

pub(crate) use build::{Plan, Working, build, build_with, occlusion, working_bytes};
pub(crate) use search::search;

/// Unused neighbour slot (outside the index module, verify spells it here).
pub(crate) use crate::index::graph::NONE;
use crate::index::graph::{GraphError, GraphSection, Links};

/// A finished graph, borrowed from an index file (mapped) or from a fresh build.
#[derive(Clone, Copy, Debug)]
pub(crate) struct GraphView<'a> {
    /// Most neighbours a node may have (R).
    pub degree: usize,
    /// Entry point of every search.
    pub medoid: u32,
    /// `degree + 1` words per node: count, then neighbours, then [`NONE`] padding.
    pub adjacency: &'a [u32],
}

impl GraphView<'_> {
    pub(crate) fn nodes(&self) -> usize {
        self.adjacency.len() / (self.degree + 1)
    }

    /// An owned copy, to change and write again (repair, tests).
    pub(crate) fn to_graph(self) -> Graph {
        Graph { degree: self.degree, medoid: self.medoid, adjacency: self.adjacency.to_vec() }
    }

    /// The neighbours of `node`, in place.
    #[inline]
    pub(crate) fn neighbors(&self, node: u32) -> &[u32] {
        let at = node as usize * (self.degree + 1);
        let n = self.adjacency[at] as usize;
        &self.adjacency[at + 1..at + 1 + n]
    }

    /// Checks everything search relies on, for a graph over `rows` rows: the array's size,
    /// counts within the degree, ids in range, unused slots holding [`NONE`], a valid
    /// medoid. A hostile file ends here, never in an out-of-bounds read later.
    pub(crate) fn validate(&self, rows: usize) -> Result<(), GraphError> {
        let stride = self.degree + 1;
        let whole = |what: String| Err(GraphError { at: None, what });
        if rows.checked_mul(stride) != Some(self.adjacency.len()) {
            return whole(format!("adjacency has {} words, expected {rows} nodes × {stride}", self.adjacency.len()));
        }
        if rows > 0 && self.medoid as usize >= rows {
            return whole(format!("medoid {} is out of range for {rows} nodes", self.medoid));
        }
        for (node, block) in self.adjacency.chunks_exact(stride).enumerate() {
            let at = node * stride;
            let count = block[0] as usize;
            if count > self.degree {
                return Err(GraphError {
                    at: Some((GraphSection::Adjacency, at)),
                    what: format!("node {node} has {count} neighbours, more than the degree {}", self.degree),
                });
            }
            if let Some(i) = block[1..1 + count].iter().position(|&id| id as usize >= rows) {
                return Err(GraphError {
                    at: Some((GraphSection::Adjacency, at + 1 + i)),
                    what: format!("node {node}: neighbour {} is out of range for {rows} nodes", block[1 + i]),
                });
            }
            if let Some(i) = block[1 + count..].iter().position(|&id| id != NONE) {
                return Err(GraphError {
                    at: Some((GraphSection::Adjacency, at + 1 + count + i)),
                    what: format!(
                        "node {node}: unused slot {} holds {}, not the sentinel",
                        count + i,
                        block[1 + count + i]
                    ),
                });
            }
        }
        Ok(())
    }
}

impl Links for GraphView<'_> {
    #[inline]
    fn neighbors(&self, node: u32, _level: usize, out: &mut Vec<u32>) {
        out.clear();
        out.extend_from_slice(GraphView::neighbors(self, node));
    }

    #[inline]
    fn prefetch(&self, node: u32, _level: usize) {
        let at = node as usize * (self.degree + 1);
        crate::kernels::prefetch_lines(&self.adjacency[at..at + self.degree + 1], (self.degree + 1).div_ceil(16));
    }
}

/// An owned graph, as a build produces it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Graph {
    pub degree: usize,
    pub medoid: u32,
    pub adjacency: Vec<u32>,
}

impl Graph {
    pub(crate) fn view(&self) -> GraphView<'_> {
        GraphView { degree: self.degree, medoid: self.medoid, adjacency: &self.adjacency }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph() -> Graph {
        // Three nodes, degree 2: 0 -> {1, 2}, 1 -> {0}, 2 -> {}.
        Graph { degree: 2, medoid: 0, adjacency: vec![2, 1, 2, 1, 0, NONE, 0, NONE, NONE] }
    }

    #[test]
    fn validation_accepts_a_good_graph_and_names_the_bad_word() {
        let g = graph();
        assert_eq!(g.view().validate(3), Ok(()));
        assert_eq!(g.view().neighbors(0), &[1, 2]);
        assert!(g.view().validate(4).unwrap_err().what.contains("expected 4 nodes"));
        let mut bad = g.clone();
        bad.adjacency[4] = 3;
        assert_eq!(bad.view().validate(3).unwrap_err().at, Some((GraphSection::Adjacency, 4)));
        let mut bad = g.clone();
        bad.adjacency[6] = 3;
        assert_eq!(bad.view().validate(3).unwrap_err().at, Some((GraphSection::Adjacency, 6)));
        let mut bad = g.clone();
        bad.adjacency[8] = 1;
        assert_eq!(bad.view().validate(3).unwrap_err().at, Some((GraphSection::Adjacency, 8)));
        let mut bad = g;
        bad.medoid = 3;
        assert_eq!(bad.view().validate(3).unwrap_err().at, None);
    }
}
