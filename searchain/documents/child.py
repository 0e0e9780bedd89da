"""The reading process: untrusted files parsed here, inside the limits the parent sets.

Started by :class:`searchain.documents.reading.Reader` as ``python -m
searchain.documents.child MEMORY_BYTES``. It caps its own address space first (``RLIMIT_AS``,
soft and hard: it can never raise it again), then reads requests from stdin, one at a time: a
JSON line (``fmt``, ``name``, ``size``, ``cpu``, ``chars``, ``max_pages``) and ``size`` bytes of
the file. Before each file it sets its CPU limit to what it has used plus the file's ``cpu``
seconds (the kernel stops it with SIGXCPU past that), and answers with one JSON line on the
descriptor that was stdout (a parser's own output goes to stderr instead). Its answers are
JSON, never pickles: the parent trusts no byte a parser could have shaped.
"""

from __future__ import annotations

import json
import math
import os
import resource
import sys
from typing import IO, Any

from searchain.documents.extracted import Extracted, Unreadable
from searchain.documents.formats import check_content, extract


def answer(request: dict[str, Any], data: bytes, memory: int) -> dict[str, Any]:
    """The reply to one file: its text, or why it is not read.

    A parser that runs out of memory rarely says so: lxml reports "unknown error", PDFium a
    data format error. So a failure while this file took the process's address space to within
    a tenth of ``memory`` is reported as the memory budget, whatever the parser said.
    """
    before = peak_address_space()
    reply = read(request, data)
    if "unreadable" in reply and peak_address_space() > max(before, 0.9 * memory):
        return {"over": "memory"}
    return reply


def peak_address_space() -> int:
    """The most address space this process has held (VmPeak), in bytes."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmPeak:"):
                return int(line.split()[1]) << 10
    return 0


def read(request: dict[str, Any], data: bytes) -> dict[str, Any]:
    """One file's text, or why it is not read (its parser's words)."""
    fmt, name = request["fmt"], request["name"]
    try:
        pages = None
        if fmt == "pdf" and request["max_pages"] is not None:  # counted only where bounded
            from searchain.documents.pdf import page_count

            check_content(fmt, data)  # before PDFium sees it
            pages = page_count(data)
            if pages > request["max_pages"]:
                return {"over": "pages", "pages": pages}
        document = extract(fmt, data, name)
    except Unreadable as exc:
        return {"unreadable": str(exc)}
    except MemoryError:
        return {"over": "memory"}
    except RecursionError:
        return {"unreadable": "nested too deeply to read"}
    except Exception as exc:
        said = (str(exc).splitlines() or [""])[0][:200]
        why = f"{type(exc).__name__}: {said}" if said else type(exc).__name__
        return {"unreadable": f"its {fmt.upper()} parser failed ({why})"}
    chars = sum(len(section.text) for section in document.sections)
    if chars > request["chars"]:
        return {"over": "characters", "chars": chars}
    return {"document": as_json(document), "pages": pages}


def as_json(document: Extracted) -> dict[str, Any]:
    """An extracted document as plain JSON values (``Reader`` builds it again)."""
    return {
        "title": document.title,
        "sections": [[s.text, s.start, s.page, s.section, s.anchor] for s in document.sections],
        "empty_pages": document.empty_pages,
    }


def limit_cpu(seconds: float) -> None:
    """Let this process use ``seconds`` more CPU, then be stopped by the kernel (SIGXCPU)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    used = usage.ru_utime + usage.ru_stime
    resource.setrlimit(resource.RLIMIT_CPU, (math.ceil(used + seconds), resource.RLIM_INFINITY))


def serve(requests: IO[bytes], replies: IO[bytes], memory: int) -> None:
    """Answer requests until the parent closes stdin."""
    for line in requests:
        request = json.loads(line)
        data = requests.read(request["size"])
        limit_cpu(request["cpu"])
        replies.write(json.dumps(answer(request, data, memory)).encode() + b"\n")
        replies.flush()


def main() -> None:
    """Cap the address space at ``argv[1]`` bytes, then serve the parent's requests."""
    memory = int(sys.argv[1])
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # what a parser prints never mixes with the replies
    serve(sys.stdin.buffer, replies, memory)


if __name__ == "__main__":
    main()
