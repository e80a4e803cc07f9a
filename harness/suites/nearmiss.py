"""Near-miss suites: triplet or pair files, one dataset per category (or per file)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated, Literal

import numpy as np
from pydantic import Field, model_validator

from harness.data.nearmiss import CELL_NAMES, CELLS, RECORD_TYPES, Format, NearMissData, NearMissItem, Pair, Triplet, read_records
from harness.errors import CBenchError
from harness.metrics.nearmiss import item_item_values, item_metrics, pair_metrics, triplet_item_values, triplet_metrics
from harness.names import NAME_PATTERN
from harness.scorers.base import Scorer
from harness.sidecar import Comparison, ItemScores, PairScore
from harness.suites.base import DatasetOutcome, EvalOptions, Suite, SuiteConfig, check_finite
from harness.suites.files import SHA256_PATTERN, PinnedFile, checked_digest, locate

# What each comparison of the per-item scores (``_item_comparisons``, ``evaluate``) compares: name ->
# ((left, right) texts of its positive score, (left, right) texts of its negative score), as field
# names of the item (NearMissItem) or triplet; e.g. close_far = s(anchor, pos_close) vs s(anchor, neg_far).
COMPARISON_TEXTS: dict[str, tuple[tuple[str, str], tuple[str, str]]] = {
    **{name: (("anchor", p), ("anchor", n)) for name, (p, n) in zip(CELL_NAMES, CELLS, strict=True)},
    "anchor_negative": (("anchor", "positive"), ("anchor", "negative")),
    "positive_negative": (("anchor", "positive"), ("positive", "negative")),  # TOT: s(a, p) vs s(p, n)
}


class NearMissFile(PinnedFile):
    name: str = Field(pattern=NAME_PATTERN, description="dataset name when datasets come from files")


class NearMissSuiteConfig(SuiteConfig):
    type: Literal["nearmiss"]
    format: Format
    files: list[NearMissFile] = Field(min_length=1)
    datasets_from: Literal["category", "file"] = "category"
    split: str | None = Field(default=None, description="keep only records of this split")
    two_positives: bool = Field(default=False, description="positive is a second positive: report tot_accuracy")
    main_metric: str = "triplet_accuracy"
    frozen_sha256: dict[str, Annotated[str, Field(pattern=SHA256_PATTERN)]] = Field(
        default_factory=dict,
        description="file name -> sha256 of a frozen file (one no generator in the repository remakes): checked on load like "
        "files[].sha256, but not part of the suite hash, so pinning a file keeps the results made from it valid (the data "
        "they were scored on is recorded by its checksum in their dataset_revisions)",
    )

    @model_validator(mode="after")
    def _frozen_names_files(self) -> NearMissSuiteConfig:
        files = {f.name: f for f in self.files}
        for name in self.frozen_sha256:
            if name not in files:
                raise ValueError(f"frozen_sha256.{name}: no file of that name (files: {', '.join(files)})")
            if files[name].sha256 is not None:
                raise ValueError(f"frozen_sha256.{name}: the file already has a sha256; pin it once")
        return self


class NearMissSuite(Suite):
    type = "nearmiss"
    task = "nearmiss"
    Config = NearMissSuiteConfig
    item_units = ("item", "pair", "triplet")

    def __init__(self, config, path, data_dir):
        super().__init__(config, path, data_dir)
        self._records: dict[str, list] | None = None
        self._revisions: dict[str, str] = {}

    @property
    def main_metric(self) -> str:
        return self.config.main_metric

    def record_fields(self) -> set[str]:
        return set(RECORD_TYPES[self.config.format].model_fields)

    def units(self, name: str) -> dict[str, str] | None:
        if self.cluster_field is None:
            return None
        data = self.load(name)
        records = data.items or data.triplets or data.pairs
        return dict(zip(_ids(data), self._units(records), strict=True))

    def _units(self, records: list) -> list[str | None]:
        """Each record's resampling unit (the value of ``resample_by``'s field); None each when items stand alone."""
        field = self.cluster_field
        return [None if field is None else str(getattr(r, field)) for r in records]

    # -- data ------------------------------------------------------------------------------
    def _locate(self, f: NearMissFile) -> Path:
        return locate(self, f, f.name)

    def _checked_digest(self, path: Path, f: NearMissFile) -> str:
        """The file's sha256, checked against its pin (``files[].sha256`` or ``frozen_sha256``)."""
        frozen = self.config.frozen_sha256.get(f.name)
        if frozen is None:
            return checked_digest(path, f, self, f"files.{f.name}.sha256")
        return checked_digest(path, f.model_copy(update={"sha256": frozen}), self, f"frozen_sha256.{f.name}")

    def _load_all(self) -> dict[str, list]:
        if self._records is not None:
            return self._records
        grouped: dict[str, list] = {}
        for f in self.config.files:
            path = self._locate(f)
            digest = self._checked_digest(path, f)
            records = read_records(path, self.config.format)
            if self.config.split is not None:
                records = [r for r in records if r.split == self.config.split]
            if not records:
                raise CBenchError(f"no records{' in split ' + self.config.split if self.config.split else ''}", source=path)
            if (unit := self.cluster_field) is not None and (lacking := [i for i, r in enumerate(records) if getattr(r, unit) in (None, "")]):
                first = getattr(records[lacking[0]], "id", f"record {lacking[0] + 1}")
                raise CBenchError(f"{len(lacking)} record(s) have no {unit} to resample by, e.g. {first}", source=path, field="resample_by")
            for r in records:
                key = f.name if self.config.datasets_from == "file" else r.category
                grouped.setdefault(key, []).append(r)
                self._revisions.setdefault(key, f"sha256:{digest[:16]}")
        self._records = grouped
        return grouped

    def dataset_names(self) -> list[str]:
        if self.config.datasets_from == "file":
            return [f.name for f in self.config.files]
        return list(self._load_all())

    def shipped_data(self) -> dict[str, NearMissData] | None:
        """Every dataset, when each of the suite's files lies in the suite file's own folder (data kept
        in the repository: nearmiss, nearmiss-hand, nearmiss-v1), read from there only: never from the
        data dir, never downloaded, so the answer is the same on every machine. None otherwise
        (sugarcrepe-pp, whose files live under $CBENCH_DATA_DIR)."""
        if self.path is None:
            return None
        home = self.path.parent.resolve()
        for f in self.config.files:
            where = (home / f.path).resolve()
            if Path(f.path).is_absolute() or not where.is_relative_to(home) or not where.is_file():
                return None
        here = type(self)(self.config, self.path, None)
        return {name: here.load(name) for name in here.dataset_names()}

    def dataset_revision(self, name: str) -> str | None:
        self._load_all()
        return self._revisions.get(name)

    def load(self, name: str) -> NearMissData:
        records = self._load_all().get(name, [])
        triplets = [r for r in records if isinstance(r, Triplet)]
        pairs = [r for r in records if isinstance(r, Pair)]
        items = [r for r in records if isinstance(r, NearMissItem)]
        return NearMissData(name, triplets, pairs, items, self.config.two_positives, str(self.path or ""), self._revisions.get(name))

    # -- evaluation ------------------------------------------------------------------------
    def evaluate(self, scorer: Scorer, data: NearMissData, opts: EvalOptions) -> DatasetOutcome:
        t0 = time.perf_counter()
        if data.items:
            a = [r.anchor for r in data.items]
            k = len(a)
            s = scorer.score_pairs(a * 4, [getattr(r, f) for f in ("pos_close", "pos_far", "neg_close", "neg_far") for r in data.items])
            check_finite(s, data.name, scorer)
            t1 = time.perf_counter()
            parts = s[:k], s[k : 2 * k], s[2 * k : 3 * k], s[3 * k :]
            metrics = item_metrics(*parts)
            items = _item_scores(data.name, [r.id for r in data.items], item_item_values(*parts), _item_comparisons(*parts), self._units(data.items))
        elif data.triplets:
            a = [t.anchor for t in data.triplets]
            p = [t.positive for t in data.triplets]
            n = [t.negative for t in data.triplets]
            if data.two_positives:
                s = scorer.score_pairs(a + a + p, p + n + n)
                k = len(a)
                s_ap, s_an, s_pn = s[:k], s[k : 2 * k], s[2 * k :]
            else:
                s = scorer.score_pairs(a + a, p + n)
                s_ap, s_an, s_pn = s[: len(a)], s[len(a) :], None
            check_finite(s, data.name, scorer)
            t1 = time.perf_counter()
            metrics = triplet_metrics(s_ap, s_an, s_pn)
            comparisons = [("anchor_negative", s_ap, s_an)] + ([("positive_negative", s_ap, s_pn)] if s_pn is not None else [])
            items = _item_scores(data.name, [t.id for t in data.triplets], triplet_item_values(s_ap, s_an, s_pn), comparisons, self._units(data.triplets))
        else:
            s = scorer.score_pairs([q.sentence1 for q in data.pairs], [q.sentence2 for q in data.pairs])
            check_finite(s, data.name, scorer)
            t1 = time.perf_counter()
            metrics = pair_metrics(s, np.array([q.label for q in data.pairs]))
            units = self._units(data.pairs)
            items = [
                ItemScores(dataset=data.name, id=str(i), pair=PairScore(score=float(x), label=q.label), unit=u)
                for i, (x, q, u) in enumerate(zip(s, data.pairs, units, strict=True))
            ]
        details = {"items": len(data.items) or len(data.triplets) or len(data.pairs)}
        return DatasetOutcome(metrics=metrics, timings={"score": t1 - t0, "metrics": time.perf_counter() - t1}, details=details, items=items)

    def aggregate(self, datasets: dict[str, dict[str, float]]) -> dict[str, float]:
        agg = super().aggregate(datasets)
        agg.pop("n", None)
        if datasets:
            agg["n"] = float(sum(m.get("n", 0) for m in datasets.values()))
        return agg


