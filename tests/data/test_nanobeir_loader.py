"""The NanoBEIR loader against the hub's layout: <repo>/{corpus,queries,qrels}/train-00000-of-00001.parquet."""

import hashlib
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from harness.data.nanobeir import NANOBEIR_DATASETS, load_nanobeir
from harness.errors import CBenchError, DataUnavailable
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


SCIFACT = "309f1d1ae3ae2e092444a8a0c25bed59b82318bc"
NQ = "77540146379abf95df8326a3c5bb9eb21c7146c3"


def test_hub_layout_is_read_with_st_conventions(tmp_path):
    write_nano(tmp_path)
    data = load_nanobeir("SciFact", data_dir=tmp_path, prefix="zeta-alpha-ai/Nano", revision=SCIFACT)
    assert data.name == "NanoSciFact"
    assert data.corpus == {"d1": "alpha beta", "d3": "gamma delta"}  # empty text dropped
    assert data.queries == {"q1": "alpha", "q2": "gamma"}  # empty query dropped
    assert data.qrels == {"q1": {"d1": 1}, "q2": {"d3": 1, "d2": 1}}  # binary, deduplicated


def test_whitespace_only_texts_are_kept_as_sentence_transformers_keeps_them(tmp_path):
    """NanoBEIREvaluator drops texts with len(text) == 0 only; a text of spaces is kept."""
    folder = write_nano(tmp_path)
    pq.write_table(pa.table({"_id": ["d1", "d2", "d3"], "text": ["alpha beta", "  ", "gamma delta"]}), folder / "corpus" / "train-00000-of-00001.parquet")
    pq.write_table(pa.table({"_id": ["q1", "q2", "q3"], "text": ["alpha", " ", ""]}), folder / "queries" / "train-00000-of-00001.parquet")
    pq.write_table(pa.table({"query-id": ["q1", "q2"], "corpus-id": ["d1", "d2"]}), folder / "qrels" / "train-00000-of-00001.parquet")
    data = load_nanobeir("SciFact", data_dir=tmp_path, prefix="zeta-alpha-ai/Nano", revision=SCIFACT)
    assert data.corpus == {"d1": "alpha beta", "d2": "  ", "d3": "gamma delta"}
    assert data.queries == {"q1": "alpha", "q2": " "}


def test_copy_without_manifest_records_a_checksum_not_the_suite_revision(tmp_path):
    write_nano(tmp_path)
    a = load_nanobeir("SciFact", data_dir=tmp_path, prefix="p", revision=SCIFACT).revision
    assert a.startswith("sha256:") and a != SCIFACT
    write_nano(tmp_path / "other")  # same bytes, same checksum; different bytes, different checksum
    assert load_nanobeir("SciFact", data_dir=tmp_path / "other", prefix="p", revision=SCIFACT).revision == a
    pq.write_table(
        pa.table({"_id": ["q1", "q2"], "text": ["alpha", "gamma!"]}),
        tmp_path / "other" / "nanobeir" / "NanoSciFact" / "queries" / "train-00000-of-00001.parquet",
    )
    assert load_nanobeir("SciFact", data_dir=tmp_path / "other", prefix="p", revision=SCIFACT).revision != a


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


MTEB_PINS = {  # the commits mteb pins for zeta-alpha-ai/Nano<Name> (harness/data/nanobeir.py)
    "ArguAna": "8f4a982d470a32c45817738b9d29042ca55d75ad", "ClimateFEVER": "96741bfa30b9f56db8c9eb7d08e775ed6474f206",
    "DBPedia": "438f1c25129f05db6238699b5afdc9c6b58d2096", "FEVER": "a8bfdf1bf15181167a7e22e69cf8754bdea9b4c8",
    "FiQA2018": "4163ba032953d5044a7a6244261413f609c14342", "HotpotQA": "d79c0cdda980aba54842756770928035e1b61a51",
    "MSMARCO": "7b8ff22f2771dc65ac5b439f222eb19a1f56abda", "NFCorpus": "dd542a7efb9ad2136b9e00768b60fca9038f8156",
    "NQ": "77540146379abf95df8326a3c5bb9eb21c7146c3", "QuoraRetrieval": "2ab2d73e6c862026282808b913a34f4136928545",
    "SCIDOCS": "484eb90549fc3f0b9c42b3551e80ceb999515537", "SciFact": "309f1d1ae3ae2e092444a8a0c25bed59b82318bc",
    "Touche2020": "0d2f26ed8c5ad309f95c7f9499c70a40e140fccd",
}  # fmt: skip


