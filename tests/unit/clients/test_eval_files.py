"""Dataset files read into cases: every grader kind in its short and long form, turns,
context and replays; what cannot be sent is refused naming the case and key."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from agentd.v1 import evals_pb2
from agentd_client.evals.files import DatasetFileError, case_from_data, dataset_from_data
from clients.evals_cli import read_dataset
from clients.options import OptionError

DATASET = """
name: support
description: the support agent's smoke set
cases:
  - id: refund-1
    input: Can I get a refund?
    context: {tier: gold}
    turns:
      - {role: user, content: Hi}
      - {role: assistant, content: Hello}
    graders:
      - exact: "Yes"
      - contains: refund
        name: says-refund
      - regex: "^Yes\\\\b"
      - json_schema: {type: object}
      - trajectory: [lookup, refund]
      - trajectory: {tools: [lookup], match: subset}
        name: looked-up
      - judge: Polite and correct.
      - judge: {rubric: Short., model: judge-model, pass_score: 0.8}
        name: short
      - ceiling: {max_tokens: 2000, max_cost_micros: 500, max_seconds: 30}
  - input: again
    from_task: task-123
    graders: [{exact: "x"}]
"""


def test_a_yaml_dataset_holds_every_grader_kind() -> None:
    dataset = dataset_from_data(yaml.safe_load(DATASET), "file")
    assert (dataset.name, dataset.description) == ("support", "the support agent's smoke set")
    first, second = dataset.cases
    assert first.case_id == "refund-1"
    assert first.context.fields["tier"].string_value == "gold"
    assert [(t.role, t.content) for t in first.turns] == [("user", "Hi"), ("assistant", "Hello")]
    kinds = [g.WhichOneof("kind") for g in first.graders]
    assert kinds == [
        *("exact", "contains", "regex", "json_schema"),
        *("trajectory", "trajectory", "judge", "judge", "ceiling"),
    ]
    graders = first.graders
    assert graders[1].name == "says-refund"
    assert graders[2].regex == r"^Yes\b"
    assert list(graders[4].trajectory.tools) == ["lookup", "refund"]
    assert graders[4].trajectory.match == evals_pb2.TRAJECTORY_MATCH_IN_ORDER
    assert graders[5].trajectory.match == evals_pb2.TRAJECTORY_MATCH_SUBSET
    assert graders[6].judge.rubric == "Polite and correct."
    assert (graders[7].judge.model, graders[7].judge.pass_score) == ("judge-model", 0.8)
    ceiling = graders[8].ceiling
    assert (ceiling.max_tokens, ceiling.max_cost_micros) == (2000, 500)
    assert ceiling.max_duration.seconds == 30
    assert (second.case_id, second.from_task_id) == ("", "task-123")


def test_a_list_is_a_dataset_named_after_its_file() -> None:
    dataset = dataset_from_data([{"input": "hi", "graders": [{"contains": "h"}]}], "smoke")
    assert dataset.name == "smoke"
    assert len(dataset.cases) == 1


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ({"id": "a", "inptu": "x"}, "case 1 (a): unknown keys: inptu"),
        ({"graders": [{"exact": "x", "regex": "y"}]}, "case 1, grader 1: a grader has one of"),
        ({"graders": [{"trajectory": {"tools": [], "match": "sorted"}}]}, "match is one of"),
        ({"graders": [{"ceiling": {"max_tokens": -1}}]}, "max_tokens is a number, 0 or more"),
        ({"turns": ["hi"]}, "a turn is {role, content}"),
    ],
)
def test_what_cannot_be_sent_is_refused_naming_the_case(case: object, message: str) -> None:
    with pytest.raises(DatasetFileError, match=re.escape(message)):
        case_from_data(case, "case 1")


def test_files_are_yaml_or_jsonl(tmp_path: Path) -> None:
    folder = tmp_path
    jsonl = folder / "cases.jsonl"
    jsonl.write_text('{"id": "a", "input": "x", "graders": [{"exact": "y"}]}\n\n{"input": "z"}\n')
    assert [c.case_id for c in read_dataset(jsonl).cases] == ["a", ""]
    broken = folder / "broken.jsonl"
    broken.write_text('{"input": "x"}\n{"input": \n')
    with pytest.raises(OptionError, match=r"broken\.jsonl"):
        read_dataset(broken)
    with pytest.raises(OptionError, match=r"a \.yaml, \.yml or \.jsonl file"):
        read_dataset(folder / "cases.csv")
