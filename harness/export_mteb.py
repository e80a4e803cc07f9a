"""`cbench export --format mteb`: cbench retrieval results in MTEB's results layout.

Writes ``<out>/<model_name_as_path>/<revision>/<TaskName>.json`` (one ``TaskResult`` per dataset)
plus ``model_meta.json`` per model folder, the layout ``mteb.ResultCache`` reads from its
``results/`` folder. To load with mteb 2.26::

    cbench export --format mteb --out /tmp/mteb-cache/results
    import mteb
    mteb.ResultCache("/tmp/mteb-cache").load_results(include_remote=False)
    # or one file: mteb.TaskResult.from_disk(Path(".../NanoArguAnaRetrieval.json"))

Decisions:

- Model name ``cbench/<submission>``: unique per submission (two submissions may wrap the same hub
  model with different settings) and valid for ``ModelMeta`` (which wants ``org/name``). The folder is
  ``cbench__<submission>``. Revision: the model revision cbench recorded (hub commit or package
  version), else ``no_revision_available`` (mteb's own placeholder).
- Only datasets that have an MTEB task are exported: the 13 NanoBEIR datasets, as mteb's
  ``Nano*Retrieval`` tasks (split ``train``, subset ``default``, language ``eng-Latn``). The
  ``classic-ir`` collections (Cranfield, CISI, Medline), ad-hoc BEIR folders and the near-miss suites
  have no MTEB task; they are skipped with a note rather than written under invented task names
  that mteb's task registry (and so its leaderboard and filters) cannot resolve.
- Runs made with ``--limit-queries`` are skipped: MTEB scores are over the whole task.
- ``dataset_revision`` is the hub commit cbench recorded for the data it evaluated (cbench reads
  NanoBEIR from ``zeta-alpha-ai/Nano*`` at the commits pinned in ``suites/nanobeir.yaml``; mteb's
  tasks point at ``mteb/Nano*Retrieval`` copies). A dataset whose recorded revision is not a commit
  (``main`` in results from before the pins, or the checksum of a hand-made copy) is skipped with a note.
- Producer: cbench, not mteb. ``mteb_version`` is ``null`` (mteb did not produce the file; its
  loader accepts null) and the top-level ``produced_by`` records cbench's name and the version and
  git commit that computed the scores (mteb's loader ignores the extra key). The layout is that of
  mteb 2.26.24's ``TaskResult`` / ``ModelMeta``.
- Not for MTEB's leaderboard: it shows results produced by mteb itself for models in mteb's model
  registry (submitted to the ``embeddings-benchmark/results`` repository). ``cbench/<submission>``
  is in no registry, and ``training_datasets`` is ``null`` (unknown: cbench does not know what the
  model was trained on), which mteb's default zero-shot filter hides. The export is for loading
  cbench's scores into mteb's own tools (``TaskResult``, ``ResultCache``, benchmark tables) next to
  mteb-produced results.
- Metric keys: ``ndcg@10`` -> ``ndcg_at_10`` etc.; ``main_score`` = ``ndcg_at_10``. Scores are not rounded.

Reads nothing but the results JSON files (mteb itself need not be installed to export).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.atomic import atomic_write_text
from harness.errors import CBenchError
from harness.results import Results, read_results

MTEB_FORMAT_VERSION = "2.26.24"  # the mteb release whose TaskResult / ModelMeta layout this writes (not a producer)
COMMIT = re.compile(r"^[0-9a-f]{40}$")
NO_REVISION = "no_revision_available"

# cbench suite -> {cbench dataset name -> MTEB task name}
NANOBEIR_TASKS = {
    "ArguAna": "NanoArguAnaRetrieval",
    "ClimateFEVER": "NanoClimateFeverRetrieval",
    "DBPedia": "NanoDBPediaRetrieval",
    "FEVER": "NanoFEVERRetrieval",
    "FiQA2018": "NanoFiQA2018Retrieval",
    "HotpotQA": "NanoHotpotQARetrieval",
    "MSMARCO": "NanoMSMARCORetrieval",
    "NFCorpus": "NanoNFCorpusRetrieval",
    "NQ": "NanoNQRetrieval",
    "QuoraRetrieval": "NanoQuoraRetrieval",
    "SCIDOCS": "NanoSCIDOCSRetrieval",
    "SciFact": "NanoSciFactRetrieval",
    "Touche2020": "NanoTouche2020Retrieval",
}
TASKS: dict[str, dict[str, str]] = {"nanobeir": NANOBEIR_TASKS}
SPLITS = {"nanobeir": "train"}  # mteb's Nano*Retrieval tasks evaluate split "train", as cbench does
LANGUAGES = {"nanobeir": ["eng-Latn"]}
MAIN_METRIC = "ndcg@10"
MODEL_TYPES = {"encoder": "dense", "static": "dense", "late-interaction": "late-interaction", "cross-encoder": "cross-encoder", "lexical": "sparse"}
FRAMEWORKS = {"encoder": ["Sentence Transformers"], "cross-encoder": ["Sentence Transformers"], "late-interaction": ["PyLate"]}
SIMILARITY = {"cosine": "cosine", "dot": "dot", "maxsim": "MaxSim"}


@dataclass
class ExportReport:
    written: list[Path] = field(default_factory=list)
    models: set[str] = field(default_factory=set)
    notes: list[str] = field(default_factory=list)


def metric_key(name: str) -> str:
    """cbench metric name -> MTEB score key: ndcg@10 -> ndcg_at_10."""
    return name.replace("@", "_at_")


def model_name(submission: str) -> str:
    return f"cbench/{submission}"


def model_name_as_path(name: str) -> str:
    return name.replace("/", "__").replace(" ", "_")


def model_revision(r: Results) -> str:
    rev = r.metadata.scorer.get("model_revision")
    if not isinstance(rev, str) or not rev:
        return NO_REVISION
    return re.sub(r"[^A-Za-z0-9._-]", "_", rev)


def producer(r: Results) -> dict[str, Any]:
    """Who computed the scores: cbench, at the version and commit recorded in the results file."""
    return {
        "name": "cbench",
        "version": r.metadata.cbench_version,
        "git_commit": r.metadata.git_commit,
        "layout": f"mteb {MTEB_FORMAT_VERSION} TaskResult",
    }


def task_result(r: Results, dataset: str, task: str) -> dict[str, Any]:
    """One MTEB TaskResult (as ``TaskResult.to_dict`` writes it) for one cbench dataset."""
    metrics = r.datasets[dataset]
    scores: dict[str, Any] = {metric_key(k): v for k, v in metrics.items()}
    scores["main_score"] = metrics[MAIN_METRIC]
    scores["hf_subset"] = "default"
    scores["languages"] = LANGUAGES[r.suite]
    timings = r.metadata.timings.get(dataset)
    return {
        "dataset_revision": r.metadata.dataset_revisions[dataset],
        "task_name": task,
        "mteb_version": None,  # mteb did not produce this file; see produced_by
        "produced_by": producer(r),
        "scores": {SPLITS[r.suite]: [scores]},
        "evaluation_time": sum(timings.values()) if timings else None,
        "kg_co2_emissions": None,
        "date": None,
        "evaluation_phases": None,
    }


def model_meta(r: Results, revision: str) -> dict[str, Any]:
    """model_meta.json: the fields mteb's ModelMeta requires, from the submission config in the results."""
    cfg = r.metadata.submission_config
    kind = str(cfg.get("kind", ""))
    url = cfg.get("url")
    similarity = r.metadata.scorer.get("similarity") or cfg.get("similarity")
    max_tokens = r.metadata.scorer.get("max_seq_length") or cfg.get("max_seq_length")
    prompts = bool(cfg.get("query_prompt") or cfg.get("document_prompt"))
    return {
        "name": model_name(r.submission),
        "revision": revision,
        "release_date": None,
        "languages": None,
        "n_parameters": cfg.get("parameters"),
        "memory_usage_mb": None,
        "max_tokens": max_tokens if isinstance(max_tokens, int | float) else None,
        "embed_dim": None,
        "license": str(cfg["license"]).lower() if cfg.get("license") else None,
        "open_weights": None,
        "public_training_code": None,
        "public_training_data": None,
        "framework": FRAMEWORKS.get(kind, []),
        "reference": url if isinstance(url, str) and url.startswith(("http://", "https://")) else None,
        "similarity_fn_name": SIMILARITY.get(str(similarity).lower()) if similarity else None,
        "use_instructions": prompts if kind == "encoder" else None,
        "training_datasets": None,
        "modalities": ["text"],
        "model_type": [MODEL_TYPES.get(kind, "dense")],
        "loader": None,
    }


