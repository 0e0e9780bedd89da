"""An index directory on disk that is replaced atomically and can tell when it is damaged.

``--index DIR`` is a symbolic link to a versioned sibling directory (``.DIR.<stamp>``). A new
index is written beside it in full, then the link is switched with one ``rename`` — atomic on
POSIX file systems — so a reader sees the old index or the new one, never a half-built or missing
one, and a crash at any moment leaves one of the two in place. A plain directory at ``DIR`` (a
copy of an index) opens, but is never replaced: no single rename could swap it
(:func:`check_replaceable`). Leftovers
of an interrupted build (a temporary directory, a superseded version) are removed by the next
build; the version just replaced is kept one generation more, so a reader that resolved the old
link a moment before the switch can still open its files. Only this index's own siblings are
touched (``.wiki.<stamp>``, never ``.wiki.big.<stamp>``). Every file and directory is fsynced
before the rename that publishes it, so a power loss cannot leave a published index with empty
files.

A build holds ``.DIR.lock`` (an ``flock``, released by the kernel when the process ends, however
it ends) from before it writes its temporary directory until it has published it. Only a process
holding that lock removes leftovers: :func:`recover` does nothing while another process builds,
and a second build of the same index is refused in one line (:class:`IndexBusyError`) rather than
sweeping the first one's files away hours into its run.

Every file's size and SHA-256 are recorded in the manifest when the index is written, and the
two large files' digests chunk by chunk: :mod:`.checked` says what is checked at open, what at
first touch, and what only by ``--verify``.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from searchain.errors import NoSpace, TargetExists
from searchain.files import digest
from searchain.indexed import Indexed
from searchain.tools.retrieval.embedded.directory.checked import (
    LAZY,
    CheckedFile,
    ChecksumError,
    digests,
)

MANIFEST = "searchain-index.json"
"""An index's manifest: its format, parameters, passage count and files' checksums."""
OWN_SIBLING = re.compile(r"(?P<stamp>\d+)(?P<kind>\.tmp|\.link)?")
"""What follows ``.{name}.`` in the name of one of this index's own siblings."""


def index_format(manifest: object) -> int | str:
    """The format a manifest names: a whole number, or what it holds instead, as text.

    Only a JSON integer is a format: ``true``, ``2.0`` or ``"2"`` are none (each equals one in
    Python's comparisons), and neither is a manifest that is not an object.
    """
    version = manifest.get("format") if isinstance(manifest, dict) else None
    return version if type(version) is int else f"{version!r} (not a format number)"


class IndexFilesError(ValueError):
    """An index directory whose files do not match its manifest."""


class IndexBusyError(OSError):
    """Another process is building this index right now."""


def _lock_file(path: Path) -> Path:
    return path.with_name(f".{path.name}.lock")


def _busy(path: Path, descriptor: int) -> IndexBusyError:
    try:
        holder = os.pread(descriptor, 32, 0).decode(errors="replace").strip()
    except OSError:
        holder = ""
    who = f"process {holder}" if holder.isdigit() else "another process"
    return IndexBusyError(
        f"{path} is being built by {who} right now: wait for that build to finish (or stop it), "
        "then try again"
    )


def _locked(path: Path) -> int:
    """An open descriptor of ``path``'s lock file, locked by this process; or IndexBusyError.

    The file is removed by its holder when the build ends, so a lock taken on a file that is no
    longer the one at its name (removed, or made anew, between open and lock) is taken again.
    """
    lock = _lock_file(path)
    for _ in range(100):  # bounded: each turn means another build just ended
        descriptor = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            busy = _busy(path, descriptor)
            os.close(descriptor)
            raise busy from None
        try:
            current = os.stat(lock).st_ino == os.fstat(descriptor).st_ino
        except FileNotFoundError:
            current = False
        if current:
            return descriptor
        os.close(descriptor)
    raise _busy(path, -1)


@contextmanager
def build_lock(path: Path) -> Iterator[None]:
    """Hold ``path``'s build lock for the block, or raise :class:`IndexBusyError` at once."""
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor = _locked(path)
    try:
        os.ftruncate(descriptor, 0)
        os.pwrite(descriptor, str(os.getpid()).encode(), 0)
        yield
    finally:
        _lock_file(path).unlink(missing_ok=True)  # still held: nobody can take it meanwhile
        os.close(descriptor)  # releases the lock


