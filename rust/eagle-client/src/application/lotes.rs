//! `placement=lotes` in the application: LoTES's executor and task-set descriptions
//! ([`ExecutorPlacement`]), kept in step with the driver's events.
//!
//! Resource vectors are `[cores, memoryMiB, custom…]` in an order the plugin fixes
//! (custom resources appended as it first sees them; a shorter vector is zero of
//! the rest). A task set's mean duration for the classes is the driver's estimate.

use super::Application;
use crate::error::ApplicationError;
use eagle_core::hetero::lotes::ExecutorPlacement;
use eagle_core::{JobId, NodeId};

/// Duration a class sample takes when the driver has no estimate for the job.
const UNKNOWN_DURATION_S: f64 = 1.0;

fn lotes(st: &mut Application) -> Result<&mut ExecutorPlacement, ApplicationError> {
    st.placement.as_mut().ok_or(ApplicationError::LotesOff)
}

/// `lotesExecutor`: executor `node` has `capacity`.
pub fn add_executor(st: &mut Application, node: NodeId, capacity: &[f64]) -> Result<(), ApplicationError> {
    Ok(lotes(st)?.add_executor(node, capacity)?)
}

/// `lotesTaskSet`: job `job` (already submitted) asks `demand` per task.
pub fn add_task_set(st: &mut Application, job: JobId, demand: &[f64], tasks: u32) -> Result<(), ApplicationError> {
    let duration = st.driver.job_estimate(job).map_or(UNKNOWN_DURATION_S, |(e, _)| e).max(1e-3);
    Ok(lotes(st)?.add_task_set(job, demand, tasks, duration)?)
}

/// `lotesExclude`: the task sets executor `node`'s offer of `free` may not serve.
pub fn exclude(st: &mut Application, node: NodeId, free: &[f64]) -> Result<Vec<JobId>, ApplicationError> {
    Ok(lotes(st)?.exclude(node, free)?)
}

/// Mirrors `removeNode` (no-op under `placement=slots`).
pub fn node_removed(st: &mut Application, node: NodeId) {
    if let Some(p) = st.placement.as_mut() {
        p.remove_executor(node);
    }
}

/// Mirrors `removeJob`.
pub fn job_removed(st: &mut Application, job: JobId) {
    if let Some(p) = st.placement.as_mut() {
        p.remove_task_set(job);
    }
}

/// Mirrors `setPending` (`pending` in engine slots of the job: the plugin passes
/// tasks × slot width; the class mix only needs proportions, so that is kept as is).
pub fn pending(st: &mut Application, job: JobId, pending: u32) {
    if let Some(p) = st.placement.as_mut() {
        p.set_pending(job, pending);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The valid configuration with `placement` (slots or lotes).
    fn params(placement: &str) -> eagle_core::settings::EngineSettings {
        crate::application::tests::settings_with(&[("placement", placement)])
    }

    #[test]
    fn slots_placement_refuses_the_lotes_calls_by_name() {
        let mut st = Application::new(params("slots")).unwrap();
        let e = add_executor(&mut st, NodeId(0), &[2.0]).unwrap_err().to_string();
        assert!(e.contains("spark.scheduler.eagle.placement"), "{e}");
        node_removed(&mut st, NodeId(0)); // harmless
    }

    #[test]
    fn lotes_follows_the_driver_events() {
        let mut st = Application::new(params("lotes")).unwrap();
        let big = st.driver.add_node(0.0, 4);
        let small = st.driver.add_node(0.0, 1);
        add_executor(&mut st, big, &[4.0, 4096.0]).unwrap();
        add_executor(&mut st, small, &[1.0, 4096.0]).unwrap();
        let wide = st.driver.submit_in(0.0, 32, None, None, 1, None);
        let narrow = st.driver.submit_in(0.0, 8, None, None, 2, None);
        add_task_set(&mut st, wide, &[4.0], 8).unwrap();
        add_task_set(&mut st, narrow, &[1.0], 8).unwrap();
        assert_eq!(exclude(&mut st, big, &[4.0, 4096.0]).unwrap(), vec![narrow]);
        // The small executor is lost: the big one now serves both.
        node_removed(&mut st, small);
        assert_eq!(exclude(&mut st, big, &[4.0, 4096.0]).unwrap(), vec![]);
        job_removed(&mut st, wide);
        pending(&mut st, narrow, 3);
        assert_eq!(exclude(&mut st, big, &[0.5, 4096.0]).unwrap(), vec![narrow]);
    }
}
