"""A tiny board for the explorer tests: toy suites in place of the shipped ones, and results with
per-item scores made here, so every row the page should show can be worked out by hand.

Suites (a folder standing in for suites/): ``nearmiss`` (the composition axis, five-text items in
two categories, data beside the YAML), ``toy-triplets`` (extra, triplets, data beside the YAML),
``toy-external`` (second composition column, data only under a data dir: no texts) and
``classic-ir`` (the retrieval axis).

Submissions: alpha and beta (encoders), gamma (reranks alpha's top k: ``first_stage: alpha``), and
the control ``ctl``. On ``nearmiss`` every comparison is right except: alpha gets neg-1 close_close
and all four of role-2 wrong; beta gets neg-2 far_far and all of role-2 wrong; gamma gets
everything right. So beta against baseline alpha fixes neg-1 close_close and breaks neg-2 far_far.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lb_helpers import five_text_items, nearmiss_results, query_items, retrieval_results, save, save_scored, triplet_items

from harness.suites.registry import shipped_suites

ITEMS = {  # id: (category, anchor, pos_close, pos_far, neg_close, neg_far)
    "neg-1": ("negation", "The door is open.", "The door is wide open.", "Someone has opened the door.",
              "The door is not open.", "Nobody has opened the door."),
    "neg-2": ("negation", "The shop sells bread.", "The shop sells fresh bread.", "Bread is sold at the shop.",
              "The shop does not sell bread.", "Bread is not sold at the shop."),
    "neg-3": ("negation", "Tom likes tea.", "Tom really likes tea.", "Tea is liked by Tom.", "Tom does not like tea.", "Tea is not liked by Tom."),
    "role-1": ("role_swap", "The dog chased the cat.", "The dog ran after the cat.", "The cat was chased by the dog.",
               "The cat chased the dog.", "The dog was chased by the cat."),
    "role-2": ("role_swap", "Anna paid Ben.", "Anna gave Ben the money.", "Ben was paid by Anna.", "Ben paid Anna.", "Anna was paid by Ben."),
    "role-3": ("role_swap", "Mia <b>called</b> Tom & left.", "Mia phoned Tom & left.", "Tom got a call from Mia, who left.",
               "Tom called Mia & left.", "Mia got a call from Tom, who left."),
}
TRIPLETS = {"tr-1": ("negation", "It is cold.", "It is very cold.", "It is not cold."), "tr-2": ("negation", "We won.", "Our team won.", "We lost.")}
RIGHT = (0.9, 0.8, 0.3, 0.2)  # s(anchor, x) for pos_close, pos_far, neg_close, neg_far: every comparison right
WRONG = {  # per submission: item -> its four scores
    "alpha": {"neg-1": (0.5, 0.8, 0.6, 0.2), "role-2": (0.2, 0.1, 0.7, 0.6)},  # close_close wrong; all wrong
    "beta": {"neg-2": (0.9, 0.4, 0.3, 0.5), "role-2": (0.3, 0.2, 0.8, 0.9)},  # far_far wrong; all wrong
    "gamma": {},
}
QUERIES = {  # nDCG@10 per query: cranfield q0..q3, medline q0..q1
    "alpha": ([0.5, 0.2, 0.9, 0.4], [0.3, 0.6]),
    "beta": ([0.4, 0.2, 0.8, 0.3], [0.3, 0.5]),
    "gamma": ([0.7, 0.2, 0.1, 0.5], [0.3, 0.9]),  # vs alpha: +0.2, 0, -0.8, +0.1 | 0, +0.3
}


def scores(name: str, item: str) -> tuple[float, float, float, float]:
    return WRONG[name].get(item, RIGHT)


def write_suites(folder: Path) -> Path:
    (folder / "nearmiss").mkdir(parents=True)
    with open(folder / "nearmiss" / "toy.jsonl", "w") as f:
        for i, (cat, a, pc, pf, nc, nf) in ITEMS.items():
            f.write(json.dumps({"id": i, "category": cat, "split": "test", "anchor": a, "pos_close": pc, "pos_far": pf, "neg_close": nc, "neg_far": nf}) + "\n")
    with open(folder / "toy-triplets.jsonl", "w") as f:
        for i, (cat, a, p, n) in TRIPLETS.items():
            f.write(json.dumps({"id": i, "category": cat, "anchor": a, "positive": p, "negative": n}) + "\n")
    yamls = {
        "nearmiss": "type: nearmiss\nleaderboard: {role: composition, preference: 0, category_order: [role_swap, negation]}\n"
        "format: items-jsonl\nsplit: test\nfiles:\n  - {name: toy, path: nearmiss/toy.jsonl}\n",
        "toy-triplets": "type: nearmiss\nleaderboard: {label: Toy triplets, role: extra}\n"
        "format: triplets-jsonl\nfiles:\n  - {name: trip, path: toy-triplets.jsonl}\n",
        "toy-external": "type: nearmiss\nleaderboard: {label: External, role: composition, preference: 1}\n"
        "format: triplets-jsonl\nfiles:\n  - {name: ext, path: external/ext.jsonl}\n",
        "classic-ir": "type: beir\nleaderboard: {role: retrieval, preference: 1}\n"
        "datasets:\n  - {name: cranfield, path: beir/cranfield}\n  - {name: medline, path: beir/medline}\n",
    }
    for name, text in yamls.items():
        (folder / f"{name}.yaml").write_text(f"name: {name}\n{text}")
    return folder


def revisions(suite: str) -> dict[str, str]:
    s = shipped_suites()[suite]
    return {ds: d.revision for ds, d in s.shipped_data().items()}


def with_revisions(r, revs: dict[str, str]):
    return r.model_copy(update={"metadata": r.metadata.model_copy(update={"dataset_revisions": revs})})


def write_board(root: Path, monkeypatch: pytest.MonkeyPatch, results: Path) -> None:
    """Toy suites in place of the shipped ones, and every results file (with per-item scores)."""
    monkeypatch.setattr("harness.suites.registry.SUITES_DIR", write_suites(root / "suites"))
    nm, trip = revisions("nearmiss"), revisions("toy-triplets")
    for name in ("alpha", "beta", "gamma"):
        r = retrieval_results(name, "classic-ir", {"cranfield": 0.0, "medline": 0.0})
        if name == "gamma":
            r = r.model_copy(update={"metadata": r.metadata.model_copy(update={"submission_config": {**r.metadata.submission_config, "first_stage": "alpha"}})})
        cran, med = QUERIES[name]
        save_scored(results, r, query_items("cranfield", cran) + query_items("medline", med))
        items = []
        for cat in ("negation", "role_swap"):
            ids = [i for i, v in ITEMS.items() if v[0] == cat]
            items += five_text_items(cat, ids, [scores(name, i) for i in ids])
        save_scored(results, with_revisions(nearmiss_results(name, "nearmiss", 0.0, categories=["negation", "role_swap"]), nm), items)
        wrong = name == "alpha"
        save_scored(
            results,
            with_revisions(nearmiss_results(name, "toy-triplets", 0.0, categories=["negation"]), trip),
            triplet_items("negation", list(TRIPLETS), [0.9, 0.2 if wrong else 0.9], [0.1, 0.5 if wrong else 0.1]),
        )
        save_scored(results, nearmiss_results(name, "toy-external", 0.0, categories=["ext"]), triplet_items("ext", ["e-1", "e-2"], [0.9, 0.9], [0.1, 0.95]))
    ctl = [
        *five_text_items("negation", ["neg-1", "neg-2", "neg-3"], [(0.1, 0.1, 0.9, 0.9)] * 3),
        *five_text_items("role_swap", ["role-1", "role-2", "role-3"], [RIGHT] * 3),
    ]
    save_scored(results, with_revisions(nearmiss_results("ctl", "nearmiss", 0.0, categories=["negation", "role_swap"], kind="control"), nm), ctl)
    save(results, nearmiss_results("ctl", "toy-external", 0.5, categories=["ext"], kind="control"))
