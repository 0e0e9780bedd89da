"""No library error names a CLI flag: a refusal names settings, and each surface words them.

A Python caller of ``BM25Index.build(overwrite=False)`` was told to "pass --overwrite". The
library now raises :class:`searchain.errors.Worded` refusals; ``str()`` is the Python wording,
the CLI's one line (:func:`searchain.cli.common.first_line`) the flags'.
"""

from __future__ import annotations

import ast
import pickle
import re

import pytest
import typer.main
from hypothesis import given
from hypothesis import strategies as st

from searchain.cli.app import app
from searchain.cli.words import FLAGS, cli_words
from searchain.errors import PYTHON, SettingError, TargetExists, Worded, python_words
from searchain.tools.retrieval import embedded
from tests.conftest import ROOT, cli_line

FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*|`searchain [a-z]+")
"""A flag or a searchain command, as a message would name one."""


def commands() -> re.Pattern[str]:
    """A command of the CLI named in words (``run searchain calibrate``); "searchain index" is
    also what an index is called, so only with a flag."""
    names = sorted(getattr(typer.main.get_command(app), "commands", {}))
    assert {"ask", "eval", "calibrate", "index"} <= set(names)
    others = "|".join(n for n in names if n != "index")
    return re.compile(rf"\bsearchain (?:{others})\b|\bsearchain index -")


def cli_options() -> set[str]:
    """Every ``--option`` some command of the CLI takes."""
    command = typer.main.get_command(app)
    found: set[str] = set()
    for sub in getattr(command, "commands", {}).values():
        for param in sub.params:
            found.update(o for o in param.opts if o.startswith("--"))
    return found


def library_modules() -> dict[str, ast.Module]:
    """searchain's modules but the CLI's own (which speaks in flags by right)."""
    return {
        str(path.relative_to(ROOT)): ast.parse(path.read_text(encoding="utf-8"))
        for path in sorted((ROOT / "searchain").rglob("*.py"))
        if "cli" not in path.relative_to(ROOT).parts
    }


def raised_texts(tree: ast.Module) -> list[str]:
    """The string constants of every ``raise`` and every function that returns an error."""
    texts = []
    for node in ast.walk(tree):
        returns_error = isinstance(node, ast.FunctionDef) and re.search(
            r"Error|Exists|Refusal", ast.unparse(node.returns) if node.returns else ""
        )
        if isinstance(node, ast.Raise) or returns_error:
            texts += [
                c.value
                for c in ast.walk(node)
                if isinstance(c, ast.Constant) and isinstance(c.value, str)
            ]
    return texts


def named_settings() -> dict[str, str]:
    """Each setting a refusal names (``settings=(...)``), with the module naming it first."""
    named: dict[str, str] = {}
    for where, tree in library_modules().items():
        for node in ast.walk(tree):
            if isinstance(node, ast.keyword) and node.arg == "settings":
                for element in getattr(node.value, "elts", []):
                    if isinstance(element, ast.Constant):
                        named.setdefault(element.value, where)
    return named


def test_no_library_error_names_a_flag_or_a_command_of_the_cli():
    options = cli_options()
    assert {"--overwrite", "--db", "--es-url"} <= options  # the options are read
    found = [
        f"{where}: {text!r}"
        for where, tree in library_modules().items()
        for text in raised_texts(tree)
        for flag in FLAG.findall(text)
        if flag in options or flag.startswith("`searchain")
    ]
    assert found == []
    named = commands()
    in_words = [
        f"{where}: {text!r}"
        for where, tree in library_modules().items()
        for text in raised_texts(tree)
        if named.search(text)
    ]
    assert in_words == []
    assert named.search("run searchain calibrate again") and not named.search("a searchain index")
    planted = ast.parse('def f() -> ValueError:\n    return ValueError(f"pass --db {x}")')
    assert raised_texts(planted) == ["pass --db "]
    assert raised_texts(ast.parse('raise TargetExists("see `searchain threads`")')) != []


