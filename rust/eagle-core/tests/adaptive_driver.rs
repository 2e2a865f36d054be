//! eagle-adaptive through the Spark façade ([`Driver`]): the learned split, settled
//! classes, the reservation and query-aware SRPT, on a virtual clock.
use eagle_core::{Class, Driver, DriverConfig, JobId, NodeId, PolicyKind};

fn driver() -> Driver {
    Driver::new(DriverConfig::default(), 1).unwrap()
}

#[test]
fn a_split_is_learned_from_hints_and_the_big_job_becomes_long() {
    let mut d = driver();
    let n = d.add_node(0.0, 4);
    // A warm-up stage without hints: short by default, its mean is learned at its end.
    let w = d.submit(0.0, 4, None, None, 1);
    let plan = d.offer(0.0, n, 4, &[]);
    assert_eq!(plan, vec![w; 4]);
    for _ in 0..4 {
        d.task_finished(5.0, n, w, Some(5.0));
    }
    d.remove_job(5.0, w);
    assert_eq!(d.cutoff(), None, "one class so far");
    let big = d.submit(6.0, 16, None, Some(2.0), 2);
    assert_eq!(d.offer(6.0, n, 4, &[]), vec![big; 4]);
    assert_eq!(d.job_class(big), Some(Class::Short), "no split known yet");
    let small = d.submit(7.0, 2, None, Some(0.1), 3);
    assert_eq!(d.cutoff(), None, "one small task set is not a class yet");
    let small2 = d.submit(7.0, 2, None, Some(0.1), 3);
    let c = d.cutoff().expect("two of each make two classes");
    let _ = small2;
    assert!(c > 0.1 && c < 2.0, "{c}");
    assert_eq!(d.job_class(small), Some(Class::Short));
    d.task_finished(8.0, n, big, Some(2.0));
    assert_eq!(d.job_class(big), Some(Class::Long), "reclassified once a cutoff is known");
    // The freed slot goes to the small job (least remaining work).
    assert_eq!(d.offer(8.0, n, 1, &[]), vec![small]);
}

#[test]
fn paper_policy_keeps_its_fixed_cutoff() {
    let cfg = DriverConfig { policy: PolicyKind::Paper, ..DriverConfig::default() };
    let d = Driver::new(cfg, 1).unwrap();
    assert_eq!(d.cutoff(), Some(10.0));
    assert_eq!(d.reservation(), None);
}

#[test]
fn query_aware_srpt_ranks_by_the_groups_remaining_work() {
    let mut d = driver();
    let n = d.add_node(0.0, 1);
    // Two stages of equal size now; query A has a big stage still to come.
    let a = d.submit_in(0.0, 4, None, Some(1.0), 10, Some(100));
    let b = d.submit_in(0.0, 4, None, Some(1.0), 11, Some(200));
    d.set_group_future(100, &[(12, 50)]);
    assert_eq!(d.offer(0.0, n, 1, &[]), vec![b], "query B has less work left in total");
    let _ = (a, JobId(0), NodeId(0));
}

#[test]
fn the_split_is_learned_once_the_second_class_has_two_task_sets() {
    let mut d = driver();
    let a = d.add_node(0.0, 2);
    let b = d.add_node(0.0, 2);
    let w = d.submit_in(17.0, 4, None, None, 1, Some(0));
    d.offer(17.0, a, 2, &[]);
    d.offer(17.0, b, 2, &[]);
    for n in [a, a, b, b] {
        d.task_finished(20.5, n, w, Some(3.5));
    }
    d.remove_job(20.6, w);
    let big = d.submit_in(20.7, 16, None, Some(2.0), 2, Some(2));
    d.set_group_future(2, &[]);
    d.offer(20.7, a, 2, &[]);
    d.offer(20.7, b, 2, &[]);
    let _small = d.submit_in(21.7, 2, None, Some(0.1), 3, Some(4));
    let _small2 = d.submit_in(22.7, 2, None, Some(0.1), 3, Some(6));
    assert!(d.cutoff().is_some(), "learned at the second small job's submission");
    let _ = big;
}

/// A short job of a dozen tasks in a stream of one-task jobs that keeps every slot busy:
/// SRPT always prefers the one-task jobs, so only the starvation bound serves it. The
/// bound is per job, not per task: once the job is overdue its waiting tasks go first at
/// full width, instead of one task per bound (a dozen seconds for a dozen tasks).
#[test]
fn an_overdue_job_is_served_at_full_width_not_one_task_per_bound() {
    let cfg = DriverConfig { cutoff: Some(10.0), ..DriverConfig::default() };
    let mut d = Driver::new(cfg, 1).unwrap();
    let n = d.add_node(0.0, 4);
    let mid = d.submit(0.0, 12, None, Some(0.05), 1);
    let mut running: Vec<JobId> = Vec::new();
    let mut mid_launched = 0;
    let mut mid_done_at = None;
    let mut t = 0.0;
    for step in 0..200u64 {
        t = step as f64 * 0.05;
        for j in running.drain(..) {
            d.task_finished(t, n, j, Some(0.05));
        }
        // Four new one-task jobs every 50 ms: the stream alone fills the four slots.
        for k in 0..4 {
            d.submit(t, 1, None, Some(0.01), 100 + step * 4 + k);
        }
        let plan = d.offer(t, n, 4, &[]);
        mid_launched += plan.iter().filter(|&&j| j == mid).count();
        running.extend(plan);
        if mid_launched == 12 && mid_done_at.is_none() {
            mid_done_at = Some(t);
        }
    }
    let at = mid_done_at.unwrap_or_else(|| panic!("only {mid_launched} of 12 tasks launched by {t} s"));
    assert!(at <= 2.5, "the overdue job's tasks all launched by {at} s (bound 1 s plus three 50 ms rounds)");
    assert!(at >= 0.9, "before its bound SRPT prefers the one-task jobs (all launched at {at} s)");
}
