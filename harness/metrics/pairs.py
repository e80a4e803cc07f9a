"""Statistics of human-made pair suites: paired query-document ranking (NevIR) and pair
classification with a threshold chosen on a development set (PAWS).

Paired ranking: pairs of (q1, q2, doc1, doc2), q1 answered by doc1 only and q2 by doc2 only.
With s11 = s(q1, doc1), s12 = s(q1, doc2), s21 = s(q2, doc1), s22 = s(q2, doc2):
- paired_accuracy (NevIR's metric): share of pairs with s11 > s12 AND s22 > s21 (strict: ties
  fail); 0.25 when scores are random;
- query_accuracy: share of the 2N queries whose own document scores strictly higher;
- tie_rate: share of the 2N comparisons whose two scores are equal (all counted as failures).
Per pair (``paired_item_values``): paired_accuracy 0 or 1 and query_accuracy 0, 0.5 or 1, so the
dataset's values are means over pairs (what intervals and ``cbench compare`` resample).

Pair classification (s = score of a pair, label 1 = positive, e.g. paraphrase):
- auroc, false_accept@95, mean_sim_positive / mean_sim_negative / sim_gap: as
  ``metrics.nearmiss.pair_metrics``; average_precision: scikit-learn's, positives = label 1;
- accuracy: share of test pairs with (s > threshold) == label, at ``dev_threshold``, the threshold
  that maximises accuracy on the development pairs (``choose_threshold``; test labels are never
  looked at); dev_accuracy: that accuracy on the development pairs.
"""

from __future__ import annotations

import numpy as np

from harness.metrics.nearmiss import pair_metrics


def _f64(*xs: np.ndarray) -> list[np.ndarray]:
    return [np.asarray(x, dtype=np.float64) for x in xs]


def paired_item_values(s11: np.ndarray, s12: np.ndarray, s21: np.ndarray, s22: np.ndarray) -> dict[str, np.ndarray]:
    """Per pair: paired_accuracy (0 / 1) and query_accuracy (0 / 0.5 / 1)."""
    s11, s12, s21, s22 = _f64(s11, s12, s21, s22)
    q1, q2 = s11 > s12, s22 > s21
    return {"paired_accuracy": (q1 & q2).astype(np.float64), "query_accuracy": (q1.astype(np.float64) + q2) / 2}


def paired_metrics(s11: np.ndarray, s12: np.ndarray, s21: np.ndarray, s22: np.ndarray) -> dict[str, float]:
    s11, s12, s21, s22 = _f64(s11, s12, s21, s22)
    per = paired_item_values(s11, s12, s21, s22)
    ties = np.concatenate([s11 == s12, s22 == s21])
    return {
        "paired_accuracy": float(per["paired_accuracy"].mean()),
        "query_accuracy": float(per["query_accuracy"].mean()),
        "tie_rate": float(ties.mean()),
        "n": float(len(s11)),
    }


def choose_threshold(scores: np.ndarray, labels: np.ndarray) -> tuple[float, float]:
    """(threshold, accuracy): the threshold t that maximises the accuracy of "positive iff s > t"
    on these pairs. Candidates: one threshold per cut between consecutive distinct scores (the
    midpoint, or the lower score when the midpoint rounds up onto the higher one), below the lowest
    score (all positive) and the highest score (all negative). Ties between candidates: the lowest t."""
    s, y = _f64(scores)[0], np.asarray(labels).astype(np.int64)
    if len(s) == 0:
        raise ValueError("no scores to choose a threshold on")
    order = np.argsort(s, kind="stable")
    s, y = s[order], y[order]
    values, first = np.unique(s, return_index=True)
    # cut k puts the first k distinct values below the threshold (negative), k = 0 .. len(values)
    below = np.concatenate([first, [len(s)]])  # pairs below cut k
    neg_below = np.concatenate([[0], np.cumsum(1 - y)])[below]
    pos_above = int(y.sum()) - np.concatenate([[0], np.cumsum(y)])[below]
    acc = (neg_below + pos_above) / len(s)
    k = int(np.argmax(acc))  # first maximum: the lowest threshold
    if k == 0:
        t = float(np.nextafter(values[0], -np.inf))
    elif k == len(values):
        t = float(values[-1])
    else:
        lo, hi = values[k - 1], values[k]
        mid = lo + (hi - lo) / 2
        t = float(mid if lo <= mid < hi else lo)
    return t, float(acc[k])


def classification_metrics(scores: np.ndarray, labels: np.ndarray, threshold: float | None) -> dict[str, float]:
    """``pair_metrics`` and average precision; with a (development) ``threshold``, also accuracy at it."""
    from sklearn.metrics import average_precision_score  # here, not at import: sklearn costs ~2 s

    s, y = _f64(scores)[0], np.asarray(labels).astype(np.int64)
    out = pair_metrics(s, y)
    if "auroc" in out:
        out["average_precision"] = float(average_precision_score(y, s))
    if threshold is not None:
        out["accuracy"] = float(np.mean((s > threshold) == (y == 1)))
        out["dev_threshold"] = float(threshold)
    return out
