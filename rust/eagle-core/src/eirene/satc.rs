//! The scheduler's Per-Job Task Status Table (TST, Eirene §III-B Table III) with the
//! "cloned task status" column of Scheduler-Aware Task Cloning (§III-C).
//!
//! A short job's table answers the three questions of the paper's scheduler:
//!
//! - which not-started task to hand out (CCDM prefers one whose input the asking node
//!   has migrated, otherwise any; [`Table::next_not_started`]);
//! - once every primary copy has started, which running task to clone: one with no
//!   clone yet, at most one clone per task ([`Table::clone_candidates`]);
//! - when a copy ends, whether it is the first (the task completes, the other copy is
//!   cancelled) or the second (its result is ignored) ([`Table::copy_ended`]).

use crate::types::NodeId;
use std::collections::VecDeque;

/// A task's clone column.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CloneState {
    /// Never cloned; may be, while its primary runs.
    None,
    /// A clone runs on this node.
    Running(NodeId),
    /// The clone ended (won, lost or was cancelled): the task is never cloned again.
    Ended,
}

/// A task's status column.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TaskState {
    NotStarted,
    /// The primary copy runs on `primary`; `clone` is the clone column.
    Running {
        primary: NodeId,
        clone: CloneState,
    },
    Completed,
}

/// What a copy's end means for the job.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CopyEnd {
    /// The first copy to end: the task completes. `cancel` is the other copy's node,
    /// if one still runs; `clone_won` tells whether the first copy was the clone.
    First { cancel: Option<NodeId>, clone_won: bool },
    /// The other copy ended (it was cancelled, or finished in the same instant).
    Second,
    /// Not a copy this table knows (a stale report).
    Unknown,
}

/// One short job's TST.
#[derive(Clone, Debug)]
pub struct Table {
    tasks: Vec<TaskState>,
    /// Lowest index that may still be not started.
    cursor: u32,
    not_started: u32,
    completed: u32,
    /// Running tasks with no clone, in start order (lazily pruned).
    uncloned: VecDeque<u32>,
    uncloned_count: u32,
}

impl Table {
    pub fn new(tasks: u32) -> Table {
        Table {
            tasks: vec![TaskState::NotStarted; tasks as usize],
            cursor: 0,
            not_started: tasks,
            completed: 0,
            uncloned: VecDeque::new(),
            uncloned_count: 0,
        }
    }

