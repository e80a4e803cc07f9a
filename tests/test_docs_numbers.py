"""Every result quoted in README.md and docs/*.md matches the committed results files.

A quoted result carries a small HTML comment (invisible when the markdown is rendered) right
before it, saying where it comes from:

    <!-- score: minilm-transformer-frozen/nearmiss-hand -->0.5329
    <!-- score: minilm-cnn/nearmiss-hand - all-MiniLM-L6-v2/nearmiss-hand -->+0.15
    <!-- score: all-MiniLM-L6-v2/offline-ir/scifact -->0.645082
    <!-- score: all-MiniLM-L6-v2/paws:accuracy -->0.615        (a metric other than the main one)
    <!-- score: all-MiniLM-L6-v2/nearmiss:ci -->±0.023           (half the 95% interval)
    <!-- bytes: leaderboard/results/all-MiniLM-L6-v2/nearmiss.items.jsonl.gz -->233 KB
    <!-- block: paper-ab -->0.442      (a number of the generated block of that name in the same file)
    <!-- compare: A B suite[/dataset] -->+0.1368 [+0.1146, +0.1596], p ≤ 0.0004

A reference is ``submission/suite[/dataset][:metric]`` under leaderboard/results; the quoted number
is compared with the value rounded to as many decimals as the quote shows (with its sign when
the quote has one). ``compare`` reruns ``cbench compare`` on the committed per-item scores.

So that a new quote cannot skip the check, every number with four or more decimals outside the
generated blocks (``<!-- NAME:start -->`` ... ``<!-- NAME:end -->``, written by scripts) and code
(blocks and inline) must be such a quote.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "leaderboard" / "results"
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

NUMBER = r"[+−-]?\d[\d,]*(?:\.\d+)?%?"
ANNOTATION = re.compile(r"<!-- (score|bytes|block|compare): (.+?) -->")
COMPARE_QUOTE = re.compile(rf"({NUMBER})[^\[\n]*\[({NUMBER}), ({NUMBER})\][\s\S]{{0,60}}?(?<!\w)p\s*(=|≤)\s*({NUMBER})")
SCORE_QUOTE = re.compile(rf"±?{NUMBER}")
SIZE_QUOTE = re.compile(rf"{NUMBER} (?:bytes|KB|MB)")
SIZE_UNITS = {"KB": 1e3, "MB": 1e6}
BLOCK = re.compile(r"<!-- ([\w:.-]+):start -->(.*?)<!-- \1:end -->", re.S)
FENCE = re.compile(r"^[ \t]*```.*?^[ \t]*```", re.S | re.M)
INLINE_CODE = re.compile(r"`[^`]+`")  # may wrap onto the next line, as in markdown
FOUR_DECIMALS = re.compile(r"(?<![\w.])\d\.\d{4,}(?![\d])")


@dataclass(frozen=True)
class Quote:
    page: str  # relative to the repository root
    line: int
    kind: str
    source: str
    text: str  # the quoted number(s) as written
    span: tuple[int, int]  # where the quote sits in the page


def plain(number: str) -> str:
    return number.replace("−", "-").replace(",", "").rstrip("%")


def decimals(number: str) -> int:
    n = plain(number)
    return len(n.split(".")[1]) if "." in n else 0


def as_quoted(value: float, quoted: str) -> str:
    """``value`` written the way ``quoted`` is: same decimals, a sign when the quote has one."""
    sign = "+" if plain(quoted)[0] in "+-" else ""
    return f"{value:{sign}.{decimals(quoted)}f}"


def code_spans(text: str) -> list[tuple[int, int]]:
    """Code blocks and inline code: examples of the convention there are not quotes."""
    fences = [m.span() for m in FENCE.finditer(text)]
    prose = "".join(" " if inside(i, fences) else c for i, c in enumerate(text))
    return fences + [m.span() for m in INLINE_CODE.finditer(prose)]


def inside(pos: int, spans: list[tuple[int, int]]) -> bool:
    return any(s <= pos < e for s, e in spans)


def quotes(page: Path) -> list[Quote]:
    text = page.read_text(encoding="utf-8")
    code = code_spans(text)
    found = []
    for m in ANNOTATION.finditer(text):
        if inside(m.start(), code):
            continue
        kind, source = m.group(1), m.group(2).strip()
        rest = text[m.end() :]
        q = {"compare": COMPARE_QUOTE, "bytes": SIZE_QUOTE}.get(kind, SCORE_QUOTE).match(rest)
        line = text.count("\n", 0, m.start()) + 1
        assert q is not None, f"{page.name}:{line}: <!-- {kind}: {source} --> is not followed by a quote in the expected form"
        found.append(Quote(str(page.relative_to(ROOT)), line, kind, source, q.group(0), (m.end(), m.end() + q.end())))
    return found


ALL = [q for p in PAGES for q in quotes(p)]


def result(submission: str, suite: str) -> dict:
    path = RESULTS / submission / f"{suite}.json"
    assert path.is_file(), f"no results file {path.relative_to(ROOT)}"
    return json.loads(path.read_text(encoding="utf-8"))


def value(ref: str) -> float:
    """``submission/suite[/dataset][:metric]``: the main score, a dataset's main metric, another
    metric, or ``ci`` (half the width of the 95% interval)."""
    path, _, metric = ref.partition(":")
    submission, suite, *dataset = path.split("/")
    r = result(submission, suite)
    if metric == "ci":
        low, high = r["ci95"][dataset[0]] if dataset else r["main_score_ci95"]
        return (high - low) / 2
    if dataset:
        return r["datasets"][dataset[0]][metric or r["main_metric"]]
    return r["aggregate"][metric] if metric else r["main_score"]


def expression(source: str) -> float:
    left, *right = [part.strip() for part in source.split(" - ")]
    return value(left) - value(right[0]) if right else value(left)


def check(q: Quote) -> str | None:
    """None when the quote is right, else what the file says."""
    number = q.text.lstrip("±")
    if q.kind == "score":
        want = as_quoted(expression(q.source), number)
        return None if plain(want) == plain(number) else want
    if q.kind == "bytes":
        size = (ROOT / q.source).stat().st_size
        number, unit = number.split()
        want = f"{size:,}" if unit == "bytes" else as_quoted(size / SIZE_UNITS[unit], number)
        return None if plain(want) == plain(number) else f"{size:,} bytes"
    if q.kind == "block":
        blocks = dict(BLOCK.findall((ROOT / q.page).read_text(encoding="utf-8")))
        assert q.source in blocks, f"{q.page}: no generated block {q.source}"
        return None if re.search(r"(?<![\d.])" + re.escape(number) + r"(?![\d])", blocks[q.source]) else f"not in block {q.source}"
    raise AssertionError(q.kind)


@pytest.mark.parametrize("q", [q for q in ALL if q.kind != "compare"], ids=lambda q: f"{q.page}:{q.line}:{q.text}")
def test_quoted_number_matches_the_results(q):
    assert check(q) is None, f"{q.page}:{q.line}: {q.text} quoted for {q.kind} {q.source}; the files say {check(q)}"


@pytest.mark.parametrize("q", [q for q in ALL if q.kind == "compare"], ids=lambda q: f"{q.page}:{q.line}:{q.text}")
def test_quoted_comparison_matches_cbench_compare(q):
    from harness.compare import compare
    from harness.suites.registry import results_suite

    a, b, ref = q.source.split()
    suite, _, dataset = ref.partition("/")
    name, declared = results_suite(suite)
    unit = declared.resampling_unit if declared is not None and declared.cluster_field is not None else None
    report = compare(RESULTS, a, b, name, suite, declared_unit=unit)
    row = next(r for r in report.datasets if r.dataset == dataset) if dataset else report.suite_row
    diff, low, high, rel, p = COMPARE_QUOTE.match(q.text).groups()
    assert row.ci95 is not None
    got = (
        as_quoted(row.difference, diff),
        as_quoted(row.ci95[0], low),
        as_quoted(row.ci95[1], high),
        "≤" if row.p_value_at_floor else "=",
        as_quoted(row.p_value, p),
    )
    assert tuple(map(plain, got)) == tuple(map(plain, (diff, low, high, rel, p))), f"{q.page}:{q.line}: quoted {q.text}; cbench compare gives {got}"


def unquoted(page: Path) -> list[str]:
    """Numbers with four or more decimals outside generated blocks, code and quotes."""
    text = page.read_text(encoding="utf-8")
    skipped = [q.span for q in quotes(page)] + [m.span() for m in BLOCK.finditer(text)] + code_spans(text)
    out = []
    for m in FOUR_DECIMALS.finditer(text):
        if not inside(m.start(), skipped):
            out.append(f"{page.name}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)}")
    return out


def test_there_are_quotes_to_check():
    assert len([q for q in ALL if q.page == "README.md"]) >= 5
    assert {q.kind for q in ALL} == {"score", "bytes", "block", "compare"}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_precise_number_is_a_checked_quote(page):
    assert unquoted(page) == []
