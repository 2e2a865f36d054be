//! LoTES over live executors: fit, bins holding executors, re-planning.

use super::*;

fn placement() -> ExecutorPlacement {
    ExecutorPlacement::new(LotesParams::default(), 7).unwrap()
}

/// One 4-core executor (node 0) and one 1-core executor (node 1), 4 GiB each; a task set
/// of 4-cpu tasks (job 0) and one of 1-cpu tasks (job 1), as many tasks each.
///
/// By hand: the 4-cpu class fits only the big executor, so the allocation LP gives the
/// big executor to it and the small one to the 1-cpu class (λ*: 4-cpu tasks at 1 per
/// second on the big one, 1-cpu at 1 per second on the small one).
fn big_and_small() -> ExecutorPlacement {
    let mut p = placement();
    p.add_executor(NodeId(0), &[4.0, 4096.0]).unwrap();
    p.add_executor(NodeId(1), &[1.0, 4096.0]).unwrap();
    p.add_task_set(JobId(0), &[4.0, 0.0], 8, 1.0).unwrap();
    p.add_task_set(JobId(1), &[1.0, 0.0], 8, 1.0).unwrap();
    p
}

#[test]
fn the_big_executor_is_kept_for_the_wide_tasks_while_they_wait() {
    let mut p = big_and_small();
    assert_eq!(p.bin_of(NodeId(0)).map(|b| b.iter().sum::<u32>()), Some(1), "{:?}", p.plan());
    assert_eq!(p.exclude(NodeId(0), &[4.0, 4096.0]).unwrap(), vec![JobId(1)]);
    assert_eq!(p.exclude(NodeId(1), &[1.0, 4096.0]).unwrap(), vec![JobId(0)]);
    // Nothing wide waits any more: the big executor takes narrow tasks.
    p.set_pending(JobId(0), 0);
    assert_eq!(p.exclude(NodeId(0), &[4.0, 4096.0]).unwrap(), vec![]);
    // Partly busy (3 cores free): the wide task set does not fit the offer.
    assert_eq!(p.exclude(NodeId(0), &[3.0, 4096.0]).unwrap(), vec![JobId(0)]);
}

#[test]
fn a_wide_task_set_that_does_not_fit_now_still_holds_its_executor() {
    let mut p = big_and_small();
    // Two cores free on the big one: the 4-cpu tasks wait for it; narrow tasks stay off.
    assert_eq!(p.exclude(NodeId(0), &[2.0, 4096.0]).unwrap(), vec![JobId(0), JobId(1)]);
}

#[test]
fn losing_an_executor_re_plans() {
    let mut p = big_and_small();
    p.exclude(NodeId(0), &[4.0, 4096.0]).unwrap();
    let before = p.replans();
    p.remove_executor(NodeId(1));
    // Only the big executor is left: one machine emulates one bin, and the class its bin
    // leaves out has no machine at all, so it may go there too: nothing is kept off.
    assert_eq!(p.exclude(NodeId(0), &[4.0, 4096.0]).unwrap(), vec![]);
    assert_eq!(p.replans(), before + 1);
    assert!(p.bin_of(NodeId(1)).is_none());
    // A lost executor's offer (a late one) only gets the fit rule.
    assert_eq!(p.exclude(NodeId(1), &[1.0, 4096.0]).unwrap(), vec![JobId(0)]);
}

#[test]
fn a_new_executor_or_a_new_profile_re_plans_and_a_known_profile_does_not() {
    let mut p = big_and_small();
    p.exclude(NodeId(0), &[4.0, 4096.0]).unwrap();
    let r = p.replans();
    // A second narrow task set, and as many wide tasks: same profiles, same mix.
    p.add_task_set(JobId(2), &[1.0, 0.0], 8, 1.0).unwrap();
    p.set_pending(JobId(0), 16);
    p.exclude(NodeId(0), &[4.0, 4096.0]).unwrap();
    assert_eq!(p.replans(), r);
    p.add_task_set(JobId(3), &[2.0, 0.0], 8, 1.0).unwrap();
    p.exclude(NodeId(0), &[4.0, 4096.0]).unwrap();
    assert_eq!(p.replans(), r + 1);
    p.add_executor(NodeId(2), &[2.0, 2048.0]).unwrap();
    p.exclude(NodeId(0), &[4.0, 4096.0]).unwrap();
    assert_eq!(p.replans(), r + 2);
    // The last task set of a profile ends.
    p.remove_task_set(JobId(3));
    p.exclude(NodeId(0), &[4.0, 4096.0]).unwrap();
    assert_eq!(p.replans(), r + 3);
    // One of two narrow task sets ends, the other holds as many tasks: no re-plan.
    p.set_pending(JobId(1), 16);
    p.remove_task_set(JobId(2));
    p.exclude(NodeId(0), &[4.0, 4096.0]).unwrap();
    assert_eq!(p.replans(), r + 3);
}