    pub fn len(&self) -> u32 {
        self.tasks.len() as u32
    }
    pub fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }
    pub fn state(&self, task: u32) -> Option<TaskState> {
        self.tasks.get(task as usize).copied()
    }
    pub fn not_started(&self) -> u32 {
        self.not_started
    }
    /// Every task completed.
    pub fn done(&self) -> bool {
        self.completed == self.len()
    }
    /// Some task runs without a clone (SATC could clone it).
    pub fn cloneable(&self) -> bool {
        self.uncloned_count > 0
    }
    pub fn is_not_started(&self, task: u32) -> bool {
        self.state(task) == Some(TaskState::NotStarted)
    }

    /// The lowest-numbered not-started task other than those `skip` rejects.
    pub fn next_not_started(&mut self, mut skip: impl FnMut(u32) -> bool) -> Option<u32> {
        while (self.cursor as usize) < self.tasks.len() && self.tasks[self.cursor as usize] != TaskState::NotStarted {
            self.cursor += 1;
        }
        (self.cursor..self.len()).find(|&t| self.tasks[t as usize] == TaskState::NotStarted && !skip(t))
    }

    /// The primary copy of `task` starts on `node`.
    pub fn start(&mut self, task: u32, node: NodeId) {
        debug_assert!(self.is_not_started(task), "task {task} started twice");
        self.tasks[task as usize] = TaskState::Running { primary: node, clone: CloneState::None };
        self.not_started -= 1;
        self.uncloned.push_back(task);
        self.uncloned_count += 1;
    }

    /// Whether `task` runs with no clone, on a node other than `node`.
    pub fn clonable_for(&self, task: u32, node: NodeId) -> bool {
        matches!(self.state(task), Some(TaskState::Running { primary, clone: CloneState::None }) if primary != node)
    }

    /// SATC's pick for `node`, once every primary has started: a running task with no
    /// clone whose primary runs elsewhere, the first `prefer` accepts if any (the node
    /// holds its migrated input), else the earliest started.
    pub fn clone_candidates(&mut self, node: NodeId, prefer: &[u32]) -> Option<u32> {
        if self.not_started > 0 || self.uncloned_count == 0 {
            return None;
        }
        if let Some(&t) = prefer.iter().find(|&&t| self.clonable_for(t, node)) {
            return Some(t);
        }
        // Drop entries that were cloned or completed since they were queued.
        while let Some(&t) = self.uncloned.front() {
            if matches!(self.state(t), Some(TaskState::Running { clone: CloneState::None, .. })) {
                break;
            }
            self.uncloned.pop_front();
        }
        self.uncloned.iter().copied().find(|&t| self.clonable_for(t, node))
    }

    /// A clone of `task` starts on `node`. Panics in debug builds on a second clone.
    pub fn start_clone(&mut self, task: u32, node: NodeId) {
        match &mut self.tasks[task as usize] {
            TaskState::Running { clone, .. } if *clone == CloneState::None => {
                *clone = CloneState::Running(node);
                self.uncloned_count -= 1;
            }
            s => debug_assert!(false, "clone of task {task} in state {s:?}"),
        }
    }

    /// A copy of `task` ended on `node`.
    pub fn copy_ended(&mut self, task: u32, node: NodeId) -> CopyEnd {
        let Some(state) = self.state(task) else { return CopyEnd::Unknown };
        match state {
            TaskState::Running { primary, clone } => {
                let clone_node = match clone {
                    CloneState::Running(n) => Some(n),
                    _ => None,
                };
                let (cancel, clone_won) = if clone_node == Some(node) && primary != node {
                    (Some(primary), true)
                } else if primary == node {
                    (clone_node, false)
                } else {
                    return CopyEnd::Unknown;
                };
                if clone == CloneState::None {
                    self.uncloned_count -= 1;
                }
                self.tasks[task as usize] = TaskState::Completed;
                self.completed += 1;
                CopyEnd::First { cancel, clone_won }
            }
            TaskState::Completed => CopyEnd::Second,
            TaskState::NotStarted => CopyEnd::Unknown,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: NodeId = NodeId(1);
    const B: NodeId = NodeId(2);
    const C: NodeId = NodeId(3);

    #[test]
    fn no_clone_while_a_task_has_not_started() {
        let mut t = Table::new(2);
        t.start(0, A);
        assert_eq!(t.clone_candidates(B, &[]), None);
        t.start(1, B);
        assert_eq!(t.clone_candidates(C, &[]), Some(0));
    }

    #[test]
    fn at_most_one_clone_per_task() {
        let mut t = Table::new(2);
        t.start(0, A);
        t.start(1, B);
        let first = t.clone_candidates(C, &[]).unwrap();
        t.start_clone(first, C);
        let second = t.clone_candidates(C, &[]).unwrap();
        assert_ne!(first, second);
        t.start_clone(second, if second == 0 { B } else { A });
        assert_eq!(t.clone_candidates(NodeId(9), &[]), None);
        assert!(!t.cloneable());
        // Ending a clone does not make its task cloneable again.
        assert_eq!(t.copy_ended(first, C), CopyEnd::First { cancel: Some(A), clone_won: true });
        assert_eq!(t.clone_candidates(NodeId(9), &[]), None);
    }

    #[test]
    fn a_clone_never_goes_to_its_primarys_node_and_prefers_migrated_input() {
        let mut t = Table::new(3);
        t.start(0, A);
        t.start(1, B);
        t.start(2, C);
        // Node A: task 0 runs there; the earliest other is 1.
        assert_eq!(t.clone_candidates(A, &[]), Some(1));
        // Node A holds task 2's input: that one is preferred.
        assert_eq!(t.clone_candidates(A, &[0, 2]), Some(2));
    }

    #[test]
    fn the_first_copy_to_end_wins_and_cancels_the_other() {
        let mut t = Table::new(1);
        t.start(0, A);
        t.start_clone(0, B);
        assert_eq!(t.copy_ended(0, A), CopyEnd::First { cancel: Some(B), clone_won: false });
        assert_eq!(t.copy_ended(0, B), CopyEnd::Second);
        assert!(t.done());
        // Without a clone, the end completes the task with nothing to cancel.
        let mut t = Table::new(1);
        t.start(0, A);
        assert_eq!(t.copy_ended(0, C), CopyEnd::Unknown);
        assert_eq!(t.copy_ended(0, A), CopyEnd::First { cancel: None, clone_won: false });
        assert!(!t.cloneable());
    }

    #[test]
    fn not_started_tasks_come_lowest_first_with_skips() {
        let mut t = Table::new(4);
        t.start(1, A);
        assert_eq!(t.next_not_started(|_| false), Some(0));
        t.start(0, A);
        assert_eq!(t.next_not_started(|_| false), Some(2));
        assert_eq!(t.next_not_started(|x| x == 2), Some(3));
        assert_eq!(t.not_started(), 2);
    }
}
