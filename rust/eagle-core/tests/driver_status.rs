//! `Driver::status`: the read-only view the plugin's metrics and Spark UI tab show.
use eagle_core::locality::delay::{DelayParams, Level};
use eagle_core::{Class, Driver, DriverConfig, System};

#[test]
fn status_counts_live_jobs_by_class_and_follows_the_slots() {
    let mut d = Driver::new(DriverConfig { cutoff: Some(10.0), ..DriverConfig::default() }, 1).unwrap();
    let s = d.status();
    assert_eq!((s.short_jobs, s.long_jobs, s.busy_slots, s.total_slots), (0, 0, 0, 0));
    assert_eq!(s.cutoff, Some(10.0), "the configured cutoff");
    assert_eq!(s.delay_learned, None, "no delay scheduling");
    let n = d.add_node(0.0, 4);
    let short = d.submit(0.0, 3, None, Some(1.0), 1);
    let long = d.submit(0.0, 8, None, Some(60.0), 2);
    let _other = d.submit(0.0, 2, Some(Class::Long), None, 3);
    let s = d.status();
    assert_eq!((s.short_jobs, s.long_jobs), (1, 2));
    assert_eq!(s.total_slots, 4);
    let plan = d.offer(1.0, n, 4, &[]);
    assert_eq!(plan.len(), 4);
    let s = d.status();
    assert_eq!(s.busy_slots, 4, "every planned slot is busy");
    assert!(s.reservation.is_some(), "adaptive reports its reservation after a decision");
    assert_eq!(s.delay_mean, [None, None, None]);
    for j in plan.iter().filter(|&&j| j == short) {
        d.task_finished(2.0, n, *j, Some(1.0));
    }
    d.remove_job(2.0, short);
    let s = d.status();
    assert_eq!((s.short_jobs, s.long_jobs), (0, 2), "a removed job is no longer live");
    assert_eq!(s.busy_slots, 4 - plan.iter().filter(|&&j| j == short).count() as u64);
    let _ = long;
}

#[test]
fn status_reports_mean_and_max_of_the_live_intervals() {
    let mut d = Driver::new(DriverConfig::default(), 1).unwrap();
    d.enable_delay(DelayParams::uniform(3.0, 0.0, 10.0, 2.0)).unwrap();
    let a = d.submit(0.0, 10, Some(Class::Short), Some(1.0), 1);
    let b = d.submit(0.0, 10, Some(Class::Short), Some(1.0), 2);
    let s = d.status();
    assert_eq!(s.delay_mean, [Some(3.0); 3], "both start at the initial 3 s");
    assert_eq!(s.delay_learned, Some([3.0; 3]));
    // a learns that missing process locality costs nothing, b that it costs 9 s.
    for t in 0..8 {
        d.locality_feedback(1.0 + t as f64, a, Level::ProcessLocal, Level::NodeLocal, 0.0);
        d.locality_feedback(1.0 + t as f64, b, Level::ProcessLocal, Level::NodeLocal, 9.0);
    }
    let ia = d.delay_history(a).last().unwrap().interval;
    let ib = d.delay_history(b).last().unwrap().interval;
    assert!(ia < 0.1 && ib > 8.9, "{ia} {ib}");
    let s = d.status();
    let mean = s.delay_mean[0].unwrap();
    assert!((mean - (ia + ib) / 2.0).abs() < 1e-9, "{mean}");
    assert_eq!(s.delay_max[0], Some(ib));
    assert_eq!(s.delay_mean[1], Some(3.0), "node level untouched");
    d.remove_job(9.0, b);
    assert_eq!(d.status().delay_max[0], Some(ia), "only live jobs count");
    d.remove_job(9.0, a);
    assert_eq!(d.status().delay_mean, [None, None, None], "no live job");
}

#[test]
fn paper_policy_has_no_reservation_and_its_fixed_cutoff() {
    let mut d = Driver::new(DriverConfig { policy: System::Eagle, ..DriverConfig::default() }, 1).unwrap();
    let n = d.add_node(0.0, 2);
    let j = d.submit(0.0, 2, None, None, 1);
    assert_eq!(d.offer(0.0, n, 2, &[]), vec![j, j]);
    let s = d.status();
    assert_eq!(s.reservation, None);
    assert_eq!(s.cutoff, Some(eagle_core::driver::PAPER_DEFAULT_CUTOFF));
    assert_eq!((s.short_jobs, s.busy_slots), (1, 2));
}
