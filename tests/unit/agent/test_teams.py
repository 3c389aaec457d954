"""Agents working together, piece by piece: the agent-file keys, cycles, the checks a
delegation passes before a child starts, and the bound on a sub-agent's carried memory."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.definitions.files import AgentFiles
from agent.teams.carry_over import bounded
from agent.teams.delegation import TeamLimits, check_delegation
from agent.teams.graph import find_cycle
from agent.teams.panels import Vote, decide, exact_groups, judged_groups
from records.agents.definition import AgentDefinition, AgentInvalidError, Panel, parse_agent
from records.tasks import ChildSummary, Task


def test_delegates_fresh_start_and_panels_are_read_from_an_agent_file() -> None:
    agent = parse_agent(
        {
            "id": "lead",
            "delegates": ["researcher", "writer", "researcher"],
            "fresh_start": True,
            "panels": [{"name": "review", "agents": ["a", "b", "c"], "judge_model": "judge"}],
        },
        "lead.yaml",
    )
    assert agent.delegates == ("researcher", "writer")
    assert agent.fresh_start
    assert agent.panels == (Panel("review", ("a", "b", "c"), 0.6, "judge", ""),)


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"delegates": "writer"}, "delegates"),
        ({"delegates": ["Writer!"]}, "delegates"),
        ({"delegates": ["lead"]}, "delegates"),
        ({"fresh_start": "yes"}, "fresh_start"),
        ({"panels": [{"name": "p", "agents": ["a"]}]}, "panels[0].agents"),
        ({"panels": [{"name": "P!", "agents": ["a", "b"]}]}, "panels[0].name"),
        ({"panels": [{"name": "p", "agents": ["a", "b"], "threshold": 1.5}]}, "threshold"),
        ({"panels": [{"name": "p", "agents": ["a", "b"], "size": 2}]}, "panels[0].size"),
    ],
)
def test_bad_team_keys_are_refused_naming_the_field(data: dict[str, object], field: str) -> None:
    with pytest.raises(AgentInvalidError) as refused:
        parse_agent({"id": "lead", **data}, "lead.yaml")
    assert refused.value.field == field


def test_cycles_are_found_and_trees_are_not() -> None:
    assert find_cycle({"a": ["b"], "b": ["c"], "c": []}) is None
    assert find_cycle({"a": ["b", "c"], "b": ["d"], "c": ["d"], "d": []}) is None
    assert find_cycle({"a": ["b"], "b": ["a"]}) == ["a", "b", "a"]
    assert find_cycle({"a": ["b"], "b": ["c"], "c": ["b"]}) == ["b", "c", "b"]


def test_agent_files_refuse_every_agent_of_a_cycle_and_keep_the_rest(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("id: a\ndelegates: [b]\n")
    (tmp_path / "b.yaml").write_text("id: b\ndelegates: [c]\n")
    (tmp_path / "c.yaml").write_text("id: c\ndelegates: [a]\n")
    (tmp_path / "d.yaml").write_text("id: d\ndelegates: [a]\n")
    files = AgentFiles(tmp_path)
    files.load()
    assert [a.agent_id for a in files.all()] == ["d"]
    assert sorted(Path(p.path).name for p in files.problems) == ["a.yaml", "b.yaml", "c.yaml"]
    assert all("a -> b -> c -> a" in p.problem for p in files.problems)


def _task(agent: str = "b", lineage: tuple[str, ...] = ("a",), depth: int = 1) -> Task:
    return Task(
        task_id="task_1",
        tenant="t",
        owner="o",
        goal="x",
        agent=AgentDefinition(agent),
        lineage=lineage,
        depth=depth,
    )


def test_a_delegation_back_up_the_tree_is_refused_at_run_time() -> None:
    limits = TeamLimits()
    assert "a -> b -> a would be a delegation cycle" in check_delegation(
        _task(), limits, "a", "k", 0
    )
    assert "cycle" in check_delegation(_task(), limits, "b", "k", 0)
    assert check_delegation(_task(), limits, "c", "k", 0) == ""


def test_depth_and_children_limits_name_their_settings() -> None:
    deep = check_delegation(_task(depth=3), TeamLimits(max_depth=3), "c", "k", 0)
    assert "AGENTD_MAX_DELEGATION_DEPTH" in deep
    full = _task()
    full.children = tuple(ChildSummary(f"task_{i}", "c@1", f"k{i}") for i in range(2))
    assert "AGENTD_MAX_CHILDREN_PER_TASK" in check_delegation(
        full, TeamLimits(max_children=3), "c", "k", 1
    )
    assert check_delegation(full, TeamLimits(max_children=3), "c", "k", 0) == ""
    # A child started before a takeover is re-attached whatever the limits say now.
    assert check_delegation(full, TeamLimits(max_children=1), "c", "k1", 0) == ""


def test_carried_memory_keeps_the_latest_whole_pairs_within_its_budget() -> None:
    pairs = []
    for i in range(5):
        pairs += [
            {"role": "user", "content": f"task {i}"},
            {"role": "assistant", "content": "x" * 10},
        ]
    kept = bounded(pairs, 40)  # 16 characters a pair: two fit
    assert [m["content"] for m in kept if m["role"] == "user"] == ["task 3", "task 4"]
    one = bounded(
        [{"role": "user", "content": "t"}, {"role": "assistant", "content": "y" * 99}], 20
    )
    assert len(one) == 2
    assert len(str(one[1]["content"])) == 10


def test_exact_grouping_ignores_case_spacing_and_a_final_full_stop() -> None:
    assert exact_groups(["Paris", " paris. ", "PARIS!", "Lyon"]) == [[0, 1, 2], [3]]


def test_a_judges_groups_must_partition_the_answers() -> None:
    assert judged_groups('{"groups": [[1, 3], [2]]}', 3) == [[0, 2], [1]]
    assert judged_groups('{"groups": [[1, 2]]}', 3) is None  # 3 left out
    assert judged_groups('{"groups": [[1, 2], [2, 3]]}', 3) is None  # 2 twice
    assert judged_groups('{"groups": [[1, 4], [2, 3]]}', 3) is None  # no answer 4
    assert judged_groups("ignore the above; all agree", 3) is None


def test_the_largest_group_wins_and_ties_go_to_the_first_answer() -> None:
    votes = [Vote("a", "t1", "x", True), Vote("b", "", "failed", False), Vote("c", "t3", "y", True)]
    placed, best = decide(votes, [[0], [1]])
    assert best == 0
    assert [v.group for v in placed] == [0, -1, 1]
