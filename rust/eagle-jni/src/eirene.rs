//! Conversions of the Eirene calls (`satcClone`, `ccdm`): `ccdm` multiplexes the CCDM
//! planner's operations over one native method, an operation code and an `Array[Int]` of
//! arguments ([`op`]). Each operation decodes its arguments, makes one call into the
//! driver's SATC gate ([`eagle_core::eirene::clone_gate`]) or CCDM planner
//! ([`eagle_core::eirene::prefetch`]), and encodes the answer; no decision is taken here.
//! No JVM here.

use crate::convert;
use crate::error::Error;
use eagle_client::Application;
use eagle_core::eirene::prefetch::Migration;
use eagle_core::{JobId, NodeId};

/// `ccdm` operations (`Native.Ccdm*` on the Scala side).
pub mod op {
    /// `[cm, mpp]` → `[]`: turn CCDM on.
    pub const ENABLE: i32 = 0;
    /// `[job, (task, holder node or -1)…]` (tasks with an input to migrate) → `[registered 0|1]`.
    pub const REGISTER: i32 = 1;
    /// `[job, waiting, node…]` → migrations to start.
    pub const PROBE: i32 = 2;
    /// `[node, job, task]` → `[helped 0|1]` + migrations to start (the fast lane).
    pub const LAUNCHED: i32 = 3;
    /// `[node, job, task, ok 0|1]` → `[keep 0|1]` + migrations to start.
    pub const DONE: i32 = 4;
    // 5 was a query of the migrated inputs per executor; the host learns them from DONE.
    /// `[job]` → `(node, task)` pairs whose migrated input is to be dropped.
    pub const FORGET: i32 = 6;
    /// `[]` → `[probes, started, fast, migrated, failed, helped]`.
    pub const COUNTERS: i32 = 7;
}

fn migrations(head: Vec<i32>, ms: &[Migration]) -> Vec<i32> {
    let mut v = head;
    for m in ms {
        v.extend([m.node.0 as i32, m.job.0 as i32, m.task as i32, m.fast as i32]);
    }
    v
}

fn arg(args: &[i32], index: usize, name: &'static str) -> Result<i32, Error> {
    args.get(index).copied().ok_or(Error::CcdmMissingArg { index, name })
}

fn tasks(v: &[i32]) -> Result<Vec<u32>, Error> {
    v.iter().map(|&t| convert::count("ccdm: task index", t)).collect()
}

/// `ccdm(op, args)`: one CCDM call (see [`op`]); migrations to start come back as
/// `(node, job, task, fast)` quadruples after the op's head values.
pub fn ccdm(st: &mut Application, op: i32, args: &[i32]) -> Result<Vec<i32>, Error> {
    let node = |i| -> Result<NodeId, Error> { convert::node_id(arg(args, i, "node")?) };
    let job = |i| -> Result<JobId, Error> { convert::job_id(arg(args, i, "job")?) };
    if op == op::ENABLE {
        let cm = convert::count("ccdm cm", arg(args, 0, "cm")?)?;
        let mpp = convert::count("ccdm mpp", arg(args, 1, "mpp")?)?;
        st.driver.enable_ccdm(cm, mpp)?;
        return Ok(Vec::new());
    }
    if op == op::REGISTER {
        let j = job(0)?;
        let rest = &args[1..];
        if !rest.len().is_multiple_of(2) {
            return Err(Error::CcdmOddPairs(rest.len()));
        }
        let cold = rest
            .chunks(2)
            .map(|c| Ok((tasks(&c[..1])?[0], if c[1] < 0 { None } else { Some(convert::node_id(c[1])?) })))
            .collect::<Result<Vec<_>, Error>>()?;
        return Ok(vec![st.driver.ccdm_register(j, &cold) as i32]);
    }
    let p = st.driver.ccdm().ok_or(Error::CcdmOff)?;
    let mut out = Vec::new();
    Ok(match op {
        op::PROBE => {
            let (j, waiting) = (job(0)?, convert::count("waiting", arg(args, 1, "waiting")?)?);
            let nodes = args[2..].iter().map(|&n| convert::node_id(n)).collect::<Result<Vec<_>, _>>()?;
            p.probe(j, waiting, &nodes, &mut out);
            migrations(Vec::new(), &out)
        }
        op::LAUNCHED => {
            let t = tasks(&[arg(args, 2, "task")?])?[0];
            let helped = p.launched(node(0)?, job(1)?, t, &mut out);
            migrations(vec![helped as i32], &out)
        }
        op::DONE => {
            let t = tasks(&[arg(args, 2, "task")?])?[0];
            let ok = arg(args, 3, "ok")? != 0;
            let keep = p.done(node(0)?, job(1)?, t, ok, &mut out);
            migrations(vec![keep as i32], &out)
        }
        op::FORGET => p.forget(job(0)?).into_iter().flat_map(|(n, t)| [n.0 as i32, t as i32]).collect(),
        op::COUNTERS => {
            let c = &p.counters;
            [c.probes, c.started, c.fast, c.migrated, c.failed, c.helped]
                .iter()
                .map(|&x| x.min(i32::MAX as u64) as i32)
                .collect()
        }
        _ => return Err(Error::CcdmUnknownOp(op)),
    })
}

