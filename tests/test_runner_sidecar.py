"""Per-item scores and intervals through `cbench run`: a tiny BEIR suite (two folders) and tiny
near-miss suites (five-text items, triplets) made here, scored by BM25 (no model, deterministic).

The sidecar ``<suite>.items.jsonl.gz`` is written with the results file, reused with it, rewritten
by --overwrite, byte-identical across identical runs, and a results file without one (made before
cbench kept them) is recomputed on the next run."""

from __future__ import annotations

import gzip
import json

import pytest
from typer.testing import CliRunner

from cbench_testutil import write_tiny_suites
from harness.cli import app
from harness.results import read_results
from harness.sidecar import SidecarHeader, main_values, read_sidecar, sidecar_problems

runner = CliRunner()
SUITES = ("tiny-ir", "tiny-items", "tiny-triplets")


def invoke(*args: str):
    return runner.invoke(app, list(args), catch_exceptions=False)


@pytest.fixture
def suites(tmp_path):
    return write_tiny_suites(tmp_path / "data")


def run_bm25(suites, res, *extra: str):
    args = ["run", "--model", "bm25", "--results-dir", str(res), "--quiet", *extra]
    for s in SUITES:
        args += ["--suite", str(suites[s])]
    r = invoke(*args)
    assert r.exit_code == 0, r.output
    return r


def test_run_writes_sidecars_consistent_with_the_results(suites, tmp_path):
    res = tmp_path / "res"
    run_bm25(suites, res)
    for s in SUITES:
        results = read_results(res / "bm25" / f"{s}.json")
        sc = read_sidecar(res / "bm25" / f"{s}.items.jsonl.gz")
        assert sidecar_problems(sc, results) == []
        assert sc.header == SidecarHeader.from_results(results, {ds: len(v) for ds, v in sc.by_dataset().items()})
        by = sc.by_dataset()
        assert list(by) == list(results.datasets)
        for ds, items in by.items():
            values = main_values(items, results.main_metric)
            assert sum(values) / len(values) == pytest.approx(results.datasets[ds][results.main_metric], abs=1e-12)
            low, high = results.ci95[ds]
            assert low <= results.datasets[ds][results.main_metric] <= high
        low, high = results.main_score_ci95
        assert low <= results.main_score <= high
    ir = read_sidecar(res / "bm25" / "tiny-ir.items.jsonl.gz").by_dataset()
    assert [it.id for it in ir["one"]] == ["q1", "q2", "q3"]  # judged queries only
    assert {"ndcg@10", "mrr@10", "recall@100", "map@100"} <= set(ir["two"][0].metrics)
    items = read_sidecar(res / "bm25" / "tiny-items.items.jsonl.gz").items
    assert [c.name for c in items[0].comparisons] == ["close_close", "close_far", "far_close", "far_far"]
    assert items[0].metrics["triplet_accuracy"] == sum(c.correct for c in items[0].comparisons) / 4
    triplets = read_sidecar(res / "bm25" / "tiny-triplets.items.jsonl.gz").items
    assert len(triplets) == 10 and all(len(t.comparisons) == 1 and t.comparisons[0].name == "anchor_negative" for t in triplets)
    assert all(t.metrics["triplet_accuracy"] == float(t.comparisons[0].correct) for t in triplets)


def test_sidecar_is_deterministic_gzip(suites, tmp_path):
    run_bm25(suites, tmp_path / "a")
    run_bm25(suites, tmp_path / "b")
    for s in SUITES:
        one = (tmp_path / "a" / "bm25" / f"{s}.items.jsonl.gz").read_bytes()
        two = (tmp_path / "b" / "bm25" / f"{s}.items.jsonl.gz").read_bytes()
        assert one == two  # the results files differ (date, timings); the scores do not
        assert one[4:8] == b"\0\0\0\0" and not one[3] & 0x08  # gzip mtime 0, no file name
    assert json.loads(gzip.decompress(one).splitlines()[0])["sidecar_version"] == 1


