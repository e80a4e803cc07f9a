"""`cbench results refresh-intervals`: intervals recomputed from the per-item scores, with each
suite's current resampling unit, without rescoring and whatever the recorded fingerprints say.

Fixture: BM25 (no model) on the tiny suites; ``tiny-frames`` (five-text items in generator frames)
is then made to look like results from before resampling units: per-item scores without units, no
``ci_method``, item-bootstrap intervals, and fingerprints of an older formula."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cbench_testutil import ITEM_FRAMES, write_tiny_suites
from harness import __version__
from harness.cli import app
from harness.results import read_results
from harness.sidecar import main_values, read_sidecar, sidecar_problems
from harness.stats.intervals import mean_ci

runner = CliRunner()


def invoke(*args: str):
    return runner.invoke(app, list(args), catch_exceptions=False)


def refresh(res: Path, *extra: str):
    return invoke("results", "refresh-intervals", "--results-dir", str(res), *extra)


def snapshot(res: Path) -> dict[str, bytes]:
    return {str(p.relative_to(res)): p.read_bytes() for p in sorted(res.rglob("*")) if p.is_file()}


def rewrite_sidecar(spath: Path, edit) -> None:
    rows = [json.loads(x) for x in gzip.decompress(spath.read_bytes()).decode().splitlines()]
    edit(rows)
    spath.write_bytes(gzip.compress(("\n".join(json.dumps(r, separators=(",", ":")) for r in rows) + "\n").encode(), mtime=0))


@pytest.fixture
def suites(tmp_path):
    return write_tiny_suites(tmp_path / "data")


def bm25_run(suites, res: Path) -> None:
    r = invoke("run", "--model", "bm25", "--suite", str(suites["tiny-frames"]), "--suite", str(suites["tiny-items"]), "--results-dir", str(res), "--quiet")
    assert r.exit_code == 0, r.output


def make_old(res: Path, *, fingerprints: dict[str, str] | None = None) -> None:
    """tiny-frames as written before resampling units: no units, no ci_method, item-bootstrap
    intervals (1000 resamples, as then); optionally other fingerprints (results and sidecar alike)."""
    path, spath = res / "bm25" / "tiny-frames.json", res / "bm25" / "tiny-frames.items.jsonl.gz"

    def strip(rows):
        for row in rows[1:]:
            row.pop("unit", None)
        if fingerprints is not None:
            rows[0]["fingerprints"] = fingerprints

    rewrite_sidecar(spath, strip)
    by = read_sidecar(spath).by_dataset()
    old = json.loads(path.read_text())
    del old["ci_method"]
    old["ci95"] = {ds: list(mean_ci([main_values(by[ds], "triplet_accuracy")], n_resamples=1000)) for ds in old["ci95"]}
    old["main_score_ci95"] = list(mean_ci([main_values(items, "triplet_accuracy") for items in by.values()], n_resamples=1000))
    if fingerprints is not None:
        old["metadata"]["fingerprints"] = fingerprints
    path.write_text(json.dumps(old, indent=2) + "\n")


def test_item_intervals_become_frame_intervals_without_rescoring(suites, tmp_path):
    res, fresh = tmp_path / "res", tmp_path / "fresh"
    bm25_run(suites, res)
    bm25_run(suites, fresh)
    want = read_results(fresh / "bm25" / "tiny-frames.json")  # a run today: frame intervals
    make_old(res, fingerprints={"model": "sha256:made-with-the-old-formula"})
    path = res / "bm25" / "tiny-frames.json"
    old = read_results(path)
    plain = (res / "bm25" / "tiny-items.json").read_bytes()

    r = refresh(res)
    assert r.exit_code == 0, r.output
    assert f"changed: {path} (intervals, units)" in r.stdout
    assert "1 file changed (1 unchanged, 0 skipped)" in r.stdout  # tiny-items: a run wrote it today
    assert (res / "bm25" / "tiny-items.json").read_bytes() == plain

    got = read_results(path)
    sc = read_sidecar(res / "bm25" / "tiny-frames.items.jsonl.gz")
    assert [it.unit for it in sc.items] == ITEM_FRAMES  # from the suite's data, written into the per-item scores
    assert sidecar_problems(sc, got) == []
    by = sc.by_dataset()
    groups = [main_values(items, "triplet_accuracy") for items in by.values()]
    units = [[it.unit for it in items] for items in by.values()]
    for ds, values, labels in zip(by, groups, units, strict=True):
        assert got.ci95[ds] == mean_ci([values], units=[labels])
    assert got.main_score_ci95 == mean_ci(groups, units=units)
    assert got.main_score_ci95 != old.main_score_ci95
    assert (got.ci95, got.main_score_ci95, got.ci_method.basis()) == (want.ci95, want.main_score_ci95, want.ci_method)
    assert (got.ci_method.unit, got.ci_method.units) == ("frame", 4)
    assert got.ci_method.recomputed is not None and got.ci_method.recomputed.cbench_version == __version__
    keep = {"ci95", "main_score_ci95", "ci_method"}
    assert got.model_dump(exclude=keep) == old.model_dump(exclude=keep)  # scores, fingerprints, git_commit, date ...
    assert json.loads(path.read_text())["ci_method"]["recomputed"].keys() == {"cbench_version", "git_commit"}


def test_a_second_run_changes_nothing_and_check_agrees(suites, tmp_path):
    res = tmp_path / "res"
    bm25_run(suites, res)
    make_old(res)
    before = snapshot(res)
    r = refresh(res, "--check")
    assert r.exit_code == 1, r.output
    assert f"differ: {res / 'bm25' / 'tiny-frames.json'} (intervals, units)" in r.stdout
    assert "1 of 2 results files differ" in r.stdout
    assert snapshot(res) == before  # --check writes nothing

    assert refresh(res).exit_code == 0
    after = snapshot(res)
    r = refresh(res)
    assert r.exit_code == 0 and "0 files changed (2 unchanged, 0 skipped)" in r.stdout
    assert snapshot(res) == after  # byte for byte
    r = refresh(res, "--check")
    assert r.exit_code == 0 and "0 of 2 results files differ" in r.stdout

    bm25_run(suites, res)  # a plain run reuses everything: the recomputed intervals are its own
    assert snapshot(res) == after


def test_a_mismatched_sidecar_is_one_error_and_nothing_is_written(suites, tmp_path):
    res = tmp_path / "res"
    bm25_run(suites, res)
    make_old(res)
    spath = res / "bm25" / "tiny-items.items.jsonl.gz"

    def other_scores(rows):
        rows[0]["datasets"]["negation"]["triplet_accuracy"] = 0.123

    rewrite_sidecar(spath, other_scores)
    before = snapshot(res)
    r = refresh(res)
    assert r.exit_code == 2
    lines = [x for x in r.stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and str(spath) in " ".join(r.stderr.split()) and "does not match tiny-items.json" in r.stderr
    assert snapshot(res) == before  # tiny-frames, which would change, is not written either
    assert refresh(res, "--check").exit_code == 2


def test_without_the_data_the_items_stand_alone_with_a_note(suites, tmp_path):
    res = tmp_path / "res"
    bm25_run(suites, res)
    make_old(res)
    (suites["tiny-frames"].parent / "items.jsonl").unlink()
    r = refresh(res)
    assert r.exit_code == 0, r.output
    assert "no frames for the per-item scores that lack them" in " ".join(r.stderr.split())
    got = read_results(res / "bm25" / "tiny-frames.json")
    assert got.ci_method.unit == "item" and got.ci_method.resamples == 10_000  # item bootstrap, today's method
    assert all(it.unit is None for it in read_sidecar(res / "bm25" / "tiny-frames.items.jsonl.gz").items)


def test_results_without_per_item_scores_are_skipped(suites, tmp_path):
    res = tmp_path / "res"
    bm25_run(suites, res)
    (res / "bm25" / "tiny-items.items.jsonl.gz").unlink()
    r = refresh(res)
    assert r.exit_code == 0, r.output
    assert "no per-item scores" in r.stderr and "0 files changed (1 unchanged, 1 skipped)" in r.stdout
