"""harness/model_refs.py: the folder fingerprint covers only what changes outputs."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness.model_refs import fingerprint_files, folder_fingerprint


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