def export_mteb(results_dir: Path, out: Path) -> ExportReport:
    """Export every exportable results file under ``results_dir``; notes say what was left out and why."""
    report = ExportReport()
    files = sorted(p for p in results_dir.glob("*/*.json") if p.is_file() and not p.name.startswith(".")) if results_dir.is_dir() else []
    if not files:
        raise CBenchError("no results files (<dir>/<submission>/<suite>.json) here", source=results_dir)
    for path in files:
        try:
            r = read_results(path)
        except CBenchError as e:
            report.notes.append(f"{e.line} (skipped)")
            continue
        if r.task != "retrieval":
            report.notes.append(f"{path}: skipped: {r.suite} is a {r.task} suite; MTEB has no such task")
            continue
        mapping = TASKS.get(r.suite)
        if mapping is None:
            names = ", ".join([*r.datasets, *r.skipped])
            report.notes.append(f"{path}: skipped: suite '{r.suite}' ({names}) has no MTEB task")
            continue
        if r.metadata.limit_queries:
            report.notes.append(f"{path}: skipped: run with --limit-queries {r.metadata.limit_queries}; MTEB scores cover every query")
            continue
        revision = model_revision(r)
        name = model_name(r.submission)
        folder = out / model_name_as_path(name) / revision
        wrote_any = False
        for ds in r.datasets:
            task = mapping.get(ds)
            if task is None:
                report.notes.append(f"{path}: dataset '{ds}' skipped: no MTEB task for it")
                continue
            if MAIN_METRIC not in r.datasets[ds]:
                report.notes.append(f"{path}: dataset '{ds}' skipped: no {MAIN_METRIC}")
                continue
            rev = r.metadata.dataset_revisions.get(ds)
            if not isinstance(rev, str) or not COMMIT.match(rev):
                report.notes.append(f"{path}: dataset '{ds}' skipped: its data revision {rev!r} is not a hub commit; run it again with the pinned suite")
                continue
            target = folder / f"{task}.json"
            atomic_write_text(target, json.dumps(task_result(r, ds, task), indent=2) + "\n")
            report.written.append(target)
            wrote_any = True
        for ds, why in r.skipped.items():
            report.notes.append(f"{path}: dataset '{ds}' not exported: not evaluated ({why})")
        if wrote_any:
            meta_path = folder / "model_meta.json"
            atomic_write_text(meta_path, json.dumps(model_meta(r, revision), indent=2) + "\n")
            if meta_path not in report.written:
                report.written.append(meta_path)
            report.models.add(name)
    return report
