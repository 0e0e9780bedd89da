"""The files under the paths given to ``searchain index``: folders walked, links followed once.

Folders are walked in name order, through symbolic links, each real folder once (a link back up
the tree is a loop: skipped, with that reason). Names starting with a dot (``.git``) are left
out. ``include`` and ``exclude`` are shell globs matched against a file's path relative to the
root and against its name alone (``*.md``, ``drafts/*``). A file whose name ends in no document
type is counted by its ending, not read.
"""

from __future__ import annotations

import errno
import fnmatch
import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from searchain.documents.formats import ACCEPTED, format_of


@dataclass(frozen=True)
class Skipped:
    """A file (or folder) that gave no passages, and why."""

    path: str
    """Relative to the root, ``/`` between folders."""
    reason: str
    """Why, in a few words (``encrypted: it needs a password to open``)."""


@dataclass
class Found:
    """What a walk found."""

    root: Path
    """The folder every path is relative to: the one folder given, else the given paths'
    deepest common folder."""
    files: list[tuple[str, str, str]] = field(default_factory=list)
    """``(relative path, path, format)`` of each document, in walk order (the path a string:
    a hundred thousand ``Path`` objects cost a walk more than its system calls)."""
    skipped: list[Skipped] = field(default_factory=list)
    """Entries that could not be walked or opened (loops, broken links, unreadable folders)."""
    ignored: Counter[str] = field(default_factory=Counter)
    """Files of other types, by their ending (``.png``; ``(none)`` for a name without one)."""
    sizes: dict[str, int] = field(default_factory=dict)
    """Each document's size in bytes, by relative path (from the walk's own ``stat``)."""
    escaped: list[str] = field(default_factory=list)
    """Entries whose names are not UTF-8, as :func:`shown` writes them."""


def root_of(paths: Sequence[Path]) -> Path:
    """The folder the paths' sources are relative to."""
    folders = [p if p.is_dir() else p.parent for p in (Path(os.path.abspath(p)) for p in paths)]
    return Path(os.path.commonpath(folders))


def _wanted(rel: str, include: Sequence[str], exclude: Sequence[str]) -> bool:
    name = rel.rsplit("/", 1)[-1]

    def matches(patterns: Sequence[str]) -> bool:
        return any(fnmatch.fnmatchcase(rel, p) or fnmatch.fnmatchcase(name, p) for p in patterns)

    return (not include or matches(include)) and not matches(exclude)


def _link_problem(path: Path) -> str | None:
    try:
        path.stat()
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "symbolic link loop"
        if path.is_symlink():
            return "broken symbolic link"
        return f"cannot be opened ({exc.strerror})"
    return None


def walk(
    paths: Sequence[str | Path], include: Sequence[str] = (), exclude: Sequence[str] = ()
) -> Found:
    """The documents under ``paths`` (see the module); a named path must exist and be one."""
    paths = [Path(p) for p in paths]
    if not paths:
        raise ValueError("give at least one file or folder to index")
    for path in paths:
        if not path.exists():
            problem = _link_problem(path) if path.is_symlink() else "does not exist"
            raise FileNotFoundError(f"{path}: {problem}")
        if not path.is_dir() and format_of(path.name) is None:
            raise ValueError(f"{path} is not a document searchain reads: give {ACCEPTED}")
    found = Found(root_of(paths))
    seen: set[Path] = set()
    for path in paths:
        if path.is_dir():
            _walk_folder(Path(os.path.abspath(path)), found, seen, include, exclude)
        else:
            whole = Path(os.path.abspath(path))
            _add(whole, _relative(whole, found.root), found, include, exclude, named=True)
    return found


def _relative(path: Path, root: Path) -> str:
    return shown(path.relative_to(root).as_posix() if path != root else path.name)


def shown(name: str) -> str:
    r"""A name as the index records it: a byte that is not UTF-8 written ``\xNN``.

    Python hands such bytes over as lone surrogates, which no JSON, SQLite or UTF-8 file can
    hold: one such name used to fail the whole walk. The file itself is still read by its real
    name.
    """
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return os.fsencode(name).decode("utf-8", "backslashreplace")
    return name


