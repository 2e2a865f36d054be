//! Driver protocol for Spark features the plugin forwards: speculative copies and the
//! busy-slot count (issue 11).
use eagle_core::{Class, Driver, DriverConfig};

fn driver() -> Driver {
    Driver::new(DriverConfig { cutoff: 10.0, short_partition: 0.0, ..DriverConfig::default() }, 7).unwrap()
}

#[test]
fn speculatable_tasks_are_pending_work_the_plan_gives_a_slot() {
    let mut d = driver();
    let a = d.add_node(0.0, 2);
    let b = d.add_node(0.0, 2);
    let j = d.submit(0.0, 2, Some(Class::Short), Some(1.0), 1);
    assert_eq!(d.offer(0.0, a, 2, &[]), vec![j, j]);
    assert_eq!(d.busy_slots(), 2);
    d.task_finished(1.0, a, j, Some(1.0));
    // one task still runs on `a`; Spark wants a speculative copy of it
    d.set_pending_tasks(2.0, j, 0, 0);
    assert!(d.offer(2.0, b, 2, &[]).is_empty(), "no copy wanted: nothing to launch");
    d.set_pending_tasks(3.0, j, 0, 1);
    // Spark refuses the copy on the host of the running attempt: the host declines it there
    let on_a = d.offer(3.0, a, 1, &[]);
    assert_eq!(on_a, vec![j]);
    d.decline(3.0, a, j);
    assert_eq!(d.offer(3.0, b, 2, &[]), vec![j], "the copy gets a slot on another executor");
    assert_eq!(d.busy_slots(), 2, "the original attempt and its copy");
    d.task_finished(4.0, b, j, Some(1.0)); // the copy wins
    d.task_finished(4.0, a, j, None); // the original is killed
    d.remove_job(4.0, j);
    assert_eq!(d.busy_slots(), 0, "no slot leaks");
}

#[test]
fn waiting_and_speculatable_counts_add_up() {
    let mut d = driver();
    let a = d.add_node(0.0, 8);
    let j = d.submit(0.0, 1, Some(Class::Short), Some(1.0), 1);
    assert_eq!(d.offer(0.0, a, 8, &[]), vec![j]);
    d.set_pending_tasks(1.0, j, 2, 3);
    assert_eq!(d.offer(1.0, a, 8, &[]).len(), 5);
    assert_eq!(d.busy_slots(), 6);
}
