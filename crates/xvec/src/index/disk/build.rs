//! The node blocks of a segment: Vamana's graph (built as for the in-memory kind, every
//! row linked to the entry) written with the rows' vectors in [`Layout`] order, and how
//! that graph is built within a memory budget ([`BuildPlan`]).

use super::layout::{Elem, Layout};
use crate::index::vamana::{GraphView, Working, working_bytes};
use crate::storage::column::{VectorColumn, VectorData};

/// The layout of the blocks of `rows` rows of `col` under graph `g`.
pub(crate) fn layout_of(col: &VectorColumn, rows: usize, g: &GraphView) -> Layout {
    Layout { dim: col.dim, elem: Elem::of(&col.data), degree: g.degree, nodes: rows }
}

/// Writes the blocks of `col` and `g` through `put`, block by block.
pub(crate) fn write_blocks<E>(
    col: &VectorColumn,
    rows: usize,
    g: &GraphView,
    put: impl FnMut(&[u8]) -> Result<(), E>,
) -> Result<(), E> {
    layout_of(col, rows, g).write(col, |node| g.neighbors(node), put)
}

/// How a disk index's graph is built, chosen from the memory budget: the exact build
/// (int8 codes for the searches, the rows for the prunes) while its codes, adjacency and
/// rows fit the budget; else every distance from the codes, which reads the rows once in
/// order, with DiskANN's 1.3 R list slack while that fits and without it below. The
/// RaBitQ codes of the index are encoded after the graph, so the two never add up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BuildPlan {
    pub working: Working,
    /// What the chosen build holds in memory at its peak (the rows counted only when it
    /// reads them at random).
    pub bytes: u64,
    /// The budget it was chosen under.
    pub budget: Option<u64>,
}

impl BuildPlan {
    /// The plan for `rows` rows of `col` at `degree` under `budget` bytes (`None`: the
    /// exact build).
    pub(crate) fn choose(budget: Option<u64>, col: &VectorColumn, rows: usize, degree: usize) -> BuildPlan {
        let elem = match col.data {
            VectorData::Fp32(_) => 4,
            VectorData::Fp16(_) => 2,
            VectorData::Int8(_) => 1,
        };
        let row_bytes = (rows * col.dim * elem) as u64;
        let exact = working_bytes(rows, col.dim, degree, Working::Exact) + row_bytes;
        let plan = |working, bytes| BuildPlan { working, bytes, budget };
        let Some(budget) = budget else { return plan(Working::Exact, exact) };
        // An int8 column is its own code: the build scores it exactly whatever the budget.
        if exact <= budget || matches!(col.data, VectorData::Int8(_)) {
            return plan(Working::Exact, exact);
        }
        let slack = Working::Codes { slack: true };
        let bytes = working_bytes(rows, col.dim, degree, slack);
        if bytes <= budget {
            return plan(slack, bytes);
        }
        let tight = Working::Codes { slack: false };
        plan(tight, working_bytes(rows, col.dim, degree, tight))
    }

    /// Whether the build scores codes only (the rows did not fit the budget).
    pub(crate) fn codes_only(&self) -> bool {
        self.working != Working::Exact
    }

    /// Whether even the leanest build is larger than the budget (a partitioned build
    /// would be needed; this one goes ahead and may page).
    pub(crate) fn over_budget(&self) -> bool {
        self.budget.is_some_and(|b| self.bytes > b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::column::Validity;

    /// The budget picks the exact build while the rows fit beside the codes and the
    /// adjacency, then codes alone with slack, then without, and says when even that is
    /// over; an int8 column always builds exactly.
    #[test]
    fn the_budget_chooses_the_build() {
        let (n, dim, degree) = (1000, 64, 32);
        let rows = vec![0f32; n * dim];
        let col = VectorColumn { dim, validity: Validity(None), data: VectorData::Fp32(&rows), norms: None };
        let exact = working_bytes(n, dim, degree, Working::Exact) + (n * dim * 4) as u64;
        let slack = working_bytes(n, dim, degree, Working::Codes { slack: true });
        let tight = working_bytes(n, dim, degree, Working::Codes { slack: false });
        assert!(tight < slack && slack < exact);
        let choose = |b| BuildPlan::choose(b, &col, n, degree);
        assert_eq!(choose(None), BuildPlan { working: Working::Exact, bytes: exact, budget: None });
        assert_eq!(choose(Some(exact)).working, Working::Exact);
        assert_eq!(
            choose(Some(exact - 1)),
            BuildPlan { working: Working::Codes { slack: true }, bytes: slack, budget: Some(exact - 1) }
        );
        let p = choose(Some(slack - 1));
        assert_eq!(
            (p.working, p.bytes, p.codes_only(), p.over_budget()),
            (Working::Codes { slack: false }, tight, true, false)
        );
        let p = choose(Some(tight - 1));
        assert!(p.codes_only() && p.over_budget(), "{p:?}");
        let int8 = vec![0i8; n * dim];
        let col = VectorColumn { data: VectorData::Int8(&int8), ..col };
        assert_eq!(BuildPlan::choose(Some(1), &col, n, degree).working, Working::Exact);
    }
}
