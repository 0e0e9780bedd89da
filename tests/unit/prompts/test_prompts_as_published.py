"""Each task's Chain-of-Query prompt is its figure in Xu et al. (WWW 2024), word for word.

The figures' text is read from ``../shared/paper/searchain-appendix-prompts.txt`` (the PDF's text
layer; ``SEARCHAIN_PAPER_DIR`` elsewhere). Its line breaks are the page's and some words are split
by a stray space, so the comparison ignores whitespace; the one repair that is not whitespace
is listed in ``REPAIRS``, and ``SPLIT`` lists the split words the templates must have whole.
"""

from __future__ import annotations

import os
import re
from functools import cache
from pathlib import Path

import pytest

from searchain.context import Context
from searchain.prompts import CHAIN_STOP, task_prompt
from tests.conftest import ROOT, require

FIGURE = {"qa": 11, "yesno": 10, "factcheck": 9, "longform": 12, "no_ir": 8}
"""The figure each built-in task's template is (slot filling uses QA's, as the paper did)."""
REPAIRS = {10: [("greaterthang/cm^3", "greaterthan1g/cm^3", 2)]}
"""Text the text layer lost, by figure, as (lost, repaired, times) on the text without whitespace:
Fig. 10's pear demonstration compares with "1 g/cm^3" (its own [Answer 2]); the "1" is gone
from its third query and its final content."""
SPLIT = (
    "base d",
    "tr ail",
    "c older",
    "drople ts",
    "mi x",
    "condens es",
    "r elease",
    "pric e",
    "f inal",
    "t han",
    "co -found",
    "English -language",
    "English- language",
    "Spanish- language",
    "theair",
    "theKarmapa",
)
"""Words the text layer split or joined; every one is whole in the templates."""


@cache
def figures() -> dict[int, str]:
    """Every "Construct a global reasoning chain" figure of the appendix, by figure number."""
    root = Path(os.environ.get("SEARCHAIN_PAPER_DIR") or ROOT.parent / "shared" / "paper")
    path = root / "searchain-appendix-prompts.txt"
    require(path.is_file(), f"the paper's text is not at {path}: set SEARCHAIN_PAPER_DIR")
    text = path.read_text(encoding="utf-8")
    found = {}
    for start in re.finditer("Construct a global reasoning chain", text):
        caption = re.compile(r"Figure (\d+):").search(text, start.start())
        assert caption is not None
        end = min(caption.start(), text.find("Node 1", start.start()) % len(text))
        found[int(caption.group(1))] = text[start.start() : end]
    assert sorted(found) == [3, 8, 9, 10, 11, 12]
    return found


def squeeze(text: str) -> str:
    return re.sub(r"\s+", "", text)


@pytest.mark.parametrize("task", sorted(FIGURE))
def test_each_template_is_its_figure(task):
    figure = squeeze(figures()[FIGURE[task]])
    for lost, repaired, times in REPAIRS.get(FIGURE[task], []):
        assert figure.count(lost) == times
        figure = figure.replace(lost, repaired)
    template = task_prompt(task).template.replace("{question}", "{}")
    assert squeeze(template) == figure
    for split in SPLIT:
        assert split not in template


def test_the_figures_stop_instructions_end_the_chain():
    for task in ("qa", "factcheck", "longform", "no_ir", "slot"):
        assert task_prompt(task).stop == CHAIN_STOP
    # Fig. 10 restates the question before [Final Content]: a [Question] line is not an end there.
    assert task_prompt("yesno").stop == ("Instruction: Please Stop your generation",)
    assert "Instruction: Please Stop your generation." in task_prompt("yesno").template
    assert "and please stop your generation." in task_prompt("factcheck").template


