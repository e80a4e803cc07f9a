"""PAWS suites (``type: paws``): paraphrase identification of word-scrambled pairs, evaluation only.

The test pairs and the development pairs are scored separately with ``Scorer.score_pairs`` (the
pair is symmetric: two sentences), so no test score depends on the development set. Main score:
AUROC of s(sentence1, sentence2) against the label (0.5 at random); also average precision and the
accuracy of "paraphrase iff s > t" at the threshold t that maximises accuracy on the development
pairs (recorded as ``dev_threshold`` / ``dev_accuracy``; test labels never choose it). See
``harness.metrics.pairs``. Per test pair, the sidecar keeps its score, label and whether the
threshold classifies it right (``accuracy``).
"""

from __future__ import annotations

import time
from typing import Literal

import numpy as np
from pydantic import Field

from harness.data.paws import PawsData, PawsPair, read_paws
from harness.metrics.pairs import choose_threshold, classification_metrics
from harness.names import NAME_PATTERN
from harness.scorers.base import Scorer
from harness.sidecar import ItemScores, PairScore
from harness.suites.base import DatasetOutcome, EvalOptions, LeaderboardFacts, Suite, SuiteConfig, check_finite
from harness.suites.files import PinnedFile, checked_digest, locate

CHANCE = 0.5  # AUROC of random scores


class PawsSuiteConfig(SuiteConfig):
    type: Literal["paws"]
    dataset: str = Field(pattern=NAME_PATTERN, description="the dataset's name in results")
    test: PinnedFile = Field(description="PAWS TSV scored for the results (harness.data.paws)")
    dev: PinnedFile | None = Field(
        default=None,
        description="PAWS TSV used only to choose the accuracy threshold; none: no thresholded accuracy (a suite of development pairs, role dev)",
    )


class PawsSuite(Suite):
    type = "paws"
    item_units = ("pair",)  # one item = one sentence pair: the resampling unit
    task = "nearmiss"
    Config = PawsSuiteConfig
    leaderboard = LeaderboardFacts(role="extra", chance=CHANCE)

    @property
    def main_metric(self) -> str:
        return "auroc"

    def dataset_names(self) -> list[str]:
        return [self.config.dataset]

    def evaluation_only_sha256(self) -> list[str]:
        return [f.sha256 for f in (self.config.test, self.config.dev) if f is not None and f.sha256]

    def load(self, name: str) -> PawsData:
        test = locate(self, self.config.test, name)
        digest = checked_digest(test, self.config.test, self, "test.sha256")
        if self.config.dev is None:
            return PawsData(name, read_paws(test), [], str(test), f"sha256:{digest[:16]}")
        dev = locate(self, self.config.dev, name)
        dev_digest = checked_digest(dev, self.config.dev, self, "dev.sha256")
        return PawsData(name, read_paws(test), read_paws(dev), str(test), f"sha256:{digest[:16]}+dev:{dev_digest[:16]}")

    def _scores(self, scorer: Scorer, pairs: list[PawsPair], name: str) -> np.ndarray:
        s = np.asarray(scorer.score_pairs([p.sentence1 for p in pairs], [p.sentence2 for p in pairs]), dtype=np.float64)
        check_finite(s, name, scorer)
        return s

    def evaluate(self, scorer: Scorer, data: PawsData, opts: EvalOptions) -> DatasetOutcome:
        t0 = time.perf_counter()
        s = self._scores(scorer, data.test, data.name)
        s_dev = self._scores(scorer, data.dev, f"{data.name} (dev)") if data.dev else None
        t1 = time.perf_counter()
        y = np.array([p.label for p in data.test])
        if s_dev is None:  # no development pairs: no thresholded accuracy
            metrics = classification_metrics(s, y, None)
            items = [ItemScores(dataset=data.name, id=p.id, pair=PairScore(score=x, label=p.label)) for p, x in zip(data.test, s.tolist(), strict=True)]
        else:
            threshold, dev_accuracy = choose_threshold(s_dev, np.array([p.label for p in data.dev]))
            metrics = {**classification_metrics(s, y, threshold), "dev_accuracy": dev_accuracy}
            right = ((s > threshold) == (y == 1)).tolist()
            items = [
                ItemScores(dataset=data.name, id=p.id, metrics={"accuracy": float(ok)}, pair=PairScore(score=x, label=p.label))
                for p, x, ok in zip(data.test, s.tolist(), right, strict=True)
            ]
        details = {"pairs": len(data.test), "dev_pairs": len(data.dev)}
        return DatasetOutcome(metrics=metrics, timings={"score": t1 - t0, "metrics": time.perf_counter() - t1}, details=details, items=items)
