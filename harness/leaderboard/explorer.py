"""The failure browser's data, written beside index.html as one file per submission and one per
suite (:func:`explore_files`), each loaded by the page when it is selected.

Per near-miss suite whose data is in the repository (``NearMissSuite.shipped_data``: nearmiss,
nearmiss-hand), the texts of its items, the words of each candidate that differ from the anchor
(difflib over words, for highlighting) and, per ranked submission, each item's scores and which of
its comparisons it got right, read from the per-item scores files. Suites whose data is not in the
repository (sugarcrepe-pp) are left out with a one-line note, so the page is the same whether or
not $CBENCH_DATA_DIR is set; so are superseded suites (``superseded_by``: nearmiss-v1), whose texts
would only weigh the page down. Controls are not in the browser (the heatmaps show them).

Compact: each distinct score of an item (a "slot": s(left text, right text)) is kept once, as
``round(score * scale)``; a comparison names its positive and negative slot; which comparisons an
item got right is one bit mask. A submission scored on other data than the file holds now
(recorded data revision differs) is left out with a note.

Files (``explore/`` beside index.html; :data:`EXPLORE_DIR`): ``explore/items/<suite>.js`` holds a
suite's texts (:class:`BrowserSuite` less the scores), ``explore/<submission>.js`` a submission's
scores on every browser suite and its reranking tables (``reranks.py``). Each file is one call,
``cbenchExplore(kind, name, id, block)``: ``block`` is the JSON, gzip-compressed (no timestamp) and
base64-encoded (:func:`pack`), ``id`` the first 16 hex digits of the block's sha256. The page inserts
a file as a ``<script>`` element when it needs it (that works from a ``file://`` path, where
``fetch()`` of a local file does not, and over http), and keeps an index of every file's path and id
(:func:`explore_index`), so a file left over from another build is refused, not misread. The same
results give the same bytes.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from harness.data.nearmiss import NearMissData
from harness.errors import CBenchError
from harness.leaderboard.collect import Leaderboard
from harness.leaderboard.reranks import Rerank, rerank_payload
from harness.names import NAME_PATTERN
from harness.sidecar import ItemScores
from harness.suites.nearmiss import COMPARISON_TEXTS, NearMissSuite
from harness.suites.registry import shipped_suites

SCALE = 10_000

Slot = tuple[str, str]

# What each text of an item is (harness/data/nearmiss.py: NearMissItem, Triplet), for the legend.
FIELD_MEANINGS = {
    "anchor": "the sentence both candidates are scored against",
    "pos_close": "same meaning as the anchor, a minimal in-place change",
    "pos_far": "same meaning, restructured",
    "neg_close": "the category's minimal meaning-changing edit of the anchor",
    "neg_far": "the same wrong meaning as neg_close, restructured like pos_far",
    "positive": "a meaning-preserving rewrite of the anchor",
    "negative": "the near-miss: a small edit that changes the meaning",
}

_WORD = re.compile(r"\S+")
_EDGE = re.compile(r"^\W+|\W+$")


def _utf16(text: str, i: int) -> int:
    """Index ``i`` of ``text`` in UTF-16 code units (JavaScript string indices)."""
    return len(text[:i].encode("utf-16-le")) // 2


def changed_spans(anchor: str, text: str) -> list[tuple[int, int]]:
    """[start, end) ranges of ``text`` (UTF-16 indices) whose words differ from ``anchor``: difflib
    over the words, compared without case and edge punctuation; replaced and inserted words count."""

    def key(w: str) -> str:
        return _EDGE.sub("", w.lower()) or w.lower()

    a = [key(m.group()) for m in _WORD.finditer(anchor)]
    words = list(_WORD.finditer(text))
    b = [key(m.group()) for m in words]
    out: list[tuple[int, int]] = []
    for op, _i1, _i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op in ("replace", "insert") and j2 > j1:
            out.append((_utf16(text, words[j1].start()), _utf16(text, words[j2 - 1].end())))
    return out


class SubmissionScores(BaseModel):
    model_config = ConfigDict(extra="forbid")

    right: list[int] = Field(description="per item: bit k set when comparison k was right; -1 when the item was not scored")
    scores: list[int | None] = Field(description="per item, then per slot: round(score * scale); null when not scored")


class BrowserSuite(BaseModel):
    model_config = ConfigDict(extra="forbid")

    suite: str
    label: str
    fields: list[str] = Field(description="the texts kept per item, by field name (anchor, pos_close, ... / positive, negative)")
    slots: list[Slot] = Field(description="the scores kept per item: s(left field, right field)")
    comparisons: list[tuple[str, int, int]] = Field(description="(name, positive slot, negative slot); right when positive > negative")
    datasets: list[str]
    items: list[tuple[int, str, list[str]]] = Field(description="(dataset index, item id, texts in fields order)")
    changed: list[list[list[tuple[int, int]]]] = Field(
        default_factory=list, description="per item, per field: [start, end) ranges (UTF-16) of the words that differ from the anchor"
    )
    submissions: dict[str, SubmissionScores]


class BrowserData(BaseModel):
    model_config = ConfigDict(extra="forbid")

    scale: int = SCALE
    submissions: list[str] = Field(description="ranked submissions in page order")
    suites: list[BrowserSuite]
    notes: list[str] = Field(default_factory=list, description="one line per suite or submission left out, and why")


def _order(lb: Leaderboard, suite: str, datasets: list[str]) -> list[str]:
    order = list(lb.facts[suite].category_order) if suite in lb.facts else []
    return [d for d in order if d in datasets] + [d for d in datasets if d not in order]


def browser_suite(lb: Leaderboard, suite: str, data: dict[str, NearMissData], names: list[str], notes: list[str]) -> BrowserSuite | None:
    """One suite's browser data from its shipped ``data`` (dataset -> NearMissData) and the per-item
    scores of ``names``; what is left out goes to ``notes``."""
    label = lb.label(suite)
    scored: list[tuple[str, dict[str, list[ItemScores]]]] = []
    for name in names:
        got = lb.scored.get(name, suite) if lb.scored is not None else CBenchError("no per-item scores read")
        if isinstance(got, CBenchError):
            notes.append(f"{label}: {name} is not in the browser: {got.message}")
            continue
        r, by_ds = got
        stale = [ds for ds in r.datasets if ds not in data or r.metadata.dataset_revisions.get(ds) != data[ds].revision]
        if stale:
            notes.append(f"{label}: {name} is not in the browser: scored on other data than the suite's file holds now ({', '.join(stale)})")
            continue
        scored.append((name, by_ds))
    if not scored:
        return None
    comparisons: list[str] = []
    for _name, by_ds in scored:
        for items in by_ds.values():
            for it in items:
                comparisons += [c.name for c in it.comparisons if c.name not in comparisons]
    unknown = [c for c in comparisons if c not in COMPARISON_TEXTS]
    if unknown or not comparisons:
        notes.append(
            f"{label}: not in the browser: {'comparisons ' + ', '.join(unknown) + ' name no texts' if unknown else 'no comparisons in its per-item scores'}"
        )
        return None
    slots: list[Slot] = list(dict.fromkeys(side for c in comparisons for side in COMPARISON_TEXTS[c]))
    comps = [(c, slots.index(COMPARISON_TEXTS[c][0]), slots.index(COMPARISON_TEXTS[c][1])) for c in comparisons]
    datasets = _order(lb, suite, [ds for ds in data if any(ds in by_ds for _n, by_ds in scored)])
    records = [(ds, rec) for ds in datasets for rec in [*data[ds].items, *data[ds].triplets]]
    by_id = [{it.id: it for items in by_ds.values() for it in items} for _name, by_ds in scored]
    records = [(ds, rec) for ds, rec in records if any(rec.id in ids for ids in by_id)]  # only what is shown
    used = {f for slot in slots for f in slot}
    fields = [f for f in type(records[0][1]).model_fields if f in used] if records else []
    items = [(datasets.index(ds), rec.id, [getattr(rec, f) for f in fields]) for ds, rec in records]
    changed = [
        [[] if f == "anchor" or "anchor" not in fields else changed_spans(texts[fields.index("anchor")], t) for f, t in zip(fields, texts, strict=True)]
        for _d, _i, texts in items
    ]
    subs = {name: _scores([ids.get(rec.id) for _ds, rec in records], comps, len(slots)) for (name, _by), ids in zip(scored, by_id, strict=True)}
    return BrowserSuite(
        suite=suite, label=label, fields=fields, slots=slots, comparisons=comps, datasets=datasets, items=items, changed=changed, submissions=subs
    )


def _scores(items: list[ItemScores | None], comps: list[tuple[str, int, int]], n_slots: int) -> SubmissionScores:
    right: list[int] = []
    scores: list[int | None] = []
    index = {name: k for k, (name, _p, _n) in enumerate(comps)}
    for it in items:
        values: list[int | None] = [None] * n_slots
        if it is None:
            right.append(-1)
            scores += values
            continue
        bits = 0
        for c in it.comparisons:
            k = index[c.name]
            _name, pos, neg = comps[k]
            bits |= int(c.correct) << k
            values[pos], values[neg] = round(c.positive * SCALE), round(c.negative * SCALE)
        right.append(bits)
        scores += values
    return SubmissionScores(right=right, scores=scores)


def browser_data(lb: Leaderboard) -> BrowserData:
    names = [r.submission for r in lb.rows]
    shipped = shipped_suites()
    suites: list[BrowserSuite] = []
    notes: list[str] = []
    for suite in lb.suites_of("nearmiss"):
        have = [n for n in names if (n, suite) in lb.results]
        if not have:
            continue
        facts = lb.facts.get(suite)
        if facts is not None and facts.superseded_by:
            notes.append(
                f"{lb.label(suite)}: not in the browser: superseded by {lb.label(facts.superseded_by)} "
                "(its column and heatmap stay; per-item scores: cbench compare)"
            )
            continue
        s = shipped.get(suite)
        data = s.shipped_data() if isinstance(s, NearMissSuite) else None
        if data is None:
            notes.append(
                f"{lb.label(suite)}: not in the browser: its data is not in the repository, so this page has no texts for it "
                "(per-item scores: cbench compare)"
            )
            continue
        if built := browser_suite(lb, suite, data, have, notes):
            suites.append(built)
    return BrowserData(submissions=names, suites=suites, notes=notes)


def pack(obj: object) -> str:
    """A file's block: compact JSON, gzip-compressed (level 9, no timestamp: the same bytes on every
    build), base64. Base64 has no quote, ``<``, ``>`` or ``&``, so it sits in any string literal."""
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return base64.b64encode(gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0)).decode("ascii")


def unpack(block: str) -> Any:
    """The JSON back from :func:`pack`'s block (tests, and anyone reading the files)."""
    return json.loads(gzip.decompress(base64.b64decode(block.strip())))


