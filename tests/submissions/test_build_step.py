"""A submission's ``build:`` step (weights the repository does not ship): not hashed, named in one
line when its output is missing, shown by `cbench submissions list` (first in the reproduce
command: tests/leaderboard/test_lb_printed_commands.py); and every shipped submission either loads
or says in one line what makes it runnable."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from cbench_testutil import TINY_DOCS, TINY_QRELS, TINY_QUERIES, write_beir
from harness.cli import app
from harness.errors import CBenchError
from harness.paths import DEFAULT_RESULTS_DIR, PROJECT_ROOT
from harness.results import read_results
from harness.run_context import RunContext
from harness.scorers.base import BuildStep, ModelScorer
from harness.scorers.encoder import EncoderConfig
from harness.submissions import Registry, build_submission_scorer, load_submission
from harness.submissions.registry import Submission

runner = CliRunner()
BUILD = "build:\n  command: make tiny-weights\n  time: about a minute on CPU\n  makes: [../weights/tiny]\n"


def invoke(*args: str):
    return runner.invoke(app, list(args), catch_exceptions=False)


def stderr_lines(r) -> list[str]:
    return [ln for ln in r.stderr.splitlines() if ln.strip()]


def test_the_build_step_is_not_hashed():
    step = BuildStep(command="make paper-ab", time="several hours on CPU", makes=["../runs/x"])
    plain = Submission(EncoderConfig(name="m", kind="encoder", model="../runs/x"), None)
    built = Submission(EncoderConfig(name="m", kind="encoder", model="../runs/x", build=step), None)
    assert plain.hash == built.hash
    assert "build" not in plain.config.model_dump(mode="json") and built.config.model_dump(mode="json")["build"]["command"] == "make paper-ab"
    subs = Registry().all()
    ft = {"minilm-ft-a": "make paper-ab", "minilm-ft-b": "make paper-ab", "mpnet-ft-a": "make paper-ab-mpnet", "mpnet-ft-b": "make paper-ab-mpnet"}
    for name, command in ft.items():  # their committed results stay current
        assert subs[name].config.build is not None and subs[name].config.build.command == command
        for path in sorted((DEFAULT_RESULTS_DIR / name).glob("*.json")):
            assert read_results(path).metadata.submission_hash == subs[name].hash, path


def test_the_build_step_is_checked_strictly(tmp_path):
    (tmp_path / "s.yaml").write_text("name: s\nkind: encoder\nmodel: ../w\nbuild:\n  command: make w\n  tme: long\n  makes: [../w]\n")
    with pytest.raises(CBenchError) as e:
        load_submission(tmp_path / "s.yaml")
    assert sorted(e.value.lines) == [
        f"{tmp_path / 's.yaml'}: build.time: Field required",
        f"{tmp_path / 's.yaml'}: build.tme: unknown key (did you mean 'time'?)",
    ]


def test_unbuilt_weights_stop_the_run_in_one_line_naming_the_build(tmp_path, monkeypatch):
    monkeypatch.delenv("CBENCH_SUBMISSIONS", raising=False)
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "tiny-ft.yaml").write_text("name: tiny-ft\nkind: encoder\nmodel: ../weights/tiny\n" + BUILD)
    beir = write_beir(tmp_path / "beir", TINY_DOCS, TINY_QUERIES, TINY_QRELS)
    r = invoke("run", "--model", "tiny-ft", "--suite", str(beir), "--submissions-dir", str(subs), "--results-dir", str(tmp_path / "res"))
    assert r.exit_code == 2 and "Traceback" not in r.output
    (line,) = stderr_lines(r)
    assert line.startswith(f"error: {subs / 'tiny-ft.yaml'} (submission tiny-ft): build: '{tmp_path / 'weights' / 'tiny'}' does not exist: ")
    assert line.endswith("it is built by `make tiny-weights`, run in " + str(PROJECT_ROOT) + " (about a minute on CPU)")
    assert not (tmp_path / "res").exists()

    listed = invoke("submissions", "list", "--submissions-dir", str(subs))
    assert listed.exit_code == 0
    row = next(ln for ln in listed.stdout.splitlines() if "tiny-ft" in ln)
    assert "needs make tiny-weights" in " ".join(row.split())
    assert "runnable" in next(ln for ln in listed.stdout.splitlines() if ln.startswith("bm25 "))
    wide = invoke("submissions", "list", "--wide", "--submissions-dir", str(subs))  # the build time too
    assert "needs `make tiny-weights` (about a minute on CPU)" in " ".join(next(ln for ln in wide.stdout.splitlines() if "tiny-ft" in ln).split())

    (tmp_path / "weights" / "tiny").mkdir(parents=True)  # built: runnable, and the run goes on to load it
    listed = invoke("submissions", "list", "--submissions-dir", str(subs))
    assert "runnable" in next(ln for ln in listed.stdout.splitlines() if "tiny-ft" in ln)


def test_every_shipped_submission_loads_or_says_in_one_line_what_makes_it_runnable(monkeypatch):
    """What `cbench run --model S --suite nearmiss` does before it scores anything, for every shipped
    S: its scorer built (with the submissions it builds on) and its model resolved to a local folder;
    or one line naming what makes it runnable: its ``build`` command while that output is missing,
    `cbench models fetch` for weights published in parts, or (hub-only models, offline) the hub."""
    monkeypatch.delenv("CBENCH_SUBMISSIONS", raising=False)
    registry = Registry()
    ctx = RunContext(use_cache=False)
    subs = registry.all()
    assert len(subs) == len(registry.files()) and not registry.problems  # every shipped file loads
    outcomes: dict[str, str] = {}
    for name, sub in subs.items():
        try:
            scorer = build_submission_scorer(sub, ctx, registry)
            if getattr(sub.config, "model", None):  # a blind control's model: its encoder resolves it
                assert (scorer if isinstance(scorer, ModelScorer) else scorer.encoder).resolved.location
            outcomes[name] = "runnable"
        except CBenchError as e:
            assert len(e.lines) == 1, e.lines
            line = e.line
            if sub.config.build is not None:
                assert sub.unbuilt and f"it is built by `{sub.config.build.command}`" in line and sub.config.build.time in line, line
                outcomes[name] = sub.config.build.command
            elif sub.kind == "fusion" and (part := registry.get(sub.config.verifier)).config.build is not None:
                # a fused row is runnable when its parts are: the line is its unbuilt part's
                assert part.unbuilt and f"it is built by `{part.config.build.command}`" in line and f"submission {part.config.name}" in line, line
                outcomes[name] = part.config.build.command
            elif "run: cbench models fetch " in line:
                outcomes[name] = "cbench models fetch"
            else:
                assert "the hub is offline (HF_HUB_OFFLINE=1) and it is not in the local cache" in line, line
                outcomes[name] = "hub"
    built = {n: s.config.build.command for n, s in subs.items() if s.config.build is not None}
    assert built == {
        "minilm-cross": "make minilm-cross",
        "minilm-ft-a": "make paper-ab",
        "minilm-ft-b": "make paper-ab",
        "mpnet-ft-a": "make paper-ab-mpnet",
        "mpnet-ft-b": "make paper-ab-mpnet",
    }
    assert all(outcomes[n] in ("runnable", command) for n, command in built.items())
    assert outcomes["minilm-cross-fused"] == outcomes["minilm-cross"]  # as runnable as its cross-encoder
    assert outcomes["all-MiniLM-L6-v2"] == outcomes["bm25"] == outcomes["minilm-cnn"] == "runnable"

    for name in [n for n in built if outcomes[n] != "runnable"]:  # and the command line says it so
        r = invoke("run", "--model", name, "--suite", "nearmiss", "--results-dir", "/nonexistent-results")
        assert r.exit_code == 2 and len(stderr_lines(r)) == 1 and f"it is built by `{built[name]}`" in r.stderr