def test_rerun_reuses_and_overwrite_rewrites(suites, tmp_path, monkeypatch):
    import harness.runner

    written: list[str] = []

    def spy(path, header, items):
        written.append(path.name)
        real(path, header, items)

    real = harness.runner.write_sidecar
    monkeypatch.setattr(harness.runner, "write_sidecar", spy)
    res = tmp_path / "res"
    run_bm25(suites, res)
    assert sorted(set(written)) == sorted(f"{s}.items.jsonl.gz" for s in SUITES)
    path = res / "bm25" / "tiny-ir.items.jsonl.gz"
    before = path.read_bytes()
    written.clear()
    r = run_bm25(suites, res)
    assert "reused" in r.stdout and "computed" not in r.stdout
    assert written == []  # reused with the results file, not rewritten
    r = run_bm25(suites, res, "--overwrite")
    assert "computed" in r.stdout and "reused" not in r.stdout
    assert "tiny-ir.items.jsonl.gz" in written  # rewritten with the results file ...
    assert path.read_bytes() == before  # ... with the same scores
    assert not list(res.rglob(".*"))  # no temporary or lock file left


def test_results_without_a_sidecar_are_recomputed(suites, tmp_path):
    """Results from before per-item scores: they still load, and the next run recomputes them."""
    res = tmp_path / "res"
    run_bm25(suites, res)
    results_file = res / "bm25" / "tiny-ir.json"
    old = json.loads(results_file.read_text())
    for key in ("main_score_ci95", "ci95"):
        del old[key]
    results_file.write_text(json.dumps(old, indent=2))
    (res / "bm25" / "tiny-ir.items.jsonl.gz").unlink()
    loaded = read_results(results_file)
    assert loaded.main_score_ci95 is None and loaded.ci95 == {}
    r = invoke("run", "--model", "bm25", "--suite", str(suites["tiny-ir"]), "--results-dir", str(res))
    assert r.exit_code == 0, r.output
    assert "no per-item scores beside it" in " ".join(r.stderr.split())
    assert r.stdout.count("computed") == 2
    again = read_results(results_file)
    assert again.datasets == loaded.datasets and again.main_score_ci95 is not None
    assert sidecar_problems(read_sidecar(res / "bm25" / "tiny-ir.items.jsonl.gz"), again) == []


def test_sidecar_ahead_of_the_results_recomputes_only_that_dataset(suites, tmp_path):
    """A run killed between the two writes leaves the sidecar with a dataset the results lack:
    the results' other datasets are reused, the missing one is computed."""
    res = tmp_path / "res"
    run_bm25(suites, res)
    results_file = res / "bm25" / "tiny-ir.json"
    data = json.loads(results_file.read_text())
    del data["datasets"]["two"]
    data["complete"], data["main_score"], data["main_score_ci95"] = False, None, None
    results_file.write_text(json.dumps(data, indent=2))
    r = invoke("run", "--model", "bm25", "--suite", str(suites["tiny-ir"]), "--results-dir", str(res), "--quiet")
    assert r.exit_code == 0, r.output
    rows = {ln.split("│")[2].strip(): ln for ln in r.stdout.splitlines() if "tiny-ir" in ln and "│" in ln}
    assert "reused" in rows["one"] and "computed" in rows["two"]
    final = read_results(results_file)
    assert final.complete and sidecar_problems(read_sidecar(res / "bm25" / "tiny-ir.items.jsonl.gz"), final) == []


def test_tampered_sidecar_is_not_reused(suites, tmp_path):
    res = tmp_path / "res"
    run_bm25(suites, res)
    path = res / "bm25" / "tiny-triplets.items.jsonl.gz"
    path.write_bytes(b"not gzip")
    r = invoke("run", "--model", "bm25", "--suite", str(suites["tiny-triplets"]), "--results-dir", str(res))
    assert r.exit_code == 0, r.output
    assert "unreadable per-item scores" in " ".join(r.stderr.split()) and r.stdout.count("computed") == 2
    assert read_sidecar(path).header.suite == "tiny-triplets"


