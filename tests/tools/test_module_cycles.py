"""tools/module_cycles.py: the import cycles between a crate's modules, on small crates made
here, and none in rust/ (the check scripts/test.sh runs)."""
import os

from tools import module_cycles

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def crate(tmp_path, files):
    src = tmp_path / "ws" / "demo" / "src"
    for name, text in files.items():
        p = src / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return str(tmp_path / "ws")


def test_two_modules_naming_each_other_are_a_cycle_with_their_evidence(tmp_path):
    ws = crate(tmp_path, {
        "lib.rs": "pub mod state;\npub mod placement;\n",
        "state.rs": "use crate::placement::Candidate;\npub type HostId = u32;\n",
        "placement.rs": "use crate::state::HostId;\npub struct Candidate;\n",
    })
    lines = module_cycles.check(ws)
    assert lines[0] == "demo: cycle between placement, state", lines
    assert "  placement -> state (placement.rs: crate::state::HostId)" in lines
    assert "  state -> placement (state.rs: crate::placement::Candidate)" in lines
    assert module_cycles.main([ws]) == 1


def test_a_cycle_through_a_submodule_counts_between_the_top_modules(tmp_path):
    ws = crate(tmp_path, {
        "lib.rs": "pub mod cluster;\npub mod eirene;\n",
        "cluster.rs": "pub struct C { pub e: Option<crate::eirene::plan::E> }\n",
        "eirene/mod.rs": "pub mod plan;\n",
        "eirene/plan.rs": "use super::super::cluster::C;\npub struct E;\n",
    })
    assert module_cycles.check(ws)[0] == "demo: cycle between cluster, eirene"


def test_a_use_group_names_each_of_its_modules(tmp_path):
    ws = crate(tmp_path, {
        "lib.rs": "pub mod a;\npub mod b;\npub mod c;\n",
        "a.rs": "use crate::{b::X, c};\n",
        "b.rs": "pub struct X;\n",
        "c.rs": "use crate::a;\n",
    })
    assert module_cycles.check(ws)[0] == "demo: cycle between a, c"


def test_containment_comments_and_tests_are_not_dependencies(tmp_path):
    ws = crate(tmp_path, {
        "lib.rs": "pub mod state;\npub mod other;\n",
        # a parent and its child naming each other: containment
        "state.rs": "mod admission;\npub struct NodeState;\nfn f() { admission::g() }\n",
        "state/admission.rs": "use super::NodeState;\npub fn g() {}\n",
        # a doc link, a comment and a test module naming `state`
        "other.rs": "//! See [`crate::state::NodeState`].\n// crate::state::NodeState\n"
                    "pub fn o() {}\n#[cfg(test)]\nmod tests {\n    use crate::state::NodeState;\n}\n",
        # `state` naming `other` is then one way only
    })
    with open(os.path.join(ws, "demo", "src", "state.rs"), "a") as f:
        f.write("fn h() { crate::other::o() }\n")
    assert module_cycles.check(ws) == []
    assert module_cycles.main([ws]) == 0


def test_a_test_only_file_module_is_left_out(tmp_path):
    ws = crate(tmp_path, {
        "lib.rs": "pub mod cluster;\npub mod state;\n",
        "cluster.rs": "pub struct Side;\n#[cfg(test)]\nmod tests;\n",
        "cluster/tests.rs": "use crate::state::State;\n",
        "state.rs": "pub struct State { pub s: crate::cluster::Side }\n",
    })
    assert module_cycles.check(ws) == []


def test_a_missing_folder_is_named(tmp_path, capsys):
    assert module_cycles.main([str(tmp_path / "nowhere")]) == 2
    assert "nowhere" in capsys.readouterr().err


def test_the_workspace_has_no_cycle():
    assert module_cycles.check(os.path.join(ROOT, "rust")) == []
