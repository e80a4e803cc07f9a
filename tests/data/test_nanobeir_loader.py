"""The NanoBEIR loader against the hub's layout: <repo>/{corpus,queries,qrels}/train-00000-of-00001.parquet."""

import hashlib
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from harness.data.nanobeir import NANOBEIR_DATASETS, load_nanobeir
from harness.errors import DataUnavailable
from harness.suites.registry import resolve_suite


def write_nano(root, name="SciFact"):
    folder = root / "nanobeir" / f"Nano{name}"
    tables = {
        "corpus": pa.table({"_id": ["d1", "d2", "d3"], "text": ["alpha beta", "", "gamma delta"]}),
        "queries": pa.table({"_id": ["q1", "q2", "q3"], "text": ["alpha", "gamma", ""]}),
        "qrels": pa.table({"query-id": ["q1", "q2", "q2", "q2"], "corpus-id": ["d1", "d3", "d2", "d3"]}),
    }
    for config, table in tables.items():
        (folder / config).mkdir(parents=True, exist_ok=True)
        pq.write_table(table, folder / config / "train-00000-of-00001.parquet")
    return folder


def test_hub_layout_is_read_with_st_conventions(tmp_path):
    write_nano(tmp_path)
    data = load_nanobeir("SciFact", data_dir=tmp_path, prefix="zeta-alpha-ai/Nano", revision="main")
    assert data.name == "NanoSciFact"
    assert data.corpus == {"d1": "alpha beta", "d3": "gamma delta"}  # empty text dropped
    assert data.queries == {"q1": "alpha", "q2": "gamma"}  # empty query dropped
    assert data.qrels == {"q1": {"d1": 1}, "q2": {"d3": 1, "d2": 1}}  # binary, deduplicated


def test_manifest_checksums_are_verified(tmp_path):
    folder = write_nano(tmp_path)
    rel = "corpus/train-00000-of-00001.parquet"
    digest = hashlib.sha256((folder / rel).read_bytes()).hexdigest()
    (folder / "MANIFEST.json").write_text(json.dumps({"revision": "abc123", "files": {rel: digest}}))
    assert load_nanobeir("SciFact", data_dir=tmp_path, prefix="p", revision="main").revision == "abc123"
    (folder / "MANIFEST.json").write_text(json.dumps({"revision": "abc123", "files": {rel: "0" * 64}}))
    with pytest.raises(Exception, match="checksum mismatch"):
        load_nanobeir("SciFact", data_dir=tmp_path, prefix="p", revision="main")


def test_offline_without_copy_says_how_to_get_it(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(DataUnavailable) as e:
        load_nanobeir("NQ", data_dir=tmp_path, prefix="zeta-alpha-ai/Nano", revision="main")
    msg = e.value.line
    assert "NanoNQ" in msg and "cbench data pull nanobeir" in msg and "HF_HUB_OFFLINE" in msg


def test_shipped_suite_has_the_13_datasets(tmp_path):
    suite = resolve_suite("nanobeir", tmp_path)
    assert suite.dataset_names() == NANOBEIR_DATASETS and len(NANOBEIR_DATASETS) == 13


def test_data_pull_writes_the_offline_layout_with_a_manifest(tmp_path, monkeypatch):
    """`cbench data pull nanobeir` against a stand-in for the hub (no network here)."""
    import huggingface_hub
    from typer.testing import CliRunner

    from harness.cli import app

    calls = []

    def fake_snapshot_download(repo_id, repo_type, revision, allow_patterns, local_dir):
        calls.append((repo_id, repo_type, revision, tuple(allow_patterns)))
        name = repo_id.removeprefix("zeta-alpha-ai/Nano")
        folder = write_nano(tmp_path / "hub", name)
        import shutil

        shutil.copytree(folder, local_dir, dirs_exist_ok=True)
        return local_dir

    class FakeApi:
        def dataset_info(self, repo_id, revision):
            return type("Info", (), {"sha": "0123abcd"})()

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(huggingface_hub, "snapshot_download", fake_snapshot_download)
    monkeypatch.setattr(huggingface_hub, "HfApi", FakeApi)
    r = CliRunner().invoke(app, ["data", "pull", "nanobeir", "--to", str(tmp_path / "data")])
    assert r.exit_code == 0, r.output
    assert [c[0] for c in calls] == [f"zeta-alpha-ai/Nano{n}" for n in NANOBEIR_DATASETS]
    assert all(c[1] == "dataset" and c[2] == "main" for c in calls)
    manifest = json.loads((tmp_path / "data" / "nanobeir" / "NanoNQ" / "MANIFEST.json").read_text())
    assert manifest["repo_id"] == "zeta-alpha-ai/NanoNQ" and manifest["revision"] == "0123abcd" and len(manifest["files"]) == 3
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    data = load_nanobeir("NQ", data_dir=tmp_path / "data", prefix="zeta-alpha-ai/Nano", revision="main")
    assert data.revision == "0123abcd" and data.qrels == {"q1": {"d1": 1}, "q2": {"d3": 1, "d2": 1}}
