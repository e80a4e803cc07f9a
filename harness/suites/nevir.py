"""NevIR suites (``type: nevir``): paired query-document ranking under negation, evaluation only.

Each pair is two queries and two passages that differ by a negation; q1 is answered by doc1 only,
q2 by doc2 only. The four scores s(q, d) come from ``Scorer.score_query_docs`` (the query in the
query role, the passage in the document role, as in retrieval), all in one call. Main score:
paired accuracy (``harness.metrics.pairs``; 0.25 at random). Per pair, the sidecar keeps both
comparisons (``q1``: s(q1, doc1) vs s(q1, doc2); ``q2``: s(q2, doc2) vs s(q2, doc1)) and the pair's
paired / query accuracy, so intervals and ``cbench compare`` resample pairs.
"""

from __future__ import annotations

import time
from typing import Literal

import numpy as np
from pydantic import Field

from harness.data.nevir import NevIRData, read_nevir
from harness.metrics.pairs import paired_item_values, paired_metrics
from harness.names import NAME_PATTERN
from harness.scorers.base import Scorer
from harness.sidecar import Comparison, ItemScores
from harness.suites.base import DatasetOutcome, EvalOptions, LeaderboardFacts, Suite, SuiteConfig, check_finite
from harness.suites.files import PinnedFile, checked_digest, locate

CHANCE = 0.25  # both of a pair's two comparisons right at random


class NevIRSuiteConfig(SuiteConfig):
    type: Literal["nevir"]
    dataset: str = Field(pattern=NAME_PATTERN, description="the dataset's name in results")
    file: PinnedFile = Field(description="NevIR JSONL (harness.data.nevir)")


class NevIRSuite(Suite):
    type = "nevir"
    item_units = ("pair",)  # one item = one pair (two queries, two passages): the resampling unit
    task = "nearmiss"
    Config = NevIRSuiteConfig
    leaderboard = LeaderboardFacts(role="extra", chance=CHANCE)

    @property
    def main_metric(self) -> str:
        return "paired_accuracy"

    def dataset_names(self) -> list[str]:
        return [self.config.dataset]

    def evaluation_only_sha256(self) -> list[str]:
        return [self.config.file.sha256] if self.config.file.sha256 else []

    def load(self, name: str) -> NevIRData:
        path = locate(self, self.config.file, name)
        digest = checked_digest(path, self.config.file, self, "file.sha256")
        return NevIRData(name, read_nevir(path), str(path), f"sha256:{digest[:16]}")

    def evaluate(self, scorer: Scorer, data: NevIRData, opts: EvalOptions) -> DatasetOutcome:
        t0 = time.perf_counter()
        p = data.pairs
        q1, q2, d1, d2 = ([getattr(r, f) for r in p] for f in ("q1", "q2", "doc1", "doc2"))
        s = np.asarray(scorer.score_query_docs(q1 + q1 + q2 + q2, d1 + d2 + d1 + d2), dtype=np.float64)
        check_finite(s, data.name, scorer)
        t1 = time.perf_counter()
        n = len(p)
        s11, s12, s21, s22 = s[:n], s[n : 2 * n], s[2 * n : 3 * n], s[3 * n :]
        values = {k: v.tolist() for k, v in paired_item_values(s11, s12, s21, s22).items()}
        f11, f12, f21, f22 = (x.tolist() for x in (s11, s12, s21, s22))
        items = [
            ItemScores(
                dataset=data.name,
                id=r.id,
                metrics={k: v[i] for k, v in values.items()},
                comparisons=[
                    Comparison(name="q1", positive=f11[i], negative=f12[i], correct=f11[i] > f12[i]),
                    Comparison(name="q2", positive=f22[i], negative=f21[i], correct=f22[i] > f21[i]),
                ],
            )
            for i, r in enumerate(p)
        ]
        metrics = paired_metrics(s11, s12, s21, s22)
        return DatasetOutcome(metrics=metrics, timings={"score": t1 - t0, "metrics": time.perf_counter() - t1}, details={"pairs": n}, items=items)
