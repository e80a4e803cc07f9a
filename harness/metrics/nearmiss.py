"""Near-miss rejection statistics for any scorer s(a, b).

For triplets (anchor a, positive p, near-miss n):
- triplet_accuracy: share with s(a, p) > s(a, n) (strict: ties count as failures);
- tot_accuracy (two positives, SugarCrepe++'s text-only task): s(p1, p2) > s(p1, n) and
  s(p1, p2) > s(p2, n);
- mean_sim_positive / mean_sim_negative: mean s(a, p) and mean s(a, n); sim_gap = their difference;
- auroc: s as a classifier of positives (s(a, p)) versus near-misses (s(a, n)) (scikit-learn);
- false_accept@95: share of near-misses accepted at the highest threshold that still accepts
  95% of positives (read off scikit-learn's ROC curve: FPR at the first point with TPR >= 0.95).
For pairs only the statistics defined for them are reported (mean_sim_negative, and auroc /
false_accept@95 / mean_sim_positive when labelled meaning-preserving pairs are present).
"""

from __future__ import annotations

import numpy as np

ACCEPT_RATE = 0.95


def _binary(pos: np.ndarray, neg: np.ndarray) -> dict[str, float]:
    from sklearn.metrics import (  # here, not at import: sklearn+scipy cost ~2 s per cbench start
        roc_auc_score,
        roc_curve,
    )

    y = np.concatenate([np.ones(len(pos)), np.zeros(len(neg))])
    s = np.concatenate([pos, neg])
    fpr, tpr, _ = roc_curve(y, s)
    idx = int(np.argmax(tpr >= ACCEPT_RATE - 1e-12))
    return {"auroc": float(roc_auc_score(y, s)), "false_accept@95": float(fpr[idx])}


def triplet_metrics(s_ap: np.ndarray, s_an: np.ndarray, s_pn: np.ndarray | None = None) -> dict[str, float]:
    s_ap, s_an = np.asarray(s_ap, dtype=np.float64), np.asarray(s_an, dtype=np.float64)
    out = {
        "triplet_accuracy": float(np.mean(s_ap > s_an)),
        "mean_sim_positive": float(np.mean(s_ap)),
        "mean_sim_negative": float(np.mean(s_an)),
        "sim_gap": float(np.mean(s_ap) - np.mean(s_an)),
        "n": float(len(s_ap)),
    }
    if s_pn is not None:
        s_pn = np.asarray(s_pn, dtype=np.float64)
        out["tot_accuracy"] = float(np.mean((s_ap > s_an) & (s_ap > s_pn)))
    out.update(_binary(s_ap, s_an))
    return out


def pair_metrics(scores: np.ndarray, labels: np.ndarray) -> dict[str, float]:
    scores, labels = np.asarray(scores, dtype=np.float64), np.asarray(labels)
    pos, neg = scores[labels == 1], scores[labels == 0]
    out: dict[str, float] = {"n": float(len(scores))}
    if len(neg):
        out["mean_sim_negative"] = float(np.mean(neg))
    if len(pos):
        out["mean_sim_positive"] = float(np.mean(pos))
    if len(pos) and len(neg):
        out["sim_gap"] = out["mean_sim_positive"] - out["mean_sim_negative"]
        out.update(_binary(pos, neg))
    return out
