"""A figure a page states is a current one: it is in benchmarks/README.md, with its command.

Pages say what a user does and what it costs now; the measurements themselves, with the
command, the machine and the day, live in one file, so a figure is updated in one place and a
page never keeps a number that nothing measures any more. A figure here is a number with a
unit of time, size, rate or ratio; a page's settings (a default, a limit) are listed with it.
"""

from __future__ import annotations

import re

import pytest

from tests.conftest import ROOT

FIGURE = re.compile(
    r"(?<![\w.,])(\d[\d,]*(?:\.\d+)?)\s?(?:ms|s|min|GiB|MiB|KiB|GB|MB|q/s|×|%)(?![\w/])"
)
"""A number with a unit: ``29.3 s``, ``0.70 GiB``, ``400 q/s``, ``1.2×``."""

PAGES = ["README.md", *sorted(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md"))]

SETTINGS = {
    "docs/retrieval.md": {
        "4 GiB": "the build's default memory, at most",
        "16 GB": "a laptop's memory, the page cache an index fits",
        "1%": "the share of files the update benchmark changes",
        "512 MB": "the heap scripts/elasticsearch.sh gives its server",
    },
    "docs/documents.md": {"120 s": "the reading process's CPU, at most"},
    "docs/conversations.md": {"60 s": "how long a SQLite writer waits for another"},
    "docs/server.md": {"60 s": "how long a stopping worker lets its questions finish"},
}
"""Each page's settings (a default, a limit): figures no benchmark measures."""


def figures(text: str) -> list[tuple[str, str]]:
    """``(figure as written, its number)`` of every figure in ``text``, code spans left out."""
    prose = re.sub(r"`[^`]*`", "", re.sub(r"```.*?```", "", text, flags=re.S))
    return [(m.group(0), m.group(1)) for m in FIGURE.finditer(prose)]


@pytest.mark.parametrize("page", PAGES)
def test_every_figure_a_page_states_is_in_the_benchmarks_page(page):
    measured = set(re.findall(r"\d[\d,]*(?:\.\d+)?", (ROOT / "benchmarks/README.md").read_text()))
    stated = figures((ROOT / page).read_text(encoding="utf-8"))
    settings = SETTINGS.get(page, {})
    unmeasured = [f for f, n in stated if f not in settings and n not in measured]
    assert unmeasured == []
    unused = set(settings) - {f for f, _ in stated}
    assert unused == set(), "a setting the page no longer states"


def heading_anchors(markdown: str) -> set[str]:
    """The anchors GitHub gives the headings of ``markdown``."""
    return {
        re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        for heading in re.findall(r"^#+ (.+)$", markdown, flags=re.M)
    }


@pytest.mark.parametrize("page", PAGES)
def test_every_link_into_the_benchmarks_page_finds_its_section(page):
    anchors = heading_anchors((ROOT / "benchmarks/README.md").read_text(encoding="utf-8"))
    text = (ROOT / page).read_text(encoding="utf-8")
    wanted = re.findall(r"benchmarks/README\.md#([\w-]+)", text)
    assert [a for a in wanted if a not in anchors] == []
    assert "bm25-engines-benchmarksenginespy" in anchors


def test_a_figure_is_a_number_with_a_unit_outside_code():
    text = "built in 29.3 s, 0.70 GiB; 400 q/s; bm25s; `5 ms`; 1.5× faster; 12 passages"
    assert [f for f, _ in figures(text)] == ["29.3 s", "0.70 GiB", "400 q/s", "1.5×"]
