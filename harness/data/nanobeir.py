"""NanoBEIR from the Hugging Face hub or from a local copy in the hub's own layout.

Source: the 13 per-dataset repos ``zeta-alpha-ai/Nano<Name>`` (the ones sentence-transformers'
NanoBEIREvaluator loads in the version cbench pins), each with configs ``corpus``, ``queries``,
``qrels`` stored as ``<config>/train-*.parquet``. A local copy is the same files under
``<data dir>/nanobeir/Nano<Name>/``; ``cbench data pull nanobeir --to DIR`` writes exactly that
(plus MANIFEST.json with the commit it downloaded and file checksums).

Revisions: the suite pins each repo to a commit (the ones mteb pins). A revision that is not a
40-hex commit (a branch or tag) is resolved to its commit *before* downloading, and that commit
is downloaded and recorded, so the record cannot differ from the data. The revision recorded in
results is: the commit from MANIFEST.json for a local copy; for a local copy without a manifest
(hand-made, revision unknown), ``sha256:<checksum of its parquet files>``; the snapshot's commit
for data from the Hugging Face cache or the hub. With HF_HUB_OFFLINE=1 a snapshot of the pinned
commit already in the Hugging Face cache is used.

Conventions (as NanoBEIREvaluator): documents and queries whose text is the empty string are
dropped (``len(text) > 0``, exactly its test: whitespace-only texts are kept, as it keeps them); qrels are
binary (every listed pair is relevant); self-hits (query id == document id, ArguAna/Quora) are
NOT removed. Document text is ``title + " " + text`` when a non-empty title column exists; the
zeta-alpha corpora have only ``_id`` and ``text``, so in practice the text alone is used, as in
sentence-transformers.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from pathlib import Path

from harness.atomic import atomic_write_text
from harness.data.retrieval import RetrievalData, assemble
from harness.errors import CBenchError, DataUnavailable
from harness.model_refs import hub_offline

NANOBEIR_DATASETS = [
    "ClimateFEVER", "DBPedia", "FEVER", "FiQA2018", "HotpotQA", "MSMARCO", "NFCorpus",
    "NQ", "QuoraRetrieval", "SCIDOCS", "ArguAna", "SciFact", "Touche2020",
]  # fmt: skip
CONFIGS = ("corpus", "queries", "qrels")
COMMIT = re.compile(r"^[0-9a-f]{40}$")

log = logging.getLogger("cbench")


def repo_id(prefix: str, name: str) -> str:
    return f"{prefix}{name}"


def _parquet_files(folder: Path, config: str) -> list[Path]:
    return sorted((folder / config).glob("*.parquet"))


def local_folder(data_dir: Path | None, name: str) -> Path | None:
    if data_dir is None:
        return None
    folder = data_dir / "nanobeir" / f"Nano{name}"
    if all(_parquet_files(folder, c) for c in CONFIGS):
        return folder
    return None


def _read_table(files: list[Path]) -> list[dict]:
    import pyarrow.parquet as pq

    rows: list[dict] = []
    for f in files:
        try:
            rows += pq.read_table(f).to_pylist()
        except Exception as e:  # noqa: BLE001 - corrupt parquet of any kind
            raise CBenchError(f"cannot read parquet: {str(e).splitlines()[0]}", source=f) from None
    return rows


def _column(rows: list[dict], key: str, source: Path) -> None:
    if rows and key not in rows[0]:
        raise CBenchError(f"missing column '{key}' (columns: {', '.join(rows[0])})", source=source, field=key)


def verify_manifest(folder: Path) -> str | None:
    """Check files against MANIFEST.json when present; return the recorded revision."""
    manifest = folder / "MANIFEST.json"
    if not manifest.is_file():
        return None
    try:
        data = json.loads(manifest.read_text())
        files = data["files"]
    except (ValueError, KeyError, TypeError):
        raise CBenchError("unreadable manifest", source=manifest, field="files") from None
    for rel, digest in files.items():
        path = folder / rel
        if not path.is_file() or hashlib.sha256(path.read_bytes()).hexdigest() != digest:
            raise CBenchError("checksum mismatch; pull the data again", source=path)
    return data.get("revision")


def files_fingerprint(folder: Path) -> str:
    """Checksum of a copy's parquet files (names and bytes): the revision of a copy without a manifest."""
    h = hashlib.sha256()
    for c in CONFIGS:
        for p in _parquet_files(folder, c):
            h.update(str(p.relative_to(folder)).encode())
            h.update(hashlib.sha256(p.read_bytes()).digest())
    return "sha256:" + h.hexdigest()[:16]


def load_folder(folder: Path, name: str, *, source: str, revision: str | None) -> RetrievalData:
    """``revision``: the commit the caller knows the folder holds (a hub snapshot), else None."""
    recorded = verify_manifest(folder)
    revision = recorded or revision or files_fingerprint(folder)
    tables = {c: _read_table(_parquet_files(folder, c)) for c in CONFIGS}
    srcs = {c: folder / c for c in CONFIGS}
    _column(tables["corpus"], "_id", srcs["corpus"])
    _column(tables["corpus"], "text", srcs["corpus"])
    _column(tables["queries"], "_id", srcs["queries"])
    _column(tables["queries"], "text", srcs["queries"])
    _column(tables["qrels"], "query-id", srcs["qrels"])
    _column(tables["qrels"], "corpus-id", srcs["qrels"])
    docs = [(str(r["_id"]), r.get("title") or "", r.get("text") or "") for r in tables["corpus"]]
    queries = [(str(r["_id"]), r["text"]) for r in tables["queries"] if len(r.get("text") or "") > 0]  # as ST
    qrels: list[tuple[str, str, int]] = []
    seen: set[tuple[str, str]] = set()
    for r in tables["qrels"]:
        dids = r["corpus-id"] if isinstance(r["corpus-id"], list) else [r["corpus-id"]]
        for did in dids:
            pair = (str(r["query-id"]), str(did))
            if pair not in seen:  # binary qrels: a set of relevant ids per query
                seen.add(pair)
                qrels.append((*pair, 1))
    return assemble(
        f"Nano{name}",
        docs,
        queries,
        qrels,
        source=source,
        sources=(str(srcs["corpus"]), str(srcs["queries"]), str(srcs["qrels"])),
        revision=revision,
        drop_empty_docs=True,
        blank_queries_ok=True,
        strict_qrels=False,
    )


