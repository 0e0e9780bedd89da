"""The Chain-of-Query parser against what real models write."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from searchain.nodes.searchain.chain import ChainNode, parse_chain
from searchain.text import extract_final_answer

N = ChainNode

# (reply, expected nodes as (query, answer, unsolved), expected final content or None)
CASES = [
    pytest.param(
        "[Query 1]: Who is the performer of Spirit If... ?\n"
        "[Answer 1]: The performer of Spirit If... is Kevin Drew.\n"
        "[Query 2]: Where was Kevin Drew born?\n[Answer 2]: Toronto.\n"
        "[Final Content]: Kevin Drew [1] was born in Toronto [2]. So the final answer is Toronto.",
        [
            (
                "Who is the performer of Spirit If... ?",
                "The performer of Spirit If... is Kevin Drew.",
                False,
            ),
            ("Where was Kevin Drew born?", "Toronto.", False),
        ],
        "Kevin Drew [1] was born in Toronto [2]. So the final answer is Toronto.",
        id="paper-format",
    ),
    pytest.param(
        "Sure! Let's break this down.\n\n[Query 1]: When was Arthur's Magazine started?\n"
        "[Answer 1]: 1844.\n[Query 2]: When was First for Women started?\n[Answer 2]: 1989\n"
        "[Final Content]: Arthur's Magazine came first. I hope this helps!",
        [
            ("When was Arthur's Magazine started?", "1844.", False),
            ("When was First for Women started?", "1989", False),
        ],
        "Arthur's Magazine came first. I hope this helps!",
        id="prose-before-and-after",
    ),
    pytest.param(
        "[Query 1]: Who directed Jaws?\n[Answer 1]: Steven Spielberg.\n"
        "[Unsolved Query]: When was Steven Spielberg's first film released?",
        [
            ("Who directed Jaws?", "Steven Spielberg.", False),
            ("When was Steven Spielberg's first film released?", "", True),
        ],
        None,
        id="unsolved-at-end-no-final",
    ),
    pytest.param(
        "[Unsolved Query]: Who founded the company that makes the iPhone?",
        [("Who founded the company that makes the iPhone?", "", True)],
        None,
        id="unsolved-first",
    ),
    pytest.param(
        "**[Query 1]:** Who wrote Hamlet?\n**[Answer 1]:** William Shakespeare\n"
        "**[Final Content]:** Hamlet was written by Shakespeare [1].",
        [("Who wrote Hamlet?", "William Shakespeare", False)],
        "Hamlet was written by Shakespeare [1].",
        id="markdown-bold-outside-colon",
    ),
    pytest.param(
        "**[Query 1]**: Who wrote Hamlet?\n**[Answer 1]**: William Shakespeare",
        [("Who wrote Hamlet?", "William Shakespeare", False)],
        None,
        id="markdown-bold-inside-colon",
    ),
    pytest.param(
        "[Query]: Who wrote Hamlet?\n[Answer]: Shakespeare.\n[Query]: When was he born?\n"
        "[Answer]: 1564.",
        [("Who wrote Hamlet?", "Shakespeare.", False), ("When was he born?", "1564.", False)],
        None,
        id="unnumbered",
    ),
    pytest.param(
        "[Query 1]: Who wrote Hamlet?\n[Answer 1]: Shakespeare.\n[Query 1]: When was he born?\n"
        "[Answer 3]: 1564.",
        [("Who wrote Hamlet?", "Shakespeare.", False), ("When was he born?", "1564.", False)],
        None,
        id="repeated-and-wrong-numbers",
    ),
    pytest.param(
        "[Query 1]: Who wrote Hamlet? [Answer 1]: Shakespeare. [Query 2]: When was he born? "
        "[Answer 2]: 1564. [Final Content]: Shakespeare [1] was born in 1564 [2].",
        [("Who wrote Hamlet?", "Shakespeare.", False), ("When was he born?", "1564.", False)],
        "Shakespeare [1] was born in 1564 [2].",
        id="all-on-one-line",
    ),
    pytest.param(
        "[Query 1]: Who wrote Hamlet?\n[Answer 1]:\n"
        "[Query 2]: When was he born?\n[Answer 2]: 1564.",
        [("Who wrote Hamlet?", "", True), ("When was he born?", "1564.", False)],
        None,
        id="empty-answer-is-unsolved",
    ),
    pytest.param(
        "[Query 1]: Who wrote Hamlet?\n[Query 2]: When was he born?\n[Answer 2]: 1564.",
        [("Who wrote Hamlet?", "", True), ("When was he born?", "1564.", False)],
        None,
        id="missing-answer-is-unsolved",
    ),
    pytest.param(
        "[Query 1]: Who is the performer of Spirit If... ?\nIf you don't know the answer:\n"
        "[Unsolved Query]: Who is the performer of Spirit If... ?\nIf you know the answer:\n"
        "[Answer 1]: Kevin Drew.",
        [("Who is the performer of Spirit If... ?", "Kevin Drew.", True)],
        None,
        id="copies-the-prompt-template",
    ),
    pytest.param(
        "Query 1: Who wrote Hamlet?\nAnswer 1: Shakespeare.\nFinal Content: Shakespeare [1].",
        [("Who wrote Hamlet?", "Shakespeare.", False)],
        "Shakespeare [1].",
        id="no-brackets",
    ),
    pytest.param(
        "### [Query 1]: Who wrote Hamlet?\n- [Answer 1]: Shakespeare.",
        [("Who wrote Hamlet?", "Shakespeare.", False)],
        None,
        id="heading-and-bullet",
    ),
    pytest.param(
        "[query 1]: who wrote hamlet?\n[ANSWER 1]: Shakespeare.\n[final content]: Shakespeare.",
        [("who wrote hamlet?", "Shakespeare.", False)],
        "Shakespeare.",
        id="any-case",
    ),
    pytest.param(
        '[Question]: "Who wrote Hamlet?"\n[Query 1]: Who wrote Hamlet?\n[Answer 1]: Shakespeare.\n'
        '[Final Content]: Shakespeare [1].\n\n[Question]: "Who wrote Macbeth?"\n'
        "[Query 1]: Who wrote Macbeth?\n[Answer 1]: Shakespeare.",
        [("Who wrote Hamlet?", "Shakespeare.", False)],
        "Shakespeare [1].",
        id="question-echo-and-continued-few-shot",
    ),
    pytest.param(
        "[Query 1]: Who wrote Hamlet?\n[Answer 1]: Shakespeare.\n[Answer 1]: Marlowe.",
        [("Who wrote Hamlet?", "Shakespeare.", False)],
        None,
        id="second-answer-ignored",
    ),
    pytest.param(
        "[Answer 1]: Shakespeare.\n[Query 1]: Who wrote Hamlet?\n[Answer 1]: Shakespeare.",
        [("Who wrote Hamlet?", "Shakespeare.", False)],
        None,
        id="answer-before-any-query",
    ),
    pytest.param(
        "I don't know the answer to that question, sorry.",
        [],
        None,
        id="no-markers",
    ),
    pytest.param("", [], None, id="empty"),
    pytest.param(
        "[Final Content]: Paris is the capital of France. So the final answer is Paris.",
        [],
        "Paris is the capital of France. So the final answer is Paris.",
        id="only-final-content",
    ),
    pytest.param(
        "[Query #1]: Who wrote Hamlet?\n[Answer #1]: Shakespeare.",
        [("Who wrote Hamlet?", "Shakespeare.", False)],
        None,
        id="hash-numbers",
    ),
    pytest.param(
        "[Query 1]：Who wrote Hamlet?\n[Answer 1]：Shakespeare.",
        [("Who wrote Hamlet?", "Shakespeare.", False)],
        None,
        id="full-width-colon",
    ),
    pytest.param(
        '[Query 1]: "Who wrote Hamlet?"\n[Answer 1]: "Shakespeare"',
        [("Who wrote Hamlet?", "Shakespeare", False)],
        None,
        id="quoted",
    ),
    pytest.param(
        "[Sub-query 1]: Who wrote Hamlet?\n[Answer 1]: Shakespeare.",
        [("Who wrote Hamlet?", "Shakespeare.", False)],
        None,
        id="sub-query-synonym",
    ),
    pytest.param(
        "[Query 1]: Who wrote\nHamlet?\n[Answer 1]: William\nShakespeare.",
        [("Who wrote Hamlet?", "William Shakespeare.", False)],
        None,
        id="wrapped-lines",
    ),
]


@pytest.mark.parametrize(("reply", "nodes", "final"), CASES)
def test_parse_chain(reply, nodes, final):
    parsed = parse_chain(reply)
    assert [(n.query, n.answer, n.unsolved) for n in parsed.nodes] == nodes
    assert parsed.final_content == final


def test_long_chains_are_cut_and_the_cut_is_counted():
    reply = "\n".join(f"[Query {i}]: q{i}?\n[Answer {i}]: a{i}" for i in range(15))
    parsed = parse_chain(reply, max_nodes=12)
    assert len(parsed.nodes) == 12 and parsed.dropped == 3
    assert parsed.nodes[-1].query == "q11?"


FIXTURES = json.loads((Path(__file__).parent / "fixtures/smollm2_outputs.json").read_text())


@pytest.mark.parametrize("record", FIXTURES, ids=lambda r: f"smollm2-{r['task']}-r{r['round']}")
def test_real_smollm2_replies_parse_into_well_formed_chains(record):
    """Real SmolLM2-135M-Instruct replies (scripts/collect_smollm2_outputs.py) never break it."""
    parsed = parse_chain(record["output"])
    for node in parsed.nodes:
        assert node.query and node.query == node.query.strip()
        assert "[" not in node.query.split("?")[0] or "]" not in node.query  # no marker leaked
        assert node.unsolved == (node.unsolved or not node.answer)
        assert not node.answer.startswith(("*", ":"))
    assert not any(n.query.lower().startswith("if you") for n in parsed.nodes)


@pytest.mark.parametrize(
    ("content", "labels", "expected"),
    [
        ("X [1]. So the final answer is Toronto Coach Terminal.", (), "Toronto Coach Terminal"),
        ("So the final answer is Toronto Coach Terminal [3].", (), "Toronto Coach Terminal"),
        ("The answer is: U.S. Army.", (), "U.S. Army"),
        ('So the final answer is "Arthur\'s Magazine".', (), "Arthur's Magazine"),
        ("He was born in 1564.", (), ""),
        ("So the final answer is no.", ("yes", "no"), "no"),
        ("So the final answer is: No, it is not.", ("yes", "no"), "no"),
        ("Yes. Laptops came later [2]", ("yes", "no"), "yes"),
        ("So the final answer is SUPPORTS.", ("SUPPORTS", "REFUTES"), "SUPPORTS"),
        ("the claim is refuted, the answer is refutes", ("SUPPORTS", "REFUTES"), "REFUTES"),
        ("So the final answer is maybe.", ("yes", "no"), ""),  # no label: no answer
        ("Kevin Drew no longer lives in Toronto [1].", ("yes", "no"), ""),
        ("I do not know. There is no answer.", ("yes", "no"), ""),
        ("So the answer is yes or no.", ("yes", "no"), ""),  # two labels: none
    ],
)
def test_extract_final_answer(content, labels, expected):
    assert extract_final_answer(content, labels) == expected


def test_citation_markers_stay_out_of_queries_and_answers():
    parsed = parse_chain(
        "[Query 1]: Which series [1]?\n[Answer 1]: New Amsterdam [2]\n"
        "[Final Content]: It was New Amsterdam [1]."
    )
    assert (parsed.nodes[0].query, parsed.nodes[0].answer) == ("Which series?", "New Amsterdam")
    assert parsed.final_content == "It was New Amsterdam [1]."


def test_final_answer_phrase_repeated_inside_itself():
    assert extract_final_answer("So the final answer is The final answer is Giotto.") == "Giotto"
    assert extract_final_answer("So the final answer is The final answer is.") == ""
