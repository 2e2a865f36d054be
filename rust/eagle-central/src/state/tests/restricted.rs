//! Placement of a job Spark restricts to some hosts (`SubmitLong.hosts`) or whose grants
//! went back unused on some (`SubmitLong.avoid`).

use super::*;

/// A job Spark keeps off some hosts names the others (`SubmitLong.hosts`): its long tasks
/// go to the general hosts among them, and when there is none the driver is told at once.
#[test]
fn a_job_restricted_to_some_hosts_is_placed_only_there() {
    let mut s = three_up(0.34);
    driver(&mut s, 9, "a");
    let general: Vec<String> = s.status().nodes.into_iter().filter(|n| n.general).map(|n| n.name).collect();
    let short_only: Vec<String> = s.status().nodes.into_iter().filter(|n| !n.general).map(|n| n.name).collect();
    assert_eq!((general.len(), short_only.len()), (2, 1));
    let submit = |s: &mut CentralState, job, hosts: Vec<String>| {
        s.handle(Event::Message {
            conn: 9,
            msg: ToCentral::SubmitLong {
                job,
                tasks: 4,
                est_ms: 100.0,
                cpus: 1,
                hosts: Some(hosts),
                avoid: Vec::new(),
                input: Vec::new(),
            },
        })
    };
    let out = submit(&mut s, 1, vec![short_only[0].clone(), general[1].clone()]);
    let on: BTreeSet<&str> = placements(&out).iter().map(|x| s.hosts[x.0 as usize].name.as_str()).collect();
    assert_eq!(on, BTreeSet::from([general[1].as_str()]), "the general host it may use, though the other is idle");
    let out = submit(&mut s, 2, short_only.clone());
    assert!(placements(&out).is_empty(), "never the short-only host: {out:?}");
    assert!(
        out.iter().any(|a| matches!(
            a,
            Action::ToPeer { conn: 9, msg: FromCentral::Unplaced { job: 2, tasks: 4, host: None } }
        )),
        "{out:?}"
    );
}

/// `SubmitLong.avoid` is a preference: the hosts where the job's grants went back unused
/// take its tasks only when no other general host may.
#[test]
fn a_job_avoids_the_hosts_it_names_while_another_may_take_it() {
    let mut s = three_up(0.34);
    driver(&mut s, 9, "a");
    let general: Vec<String> = s.status().nodes.into_iter().filter(|n| n.general).map(|n| n.name).collect();
    let submit = |s: &mut CentralState, job, hosts: Option<Vec<String>>, avoid: Vec<String>| {
        let out = s.handle(Event::Message {
            conn: 9,
            msg: ToCentral::SubmitLong { job, tasks: 3, est_ms: 100.0, cpus: 1, hosts, avoid, input: Vec::new() },
        });
        placements(&out).iter().map(|x| s.hosts[x.0 as usize].name.clone()).collect::<BTreeSet<String>>()
    };
    let on = submit(&mut s, 1, None, vec![general[0].clone()]);
    assert_eq!(on, BTreeSet::from([general[1].clone()]), "the other general host, though it now holds more work");
    // Only the avoided host may take it (Spark allows no other general host): placed there.
    let on = submit(&mut s, 2, Some(vec![general[0].clone()]), vec![general[0].clone()]);
    assert_eq!(on, BTreeSet::from([general[0].clone()]));
}
