//! Driver protocol for Spark features the plugin forwards: speculative copies and the
//! busy-slot count.
use eagle_core::{Class, Driver, DriverConfig, System};

fn driver() -> Driver {
    Driver::new(DriverConfig { cutoff: Some(10.0), short_partition: 0.0, ..DriverConfig::default() }, 7).unwrap()
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

#[test]
fn a_long_job_spark_allows_only_on_short_only_nodes_is_planned_there() {
    let mut d = Driver::new(
        DriverConfig { policy: System::Eagle, cutoff: Some(10.0), short_partition: 0.5, ..DriverConfig::default() },
        7,
    )
    .unwrap();
    let a = d.add_node(0.0, 2); // short-only
    let b = d.add_node(0.0, 2); // general
    let long = d.submit(0.0, 4, Some(Class::Long), Some(60.0), 1);
    assert!(d.offer(0.0, a, 2, &[]).is_empty(), "long work never runs on the short partition");
    // the general executor is excluded for the job (excludeOnFailure): it can use `a` only
    d.restrict(1.0, long, Some(&[a]));
    assert_eq!(d.offer(1.0, b, 2, &[long]), vec![], "the host excludes it on `b`");
    assert_eq!(d.offer(1.0, a, 2, &[]), vec![long, long], "planned where Spark lets it run");
    d.restrict(2.0, long, Some(&[a])); // every round: no change
    assert_eq!(d.job_class(long), Some(Class::Short));
    d.restrict(3.0, long, None); // usable everywhere again: long again
    assert_eq!(d.job_class(long), Some(Class::Long));
    d.task_finished(4.0, a, long, Some(60.0));
    d.task_finished(4.0, a, long, Some(60.0));
    assert_eq!(d.offer(4.0, a, 2, &[]), vec![], "back to the general partition only");
    assert_eq!(d.offer(4.0, b, 2, &[]), vec![long, long]);
}

#[test]
fn a_restricted_job_that_can_use_a_general_node_keeps_its_class() {
    let mut d = Driver::new(
        DriverConfig { policy: System::Eagle, cutoff: Some(10.0), short_partition: 0.5, ..DriverConfig::default() },
        7,
    )
    .unwrap();
    let a = d.add_node(0.0, 2);
    let b = d.add_node(0.0, 2);
    let long = d.submit(0.0, 4, Some(Class::Long), Some(60.0), 1);
    assert!(d.offer(0.0, a, 2, &[]).is_empty());
    d.restrict(1.0, long, Some(&[b]));
    assert_eq!(d.job_class(long), Some(Class::Long));
    assert_eq!(d.offer(1.0, b, 2, &[]), vec![long, long]);
}
