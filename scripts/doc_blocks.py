"""Write a generated block between its HTML-comment markers (``<!-- TAG:start -->`` ...
``<!-- TAG:end -->``) in a markdown page; the rest of the page stays as it is.

Used by the report scripts (field_report.py, nearmiss_report.py, paper_ab_report.py), each of
which owns one block of one page under docs/.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness.atomic import atomic_write_text  # noqa: E402


def replace_block(page: Path, tag: str, text: str) -> None:
    """Put ``text`` between ``page``'s markers for ``tag``; exits naming the page when they are missing."""
    start, end = f"<!-- {tag}:start -->", f"<!-- {tag}:end -->"
    old = page.read_text(encoding="utf-8")
    if start not in old or end not in old:
        raise SystemExit(f"{page}: no {start} ... {end} markers")
    block = start + "\n" + text + end
    atomic_write_text(page, re.sub(re.escape(start) + ".*?" + re.escape(end), lambda _: block, old, count=1, flags=re.S))


def print_or_write(doc: str, page: Path, tag: str, make_text) -> None:
    """A report script's command line: print ``make_text()``, or with ``--write [PAGE]`` put it
    between ``PAGE``'s markers for ``tag`` (default ``page``). ``doc``: the script's docstring."""
    import argparse

    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument(
        "--write", nargs="?", type=Path, const=page, default=None, metavar="PAGE", help=f"replace the {tag} block of PAGE (default {page.relative_to(ROOT)})"
    )
    args = ap.parse_args()
    text = make_text()
    if args.write is None:
        print(text, end="")
        return
    replace_block(args.write, tag, text)
