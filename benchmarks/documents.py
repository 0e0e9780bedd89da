"""Ingestion of a person's documents: searchain beside LangChain's loaders, in one run.

Run: .venv/bin/python benchmarks/documents.py [--data ../shared/data] [--pdfs 100] [--pages 10]
     [--html 400] [--markdown 400] [--repeat 3]

The documents are made here from the shared data's pooled corpus (its articles, grouped by title):
PDFs of ``--pages`` pages (Helvetica text, a line per 90 characters, tests/documents.py's
writer), HTML and Markdown files with a heading per paragraph. Each side does the same job, file
to passages: searchain's ``Documents`` (extract, cut at pages and headings, ~100-word passages
with sources), in its reading process (searchain/documents/reading.py) and, for what that costs,
the same parsers in the calling process; LangChain's PyPDFLoader (pypdf), BSHTMLLoader
(BeautifulSoup) and, for Markdown, TextLoader + MarkdownHeaderTextSplitter, each followed by
RecursiveCharacterTextSplitter at 600 characters (about 100 words). Best of ``--repeat`` runs
each; prints figures, asserts nothing. Needs the documents and bench extras (pypdf, beautifulsoup4).
"""

import argparse
import html
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from searchain.documents.collection import Documents
from searchain.documents.formats import extract
from searchain.documents.reading import Reading
from searchain.eval.datasets import data_dir, pooled_corpus
from tests.documents import pdf_bytes


def articles(root: Path) -> list[tuple[str, list[str]]]:
    by_title: dict[str, list[str]] = {}
    for passage in pooled_corpus(root):
        by_title.setdefault(passage.title or "Untitled", []).append(passage.text)
    return [(t, paragraphs) for t, paragraphs in by_title.items() if len(paragraphs) >= 2]


def write_documents(folder: Path, found, pdfs: int, pages: int, n_html: int, n_md: int) -> None:
    for kind in ("pdf", "html", "markdown"):
        (folder / kind).mkdir()
    stream = iter(found * 100)
    for i in range(pdfs):
        sheets = []
        for _ in range(pages):
            _, paragraphs = next(stream)
            lines = [line for p in paragraphs[:3] for line in textwrap.wrap(p, 90)][:48]
            sheets.append([line.encode("latin-1", "replace").decode("latin-1") for line in lines])
        (folder / "pdf" / f"doc{i}.pdf").write_bytes(pdf_bytes(sheets, title=f"Document {i}"))
    for i in range(n_html):
        title, paragraphs = next(stream)
        body = "".join(
            f"<h2 id='s{j}'>{html.escape(title)} {j}</h2><p>{html.escape(p)}</p>"
            for j, p in enumerate(paragraphs)
        )
        page = f"<html><head><title>{html.escape(title)}</title></head><body>{body}</body></html>"
        (folder / "html" / f"page{i}.html").write_text(page)
    for i in range(n_md):
        title, paragraphs = next(stream)
        text = f"# {title}\n\n" + "".join(
            f"## Part {j}\n\n{p}\n\n" for j, p in enumerate(paragraphs)
        )
        (folder / "markdown" / f"note{i}.md").write_text(text)


def best(run: Callable[[], int], repeat: int) -> tuple[float, int]:
    times, count = [], 0
    for _ in range(repeat):
        started = time.perf_counter()
        count = run()
        times.append(time.perf_counter() - started)
    return min(times), count


def searchain_side(folder: Path) -> int:
    return sum(1 for _ in Documents([folder]))


class SameProcess:
    """The parsers called here, unbounded: what reading cost before the reading process."""

    def __enter__(self) -> "SameProcess":
        return self

    def __exit__(self, *_: object) -> None:
        pass

    def read(self, fmt: str, data: bytes, name: str) -> Reading:
        return Reading(extract(fmt, data, name), None)


def same_process_side(folder: Path) -> int:
    documents = Documents([folder])
    documents._reader = SameProcess()  # type: ignore[assignment]
    return sum(1 for _ in documents)


def langchain_side(kind: str, folder: Path) -> int:
    from langchain_text_splitters import MarkdownHeaderTextSplitter, RecursiveCharacterTextSplitter

    splitter = RecursiveCharacterTextSplitter(chunk_size=600, chunk_overlap=0)
    chunks = 0
    for path in sorted(folder.iterdir()):
        if kind == "pdf":
            from langchain_community.document_loaders import PyPDFLoader

            documents = PyPDFLoader(str(path)).load()
        elif kind == "html":
            from langchain_community.document_loaders import BSHTMLLoader

            documents = BSHTMLLoader(str(path)).load()
        else:
            from langchain_community.document_loaders import TextLoader

            text = TextLoader(str(path)).load()[0].page_content
            headers = [("#", "h1"), ("##", "h2")]
            documents = MarkdownHeaderTextSplitter(headers).split_text(text)
        chunks += len(splitter.split_documents(documents))
    return chunks


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default=None)
    parser.add_argument("--pdfs", type=int, default=100)
    parser.add_argument("--pages", type=int, default=10)
    parser.add_argument("--html", type=int, default=400)
    parser.add_argument("--markdown", type=int, default=400)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    found = articles(data_dir(args.data))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        write_documents(folder, found, args.pdfs, args.pages, args.html, args.markdown)
        units = {"pdf": ("pages", args.pdfs * args.pages), "html": ("files", args.html),
                 "markdown": ("files", args.markdown)}  # fmt: skip
        print(
            f"{'type':9} {'what':8} {'searchain':>18} {'same process':>18} {'LangChain':>18} "
            f"{'ratio':>6}"
        )
        for kind, (unit, n) in units.items():
            ours, passages = best(lambda k=kind: searchain_side(folder / k), args.repeat)
            here, same = best(lambda k=kind: same_process_side(folder / k), args.repeat)
            theirs, chunks = best(lambda k=kind: langchain_side(k, folder / k), args.repeat)
            assert same == passages
            print(
                f"{kind:9} {unit:8} {n / ours:>11,.0f} {unit}/s {n / here:>11,.0f} {unit}/s "
                f"{n / theirs:>11,.0f} {unit}/s {theirs / ours:>5.1f}×   ({n} {unit}: "
                f"{passages} passages; {chunks} chunks)"
            )


if __name__ == "__main__":
    main()
