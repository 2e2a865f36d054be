//! Tenants in eagle-adaptive (a Connect session, a Thrift session's pool): their weights and
//! minimum shares, and the starvation bound one tenant keeps while others submit smaller
//! queries without end. Driven through the Spark façade ([`Driver`]) on a virtual clock.
use eagle_core::tenant::Share;
use eagle_core::{Class, Driver, DriverConfig, JobId, NodeId};

fn driver() -> Driver {
    // A fixed split, so that every job below is short and the reservation plays no part.
    Driver::new(DriverConfig { cutoff: Some(10.0), ..DriverConfig::default() }, 1).unwrap()
}

#[test]
fn a_heavier_tenant_ranks_its_work_as_smaller() {
    for (weight, first) in [(1.0, 0), (3.0, 1)] {
        let mut d = driver();
        let n = d.add_node(0.0, 1);
        // Tenant 1: 2 s of work; tenant 2: 4 s, at `weight`.
        let a = d.submit(0.0, 4, None, Some(0.5), 1);
        let b = d.submit(0.0, 4, None, Some(1.0), 2);
        d.set_tenant(a, 1, Share::default());
        d.set_tenant(b, 2, Share::new(weight, 0).unwrap());
        assert_eq!(d.offer(0.0, n, 1, &[]), vec![[a, b][first]], "tenant 2 at weight {weight}");
    }
}

#[test]
fn a_tenant_below_its_minimum_share_goes_first_until_it_has_it() {
    let mut d = driver();
    let n = d.add_node(0.0, 4);
    let small = d.submit(0.0, 8, None, Some(0.1), 1);
    let big = d.submit(0.0, 8, None, Some(1.0), 2);
    d.set_tenant(small, 1, Share::default());
    d.set_tenant(big, 2, Share::new(1.0, 2).unwrap());
    let plan = d.offer(0.0, n, 4, &[]);
    assert_eq!(plan, vec![big, big, small, small], "two slots for the minimum share, then SRPT");
    // Without the minimum share, SRPT gives every slot to the smaller job.
    let mut d = driver();
    let n = d.add_node(0.0, 4);
    let small = d.submit(0.0, 8, None, Some(0.1), 1);
    let big = d.submit(0.0, 8, None, Some(1.0), 2);
    d.set_tenant(small, 1, Share::default());
    d.set_tenant(big, 2, Share::default());
    assert_eq!(d.offer(0.0, n, 4, &[]), vec![small; 4]);
}

/// Offers the node's 4 slots every `round` s, up to `rounds` times: the tasks launched in the
/// previous round end first (each reports `round` s), the other jobs among them are removed,
/// and `more(d, t)` submits the other tenants' next jobs. Returns when the last of `q`'s 12
/// tasks launched.
fn query_launched_by(
    d: &mut Driver,
    n: NodeId,
    q: JobId,
    round: f64,
    rounds: u64,
    mut more: impl FnMut(&mut Driver, f64),
) -> f64 {
    let mut running: Vec<JobId> = Vec::new();
    let mut launched = 0;
    for step in 0..rounds {
        let t = step as f64 * round;
        for j in running.drain(..) {
            d.task_finished(t, n, j, Some(round));
            if j != q {
                d.remove_job(t, j);
            }
        }
        more(d, t);
        let plan = d.offer(t, n, 4, &[]);
        launched += plan.iter().filter(|&&j| j == q).count();
        running.extend(plan);
        if launched == 12 {
            return t;
        }
    }
    panic!("only {launched} of 12 tasks of the query launched in {} s", rounds as f64 * round)
}

