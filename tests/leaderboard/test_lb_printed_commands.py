"""Commands the leaderboard and `cbench compare` print, run as printed by a third party working in
their own folder (relative paths, their own submissions and results folders); the build step first
in a reproduce command; and a run on one BEIR folder shown in the retrieval axis' column of the same
data."""

from __future__ import annotations

import csv
import shlex

import pytest
from lb_helpers import nearmiss_results, save
from typer.testing import CliRunner

from cbench_testutil import MORE_DOCS, MORE_QRELS, MORE_QUERIES, write_beir, write_lexical, write_tiny_suites
from harness.cli import app
from harness.leaderboard.collect import build
from harness.results import read_results
from harness.submissions import Registry

runner = CliRunner()


def invoke(*args: str):
    return runner.invoke(app, list(args), catch_exceptions=False)


def run_as_printed(command: str):
    """A printed `cbench ...` command, split as a shell splits it, run here (in-process)."""
    words = shlex.split(command)
    assert words[0] == "cbench", command
    return invoke(*words[1:])


def test_the_reproduce_command_starts_with_the_build(tmp_path, monkeypatch):
    monkeypatch.delenv("CBENCH_SUBMISSIONS", raising=False)
    sub = Registry().get("minilm-ft-b")
    save(tmp_path, nearmiss_results("minilm-ft-b", "nearmiss", 0.7, submission_hash=sub.hash))
    (row,) = build(tmp_path, Registry().all(), composition="nearmiss").rows
    assert row.reproduce == f"make paper-ab && cbench run --model minilm-ft-b --suite nearmiss --results-dir {tmp_path}"  # the suites it has


@pytest.fixture
def own_folder(tmp_path, monkeypatch):
    """A third party's folder: data/ (tiny suites), subs/ (their submissions), res/ (their results),
    worked in with paths relative to it."""
    monkeypatch.delenv("CBENCH_SUBMISSIONS", raising=False)
    monkeypatch.chdir(tmp_path)
    write_tiny_suites(tmp_path / "data")
    (tmp_path / "subs").mkdir()
    (tmp_path / "subs" / "my-ctl.yaml").write_text("name: my-ctl\nkind: control\nfeature: jaccard\n")
    write_lexical(tmp_path / "subs", "my-bm25", b=0.0)
    return tmp_path


def test_printed_commands_work_as_printed_from_a_third_party_folder(own_folder):
    r = invoke("run", "--model", "my-ctl", "--suite", "data/tiny-triplets.yaml", "--submissions-dir", "subs", "--results-dir", "res", "-q")
    assert r.exit_code == 0, r.output

    # the leaderboard's reproduce command
    r = invoke("leaderboard", "--results-dir", "res", "--submissions-dir", "subs", "--out", "board", "--composition", "tiny-triplets")
    assert r.exit_code == 0, r.output
    rows = {row["submission"]: row for row in csv.DictReader((own_folder / "board" / "leaderboard.csv").open())}
    printed = rows["my-ctl"]["reproduce"]
    assert printed == "cbench run --model my-ctl --suite data/tiny-triplets.yaml --submissions-dir subs --results-dir res"
    r = run_as_printed(printed)
    assert r.exit_code == 0, r.output
    assert "reused" in r.stdout and "computed" not in r.stdout

    # compare's: no results for the other side yet
    r = invoke("compare", "my-ctl", "my-bm25", "--suite", "data/tiny-triplets.yaml", "--results-dir", "res")
    assert r.exit_code == 2
    printed = r.stderr.strip().rpartition("no results file; run: ")[2]
    assert printed == "cbench run --model my-bm25 --suite data/tiny-triplets.yaml --results-dir res"
    r = run_as_printed(printed)  # my-bm25 is not a shipped submission: the command needs the folder
    assert r.exit_code == 2 and "no submission named 'my-bm25'" in r.stderr
    r = run_as_printed("cbench run --model bm25 --suite data/tiny-triplets.yaml --results-dir res -q")
    assert r.exit_code == 0, r.output
    assert invoke("compare", "my-ctl", "bm25", "--suite", "data/tiny-triplets.yaml", "--results-dir", "res").exit_code == 0

    # compare's and --check's reruns of results whose submission changed or lost its per-item scores
    (own_folder / "res" / "my-ctl" / "tiny-triplets.items.jsonl.gz").unlink()
    r = invoke("compare", "my-ctl", "bm25", "--suite", "tiny-triplets", "--results-dir", "res")
    printed = r.stderr.strip().rpartition("rerun: ")[2]  # the suite and submission files as the results recorded them
    assert printed == "cbench run --model my-ctl --suite data/tiny-triplets.yaml --submissions-dir subs --results-dir res --overwrite"
    assert run_as_printed(printed).exit_code == 0
    assert invoke("compare", "my-ctl", "bm25", "--suite", "tiny-triplets", "--results-dir", "res").exit_code == 0

    (own_folder / "subs" / "my-ctl.yaml").write_text("name: my-ctl\nkind: control\nfeature: jaccard\nnegate: true\n")
    r = invoke("leaderboard", "--check", "--results-dir", "res", "--submissions-dir", "subs")
    assert r.exit_code == 2
    (line,) = [ln for ln in r.stderr.splitlines() if ln.strip()]
    printed = line.rpartition("rerun: ")[2]
    assert printed == "cbench run --model my-ctl --suite data/tiny-triplets.yaml --submissions-dir subs --results-dir res --overwrite"
    assert run_as_printed(printed).exit_code == 0
    assert invoke("leaderboard", "--check", "--results-dir", "res", "--submissions-dir", "subs").exit_code == 0


def test_a_run_on_one_beir_folder_shows_in_the_axis_column_of_the_same_data(own_folder):
    data = own_folder / "data"
    other = write_beir(own_folder / "other", MORE_DOCS, {q: t + " again" for q, t in MORE_QUERIES.items()}, MORE_QRELS)  # other data
    for args in (
        ("--model", "bm25", "--suite", str(data / "tiny-ir.yaml")),  # the axis: datasets one and two
        ("--model", "my-bm25", "--suite", str(data / "beir" / "two")),  # one BEIR folder: the suite "two"
        ("--model", "my-bm25", "--suite", str(other)),
    ):
        r = invoke("run", *args, "--submissions-dir", "subs", "--results-dir", "res", "-q")
        assert r.exit_code == 0, r.output
    mine = read_results(own_folder / "res" / "my-bm25" / "two.json").datasets["two"]["ndcg@10"]
    theirs = read_results(own_folder / "res" / "bm25" / "tiny-ir.json").datasets["two"]["ndcg@10"]
    assert mine != theirs  # b = 0 ranks differently: the cell shows my-bm25's own score

    lb = build(own_folder / "res", Registry([own_folder / "subs"]).all(), retrieval="tiny-ir")
    assert lb.retrieval_suite == "tiny-ir" and lb.retrieval_datasets == ["one", "two"]
    row = next(r for r in lb.rows if r.submission == "my-bm25")
    cell = row.retrieval_datasets["two"]
    assert cell.value == mine and cell.note == "from the run on the BEIR folder 'two' (my-bm25/two.json)"
    assert row.retrieval_datasets["one"].value is None and row.retrieval.value is None  # no axis score from one dataset
    other_score = read_results(own_folder / "res" / "my-bm25" / "other.json").main_score
    assert row.notes == [f"results for the BEIR folder 'other' (ndcg@10 {other_score:.4f}): no tiny-ir column holds the same data"]
    assert next(r for r in lb.rows if r.submission == "bm25").retrieval_datasets["two"].value == theirs
