//! The cluster side's pure helpers.

use super::input_hosts;

/// The central hears where a long task set's input is by host: tasks per host, at most all.
#[test]
fn input_hosts_count_the_tasks_reading_on_each_host() {
    use eagle_core::NodeId;
    use std::collections::HashMap;
    let host_of: HashMap<NodeId, String> = [(NodeId(0), "w1"), (NodeId(1), "w1"), (NodeId(2), "w2")]
        .into_iter()
        .map(|(n, h)| (n, h.to_string()))
        .collect();
    // Width 2: two entries a task. Three tasks on executor 0, one on 2, one on an unknown 9.
    let input = [0, 0, 0, 0, 0, 0, 2, 2, 9, 9].map(NodeId);
    assert_eq!(input_hosts(&input, &host_of, 2, 5), vec![("w1".to_string(), 3), ("w2".to_string(), 1)]);
    // Never more than the task set's tasks; none when nothing is known.
    assert_eq!(input_hosts(&[NodeId(0); 8], &host_of, 1, 3), vec![("w1".to_string(), 3)]);
    assert!(input_hosts(&[NodeId(9)], &host_of, 1, 3).is_empty());
}
