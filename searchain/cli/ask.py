"""``searchain ask``: answer a question (or a follow-up on a thread) with SearChain."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Annotated

import typer

from searchain.cli.common import (
    DEFAULT_DB,
    BackendOption,
    DbOption,
    EsIdFieldOption,
    EsIndexOption,
    EsTextFieldOption,
    EsTitleFieldOption,
    EsUrlOption,
    ForceOption,
    HtmlOption,
    IndexOption,
    check_backend,
    page_target,
)
from searchain.cli.session import open_threads, run, run_config, unfinished
from searchain.preload import preload
from searchain.text import clean_text


def ask(
    question: Annotated[
        str, typer.Argument(metavar="QUESTION", help="The question (or claim, for factcheck).")
    ],
    index: IndexOption = Path("searchain-index"),
    backend: BackendOption = "embedded",
    es_url: EsUrlOption = "",
    es_index: EsIndexOption = "searchain",
    es_title_field: EsTitleFieldOption = "title",
    es_text_field: EsTextFieldOption = "text",
    es_id_field: EsIdFieldOption = "_id",
    llm: Annotated[
        str,
        typer.Option(
            envvar="SEARCHAIN_LLM",
            help="auto, local (SmolLM2, offline), gguf:PATH (a GGUF model on llama.cpp), "
            "provider:model (e.g. openai:gpt-4o-mini), scripted:FILE.json, or a name in "
            "SEARCHAIN_LLM_CHOICES.",
        ),
    ] = "auto",
    reader: Annotated[
        str,
        typer.Option(
            envvar="SEARCHAIN_READER",
            help="auto (dpr where the models extra and its weights are installed, else llm), "
            "dpr, extractive, llm (the --llm model reads), llm:SPEC (another model), "
            "dpr:DIR, extractive:DIR, a model DIR, dpr-int8[:DIR], extractive-int8[:DIR] (int8 "
            "on the CPU).",
        ),
    ] = "auto",
    verifier: Annotated[
        str,
        typer.Option(
            envvar="SEARCHAIN_VERIFIER",
            help="Who judges the citations: lexical (offline containment) or nli:MODEL (an NLI "
            "model's hub name or directory).",
        ),
    ] = "lexical",
    task: Annotated[
        str, typer.Option(help="qa, yesno, factcheck, slot, longform, no_ir, or one of --prompts.")
    ] = "qa",
    prompts: Annotated[
        Path | None, typer.Option(help="A TOML file of your own task prompts (see docs/python.md).")
    ] = None,
    chain_prompt: Annotated[
        str,
        typer.Option(
            help="How the chain is asked for: auto (guided for a llama.cpp model, the paper's "
            "prompt for any other), paper (the paper's prompt, unconstrained) or guided (a short "
            "instruction and the reply held to the chain's grammar: llama.cpp models only).",
        ),
    ] = "auto",
    r_max: Annotated[int, typer.Option(help="Maximum rounds.")] = 5,
    theta: Annotated[
        float | None, typer.Option(help="Reader confidence threshold (default: the reader's).")
    ] = None,
    approve_corrections: Annotated[
        bool, typer.Option(help="Pause for a human before each IR correction.")
    ] = False,
    db: DbOption = DEFAULT_DB,
    thread: Annotated[
        str | None, typer.Option(help="Continue this thread (follow-up question).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    html: HtmlOption = None,
    force: ForceOption = False,
) -> None:
    """Answer QUESTION with SearChain and show the cited passages and the reasoning tree."""
    from searchain.context import Context

    check_backend(backend)
    html = page_target(html, force, db=db, index=index)  # before any work is done
    question = clean_text(question)  # undecodable bytes of the command line arrive as surrogates
    if not question.strip():
        raise ValueError("the question is empty: pass a non-blank question")
    context = Context(
        llm=llm,
        retriever="bm25" if backend == "embedded" else "elasticsearch",
        index=str(index.absolute()),  # the link, not the version it points to now
        es_url=es_url,
        es_index=es_index,
        es_title_field=es_title_field,
        es_text_field=es_text_field,
        es_id_field=es_id_field,
        reader=reader,
        verifier=verifier,
        task=task,
        prompts=str(prompts.absolute()) if prompts else "",
        chain_prompt=chain_prompt,
        r_max=r_max,
        theta=theta,
        approve_corrections=approve_corrections,
    )
    # Every model, index and server first: one that cannot load fails before a database or a
    # thread exists (a thread made then would be listed as interrupted).
    preload(context)
    store, graph = open_threads(db)
    thread_id = thread or uuid.uuid4().hex[:12]
    config = run_config(thread_id, context)
    with store.lock(thread_id):  # one run per thread at a time: no turn is lost
        if thread is not None and store.exists(thread):
            store.known(thread)  # a thread of this state version, or one clear error
            if unfinished(graph.get_state(config)):
                raise ValueError(
                    f"thread {thread!r} has an unfinished run: `searchain resume {thread}` first"
                )
        store.record(thread_id, question)
        run(graph, {"question": question, "task": task}, config, context, as_json, html)