/// Tenant 1 submits one query of 12 tasks × 50 ms at 0 s; tenants 2 and 3, at weight 4,
/// keep every one of 4 slots busy with one-task queries of 10 ms estimate, four every 50 ms,
/// for 10 s. SRPT (weights included) always prefers theirs; the query's starvation deadline
/// (`deadlineFactor` × its fair time, at least 1 s) is its bound. Returns when the last of
/// its tasks launched.
fn bypassed_query_launched_by() -> f64 {
    let mut d = driver();
    let n = d.add_node(0.0, 4);
    let q = d.submit_in(0.0, 12, None, Some(0.05), 1, Some(1));
    d.set_tenant(q, 1, Share::default());
    let heavy = Share::new(4.0, 0).unwrap();
    let mut group = 100;
    query_launched_by(&mut d, n, q, 0.05, 200, |d, t| {
        for k in 0..4 {
            group += 1;
            let j = d.submit_in(t, 1, None, Some(0.01), 2, Some(group));
            d.set_tenant(j, 2 + k % 2, heavy);
        }
    })
}

#[test]
fn a_query_others_keep_bypassing_is_served_by_its_deadline() {
    let at = bypassed_query_launched_by();
    // Its fair time when filed alone: 12 × 50 ms / 4 slots = 0.15 s, so its deadline is the
    // 1 s floor; then it goes first at full width (three 50 ms rounds for 12 tasks).
    assert!(at >= 0.9, "before its deadline the smaller queries go first (all launched at {at} s)");
    assert!(at <= 2.0, "all its tasks launched by {at} s; its bound is 1 s plus a few 50 ms rounds");
}

/// Tenant 2 keeps twelve one-task queries of 0.2 s waiting on 4 slots (it submits four each
/// 0.2 s round as four end); tenant 1 then submits one query of 12 tasks × 0.5 s, larger than
/// each of theirs, so SRPT serves tenant 2 first. Returns when the query's last task launched.
fn query_beside_a_tenants_backlog_launched_by() -> f64 {
    let mut d = driver();
    let n = d.add_node(0.0, 4);
    let mut group = 100;
    let mut submit = move |d: &mut Driver, t: f64, k: usize| {
        for _ in 0..k {
            group += 1;
            let j = d.submit_in(t, 1, None, Some(0.2), 2, Some(group));
            d.set_tenant(j, 2, Share::default());
        }
    };
    submit(&mut d, 0.0, 12);
    let q = d.submit_in(0.0, 12, None, Some(0.5), 1, Some(1));
    d.set_tenant(q, 1, Share::default());
    // From the second round on, four end and four more come each round.
    query_launched_by(&mut d, n, q, 0.2, 400, |d, t| submit(d, t, if t > 0.0 { 4 } else { 0 }))
}

#[test]
fn another_tenants_many_waiting_queries_do_not_stretch_a_tenants_bound() {
    let at = query_beside_a_tenants_backlog_launched_by();
    // FAIR pools would give tenant 1 half of the 4 slots: its 6 s of work takes 3 s, so its
    // deadline is 5 × 3 s = 15 s. Counted over the 13 task sets waiting (as if each were a
    // pool of its own) its fair time would be 19.5 s and its deadline 97.5 s.
    assert!(at >= 13.0, "before its deadline the smaller queries go first (all launched at {at} s)");
    assert!(at <= 18.0, "all its tasks launched by {at} s; its bound is 15 s plus a few rounds");
}

/// Four dashboard users (short queries) and one ETL session (a long job) on 10 slots: while
/// the long job waits, long work keeps what FAIR pools would give its tenant (1/5 of the
/// cluster), not `longShare` (half); with no tenants, or all in one, it keeps half.
#[test]
fn long_work_keeps_the_share_pools_would_give_its_tenants() {
    let plan = |tenants: &[u64]| {
        let mut d = Driver::new(DriverConfig { cutoff: Some(1.0), ..DriverConfig::default() }, 1).unwrap();
        let n = d.add_node(0.0, 10);
        let users: Vec<JobId> = (0..4).map(|u| d.submit_in(0.0, 10, None, Some(0.2), 1, Some(10 + u))).collect();
        let etl = d.submit_in(0.0, 40, None, Some(30.0), 2, Some(99));
        for (i, &j) in users.iter().chain([&etl]).enumerate() {
            if let Some(&t) = tenants.get(i) {
                d.set_tenant(j, t, Share::default());
            }
        }
        let got = d.offer(0.0, n, 10, &[]);
        (got.iter().filter(|&&j| j != etl).count(), got.iter().filter(|&&j| j == etl).count())
    };
    assert_eq!(plan(&[1, 2, 3, 4, 5]), (8, 2), "a session each: the users keep 4/5");
    assert_eq!(plan(&[]), (5, 5), "no tenants: long work keeps longShare");
    assert_eq!(plan(&[1, 1, 1, 1, 1]), (5, 5), "one tenant: long work keeps longShare");
    // The users in two sessions and the ETL outside any tenant: 1 of 3 tenants is long, and
    // floor(2/3 × 10) = 6 slots for the users.
    assert_eq!(plan(&[1, 1, 2, 2]), (6, 4));
}

