"""The two index backends behind one set of verbs, so a caller names its backend once.

``searchain index`` builds, updates and describes an index the same way whichever backend holds
it: :func:`backend` makes the embedded index at a path or the Elasticsearch index (alias) at a
URL, each with :meth:`Backend.build` (from :class:`BuildOptions`, each backend reading its own and
taking its own BM25 ``k1`` where none is given) and :meth:`Backend.update` (a documents index
brought up to date from the walk its caller makes). Searching stays the Retriever protocol's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, fields
from functools import cached_property
from pathlib import Path
from typing import Any, Literal, Protocol, TypeVar

from searchain.errors import SettingError
from searchain.indexed import Changes, Walk
from searchain.types import Passage

W = TypeVar("W", bound=Walk)
BackendName = Literal["embedded", "elasticsearch"]
ELASTIC_K1 = 1.2
"""Elasticsearch's own BM25 k1."""


@dataclass(frozen=True, kw_only=True)
class BuildOptions:
    """How an index is built: the shared settings first, then each backend's own.

    A backend refuses another's set to anything but its default, rather than ignore it.
    """

    k1: float | None = None
    """BM25 k1; ``None`` takes the backend's own (:class:`.embedded.Options`' k1,
    :data:`ELASTIC_K1`)."""
    b: float = 0.75
    """BM25 b."""
    overwrite: bool = False
    """Replace an index already there (otherwise refused)."""
    tokenizer: str = "stem"
    """Embedded: ``stem`` (stop words, stemming) or ``standard`` (as Elasticsearch's)."""
    memory: int | None = None
    """Embedded: bytes for the build's working buffers (``None``: the machine's share)."""
    workers: int | None = None
    """Embedded: tokenising processes (``None``: one fewer than the cores)."""
    analyzer: str = "standard"
    """Elasticsearch: ``standard`` or ``english``."""
    shards: int = 1
    """Elasticsearch: primary shards."""
    replicas: int = 0
    """Elasticsearch: copies of each shard on other nodes."""


EMBEDDED_ONLY = ("tokenizer", "memory", "workers")
ELASTIC_ONLY = ("analyzer", "shards", "replicas")


def _refuse_others(options: BuildOptions, others: tuple[str, ...], owner: str) -> None:
    """SettingError naming the options of ``owner`` (the other backend) that are set."""
    defaults = {f.name: f.default for f in fields(BuildOptions)}
    named = [name for name in others if getattr(options, name) != defaults[name]]
    if named:
        raise SettingError(
            f"{', '.join(named)}: {owner}'s setting{'s' * (len(named) > 1)}, not this backend's"
        )


class Backend(Protocol):
    """An index searchain builds and updates, wherever it lives."""

    @property
    def where(self) -> str:
        """The index in words, for a summary line."""
        ...

    def build(
        self,
        passages: Iterable[Passage],
        options: BuildOptions,
        *,
        progress: Callable[[int], None] | None = None,
        stage: Callable[[str], None] | None = None,
    ) -> int:
        """Index ``passages`` (replacing the index only with ``overwrite``); their number."""
        ...

    def update(
        self,
        again: Callable[[dict[str, Any]], W],
        *,
        paths: Sequence[str | Path] | None = None,
        stage: Callable[[str], None] | None = None,
    ) -> tuple[int, W, Changes]:
        """Bring a documents index up to date: the passages after, the walk, what changed."""
        ...


@dataclass(frozen=True)
class Embedded:
    """The embedded BM25 index at ``path``."""

    path: Path
    """The index's directory (a link to its current version)."""

    @property
    def where(self) -> str:
        """The index's path."""
        return str(self.path)

    def build(
        self,
        passages: Iterable[Passage],
        options: BuildOptions,
        *,
        progress: Callable[[int], None] | None = None,
        stage: Callable[[str], None] | None = None,
    ) -> int:
        """:func:`.embedded.build` with ``options``."""
        from searchain.tools.retrieval import embedded

        _refuse_others(options, ELASTIC_ONLY, "Elasticsearch")
        own = {"k1": options.k1} if options.k1 is not None else {}  # else the engine's own
        for name in ("b", "tokenizer", "overwrite", "memory", "workers"):
            own[name] = getattr(options, name)
        built = embedded.build(
            passages, self.path, embedded.Options(**own), progress=progress, stage=stage
        )
        return len(built)

    def update(
        self,
        again: Callable[[dict[str, Any]], W],
        *,
        paths: Sequence[str | Path] | None = None,
        stage: Callable[[str], None] | None = None,
    ) -> tuple[int, W, Changes]:
        """:func:`.embedded.update`."""
        from searchain.tools.retrieval import embedded

        updated, walk, changes = embedded.update(self.path, again, paths=paths, stage=stage)
        return len(updated), walk, changes


@dataclass(frozen=True)
class Elastic:
    """The Elasticsearch index (alias) ``index`` at ``url`` (empty: ``ES_URL``, then local)."""

    url: str
    """The cluster's URL (or several, comma-separated)."""
    index: str
    """The index (alias) name."""

    @cached_property
    def retriever(self) -> Any:
        """The :class:`.elastic.retriever.ElasticRetriever` of this index (made, not reached)."""
        from searchain.tools.retrieval.elastic.retriever import ElasticRetriever, ElasticSettings

        return ElasticRetriever(ElasticSettings(url=self.url, index=self.index))

    @property
    def where(self) -> str:
        """The index and the cluster it is on."""
        return f"Elasticsearch index {self.index} at {self.retriever.url}"

    def build(
        self,
        passages: Iterable[Passage],
        options: BuildOptions,
        *,
        progress: Callable[[int], None] | None = None,
        stage: Callable[[str], None] | None = None,
    ) -> int:
        """:meth:`.elastic.retriever.ElasticRetriever.build` with ``options`` (no stages)."""
        _refuse_others(options, EMBEDDED_ONLY, "the embedded index")
        return self.retriever.build(
            passages,
            k1=ELASTIC_K1 if options.k1 is None else options.k1,
            b=options.b,
            analyzer=options.analyzer,
            overwrite=options.overwrite,
            shards=options.shards,
            replicas=options.replicas,
            progress=progress,
        )

    def update(
        self,
        again: Callable[[dict[str, Any]], W],
        *,
        paths: Sequence[str | Path] | None = None,
        stage: Callable[[str], None] | None = None,
    ) -> tuple[int, W, Changes]:
        """:func:`.elastic.update.update_elastic`."""
        from searchain.tools.retrieval.elastic.update import update_elastic

        return update_elastic(self.retriever, again, paths=paths, stage=stage)


def backend(name: str, *, path: Path, es_url: str = "", es_index: str = "searchain") -> Backend:
    """The backend ``name`` (embedded or elasticsearch); SettingError for another name."""
    if name == "embedded":
        return Embedded(path)
    if name == "elasticsearch":
        return Elastic(es_url, es_index)
    raise SettingError(f"unknown backend {name!r}: use embedded or elasticsearch")
