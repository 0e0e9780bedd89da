"""What the nodes of IRCoT and of the Table-1 baselines share.

Bounded retrieval of K new paragraphs, and the final answer a reply states.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from searchain.context import Context
from searchain.documents.uploads import Upload
from searchain.searched import thread_retriever
from searchain.text import extract_final_answer, near_duplicate
from searchain.types import Passage

ANSWER_MARK = re.compile(r"answer is", re.IGNORECASE)


def retrieve(
    ctx: Context, uploads: Sequence[Upload], query: str, k: int, have: Sequence[Passage] = ()
) -> list[Passage]:
    """The top ``k`` paragraphs for ``query`` that are not (near-)duplicates of ``have``.

    Searched where the thread's runs search: the index, the files sent in the thread
    (``uploads``) with it, or those alone (:func:`searchain.searched.thread_retriever`).
    """
    found: list[Passage] = []
    for passage in thread_retriever(ctx, uploads).search(query, k=k):
        if not any(
            p.id == passage.id or near_duplicate((p.title, p.text), (passage.title, passage.text))
            for p in [*have, *found]
        ):
            found.append(passage)
    return found


def final_answer(reply: str, labels: Sequence[str] = ()) -> str:
    """The answer a reply states ("answer is …"), else the reply's first line itself.

    With ``labels`` only a label the answer sentence names is an answer (see
    :func:`searchain.text.extract_final_answer`): a first line that names none is no answer.
    """
    stated = extract_final_answer(reply, tuple(labels))
    if stated or labels:
        return stated
    lines = reply.strip().splitlines()
    return lines[0].strip(" .:") if lines else ""


def completed_answer(reply: str, labels: Sequence[str] = ()) -> str:
    """The answer in a reply to a prompt that ends "the answer is" (or "Answer:").

    The reply is read as the end of that sentence; an empty reply states none (``""``).
    """
    return final_answer(f"answer is {reply}", labels) if reply.strip() else ""