def test_a_failed_results_write_leaves_no_sidecar_behind(suites, tmp_path, monkeypatch):
    from cbench_testutil import enospc_open

    res = tmp_path / "res"
    monkeypatch.setattr("harness.atomic.open", enospc_open(after_bytes=200, match="tiny-ir.json"), raising=False)
    r = invoke("run", "--model", "bm25", "--suite", str(suites["tiny-ir"]), "--results-dir", str(res), "--quiet")
    assert r.exit_code == 2 and "No space left on device" in r.stderr
    assert sorted(p.name for p in res.rglob("*")) == ["bm25"]  # no results, no sidecar, no temporary file


def statuses(stdout: str) -> dict[tuple[str, str], str]:
    """(suite, dataset) -> status column of the results table."""
    out = {}
    for line in stdout.splitlines():
        cells = [c.strip() for c in line.split("│")[1:-1]]
        if len(cells) == 6 and cells[5] in ("reused", "computed"):
            out[(cells[0], cells[1])] = cells[5]
    return out


def test_changed_data_is_recomputed_and_unchanged_data_reused(suites, tmp_path):
    """A finished dataset is reused only while its data is the same: a regenerated near-miss file or
    an edited BEIR folder is recomputed, from the new data, on the next run without --overwrite."""
    res, fresh = tmp_path / "res", tmp_path / "fresh"
    run_bm25(suites, res)
    data = suites["tiny-items"].parent
    items = data / "items.jsonl"
    rows = [json.loads(line) for line in items.read_text().splitlines()]
    for row in rows:  # every label flipped: what BM25 got right is now wrong, and the reverse
        row.update(pos_close=row["neg_close"], neg_close=row["pos_close"], pos_far=row["neg_far"], neg_far=row["pos_far"])
    items.write_text("".join(json.dumps(r) + "\n" for r in rows))
    corpus = data / "beir" / "two" / "corpus.jsonl"
    docs = [json.loads(line) for line in corpus.read_text().splitlines()]
    docs.reverse()  # same documents, another file: the checksum changes, the scores need not
    corpus.write_text("".join(json.dumps(d) + "\n" for d in docs))
    before = read_results(res / "bm25" / "tiny-items.json").datasets["negation"]["triplet_accuracy"]
    r = run_bm25(suites, res)
    assert statuses(r.stdout) == {
        ("tiny-ir", "one"): "reused",
        ("tiny-ir", "two"): "computed",
        ("tiny-items", "negation"): "computed",  # the revision is the file's checksum, so
        ("tiny-items", "role_swap"): "computed",  # every category of a changed file is recomputed
        ("tiny-triplets", "negation"): "reused",
        ("tiny-triplets", "role_swap"): "reused",
    }
    run_bm25(suites, fresh)
    for s in SUITES:
        assert read_results(res / "bm25" / f"{s}.json").datasets == read_results(fresh / "bm25" / f"{s}.json").datasets
    after = read_results(res / "bm25" / "tiny-items.json").datasets["negation"]["triplet_accuracy"]
    assert after != before
    assert not list(res.rglob(".*"))


# -- resampling units: the cluster bootstrap, and old results refreshed without rescoring ----------
def frames_run(suites, res, *extra: str):
    r = invoke(
        "run", "--model", "bm25", "--suite", str(suites["tiny-frames"]), "--suite", str(suites["tiny-items"]), "--results-dir", str(res), "--quiet", *extra
    )
    assert r.exit_code == 0, r.output
    return r


