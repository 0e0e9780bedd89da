"""The spec-flow measure (``tests/spec_flow.py``) on a package small enough to count by hand."""

from __future__ import annotations

from pathlib import Path

from tests.spec_flow import Package, climbs, spec_flow

EVAL = """
from searchain.tools.models import resolve
from searchain.eval import data


def entrance(spec, root):
    name = spec.model
    model = resolve(name)          # a room (tools), the spec's model name
    rows = data.load(root, spec.split)  # a climb back to eval
    other = resolve(model)         # the model, not the spec: no room
    name = "fixed"
    resolve(name)                  # reassigned on every path: no room
    if spec.fast:
        name = spec.other
    return rows
"""
DATA = """
def load(root, split):
    return helper(split)


def helper(part):
    return part
"""
TOOLS = """
def resolve(name, **options):
    return name
"""


def write(root: Path) -> None:
    for path, text in {
        "searchain/__init__.py": "",
        "searchain/eval/__init__.py": "",
        "searchain/eval/setup.py": EVAL,
        "searchain/eval/data.py": DATA,
        "searchain/tools/__init__.py": "",
        "searchain/tools/models.py": TOOLS,
    }.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)


def test_the_spec_and_its_parts_are_followed_and_climbs_counted(tmp_path, monkeypatch):
    write(tmp_path)
    monkeypatch.setattr("tests.spec_flow.ROOT", tmp_path)
    monkeypatch.setattr("tests.unit.test_architecture.ROOT", tmp_path)
    rooms = spec_flow(Package(tmp_path), ("searchain.eval.setup", "entrance", "spec"))
    assert [(r.module, r.function) for r in rooms] == [
        ("searchain.eval.setup", "entrance"),
        ("searchain.tools.models", "resolve"),
        ("searchain.eval.data", "load"),
        ("searchain.eval.data", "helper"),
    ]
    assert climbs(rooms) == 1


def test_the_project_is_measured_from_its_entrance():
    rooms = spec_flow()
    assert rooms[0].function == "eval_context"
    assert len(rooms) > 1
