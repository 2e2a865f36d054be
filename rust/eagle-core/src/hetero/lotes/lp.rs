//! A small linear-program model, solved by `microlp` (pure Rust, so the engine and
//! the JNI library stay self-contained).
//!
//! Both LoTES programs are continuous and small (|K| + |M|·|R| rows for the fluid
//! LP, |K| + |M| rows for the machine-assignment LP over a few thousand bins), so a
//! sparse primal/dual simplex suits them. The model is kept solver-neutral (plain
//! rows), so another solver can be tried on the very same instance.

use microlp::{ComparisonOp, OptimizationDirection, Problem};

/// `≤`, `≥` or `=`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Cmp {
    Le,
    Ge,
    Eq,
}

/// One constraint: `Σ coef·x[var]  cmp  rhs`, sparse.
pub type Row = (Vec<(usize, f64)>, Cmp, f64);

/// maximize `objective · x` subject to `rows`, `lower ≤ x ≤ upper`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Lp {
    pub objective: Vec<f64>,
    pub upper: Vec<f64>,
    pub rows: Vec<Row>,
}

impl Lp {
    /// Adds a variable `0 ≤ x ≤ upper` with objective coefficient `c`; returns its index.
    pub fn var(&mut self, c: f64, upper: f64) -> usize {
        self.objective.push(c);
        self.upper.push(upper);
        self.objective.len() - 1
    }
    pub fn row(&mut self, terms: Vec<(usize, f64)>, cmp: Cmp, rhs: f64) {
        self.rows.push((terms, cmp, rhs));
    }
    /// The optimal `x` and objective, or why there is none.
    pub fn maximize(&self) -> Result<(Vec<f64>, f64), crate::error::PlacementError> {
        let mut p = Problem::new(OptimizationDirection::Maximize);
        let vars: Vec<_> = self.objective.iter().zip(&self.upper).map(|(&c, &u)| p.add_var(c, (0.0, u))).collect();
        for (terms, cmp, rhs) in &self.rows {
            let t: Vec<_> = terms.iter().map(|&(v, c)| (vars[v], c)).collect();
            let op = match cmp {
                Cmp::Le => ComparisonOp::Le,
                Cmp::Ge => ComparisonOp::Ge,
                Cmp::Eq => ComparisonOp::Eq,
            };
            p.add_constraint(t.as_slice(), op, *rhs);
        }
        let sol = p
            .solve()
            .map_err(|e| crate::error::PlacementError::Lp(e.to_string()))?
            .into_solution()
            .map_err(|e| crate::error::PlacementError::LpInterrupted(format!("{:?}", e.termination_reason())))?;
        Ok((vars.iter().map(|&v| sol.var_value(v)).collect(), sol.objective()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_a_textbook_lp() {
        // max 3x + 5y, x <= 4, 2y <= 12, 3x + 2y <= 18: x = 2, y = 6, 36.
        let mut lp = Lp::default();
        let x = lp.var(3.0, f64::INFINITY);
        let y = lp.var(5.0, f64::INFINITY);
        lp.row(vec![(x, 1.0)], Cmp::Le, 4.0);
        lp.row(vec![(y, 2.0)], Cmp::Le, 12.0);
        lp.row(vec![(x, 3.0), (y, 2.0)], Cmp::Le, 18.0);
        let (v, obj) = lp.maximize().unwrap();
        assert!((obj - 36.0).abs() < 1e-6 && (v[0] - 2.0).abs() < 1e-6 && (v[1] - 6.0).abs() < 1e-6);
    }
}