def _ids(data: NearMissData) -> list[str]:
    """The ids of a dataset's per-item scores: the records' ids; a pair's position in its dataset."""
    if data.items or data.triplets:
        return [r.id for r in data.items or data.triplets]
    return [str(i) for i in range(len(data.pairs))]


def _item_comparisons(s_pc, s_pf, s_nc, s_nf) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """The four comparisons of five-text items, cells in CELL_NAMES order: (name, positive, negative)."""
    by_field = {"pos_close": s_pc, "pos_far": s_pf, "neg_close": s_nc, "neg_far": s_nf}
    return [(name, by_field[p], by_field[n]) for name, (p, n) in zip(CELL_NAMES, CELLS, strict=True)]


def _item_scores(
    dataset: str, ids: list[str], values: dict[str, np.ndarray], comparisons: list[tuple[str, np.ndarray, np.ndarray]], units: list[str | None]
) -> list[ItemScores]:
    """One record per item: its per-item metric values, each comparison's two scores and outcome, its resampling unit."""
    cols = {k: np.asarray(v, dtype=np.float64).tolist() for k, v in values.items()}
    comps = [(name, np.asarray(p, dtype=np.float64).tolist(), np.asarray(n, dtype=np.float64).tolist()) for name, p, n in comparisons]
    return [
        ItemScores(
            dataset=dataset,
            id=item_id,
            metrics={k: v[i] for k, v in cols.items()},
            comparisons=[Comparison(name=name, positive=p[i], negative=n[i], correct=p[i] > n[i]) for name, p, n in comps],
            unit=units[i],
        )
        for i, item_id in enumerate(ids)
    ]