/// A task set nothing is known about (no hint, no history, no task ended) enters at the
/// default estimate; with several tenants live it runs no wider than its tenant's share
/// while others want the slots, and takes the rest when none does.
#[test]
fn a_guessed_task_set_runs_no_wider_than_its_tenants_share() {
    // 8 slots. A user's query of `user_tasks` × 2 s (hinted), and an ETL stage of 16 tasks
    // at the default estimate of 1 s (`etl_hint`: or hinted 1 s), which SRPT ranks first.
    let plan = |user_tasks: u32, etl_hint: Option<f64>, tenants: &[u64]| {
        let mut d = driver();
        let n = d.add_node(0.0, 8);
        let user = d.submit_in(0.0, user_tasks, None, Some(2.0), 1, Some(1));
        let etl = d.submit_in(0.0, 16, None, etl_hint, 2, Some(2));
        for (&j, &t) in [user, etl].iter().zip(tenants) {
            // Tenant 3: the ETL's, with a minimum share of 6 slots.
            d.set_tenant(j, t, Share::new(1.0, if t == 3 { 6 } else { 0 }).unwrap());
        }
        let got = d.offer(0.0, n, 8, &[]);
        got.iter().map(|&j| if j == etl { 'e' } else { 'u' }).collect::<String>()
    };
    assert_eq!(plan(12, None, &[1, 2]), "eeeeuuuu", "two tenants: the guess keeps to 8/2 slots");
    assert_eq!(plan(2, None, &[1, 2]), "eeeeuuee", "slots no other job wants go to the guess");
    assert_eq!(plan(12, Some(1.0), &[1, 2]), "eeeeeeee", "a hinted estimate is no guess: SRPT");
    assert_eq!(plan(12, None, &[1, 3]), "eeeeeeuu", "a minimum share above the fair share");
    assert_eq!(plan(12, None, &[1, 1]), "eeeeeeee", "one tenant: SRPT");
    assert_eq!(plan(12, None, &[]), "eeeeeeee", "no tenants: SRPT");
    // Once a task of it ends, its size is known and SRPT ranks it by it.
    let mut d = driver();
    let n = d.add_node(0.0, 4);
    let user = d.submit_in(0.0, 12, None, Some(2.0), 1, Some(1));
    let etl = d.submit_in(0.0, 16, None, None, 2, Some(2));
    d.set_tenant(user, 1, Share::default());
    d.set_tenant(etl, 2, Share::default());
    assert_eq!(d.offer(0.0, n, 4, &[]), vec![etl, etl, user, user]);
    d.task_finished(0.5, n, etl, Some(0.5));
    assert_eq!(d.offer(0.5, n, 1, &[]), vec![etl]);
    d.task_finished(2.0, n, user, Some(2.0));
    assert_eq!(d.offer(2.0, n, 1, &[]), vec![etl], "known 0.5 s tasks: a third slot, by SRPT");
}