EXPLORE_DIR = "explore"  # beside index.html
CALLBACK = "cbenchExplore"  # the global each file calls (the page defines it)
ITEMS = "items"  # kind of a suite's texts file: explore/items/<suite>.js
SUBMISSION = "submission"  # kind of a submission's file: explore/<submission>.js


@dataclass(frozen=True)
class ExploreFile:
    """One file under explore/: ``path`` relative to the page's folder."""

    path: str
    kind: str
    name: str
    id: str
    text: str


def _stems(names: list[str]) -> dict[str, str]:
    """name -> file name stem: the name itself when it is a plain name (harness.names) that no other
    name equals but for case (a case-insensitive disk would mix them up), else ``_`` and 16 hex
    digits of its sha256 (a plain name never starts with ``_``)."""
    out: dict[str, str] = {}
    taken: set[str] = set()
    for name in sorted(names):
        stem = name if re.fullmatch(NAME_PATTERN, name) and name.lower() not in taken else "_" + hashlib.sha256(name.encode("utf-8")).hexdigest()[:16]
        taken.add(stem.lower())
        out[name] = stem
    return out


def _file(kind: str, name: str, path: str, payload: object) -> ExploreFile:
    block = pack(payload)
    fid = hashlib.sha256(block.encode("ascii")).hexdigest()[:16]
    args = ", ".join(json.dumps(a) for a in (kind, name, fid, block))
    text = f"/* cbench leaderboard: explorer data, loaded by index.html (harness/leaderboard/explorer.py) */\n{CALLBACK}({args});\n"
    return ExploreFile(path, kind, name, fid, text)


