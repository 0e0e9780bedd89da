"""The team server's policy on settings: the deployment's fields are never a caller's.

On a shared server, callers are not the operator. A field that names a model, a file, an index or
a URL (:data:`DEPLOYMENT_FIELDS`) is the deployment's alone (its ``SEARCHAIN_*`` environment): a
caller who could set one would make the server open files and reach URLs of the caller's choosing,
and load any number of models; so are the bounds on the files a person sends. The others (task,
thresholds, budgets, switches) are the caller's, within their bounds.

The policy holds at two doors: a request's carriers (:mod:`.settings`, before the server acts on
them) and a run's start (:func:`shared_run_policy`, which the served graphs install into
:func:`searchain.context.context_of`): a thread's saved settings are its state, which a caller can
write, so a run never takes a deployment field from them either.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from searchain.tools.llms.resolve import llm_choices

DEPLOYMENT_FIELDS = frozenset(
    {
        *("llm", "reader", "verifier", "semantic_dedup"),  # models
        *("retriever", "index", "es_url", "es_index"),  # indexes and URLs
        *("es_title_field", "es_text_field", "es_id_field"),
        *("prompts", "ircot_demos", "auto_cot_demos", "dsp_demos"),  # files
        *("upload_max_mib", "upload_max_pages", "uploads_per_thread", "uploads_per_user"),
    }
)
"""Fields that name a model, a file, an index or a URL, and the bounds on a person's files."""


def refuse_deployment_fields(settings: Mapping[str, Any]) -> None:
    """ValueError naming the deployment fields among ``settings`` (a caller's), if any."""
    named = sorted(DEPLOYMENT_FIELDS & settings.keys() - offered(settings))
    if named:
        raise ValueError(
            f"{', '.join(named)}: the deployment's setting{'s' * (len(named) > 1)}, not a "
            "caller's (the server's operator sets models, files, indexes and URLs; a run may set "
            "the task, thresholds, budgets and switches: docs/server.md)"
        )


def offered(settings: Mapping[str, Any]) -> set[str]:
    """The deployment fields of ``settings`` whose value is a choice the deployment offers.

    Today that is ``llm`` naming a model of ``$SEARCHAIN_LLM_CHOICES``.
    """
    llm = settings.get("llm")
    return {"llm"} if isinstance(llm, str) and llm.strip() in llm_choices() else set()


def shared_run_policy(explicit: Mapping[str, Any], saved: Mapping[str, Any]) -> dict[str, Any]:
    """What a run on the shared server may start from: ``saved`` less the deployment's fields.

    ValueError in one line where the run's own settings (``explicit``) name one; ``llm`` naming
    a model the deployment offers passes both ways.
    """
    refuse_deployment_fields(explicit)
    dropped = DEPLOYMENT_FIELDS - offered(saved)
    return {name: value for name, value in saved.items() if name not in dropped}
