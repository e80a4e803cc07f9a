"""`cbench run --executor ray` on a local Ray cluster (2 CPUs): the same results files as the local
executor, sharded search equal to unsharded, and a run stopped (or SIGKILLed) after its first dataset resumes."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from harness.cli import app

from .helpers import differences

ray = pytest.importorskip("ray")  # the `ray` extra (in `dev`)
pytestmark = pytest.mark.slow  # a local Ray cluster: its start and every driver take seconds
runner = CliRunner()
SUBMISSIONS = ("--model", "minilm-static", "--model", "bm25")  # a static embedding kind and a lexical one


def cbench(*args: str):
    return runner.invoke(app, list(args), catch_exceptions=False)


def test_ray_executor_writes_what_the_local_one_writes(ray_cluster, suites, tmp_path):
    """Two submissions x (a two-dataset BEIR suite + a near-miss suite). --no-cache on both sides,
    so the encode counters (in the files) count every text on both."""
    common = [*SUBMISSIONS, "--suite", str(suites["tiny-ir"]), "--suite", str(suites["tiny-items"]), "--top-k", "5", "--no-cache", "--quiet"]
    local = cbench("run", *common, "--results-dir", str(tmp_path / "local"))
    assert local.exit_code == 0, local.output
    remote = cbench("run", *common, "--results-dir", str(tmp_path / "ray"), "--executor", "ray")
    assert remote.exit_code == 0, remote.output
    assert remote.stdout.count("cbench results:") == 2  # one summary per submission
    assert differences(tmp_path / "local", tmp_path / "ray") == []
    written = json.loads((tmp_path / "ray" / "minilm-static" / "tiny-ir.json").read_text())
    assert written["complete"] and set(written["datasets"]) == {"one", "two"}
    assert written["metadata"]["scorer"]["dimensions"] == 256  # the worker's scorer info (it loaded the model)
    assert written["metadata"]["counters"]["two"]["texts_encoded"] == 15  # 9 documents + 6 judged queries


def test_two_shards_equal_one(ray_cluster, suites, tmp_path):
    """Two Ray shards give the files one local (unsharded) process gives; the unsharded Ray run
    equals the local one in the test above."""
    common = ["--model", "minilm-static", "--suite", str(suites["tiny-ir"]), "--top-k", "3", "--no-cache", "--quiet"]
    one = cbench("run", *common, "--results-dir", str(tmp_path / "one"))
    two = cbench("run", *common, "--results-dir", str(tmp_path / "two"), "--executor", "ray", "--shards", "2")
    assert one.exit_code == 0 and two.exit_code == 0, one.output + two.output
    assert differences(tmp_path / "one", tmp_path / "two") == []


def test_sharded_search_is_the_exact_search_ties_included(ray_cluster, tmp_path, monkeypatch):
    """The run itself (not only its metrics): 40 documents in blocks of 3 (the search's document
    chunk, made small here) over 2 actors, with exact duplicates in different blocks (equal scores:
    the tie rule decides), top 4 per query."""
    from harness import search
    from harness.executors import sharded
    from harness.executors.worker import WorkerSpec, worker_scorer
    from harness.submissions import Registry

    registry = Registry()
    spec = WorkerSpec(registry.get("minilm-static"), tuple(registry.dirs), "cpu", False, False, str(tmp_path))
    _ctx, scorer = worker_scorer(spec)
    words = "cat dog river bank bread oven stock market rain flood".split()
    corpus = {f"d{i:02d}": f"{words[i % 10]} {words[(3 * i) % 10]}" for i in range(40)}  # i and i+10 are the same text
    queries = {"q1": "cat river", "q2": "stock market", "q3": "bread", "q4": "a flood of rain"}
    monkeypatch.setattr(search, "DOC_CHUNK", 3)  # here: unsharded search and block cutting; the actors get blocks of 3
    got = sharded.ShardedRetrieval(scorer, spec, 2, 1.0, 0.0).retrieve(queries, corpus, 4).run
    want = scorer.retrieve(queries, corpus, 4).run
    assert got == want and [list(r) for r in got.values()] == [list(r) for r in want.values()]  # same documents, scores, order
    assert any(len(set(r.values())) < len(r) for r in want.values())  # the fixture does have ties inside a top 4


def test_ray_run_stopped_after_its_first_dataset_resumes(ray_cluster, suites, tmp_path, monkeypatch):
    """The driver dies right after writing its first dataset (as a killed run would); the next run
    computes only the missing dataset, and the files equal an uninterrupted local run's."""
    from harness import runner as runner_mod

    common = ["--model", "minilm-static", "--suite", str(suites["tiny-ir"]), "--no-cache", "--quiet"]
    res = tmp_path / "ray"
    original = runner_mod.SuiteRun.record

    class DriverKilled(Exception):
        pass

    def record_then_die(self, *args, **kwargs):
        original(self, *args, **kwargs)
        raise DriverKilled  # after the write, before anything else (Click turns KeyboardInterrupt into "Aborted!")

    monkeypatch.setattr(runner_mod.SuiteRun, "record", record_then_die)
    with pytest.raises(DriverKilled):
        cbench("run", *common, "--results-dir", str(res), "--executor", "ray")
    monkeypatch.setattr(runner_mod.SuiteRun, "record", original)
    partial = json.loads((res / "minilm-static" / "tiny-ir.json").read_text())
    assert len(partial["datasets"]) == 1 and not partial["complete"]
    assert not list(res.rglob(".*.lock"))  # the lock was released
    first = next(iter(partial["datasets"]))

    again = cbench("run", *common, "--results-dir", str(res), "--executor", "ray")
    assert again.exit_code == 0, again.output
    rows = {line.split("│")[2].strip(): line for line in again.stdout.splitlines() if line.count("│") > 4 and "tiny-ir" in line}
    assert len(rows) == 3 and "reused" in rows[first] and all("computed" in row for name, row in rows.items() if name not in (first, "main score"))
    final = json.loads((res / "minilm-static" / "tiny-ir.json").read_text())
    assert final["complete"] and final["metadata"]["dataset_revisions"][first] == partial["metadata"]["dataset_revisions"][first]
    assert cbench("run", *common, "--results-dir", str(tmp_path / "local")).exit_code == 0
    assert differences(tmp_path / "local", res) == []


