"""The cost columns (ms/pair, ms/query) from cost files: shown where measured, blank where not."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest
from lb_helpers import nearmiss_results, retrieval_results, save, submission_hash

import harness
from harness.costs.record import CostRecord, Machine, PairCost, QueryCost, Timing, cost_path, write_cost
from harness.leaderboard.collect import build
from harness.leaderboard.render import render_csv, render_html, render_markdown
from harness.submissions import Registry


def record(name: str, subhash: str, ms_pair: float, ms_query: float | None, *, batch: dict[str, int] | None = None) -> CostRecord:
    t = Timing(wall_ms=[1.0], cpu_ms=[1.0])
    queries = None
    if ms_query is not None:
        queries = QueryCost(
            collection="classic-ir:medline", source="$CBENCH_DATA_DIR/beir/medline", revision=None, corpus_docs=1033, queries=30, sha256="0",
            ms_per_query=ms_query, cpu_ms_per_query=ms_query / 2, first_stage=name, top_k=100, index=t,
            search_ms_per_query=ms_query, search_cpu_ms_per_query=ms_query / 2, search_all=t, search_one=t,
        )  # fmt: skip
    return CostRecord(
        submission=name, kind="encoder", submission_hash=subhash, batch_sizes=batch or {}, fingerprints={}, repeats=3,
        pairs=PairCost(
            suite="nearmiss", suite_file="suites/nearmiss.yaml", split="test", pairs=256, rule="r", sha256="0",
            ms_per_pair=ms_pair, cpu_ms_per_pair=ms_pair / 2, timing=t,
        ),
        queries=queries,
        machine=Machine(cpu="Test CPU", logical_cpus=2, torch_threads=1, device="cpu", load_average_start=(0.1, 0.2, 0.3), load_average_end=(0.2, 0.2, 0.3)),
        cbench_version="0.1.0", git_commit="abc", python="3.11", platform="test", packages={}, date="2026-01-01T00:00:00+00:00",
        command="cbench cost --model " + name,
    )  # fmt: skip


@pytest.fixture
def results(env):
    subs, results = env
    for name, (ret, comp) in {"alpha": (0.5, 0.8), "beta": (0.4, 0.6)}.items():
        h = submission_hash(subs, name)
        save(results, retrieval_results(name, "classic-ir", {"medline": ret}, submission_hash=h))
        save(results, nearmiss_results(name, "nearmiss", comp, submission_hash=h))
    save(results, nearmiss_results("ctl", "nearmiss", 0.5, kind="control"))
    return subs, results


def _row(md: str, name: str) -> list[str]:
    line = next(line for line in md.splitlines() if re.match(rf"\| \d+ \| {name} \|", line))
    return [c.strip() for c in line.strip("|").split("|")]


def test_costs_show_where_measured_and_blank_elsewhere(results):
    subs, rdir = results
    write_cost(cost_path(rdir.parent / "cost", "alpha"), record("alpha", submission_hash(subs, "alpha"), 0.4123, 12.34, batch={"alpha": 32}))
    lb = build(rdir, Registry([subs]).all())
    assert lb.warnings == [] and set(lb.costs) == {"alpha"}
    md = render_markdown(lb)
    header = next(line for line in md.splitlines() if line.startswith("| rank"))
    cols = [c.strip() for c in header.strip("|").split("|")]
    assert cols[-3:] == ["ms/pair", "ms/query", "layer"]
    alpha, beta = _row(md, "alpha"), _row(md, "beta")
    assert alpha[cols.index("ms/pair")] == "0.412" and alpha[cols.index("ms/query")] == "12.3"
    assert beta[cols.index("ms/pair")] == "" and beta[cols.index("ms/query")] == ""  # not measured: blank, not 0
    assert "ms/pair, ms/query: scoring cost measured by `cbench cost`" in md
    assert "Generated from 5 results files and 1 cost file by cbench" in md
    rows = {r["submission"]: r for r in csv.DictReader(io.StringIO(render_csv(lb)))}
    assert rows["alpha"]["cost:ms_per_pair"] == "0.4123" and rows["alpha"]["cost:ms_per_query"] == "12.34"
    assert rows["alpha"]["cost_cpu_ms_per_pair"] == "0.20615" and rows["alpha"]["cost_batch_sizes"] == "alpha=32"
    assert rows["beta"]["cost:ms_per_pair"] == rows["beta"]["cost:ms_per_query"] == rows["beta"]["cost_batch_sizes"] == ""
    html = render_html(lb, "<svg xmlns='http://www.w3.org/2000/svg'></svg>", "<svg xmlns='http://www.w3.org/2000/svg'></svg>")
    assert 'data-key="cost:ms_per_pair"' in html and 'data-first="asc"' in html
    m = re.search(r'<td data-sort="0\.412300000" title="([^"]*)"', html)
    assert m and "batch size: alpha 32" in m.group(1) and "Test CPU" in m.group(1) and "1 torch thread" in m.group(1)


def test_frame_has_the_cost_and_nan_where_missing(results, monkeypatch):
    subs, rdir = results
    monkeypatch.setenv("CBENCH_SUBMISSIONS", str(subs))
    write_cost(cost_path(rdir.parent / "cost", "alpha"), record("alpha", submission_hash(subs, "alpha"), 0.5, 3.0))
    df = harness.leaderboard_frame(rdir).set_index("submission")
    assert df.loc["alpha", "cost:ms_per_pair"] == pytest.approx(0.5) and df.loc["alpha", "cost:ms_per_query"] == pytest.approx(3.0)
    assert df["cost:ms_per_pair"].isna()["beta"]
    other = rdir.parent / "elsewhere"
    write_cost(cost_path(other, "beta"), record("beta", submission_hash(subs, "beta"), 0.25, None))
    df = harness.leaderboard_frame(rdir, cost_dir=other).set_index("submission")
    assert df.loc["beta", "cost:ms_per_pair"] == pytest.approx(0.25) and df["cost:ms_per_pair"].isna()["alpha"]


def test_without_cost_files_the_tables_have_no_cost_columns(results):
    subs, rdir = results
    lb = build(rdir, Registry([subs]).all())
    md = render_markdown(lb)
    assert "ms/pair" not in md and "cost file" not in md
    rows = list(csv.DictReader(io.StringIO(render_csv(lb))))
    assert all(r["cost:ms_per_pair"] == "" and r["cost:ms_per_query"] == "" for r in rows)


def test_controls_show_pair_cost_and_stale_or_bad_files_are_flagged(results):
    subs, rdir = results
    cdir = rdir.parent / "cost"
    write_cost(cost_path(cdir, "ctl"), record("ctl", "0" * 16, 0.05, None))
    write_cost(cost_path(cdir, "beta"), record("beta", "f" * 16, 1.5, 2.5))  # an older version of beta's YAML
    write_cost(cost_path(cdir, "nobody"), record("nobody", "0" * 16, 1.0, 1.0))  # no results
    (cdir / "alpha.json").write_text("{")
    lb = build(rdir, Registry([subs]).all())
    assert any("alpha.json" in w and "left out" in w for w in lb.warnings)
    assert any("'nobody', which has no results" in w for w in lb.warnings)
    md = render_markdown(lb)
    controls = md.split("## Controls")[1].split("\n## ")[0]
    head = next(line for line in controls.splitlines() if line.startswith("| submission"))
    assert "ms/pair" in head and "ms/query" not in head  # controls have no retrieval
    assert re.search(r"\| ctl \[\d+\] \| control \| 0\.5000 \| 0\.05 \|", controls)  # [n]: not registered here
    beta = _row(md, "beta")
    assert any(re.fullmatch(r"1\.5 \[\d+\]", c) for c in beta)
    assert "cost measured for a different version of the submission YAML" in md


# The two shipped submissions whose weights only the hub has: this machine (and CI) cannot load
# them, so they have no results and no cost file here (docs/leaderboard.md says so).
HUB_ONLY = {"gte-moderncolbert", "ms-marco-minilm-ce"}


def test_every_shipped_submission_that_runs_here_has_a_committed_cost_file():
    root = Path(__file__).resolve().parents[2]
    shipped = Registry().all()  # submissions/ and submissions/controls/
    costs = {p.stem for p in (root / "leaderboard" / "cost").glob("*.json")}
    assert HUB_ONLY <= set(shipped)
    assert sorted(set(shipped) - HUB_ONLY - costs) == []
    for name in HUB_ONLY:  # hub ids, not local folders: nothing here can time them
        model = shipped[name].config.model
        assert "/" in model and not model.startswith((".", "/")), (name, model)
        assert not (root / "leaderboard" / "results" / name).exists()