def _walk_folder(
    top: Path, found: Found, seen: set[Path], include: Sequence[str], exclude: Sequence[str]
) -> None:
    """Walk ``top``: depth first, a folder's files before its subfolders, in name order.

    That is ``os.walk``'s order, with one ``scandir`` a folder and one ``stat`` a document: a
    walk of 100,000 files, which every update pays, takes a fraction of a second.
    """
    base = "" if top == found.root else _relative(top, found.root) + "/"
    folders = [(top, base, False)]
    while folders:
        here, prefix, linked = folders.pop()
        real = here.resolve()
        if real in seen:  # a folder named twice, or inside one named: walked once, quietly
            if linked:
                loop = real in here.parent.resolve().parents or real == here.parent.resolve()
                reason = "symbolic link loop" if loop else "links to a folder walked already"
                found.skipped.append(Skipped(prefix.rstrip("/"), reason))
            continue
        seen.add(real)
        try:
            with os.scandir(here) as listing:
                entries = sorted(
                    (e for e in listing if not e.name.startswith(".")), key=lambda e: e.name
                )
        except OSError as error:
            found.skipped.append(
                Skipped(prefix.rstrip("/") or here.name, f"unreadable folder ({error.strerror})")
            )
            continue
        below = []
        for entry in entries:
            rel = prefix + shown(entry.name)
            if rel != prefix + entry.name:
                found.escaped.append(rel)
            if _is_dir(entry):  # through a link, too
                below.append((Path(entry.path), rel + "/", entry.is_symlink()))
            elif entry.is_symlink() or not entry.is_file():
                _add(Path(entry.path), rel, found, include, exclude, named=False)
            else:
                _add_file(entry, rel, found, include, exclude)
        folders += reversed(below)


def _is_dir(entry: os.DirEntry[str]) -> bool:
    """A folder, or a link to one (a link loop is none: :func:`_add` names it)."""
    try:
        return entry.is_dir()
    except OSError:
        return False


def _document(
    name: str,
    rel: str,
    found: Found,
    include: Sequence[str],
    exclude: Sequence[str],
    *,
    named: bool,
) -> str | None:
    """The format of a file the walk takes; None for one it does not.

    The globs leave a file out (never one named on the command line); a file of another type
    is counted by its ending.
    """
    if not named and not _wanted(rel, include, exclude):
        return None
    fmt = format_of(name)
    if fmt is None:
        dot = name.rfind(".")
        found.ignored[name[dot:].lower() if dot > 0 else "(none)"] += 1
    return fmt


def _add_file(
    entry: os.DirEntry[str], rel: str, found: Found, include: Sequence[str], exclude: Sequence[str]
) -> None:
    """A regular file met in a folder (the walk's fast path: no path objects until it counts)."""
    fmt = _document(entry.name, rel, found, include, exclude, named=False)
    if fmt is None:
        return
    if not _taken(rel, found):
        found.files.append((rel, entry.path, fmt))
        found.sizes[rel] = entry.stat().st_size


def _add(
    path: Path,
    rel: str,
    found: Found,
    include: Sequence[str],
    exclude: Sequence[str],
    *,
    named: bool,
) -> None:
    fmt = _document(path.name, rel, found, include, exclude, named=named)
    if fmt is None:
        return
    problem = _link_problem(path)
    if problem:
        found.skipped.append(Skipped(rel, problem))
    elif not path.is_file():
        found.skipped.append(Skipped(rel, "not a regular file"))
    elif not _taken(rel, found):
        found.files.append((rel, str(path), fmt))
        found.sizes[rel] = path.stat().st_size


def _taken(rel: str, found: Found) -> bool:
    """Whether a document is already found under ``rel`` (it is then not added again).

    A file named beside its folder is indexed once; a name that is not UTF-8 whose escaped form
    another file has is skipped, saying so.
    """
    if rel not in found.sizes:
        return False
    if rel in found.escaped:
        found.skipped.append(Skipped(rel, "its name is another file's, written with \\x escapes"))
    return True