/// A task set whose size is a guess gets its tenant's fair share before SRPT serves the
/// task sets of known size, the tenant running the fewest tasks for its weight first (FAIR's
/// order): fair sharing while a size is unknown. Capping its width alone left the order
/// SRPT's, so a new query larger than the others got no slot at all while they lasted:
/// `scripts/bench server` (Thrift, 16 slots), a user's first TPC-H Q5 on a cold server,
/// where every query is a guess, waited 15-27 s for its stages' first tasks (FAIR: 0-9 s)
/// and was the slowest query of the run.
#[test]
fn a_guessed_task_set_gets_its_tenants_fair_share_before_srpt() {
    // 6 slots, three tenants (a share of 2 each). Tenants 1 and 2: guesses of 4 and 16 tasks
    // at the default 1 s; tenant 3: a query of 8 known 0.1 s tasks, which SRPT ranks first.
    let mut d = driver();
    let n = d.add_node(0.0, 6);
    let small = d.submit_in(0.0, 4, None, None, 1, Some(1));
    let big = d.submit_in(0.0, 16, None, None, 2, Some(2));
    let known = d.submit_in(0.0, 8, None, Some(0.1), 3, Some(3));
    for (j, t) in [(small, 1), (big, 2), (known, 3)] {
        d.set_tenant(j, t, Share::default());
    }
    let plan: Vec<JobId> = (0..6).flat_map(|_| d.offer(0.0, n, 1, &[])).collect();
    assert_eq!(plan, vec![small, big, small, big, known, known], "fewest running first, then SRPT");
    // Once a task of the big one ends its size is known, and SRPT ranks it by it.
    d.task_finished(1.0, n, big, Some(1.0));
    assert_eq!(d.offer(1.0, n, 1, &[]), vec![known]);
}

/// Long work of several tenants shares the slots as their pools would: by running tasks over
/// weight, SRPT within a tenant. SRPT across them ran one session's ETL job on every slot
/// until it ended because it was the smaller.
#[test]
fn long_work_of_several_tenants_is_split_as_their_pools_would() {
    // 8 slots, no short work. Tenant 1's job: 20 tasks × 10 s; tenant 2's: 20 × 30 s.
    let plan = |tenants: &[(u64, f64)]| {
        let mut d = Driver::new(DriverConfig { cutoff: Some(1.0), ..DriverConfig::default() }, 1).unwrap();
        let n = d.add_node(0.0, 8);
        let small = d.submit_in(0.0, 20, None, Some(10.0), 1, Some(1));
        let big = d.submit_in(0.0, 20, None, Some(30.0), 2, Some(2));
        for (&j, &(t, w)) in [small, big].iter().zip(tenants) {
            d.set_tenant(j, t, Share::new(w, 0).unwrap());
        }
        let got = d.offer(0.0, n, 8, &[]);
        got.iter().map(|&j| if j == small { 's' } else { 'b' }).collect::<String>()
    };
    assert_eq!(plan(&[(1, 1.0), (2, 1.0)]), "sbsbsbsb", "a session each: half each");
    assert_eq!(plan(&[(1, 3.0), (2, 1.0)]), "sbsssbss", "weights 3 and 1: 6 and 2");
    assert_eq!(plan(&[(1, 1.0), (1, 1.0)]), "ssssssss", "one tenant: SRPT");
    assert_eq!(plan(&[]), "ssssssss", "no tenants: SRPT");
}

/// With tenants the long share holds whenever long work waits. Four users' sessions keep
/// four slots of ten busy for 20 s beside an ETL session, then burst: the users keep 8/10 (the
/// ETL's pool share is a fifth), though the stream they kept so far held fewer slots than that.
#[test]
fn a_burst_of_users_leaves_long_work_its_pools_share() {
    let mut d = Driver::new(DriverConfig { cutoff: Some(1.0), ..DriverConfig::default() }, 1).unwrap();
    let n = d.add_node(0.0, 10);
    let etl = d.submit_in(0.0, 400, None, Some(30.0), 9, Some(99));
    d.set_tenant(etl, 5, Share::default());
    let mut users: Vec<JobId> = Vec::new();
    let mut etl_running = 0;
    let mut group = 100;
    for step in 0..=20u64 {
        let t = step as f64;
        for j in users.drain(..) {
            d.task_finished(t, n, j, Some(0.5));
            d.remove_job(t, j);
        }
        if step == 20 {
            // Six ETL tasks end as the users burst: ten slots free.
            for _ in 0..6 {
                d.task_finished(t, n, etl, Some(20.0));
            }
            etl_running -= 6;
        }
        let (jobs, tasks) = if step == 20 { (4, 10) } else { (4, 1) };
        for u in 0..jobs {
            group += 1;
            let j = d.submit_in(t, tasks, None, Some(0.5), u + 1, Some(group));
            d.set_tenant(j, u + 1, Share::default());
        }
        let plan = d.offer(t, n, 10 - etl_running, &[]);
        etl_running += plan.iter().filter(|&&j| j == etl).count() as u32;
        users.extend(plan.iter().copied().filter(|&j| j != etl));
        if step == 20 {
            assert_eq!((users.len(), etl_running), (8, 2), "the users keep 8, the ETL its fifth");
        }
    }
}