def test_resources_the_cluster_lacks_are_one_line_not_a_hang(ray_cluster, suites, tmp_path):
    common = ["run", "--model", "bm25", "--suite", str(suites["tiny-ir"]), "--results-dir", str(tmp_path / "r"), "--executor", "ray"]
    gpu = cbench(*common, "--device", "cuda")
    assert gpu.exit_code == 2 and "--device: the Ray cluster has no GPU" in gpu.stderr, gpu.output
    cpus = cbench(*common, "--cpus-per-task", "3")
    assert cpus.exit_code == 2 and "--cpus-per-task: 3 CPUs per task, but the Ray cluster has 2 in all" in cpus.stderr, cpus.output
    assert not (tmp_path / "r").exists()


def test_a_second_driver_connects_with_ray_address(ray_cluster, suites, tmp_path):
    """`--ray-address ADDR`: a separate `cbench run` process uses the running cluster (here the
    fixture's) instead of starting one, and leaves it running."""
    import subprocess
    import sys

    address = ray.get_runtime_context().gcs_address
    cmd = [sys.executable, "-m", "harness.cli", "run", "--model", "bm25", "--suite", str(suites["tiny-ir"]), "--results-dir", str(tmp_path / "r")]
    out = subprocess.run([*cmd, "--executor", "ray", "--ray-address", address], capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "[2/2] bm25/tiny-ir/" in out.stderr and " on " in out.stderr  # each unit reported with the node it ran on
    assert json.loads((tmp_path / "r" / "bm25" / "tiny-ir.json").read_text())["complete"]
    assert ray.is_initialized() and ray.cluster_resources().get("CPU") == 2  # the cluster is still there


def test_a_sigkilled_ray_driver_resumes_with_only_the_missing_dataset(ray_cluster, tmp_path):
    """A real kill: a `cbench run --executor ray` process on the fixture's cluster gets SIGKILL as
    soon as its first dataset is written (each dataset ~10,000 documents, one task at a time via
    --cpus-per-task 2, so the second is still running). The next run computes only the other one."""
    import random
    import signal
    import subprocess
    import sys
    import time

    from cbench_testutil import write_beir

    rng = random.Random(5)
    words = "cat dog river bank bread oven stock market rain flood tea train bees honey chess queen".split()
    for name in ("alpha", "beta"):
        docs = {f"{name}{i:05d}": ("", " ".join(rng.choices(words, k=12))) for i in range(10_000)}
        queries = {f"q{j}": " ".join(rng.choices(words, k=3)) for j in range(20)}
        write_beir(tmp_path / name, docs, queries, [(f"q{j}", f"{name}{j:05d}", 1) for j in range(20)])
    (tmp_path / "two.yaml").write_text("name: two\ntype: beir\ndatasets:\n  - {name: alpha, path: alpha}\n  - {name: beta, path: beta}\n")
    res = tmp_path / "res"
    cmd = [
        sys.executable, "-m", "harness.cli", "run", "--model", "minilm-static", "--suite", str(tmp_path / "two.yaml"), "--results-dir", str(res), "--no-cache"
    ]
    cmd += ["--executor", "ray", "--ray-address", ray.get_runtime_context().gcs_address, "--cpus-per-task", "2"]
    target = res / "minilm-static" / "two.json"
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 240
    while not target.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    first = json.loads(target.read_text())
    assert len(first["datasets"]) == 1 and not first["complete"]  # killed between the two datasets
    done = next(iter(first["datasets"]))

    again = subprocess.run([*cmd, "--quiet"], capture_output=True, text=True, timeout=240)
    assert again.returncode == 0, again.stderr[-3000:]
    status = {line.split("│")[2].strip(): line for line in again.stdout.splitlines() if line.count("│") > 4 and "two" in line.split("│")[1]}
    other = ({"alpha", "beta"} - {done}).pop()
    assert "reused" in status[done] and "computed" in status[other]
    final = json.loads(target.read_text())
    assert final["complete"] and final["datasets"][done] == first["datasets"][done]


def test_automatic_shards_follow_the_threshold_and_the_free_cluster(ray_cluster):
    import time

    import ray

    from harness.executors.sharded import AUTO_SHARD_DOCS, auto_shards

    # the cluster is shared with the tests before: wait until their tasks have given back their
    # CPUs (available_resources lags behind a finished task), so "free" means both CPUs
    deadline = time.monotonic() + 30
    while ray.available_resources().get("CPU", 0) < ray.cluster_resources().get("CPU", 0) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert auto_shards(AUTO_SHARD_DOCS - 1, 1.0, 0.0) == 1  # small corpus: not sharded
    assert auto_shards(AUTO_SHARD_DOCS, 1.0, 0.0) == 2  # the 2 free CPUs: two encoders
    assert auto_shards(AUTO_SHARD_DOCS, 2.0, 0.0) == 1  # room for one encoder only: not sharded
    assert auto_shards(AUTO_SHARD_DOCS, 1.0, 1.0) == 1  # --device cuda on a cluster without GPUs
