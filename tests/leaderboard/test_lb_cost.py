"""The cost columns (ms/pair, index ms/doc, index KB/doc, ms/query with the index built) from cost
files: shown where measured, blank where not (with the reason where a cost file exists: schema 1)."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
from lb_helpers import nearmiss_results, retrieval_results, save, submission_hash

import harness
from harness.costs.record import CostRecord, IndexCost, IndexPart, Machine, PairCost, QueryCost, Timing, cost_path, write_cost
from harness.leaderboard.collect import build
from harness.leaderboard.cost import SCHEMA_1_INDEX, SCHEMA_1_QUERY
from harness.leaderboard.render import render_csv, render_html, render_markdown
from harness.submissions import Registry


def record(
    name: str, subhash: str, ms_pair: float, ms_query: float | None, *, batch: dict[str, int] | None = None, index_ms: float = 2.5, index_bytes: float = 1536.0
) -> CostRecord:
    t = Timing(wall_ms=[1.0], cpu_ms=[1.0])
    queries = index = None
    if ms_query is not None:
        queries = QueryCost(
            collection="classic-ir:medline", source="$CBENCH_DATA_DIR/beir/medline", revision=None, corpus_docs=1033, queries=30, sha256="0",
            ms_per_query=ms_query, cpu_ms_per_query=ms_query / 2, first_stage=name, top_k=100,
            search_ms_per_query=ms_query, search_cpu_ms_per_query=ms_query / 2, search_all=t, search_one=t,
        )  # fmt: skip
        stores = "pooled vectors float32 (384 dims)"
        build = Timing(wall_ms=[index_ms * 1033], cpu_ms=[index_ms * 1033 / 2])
        part = IndexPart(submission=name, kind="encoder", stores=stores, bytes=round(index_bytes * 1033), build=build)
        index = IndexCost(
            collection="classic-ir:medline", documents=1033, ms_per_doc=index_ms, cpu_ms_per_doc=index_ms / 2,
            bytes=round(index_bytes * 1033), bytes_per_doc=index_bytes, stores=stores, parts=[part],
        )  # fmt: skip
    return CostRecord(
        submission=name, kind="encoder", submission_hash=subhash, batch_sizes=batch or {}, fingerprints={}, repeats=3,
        pairs=PairCost(
            suite="nearmiss", suite_file="suites/nearmiss.yaml", split="test", pairs=256, rule="r", sha256="0",
            ms_per_pair=ms_pair, cpu_ms_per_pair=ms_pair / 2, timing=t,
        ),
        index=index,
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
    cost_cols = ["ms/pair", "index ms/doc", "index KB/doc", "ms/query (index built)"]
    assert cols[-5:] == [*cost_cols, "layer"]
    alpha, beta = _row(md, "alpha"), _row(md, "beta")
    assert [alpha[cols.index(c)] for c in cost_cols] == ["0.412", "2.5", "1.5", "12.3"]
    assert [beta[cols.index(c)] for c in cost_cols] == ["", "", "", ""]  # not measured: blank, not 0
    assert "ms/pair, index ms/doc, index KB/doc, ms/query (index built): cost measured by `cbench cost`" in md
    assert "Generated from 5 results files and 1 cost file by cbench" in md
    rows = {r["submission"]: r for r in csv.DictReader(io.StringIO(render_csv(lb)))}
    assert rows["alpha"]["cost:ms_per_pair"] == "0.4123" and rows["alpha"]["cost:ms_per_query"] == "12.34"
    assert rows["alpha"]["cost:index_ms_per_doc"] == "2.5" and rows["alpha"]["cost:index_bytes_per_doc"] == "1536"  # raw: bytes
    assert rows["alpha"]["cost_index_cpu_ms_per_doc"] == "1.25" and rows["alpha"]["cost_index_documents"] == "1033"
    assert rows["alpha"]["cost_index_stores"] == "pooled vectors float32 (384 dims)" and rows["alpha"]["cost_schema"] == "2"
    assert rows["alpha"]["cost_cpu_ms_per_pair"] == "0.20615" and rows["alpha"]["cost_batch_sizes"] == "alpha=32"
    assert rows["alpha"]["cost_search_ms_per_query"] == "12.34" and rows["alpha"]["cost_rerank_ms_per_query"] == ""
    blank = ["cost:ms_per_pair", "cost:index_ms_per_doc", "cost:index_bytes_per_doc", "cost:ms_per_query", "cost_batch_sizes"]
    assert all(rows["beta"][k] == "" for k in blank)
    html = render_html(lb, "<svg xmlns='http://www.w3.org/2000/svg'></svg>", "<svg xmlns='http://www.w3.org/2000/svg'></svg>")
    assert 'data-key="cost:ms_per_pair"' in html and 'data-first="asc"' in html
    m = re.search(r'<td data-sort="0\.412300000" title="([^"]*)"', html)
    assert m and "batch size: alpha 32" in m.group(1) and "Test CPU" in m.group(1) and "1 torch thread" in m.group(1)
    assert 'data-key="cost:index_bytes_per_doc"' in html and 'data-key="cost:index_ms_per_doc"' in html
    m = re.search(r'<td data-sort="1536\.000000000" title="([^"]*)"', html)
    assert m and "1,536 bytes per document" in m.group(1) and "pooled vectors float32 (384 dims)" in m.group(1)


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
    assert "ms/pair" not in md and "cost file" not in md and "index ms/doc" not in md
    rows = list(csv.DictReader(io.StringIO(render_csv(lb))))
    assert all(r["cost:ms_per_pair"] == "" and r["cost:ms_per_query"] == "" and r["cost:index_bytes_per_doc"] == "" for r in rows)


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
    assert "ms/pair" in head and "ms/query" not in head and "index" not in head  # controls have no retrieval
    assert re.search(r"\| ctl \[\d+\] \| control \| 0\.5000 \| 0\.05 \|", controls)  # [n]: not registered here
    beta = _row(md, "beta")
    assert any(re.fullmatch(r"1\.5 \[\d+\]", c) for c in beta)
    assert "cost measured for a different version of the submission YAML" in md


def _schema_1(rec: CostRecord, kind: str, rerank: bool) -> dict:
    """``rec`` as a schema-1 file holds it (no index; the query cost with its index timing)."""
    data = rec.model_dump(mode="json")
    q = data["queries"]
    q["index"] = data.pop("index")["parts"][0]["build"]
    if rerank:
        q.update(rerank_depth=100, rerank_pairs=3000, rerank_ms_per_query=9000.0, rerank_cpu_ms_per_query=8000.0, rerank=q["search_all"])
        q.update(ms_per_query=q["ms_per_query"] + 9000.0, cpu_ms_per_query=q["cpu_ms_per_query"] + 8000.0)
    return {**data, "schema_version": 1, "kind": kind}


def test_schema_1_files_keep_pairs_and_leave_the_new_cells_blank_with_the_reason(results):
    """A schema-1 reranker that re-encoded its documents per query: ms/pair shown, the index and
    ms/query blank, each with its reason as a note; a schema-1 first stage keeps its ms/query (the
    same measurement). The CSV carries the schema and the still valid search time."""
    subs, rdir = results
    cdir = rdir.parent / "cost"
    cdir.mkdir(parents=True, exist_ok=True)
    alpha = record("alpha", submission_hash(subs, "alpha"), 0.5, 20.0)
    beta = record("beta", submission_hash(subs, "beta"), 0.25, 4.0)
    (cdir / "alpha.json").write_text(json.dumps(_schema_1(alpha, "verifier", True)))
    (cdir / "beta.json").write_text(json.dumps(_schema_1(beta, "encoder", False)))
    lb = build(rdir, Registry([subs]).all())
    assert lb.warnings == [] and {n: c.schema_version for n, c in lb.costs.items()} == {"alpha": 1, "beta": 1}
    md = render_markdown(lb)
    header = next(line for line in md.splitlines() if line.startswith("| rank"))
    cols = [c.strip() for c in header.strip("|").split("|")]
    a, b = _row(md, "alpha"), _row(md, "beta")
    notes = dict(re.findall(r"^\[(\d+)\] (.*?)  $", md, flags=re.M))
    index_note = re.fullmatch(r"\[(\d+)\]", a[cols.index("index ms/doc")])
    query_note = re.fullmatch(r"\[(\d+)\]", a[cols.index("ms/query (index built)")])
    assert index_note and query_note and a[cols.index("index KB/doc")] == a[cols.index("index ms/doc")]
    assert notes[index_note.group(1)] == SCHEMA_1_INDEX and notes[query_note.group(1)] == SCHEMA_1_QUERY
    assert "measured with documents re-encoded per query" in SCHEMA_1_QUERY
    assert a[cols.index("ms/pair")] == "0.5" and b[cols.index("ms/pair")] == "0.25" and b[cols.index("ms/query (index built)")] == "4"
    assert b[cols.index("index ms/doc")] == a[cols.index("index ms/doc")]  # the same note: no index in either
    rows = {r["submission"]: r for r in csv.DictReader(io.StringIO(render_csv(lb)))}
    assert rows["alpha"]["cost:ms_per_query"] == "" and rows["alpha"]["cost:index_ms_per_doc"] == "" and rows["alpha"]["cost_schema"] == "1"
    assert rows["alpha"]["cost_search_ms_per_query"] == "20" and rows["alpha"]["cost:ms_per_pair"] == "0.5"
    assert rows["beta"]["cost:ms_per_query"] == "4" and SCHEMA_1_INDEX in rows["beta"]["notes"]
    html = render_html(lb, "<svg xmlns='http://www.w3.org/2000/svg'></svg>", "<svg xmlns='http://www.w3.org/2000/svg'></svg>")
    assert "9020 ms per query was measured with documents re-encoded per query (schema-1 cost file)" in html  # the old figure: tooltip only


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