def suite_payload(s: BrowserSuite) -> dict:
    """A suite's texts file: everything of :class:`BrowserSuite` but the submissions' scores."""
    return s.model_dump(mode="json", exclude={"submissions"})


def submission_payload(name: str, data: BrowserData, reranks: list[Rerank]) -> dict:
    """A submission's file: its scores on each browser suite that has them, its reranking tables."""
    suites = {s.suite: s.submissions[name].model_dump(mode="json") for s in data.suites if name in s.submissions}
    return {"name": name, "suites": suites, "reranks": [rerank_payload(r) for r in reranks if r.reranker == name and r.note is None]}


def explore_files(data: BrowserData, reranks: list[Rerank]) -> list[ExploreFile]:
    """Every file under explore/: one per browser suite (its texts), one per ranked submission with
    scores in the browser or reranking tables; in path order."""
    suite_stems = _stems([s.suite for s in data.suites])
    files = [_file(ITEMS, s.suite, f"{EXPLORE_DIR}/items/{suite_stems[s.suite]}.js", suite_payload(s)) for s in data.suites]
    with_data = [n for n in data.submissions if any(n in s.submissions for s in data.suites) or any(r.reranker == n and r.note is None for r in reranks)]
    stems = _stems(with_data)
    files += [_file(SUBMISSION, n, f"{EXPLORE_DIR}/{stems[n]}.js", submission_payload(n, data, reranks)) for n in with_data]
    return sorted(files, key=lambda f: f.path)