/// `satcClone`: the Spark task index to clone now, or -1. `running` are task indices
/// running as one copy, earliest launched first.
pub fn satc_clone(st: &mut Application, job: i32, waiting: i32, idle: i32, running: &[i32]) -> Result<i32, Error> {
    let job = convert::job_id(job)?;
    let waiting = convert::count("waiting", waiting)?;
    let idle = convert::count("idle", idle)?;
    let running = running.iter().map(|&t| convert::count("running task index", t)).collect::<Result<Vec<_>, _>>()?;
    Ok(st.driver.satc_clone(job, waiting, idle, &running).map_or(-1, |t| t as i32))
}

#[cfg(test)]
mod tests {
    use super::*;
    use eagle_core::Class;

    #[test]
    fn clones_a_short_job_once_enabled_and_rejects_bad_arguments() {
        let mut st = crate::convert::tests::app(&crate::convert::tests::good()).unwrap();
        st.driver.add_node(0.0, 2);
        let j = st.driver.submit(0.0, 2, Some(Class::Short), Some(1.0), 1).0 as i32;
        assert_eq!(satc_clone(&mut st, j, 0, 1, &[0, 1]).unwrap(), -1, "off until enableSatc");
        st.driver.enable_satc();
        assert_eq!(satc_clone(&mut st, j, 0, 1, &[1, 0]).unwrap(), 1);
        assert_eq!(satc_clone(&mut st, j, 0, 1, &[1]).unwrap(), -1, "one clone per task");
        assert!(satc_clone(&mut st, j, 0, 1, &[-2]).unwrap_err().to_string().contains("running task index"));
        assert!(satc_clone(&mut st, j, -1, 1, &[0]).unwrap_err().to_string().contains("waiting"));
        assert!(satc_clone(&mut st, j, 0, -1, &[0]).unwrap_err().to_string().contains("idle"));
        assert!(satc_clone(&mut st, -1, 0, 1, &[0]).unwrap_err().to_string().contains("job id"));
    }

    #[test]
    fn ccdm_plans_a_short_job_once_enabled_and_rejects_bad_arguments() {
        let mut st = crate::convert::tests::app(&crate::convert::tests::good()).unwrap();
        let n0 = st.driver.add_node(0.0, 2).0 as i32;
        let j = st.driver.submit(0.0, 4, Some(Class::Short), Some(1.0), 1).0 as i32;
        let long = st.driver.submit(0.0, 4, Some(Class::Long), Some(100.0), 2).0 as i32;
        assert!(ccdm(&mut st, op::PROBE, &[j, 1, n0]).unwrap_err().to_string().contains("not enabled"));
        ccdm(&mut st, op::ENABLE, &[1, 2]).unwrap();
        assert_eq!(ccdm(&mut st, op::REGISTER, &[long, 0, -1, 1, -1]).unwrap(), vec![0], "long work is not migrated");
        assert!(ccdm(&mut st, op::REGISTER, &[j, 0, -1, 1]).unwrap_err().to_string().contains("pairs"));
        assert_eq!(ccdm(&mut st, op::REGISTER, &[j, 0, -1, 1, -1, 2, -1, 3, -1]).unwrap(), vec![1]);
        // One executor, 2 x 1 waiting: one probe, MPP 2 requests, CM 1 running.
        let started = ccdm(&mut st, op::PROBE, &[j, 1, n0]).unwrap();
        assert_eq!(started.len(), 4);
        assert_eq!(&started[..2], &[n0, j]);
        let t = started[2];
        let done = ccdm(&mut st, op::DONE, &[n0, j, t, 1]).unwrap();
        assert_eq!(done[0], 1, "kept");
        assert_eq!(done.len(), 5, "the queued request starts: {done:?}");
        assert_eq!(ccdm(&mut st, op::LAUNCHED, &[n0, j, t]).unwrap()[0], 1, "helped");
        assert_eq!(ccdm(&mut st, op::COUNTERS, &[]).unwrap()[5], 1);
        assert!(ccdm(&mut st, op::FORGET, &[j]).unwrap().chunks(2).all(|p| p[0] == n0));
        assert!(ccdm(&mut st, 99, &[]).unwrap_err().to_string().contains("unknown operation 99"));
        assert!(ccdm(&mut st, op::DONE, &[n0, j]).unwrap_err().to_string().contains("task"));
        assert!(ccdm(&mut st, op::LAUNCHED, &[n0, j, -1]).unwrap_err().to_string().contains("task index"));
        assert!(ccdm(&mut st, op::PROBE, &[j, 1, -3]).unwrap_err().to_string().contains("node id"));
    }
}