def test_clustered_suite_records_units_and_its_interval_method(suites, tmp_path):
    from cbench_testutil import ITEM_FRAMES
    from harness.stats.intervals import N_RESAMPLES, mean_ci

    res = tmp_path / "res"
    frames_run(suites, res)
    framed, plain = read_results(res / "bm25" / "tiny-frames.json"), read_results(res / "bm25" / "tiny-items.json")
    assert framed.datasets == plain.datasets  # the same items and scores; only the resampling differs
    by = read_sidecar(res / "bm25" / "tiny-frames.items.jsonl.gz").by_dataset()
    assert [it.unit for items in by.values() for it in items] == ITEM_FRAMES
    groups = [main_values(items, "triplet_accuracy") for items in by.values()]
    units = [[it.unit for it in items] for items in by.values()]
    varied = 0
    for ds, values, labels in zip(by, groups, units, strict=True):
        assert framed.ci95[ds] == mean_ci([values], units=[labels])
        if len(set(values)) > 1:  # BM25 gets every role_swap item wrong: a zero-width interval either way
            assert framed.ci95[ds] != mean_ci([values]) == plain.ci95[ds]
            varied += 1
    assert varied
    assert framed.main_score_ci95 == mean_ci(groups, units=units)
    assert framed.ci_method.model_dump() == {
        "method": "percentile bootstrap", "unit": "frame", "units": 4, "resamples": N_RESAMPLES, "confidence": 0.95, "seed": 0
    }
    assert framed.ci_method.describe() == f"percentile bootstrap over frames (4 units, within each dataset), {N_RESAMPLES} resamples, seed 0"
    assert (plain.ci_method.unit, plain.ci_method.units) == ("item", 8)
    run_bm25(suites, tmp_path / "ir")
    ir = read_results(tmp_path / "ir" / "bm25" / "tiny-ir.json")
    assert (ir.ci_method.unit, ir.ci_method.units) == ("query", 9)  # judged queries: 3 + 6


def test_resume_refreshes_old_intervals_from_the_sidecar_without_scoring(suites, tmp_path, monkeypatch):
    """Results from before resampling units (a sidecar without units, no ci_method, item-bootstrap
    intervals): the next run reuses every dataset, scores nothing, takes the units from the data and
    rewrites both files with the frame bootstrap. A second run then writes nothing."""
    import harness.runner
    from harness.scorers.lexical import LexicalScorer

    res = tmp_path / "res"
    frames_run(suites, res)
    want = read_results(res / "bm25" / "tiny-frames.json")
    results_file, spath = res / "bm25" / "tiny-frames.json", res / "bm25" / "tiny-frames.items.jsonl.gz"
    rows = [json.loads(x) for x in gzip.decompress(spath.read_bytes()).decode().splitlines()]
    for row in rows[1:]:
        del row["unit"]
    spath.write_bytes(gzip.compress(("\n".join(json.dumps(r, separators=(",", ":")) for r in rows) + "\n").encode(), mtime=0))
    old = json.loads(results_file.read_text())
    del old["ci_method"]
    old["ci95"] = {ds: [0.0, 1.0] for ds in old["ci95"]}  # as written by an older method
    old["main_score_ci95"] = [0.1, 0.9]
    results_file.write_text(json.dumps(old, indent=2))

    def no_scoring(self, *a, **k):
        raise AssertionError("a reused dataset was scored")

    monkeypatch.setattr(LexicalScorer, "score_pairs", no_scoring)
    written: list[str] = []
    real = harness.runner.write_sidecar
    monkeypatch.setattr(harness.runner, "write_sidecar", lambda path, header, items: (written.append(path.name), real(path, header, items)))
    r = frames_run(suites, res)
    assert set(statuses(r.stdout).values()) == {"reused"}
    got = read_results(results_file)
    assert (got.ci95, got.main_score_ci95, got.ci_method) == (want.ci95, want.main_score_ci95, want.ci_method)
    assert got.ci_method.unit == "frame"
    sc = read_sidecar(spath)
    assert all(it.unit is not None for it in sc.items) and sidecar_problems(sc, got) == []
    assert written == ["tiny-frames.items.jsonl.gz"]  # tiny-items: nothing changed, nothing written
    written.clear()
    before = results_file.read_bytes()
    frames_run(suites, res)
    assert written == [] and results_file.read_bytes() == before