def explore_index(data: BrowserData, files: list[ExploreFile]) -> dict:
    """What the page keeps of the files: each one's path and id, by kind and name, and the browser
    suites' labels and categories (for the pickers, before any file is loaded)."""
    where = {(f.kind, f.name): {"path": f.path, "id": f.id} for f in files}
    return {
        "scale": data.scale,
        "suites": {s.suite: {"label": s.label, "datasets": s.datasets, **where[(ITEMS, s.suite)]} for s in data.suites},
        "submissions": {n: where[(SUBMISSION, n)] for n in data.submissions if (SUBMISSION, n) in where},
    }


def read_explore_file(text: str) -> tuple[str, str, str, Any]:
    """(kind, name, id, payload) of a file's text (tests, and anyone reading the files)."""
    call = text[text.index(CALLBACK + "(") + len(CALLBACK) + 1 : text.rindex(");")]
    kind, name, fid, block = json.loads(f"[{call}]")
    if hashlib.sha256(block.encode("ascii")).hexdigest()[:16] != fid:
        raise ValueError(f"explorer file of {kind} {name!r}: its id does not match its data")
    return kind, name, fid, unpack(block)


def comparison_legend(data: BrowserData) -> list[tuple[str, str]]:
    """(code, meaning) of every comparison and text field the browser shows, in order of first use:
    close_far = s(anchor, pos_close) vs s(anchor, neg_far), right when the first is higher."""
    out: dict[str, str] = {}
    for s in data.suites:
        for name, _p, _n in s.comparisons:
            (pl, pr), (nl, nr) = COMPARISON_TEXTS[name]
            out.setdefault(name, f"s({pl}, {pr}) vs s({nl}, {nr}): right when the first score is higher")
    for s in data.suites:
        for f in s.fields:
            if f in FIELD_MEANINGS:
                out.setdefault(f, FIELD_MEANINGS[f])
    return list(out.items())
