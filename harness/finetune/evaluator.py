"""Near-miss evaluation inside sentence-transformers training.

``NearMissEvaluator`` is a ``SentenceEvaluator`` over any cbench near-miss suite. It scores the
live model with the same code path as ``cbench run`` (the suite's own ``evaluate``, an
``EmbeddingScorer`` that encodes through ``cached_encode`` with the encoder kind's batch size,
cosine in float64, the suite's ``aggregate`` and ``main_score``), so for the same weights its
primary metric equals the ``main_score`` that ``cbench run`` writes for that suite.

    from harness import NearMissEvaluator
    ev = NearMissEvaluator.from_suite("nearmiss")
    metrics = ev(model)            # {"nearmiss_triplet_accuracy": ..., "nearmiss_auroc": ..., ...}
    ev.primary_metric              # "nearmiss_triplet_accuracy" (the suite's main metric)

It composes with NanoBEIREvaluator / InformationRetrievalEvaluator in a SequentialEvaluator.
``retrieval_evaluators`` builds InformationRetrievalEvaluators from a cbench retrieval suite's
local data (NanoBEIR copied with ``cbench data pull``, BEIR folders), for offline training logs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
from sentence_transformers.evaluation import SentenceEvaluator

from harness.errors import CBenchError

REPORTED = ("triplet_accuracy", "auroc", "false_accept@95")


def _live_scorer_class():
    from harness.cache import EmbeddingCache, cached_encode, namespace_id
    from harness.scorers.base import EmbeddingScorer, SubmissionBase

    class LiveEncoderScorer(EmbeddingScorer):
        """The model being trained as a cbench scorer: encoder-kind encoding, an in-memory
        cache that lives for one evaluation (the weights change between evaluations)."""

        kind = "encoder"
        Config = SubmissionBase

        def __init__(self, model: Any, ctx: Any, batch_size: int, name: str):
            super().__init__(SubmissionBase(name=name, kind="encoder"), ctx)
            self.model = model
            self.batch_size = batch_size
            self._memory: dict[str, EmbeddingCache] = {}

        def cache_spec(self, role: str) -> dict:
            return {"kind": "encoder-pooled", "weights": "live", "max_seq_length": self.model.max_seq_length, "role": role, "prompt": ""}

        def cached_rows(self, spec, texts, encode, label):
            key = namespace_id(spec)
            if key not in self._memory:
                self._memory[key] = EmbeddingCache(Path("."), spec, enabled=False)
            rows, n = cached_encode(self._memory[key], texts, encode)
            self.ctx.count("texts_encoded", n)
            return rows

        def encode_batch(self, texts: list[str], role: str) -> np.ndarray:
            # as EncoderScorer.encode_batch (no prompt): same batches, same numbers
            return self.model.encode(texts, batch_size=self.batch_size, convert_to_numpy=True, show_progress_bar=False)

        def fingerprints(self) -> dict[str, str]:
            return {}

    return LiveEncoderScorer


class NearMissEvaluator(SentenceEvaluator):
    """Triplet accuracy, AUROC and false_accept@95 of a near-miss suite, keyed ``{name}_{metric}``.

    Args:
        suite: a suite name (``nearmiss``), a suite YAML path, or a loaded NearMissSuite.
        name: key prefix (default: the suite's name).
        batch_size: encoding batch size; 32 is the encoder kind's default, which ``cbench run``
            uses for submissions that do not set one (equal batches give equal numbers).
        data_dir: like ``--data-dir`` (default $CBENCH_DATA_DIR).
        per_dataset: also report ``{name}_{dataset}_{main_metric}`` for every dataset.
    """

    def __init__(self, suite: Any, name: str | None = None, batch_size: int = 32, data_dir: Path | None = None, per_dataset: bool = True):
        super().__init__()
        from harness.paths import data_dir as resolve_data_dir
        from harness.suites.nearmiss import NearMissSuite
        from harness.suites.registry import resolve_suite

        if isinstance(suite, (str, Path)):
            suite = resolve_suite(str(suite), resolve_data_dir(data_dir))
        if not isinstance(suite, NearMissSuite):
            raise CBenchError(f"'{getattr(suite, 'name', suite)}' is not a near-miss suite", source="--eval-suite")
        self.suite = suite
        self.name = suite.name if name is None else name
        self.batch_size = batch_size
        self.per_dataset = per_dataset
        self.datasets = {n: suite.load(n) for n in suite.dataset_names()}  # read (and check) the data now, once
        self.main_metric = suite.main_metric
        self.primary_metric = self.main_metric
        self.greater_is_better = True
        self.last: dict[str, Any] | None = None

    @classmethod
    def from_suite(cls, suite: str | Path, **kwargs: Any) -> NearMissEvaluator:
        """Build from a suite name (``nearmiss``, ``nearmiss-hand``, ...) or a suite YAML path."""
        return cls(suite, **kwargs)

    def evaluate_datasets(self, model: Any) -> tuple[dict[str, dict[str, float]], dict[str, float], float | None]:
        """Per-dataset metrics, the suite's aggregate and its main score, as ``cbench run`` computes them."""
        from harness.scorers.base import RunContext
        from harness.suites.base import EvalOptions

        scorer = _live_scorer_class()(model, RunContext(use_cache=False), self.batch_size, self.name)
        per = {n: self.suite.evaluate(scorer, d, EvalOptions()).metrics for n, d in self.datasets.items()}
        agg = self.suite.aggregate(per)
        return per, agg, self.suite.main_score(per, agg)

    def __call__(self, model: Any, output_path: str | None = None, epoch: int = -1, steps: int = -1) -> dict[str, float]:
        per, agg, main = self.evaluate_datasets(model)
        metrics: dict[str, float] = {k: agg[k] for k in (*REPORTED, "tot_accuracy", "group_accuracy") if k in agg}
        metrics[self.main_metric] = float("nan") if main is None else main
        if self.per_dataset:
            for n, m in per.items():
                if self.main_metric in m:
                    metrics[f"{n}_{self.main_metric}"] = m[self.main_metric]
        self.last = {"datasets": per, "aggregate": agg, "main_score": main, "epoch": epoch, "steps": steps}
        if output_path is not None:
            Path(output_path).mkdir(parents=True, exist_ok=True)
            with open(Path(output_path) / f"NearMiss_{self.name}_results.jsonl", "a") as f:
                f.write(json.dumps({"epoch": epoch, "steps": steps, "main_score": main, "aggregate": agg}) + "\n")
        metrics = self.prefix_name_to_metrics(metrics, self.name)
        self.store_metrics_in_model_card_data(model, metrics, epoch, steps)
        return metrics

    @property
    def description(self) -> str:
        return f"Near-miss ({self.suite.name})"

    def get_config_dict(self) -> dict[str, Any]:
        return {"suite": self.suite.name, "main_metric": self.main_metric, "batch_size": self.batch_size}


def retrieval_evaluators(suite_ref: str, data_dir: Path | None = None, batch_size: int = 32) -> list[SentenceEvaluator]:
    """One InformationRetrievalEvaluator per dataset of a cbench retrieval suite, read from local
    data (NanoBEIR: ``cbench data pull nanobeir``; BEIR folders). Keys: ``{dataset}_cosine_ndcg@10`` ..."""
    from sentence_transformers.evaluation import InformationRetrievalEvaluator

    from harness.paths import data_dir as resolve_data_dir
    from harness.suites.registry import resolve_suite

    suite = resolve_suite(suite_ref, resolve_data_dir(data_dir))
    if suite.task != "retrieval":
        raise CBenchError(f"'{suite.name}' is not a retrieval suite", source="--eval-retrieval")
    out: list[SentenceEvaluator] = []
    for n in suite.dataset_names():
        d = suite.load(n)
        qrels = {q: {c for c, s in docs.items() if s > 0} for q, docs in d.qrels.items()}
        qrels = {q: c for q, c in qrels.items() if c and q in d.queries}
        out.append(
            InformationRetrievalEvaluator(
                {q: d.queries[q] for q in qrels}, d.corpus, qrels, name=n, batch_size=batch_size, score_functions=None, show_progress_bar=False
            )
        )
    return out
