"""kind: encoder with backend openvino: sentence-transformers' OpenVINO export (optimum-intel) of
the tiny seeded BERT, run by OpenVINO in float32. Scores equal torch's within 1e-4; the export is
made once and cached; openvino and its precision count in fingerprints and cache keys."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from harness.scorers import backends as backends_mod
from harness.scorers.backends import OpenVINOBackend, remove_stale_exports

from .conftest import assert_embeddings_equal_torch, assert_one_line_error, encoder_scorer, read_result, run_submission, run_torch_and_backend, write_submission

pytest.importorskip("openvino", reason="the openvino extra is not installed")
pytest.importorskip("optimum.intel", reason="the openvino extra is not installed")

FIELDS = {"backend": "openvino", "openvino_precision": "f32"}



def test_openvino_embeddings_equal_torch_in_float32(tiny_bert):
    scorer = assert_embeddings_equal_torch(tiny_bert, "openvino")
    auto = scorer.model[0].auto_model
    assert type(auto).__name__ == "OVModelForFeatureExtraction"  # really OpenVINO
    # float32 inference, not the bf16 that OpenVINO picks by itself on AMX / AVX-512 BF16 CPUs
    import openvino

    assert auto.request.get_property("INFERENCE_PRECISION_HINT") == openvino.Type.f32


def test_openvino_run_equals_torch_records_backend_and_reuses_the_export(tiny_bert, beir_dir, tmp_path, monkeypatch):
    t, o = run_torch_and_backend(tiny_bert, beir_dir, tmp_path, "openvino")
    subs = tmp_path / "subs"
    assert o["metadata"]["fingerprints"] == {**t["metadata"]["fingerprints"], **FIELDS}
    assert o["metadata"]["scorer"]["backend"] == "openvino" and "optimum-intel==" in o["metadata"]["scorer"]["openvino_libraries"]
    assert o["metadata"]["submission_hash"] != t["metadata"]["submission_hash"]

    export = OpenVINOBackend().export_dir(t["metadata"]["fingerprints"]["model"])
    assert (export / "openvino" / "openvino_model.xml").is_file()

    def no_export(*a, **k):
        raise AssertionError("exported again")

    monkeypatch.setattr(backends_mod.ExportedBackend, "export", no_export)
    r = run_submission("tiny", beir_dir, tmp_path / "res-ov2", subs, "--backend", "openvino", "--no-cache")
    assert r.exit_code == 0, r.stderr
    assert read_result(tmp_path / "res-ov2", "tiny")["datasets"] == o["datasets"]


def test_openvino_cache_keys_apart_from_onnx_and_torch(tiny_bert):
    t, v = encoder_scorer(tiny_bert, "torch", max_seq_length=64), encoder_scorer(tiny_bert, "openvino", max_seq_length=64)
    assert v.cache_spec("query") == {**t.cache_spec("query"), **FIELDS}
    fp = t.weights_fingerprint
    assert OpenVINOBackend().export_dir(fp) != backends_mod.OnnxBackend().export_dir(fp)


def test_openvino_on_a_gpu_device_is_one_error(tiny_bert, beir_dir, tmp_path):
    subs = tmp_path / "subs"
    write_submission(subs, {"name": "tiny", "kind": "encoder", "model": str(tiny_bert), "backend": "openvino"})
    r = run_submission("tiny", beir_dir, tmp_path / "res", subs, "--device", "cuda")
    assert_one_line_error(r, "backend openvino runs on the CPU")


def test_missing_extra_is_one_line_naming_it(tiny_bert, beir_dir, tmp_path, monkeypatch):
    def missing(self):
        raise ImportError("No module named 'openvino'")

    monkeypatch.setattr(OpenVINOBackend, "_import", missing)
    subs = tmp_path / "subs"
    write_submission(subs, {"name": "tiny", "kind": "encoder", "model": str(tiny_bert)})
    r = run_submission("tiny", beir_dir, tmp_path / "res", subs, "--backend", "openvino")
    assert_one_line_error(r, "backend openvino needs the openvino extra (pip install 'cbench[openvino]')")


def test_leftovers_of_killed_exports_are_removed_when_old(tmp_path):
    old, recent = tmp_path / ".tmp-1-dead-abc", tmp_path / ".tmp-2-live-abc"
    keep = tmp_path / "abc"
    for p in (old, recent, keep):
        (p / "openvino").mkdir(parents=True)
    past = time.time() - 7 * 3600
    os.utime(old, (past, past))
    os.utime(keep, (past, past))  # a finished export is never touched, however old
    remove_stale_exports(tmp_path)
    assert not old.exists() and recent.exists() and keep.exists()


@pytest.mark.slow
def test_quiet_openvino_run_in_a_real_process_prints_nothing_on_stderr(tiny_bert, beir_dir, tmp_path):
    """optimum-intel and transformers log warnings while exporting and loading (their loggers
    escape setup_logging: transformers resets its level when it first logs); `--quiet` shows none."""
    import shutil
    import subprocess
    import sys

    subs = tmp_path / "subs"
    write_submission(subs, {"name": "tiny", "kind": "encoder", "model": str(tiny_bert), "backend": "openvino"})
    env = {k: v for k, v in os.environ.items() if k != "TRANSFORMERS_VERBOSITY"}
    env.update(CBENCH_CACHE=str(tmp_path / "cache"), HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1")
    exe = shutil.which("cbench", path=str(Path(sys.executable).parent)) or "cbench"
    for results in ("res-export", "res-load"):  # the first run exports, the second loads the export
        args = [exe, "run", "-q", "-m", "tiny", "-s", str(beir_dir), "--results-dir", str(tmp_path / results), "--top-k", "5", "--submissions-dir", str(subs)]
        p = subprocess.run(args, env=env, capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, p.stderr
        assert p.stderr.strip() == "", p.stderr
