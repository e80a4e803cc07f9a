"""The gate columns: each model as a semantic-cache or filter decision with ONE global threshold.

A cache returns a stored answer when s(query, cached query) >= t; the deployer fixes t once,
before the traffic it is judged on. So for each model and each composition suite that has a
development suite (a suite YAML with ``leaderboard: {role: dev, dev_for: <suite>}``: ``nearmiss-dev``
for ``nearmiss``, ``paws-dev`` for ``paws``):

- t = the threshold that accepts ``ACCEPT`` (90%) of the development positives (meaning-preserving
  pairs), read from the model's per-item scores on the development suite;
- on the test suite, at that t: the **false-accept rate** (share of near-miss / non-paraphrase pairs
  with s >= t) and the **true-accept rate actually reached** (share of positives with s >= t);
- beside it, the false-accept rate at the threshold chosen on the TEST positives for the same 90%
  (what MTEB-style pair metrics and ``false_accept@95`` report): the gap is the calibration cost.

Pairs per item: a five-text near-miss item gives (anchor, pos_close) and (anchor, pos_far) as
positives and (anchor, neg_close), (anchor, neg_far) as near-misses (from its comparisons
close_close and far_far); a triplet item (anchor, positive) and (anchor, negative); a pair item its
label. Nothing is rescored: the scores are those the results' per-item files keep.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from harness.sidecar import ItemScores

ACCEPT = 0.90


@dataclass(frozen=True)
class Gate:
    suite: str
    dev_suite: str
    threshold: float
    false_accept: float  # on test, at the development threshold
    true_accept: float  # on test, at the development threshold (the target is ACCEPT)
    false_accept_test: float  # on test, at the threshold that accepts ACCEPT of the test positives
    dev_true_accept: float  # on the development positives (>= ACCEPT; more with ties)
    positives: int  # test pairs
    negatives: int
    dev_positives: int


def pairs(items: list[ItemScores]) -> tuple[np.ndarray, np.ndarray]:
    """(scores of positive pairs, scores of near-miss pairs) of per-item scores (module docstring)."""
    pos: list[float] = []
    neg: list[float] = []
    for it in items:
        if it.pair is not None:
            (pos if it.pair.label == 1 else neg).append(it.pair.score)
            continue
        by = {c.name: c for c in it.comparisons}
        if "close_close" in by and "far_far" in by:
            pos += [by["close_close"].positive, by["far_far"].positive]
            neg += [by["close_close"].negative, by["far_far"].negative]
        elif "anchor_negative" in by:
            pos.append(by["anchor_negative"].positive)
            neg.append(by["anchor_negative"].negative)
    return np.asarray(pos, dtype=np.float64), np.asarray(neg, dtype=np.float64)


def threshold(positives: np.ndarray, rate: float = ACCEPT) -> float:
    """The highest t with at least ``rate`` of ``positives`` at or above it (accept iff s >= t)."""
    if positives.size == 0:
        raise ValueError("no positive pairs")
    k = math.ceil(rate * positives.size - 1e-9)
    return float(np.sort(positives)[::-1][k - 1])


def gate(suite: str, dev_suite: str, dev_items: list[ItemScores], test_items: list[ItemScores]) -> Gate | None:
    """The gate of one model, or None when either side has no positive or no negative pairs."""
    dpos, _dneg = pairs(dev_items)
    pos, neg = pairs(test_items)
    if not dpos.size or not pos.size or not neg.size:
        return None
    t = threshold(dpos)
    t_test = threshold(pos)
    return Gate(
        suite=suite,
        dev_suite=dev_suite,
        threshold=t,
        false_accept=float(np.mean(neg >= t)),
        true_accept=float(np.mean(pos >= t)),
        false_accept_test=float(np.mean(neg >= t_test)),
        dev_true_accept=float(np.mean(dpos >= t)),
        positives=int(pos.size),
        negatives=int(neg.size),
        dev_positives=int(dpos.size),
    )


# -- the page's columns ---------------------------------------------------------------------

GATE_HEADING = "Gate: one threshold per model (semantic cache)"
Cell = tuple[str, str, float | None, str | None, str | None]  # text, CSV, sort key, note, tooltip
FIELDS = (
    ("false_accept", "FA @dev t ↓", "near-miss pairs accepted on test at the threshold set on the development pairs (lower is better)"),
    ("true_accept", "TA reached", f"positive pairs accepted on test at that threshold (the development target is {ACCEPT:.0%})"),
    ("false_accept_test", "FA @test t", f"near-misses accepted at the threshold chosen on the test positives for {ACCEPT:.0%} true accepts (optimistic)"),
)


def gate_keys(suites: dict[str, str]) -> list[str]:
    return [f"gate:{s}:{f}" for s in suites for f, _h, _t in FIELDS]


def gate_columns(suites: dict[str, str], label) -> list[tuple[str, str, str]]:
    """(key, header, tooltip) of the three columns of each gate suite; ``label``: suite -> its label."""
    return [(f"gate:{s}:{f}", f"{label(s)} {h}", f"{t}; threshold from {label(d)}") for s, d in suites.items() for f, h, t in FIELDS]


def gate_cells(g) -> list[Cell]:
    """The three cells of one row's gate (a Gate, or a collect.Cell with the reason it is missing)."""
    if not isinstance(g, Gate):
        return [("—", "", None, g.note, None)] * 3
    tip = (
        f"threshold {g.threshold:.6g} accepts {g.dev_true_accept:.1%} of {g.dev_positives} development positives ({g.dev_suite}); "
        f"on {g.suite} test: {g.false_accept:.1%} of {g.negatives} near-misses and {g.true_accept:.1%} of {g.positives} positives accepted; "
        f"threshold chosen on test: {g.false_accept_test:.1%} of near-misses"
    )
    return [(f"{getattr(g, f):.3f}", f"{getattr(g, f):.6g}", getattr(g, f), None, tip) for f, _h, _t in FIELDS]


def gate_line(suites: dict[str, str], label) -> str:
    pairs_ = ", ".join(f"{label(s)} (threshold from {label(d)})" for s, d in suites.items())
    return (
        f"Each model as a cache or filter with one global threshold t (accept when s ≥ t): t accepts {ACCEPT:.0%} of the development "
        f"positives; FA @dev t = share of the test near-misses accepted at t, TA reached = share of the test positives accepted at t; "
        f"FA @test t = the same at the threshold chosen on the test positives (optimistic: what a threshold tuned on the evaluated "
        f"data reports; the gap to FA @dev t is the calibration cost). Suites: {pairs_}. Near-miss items give (anchor, pos_close), "
        "(anchor, pos_far) as positives and (anchor, neg_close), (anchor, neg_far) as near-misses."
    )