def building(path: Path) -> IndexBusyError | None:
    """The error to give while another process builds ``path``; ``None`` when none does.

    Touches nothing: a reader may call it on an index it cannot write.
    """
    try:
        descriptor = os.open(_lock_file(path), os.O_RDONLY)
    except OSError:
        return None  # no lock file: no build has ever run here
    try:
        fcntl.flock(descriptor, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return _busy(path, descriptor)
    finally:
        os.close(descriptor)  # a shared lock taken is released here
    return None


def _sibling(path: Path, tag: str) -> Path:
    return path.with_name(f".{path.name}.{tag}")


def new_version(path: Path) -> Path:
    """A fresh, empty directory beside ``path`` for the next version's files."""
    path.parent.mkdir(parents=True, exist_ok=True)
    target = _sibling(path, f"{time.time_ns()}.tmp")
    target.mkdir()
    return target


def file_table(root: Path, manifest_name: str) -> dict[str, list[Any]]:
    """``{relative path: [size, sha256]}`` for every file under ``root`` but the manifest.

    The files checked at first touch (:data:`.checked.LAZY`) also get their chunk digests:
    ``[size, sha256, [chunk digest, ...]]``. Files are hashed on every core (hashlib lets go
    of the GIL on large blocks): an index's gigabytes are checksummed by each build and update.
    """
    files = [f for f in sorted(root.rglob("*")) if f.is_file() and f.name != manifest_name]
    names = [file.relative_to(root).as_posix() for file in files]

    def entry(file: Path, name: str) -> list[Any]:
        if name in LAZY:
            return [file.stat().st_size, *digests(file)]
        return [file.stat().st_size, digest(file)]

    with ThreadPoolExecutor(len(os.sched_getaffinity(0)), "searchain-digest") as pool:
        return dict(zip(names, pool.map(entry, files, names), strict=True))


def check_files(root: Path, files: dict[str, list[Any]], *, full: bool) -> None:
    """Raise :class:`IndexFilesError` for a file that is missing, resized or altered.

    Sizes are always checked; content of every file but :data:`.checked.LAZY`'s unless
    ``full`` (an open checks those as it reads them: :class:`.checked.CheckedFile`).
    """
    for name, (size, sha, *chunks) in files.items():
        file = root / name
        if not file.is_file():
            raise IndexFilesError(f"{name} is missing")
        if file.stat().st_size != size:
            raise IndexFilesError(f"{name} has {file.stat().st_size} bytes, not {size}")
        if name in LAZY and not full:
            continue
        if chunks:
            try:
                CheckedFile(file, name, sha, chunks[0]).ensure(0, size)
            except ChecksumError as exc:
                raise IndexFilesError(str(exc)) from None
        elif digest(file) != sha:
            raise IndexFilesError(f"{name} does not match its checksum")


def publish(version: Path, path: Path) -> None:
    """Make the complete index in ``version`` the one at ``path``, atomically.

    Called by the process holding ``path``'s build lock. ``version`` is renamed to its final
    name first, so a directory without ``.tmp`` is always a complete index; its files and
    directories reach the disk before either rename.
    """
    sync_tree(version)
    final = version.with_name(version.name.removesuffix(".tmp"))
    version.rename(final)
    link = _sibling(path, f"{time.time_ns()}.link")
    link.symlink_to(final.name)
    sync_path(path.parent)
    check_replaceable(path)
    os.replace(link, path)  # the atomic switch
    sync_path(path.parent)
    _sweep(path)


def sync_tree(root: Path) -> None:
    """Flush every file under ``root`` to disk, then every directory, deepest first."""
    for item in sorted([root, *root.rglob("*")], key=lambda i: (i.is_dir(), -len(i.parts))):
        sync_path(item)


@contextmanager
def flushing() -> Iterator[Callable[[Path], None]]:
    """``flush(path)``: a finished file or tree sent to disk in a background thread meanwhile.

    :func:`publish` fsyncs every file before the rename; a file flushed as soon as it is whole has
    its writeback overlap the work after it, and finds little left then. Leaving the block waits for
    every flush and raises the first error: an fsync's error is reported once, and a later fsync of
    the same file may not see it.
    """
    with ThreadPoolExecutor(1, "searchain-flush") as pool:
        flushes: list[Future[None]] = []

        def flush(path: Path) -> None:
            flushes.append(pool.submit(sync_tree if path.is_dir() else sync_path, path))

        yield flush
        for flushed in flushes:
            flushed.result()


def sync_path(path: Path) -> None:
    """Flush a file or a directory (the names created or renamed in it) to disk."""
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def recover(path: Path) -> None:
    """Remove what a build or an update a crash interrupted left behind.

    While another process builds ``path`` nothing is touched: what looks left behind is that
    build's.
    """
    try:
        with build_lock(path):
            recover_held(path)
    except IndexBusyError:
        return


def recover_held(path: Path) -> None:
    """:func:`recover`, by the process that holds ``path``'s build lock."""
    _sweep(path)


def check_replaceable(path: Path) -> None:
    """TargetExists where ``path`` is a plain directory, which no single rename can replace.

    searchain's own indexes are links to a version; a directory is a copy (``cp -rL``), which
    opens as an index but is never swapped out under its readers.
    """
    if path.exists() and not path.is_symlink():
        raise TargetExists(
            "{path} is a plain directory (a copy of an index?), which cannot be replaced "
            "atomically: remove it, or choose {index}",
            settings=("index",),
            path=path,
        )


def _sweep(path: Path) -> None:
    """Remove this index's temporary versions and links, and versions older than the last two.

    The current version and the one it replaced stay: a reader that resolved the link just
    before the switch opens the replaced one's files a moment later.
    """
    current = path.resolve() if path.is_symlink() else None
    prefix = f".{path.name}."
    siblings = path.parent.iterdir() if path.parent.is_dir() else iter(())
    own = {
        leftover: match
        for leftover in siblings
        if leftover.name.startswith(prefix)
        and (match := OWN_SIBLING.fullmatch(leftover.name.removeprefix(prefix)))
    }
    versions = sorted(
        (int(match["stamp"]), leftover)
        for leftover, match in own.items()
        if match["stamp"] and not match["kind"]
    )
    kept = {leftover for _, leftover in versions if leftover.resolve() == current}
    older = [leftover for _, leftover in versions if current is not None and leftover not in kept]
    kept |= set(older[-1:])  # the generation just replaced
    for leftover, match in own.items():
        if match["kind"] or (current is not None and leftover not in kept):
            if leftover.is_symlink() or leftover.is_file():
                leftover.unlink()
            else:
                shutil.rmtree(leftover, ignore_errors=True)


DISK_PER_TEXT_BYTE = 2.0
"""Disk a build needs per byte of corpus text: the passage store (about 0.43), the compact
postings (about 0.31 at 1M passages, 0.22 at 21M) and, until they are merged, the segments (8
bytes a posting: about 1.05)."""


def check_space(path: Path, text_bytes: int) -> None:
    """Refuse, before hours of work, a build the disk under ``path`` cannot hold."""
    needed = int(text_bytes * DISK_PER_TEXT_BYTE)
    folder = next(p for p in [path.absolute(), *path.absolute().parents] if p.exists())
    free = shutil.disk_usage(folder).free
    if needed > free:
        raise NoSpace(
            "the index needs about {needed:.1f} GiB of disk at {folder}, which has "
            "{free:.1f} GiB free: free some space or choose {index}",
            settings=("index",),
            needed=needed / 2**30,
            folder=folder,
            free=free / 2**30,
        )


DOCUMENTS = "documents.json"
"""A documents index's table of the documents it holds (see :func:`write_documents`)."""
LENGTHS = "lengths.npy"
"""A documents index's passage lengths in tokens (int32), which scores are computed from."""


def write_documents(directory: Path, indexed: Sequence[Indexed], lengths: np.ndarray) -> None:
    """Record what a documents index holds, for an update to re-score what it keeps.

    Each document's path, content hash and passages, in index order, and every passage's length.
    """
    table = [{"path": d.path, "sha256": d.sha256, "passages": d.passages} for d in indexed]
    (directory / DOCUMENTS).write_text(json.dumps(table, ensure_ascii=False))
    np.save(directory / LENGTHS, np.ascontiguousarray(lengths, np.int32))


def documents_folder(path: str | Path) -> Path | None:
    """The folder a documents index at ``path`` was built from; None for a corpus's, or none.

    Its sources' paths are relative to it.
    """
    try:
        manifest = json.loads((Path(path).resolve() / MANIFEST).read_text())
    except (OSError, ValueError):
        return None
    settings = manifest.get("documents") if isinstance(manifest, dict) else None
    root = settings.get("root") if isinstance(settings, dict) else None
    return Path(root) if isinstance(root, str) else None


def of_documents(manifest: Path) -> bool:
    """Whether the index of ``manifest`` was built from documents (``--update`` refreshes it)."""
    try:
        return "documents" in json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
