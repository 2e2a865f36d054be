//! Cluster mode's driver-side soak: one application's `ClusterSide` (eagle-client) runs
//! task set after task set against in-process `eagle-node` and
//! `eagle-central` daemons, as the plugin drives it, short and long ones, some with a
//! failed attempt that runs again, some cancelled with tasks running. A driver lives as
//! long as its application (a notebook, a Thrift server: days, millions of task sets), so
//! nothing a finished task set leaves may stay: the bytes live in the process (driver
//! and daemons) are measured at 10/25/50/75/100 % of the run, each time with no lease
//! out, and must not grow after warm-up. (The local-mode soak is `soak_memory.rs`, the
//! daemons' `soak_daemons.rs`.)

#[path = "common/counting.rs"]
mod counting;

#[allow(dead_code)] // each test crate uses part of the shared support
#[path = "../../eagle-client/tests/common/cluster.rs"]
mod cluster;

use cluster::*;
use eagle_core::JobId;
use std::time::{Duration, Instant};

const TASK_SETS: u32 = 400;

#[test]
#[ignore = "second tier (a minute): scripts/test.sh --full runs it"]
fn hundreds_of_task_sets_leave_nothing_behind_in_the_driver() {
    let (addr, mut a) = linked_app(4);
    let mut live_at = Vec::new();
    let (mut failed, mut cancelled) = (0, 0);
    for j in 0..TASK_SETS {
        let (job, long) = (JobId(j), j % 2 == 1);
        a.submit(j, 6, 0.005, long);
        let cancel = j % 11 == 5;
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut step = 0u32;
        while !a.done() {
            assert!(Instant::now() < deadline, "task set {j} did not finish: launched {}", a.launched);
            a.round(&[]);
            step += 1;
            if cancel && !a.running.is_empty() {
                // Cancelled with tasks running: the task set goes, Spark kills its tasks.
                a.c.remove_job(job);
                a.waiting.clear();
                while !a.running.is_empty() {
                    a.finish_one();
                }
                cancelled += 1;
                break;
            }
            if step.is_multiple_of(2) {
                if j % 7 == 3 && step == 2 {
                    a.fail_one();
                    failed += 1;
                } else {
                    a.finish_one();
                }
            }
        }
        if !cancel {
            a.c.remove_job(job);
            a.waiting.clear();
        }
        if [TASK_SETS / 10, TASK_SETS / 4, TASK_SETS / 2, TASK_SETS * 3 / 4, TASK_SETS].contains(&(j + 1)) {
            eventually("no lease left on the node", || {
                a.c.drain();
                leased(&addr) == 0
            });
            // Let the links' keep-alives and the last answers settle.
            std::thread::sleep(Duration::from_millis(300));
            a.c.drain();
            live_at.push(counting::live());
        }
    }
    assert!(failed > 0 && cancelled > 0, "failed {failed}, cancelled {cancelled}");
    counting::assert_flat("cluster mode's driver side", &live_at, 16 * 1024);
}
