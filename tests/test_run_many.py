"""`cbench run` with several submissions (--model repeated, --all) on the local executor, the
option checks, and the local path staying free of Ray."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from typer.testing import CliRunner

from cbench_testutil import write_lexical
from harness.cli import app

runner = CliRunner()


def cbench(*args: str):
    return runner.invoke(app, list(args), catch_exceptions=False)


def test_two_models_one_command_equals_two_commands(tmp_path, tiny_beir):
    subs = tmp_path / "subs"
    write_lexical(subs, "bm25-a")
    write_lexical(subs, "bm25-b", b=0.0)
    both = cbench(
        "run", "--model", "bm25-a", "--model", "bm25-b", "--suite", str(tiny_beir),
        "--submissions-dir", str(subs), "--results-dir", str(tmp_path / "both"), "--quiet",
    )
    assert both.exit_code == 0, both.output
    assert both.stdout.count("cbench results:") == 2 and "cbench results: bm25-a" in both.stdout and "cbench results: bm25-b" in both.stdout
    for name in ("bm25-a", "bm25-b"):
        one = cbench("run", "--model", name, "--suite", str(tiny_beir), "--submissions-dir", str(subs), "--results-dir", str(tmp_path / "one"), "--quiet")
        assert one.exit_code == 0, one.output
        a = json.loads((tmp_path / "both" / name / "tiny.json").read_text())
        b = json.loads((tmp_path / "one" / name / "tiny.json").read_text())
        assert a["datasets"] == b["datasets"] and a["metadata"]["submission_hash"] == b["metadata"]["submission_hash"]
    # resumed per submission: a second run reuses both
    again = cbench(
        "run", "--model", "bm25-a", "--model", "bm25-b", "--model", "bm25-a", "--suite", str(tiny_beir),
        "--submissions-dir", str(subs), "--results-dir", str(tmp_path / "both"),
    )
    assert again.exit_code == 0 and again.stdout.count("reused") == 2 and again.stdout.count("cbench results:") == 2  # a repeated name runs once


def test_all_runs_every_registered_submission(tmp_path, tiny_beir, monkeypatch):
    import harness.paths

    subs = tmp_path / "subs"
    write_lexical(subs, "lex-one")
    write_lexical(subs, "lex-two", k1=0.9)
    monkeypatch.setattr(harness.paths, "SUBMISSIONS_DIR", subs)  # only these two are registered
    monkeypatch.delenv("CBENCH_SUBMISSIONS", raising=False)
    r = cbench("run", "--all", "--suite", str(tiny_beir), "--results-dir", str(tmp_path / "res"), "--quiet")
    assert r.exit_code == 0, r.output
    assert sorted(p.parent.name for p in (tmp_path / "res").rglob("tiny.json")) == ["lex-one", "lex-two"]


def test_option_mistakes_are_one_line(tmp_path, tiny_beir):
    res = str(tmp_path / "r")
    for args, words in [
        ((), "give --model NAME"),
        (("--model", "bm25", "--all"), "not both"),
        (("--model", "bm25", "--shards", "2"), "--executor ray"),
        (("--model", "bm25", "--ray-address", "auto"), "only used with --executor ray"),
        (("--model", "bm25", "--executor", "dask"), "unknown executor 'dask'"),
    ]:
        r = cbench("run", *args, "--suite", str(tiny_beir), "--results-dir", res)
        assert r.exit_code == 2 and words in r.stderr and "Traceback" not in r.output, (args, r.output)
        assert len([ln for ln in r.stderr.splitlines() if ln.strip()]) == 1
    assert not Path(res).exists()


def test_the_local_executor_never_imports_ray(tmp_path, tiny_beir):
    """A whole local run (an embedding kind, so search and the scorer base load) in a fresh
    interpreter: `ray` is not in sys.modules afterwards."""
    code = textwrap.dedent(f"""
        import sys
        from typer.testing import CliRunner
        from harness.cli import app
        r = CliRunner().invoke(app, ["run", "--model", "minilm-static", "--model", "bm25", "--suite", {str(tiny_beir)!r},
                                     "--results-dir", {str(tmp_path / "res")!r}, "--quiet"], catch_exceptions=False)
        assert r.exit_code == 0, r.output
        loaded = sorted(m for m in sys.modules if m == "ray" or m.startswith("ray."))
        print("RAY:", loaded)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "RAY: []" in out.stdout, out.stdout
