"""`cbench leaderboard --check` and the per-item scores beside results files: validated when
present, optional (results from before them stay valid)."""

from __future__ import annotations

import gzip
import json

from lb_helpers import nearmiss_results, retrieval_results, save, submission_hash
from typer.testing import CliRunner

from harness.cli import app
from harness.results import Results
from harness.sidecar import ItemScores, SidecarHeader, sidecar_path, write_sidecar

runner = CliRunner()


def check(subs, results):
    return runner.invoke(app, ["leaderboard", "--check", "--results-dir", str(results), "--submissions-dir", str(subs)], catch_exceptions=False)


def save_with_sidecar(results_dir, r: Results):
    """The results file and a sidecar that agrees with it: two items per dataset, main metric value
    +-0.1 around the dataset's value."""
    path = save(results_dir, r)
    items = []
    for ds, metrics in r.datasets.items():
        v = metrics[r.main_metric]
        items += [ItemScores(dataset=ds, id=f"{ds}-{i}", metrics={r.main_metric: v + d}) for i, d in enumerate((-0.1, 0.1))]
    counts = {ds: 2 for ds in r.datasets}
    write_sidecar(sidecar_path(path), SidecarHeader.from_results(r, counts), items)
    return path, sidecar_path(path)


def problems(r) -> list[str]:
    assert r.exit_code == 2, r.output
    assert "Traceback" not in r.output
    return [line for line in r.output.splitlines() if line.strip()]


def test_sidecars_are_optional_and_checked_when_present(env):
    subs, results = env
    h = submission_hash(subs, "alpha")
    save(results, nearmiss_results("alpha", "nearmiss", 0.6, submission_hash=h))  # no sidecar: still valid
    save_with_sidecar(results, retrieval_results("alpha", "nanobeir", {"ArguAna": 0.5, "NQ": 0.6}, submission_hash=h))
    r = check(subs, results)
    assert r.exit_code == 0, r.output
    assert "ok: 2 results files" in r.output


def test_a_sidecar_that_disagrees_is_one_line_per_problem(env):
    subs, results = env
    h = submission_hash(subs, "alpha")
    _, spath = save_with_sidecar(results, retrieval_results("alpha", "nanobeir", {"ArguAna": 0.5, "NQ": 0.6}, submission_hash=h))
    rows = [json.loads(x) for x in gzip.decompress(spath.read_bytes()).splitlines()]
    rows[1]["metrics"]["ndcg@10"] = 0.9  # ArguAna's mean becomes 0.75
    rows[4]["id"] = rows[3]["id"]  # NQ: a duplicate id
    spath.write_bytes(gzip.compress(("\n".join(json.dumps(x) for x in rows) + "\n").encode(), mtime=0))
    assert problems(check(subs, results)) == [
        f"{spath}: dataset ArguAna: mean ndcg@10 over 2 items is 0.750000 but the results file has 0.500000",
        f"{spath}: dataset NQ: 1 id(s) appear more than once, e.g. 'NQ-0'",
    ]


def test_unreadable_and_orphan_sidecars(env):
    subs, results = env
    h = submission_hash(subs, "alpha")
    path, spath = save_with_sidecar(results, nearmiss_results("alpha", "nearmiss", 0.6, submission_hash=h))
    spath.write_bytes(b"not gzip")
    orphan = results / "alpha" / "sugarcrepe-pp.items.jsonl.gz"
    orphan.write_bytes(gzip.compress(b"{}\n", mtime=0))
    lines = problems(check(subs, results))
    assert lines[0].startswith(f"{spath}: unreadable per-item scores:")
    assert lines[1] == f"{orphan}: path: per-item scores without a results file (sugarcrepe-pp.json) beside them"
    assert len(lines) == 2


def test_a_sidecar_of_another_run(env):
    subs, results = env
    h = submission_hash(subs, "alpha")
    _, spath = save_with_sidecar(results, nearmiss_results("alpha", "nearmiss", 0.6, submission_hash=h))
    save(results, nearmiss_results("alpha", "nearmiss", 0.6, submission_hash=h, limit_queries=5))  # rerun, sidecar left behind
    assert problems(check(subs, results)) == [f"{spath}: header.limit_queries: None but the results file has 5"]
