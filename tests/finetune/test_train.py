"""`cbench finetune` on a tiny model: outputs, evaluator inside the trainer, resume after a kill,
the paper-ab recipe."""

from __future__ import annotations

import json

import pytest
import yaml

from .conftest import cbench, make_items, write_lines


def _triplets(tmp_path, n=12):
    rows = [{"anchor": i["anchor"], "positive": i["pos_close"], "negative": i["neg_far"]} for i in make_items("train", n)]
    return write_lines(tmp_path / "train.jsonl", rows)


def test_finetune_outputs_and_evaluator_in_trainer(tiny_st, nearmiss_suite, tmp_path):
    from harness.submissions import load_submission

    train = _triplets(tmp_path)
    structural = write_lines(tmp_path / "structural.jsonl", make_items("train", 4, offset=5))
    out = tmp_path / "run"
    r = cbench(
        "finetune", "--base", tiny_st, "--train", train, "--structural", structural, "--out", out, "--steps", 4,
        "--batch-size", 4, "--max-seq-length", 32, "--eval-suite", nearmiss_suite, "--eval-every", 2, "--save-every", 2,
        "--name", "ft-tiny", "--quiet",
    )
    assert r.exit_code == 0, r.stderr
    sub = load_submission(out / "ft-tiny.yaml")
    assert sub.kind == "encoder" and sub.config.model == "./model" and sub.config.max_seq_length == 32
    prov = sub.config.provenance
    assert prov["steps"] == 4 and prov["seed"] == 13 and prov["final_step"] == 4 and prov["scale"] == 10.0
    assert [d["role"] for d in prov["data"]] == ["train", "structural"] and all(len(d["sha256"]) == 64 for d in prov["data"])
    assert prov["seconds_per_step"] > 0
    curves = json.loads((out / "curves.json").read_text())
    assert (out / "curves.png").stat().st_size > 0 and curves["train_loss"]
    # the evaluator ran inside SentenceTransformerTrainer: at the start and every 2 steps
    assert [s for s, _ in curves["eval"]["tinynm_triplet_accuracy"]] == [0, 2, 4]
    assert not (out / "checkpoints").exists()  # deleted once the run is complete
    # the submission runs; its main score equals the evaluator's value at the last step
    r = cbench("run", "--model", out / "ft-tiny.yaml", "--suite", nearmiss_suite, "--results-dir", tmp_path / "res", "--quiet")
    assert r.exit_code == 0, r.stderr
    main = json.loads((tmp_path / "res" / "ft-tiny" / "tinynm.json").read_text())["main_score"]
    assert abs(curves["eval"]["tinynm_triplet_accuracy"][-1][1] - main) <= 1e-6
    # a finished run is not silently retrained
    r = cbench("finetune", "--base", tiny_st, "--train", train, "--out", out, "--steps", 4, "--batch-size", 4, "--name", "ft-tiny")
    assert r.exit_code == 2 and "--overwrite" in r.stderr


class Killed(RuntimeError):
    pass


def test_resume_after_kill(tiny_st, tmp_path):
    from transformers import TrainerCallback

    from harness.finetune.data import read_train_file
    from harness.finetune.train import Settings, finetune, resolve_base

    class KillAt(TrainerCallback):
        def on_step_end(self, args, state, control, **kw):
            if state.global_step == 3:
                raise Killed

    train = read_train_file(_triplets(tmp_path))
    out = tmp_path / "run"
    settings = Settings(steps=5, batch_size=4, max_seq_length=32, save_every=2, seed=7)
    with pytest.raises(Killed):
        finetune(resolve_base(str(tiny_st)), [train], out, settings, name="ft-kill", callbacks=[KillAt()], quiet=True)
    assert (out / "checkpoints" / "checkpoint-2").is_dir() and not (out / "ft-kill.yaml").exists()
    # another seed in the same folder is a different run: refused, not mixed
    with pytest.raises(Exception, match="other settings"):
        finetune(resolve_base(str(tiny_st)), [train], out, Settings(steps=5, batch_size=4, max_seq_length=32, save_every=2, seed=8), name="ft-kill", quiet=True)
    partial = out / "checkpoints" / "checkpoint-4"  # as if killed while writing the next checkpoint
    partial.mkdir()
    (partial / "model.safetensors").write_bytes(b"\0" * 10)
    prov = finetune(resolve_base(str(tiny_st)), [train], out, settings, name="ft-kill", quiet=True)
    assert prov["resumed_from_step"] == 2 and prov["final_step"] == 5 and prov["steps_timed"] == 3
    loss_steps = [s for s, _ in json.loads((out / "curves.json").read_text())["train_loss"]]
    assert loss_steps == sorted(loss_steps) and loss_steps[-1] == 5
    # it continued where it stopped: the same weights as a run that was never killed
    from sentence_transformers import SentenceTransformer

    finetune(resolve_base(str(tiny_st)), [train], tmp_path / "straight", settings, name="ft-kill", quiet=True)
    resumed = SentenceTransformer(str(out / "model"), device="cpu").state_dict()
    straight = SentenceTransformer(str(tmp_path / "straight" / "model"), device="cpu").state_dict()
    assert max(float((resumed[k] - straight[k]).abs().max()) for k in straight) == 0.0