/// Pools share max-min: a pool asking for less than its share gets what it asks, and the rest
/// is split among the others by weight. On 10 slots, three users' sessions ask for one task each
/// and a fourth for ten, beside an ETL session: pools give the three their task, and split the
/// other seven between the wide query and the ETL (3.5 each), where a fifth of the cluster for
/// the ETL left its slots to the wide query.
#[test]
fn long_work_keeps_what_pools_give_it_beside_users_that_ask_for_less_than_their_share() {
    let plan = |wide_tasks: u32| {
        let mut d = Driver::new(DriverConfig { cutoff: Some(1.0), ..DriverConfig::default() }, 1).unwrap();
        let n = d.add_node(0.0, 10);
        let users: Vec<JobId> = (0..4)
            .map(|u| d.submit_in(0.0, if u == 0 { wide_tasks } else { 1 }, None, Some(0.2), 1, Some(10 + u)))
            .collect();
        let etl = d.submit_in(0.0, 40, None, Some(30.0), 2, Some(99));
        for (i, &j) in users.iter().chain([&etl]).enumerate() {
            d.set_tenant(j, i as u64 + 1, Share::default());
        }
        let got = d.offer(0.0, n, 10, &[]);
        (got.iter().filter(|&&j| j != etl).count(), got.iter().filter(|&&j| j == etl).count())
    };
    assert_eq!(plan(10), (6, 4), "the users' pools: 1 + 1 + 1 + 3.5; the ETL's 3.5");
    assert_eq!(plan(2), (5, 5), "the users ask for 5 of their 8: the ETL takes the rest");
}

/// With tenants the hold keeps no slot of long work's pools share, as the reservation keeps
/// none. On 4 slots four users' queries run and one waits with a second task when an ETL
/// session's job arrives; pools give the ETL a fifth, so the users keep 3. A user's query
/// ends: the hold kept the freed slot from the ETL for the next query while the long share
/// kept it from the waiting user, and the slot idled with both waiting.
#[test]
fn the_hold_keeps_no_slot_of_long_works_pools_share() {
    // `etl_first`: on 6 slots, the ETL is submitted first and runs its share (2) already.
    let plan = |etl_first: bool| {
        let mut d = Driver::new(DriverConfig { cutoff: Some(1.0), ..DriverConfig::default() }, 1).unwrap();
        let n = d.add_node(0.0, if etl_first { 6 } else { 4 });
        let etl = etl_first.then(|| d.submit_in(0.0, 40, None, Some(5.0), 9, Some(99)));
        let users: Vec<JobId> = (0..4u64)
            .map(|u| {
                d.submit_in(0.0, if u == 3 { 2 } else { 1 }, None, Some(0.1 * (u + 1) as f64), u + 1, Some(10 + u))
            })
            .collect();
        let etl = etl.unwrap_or_else(|| {
            assert_eq!(d.offer(0.0, n, 4, &[]), users, "short work first");
            d.submit_in(0.1, 40, None, Some(5.0), 9, Some(99))
        });
        for (u, &j) in users.iter().chain([&etl]).enumerate() {
            d.set_tenant(j, u as u64 + 1, Share::default());
        }
        if etl_first {
            let got = d.offer(0.0, n, 6, &[]);
            assert_eq!(
                got.iter().filter(|&&j| j == etl).count(),
                2,
                "pools give the ETL 1.5 of 6, the users keep 4: {got:?}"
            );
        }
        d.task_finished(0.2, n, users[0], Some(0.1));
        d.remove_job(0.2, users[0]);
        (d.offer(0.2, n, 1, &[]), etl, users[3])
    };
    let (got, etl, _) = plan(false);
    assert_eq!(got, vec![etl], "the ETL runs below its pools' fifth: the slot is its");
    let (got, _, user) = plan(true);
    assert_eq!(got, vec![user], "the ETL runs its share: the waiting user's task");
}