#[test]
fn the_class_mix_drifting_re_plans() {
    let mut p = big_and_small();
    p.exclude(NodeId(0), &[4.0, 4096.0]).unwrap();
    let r = p.replans();
    // Same profiles, same counts: no re-plan.
    p.exclude(NodeId(0), &[4.0, 4096.0]).unwrap();
    assert_eq!(p.replans(), r);
    // Nearly all waiting tasks are narrow now: the mix is far from half and half.
    p.set_pending(JobId(0), 1);
    p.exclude(NodeId(0), &[4.0, 4096.0]).unwrap();
    assert_eq!(p.replans(), r + 1);
}

#[test]
fn custom_resources_and_short_vectors() {
    let mut p = placement();
    // Executor 0 has one GPU, executor 1 none (a shorter vector: zero GPUs).
    p.add_executor(NodeId(0), &[2.0, 1024.0, 1.0]).unwrap();
    p.add_executor(NodeId(1), &[2.0, 1024.0]).unwrap();
    p.add_task_set(JobId(0), &[1.0, 0.0, 1.0], 4, 2.0).unwrap();
    p.add_task_set(JobId(1), &[1.0], 4, 2.0).unwrap();
    assert!(p.exclude(NodeId(1), &[2.0, 1024.0]).unwrap().contains(&JobId(0)));
    assert!(!p.exclude(NodeId(0), &[2.0, 1024.0, 1.0]).unwrap().contains(&JobId(0)));
    assert!(p.exclude(NodeId(0), &[2.0, 1024.0, 0.0]).unwrap().contains(&JobId(0)));
}

#[test]
fn bad_amounts_are_errors_naming_what() {
    let mut p = placement();
    let e = p.add_executor(NodeId(3), &[2.0, -1.0]).unwrap_err().to_string();
    assert!(e.contains("executor 3") && e.contains("resource 1"), "{e}");
    let e = p.add_task_set(JobId(4), &[f64::NAN], 1, 1.0).unwrap_err().to_string();
    assert!(e.contains("task set 4"), "{e}");
    let e = p.add_task_set(JobId(4), &[1.0], 1, 0.0).unwrap_err().to_string();
    assert!(e.contains("duration"), "{e}");
    let e = p.exclude(NodeId(0), &[f64::INFINITY]).unwrap_err().to_string();
    assert!(e.contains("offer of executor 0"), "{e}");
    assert!(ExecutorPlacement::new(LotesParams { classes: 0, ..LotesParams::default() }, 1).is_err());
}

/// Property: whatever the executors, task sets and offers, a task set the filter lets
/// through fits the offer's free resources.
#[test]
fn never_lets_a_task_set_through_where_it_does_not_fit() {
    let mut rng = Rng::new(42);
    for round in 0..40 {
        let mut p = ExecutorPlacement::new(LotesParams::default(), round).unwrap();
        let mut caps = BTreeMap::new();
        for n in 0..(2 + rng.below(5)) as u32 {
            let cap = vec![(1 + rng.below(8)) as f64, 1024.0 * (1 + rng.below(4)) as f64, rng.below(3) as f64];
            p.add_executor(NodeId(n), &cap).unwrap();
            caps.insert(NodeId(n), cap);
        }
        let mut demands = BTreeMap::new();
        for j in 0..(1 + rng.below(6)) as u32 {
            let d = vec![(1 + rng.below(4)) as f64, 0.0, rng.below(2) as f64];
            p.add_task_set(JobId(j), &d, 1 + rng.below(20) as u32, 0.1 + rng.unit()).unwrap();
            demands.insert(JobId(j), d);
        }
        for step in 0..30 {
            if step == 15 {
                let gone = *caps.keys().next().unwrap();
                p.remove_executor(gone);
                caps.remove(&gone);
            }
            for j in demands.keys() {
                p.set_pending(*j, rng.below(10) as u32);
            }
            for (&n, cap) in &caps {
                let free: Vec<f64> = cap.iter().map(|c| (c * rng.unit()).floor()).collect();
                let ex = p.exclude(n, &free).unwrap();
                for (j, d) in &demands {
                    if !ex.contains(j) {
                        assert!(
                            d.iter().zip(&free).all(|(a, f)| a <= f),
                            "round {round} step {step}: job {j:?} {d:?} let through on {n:?} free {free:?}"
                        );
                    }
                }
            }
        }
        assert!(p.last_error().is_none(), "{:?}", p.last_error());
    }
}
