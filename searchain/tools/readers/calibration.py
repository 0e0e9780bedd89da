"""What a reader's confidence means here: θ measured by ``searchain calibrate``, read by every run.

SearChain's θ is a number on the reader's own scale (1.5 on DPR's relevance logits, chosen in
the paper by sweeping from 1.0 in steps of 0.1 for the best F1 on held-out QA). On another
reader, or the same reader on other data, the number means nothing until it is measured.
``searchain calibrate`` reads single-hop sub-questions with their gold passages, measures how
often a reading is right at each confidence, and writes a :class:`Calibration` per reader into
a JSON file (``.searchain/calibration.json`` unless told otherwise). A run then takes θ from
there (:func:`theta_for`), says so, and where the confidence was measured to carry no signal
(AUC within noise of 0.5) it corrects nothing rather than correcting at random
(:func:`run_theta`).
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import asdict, dataclass
from dataclasses import fields as dataclass_fields
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel

from searchain.cache import load_once
from searchain.errors import SettingError
from searchain.tools.llms.resolve import model_identity
from searchain.tools.readers.auto import auto_reader
from searchain.tools.readers.resolve import resolve_reader
from searchain.types import Reader

DEFAULT_FILE = ".searchain/calibration.json"
"""Where ``searchain calibrate`` writes, and runs read, when no other file is named."""

FORMAT = 1
"""The file's format version; a file of another is refused in one line."""


@dataclass(frozen=True)
class Calibration:
    """One reader's measured confidence: its AUC, the θ chosen, and what that θ gives."""

    reader: str
    """The reader it was measured on, as :func:`reader_identity` names it."""
    theta: float | None
    """The smallest θ whose corrections reached ``target`` precision; ``None`` when none did
    (or the confidence carries no signal): then no reading is confident enough to correct."""
    target: float
    """The precision of corrections asked for (the share of readings above θ that are right, at
    the lower end of its 95% interval)."""
    precision: float
    """The precision reached at ``theta`` on the readings measured (0 when ``theta`` is None)."""
    recall: float
    """The share of right readings at or above ``theta`` (0 when ``theta`` is None)."""
    auc: float
    """How well the confidence separates right readings from wrong ones (0.5: not at all)."""
    auc_se: float
    """The AUC's standard error (Hanley and McNeil, 1982)."""
    right: int
    """Readings that were right (token F1 with the gold answer at least 0.5)."""
    total: int
    """Readings measured."""
    data: str
    """What was read: the data sets, their split and how many sub-questions."""

    @property
    def signal(self) -> bool:
        """Whether the AUC is above 0.5 by more than twice its standard error.

        A higher confidence is then right more often; one below 0.5 by as much is no use to
        Verify either.
        """
        return self.auc - 2 * self.auc_se > 0.5

    def line(self, path: str) -> str:
        """One line for a run's start: which θ, from where, and what it was measured to mean."""
        measured = f"AUC {self.auc:.2f} ± {self.auc_se:.2f} on {self.total} readings, {path}"
        if not self.signal:
            return (
                f"θ: none: the {self.reader} reader's confidence carries no signal here "
                f"({measured}): Verify corrects nothing; set θ to correct anyway"
            )
        if self.theta is None:
            return (
                f"θ: none: no confidence of the {self.reader} reader reached precision "
                f"{self.target:.2f} ({measured}): Verify corrects nothing"
            )
        return (
            f"θ = {self.theta:.4g} for the {self.reader} reader (calibrated: precision "
            f"{self.precision:.2f}, recall {self.recall:.2f}; {measured})"
        )


def calibration_file() -> Path:
    """The file runs read: ``SEARCHAIN_CALIBRATION``, else ``.searchain/calibration.json``."""
    return Path(os.environ.get("SEARCHAIN_CALIBRATION") or DEFAULT_FILE)


def reader_identity(spec: str, llm: str | BaseChatModel) -> str:
    """The name a reader is calibrated under, as it runs in this environment.

    ``auto`` is the reader it stands for here; the ``llm`` reader is named by the model that
    reads (its file's digest for a local one: another file is another reader).
    """
    if spec == "auto":
        spec = auto_reader().spec
    name, _, arg = spec.partition(":")
    return f"llm:{model_identity(arg or llm)}" if name == "llm" else spec