/// Long work of several tenants is split as pools split it even once its task sets are
/// overdue: a starvation deadline orders a tenant's long work against short work, not one
/// ETL session's against another's, which the split keeps from starving. Earliest deadline
/// first gave every slot that freed to one session's overdue stage while the other's ran none.
#[test]
fn overdue_long_work_of_several_tenants_is_split_as_their_pools_would() {
    let mut d = Driver::new(DriverConfig { cutoff: Some(1.0), ..DriverConfig::default() }, 1).unwrap();
    let n = d.add_node(0.0, 4);
    let a = d.submit_in(0.0, 40, None, Some(2.0), 1, Some(1));
    let b = d.submit_in(0.0, 40, None, Some(2.0), 2, Some(2));
    d.set_tenant(a, 1, Share::default());
    d.set_tenant(b, 2, Share::default());
    assert_eq!(d.offer(0.0, n, 4, &[]), vec![a, b, a, b]);
    // Long past both deadlines, a task of `b` ends: `b` runs 1, `a` 2.
    d.task_finished(300.0, n, b, Some(2.0));
    assert_eq!(d.offer(300.0, n, 1, &[]), vec![b], "the session running fewer takes the slot");
    d.task_finished(301.0, n, a, Some(2.0));
    assert_eq!(d.offer(301.0, n, 1, &[]), vec![a]);
}

/// A task set whose size is a guess and that already runs its tenant's share takes no slot
/// the hold keeps for the next short job: its tasks may be long (an ETL stage nothing knew),
/// and the hold keeps its slots from long work. Let in, in `scripts/bench server` (Connect,
/// 16 slots), the sort's next stage (26 s tasks, still a guess) took six slots in 2 s as the
/// users' queries ended, and the users ran on 7 slots instead of 12 for 40 s.
#[test]
fn a_guessed_task_set_past_its_tenants_share_takes_no_held_slot() {
    // 8 slots, four tenants (a share of 2 each): users 1 and 2 with a query of 2 × 0.1 s each,
    // an ETL running 2 known long tasks, and another ETL's stage of 16 tasks at a guess.
    let start = || {
        let mut d = Driver::new(DriverConfig { cutoff: Some(2.0), ..DriverConfig::default() }, 1).unwrap();
        let n = d.add_node(0.0, 8);
        let u1 = d.submit_in(0.0, 2, None, Some(0.1), 1, Some(1));
        let u2 = d.submit_in(0.0, 2, None, Some(0.1), 2, Some(2));
        let long = d.submit_in(0.0, 2, None, Some(5.0), 3, Some(3));
        let guess = d.submit_in(0.0, 16, None, None, 4, Some(4));
        for (j, t) in [(u1, 1), (u2, 2), (long, 3), (guess, 4)] {
            d.set_tenant(j, t, Share::default());
        }
        let mut got = d.offer(0.0, n, 8, &[]);
        got.sort();
        let mut want = vec![u1, u1, u2, u2, long, long, guess, guess];
        want.sort();
        assert_eq!(got, want, "each tenant its share");
        // User 1's query ends: its two slots are held for the user's next query.
        for _ in 0..2 {
            d.task_finished(0.1, n, u1, Some(0.1));
        }
        d.remove_job(0.1, u1);
        (d, n, guess)
    };
    let (mut d, n, guess) = start();
    // Three tenants are live now: the guess's share is 3, and the other held slot waits.
    assert_eq!(d.offer(0.1, n, 2, &[]), vec![guess], "the guess takes its share, no more");
    let next = d.submit_in(0.4, 2, None, Some(0.1), 5, Some(5));
    d.set_tenant(next, 1, Share::default());
    assert_eq!(d.offer(0.4, n, 1, &[]), vec![next], "the user's next query takes it");
    let (mut d, n, guess) = start();
    assert_eq!(d.offer(2.2, n, 2, &[]), vec![guess, guess], "no next query within the window: the guess's");
}