def resolve_commit(prefix: str, name: str, revision: str) -> str:
    """The commit a revision names: a 40-hex commit is itself; a branch or tag is looked up on the hub."""
    if COMMIT.match(revision):
        return revision
    from huggingface_hub import HfApi

    sha = HfApi().dataset_info(repo_id(prefix, name), revision=revision).sha
    if not sha or not COMMIT.match(sha):
        raise CBenchError(f"the hub returned no commit for revision '{revision}'", source=repo_id(prefix, name))
    return sha


def download(prefix: str, name: str, revision: str, local_dir: Path | None = None) -> tuple[Path, str]:
    """Fetch one NanoBEIR repo's parquet files at the commit ``revision`` names (resolved first, then
    downloaded, so the commit returned is the one downloaded) into the HF cache or ``local_dir``."""
    from huggingface_hub import snapshot_download

    commit = resolve_commit(prefix, name, revision)
    folder = snapshot_download(
        repo_id(prefix, name),
        repo_type="dataset",
        revision=commit,
        allow_patterns=[f"{c}/*.parquet" for c in CONFIGS],
        local_dir=str(local_dir) if local_dir else None,
    )
    return Path(folder), commit


def cached_snapshot(prefix: str, name: str, revision: str) -> tuple[Path, str] | None:
    """A snapshot of ``revision`` already in the Hugging Face cache (no network), or None."""
    from huggingface_hub import snapshot_download

    try:
        folder = Path(
            snapshot_download(
                repo_id(prefix, name),
                repo_type="dataset",
                revision=revision,
                allow_patterns=[f"{c}/*.parquet" for c in CONFIGS],
                local_files_only=True,
            )
        )
    except Exception:  # noqa: BLE001 - not cached (LocalEntryNotFoundError) or an unreadable cache
        return None
    if not all(_parquet_files(folder, c) for c in CONFIGS):
        return None
    return folder, folder.name  # snapshots/<commit>


def load_nanobeir(name: str, *, data_dir: Path | None, prefix: str, revision: str) -> RetrievalData:
    folder = local_folder(data_dir, name)
    if folder is not None:
        data = load_folder(folder, name, source=str(folder), revision=None)
        if data.revision != revision:
            log.warning("%s: the local copy %s is at %s, not at the suite's %s", f"Nano{name}", folder, data.revision, revision)
        return data
    if hub_offline():
        cached = cached_snapshot(prefix, name, revision)
        if cached is not None:
            return load_folder(cached[0], name, source=repo_id(prefix, name), revision=cached[1])
        where = f"{data_dir}/nanobeir/Nano{name}/" if data_dir else f"$CBENCH_DATA_DIR/nanobeir/Nano{name}/ (CBENCH_DATA_DIR is not set)"
        raise DataUnavailable(
            f"no local copy at {where}, no snapshot of {repo_id(prefix, name)}@{revision} in the Hugging Face "
            f"cache, and the hub is offline (HF_HUB_OFFLINE=1). Either run online "
            f"(unset HF_HUB_OFFLINE), or copy the data with `cbench data pull nanobeir --to DIR` on a "
            f"connected machine and pass --data-dir DIR (or set CBENCH_DATA_DIR=DIR)",
            source=f"Nano{name}",
        )
    try:
        folder, commit = download(prefix, name, revision)
    except Exception as e:  # noqa: BLE001
        raise DataUnavailable(
            f"cannot download {repo_id(prefix, name)}@{revision} ({str(e).splitlines()[0]}); "
            f"copy it with `cbench data pull nanobeir --to DIR` on a connected machine and set CBENCH_DATA_DIR",
            source=f"Nano{name}",
        ) from None
    return load_folder(folder, name, source=repo_id(prefix, name), revision=commit)


def pull(names: list[str], *, to: Path, prefix: str, revisions: dict[str, str]) -> list[Path]:
    """Copy the hub data, each repo at its own revision, into ``to/nanobeir/Nano<Name>/`` with a
    checksummed manifest recording the commit downloaded."""
    out = []
    for name in names:
        target = to / "nanobeir" / f"Nano{name}"
        try:
            folder, commit = download(prefix, name, revisions[name], local_dir=target)
        except CBenchError:
            raise
        except Exception as e:  # noqa: BLE001 - network, hub or disk: one line naming repo and target
            raise CBenchError(f"cannot download {repo_id(prefix, name)}@{revisions[name]}: {str(e).splitlines()[0]}", source=target) from None
        files = {
            str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for c in CONFIGS
            for p in _parquet_files(folder, c)
        }
        manifest = {"repo_id": repo_id(prefix, name), "revision": commit, "files": files}
        atomic_write_text(target / "MANIFEST.json", json.dumps(manifest, indent=2, sort_keys=True) + "\n")
        out.append(target)
    return out