def load(path: Path) -> dict[str, Calibration]:
    """The calibrations in ``path`` by reader (none when it does not exist); one line if broken.

    A path that exists but is no file (a folder, a device) is refused, never read as "no
    calibration": the run would then use the reader's default without a word of why.
    """
    if not path.exists():
        return {}
    if not path.is_file():
        raise SettingError(
            "calibration file {path} is not a file: point {calibration} at a JSON file "
            "written by {calibrate}",
            settings=("calibration", "calibrate"),
            path=path,
        )
    stat = path.stat()
    return load_once(("calibration", str(path.resolve()), stat.st_mtime_ns), lambda: _read(path))


def _read(path: Path) -> dict[str, Calibration]:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        if raw.get("format") != FORMAT:
            raise ValueError(f"format {raw.get('format')!r}, not {FORMAT}")
        return {name: _entry(name, entry) for name, entry in raw["readers"].items()}
    except (OSError, ValueError, TypeError, KeyError, AttributeError) as exc:
        raise SettingError(
            "calibration file {path} is broken ({exc}): calibrate again with {calibrate}, or "
            "remove it",
            settings=("calibrate",),
            path=path,
            exc=exc,
        ) from None


NUMBERS = ("target", "precision", "recall", "auc", "auc_se")
COUNTS = ("right", "total")


def _entry(name: str, entry: dict[str, Any]) -> Calibration:
    """One reader's calibration, every field of its declared type.

    A hand-edited ``"theta": "0.5"`` or ``true`` is refused here, not compared with a reading's
    confidence later.
    """
    fields = set(entry)
    expected = {f.name for f in dataclass_fields(Calibration)}
    if fields != expected:
        raise ValueError(f"{name!r} has fields {sorted(fields)}, not {sorted(expected)}")
    numbers = [*NUMBERS, *(["theta"] if entry["theta"] is not None else [])]
    for key in numbers:
        value = entry[key]
        if type(value) not in (int, float) or not math.isfinite(value):
            raise ValueError(f"{name!r}: {key} must be a finite number, got {value!r}")
    for key in COUNTS:
        if type(entry[key]) is not int or entry[key] < 0:
            raise ValueError(f"{name!r}: {key} must be a whole number, got {entry[key]!r}")
    if not isinstance(entry["reader"], str) or entry["reader"] != name:
        raise ValueError(f"{name!r}: its reader field names {entry['reader']!r}")
    if not isinstance(entry["data"], str):
        raise ValueError(f"{name!r}: data must be text")
    return Calibration(**entry)


def save(path: Path, calibration: Calibration) -> None:
    """Add (or replace) ``calibration`` in ``path``, written whole to a new file, then renamed."""
    readers = {**load(path), calibration.reader: calibration}
    body = {"format": FORMAT, "readers": {k: asdict(v) for k, v in sorted(readers.items())}}
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    partial.write_text(json.dumps(body, indent=2) + "\n", encoding="utf-8")
    os.replace(partial, path)


def calibrated(spec: str, llm: str | BaseChatModel) -> Calibration | None:
    """The calibration of reader ``spec`` (reading for ``llm``) in the run's file, if any."""
    return load(calibration_file()).get(reader_identity(spec, llm))


def run_theta(reader: str | Reader, llm: str | BaseChatModel, theta: float | None) -> float | None:
    """θ for a run: ``theta`` when given, else the calibrated one, else the reader's default.

    ``None`` where the calibration found no usable θ (no signal, or no θ reaching its
    precision): then no reading is confident enough to correct the LLM.
    """
    if theta is not None:
        return theta
    if isinstance(reader, str):
        calibration = calibrated(reader, llm)
        if calibration is not None:
            return calibration.theta if calibration.signal else None
    return resolve_reader(reader, llm).threshold


def theta_line(reader: str | Reader, llm: str | BaseChatModel, theta: float | None) -> str:
    """One line for a run's start: the θ Verify will use and where it came from."""
    if theta is not None:
        return f"θ = {theta:.4g} (given)"
    path = calibration_file()
    if isinstance(reader, str) and (calibration := calibrated(reader, llm)) is not None:
        return calibration.line(str(path))
    default = resolve_reader(reader, llm).threshold
    return (
        f"θ = {default:.4g}, the reader's default, not calibrated here (no entry in {path}: "
        "searchain calibrate measures what its confidence means)"
    )