def test_shipped_suite_pins_every_dataset_to_its_commit(tmp_path):
    suite = resolve_suite("nanobeir", tmp_path)
    assert dict(suite.config.revisions) == MTEB_PINS


@pytest.mark.parametrize(
    ("revisions", "expected"),
    [
        ("{NQ: 77540146379abf95df8326a3c5bb9eb21c7146c3}", "no revision for SciFact"),
        ("{NQ: main, SciFact: 309f1d1ae3ae2e092444a8a0c25bed59b82318bc}", "40-hex hub commits"),
    ],
)
def test_suite_without_a_pinned_commit_per_dataset_is_refused(tmp_path, revisions, expected):
    path = tmp_path / "nb.yaml"
    path.write_text(f"name: nb\ntype: nanobeir\ndatasets: [NQ, SciFact]\nrevisions: {revisions}\n")
    with pytest.raises(CBenchError, match=expected):
        resolve_suite(str(path), tmp_path)


def _hf_cache_snapshot(cache, name, commit):
    """A snapshot in the Hugging Face cache layout: datasets--org--repo/snapshots/<commit>/..."""
    import shutil

    storage = cache / f"datasets--zeta-alpha-ai--Nano{name}"
    shutil.copytree(write_nano(cache.parent / "src", name), storage / "snapshots" / commit)
    (storage / "refs").mkdir(parents=True)
    (storage / "refs" / "main").write_text(commit)


def test_offline_uses_a_snapshot_already_in_the_hf_cache(tmp_path, monkeypatch):
    from huggingface_hub import constants

    cache = tmp_path / "hf" / "hub"
    _hf_cache_snapshot(cache, "NQ", NQ)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    data = load_nanobeir("NQ", data_dir=tmp_path / "empty", prefix="zeta-alpha-ai/Nano", revision=NQ)
    assert data.revision == NQ and data.source == "zeta-alpha-ai/NanoNQ"
    assert data.qrels == {"q1": {"d1": 1}, "q2": {"d3": 1, "d2": 1}}
    # another commit is not in the cache: refused with the advice, not silently replaced
    with pytest.raises(DataUnavailable, match="no snapshot of zeta-alpha-ai/NanoNQ@" + "1" * 40):
        load_nanobeir("NQ", data_dir=tmp_path / "empty", prefix="zeta-alpha-ai/Nano", revision="1" * 40)


def test_run_offline_from_the_hf_cache_records_the_pinned_commit(tmp_path, monkeypatch):
    from huggingface_hub import constants
    from typer.testing import CliRunner

    from harness.cli import app

    cache = tmp_path / "hf" / "hub"
    _hf_cache_snapshot(cache, "NQ", NQ)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    suite = tmp_path / "nq.yaml"
    suite.write_text(f"name: nq\ntype: nanobeir\ndatasets: [NQ]\nrevisions: {{NQ: {NQ}}}\n")
    res = tmp_path / "results"
    r = CliRunner().invoke(app, ["run", "--model", "bm25", "--suite", str(suite), "--results-dir", str(res), "--data-dir", str(tmp_path / "empty"), "--quiet"])
    assert r.exit_code == 0, r.output
    meta = json.loads((res / "bm25" / "nq.json").read_text())["metadata"]
    assert meta["dataset_revisions"] == {"NQ": NQ}


class StandInHub:
    """A stand-in for huggingface_hub: each repo has commits; `main` points at the newest."""

    def __init__(self, root, heads):
        self.root, self.heads, self.downloads, self.lookups = root, heads, [], []

    def snapshot_download(self, repo_id, repo_type, revision, allow_patterns, local_dir):
        import shutil

        assert repo_type == "dataset" and allow_patterns == ["corpus/*.parquet", "queries/*.parquet", "qrels/*.parquet"]
        self.downloads.append((repo_id, revision))
        name = repo_id.removeprefix("zeta-alpha-ai/Nano")
        folder = write_nano(self.root / revision, name)  # the content depends on the commit
        pq.write_table(pa.table({"_id": ["q1", "q2"], "text": [f"alpha {revision}", "gamma"]}), folder / "queries" / "train-00000-of-00001.parquet")
        shutil.copytree(folder, local_dir, dirs_exist_ok=True)
        return local_dir

    def api(self):
        hub = self

        class Api:
            def dataset_info(self, repo_id, revision):
                hub.lookups.append((repo_id, revision))
                sha = hub.heads.get(revision)
                if sha is None:  # moved on since: a second look-up would give another answer
                    raise AssertionError(f"unexpected look-up of {revision}")
                hub.heads[revision] = "f" * 40
                return type("Info", (), {"sha": sha})()

        return Api


