//! `--long-headroom` ([`crate::headroom`]): one long job's tasks go to at most the general
//! hosts less the headroom's share, so that later small long jobs, and short probes, find
//! whole hosts free of it.

use super::*;

fn submit(s: &mut CentralState, conn: ConnId, job: u64, tasks: u32, avoid: &[&str]) -> Vec<HostId> {
    let avoid = avoid.iter().map(|h| h.to_string()).collect();
    let out = s.handle(Event::Message {
        conn,
        msg: ToCentral::SubmitLong { job, tasks, est_ms: 1000.0, cpus: 1, hosts: None, avoid, input: Vec::new() },
    });
    placements(&out).into_iter().map(|p| p.0).collect()
}

fn done(s: &mut CentralState, host: HostId, app: &str, job: u64) {
    s.handle(Event::Own(HostEvent::FromNode {
        host,
        msg: FromNode::LongDone { app: app.into(), job, est_ms: 1000.0, cpus: 1 },
    }));
}

fn on(hosts: &[HostId]) -> BTreeSet<HostId> {
    hosts.iter().copied().collect()
}

#[test]
fn without_headroom_a_big_job_queues_on_every_host() {
    let mut s = four_general(0.0);
    driver(&mut s, 9, "a");
    assert_eq!(on(&submit(&mut s, 9, 1, 20, &[])), BTreeSet::from([0, 1, 2, 3]));
}

#[test]
fn a_big_job_leaves_a_whole_host_to_later_small_jobs_and_short_probes() {
    // 4 hosts, headroom 0.25: ceil(1) = 1 host no one job's tasks go to.
    let mut s = four_general(0.25);
    driver(&mut s, 9, "batch-1");
    driver(&mut s, 10, "batch-0");
    let big = submit(&mut s, 9, 4, 20, &[]);
    assert_eq!(big.len(), 20, "every task is placed at once: nothing waits at the central");
    let spread = on(&big);
    assert_eq!(spread.len(), 3, "{big:?}");
    let free = *BTreeSet::from([0, 1, 2, 3]).difference(&spread).next().unwrap();
    let st = s.status();
    assert_eq!(st.nodes[free as usize].long_tasks, 0);
    assert!(!st.bitvector.bit(free as usize), "short probes are taken on the free host");
    // A small job of another application goes to the free host, the one with least work.
    assert_eq!(submit(&mut s, 10, 5, 2, &[]), vec![free, free]);
    // More of the big job (a retry) stays on its hosts.
    assert!(on(&submit(&mut s, 9, 4, 3, &[])).is_subset(&spread));
}

#[test]
fn a_job_that_left_a_host_may_take_another_one() {
    let mut s = four_general(0.25);
    driver(&mut s, 9, "a");
    let first = submit(&mut s, 9, 1, 3, &[]);
    assert_eq!(on(&first).len(), 3);
    // Its tasks on one host end; the next ones go to the least loaded hosts, still three.
    let gone = first[0];
    done(&mut s, gone, "a", 1);
    let next = submit(&mut s, 9, 1, 4, &[]);
    let now: BTreeSet<HostId> = first[1..].iter().chain(&next).copied().collect();
    assert_eq!(now.len(), 3, "{first:?} then {next:?}");
}

#[test]
fn a_job_whose_spread_is_all_avoided_goes_elsewhere() {
    // 4 hosts, headroom 0.75: one host per job.
    let mut s = four_general(0.75);
    driver(&mut s, 9, "a");
    let first = submit(&mut s, 9, 1, 2, &[]);
    assert_eq!(on(&first).len(), 1);
    let name = format!("h{}", first[0]);
    // A speculative copy, whose grant went back on the job's one host.
    let copy = submit(&mut s, 9, 1, 1, &[&name]);
    assert_eq!(copy.len(), 1);
    assert_ne!(copy[0], first[0], "not the host it must avoid, though the job holds only that one");
}

#[test]
fn a_second_big_job_leaves_the_same_host_free() {
    // 4 hosts, headroom 0.25: each job over 3. The first big job leaves one host free; a
    // small job runs there; the second big job, which the free host cannot start at once
    // either, queues on the first one's hosts rather than take it, so the two together do
    // not cover every host.
    let mut s = four_general(0.25);
    driver(&mut s, 9, "batch-1");
    driver(&mut s, 10, "batch-0");
    driver(&mut s, 11, "batch-2");
    let first = on(&submit(&mut s, 9, 1, 20, &[]));
    assert_eq!(first.len(), 3);
    let free = *BTreeSet::from([0, 1, 2, 3]).difference(&first).next().unwrap();
    // A small job, which the free host starts at once, goes there.
    assert_eq!(submit(&mut s, 11, 1, 1, &[]), vec![free]);
    let second = on(&submit(&mut s, 10, 1, 20, &[]));
    assert_eq!(second, first, "the second big job is spread over the first one's hosts");
    // The small job ends: the free host holds no long work, and short probes are taken there.
    done(&mut s, free, "batch-2", 1);
    let st = s.status();
    assert_eq!(st.nodes[free as usize].long_tasks, 0);
    assert!(!st.bitvector.bit(free as usize), "short probes are taken on the free host again");
    assert_eq!(submit(&mut s, 11, 2, 2, &[]), vec![free, free], "and small long jobs");
}