def test_every_setting_a_refusal_names_is_a_flag_or_worded_on_both_surfaces():
    options = cli_options()
    named = named_settings()
    assert {"overwrite", "db", "k", "build"} <= set(named)
    unworded = [
        f"{name} ({where})"
        for name, where in sorted(named.items())
        if name not in FLAGS and cli_words(name) not in options
    ]
    assert unworded == []
    assert set(FLAGS) <= set(named) and set(PYTHON) <= set(named)  # no word for nothing
    assert set(FLAGS) - set(PYTHON) <= {
        n for n in FLAGS if cli_words(n).startswith(("--", "a", "SEARCHAIN_"))
    }


def test_a_refusal_says_python_to_python_and_flags_to_the_cli(tmp_path):
    from searchain.types import Passage

    embedded.build([Passage("a", "", "giotto")], tmp_path / "index")
    with pytest.raises(TargetExists) as refused:
        embedded.build([Passage("a", "", "giotto")], tmp_path / "index")
    assert (
        str(refused.value)
        == f"{tmp_path / 'index'} already exists: pass overwrite=True to replace it"
    )
    assert cli_line(refused.value) == (
        f"{tmp_path / 'index'} already exists: pass --overwrite to replace it"
    )
    assert isinstance(refused.value, FileExistsError)  # what callers caught before still catches


def test_a_refusal_keeps_its_settings_through_a_pickle():
    """A build worker's refusal crosses a process boundary and is still worded by setting."""
    refusal = SettingError("{k} must be at most {most}", settings=("k",), most=50)
    again = pickle.loads(pickle.dumps(refusal))
    assert type(again) is SettingError and str(again) == "k must be at most 50"
    assert again.worded(cli_words) == "--k must be at most 50"


def test_a_plain_message_keeps_its_braces():
    assert str(SettingError('give {"id", "text"} a line')) == 'give {"id", "text"} a line'


@given(st.text(), st.sampled_from(sorted(named_settings())))
def test_a_fact_is_shown_as_it_is_whatever_it_holds(fact, setting):
    """A path holding braces or a setting's own name is a fact, never a field to fill."""
    refusal = Worded("{path}: {" + setting + "}", settings=(setting,), path=fact, name="n")
    shown = python_words(setting).format(path=fact, name="n")
    assert str(refusal) == f"{fact}: {shown}"
    assert refusal.worded(cli_words).startswith(f"{fact}: ")


def test_a_fact_named_as_a_setting_or_a_fact_the_wording_lacks_never_replaces_the_refusal():
    """Neighbours of a template's fields: a fact with a setting's name, a fact a wording needs
    but was not given, a format spec on a fact."""
    clash = SettingError("write to another {out}", settings=("out",), out="/tmp/r.jsonl")
    assert str(clash) == "write to another out" and clash.worded(cli_words).endswith("--out")
    lacking = SettingError("rebuild it with {build}", settings=("build",))
    assert (
        str(lacking) == "rebuild it with searchain.tools.retrieval.embedded.build(passages, PATH)"
    )
    assert (
        lacking.worded(cli_words) == "rebuild it with `searchain index CORPUS.jsonl --index PATH`"
    )
    assert str(SettingError("{free:.1f} GiB", free=2.25)) == "2.2 GiB"


def clashes(tree: ast.Module) -> list[str]:
    """Each call whose ``settings=(...)`` names a field it also passes as a fact."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        given = {k.arg: k.value for k in node.keywords if k.arg}
        named = {getattr(e, "value", None) for e in getattr(given.get("settings"), "elts", [])}
        found += [f"line {node.lineno}: {name}" for name in sorted(named & set(given))]
    return found


def test_no_refusal_gives_a_fact_the_name_of_a_setting_it_names():
    """A fact named as a setting is shown as the setting: "thread '--thread' is busy"."""
    found = [f"{where}, {c}" for where, tree in library_modules().items() for c in clashes(tree)]
    assert found == []
    planted = ast.parse('SettingError("{thread} busy", settings=("thread",), thread=t)')
    assert clashes(planted) == ["line 1: thread"]


def test_a_busy_thread_is_named_as_it_is():
    from searchain.threads import busy

    refusal = busy("shared")
    assert str(refusal).startswith("thread 'shared' is busy")
    assert cli_line(refusal).startswith("thread 'shared' is busy")
    assert cli_line(refusal).endswith("or pass another --thread")
