//! Safe half of the Eirene calls (`enableSatc`, `satcClone`): argument decoding and the
//! call into the driver's SATC gate ([`eagle_core::eirene::clone_gate`]). No JVM here.

use crate::state::{self, State};

/// `satcClone`: the Spark task index to clone now, or -1. `running` are task indices
/// running as one copy, earliest launched first.
pub fn satc_clone(st: &mut State, job: i32, waiting: i32, idle: i32, running: &[i32]) -> Result<i32, String> {
    let job = state::job_id(job)?;
    let waiting = state::count("waiting", waiting)?;
    let idle = state::count("idle", idle)?;
    let running = running
        .iter()
        .map(|&t| u32::try_from(t).map_err(|_| format!("running task index must be >= 0, got {t}")))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(st.driver.satc_clone(job, waiting, idle, &running).map_or(-1, |t| t as i32))
}

#[cfg(test)]
mod tests {
    use super::*;
    use eagle_core::Class;

    #[test]
    fn clones_a_short_job_once_enabled_and_rejects_bad_arguments() {
        let mut st = State::new(&crate::state::tests::good()).unwrap();
        st.driver.add_node(0.0, 2);
        let j = st.driver.submit(0.0, 2, Some(Class::Short), Some(1.0), 1).0 as i32;
        assert_eq!(satc_clone(&mut st, j, 0, 1, &[0, 1]).unwrap(), -1, "off until enableSatc");
        st.driver.enable_satc();
        assert_eq!(satc_clone(&mut st, j, 0, 1, &[1, 0]).unwrap(), 1);
        assert_eq!(satc_clone(&mut st, j, 0, 1, &[1]).unwrap(), -1, "one clone per task");
        assert!(satc_clone(&mut st, j, 0, 1, &[-2]).unwrap_err().contains("running task index"));
        assert!(satc_clone(&mut st, j, -1, 1, &[0]).unwrap_err().contains("waiting"));
        assert!(satc_clone(&mut st, j, 0, -1, &[0]).unwrap_err().contains("idle"));
        assert!(satc_clone(&mut st, -1, 0, 1, &[0]).unwrap_err().contains("job id"));
    }
}
