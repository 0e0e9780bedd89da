"""Each task's Chain-of-Query prompt against the paper's figure: demonstrations, markers, suffixes.

Xu et al. (WWW 2024), appendix: QA Fig. 3/11 (two demonstrations), FEVER Fig. 9 (four to five),
StrategyQA Fig. 10 (two), SearChain without IR Fig. 8 (two), ELI5 Fig. 12 (two); slot filling
uses the QA prompt.
"""

from __future__ import annotations

import re

import pytest

from searchain.context import Context
from searchain.prompts import task_prompt

FIGURES = {
    "qa": (
        [
            "Where do greyhound buses that are in the birthplace of Spirit If...'s performer "
            "leave from?",
            "Which magazine was started first, Arthur's Magazine or First for Women?",
        ],
        "",
    ),
    "yesno": (
        ["Do hamsters provide food for any animals?", "Would a pear sink in water?"],
        "(Yes or No)",
    ),
    "factcheck": (
        [
            "Nikolaj Coster-Waldau worked with the Fox Broadcasting Company.",
            "Stranger Things is set in Bloomington, Indiana.",
            "Adrienne Bailon is an accountant.",
            "Roman Atwood is a content creator.",
        ],
        "(SUPPORTS or REFUTES)",
    ),
    "longform": (
        ["Why does the sky look blue?", "Why do we get goosebumps when we are cold?"],
        "",
    ),
    "no_ir": (
        [
            "How many places of higher learning are in the city where the Yongle emperor greeted "
            "the person to whom the edict was addressed?",
            "Which magazine was started first, Arthur's Magazine or First for Women?",
        ],
        "",
    ),
}
DEMO = re.compile(r'^\[Question\]: "(.+)"$', re.MULTILINE)


@pytest.mark.parametrize("task", sorted(FIGURES))
def test_demonstrations_are_the_figures(task):
    questions, suffix = FIGURES[task]
    prompt = task_prompt(task)
    text = prompt.prompt("Q?")
    demos = DEMO.findall(text)[:-1]  # the last [Question] is the user's
    assert demos == [f"{q} {suffix}".strip() for q in questions]
    assert prompt.question_suffix == suffix
    assert DEMO.findall(text)[-1] == f"Q? {suffix}".strip()
    assert "[Claim]" not in text and text.startswith("Construct a global reasoning chain")
    # every demonstration ends its chain with a final answer, in the task's label set if closed
    finals = re.findall(r"^\[Final Content\]: .* So the final answer is (.+)\.$", text, re.M)
    assert len(finals) == len(questions)
    labels = {label.lower() for label in prompt.answer_labels}
    assert not labels or {f.lower() for f in finals} <= labels
    if prompt.interactive:
        assert "starting with [Unsolved Query], and stop there." in text
        assert text.count("If you don't know the answer:\n[Unsolved Query]:") >= 1
    else:
        assert "[Unsolved Query]" not in text


def test_stop_instructions_and_answer_sets():
    assert "The final answer must be Yes or No." in task_prompt("yesno").template
    assert "must be SUPPORTS or REFUTES." in task_prompt("factcheck").template
    for task in ("yesno", "factcheck", "longform", "no_ir"):
        assert "Stop after the [Final Content]." in task_prompt(task).template
    assert task_prompt("factcheck").answer_labels == ("SUPPORTS", "REFUTES")
    assert task_prompt("longform").long_form


def test_slot_filling_uses_the_qa_prompt():
    assert task_prompt("slot").template == task_prompt("qa").template


def test_a_suffix_is_not_added_twice():
    text = task_prompt("yesno").prompt("Is it wet? (Yes or No)")
    assert text.endswith('[Question]: "Is it wet? (Yes or No)"')


def test_users_add_and_replace_prompts_by_name(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text(
        '[medical]\ndescription = "Clinical questions."\n'
        'question_suffix = "(cite guidelines)"\n'
        'template = """\nPlan queries for [Question]: "{question}"\n"""\n'
        '[slot]\nsame_as = "yesno"\n',
        encoding="utf-8",
    )
    ctx = Context(prompts=str(path), task="medical")
    assert ctx.task_prompt().prompt("Dose?").endswith('"Dose? (cite guidelines)"')
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
        ("not toml [", "is not valid TOML"),
    ],
)
def test_a_bad_prompt_file_is_one_clear_error(tmp_path, text, message):
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        Context(prompts=str(path))
    with pytest.raises(ValueError, match="does not exist"):
        Context(prompts=str(tmp_path / "missing.toml"))