@pytest.fixture
def hub(tmp_path, monkeypatch):
    import huggingface_hub

    h = StandInHub(tmp_path / "hub", {"main": "a" * 40})
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(huggingface_hub, "snapshot_download", h.snapshot_download)
    monkeypatch.setattr(huggingface_hub, "HfApi", h.api())
    return h


def test_data_pull_downloads_each_repo_at_its_pinned_commit_and_records_it(tmp_path, hub, monkeypatch):
    """`cbench data pull nanobeir` against a stand-in for the hub (no network here)."""
    from typer.testing import CliRunner

    from harness.cli import app

    r = CliRunner().invoke(app, ["data", "pull", "nanobeir", "--to", str(tmp_path / "data")])
    assert r.exit_code == 0, r.output
    assert hub.downloads == [(f"zeta-alpha-ai/Nano{n}", MTEB_PINS[n]) for n in NANOBEIR_DATASETS]
    assert hub.lookups == []  # a commit needs no look-up
    for n in NANOBEIR_DATASETS:
        manifest = json.loads((tmp_path / "data" / "nanobeir" / f"Nano{n}" / "MANIFEST.json").read_text())
        assert manifest["repo_id"] == f"zeta-alpha-ai/Nano{n}" and manifest["revision"] == MTEB_PINS[n] and len(manifest["files"]) == 3
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    data = load_nanobeir("NQ", data_dir=tmp_path / "data", prefix="zeta-alpha-ai/Nano", revision=NQ)
    assert data.revision == NQ and data.queries["q1"] == f"alpha {NQ}"


def test_data_pull_resolves_a_branch_once_and_downloads_that_commit(tmp_path, hub, monkeypatch):
    from typer.testing import CliRunner

    from harness.cli import app

    r = CliRunner().invoke(app, ["data", "pull", "nanobeir", "--to", str(tmp_path / "data"), "--revision", "NQ=main"])
    assert r.exit_code == 0, r.output
    assert hub.lookups == [("zeta-alpha-ai/NanoNQ", "main")]
    assert ("zeta-alpha-ai/NanoNQ", "a" * 40) in hub.downloads
    manifest = json.loads((tmp_path / "data" / "nanobeir" / "NanoNQ" / "MANIFEST.json").read_text())
    assert manifest["revision"] == "a" * 40  # what was downloaded, though `main` has moved on since
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    data = load_nanobeir("NQ", data_dir=tmp_path / "data", prefix="zeta-alpha-ai/Nano", revision=NQ)
    assert data.revision == "a" * 40 and data.queries["q1"] == "alpha " + "a" * 40


@pytest.mark.parametrize("arg", ["NQ", "Nope=abc", "NQ="])
def test_data_pull_bad_revision_argument_is_one_line(tmp_path, hub, arg):
    from typer.testing import CliRunner

    from harness.cli import app

    r = CliRunner().invoke(app, ["data", "pull", "nanobeir", "--to", str(tmp_path / "data"), "--revision", arg])
    assert r.exit_code == 2 and "--revision" in r.output and "Traceback" not in r.output
    assert hub.downloads == []


def test_online_load_resolves_first_then_downloads_that_commit(tmp_path, hub, monkeypatch):
    import huggingface_hub

    def to_cache(repo_id, repo_type, revision, allow_patterns, local_dir=None):
        return hub.snapshot_download(repo_id, repo_type, revision, allow_patterns, str(tmp_path / "snap" / revision))

    monkeypatch.setattr(huggingface_hub, "snapshot_download", to_cache)
    data = load_nanobeir("NQ", data_dir=None, prefix="zeta-alpha-ai/Nano", revision="main")
    assert hub.lookups == [("zeta-alpha-ai/NanoNQ", "main")] and hub.downloads == [("zeta-alpha-ai/NanoNQ", "a" * 40)]
    assert data.revision == "a" * 40 and data.queries["q1"] == "alpha " + "a" * 40