def test_answer_sets_and_suffixes_are_the_figures():
    assert task_prompt("yesno").answer_labels == ("yes", "no")
    assert task_prompt("factcheck").answer_labels == ("SUPPORTS", "REFUTES")
    assert task_prompt("longform").long_form and not task_prompt("no_ir").interactive
    # Fig. 9's claims end "(SUPPORTS or REFUTES)?"; the user's claim is asked the same way.
    text = task_prompt("factcheck").prompt("Paris is in France.")
    assert text.startswith(
        'Construct a global reasoning chain for this complex question [Question]:"Paris is in '
        'France. (SUPPORTS or REFUTES)?" and answer the question'
    )
    assert task_prompt("qa").prompt("Who?").count("Who?") == 1  # the figure's only slot


def test_slot_filling_uses_the_qa_prompt():
    assert task_prompt("slot").template == task_prompt("qa").template


def test_a_suffix_is_not_added_twice():
    text = task_prompt("factcheck").prompt("It is wet. (SUPPORTS or REFUTES)?")
    assert '"It is wet. (SUPPORTS or REFUTES)?"' in text


def test_users_add_and_replace_prompts_by_name(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text(
        '[medical]\ndescription = "Clinical questions."\n'
        'question_suffix = "(cite guidelines)"\nstop = ["\\n\\n"]\n'
        'template = """\nPlan queries for [Question]: "{question}"\n"""\n'
        '[slot]\nsame_as = "yesno"\n',
        encoding="utf-8",
    )
    ctx = Context(prompts=str(path), task="medical")
    assert ctx.task_prompt().prompt("Dose?").endswith('"Dose? (cite guidelines)"')
    assert ctx.task_prompt().stop == ("\n\n",)
    assert ctx.task_prompt("slot").answer_labels == () and ctx.task_prompt("slot").template == (
        task_prompt("yesno").template
    )
    assert ctx.task_prompt("qa") == task_prompt("qa")  # built-ins stay
    with pytest.raises(ValueError, match="unknown task 'medical'"):
        Context(task="medical")  # not without the file


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[x]\ndescription = 'no template'\n", r"\[x\] needs a template with a \{question\}"),
        ("[x]\ntemplate = 'no placeholder'\n", "placeholder"),
        ("[x]\ntemplate = '{question}'\nlabels = []\n", r"unknown keys \['labels'\]"),
        ("[x]\nsame_as = 'nope'\n", "same_as names no task 'nope'"),
        ("[x]\ntemplate = '{question}'\nstop = 'x'\n", "stop must be a list of strings"),
        ("not toml [", "is not valid TOML"),
    ],
)
def test_a_bad_prompt_file_is_one_clear_error(tmp_path, text, message):
    """Read on first use (a context is built without opening it), then one line."""
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        Context(prompts=str(path)).task_prompt()
    with pytest.raises(ValueError, match="does not exist"):
        Context(prompts=str(tmp_path / "missing.toml")).task_prompt()


def test_asking_a_figures_own_question_leaves_its_demonstration_out():
    claim = "Telemundo is a English-language television network."  # a FEVER claim, and Fig. 9's
    prompt = task_prompt("factcheck").prompt(claim)
    assert prompt.count("Telemundo") == 1 and prompt.count('[Question]:"') == 5  # slot, 4 demos
    assert "Brad Wilk helped co-found Rage in 1962." in prompt
    pear = task_prompt("yesno").prompt("Would a pear sink in water?")
    assert "density" not in pear and 'college commencements?" (The answer can only' in pear


def test_a_prompt_file_that_is_no_text_file_is_one_clear_error(tmp_path):
    """The neighbours of a missing file: a directory, a database, a device without end."""
    import sqlite3

    database = tmp_path / "threads.sqlite"
    sqlite3.connect(database).execute("CREATE TABLE t (x)").connection.close()
    for path, message in (
        (tmp_path, "cannot read prompt file"),
        (database, "is not UTF-8 text"),
        ("/dev/zero", "is larger than 1 MiB"),
    ):
        with pytest.raises(ValueError, match=message) as caught:
            Context(prompts=str(path)).task_prompt()
        assert "\n" not in str(caught.value)
