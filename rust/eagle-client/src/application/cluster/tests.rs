//! The cluster side's parameters from the driver's own settings.

use super::params;
use crate::application::tests::settings_with;
use crate::application::Application;

/// `policy=paper` keeps the published client: a rejecting host is not probed again.
#[test]
fn rejections_are_retried_unless_the_driver_runs_the_paper_policy() {
    let params_of = |policy: &str| {
        let st = Application::new(settings_with(&[("policy", policy)])).unwrap();
        params(&st, "127.0.0.1:7100".into(), 7101, b"s".to_vec(), "app".into(), 900, true, true)
    };
    assert!(!params_of("paper").retry_rejected, "policy=paper");
    assert!(params_of("adaptive").retry_rejected, "policy=adaptive");
    assert!(!params_of("paper").affinity, "policy=paper probes as published");
    assert!(params_of("adaptive").affinity, "policy=adaptive");
}

/// `minProbes` and `probeRatio` reach the client (the ratio is not a constant 2 in cluster
/// mode, whatever the key says).
#[test]
fn the_probe_keys_reach_the_client() {
    let st = Application::new(settings_with(&[("minProbes", "3"), ("probeRatio", "1")])).unwrap();
    let p = params(&st, "127.0.0.1:7100".into(), 7101, b"s".to_vec(), "app".into(), 900, true, true);
    assert_eq!((p.min_probes, p.probe_ratio), (3, 1));
}
