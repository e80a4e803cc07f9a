"""`kind: control` - scorers that cannot read for meaning, to show where chance lies.

A composition suite is valid only if these sit at chance on it (``docs/validity.md``; as the blind
baselines SugarCrepe reports beside every model, arXiv 2306.14610); the leaderboard draws
them as a band, and ``tests/suites/test_nearmiss_validity.py`` fails when one of them beats 0.60
on a suite.

* Surface controls (``feature``: jaccard, seqratio, char3, prefix, length, bm25; see
  :mod:`harness.surface`): s(a, b) = the feature of the pair, or its negation with
  ``negate: true`` ("prefer the candidate *least* like the anchor").
* Blind controls (``feature``: blind-tfidf, blind-embedding): a logistic regression trained
  on the candidate text alone (positives = 1, near-misses = 0) of the ``train_split`` of
  ``train_file``; s(a, b) = its decision value for b, whatever a is. blind-tfidf uses word
  1-2-gram TF-IDF; blind-embedding uses the pooled embedding of ``model`` (a
  sentence-transformers model, through the encoder kind and its cache).

Exact ties are broken by a seeded coin flip per pair (``tie_break``, on by default): the suites
count a tie as a failure, which would put a control that often ties (length, a blind classifier
that learned nothing) *below* chance. Controls score pairs only; they have no retrieval.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import Field, model_validator

from harness.errors import CBenchError
from harness.run_context import RunContext
from harness.scorers.base import Retrieval, Scorer, SubmissionBase

BLIND = ("blind-tfidf", "blind-embedding")


TIE_EPS = 1e-9  # far below any real difference of the features (ratios, counts, BM25, logits)


def coin(b: list[str]) -> np.ndarray:
    """A uniform number in [0, 1) per candidate, from sha256 of its text: reproducible, independent
    of order and batch, and blind to the anchor (so a blind control stays blind). Added times
    TIE_EPS, it turns exact ties between two candidates into coin flips."""
    return np.array([int.from_bytes(hashlib.sha256(t.encode()).digest()[:8], "big") / 2**64 for t in b], dtype=np.float64)


class ControlConfig(SubmissionBase):
    kind: Literal["control"]
    feature: Literal["jaccard", "seqratio", "char3", "prefix", "length", "bm25", "blind-tfidf", "blind-embedding"]
    negate: bool = Field(default=False, description="surface features: score the negated feature")
    train_file: str | None = Field(default=None, description="blind controls: near-miss JSONL (relative: to the submission file)")
    train_format: Literal["items-jsonl", "triplets-jsonl"] = "items-jsonl"
    train_split: str = "train"
    model: str | None = Field(default=None, description="blind-embedding: sentence-transformers model")
    max_seq_length: int | None = Field(default=128, gt=0, le=32768)
    C: float = Field(default=1.0, gt=0, description="inverse regularisation of the logistic regression")
    tie_break: bool = Field(
        default=True,
        description="break exact ties by a seeded coin flip per pair (a tie carries no information; "
        "counted as failures, as the suites count them, ties would put a control below chance)",
    )

    @model_validator(mode="after")
    def _needs(self) -> ControlConfig:
        if self.feature in BLIND and not self.train_file:
            raise ValueError(f"feature '{self.feature}' needs train_file")
        if self.feature == "blind-embedding" and not self.model:
            raise ValueError("feature 'blind-embedding' needs model")
        if self.feature in BLIND and self.negate:
            raise ValueError("negate applies to surface features only")
        return self


class ControlScorer(Scorer):
    kind = "control"
    Config = ControlConfig
    colour = "#9e9e9e"
    is_control = True
    mteb_model_type = "dense"

    def __init__(self, config: ControlConfig, ctx: RunContext, base_dir: Path | None = None, *, path: Path | None = None):
        super().__init__(config, ctx, base_dir, path=path)
        self.cfg = config
        self._clf: Any = None
        self._encoder: Any = None
        self._n_train = 0

    # -- blind classifier -----------------------------------------------------------------
    @property
    def train_path(self) -> Path:
        path = self.local_path(self.cfg.train_file or "")
        if not path.is_file():
            raise CBenchError(f"training file not found: {path}", source=self.source, field="train_file")
        return path

    def _training_texts(self) -> tuple[list[str], np.ndarray]:
        from harness.data.nearmiss import NearMissItem, read_records

        records = [r for r in read_records(self.train_path, self.cfg.train_format) if r.split == self.cfg.train_split]  # type: ignore[union-attr]
        texts: list[str] = []
        labels: list[int] = []
        for r in records:
            if isinstance(r, NearMissItem):
                texts += [r.pos_close, r.pos_far, r.neg_close, r.neg_far]
                labels += [1, 1, 0, 0]
            else:
                texts += [r.positive, r.negative]
                labels += [1, 0]
        if not texts:
            raise CBenchError(f"no '{self.cfg.train_split}' records", source=self.train_path, field="train_split")
        return texts, np.array(labels)

    def _features(self, texts: list[str], fit: bool = False) -> Any:
        if self.cfg.feature == "blind-tfidf":
            if fit:
                from sklearn.feature_extraction.text import TfidfVectorizer

                self._vectorizer = TfidfVectorizer(ngram_range=(1, 2), lowercase=True, sublinear_tf=True)
                return self._vectorizer.fit_transform(texts)
            return self._vectorizer.transform(texts)
        return self.encoder.embed(texts, "query", label="blind control")

    @property
    def encoder(self):
        if self._encoder is None:
            from harness.scorers.encoder import EncoderConfig, EncoderScorer

            cfg = EncoderConfig(name=f"{self.cfg.name}-encoder", kind="encoder", model=self.cfg.model or "", max_seq_length=self.cfg.max_seq_length)
            self._encoder = EncoderScorer(cfg, self.ctx, self.base_dir)
        return self._encoder

    @property
    def classifier(self):
        if self._clf is None:
            from sklearn.linear_model import LogisticRegression

            texts, labels = self._training_texts()
            X = self._features(texts, fit=True)
            self._clf = LogisticRegression(C=self.cfg.C, max_iter=2000).fit(X, labels)
            self._n_train = len(texts)
        return self._clf

    # -- scorer interface ------------------------------------------------------------------
    def retrieve(self, queries: dict[str, str], corpus: dict[str, str], top_k: int) -> Retrieval:
        raise CBenchError("control scorers score near-miss pairs only; run them on near-miss suites", source=self.source, field="kind")

    def score_pairs(self, a: list[str], b: list[str]) -> np.ndarray:
        if len(a) != len(b):
            raise ValueError(f"score_pairs needs lists of equal length, got {len(a)} and {len(b)}")
        if not b:
            return np.zeros(0, dtype=np.float64)
        if self.cfg.feature in BLIND:
            clf = self.classifier
            s = np.asarray(clf.decision_function(self._features(list(b))), dtype=np.float64)
        else:
            from harness.surface import feature_pairs

            s = feature_pairs(self.cfg.feature, list(a), list(b))
            s = -s if self.cfg.negate else s
        return s + TIE_EPS * coin(list(b)) if self.cfg.tie_break else s

    def fingerprints(self) -> dict[str, str]:
        out: dict[str, str] = {}
        if self.cfg.feature in BLIND:
            out["train_data"] = hashlib.sha256(self.train_path.read_bytes()).hexdigest()
        if self.cfg.feature == "blind-embedding":
            out["model"] = self.encoder.weights_fingerprint
        return out

    def info(self) -> dict[str, Any]:
        out: dict[str, Any] = {"control": self.cfg.feature, "negate": self.cfg.negate}
        if self.cfg.feature in BLIND:
            from harness.paths import recorded_name

            out.update(
                train_file=recorded_name(self.train_path),
                train_split=self.cfg.train_split,
                train_texts=self._n_train or None,
            )
        if self.cfg.feature == "blind-embedding":
            out.update(self.encoder.model_info())
        return out
