//! The Rust side of the soak: an application's scheduler (`eagle_client::Application`, as
//! the bridge creates it) driven the way the plugin drives it
//! (submit, setPending, offer, localityFeedback, taskFinished, delayHistory, removeJob) for
//! 20,000 task sets of 50 tasks on one 4-slot executor, with Dynamic Delay Scheduling on.
//! A counting global allocator measures the bytes live at 10/25/50/75/100 %: after
//! warm-up nothing may accumulate (the engine's per-job state and delay histories are
//! freed, the history map is bounded: `historyMaxEntries`).
use eagle_client::Application;
use eagle_core::locality::delay::Level;
use eagle_jni::convert::decode_settings;

#[path = "common/counting.rs"]
mod counting;

#[test]
fn one_million_tasks_leave_nothing_behind() {
    // Both orders of the adaptive policy, one after the other (the counter is global).
    for order in ["srpt", "fsp"] {
        soak(order);
    }
}

/// One soak under `order` (srpt, or fsp, whose virtual finish tags must be forgotten once
/// processor sharing has ended their task sets).
fn soak(order: &str) {
    // historyMaxEntries = 1000: every task set has its own stage signature (as generated SQL
    // gives), so without the LRU bound the history would grow by one entry per task set.
    // The default policy (adaptive) with a learned cutoff: its learner, reservation window
    // and adaptive history must stay bounded too.
    let config = format!(
        r#"{{"history.maxEntries": "1000", "policy": "adaptive", "order": "{order}",
             "dds.minWaitMs": "0", "dds.maxWaitMs": "10000", "dds.window": "2", "dds.inherit": "true"}}"#
    );
    let mut st = Application::new(decode_settings(&config).unwrap()).unwrap();
    st.driver.enable_delay(st.settings.delay_params([3000, 3000, 3000]).unwrap()).unwrap();
    let node = st.driver.add_node(0.0, 4);
    let (jobs, per_job) = (20_000u32, 50u32);
    let mut now = 0.0;
    let mut live_at = Vec::new();
    let valid = [Level::ProcessLocal, Level::NodeLocal, Level::Any];
    for j in 0..jobs {
        let job = st.driver.submit(now, per_job, None, None, j as u64);
        let mut pending = per_job;
        let mut running = 0u32;
        while pending > 0 || running > 0 {
            st.driver.set_pending(now, job, pending);
            st.plan.clear();
            st.driver.offer_into(now, node, 4 - running, &[], &mut st.plan);
            let launched = st.plan.len() as u32;
            for _ in 0..launched {
                let _ = st.driver.allowed_locality(now, job, &valid, &[true, true, true]);
                st.driver.launched_at(now, job, Level::NodeLocal, &valid);
            }
            pending -= launched.min(pending);
            running += launched;
            now += 0.001;
            if running > 0 {
                st.driver.locality_feedback(now, job, Level::ProcessLocal, Level::NodeLocal, 0.002);
                st.driver.task_finished(now, node, job, Some(0.001));
                running -= 1;
            }
        }
        let _ = st.driver.delay_history(job);
        st.driver.remove_job(now, job);
        if [jobs / 10, jobs / 4, jobs / 2, jobs * 3 / 4, jobs].contains(&(j + 1)) {
            st.plan.shrink_to_fit();
            live_at.push(counting::live());
        }
    }
    // Bounded, not byte-exact: the history's hash table may double once as evictions leave
    // tombstones (about 70 KB at 1000 entries). Unbounded, it grows ~90 bytes per task set
    // (1.5 MB over this run).
    counting::assert_flat(&format!("order {order}"), &live_at, 128 * 1024);
}