/// Runs one stage of `tenant` on `n`'s 16 slots from `t`: 32 tasks of `secs` each (a hint),
/// two waves, so the second wave's tasks are warm and the stage has a measured warm mean.
/// Returns when it ended.
fn two_waves(d: &mut Driver, n: NodeId, t: f64, tenant: u64, secs: f64, sig: u64) -> f64 {
    let j = d.submit_in(t, 32, None, Some(secs), sig, Some(sig));
    d.set_tenant(j, tenant, Share::default());
    for wave in 1..=2 {
        let at = t + (wave - 1) as f64 * secs;
        assert_eq!(d.offer(at, n, 16, &[]), vec![j; 16], "wave {wave}");
        for _ in 0..16 {
            d.task_finished(at + secs, n, j, Some(secs));
        }
    }
    d.remove_job(t + 2.0 * secs, j);
    t + 2.0 * secs
}

/// A stage of unknown size from a session whose recent stages were all long enters at that
/// session's estimate, as long work: an ETL session's next stage is long far more often than
/// it is a query stage. At the application's typical task it entered as short, took every slot
/// the reservation keeps for users' queries, and was classed long only once its first task
/// ended, seconds later: `scripts/bench server` (Thrift, 16 slots), the sort's stage of 3.8 s
/// tasks came in at 0.58 s.
#[test]
fn a_stage_of_unknown_size_from_a_session_of_long_stages_enters_as_long() {
    let mut d = Driver::new(DriverConfig { cutoff: Some(0.4), ..DriverConfig::default() }, 1).unwrap();
    let n = d.add_node(0.0, 16);
    // The ETL session (tenant 1) ran two stages of 3 s and 5 s tasks.
    let t = two_waves(&mut d, n, 0.0, 1, 3.0, 10);
    let t = two_waves(&mut d, n, t, 1, 5.0, 11);
    // A user's query (tenant 2) ran and ended: short work is around.
    let q = d.submit_in(t, 2, None, Some(0.1), 20, Some(20));
    d.set_tenant(q, 2, Share::default());
    assert_eq!(d.offer(t, n, 2, &[]), vec![q, q]);
    for _ in 0..2 {
        d.task_finished(t + 0.1, n, q, Some(0.1));
    }
    d.remove_job(t + 0.1, q);
    // The session's next stage, of unknown size, arrives alone after the hold's window.
    let t = t + 3.0;
    let next = d.submit_in(t, 32, None, None, 12, Some(12));
    d.set_tenant(next, 1, Share::default());
    assert_eq!(d.job_class(next), Some(Class::Long), "a long session's stage");
    let (est, _) = d.job_estimate(next).unwrap();
    assert!((3.0..=5.0).contains(&est), "the session's estimate, not the typical task: {est}");
    // Long work leaves the reserved slot free, and the user's next query takes it at once.
    assert_eq!(d.offer(t, n, 16, &[]).len(), 15, "one slot kept for short work");
    let q = d.submit_in(t + 0.5, 2, None, Some(0.1), 21, Some(21));
    d.set_tenant(q, 2, Share::default());
    assert_eq!(d.offer(t + 0.5, n, 1, &[]), vec![q]);
    // A session whose stages are short keeps the typical task for a stage of unknown size.
    let mut d = Driver::new(DriverConfig { cutoff: Some(0.4), ..DriverConfig::default() }, 1).unwrap();
    let n = d.add_node(0.0, 16);
    let s = two_waves(&mut d, n, 0.0, 3, 3.0, 30);
    let s = two_waves(&mut d, n, s, 3, 0.2, 31);
    let guess = d.submit_in(s, 4, None, None, 32, Some(32));
    d.set_tenant(guess, 3, Share::default());
    assert_eq!(d.job_class(guess), Some(Class::Short));
}
