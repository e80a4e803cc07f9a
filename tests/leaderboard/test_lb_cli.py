"""`cbench leaderboard` (files, rich, --check) and `cbench export` through the CLI."""

from __future__ import annotations

import json

from lb_helpers import nearmiss_results, retrieval_results, save, submission_hash
from typer.testing import CliRunner

from harness.cli import app

runner = CliRunner()


def _run(*args: str):
    return runner.invoke(app, list(args), catch_exceptions=False)


def _good(env):
    subs, results = env
    h = {n: submission_hash(subs, n) for n in ("alpha", "beta")}
    save(results, retrieval_results("alpha", "nanobeir", {"ArguAna": 0.5, "NQ": 0.6}, submission_hash=h["alpha"]))
    save(results, nearmiss_results("alpha", "nearmiss", 0.6, submission_hash=h["alpha"]))
    save(results, retrieval_results("beta", "nanobeir", {"ArguAna": 0.4, "NQ": 0.3}, submission_hash=h["beta"]))
    save(results, nearmiss_results("beta", "nearmiss", 0.7, submission_hash=h["beta"]))
    return subs, results


def test_check_ok(env):
    subs, results = _good(env)
    r = _run("leaderboard", "--check", "--results-dir", str(results), "--submissions-dir", str(subs))
    assert r.exit_code == 0, r.output
    assert "ok: 4 results files" in r.output


def test_check_unknown_submission(env):
    subs, results = _good(env)
    bad = save(results, nearmiss_results("ghost", "nearmiss", 0.5))
    r = _run("leaderboard", "--check", "--results-dir", str(results), "--submissions-dir", str(subs))
    assert r.exit_code == 2
    lines = [line for line in r.output.splitlines() if line.strip()]
    assert lines == [f"{bad}: submission: no registered submission named 'ghost' (add submissions/ghost.yaml)"]
    assert "Traceback" not in r.output


def test_check_tampered_hash(env):
    subs, results = _good(env)
    path = results / "alpha" / "nearmiss.json"
    data = json.loads(path.read_text())
    data["metadata"]["submission_hash"] = "tampered00000000"
    path.write_text(json.dumps(data))
    r = _run("leaderboard", "--check", "--results-dir", str(results), "--submissions-dir", str(subs))
    assert r.exit_code == 2
    (line,) = [line for line in r.output.splitlines() if line.strip()]
    assert line.startswith(f"{path}: metadata.submission_hash: 'tampered00000000' but submission 'alpha'")


def test_check_changed_yaml_invalid_file_and_misplaced(env):
    subs, results = _good(env)
    (subs / "beta.yaml").write_text((subs / "beta.yaml").read_text().replace("model: org/beta", "model: org/beta-v2"))
    broken = results / "alpha" / "classic-ir.json"
    broken.write_text(json.dumps({"submission": "alpha"}))
    moved = results / "alpha" / "sugarcrepe-pp.json"  # content says suite nearmiss
    moved.write_text((results / "alpha" / "nearmiss.json").read_text())
    deep = results / "alpha" / "old" / "nanobeir.json"
    deep.parent.mkdir()
    deep.write_text("{}")
    r = _run("leaderboard", "--check", "--results-dir", str(results), "--submissions-dir", str(subs))
    assert r.exit_code == 2
    out = r.output
    assert f"{broken}: suite: Field required" in out
    assert f"{moved}: suite: 'nearmiss' but the file is named 'sugarcrepe-pp.json'" in out
    assert f"{deep}: path: results files belong at" in out
    assert f"{results / 'beta' / 'nanobeir.json'}: metadata.submission_hash:" in out
    assert f"{results / 'beta' / 'nearmiss.json'}: metadata.submission_hash:" in out
    assert len([line for line in out.splitlines() if line.strip()]) == 5


def test_leaderboard_files_and_rich(env, tmp_path):
    subs, results = _good(env)
    out = tmp_path / "board"
    r = _run("leaderboard", "--results-dir", str(results), "--submissions-dir", str(subs), "--out", str(out))
    assert r.exit_code == 0, r.output
    assert sorted(p.name for p in out.iterdir()) == ["index.html", "leaderboard.csv", "leaderboard.md", "tradeoff.svg"]
    r = _run("leaderboard", "--results-dir", str(results), "--submissions-dir", str(subs), "--format", "rich")
    assert r.exit_code == 0, r.output
    assert "alpha" in r.output and "beta" in r.output and "Pareto layer ascending" in r.output


def test_leaderboard_fallback_note_on_terminal(env, tmp_path):
    subs, results = env
    save(results, retrieval_results("alpha", "classic-ir", {"cranfield": 0.3}))
    r = _run("leaderboard", "--results-dir", str(results), "--submissions-dir", str(subs), "--out", str(tmp_path / "b"))
    assert r.exit_code == 0
    assert "The retrieval axis is classic-ir, the retrieval suite with the most complete results (offline-ir results: none)." in r.output


def test_leaderboard_wrong_axis_is_one_line(env, tmp_path):
    subs, results = _good(env)
    r = _run("leaderboard", "--results-dir", str(results), "--submissions-dir", str(subs), "--retrieval", "nearmiss", "--out", str(tmp_path / "b"))
    assert r.exit_code == 2
    assert r.output.strip() == "error: --retrieval: 'nearmiss' is a nearmiss suite, not a retrieval suite"


def test_export_cli(env, tmp_path):
    subs, results = _good(env)
    save(results, retrieval_results("alpha", "classic-ir", {"cranfield": 0.3}))
    out = tmp_path / "mteb" / "results"
    r = _run("export", "--format", "mteb", "--out", str(out), "--results-dir", str(results))
    assert r.exit_code == 0, r.output
    assert "wrote 4 MTEB task results for 2 model(s)" in r.output
    assert "suite 'classic-ir' (cranfield) has no MTEB task" in r.output
    assert (out / "cbench__alpha" / "abc123" / "NanoArguAnaRetrieval.json").is_file()
    r = _run("export", "--format", "mteb", "--out", str(out), "--results-dir", str(tmp_path / "none"))
    assert r.exit_code == 2 and "no results files" in r.output


def test_notices_for_the_maintainer_go_to_the_terminal_not_to_readers(env, tmp_path):
    """A cost file without results and an unreadable results file: one warning line each on the
    terminal; neither on the page nor in leaderboard.md."""
    subs, results = _good(env)
    cost = results.parent / "cost"
    cost.mkdir()
    (cost / "nobody.json").write_text("{")
    broken = results / "gamma" / "nearmiss.json"
    broken.parent.mkdir()
    broken.write_text("{}")
    out = tmp_path / "board"
    r = _run("leaderboard", "--results-dir", str(results), "--submissions-dir", str(subs), "--out", str(out))
    assert r.exit_code == 0, r.output
    warnings = [line for line in r.output.splitlines() if line.startswith("warning: ")]
    assert len(warnings) == 2 and any("nobody.json" in w for w in warnings) and any(str(broken) in w for w in warnings), r.output
    html, md = (out / "index.html").read_text(), (out / "leaderboard.md").read_text()
    for text in (html, md):
        assert "nobody.json" not in text and "(left out)" not in text and "gamma/nearmiss.json" not in text
