"""`cbench leaderboard --overlay DIR`: a user's results laid over the base results, marked, compared."""

from __future__ import annotations

import shutil
from pathlib import Path

from lb_helpers import nearmiss_results, query_items, retrieval_results, save, save_scored, submission_hash
from typer.testing import CliRunner

from harness.cli import app
from harness.leaderboard.collect import Replaced, build, compare_line
from harness.submissions import Registry

runner = CliRunner()


def _run(*args: str):
    return runner.invoke(app, list(args), catch_exceptions=False)


def _base(env):
    """alpha and beta on nanobeir and nearmiss (the base); an empty overlay folder beside it."""
    subs, results = env
    h = {n: submission_hash(subs, n) for n in ("alpha", "beta", "gamma")}
    for name, ret, comp in (("alpha", {"ArguAna": 0.5, "NQ": 0.6}, 0.6), ("beta", {"ArguAna": 0.4, "NQ": 0.3}, 0.7)):
        save(results, retrieval_results(name, "nanobeir", ret, submission_hash=h[name]))
        save(results, nearmiss_results(name, "nearmiss", comp, submission_hash=h[name]))
    mine = results.parent / "mine"
    mine.mkdir()
    return subs, results, mine, h


def _snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {str(p.relative_to(folder)): (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(folder.rglob("*")) if p.is_file()}


def _board(subs: Path, results: Path, out: Path, *overlays: Path):
    args = ["leaderboard", "--results-dir", str(results), "--submissions-dir", str(subs), "--out", str(out)]
    for o in overlays:
        args += ["--overlay", str(o)]
    return _run(*args)


def test_overlay_replaces_a_row_adds_one_and_marks_them(env, tmp_path):
    subs, results, mine, h = _base(env)
    save(mine, nearmiss_results("alpha", "nearmiss", 0.8, submission_hash=h["alpha"]))  # replaces the base's alpha/nearmiss
    save(mine, retrieval_results("gamma", "nanobeir", {"ArguAna": 0.2, "NQ": 0.2}, submission_hash=h["gamma"]))  # a new row
    save(mine, nearmiss_results("gamma", "nearmiss", 0.5, submission_hash=h["gamma"]))
    before = _snapshot(results)
    out = tmp_path / "board"
    r = _board(subs, results, out, mine)
    assert r.exit_code == 0, r.output
    assert _snapshot(results) == before  # nothing written into the base folder
    assert not (results / "gamma").exists()

    lb = build(results, Registry([subs]).all(), overlays=[mine])
    rows = {row.submission: row for row in lb.rows}
    assert rows["alpha"].composition.value == nearmiss_results("alpha", "nearmiss", 0.8).main_score  # the overlay's score
    assert rows["alpha"].retrieval.value == 0.55  # the base's nanobeir, not overlaid
    assert rows["alpha"].overlay == mine and rows["gamma"].overlay == mine and rows["beta"].overlay is None
    assert f"--results-dir {mine}" in rows["alpha"].reproduce and f"--results-dir {mine}" in rows["gamma"].reproduce
    assert f"--results-dir {results}" in rows["beta"].reproduce
    assert "your run: nearmiss from" in "; ".join(rows["alpha"].notes)

    md = (out / "leaderboard.md").read_text()
    assert "| alpha (your run)" in md and "| gamma (your run)" in md and "beta (your run)" not in md
    assert "(3 of them from" in md  # the header says how many files came from the overlay
    csv = (out / "leaderboard.csv").read_text()
    assert "your run" not in csv.splitlines()[1].split(",")[1]  # the CSV keeps bare names
    html = (out / "index.html").read_text()
    assert html.count('class=" yours"') + html.count('class="front yours"') >= 2
    svg = (out / "tradeoff.svg").read_text()
    assert "your run (--overlay)" in svg and "alpha (your run)" in svg


def test_equal_files_give_the_equality_line(env, tmp_path):
    subs, results, mine, _h = _base(env)
    shutil.copytree(results / "alpha", mine / "alpha")
    r = _board(subs, results, tmp_path / "board", mine)
    assert r.exit_code == 0, r.output
    lines = [line for line in r.output.splitlines() if "your run" in line]
    # nanobeir: 2 datasets x 4 metrics + the main score; nearmiss: 7 categories x 6 metrics + the main score
    assert lines == [
        f"alpha/nanobeir: your run equals the results in {results} (max |difference| 0.0 over 9 metrics)",
        f"alpha/nearmiss: your run equals the results in {results} (max |difference| 0.0 over 43 metrics)",
    ]


def test_different_files_name_the_largest_difference(env, tmp_path):
    subs, results, mine, h = _base(env)
    r0 = retrieval_results("alpha", "nanobeir", {"ArguAna": 0.5, "NQ": 0.6}, submission_hash=h["alpha"])
    r0.datasets["NQ"]["mrr@10"] += 0.0123
    r0.datasets["ArguAna"]["map@100"] += 0.001
    save(mine, r0)
    r = _board(subs, results, tmp_path / "board", mine)
    assert r.exit_code == 0, r.output
    (line,) = [line for line in r.output.splitlines() if "your run" in line]
    assert line == f"alpha/nanobeir: your run differs from the results in {results}: max |difference| 0.0123 (NQ mrr@10) over 9 metrics"


def test_compare_line_main_score_and_missing_datasets():
    a = retrieval_results("alpha", "classic-ir", {"cisi": 0.5, "medline": 0.6})
    b = retrieval_results("alpha", "classic-ir", {"cisi": 0.5})
    line = compare_line(Replaced("alpha", "classic-ir", Path("mine"), a, b))
    assert line.startswith("alpha/classic-ir: your run differs from the committed results: max |difference| 0.05 (main score ndcg@10) over 5 metrics")
    assert line.endswith("; not in both: medline ndcg@10, medline mrr@10, medline recall@100, medline map@100")


def test_overlay_sidecars_are_read_from_the_overlay(env):
    """The per-item scores of an overlaid file come from the overlay folder (else they would not match
    its results file and the row would go untested)."""
    subs, results, mine, h = _base(env)
    save_scored(results, retrieval_results("alpha", "classic-ir", {"cranfield": 0.0}), query_items("cranfield", [0.25] * 20))
    save_scored(results, retrieval_results("beta", "classic-ir", {"cranfield": 0.0}), query_items("cranfield", [0.5] * 20))
    save_scored(mine, retrieval_results("alpha", "classic-ir", {"cranfield": 0.0}), query_items("cranfield", [0.75] * 20))
    lb = build(results, Registry([subs]).all(), retrieval="classic-ir", overlays=[mine])
    got = lb.scored.get("alpha", "classic-ir")
    assert not isinstance(got, Exception), got
    assert got[0].main_score == 0.75 and lb.scored.get("beta", "classic-ir")[0].main_score == 0.5
    assert lb.rows[0].submission == "alpha" and lb.rows[0].retrieval.value == 0.75


def test_missing_overlay_folder_is_one_line(env, tmp_path):
    subs, results, _mine, _h = _base(env)
    r = _board(subs, results, tmp_path / "board", tmp_path / "nope")
    assert r.exit_code == 2
    assert r.output.strip() == f"error: {tmp_path / 'nope'}: no such folder (--overlay)"
    assert not (tmp_path / "board").exists()


def test_empty_overlay_folder_is_one_line(env, tmp_path):
    subs, results, mine, _h = _base(env)
    r = _board(subs, results, tmp_path / "board", mine)
    assert r.exit_code == 2
    assert r.output.strip() == f"error: {mine}: no results files (<submission>/<suite>.json) in this folder (--overlay)"


def test_float_noise_matches_to_four_decimals():
    """Differences of float arithmetic alone (an AUROC rounded to 6 decimals flipping by 1e-6) are not
    called a difference: the numbers are the same on the page."""
    a = retrieval_results("alpha", "classic-ir", {"cisi": 0.5, "medline": 0.625})
    b = a.model_copy(deep=True)
    b.datasets["cisi"]["mrr@10"] += 2e-6
    line = compare_line(Replaced("alpha", "classic-ir", Path("mine"), a, b))
    assert line == "alpha/classic-ir: your run matches the committed results to 4 decimals (max |difference| 2e-06, cisi mrr@10, over 9 metrics)"
    b.datasets["cisi"]["mrr@10"] += 1e-4
    assert "differs from the committed results: max |difference| 0.000102 (cisi mrr@10)" in compare_line(Replaced("alpha", "classic-ir", Path("mine"), a, b))
