"""Retrieval suites: `beir` (local BEIR folders) and `nanobeir` (hub or local parquet)."""

from __future__ import annotations

import hashlib
import math
import time
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from harness.data.nanobeir import COMMIT, NANOBEIR_DATASETS, load_nanobeir
from harness.data.retrieval import RetrievalData, load_beir_folder
from harness.errors import CBenchError, DataUnavailable
from harness.metrics import retrieval as metrics
from harness.names import NAME_PATTERN
from harness.scorers.base import Scorer
from harness.sidecar import ItemScores
from harness.suites.base import DatasetOutcome, EvalOptions, Suite, SuiteConfig


class RetrievalSuite(Suite):
    task = "retrieval"
    item_units = ("query",)

    @property
    def main_metric(self) -> str:
        return metrics.MAIN_METRIC

    def evaluate(self, scorer: Scorer, data: RetrievalData, opts: EvalOptions) -> DatasetOutcome:
        data = data.limit_queries(opts.limit_queries)
        t0 = time.perf_counter()
        retrieval = scorer.retrieve(data.queries, data.corpus, opts.top_k)
        run = retrieval.run
        t1 = time.perf_counter()
        bad = [(q, d) for q, docs in run.items() for d, s in docs.items() if not math.isfinite(s)]
        if bad:  # pytrec_eval would rank NaNs silently and give finite, meaningless metrics
            raise CBenchError(
                f"the scorer returned {len(bad)} non-finite scores (NaN or inf), e.g. query '{bad[0][0]}', "
                f"document '{bad[0][1]}'; no result written for it",
                source=f"submission {scorer.config.name}",
                field=f"dataset {data.name}",
            )
        rows = metrics.per_query(data.qrels, run)
        scores = metrics.mean(rows)
        items = [ItemScores(dataset=data.name, id=qid, metrics=row) for qid, row in rows.items()]
        details = {"queries": len(data.queries), "documents": len(data.corpus), "top_k": opts.top_k, "notes": data.notes}
        if retrieval.first_stage_run is not None:  # a reranker: its first stage's scores and the change
            before = metrics.evaluate(data.qrels, retrieval.first_stage_run)
            details["first_stage"] = before
            details["change_vs_first_stage"] = {k: scores[k] - before[k] for k in scores}
        runs = {"run": run} if retrieval.first_stage_run is None else {"run": run, "first_stage": retrieval.first_stage_run}
        t2 = time.perf_counter()
        return DatasetOutcome(metrics=scores, timings={"retrieve": t1 - t0, "metrics": t2 - t1}, details=details, items=items, runs=runs)


class BeirDataset(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    name: str = Field(pattern=NAME_PATTERN)
    path: str = Field(description="BEIR folder, relative to the suite file or to $CBENCH_DATA_DIR")
    split: str = Field(default="test", pattern=r"^[A-Za-z0-9_-]+$")


class BeirSuiteConfig(SuiteConfig):
    type: Literal["beir"]
    datasets: list[BeirDataset] = Field(min_length=1)


def folder_fingerprint(folder: Path, split: str) -> str:
    h = hashlib.sha256()
    for rel in ("corpus.jsonl", "queries.jsonl", f"qrels/{split}.tsv"):
        with open(folder / rel, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
    return "sha256:" + h.hexdigest()[:16]


class BeirSuite(RetrievalSuite):
    type = "beir"
    Config = BeirSuiteConfig

    def dataset_names(self) -> list[str]:
        return [d.name for d in self.config.datasets]

    def folder(self, ds: BeirDataset) -> Path:
        candidates = self.candidates(ds.path)
        for c in candidates:
            if c.is_dir():
                return c.resolve()
        tried = ", ".join(str(c) for c in candidates) or f"{ds.path} (set CBENCH_DATA_DIR or --data-dir)"
        raise DataUnavailable(
            f"BEIR folder not found (tried {tried}); put corpus.jsonl, queries.jsonl and qrels/{ds.split}.tsv "
            f"there, or point CBENCH_DATA_DIR / --data-dir at the folder that holds '{ds.path}'",
            source=ds.name,
        )

    def dataset_revision(self, name: str) -> str | None:
        ds = next(d for d in self.config.datasets if d.name == name)
        return folder_fingerprint(self.folder(ds), ds.split)

    def load(self, name: str) -> RetrievalData:
        ds = next(d for d in self.config.datasets if d.name == name)
        folder = self.folder(ds)
        data = load_beir_folder(folder, name=name, split=ds.split)
        data.revision = folder_fingerprint(folder, ds.split)
        return data


class NanoBEIRSuiteConfig(SuiteConfig):
    type: Literal["nanobeir"]
    hub_prefix: str = Field(default="zeta-alpha-ai/Nano", description="repo id = prefix + dataset name")
    revisions: dict[str, str] = Field(description="dataset -> the hub commit (40 hex digits) its repo is pinned to")
    datasets: list[str] = Field(default_factory=lambda: list(NANOBEIR_DATASETS), min_length=1)

    @field_validator("datasets", "revisions")
    @classmethod
    def _known_datasets(cls, v):  # checked before the pins, so an unknown name is named as such
        unknown = [d for d in v if d not in NANOBEIR_DATASETS]
        if unknown:
            raise ValueError(f"unknown NanoBEIR dataset(s) {unknown}; known: {', '.join(NANOBEIR_DATASETS)}")
        return v

    @model_validator(mode="after")
    def _every_dataset_pinned(self) -> NanoBEIRSuiteConfig:
        missing = [d for d in self.datasets if d not in self.revisions]
        if missing:
            raise ValueError(f"no revision for {', '.join(missing)}; pin every dataset to a hub commit")
        bad = [f"{d}: {r!r}" for d, r in self.revisions.items() if not COMMIT.match(r)]
        if bad:
            raise ValueError(f"revisions must be 40-hex hub commits, not branches or tags ({'; '.join(bad)})")
        return self


class NanoBEIRSuite(RetrievalSuite):
    type = "nanobeir"
    Config = NanoBEIRSuiteConfig

    def __init__(self, config, path, data_dir):
        super().__init__(config, path, data_dir)
        unknown = [d for d in [*config.datasets, *config.revisions] if d not in NANOBEIR_DATASETS]
        if unknown:
            raise CBenchError(f"unknown NanoBEIR dataset(s) {unknown}; known: {', '.join(NANOBEIR_DATASETS)}", source=path, field="datasets")

    def dataset_names(self) -> list[str]:
        return list(self.config.datasets)

    def load(self, name: str) -> RetrievalData:
        return load_nanobeir(name, data_dir=self.data_dir, prefix=self.config.hub_prefix, revision=self.config.revisions[name])
