"""The page's weight does not grow with the explorer's data: a board of 100 submissions, each with
per-item scores on a near-miss suite with texts (and ten rerankers with per-query scores), keeps
index.html under 1.5 MB, the texts, scores and query tables in one file per submission and per suite
under explore/."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from lb_helpers import (
    NEARMISS_CATEGORIES,
    five_text_items,
    nearmiss_results,
    query_items,
    retrieval_results,
    save,
    save_scored,
    submission_hash,
    write_submission,
)

from harness.leaderboard.collect import build
from harness.leaderboard.explorer import read_explore_file
from harness.leaderboard.render import write_all
from harness.submissions import Registry
from harness.suites.registry import shipped_suites

N_SUBMISSIONS = 100
MAX_PAGE = 1_500_000
PER_CATEGORY = 12  # five-text items per near-miss category
DATASETS = ("cranfield", "cisi", "medline")
QUERIES = 20  # per dataset, for the first stage and the rerankers


def item(cat: str, i: int) -> dict:
    return {
        "id": f"{cat}-{i:02d}", "category": cat, "split": "test", "anchor": f"The {cat} cat number {i} sat on the mat.",
        "pos_close": f"The {cat} cat number {i} sat on the rug.", "pos_far": f"On the mat sat the {cat} cat number {i}.",
        "neg_close": f"The {cat} cat number {i} did not sit on the mat.", "neg_far": f"On the mat the {cat} cat number {i} never sat.",
    }  # fmt: skip


def write_suites(folder: Path) -> Path:
    (folder / "nearmiss").mkdir(parents=True)
    with open(folder / "nearmiss" / "toy.jsonl", "w") as f:
        for cat in NEARMISS_CATEGORIES:
            for i in range(PER_CATEGORY):
                f.write(json.dumps(item(cat, i)) + "\n")
    (folder / "nearmiss.yaml").write_text(
        f"name: nearmiss\ntype: nearmiss\nleaderboard: {{role: composition, preference: 0, chance: 0.5, category_order: {json.dumps(NEARMISS_CATEGORIES)}}}\n"
        "format: items-jsonl\nsplit: test\nfiles:\n  - {name: toy, path: nearmiss/toy.jsonl}\n"
    )
    datasets = "".join(f"  - {{name: {d}, path: beir/{d}}}\n" for d in DATASETS)
    (folder / "classic-ir.yaml").write_text(f"name: classic-ir\ntype: beir\nleaderboard: {{role: retrieval, preference: 1}}\ndatasets:\n{datasets}")
    return folder


def scores(k: int, n: int) -> tuple[float, float, float, float]:
    """Item n's four scores for submission k: right on most, wrong on a spread of items."""
    wrong = (n * 7 + k * 3) % 10 < 2 + k % 5
    return (0.2, 0.1, 0.8, 0.9) if wrong else (0.9 - 0.001 * k, 0.8, 0.3, 0.2)


@pytest.fixture(scope="module")
def board(tmp_path_factory) -> tuple[Path, list[Path]]:
    root = tmp_path_factory.mktemp("hundred")
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("CBENCH_SUBMISSIONS", raising=False)
        mp.setattr("harness.paths.SUBMISSIONS_DIR", root / "no-project-submissions")
        mp.setattr("harness.suites.registry.SUITES_DIR", write_suites(root / "suites"))
        subs, results = root / "subs", root / "results"
        revisions = {ds: d.revision for ds, d in shipped_suites()["nearmiss"].shipped_data().items()}
        names = [f"model-{k:03d}" for k in range(N_SUBMISSIONS)]
        for k, name in enumerate(names):
            write_submission(subs, name, parameters=1_000_000 * (k + 1), description=f"synthetic submission {k}")
            h = submission_hash(subs, name)
            ret = retrieval_results(name, "classic-ir", {d: 0.3 + 0.004 * k + 0.01 * j for j, d in enumerate(DATASETS)}, submission_hash=h)
            if k % 10 == 0:  # model-000 is the first stage of model-010, model-020, ...: per-query scores for all ten
                if k:
                    config = {**ret.metadata.submission_config, "first_stage": names[0]}
                    ret = ret.model_copy(update={"metadata": ret.metadata.model_copy(update={"submission_config": config})})
                values = [((q * 13 + k * 5) % 17) / 17 for q in range(QUERIES)]
                save_scored(results, ret, [it for d in DATASETS for it in query_items(d, values)])
            else:
                save(results, ret)
            comp = nearmiss_results(name, "nearmiss", 0.0, submission_hash=h)
            comp = comp.model_copy(update={"metadata": comp.metadata.model_copy(update={"dataset_revisions": revisions})})
            items = [
                it
                for cat in NEARMISS_CATEGORIES
                for it in five_text_items(cat, [f"{cat}-{i:02d}" for i in range(PER_CATEGORY)], [scores(k, n) for n in range(PER_CATEGORY)])
            ]
            save_scored(results, comp, items)
        for c in range(3):
            save(results, nearmiss_results(f"control-{c}", "nearmiss", 0.45 + 0.05 * c, kind="control"))
        lb = build(results, Registry([subs]).all())
        assert len(lb.rows) == N_SUBMISSIONS
        out = root / "board"
        return out, write_all(lb, out)


def test_a_hundred_submissions_keep_the_page_small(board):
    out, paths = board
    page = paths[2]
    html = page.read_text()
    explore = paths[4:]
    size, total = page.stat().st_size, sum(p.stat().st_size for p in explore)
    print(f"\nindex.html {size:,} bytes; explore/: {len(explore)} files, {total:,} bytes")
    assert size < MAX_PAGE, f"index.html is {size:,} bytes"
    # one file per submission and one for the suite's texts, beside the page, each listed by it
    names = [f"model-{k:03d}" for k in range(N_SUBMISSIONS)]
    assert sorted(p.relative_to(out).as_posix() for p in explore) == sorted([*(f"explore/{n}.js" for n in names), "explore/items/nearmiss.js"])
    index = json.loads(re.search(r'<script type="application/json" id="explore-index">(.*?)</script>', html, re.S).group(1))
    assert sorted(index["submissions"]) == names
    for p in explore:
        kind, name, fid, payload = read_explore_file(p.read_text())
        entry = index["suites"]["nearmiss"] if kind == "items" else index["submissions"][name]
        assert entry == {**entry, "path": p.relative_to(out).as_posix(), "id": fid}
        if kind == "submission":
            assert len(payload["suites"]["nearmiss"]["right"]) == PER_CATEGORY * len(NEARMISS_CATEGORIES)
            assert [r["first_stage"] for r in payload["reranks"]] == (["model-000"] if name.endswith("0") and name != "model-000" else [])
    # the page holds no texts and no per-item scores
    assert "cat number" not in html
    assert html.count('<option value="') >= 2 * N_SUBMISSIONS  # the pickers list every submission
    assert html.count('class="rerank"') == 9  # the nine rerankers' counts
