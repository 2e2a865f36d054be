//! `SubmitLong.input`: a long job's tasks go near their input while each ends there at
//! most one task estimate later than least work left would end it ([`crate::placement`]).

use super::*;

/// Places `tasks` tasks of 1 s of `job` with `input`; how many went to each host.
fn submit(s: &mut CentralState, job: u64, tasks: u32, input: &[(&str, u32)]) -> BTreeMap<HostId, u32> {
    let input = input.iter().map(|(h, n)| (h.to_string(), *n)).collect();
    let out = s.handle(Event::Message {
        conn: 9,
        msg: ToCentral::SubmitLong { job, tasks, est_ms: 1000.0, cpus: 1, hosts: None, avoid: Vec::new(), input },
    });
    let mut on = BTreeMap::new();
    for (h, _) in placements(&out) {
        *on.entry(h).or_default() += 1;
    }
    on
}

#[test]
fn a_long_job_goes_near_its_input_by_at_most_one_task_more() {
    let mut s = four_general(0.0);
    driver(&mut s, 9, "a");
    // Without input, the paper's LWL: 8 tasks over 4 idle hosts, 2 each.
    let lwl = submit(&mut s, 1, 8, &[]);
    assert_eq!(lwl.values().copied().collect::<Vec<_>>(), vec![2, 2, 2, 2]);
    let mut s = four_general(0.0);
    driver(&mut s, 9, "a");
    // Every task reads its input on h2: h2 takes two waves (4 tasks, each ending at most
    // 1 s after it would on an idle host), the others the rest.
    let near = submit(&mut s, 1, 8, &[("h2", 8)]);
    assert_eq!(near.values().sum::<u32>(), 8, "every task is placed: {near:?}");
    assert_eq!(near.get(&2), Some(&4), "{near:?}");
    assert_eq!(s.status().nodes[2].long_tasks, 4, "the work map counts them where they went");
    // h2's next task would end 1.5 s after the least loaded host's: a job reading there
    // too puts its first two tasks elsewhere, and its third on h2, once the other hosts
    // have come within one task (1 s) of it.
    let next = submit(&mut s, 2, 3, &[("h2", 3)]);
    assert_eq!(next.get(&2), Some(&1), "{next:?}");
}

#[test]
fn input_on_unknown_hosts_is_ignored_and_counts_are_capped_at_the_tasks() {
    let mut s = four_general(0.0);
    driver(&mut s, 9, "a");
    let got = submit(&mut s, 1, 4, &[("elsewhere", 4)]);
    assert_eq!(got.values().copied().collect::<Vec<_>>(), vec![1, 1, 1, 1], "as without input: {got:?}");
    // h1 named twice with 3 and 9 of 2 tasks: it may take both (one wave behind at most).
    let mut s = four_general(0.0);
    driver(&mut s, 9, "a");
    let got = submit(&mut s, 1, 2, &[("h1", 3), ("h1", 9)]);
    assert_eq!(got, BTreeMap::from([(1, 2)]));
}

#[test]
fn under_headroom_a_job_is_spread_over_the_hosts_of_its_input_first() {
    // Headroom 0.5 of 4 hosts: one job on 2 of them.
    let mut s = four_general(0.5);
    driver(&mut s, 9, "a");
    // Without input: the least loaded, lower hosts first.
    assert_eq!(submit(&mut s, 1, 4, &[]).keys().copied().collect::<Vec<_>>(), vec![0, 1]);
    // Input on h3 (3 tasks) and h1 (1): those two, though h2 is idle and h1 is not.
    let got = submit(&mut s, 2, 4, &[("h3", 3), ("h1", 1)]);
    assert_eq!(got, BTreeMap::from([(1, 1), (3, 3)]));
}
