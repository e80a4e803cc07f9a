from pathlib import Path

import pytest

from harness.errors import CBenchError
from harness.scorers.encoder import EncoderConfig
from harness.submissions import Registry, load_submission
from harness.submissions.registry import Submission


def write(tmp_path: Path, text: str, name: str = "s.yaml") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def test_valid_encoder_submission(tmp_path):
    sub = load_submission(write(tmp_path, "name: m\nkind: encoder\nmodel: org/model\nmax_seq_length: 128\nquery_prompt: 'query: '\n"))
    assert sub.kind == "encoder" and sub.config.max_seq_length == 128 and sub.config.similarity == "cosine"


def test_unknown_key_suggests_the_close_one(tmp_path):
    with pytest.raises(CBenchError) as e:
        load_submission(write(tmp_path, "name: m\nkind: encoder\nmodel: org/model\nmax_seq_lenght: 128\n"))
    assert e.value.lines == [f"{tmp_path / 's.yaml'}: max_seq_lenght: unknown key (did you mean 'max_seq_length'?)"]


def test_every_problem_is_one_line(tmp_path):
    with pytest.raises(CBenchError) as e:
        load_submission(write(tmp_path, "name: m\nkind: encoder\nmodel: org/model\nbatch_size: -1\nsimilarity: l2\n"))
    lines = e.value.lines
    assert len(lines) == 2
    assert any(": batch_size: " in ln for ln in lines) and any(": similarity: " in ln for ln in lines)


def test_unknown_kind(tmp_path):
    with pytest.raises(CBenchError) as e:
        load_submission(write(tmp_path, "name: m\nkind: encodr\nmodel: x/y\n"))
    assert "kind: unknown kind 'encodr' (did you mean 'encoder'?)" in e.value.line


def test_python_tags_and_aliases_are_refused(tmp_path):
    marker = tmp_path / "pwned"
    with pytest.raises(CBenchError) as e:
        load_submission(write(tmp_path, f"name: !!python/object/apply:os.system ['touch {marker}']\nkind: encoder\nmodel: x/y\n"))
    assert "invalid YAML" in e.value.line and not marker.exists()
    with pytest.raises(CBenchError) as e:
        load_submission(write(tmp_path, "a: &x [1, 2]\nb: *x\n", "alias.yaml"))
    assert "aliases" in e.value.line


def test_hash_ignores_descriptive_fields():
    a = Submission(EncoderConfig(name="m", kind="encoder", model="x/y", description="one"), None)
    b = Submission(EncoderConfig(name="m", kind="encoder", model="x/y", description="two", authors=["z"]), None)
    c = Submission(EncoderConfig(name="m", kind="encoder", model="x/y", max_seq_length=64), None)
    assert a.hash == b.hash != c.hash


def test_shipped_submissions_are_valid():
    subs = Registry().all()
    assert "all-MiniLM-L6-v2" in subs
    assert subs["all-MiniLM-L6-v2"].config.model == "sentence-transformers/all-MiniLM-L6-v2"


def test_registry_resolves_names_paths_and_model_ids(tmp_path):
    reg = Registry([tmp_path])
    write(tmp_path, "name: extra\nkind: encoder\nmodel: org/extra\n", "extra.yaml")
    assert reg.resolve("extra").path == tmp_path / "extra.yaml"
    assert reg.resolve("sentence-transformers/all-MiniLM-L6-v2").name == "all-MiniLM-L6-v2"
    adhoc = reg.resolve("org/other-model")
    assert adhoc.path is None and adhoc.name == "org__other-model" and adhoc.config.model == "org/other-model"
    with pytest.raises(CBenchError, match="did you mean 'extra'"):
        reg.resolve("extr")


def test_duplicate_names_across_dirs(tmp_path):
    write(tmp_path, "name: all-MiniLM-L6-v2\nkind: encoder\nmodel: a/b\n", "dup.yaml")
    reg = Registry([tmp_path])
    assert "all-MiniLM-L6-v2" not in reg.all() and "bm25" in reg.all()  # the name is blocked, nothing else
    with pytest.raises(CBenchError, match="also used by"):
        reg.get("all-MiniLM-L6-v2")
    assert [p.line for p in reg.problems] == [
        f"{tmp_path / 'dup.yaml'}: name: name 'all-MiniLM-L6-v2' is also used by {Registry().get('all-MiniLM-L6-v2').path}"
    ]