def test_paper_ab_recipe(tiny_st, nearmiss_suite, tmp_path):
    out = tmp_path / "ab"
    r = cbench(
        "finetune", "--recipe", "paper-ab", "--base", tiny_st, "--data-suite", nearmiss_suite, "--seeds", "13,14",
        "--steps", 2, "--batch-size", 8, "--max-seq-length", 32, "--out", out, "--name", "tiny", "--quiet",
    )
    assert r.exit_code == 0, r.stderr
    summary = json.loads((out / "paper-ab.json").read_text())
    assert sorted(summary["runs"]) == ["model-a-baseline/seed_13", "model-a-baseline/seed_14", "model-b-structured/seed_13", "model-b-structured/seed_14"]
    a = yaml.safe_load((out / "model-a-baseline" / "seed_13" / "tiny-a-s13.yaml").read_text())["provenance"]
    b = yaml.safe_load((out / "model-b-structured" / "seed_13" / "tiny-b-s13.yaml").read_text())["provenance"]
    assert a["final_step"] == b["final_step"] == 2 and a["seed"] == b["seed"] == 13 and a["seconds_per_step"] > 0
    assert [d["rows"] for d in a["data"]] == [32]  # 16 train items x (pos_close, pos_far); the 8 test items unused
    assert [d["rows"] for d in b["data"]] == [32, 32]  # + 16 x (neg_close, neg_far) identity triplets
    # rerunning keeps finished runs
    r = cbench(
        "finetune", "--recipe", "paper-ab", "--base", tiny_st, "--data-suite", nearmiss_suite, "--seeds", "13,14", "--steps", 2, "--batch-size", 8,
        "--out", out, "--name", "tiny", "--quiet",
    )
    assert r.exit_code == 0, r.stderr
    assert {v["status"] for v in json.loads((out / "paper-ab.json").read_text())["runs"].values()} == {"done before"}


def test_paper_ab_arms_train_apart_into_one_summary(tiny_st, nearmiss_suite, tmp_path):
    """--arms b then --arms a (as two parallel processes would): each trains only its arm, and the
    summary keeps both."""
    out = tmp_path / "ab"
    common = ["finetune", "--recipe", "paper-ab", "--base", tiny_st, "--data-suite", nearmiss_suite, "--seeds", "13", "--steps", 1, "--batch-size", 8]
    r = cbench(*common, "--max-seq-length", 32, "--out", out, "--name", "tiny", "--arms", "b", "--quiet")
    assert r.exit_code == 0, r.stderr
    assert sorted(json.loads((out / "paper-ab.json").read_text())["runs"]) == ["model-b-structured/seed_13"]
    assert not (out / "model-a-baseline").exists()
    r = cbench(*common, "--max-seq-length", 32, "--out", out, "--name", "tiny", "--arms", "a", "--quiet")
    assert r.exit_code == 0, r.stderr
    runs = json.loads((out / "paper-ab.json").read_text())["runs"]
    assert sorted(runs) == ["model-a-baseline/seed_13", "model-b-structured/seed_13"]
    assert runs["model-a-baseline/seed_13"]["status"] == runs["model-b-structured/seed_13"]["status"] == "trained"
    r = cbench(*common, "--out", tmp_path / "bad", "--arms", "a,c")
    assert r.exit_code == 2 and "--arms" in r.stderr and "'a,c' is not a list of arms" in r.stderr, r.stderr
    assert not (tmp_path / "bad").exists()


def test_paper_ab_train_override(tiny_st, nearmiss_suite, tmp_path):
    """--train replaces Model A's data (here NQ-style [query, answer] lists, gzipped); Model B adds
    the suite's identity triplets to it."""
    import gzip

    rows = [[i["anchor"], i["pos_far"]] for i in make_items("train", 12, offset=2)]
    nq = tmp_path / "NQ-train_pairs.jsonl.gz"
    nq.write_bytes(gzip.compress("".join(json.dumps(r) + "\n" for r in rows).encode()))
    out = tmp_path / "ab"
    r = cbench(
        "finetune", "--recipe", "paper-ab", "--base", tiny_st, "--data-suite", nearmiss_suite, "--train", nq, "--seeds", "5",
        "--steps", 2, "--batch-size", 8, "--max-seq-length", 32, "--out", out, "--quiet",
    )
    assert r.exit_code == 0, r.stderr
    runs = json.loads((out / "paper-ab.json").read_text())["runs"]
    a, b = runs["model-a-baseline/seed_5"], runs["model-b-structured/seed_5"]
    assert [(d["role"], d["rows"]) for d in a["data"]] == [("train", 12)]
    assert [(d["role"], d["rows"]) for d in b["data"]] == [("train", 12), ("suite-train", 32)]
    assert a["data"][0]["sha256"] == b["data"][0]["sha256"] and a["final_step"] == b["final_step"] == 2
