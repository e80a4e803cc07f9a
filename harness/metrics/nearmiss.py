"""Near-miss rejection statistics for any scorer s(a, b).

For triplets (anchor a, positive p, near-miss n):
- triplet_accuracy: share with s(a, p) > s(a, n) (strict: ties count as failures);
- tot_accuracy (two positives, SugarCrepe++'s text-only task): s(p1, p2) > s(p1, n) and
  s(p1, p2) > s(p2, n);
- mean_sim_positive / mean_sim_negative: mean s(a, p) and mean s(a, n); sim_gap = their difference;
- auroc: s as a classifier of positives (s(a, p)) versus near-misses (s(a, n)) (scikit-learn);
- false_accept@95: share of near-misses accepted at the highest threshold that still accepts
  95% of positives (read off scikit-learn's ROC curve: FPR at the first point with TPR >= 0.95).
For five-text items (nearmiss v2: anchor, pos_close, pos_far, neg_close, neg_far), four
comparisons per item, s(a, pos_x) > s(a, neg_y) (strict):
- cell_close_close, cell_close_far, cell_far_close, cell_far_far: each cell's accuracy;
- triplet_accuracy: the mean of the four cells (chance 0.5; any function of surface distance
  alone is right in one cross cell and wrong in the other);
- group_accuracy: share of items with all four comparisons right (Winoground-style);
- auroc / false_accept@95 over all positives (s(a, pos_close), s(a, pos_far)) versus all
  negatives (s(a, neg_close), s(a, neg_far)); mean_sim_positive / mean_sim_negative / sim_gap.
For pairs only the statistics defined for them are reported (mean_sim_negative, and auroc /
false_accept@95 / mean_sim_positive when labelled meaning-preserving pairs are present).

Per item (``triplet_item_values`` / ``item_item_values``): every accuracy above as one value per
item, so that the dataset's value is the mean of the items' values (kept with the per-item scores
beside the results file; what intervals and paired tests resample). The similarity means follow
from the comparisons' scores kept beside them; AUROC and false_accept@95 are not means over items.
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


def triplet_item_values(s_ap: np.ndarray, s_an: np.ndarray, s_pn: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Per triplet: its value (0 or 1) of each accuracy of ``triplet_metrics``."""
    s_ap, s_an = np.asarray(s_ap, dtype=np.float64), np.asarray(s_an, dtype=np.float64)
    out = {"triplet_accuracy": (s_ap > s_an).astype(np.float64)}
    if s_pn is not None:
        s_pn = np.asarray(s_pn, dtype=np.float64)
        out["tot_accuracy"] = ((s_ap > s_an) & (s_ap > s_pn)).astype(np.float64)
    return out


def item_item_values(s_pc: np.ndarray, s_pf: np.ndarray, s_nc: np.ndarray, s_nf: np.ndarray) -> dict[str, np.ndarray]:
    """Per five-text item: its value of each accuracy of ``item_metrics`` (triplet accuracy = the
    item's share of its four comparisons right; group accuracy and each cell = 0 or 1)."""
    from harness.data.nearmiss import CELL_NAMES

    ok = item_outcomes(s_pc, s_pf, s_nc, s_nf).astype(np.float64)
    return {
        "triplet_accuracy": ok.mean(axis=1),
        "group_accuracy": ok.min(axis=1),
        **{f"cell_{name}": ok[:, i] for i, name in enumerate(CELL_NAMES)},
    }


def item_outcomes(s_pc: np.ndarray, s_pf: np.ndarray, s_nc: np.ndarray, s_nf: np.ndarray) -> np.ndarray:
    """(items, 4) booleans: is each of the four comparisons right (cells in CELL_NAMES order)."""
    s_pc, s_pf, s_nc, s_nf = (np.asarray(x, dtype=np.float64) for x in (s_pc, s_pf, s_nc, s_nf))
    return np.stack([s_pc > s_nc, s_pc > s_nf, s_pf > s_nc, s_pf > s_nf], axis=1)


def item_metrics(s_pc: np.ndarray, s_pf: np.ndarray, s_nc: np.ndarray, s_nf: np.ndarray) -> dict[str, float]:
    from harness.data.nearmiss import CELL_NAMES

    ok = item_outcomes(s_pc, s_pf, s_nc, s_nf)
    cells = ok.mean(axis=0)
    pos = np.concatenate([np.asarray(s_pc, dtype=np.float64), np.asarray(s_pf, dtype=np.float64)])
    neg = np.concatenate([np.asarray(s_nc, dtype=np.float64), np.asarray(s_nf, dtype=np.float64)])
    out = {
        "triplet_accuracy": float(cells.mean()),
        "group_accuracy": float(ok.all(axis=1).mean()),
        **{f"cell_{name}": float(v) for name, v in zip(CELL_NAMES, cells, strict=True)},
        "mean_sim_positive": float(pos.mean()),
        "mean_sim_negative": float(neg.mean()),
        "sim_gap": float(pos.mean() - neg.mean()),
        "n": float(len(ok)),
    }
    out.update(_binary(pos, neg))
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
