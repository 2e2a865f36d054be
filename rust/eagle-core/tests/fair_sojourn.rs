//! eagle-adaptive's `order`: SRPT against the Fair Sojourn Protocol ([`eagle_core::adaptive::fsp`]),
//! through the Spark façade ([`Driver`]) on a virtual clock.
use eagle_core::adaptive::fsp::Order;
use eagle_core::{Driver, DriverConfig, JobId};

fn driver(order: Order) -> Driver {
    let mut cfg = DriverConfig { cutoff: Some(10.0), ..DriverConfig::default() };
    cfg.adaptive.order = order;
    // The SRPT run must show the order alone, not the starvation deadline.
    cfg.adaptive.deadline_factor = 1e6;
    Driver::new(cfg, 1).unwrap()
}

/// One slot; at 0 s an old job A of four 0.5 s tasks, then one one-task job of 0.5 s after
/// another, each submitted when the slot frees. Returns at which offer A's first task
/// launched, if it did within `offers`.
fn old_job_behind_a_stream(order: Order, offers: usize) -> Option<usize> {
    let mut d = driver(order);
    let n = d.add_node(0.0, 1);
    let a = d.submit(0.0, 4, None, Some(0.5), 1);
    let mut t = 0.0;
    for i in 0..offers {
        let c = d.submit(t, 1, None, Some(0.5), 100 + i as u64);
        let plan = d.offer(t, n, 1, &[]);
        assert_eq!(plan.len(), 1, "one free slot, work waiting");
        if plan[0] == a {
            return Some(i);
        }
        assert_eq!(plan[0], c);
        t += 0.5;
        d.task_finished(t, n, c, Some(0.5));
        d.remove_job(t, c);
    }
    None
}

/// SRPT always prefers the newcomer (0.5 s of work against A's 2 s) and, without the
/// deadline, never serves A. Under processor sharing A and the newcomers share the slot,
/// so A would have ended after a few newcomers: FSP serves it once PS would have.
#[test]
fn fsp_serves_an_old_job_that_srpt_keeps_bypassing() {
    assert_eq!(old_job_behind_a_stream(Order::Srpt, 30), None, "SRPT without a deadline starves A");
    let at = old_job_behind_a_stream(Order::Fsp, 30).expect("FSP serves A within 30 newcomers");
    // PS: A's 2 s shared with one newcomer at a time ends after about four of them.
    assert!((2..=10).contains(&at), "A first served at newcomer {at}");
}

/// With nothing else in the system, FSP is SRPT: a smaller job submitted later still goes
/// first, since PS would end it first.
#[test]
fn fsp_keeps_srpt_order_between_jobs_of_the_same_age() {
    for order in [Order::Srpt, Order::Fsp] {
        let mut d = driver(order);
        let n = d.add_node(0.0, 1);
        let _big = d.submit(0.0, 8, None, Some(1.0), 1);
        let small = d.submit(0.0, 2, None, Some(1.0), 2);
        assert_eq!(d.offer(0.0, n, 1, &[]), vec![small], "{order:?}");
    }
}

/// A query's age survives the gap between two of its stages: its next stage keeps the
/// query's tag, so a query that fair sharing has half served is not sent behind a
/// newcomer of the same total size.
#[test]
fn a_querys_next_stage_keeps_the_querys_age() {
    let mut d = driver(Order::Fsp);
    let n = d.add_node(0.0, 2);
    let s1 = d.submit_in(0.0, 2, None, Some(1.0), 10, Some(7));
    d.set_group_future(7, &[(11, 2)]);
    assert_eq!(d.offer(0.0, n, 2, &[]), vec![s1, s1]);
    d.task_finished(1.0, n, s1, Some(1.0));
    d.task_finished(1.0, n, s1, Some(1.0));
    d.remove_job(1.0, s1);
    // A newcomer of the query's whole size (4 s) arrives before its second stage.
    let other = d.submit_in(1.0, 4, None, Some(1.0), 20, Some(8));
    let s2 = d.submit_in(1.0, 2, None, Some(1.0), 11, Some(7));
    assert_eq!(d.offer(1.0, n, 2, &[]), vec![s2, s2], "the older query goes on");
    let _ = (other, JobId(0));
}
