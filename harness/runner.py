"""Run one submission on suites: dataset by dataset, resumable, one results file per suite."""

from __future__ import annotations

import logging
import math
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import torch
from filelock import FileLock
from pydantic import ValidationError

from harness.errors import CBenchError, DataUnavailable, first_validation_error
from harness.paths import portable, portable_command
from harness.provenance import environment, now
from harness.results import IntervalMethod, Metadata, Recomputed, Results, os_reason, plural, read_results, results_json, results_path, write_results
from harness.run_context import RunContext
from harness.runs import encode_run, run_path, stale_run_files, write_run
from harness.scorers.base import Scorer
from harness.sidecar import ItemScores, Sidecar, SidecarHeader, item_units, main_values, read_sidecar, sidecar_path, write_sidecar
from harness.stats.intervals import CONFIDENCE, N_RESAMPLES, SEED, mean_ci, mean_of_means
from harness.stats.units import count_units
from harness.submissions import Submission
from harness.suites.base import EvalOptions, Suite

log = logging.getLogger("cbench")


@dataclass
class DatasetRecord:
    """Everything a results file holds about one dataset (computed now or read from the file)."""

    metrics: dict[str, float]
    details: dict | None = None
    timings: dict[str, float] | None = None
    counters: dict[str, int] | None = None
    revision: str | None = None
    source: str = ""
    items: list[ItemScores] | None = None  # per query / item: the sidecar's lines for this dataset
    runs: dict[str, dict[str, dict[str, float]]] | None = None  # retrieval: ranked runs to keep (harness.runs), until written
    values: list[float] | None = field(default=None, init=False)  # each item's main-metric value
    units: list[str | None] | None = field(default=None, init=False)  # each item's resampling unit (None: itself)
    ci95: tuple[float, float] | None = field(default=None, init=False)

    def with_interval(self, main_metric: str) -> DatasetRecord:
        """Fill ``values``, ``units`` and ``ci95`` (bootstrap over the resampling units) when the main metric is per item."""
        self.values = main_values(self.items or [], main_metric)
        self.units = item_units(self.items or []) if self.values else None
        self.ci95 = mean_ci([self.values], units=[self.units]) if self.values else None
        return self

    def set_units(self, units: dict[str, str] | None, main_metric: str) -> bool:
        """Give each item its unit from ``units`` (id -> unit; None: every item alone), as the suite
        declares it now (per-item scores kept before units were, or under another ``resample_by``);
        whether anything changed (then the interval is recomputed)."""
        items = self.items or []
        want = [None if units is None else units.get(it.id) for it in items]
        if [it.unit for it in items] == want:
            return False
        self.items = [it if it.unit == u else it.model_copy(update={"unit": u}) for it, u in zip(items, want, strict=True)]
        self.with_interval(main_metric)
        return True

    @classmethod
    def from_results(cls, old: Results, name: str, items: list[ItemScores]) -> DatasetRecord:
        m = old.metadata
        return cls(
            metrics=old.datasets[name],
            details=old.details.get(name),
            timings=m.timings.get(name),
            counters=m.counters.get(name),
            revision=m.dataset_revisions.get(name),
            source=m.dataset_sources.get(name, ""),
            items=items,
        ).with_interval(old.main_metric)


@dataclass
class SuiteOutcome:
    """``computed``: the datasets scored in this run; the other ones in ``results.datasets`` were
    taken over from the existing results file."""

    suite: str
    path: Path
    results: Results
    computed: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)
    kept: bool = True  # False: no dataset could be loaded, so no results file was written


def _compatible(old: Results, sub: Submission, deps: dict[str, str], fingerprints: dict[str, str], suite: Suite, opts: EvalOptions) -> str | None:
    """Why an existing results file cannot be resumed (None when it can)."""
    m = old.metadata
    if m.submission_hash != sub.hash:
        return "the submission changed"
    if m.dependencies != deps:
        return "a submission it builds on (first stage / encoder) changed"
    if m.fingerprints != fingerprints:
        return "the model weights, backend or verifier checkpoint changed"
    if m.suite_hash != suite.hash:
        return "the suite definition changed"
    if m.limit_queries != opts.limit_queries:
        return "--limit-queries differs"
    if old.task == "retrieval" and m.scorer.get("top_k", opts.top_k) != opts.top_k:
        return "top-k differs"
    return None


@contextmanager
def results_lock(path: Path) -> Iterator[None]:
    """Hold ``.<file>.lock`` beside a results file; a folder that cannot be made (a file in the way,
    read-only, full) is one error naming it. The lock file is removed on release, also after a failure
    (filelock notices a lock file removed while it waits and takes a fresh one)."""
    lock_path = path.with_name(f".{path.name}.lock")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        lock = FileLock(str(lock_path))
        lock.acquire()
    except OSError as e:
        raise CBenchError(f"cannot write results here: {os_reason(e)}", source=e.filename or path.parent) from None
    try:
        yield
    finally:
        lock.release()
        try:
            lock_path.unlink(missing_ok=True)
        except OSError:
            pass


def compute_dataset(sub_name: str, scorer: Scorer, suite: Suite, name: str, ctx: RunContext, opts: EvalOptions) -> DatasetRecord:
    """Score one dataset: everything its results entry holds, nothing written. Runs wherever the
    executor puts it (this process, or a Ray worker); raises DataUnavailable when the data is not
    there and CBenchError for a non-finite metric."""
    t0 = time.perf_counter()
    data = suite.load(name)
    t_load = time.perf_counter() - t0
    before = dict(ctx.counters)
    result = suite.evaluate(scorer, data, opts)
    nonfinite = sorted(k for k, v in result.metrics.items() if not math.isfinite(v))
    if nonfinite:
        raise CBenchError(
            f"metric(s) {', '.join(nonfinite)} are not finite (NaN or inf); no result written for it",
            source=f"submission {sub_name}",
            field=f"dataset {suite.name}/{name}",
        )
    return DatasetRecord(
        metrics=result.metrics,
        details=result.details,
        timings={"load": t_load, **result.timings},
        counters={k: v - before.get(k, 0) for k, v in ctx.counters.items() if v - before.get(k, 0)},
        revision=suite.revision(data),
        source=suite.source(data),
        items=[it if it.dataset == name else it.model_copy(update={"dataset": name}) for it in result.items or []],
        runs=result.runs,
    ).with_interval(suite.main_metric)


class SuiteRun:
    """One results file while a run fills it, on the process that writes it (the driver).

    Entering takes the file's lock, reads a resumable old file and decides ``pending``: the
    datasets still to compute. ``record`` / ``skip`` take each dataset's outcome, computed here or
    elsewhere, in any order, and write both files after every dataset (a killed run resumes
    there); ``finish`` writes what is left and gives the outcome. The lock is released on exit."""

    def __init__(
        self,
        sub: Submission,
        scorer: Scorer,
        suite: Suite,
        ctx: RunContext,
        results_dir: Path,
        opts: EvalOptions,
        *,
        overwrite: bool = False,
        dependencies: dict[str, str] | None = None,
    ):
        self.sub, self.scorer, self.suite, self.ctx, self.opts = sub, scorer, suite, ctx, opts
        self.overwrite = overwrite
        self.path = results_path(results_dir, sub.name, suite.name)
        self.spath = sidecar_path(self.path)
        self.deps = dict(dependencies or {})
        self.fingerprints = scorer.fingerprints()
        self.scorer_info: dict | None = None  # the scorer's info as the computing process saw it (None: ask the scorer here)
        self.names: list[str] = []
        self.pending: list[str] = []
        self.records: dict[str, DatasetRecord] = {}
        self.old: Results | None = None
        self.units_refreshed = False  # reused per-item scores given the suite's resampling units: rewrite the sidecar
        self.outcome = SuiteOutcome(suite.name, self.path, None)  # type: ignore[arg-type]
        self._stack = ExitStack()

    def __enter__(self) -> SuiteRun:
        self._stack.enter_context(results_lock(self.path))
        try:
            self._prepare()
        except BaseException:
            self._stack.close()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self._stack.close()

    def _prepare(self) -> None:
        path, spath, suite = self.path, self.spath, self.suite
        for stale in [*path.parent.glob(f".tmp-*-{path.name}"), *path.parent.glob(f".tmp-*-{spath.name}")]:  # a killed writer's; we hold the lock
            stale.unlink(missing_ok=True)
        old: Results | None = None
        if path.exists() and not self.overwrite:
            try:
                old = read_results(path)
            except CBenchError as e:
                log.warning("%s; recomputing", e.line)
            if old is not None and (why := _compatible(old, self.sub, self.deps, self.fingerprints, suite, self.opts)):
                log.warning("%s: %s; recomputing all datasets", path, why)
                old = None
        old_items = _reusable_items(spath, old) if old is not None else {}
        records = {n: DatasetRecord.from_results(old, n, old_items[n]) for n in old.datasets if n in old_items} if old else {}
        for name in list(records):  # a finished dataset is reused only while its data is unchanged
            try:
                current = suite.dataset_revision(name)
            except DataUnavailable:
                continue  # the data is not here: keep what was computed from it
            if current != records[name].revision:
                log.warning("%s: the data of dataset %s changed (%s, now %s); recomputing it", path, name, records[name].revision, current)
                del records[name]
                continue
            if records[name].set_units(suite.units(name), old.main_metric):  # cheap: the records, nothing scored
                self.units_refreshed = True
        for stale in stale_run_files(path, set(records)):  # runs of datasets to recompute (or gone); we hold the lock
            stale.unlink(missing_ok=True)
        try:
            names = suite.dataset_names()
        except DataUnavailable as e:  # the whole suite's data is missing (e.g. one data file)
            names = []
            self.outcome.skipped[e.source or suite.name] = e.message
            log.warning("skipped %s: %s", suite.name, e.line)
        self.old, self.records, self.names = old, records, names
        self.pending = [n for n in names if n not in records]

    def record(self, name: str, record: DatasetRecord, scorer_info: dict | None = None) -> None:
        """A computed dataset: kept and written at once (its runs, then both files, atomically)."""
        if scorer_info is not None:
            self.scorer_info = scorer_info
        written: list[Path] = []
        try:
            if record.runs:  # before the results that record them: a run killed in between recomputes the dataset
                kept = {}
                for role, run in record.runs.items():
                    encoded = encode_run(run, self.sub.name if role == "run" else f"{self.sub.name}.{role}")
                    written.append(run_path(self.path, name, role))
                    write_run(written[-1], encoded.data)
                    kept[role] = encoded.record()
                record.details = {**(record.details or {}), "runs": kept}
                record.runs = None
            self.records[name] = record
            _write(self.path, self.spath, self._assemble(), self.records)  # after every dataset: a killed run resumes here
        except CBenchError:  # nothing half-written: this dataset's runs belong to no results file
            self.records.pop(name, None)
            for path in written:
                path.unlink(missing_ok=True)
            if written and written[0].parent.is_dir() and not any(written[0].parent.iterdir()):
                written[0].parent.rmdir()
            raise
        self.outcome.computed.append(name)

    def skip(self, name: str, message: str) -> None:
        self.outcome.skipped[name] = message
        log.warning("skipped %s/%s: %s", self.suite.name, name, message)

    def finish(self) -> SuiteOutcome:
        results = self._assemble()
        old = self.old
        if not self.records:  # every dataset skipped (its data not here), none reused: nothing to keep
            self.outcome.kept = False
        elif (
            self.outcome.computed
            or old is None
            or old.skipped != results.skipped
            or not self.spath.exists()
            or self.units_refreshed
            or not same_intervals(old, results.ci95, results.main_score_ci95, results.ci_method)  # e.g. another method: refreshed from the sidecar
        ):
            _write(self.path, self.spath, results, self.records)
        self.outcome.results = results
        return self.outcome

    def _assemble(self) -> Results:
        """The results file as it stands: the datasets recorded so far (in the suite's order),
        the aggregate and main score once all are in, intervals, skips and the run's metadata."""
        sub, suite, names = self.sub, self.suite, self.names
        done = {n: self.records[n] for n in names if n in self.records}
        ordered = {n: r.metrics for n, r in done.items()}
        aggregate = suite.aggregate(ordered)
        complete = bool(names) and all(n in ordered for n in names)
        main = suite.main_score(ordered, aggregate) if complete else None
        env = environment()
        info = dict(self.scorer.info() if self.scorer_info is None else self.scorer_info)
        if suite.task == "retrieval":
            info.setdefault("top_k", self.opts.top_k)
        meta = Metadata(
            **env,
            submission_hash=sub.hash,
            dependencies=self.deps,
            fingerprints=self.fingerprints,
            submission_file=portable(sub.path),
            submission_config=sub.config.model_dump(mode="json"),
            scorer=info,
            suite_hash=suite.hash,
            suite_file=portable(suite.path),
            dataset_revisions={n: r.revision for n, r in done.items()},
            dataset_sources={n: portable(r.source) or "" for n, r in done.items()},
            device=self.ctx.device,
            torch_threads=torch.get_num_threads(),
            timings={n: r.timings for n, r in done.items() if r.timings is not None},
            counters={n: r.counters for n, r in done.items() if r.counters is not None},
            limit_queries=self.opts.limit_queries,
            date=now(),
            command=portable_command(sys.argv[1:]),
        )
        ci95, main_ci, method = suite_intervals(suite, done, main)
        try:
            return Results(
                submission=sub.name,
                suite=suite.name,
                task=suite.task,  # type: ignore[arg-type]
                main_metric=suite.main_metric,
                main_score=main,
                main_score_ci95=main_ci,
                ci_method=method,
                complete=complete,
                datasets=ordered,
                aggregate=aggregate,
                ci95=ci95,
                skipped={n: r for n, r in self.outcome.skipped.items() if n not in ordered},
                details={n: r.details for n, r in done.items() if r.details is not None},
                metadata=meta,
            )
        except ValidationError as e:  # e.g. a non-finite metric: refuse to write it, in one line
            where, msg = first_validation_error(e, root="results")
            raise CBenchError(f"{where}: {msg}; nothing written", source=f"submission {sub.name}", field=f"suite {suite.name}") from None


def run_suite(
    sub: Submission,
    scorer: Scorer,
    suite: Suite,
    ctx: RunContext,
    results_dir: Path,
    opts: EvalOptions,
    *,
    overwrite: bool = False,
    dependencies: dict[str, str] | None = None,
) -> SuiteOutcome:
    """Every dataset of a suite, one after the other in this process (the local executor).
    ``dependencies``: hashes of the submissions ``sub`` builds on (Registry.dependencies)."""
    with SuiteRun(sub, scorer, suite, ctx, results_dir, opts, overwrite=overwrite, dependencies=dependencies) as run:
        for name in run.pending:
            try:
                record = compute_dataset(sub.name, scorer, suite, name, ctx, opts)
            except DataUnavailable as e:
                run.skip(name, e.message)
                continue
            run.record(name, record)
        return run.finish()


def _write(path: Path, spath: Path, results: Results, records: dict[str, DatasetRecord]) -> None:
    """The sidecar first, then the results file (each atomic). A run killed in between leaves a
    sidecar ahead of the results; the datasets it has that the results lack are recomputed.
    Results that cannot be written (a NaN in details) are refused before either file is touched."""
    results_json(path, results)
    items = [it for n in results.datasets for it in records[n].items or []]
    counts = {n: len(records[n].items or []) for n in results.datasets}
    write_sidecar(spath, SidecarHeader.from_results(results, counts), items)
    try:
        write_results(path, results)
    except CBenchError:
        if not path.exists():  # the first write failed (disk full): leave no per-item scores without results
            spath.unlink(missing_ok=True)
        raise


def _reusable_items(spath: Path, old: Results) -> dict[str, list[ItemScores]]:
    """Per dataset of a resumable results file, its per-item scores from the sidecar: only datasets
    the sidecar holds with exactly the results file's metrics (the others are recomputed)."""
    if not spath.exists():
        if old.datasets:
            log.warning("%s: no per-item scores beside it (%s missing); recomputing", spath.with_name(f"{old.suite}.json"), spath.name)
        return {}
    try:
        sc = read_sidecar(spath)
    except CBenchError as e:
        log.warning("%s; recomputing", e.line)
        return {}
    if not sc.header.matches(SidecarHeader.from_results(old)):
        log.warning("%s: made for other results; recomputing", spath)
        return {}
    by = sc.by_dataset()
    keep = {n: by.get(n, []) for n in old.datasets if sc.header.datasets.get(n) == old.datasets[n] and sc.header.items.get(n) == len(by.get(n, []))}
    if missing := [n for n in old.datasets if n not in keep]:
        log.warning("%s: no per-item scores for %s; recomputing", spath, ", ".join(missing))
    return keep


def suite_intervals(
    suite: Suite, records: dict[str, DatasetRecord], main: float | None
) -> tuple[dict[str, tuple[float, float]], tuple[float, float] | None, IntervalMethod | None]:
    """A results file's ``ci95``, ``main_score_ci95`` and ``ci_method`` from its datasets' records
    (``with_interval`` done, units as the suite declares them): what a run writes, and what
    ``cbench results refresh-intervals`` recomputes from the per-item scores. ``main``: the main
    score; its interval only when it is the mean over the datasets of the per-item values."""
    ci95 = {n: r.ci95 for n, r in records.items() if r.ci95 is not None}
    main_ci = None
    groups = [r.values for r in records.values()]
    if main is not None and all(groups) and abs(mean_of_means(groups) - main) <= 1e-9:  # the main score is the mean over datasets
        main_ci = mean_ci(groups, units=[r.units for r in records.values()])  # type: ignore[arg-type]
    method = interval_method(suite, [r for r in records.values() if r.ci95 is not None]) if ci95 or main_ci else None
    return ci95, main_ci, method


def same_intervals(old: Results, ci95: dict[str, tuple[float, float]], main_ci: tuple[float, float] | None, method: IntervalMethod | None) -> bool:
    """Whether ``old`` records these intervals, computed this way (``ci_method.recomputed`` aside)."""
    old_method = old.ci_method.basis() if old.ci_method is not None else None
    new_method = method.basis() if method is not None else None
    return (old.ci95, old.main_score_ci95, old_method) == (ci95, main_ci, new_method)


@dataclass
class IntervalRefresh:
    """A results file's intervals recomputed from its per-item scores (``refresh_intervals``)."""

    results: Results  # the file with the fresh intervals; every other field as it was
    items: list[ItemScores]  # the per-item scores, in file order, with the units the suite declares
    changed: list[str] = field(default_factory=list)  # what differs from the files: "intervals", "units"
    notes: list[str] = field(default_factory=list)  # datasets whose units could not be had


def refresh_intervals(old: Results, sc: Sidecar, suite: Suite, recomputed: Recomputed) -> IntervalRefresh:
    """``ci95``, ``main_score_ci95`` and ``ci_method`` of ``old`` computed afresh from its per-item
    scores ``sc`` (checked against it: ``sidecar_problems``) with ``suite``'s resampling unit as
    declared now, the way a run computes them (``suite_intervals``): nothing scored, no model, the
    recorded fingerprints not consulted. Each dataset's units: the sidecar's when every item has one
    from this unit (``ci_method.unit``), else from the data (``Suite.units_at``, only while it is at
    the recorded revision), else as they are (then a note). ``recomputed`` marks the new ci_method."""
    by = sc.by_dataset()
    want: dict[str, dict[str, str | None]] = {}  # dataset -> item id -> unit, where it changes
    notes: list[str] = []
    same_unit = old.ci_method is None or old.ci_method.unit == suite.resampling_unit
    records: dict[str, DatasetRecord] = {}
    for name, metrics in old.datasets.items():
        items = by.get(name, [])
        keep, units = True, None  # keep: the sidecar's units as they are
        if suite.cluster_field is None:
            keep = False  # each item alone
        elif not (items and same_unit and all(it.unit is not None for it in items)):
            try:
                units, keep = suite.units_at(name, old.metadata.dataset_revisions.get(name)), False
            except DataUnavailable as e:
                notes.append(
                    f"dataset {name}: no {plural(suite.resampling_unit)} for the per-item scores that lack them ({e.message}): those items resampled alone"
                )
        record = DatasetRecord(metrics=metrics, items=items)
        if not keep and record.set_units(units, old.main_metric):  # changed: the interval recomputed with them
            want[name] = {it.id: it.unit for it in record.items or []}
        else:
            record.with_interval(old.main_metric)
        records[name] = record
    ci95, main_ci, method = suite_intervals(suite, records, old.main_score)
    changed = [] if same_intervals(old, ci95, main_ci, method) else ["intervals"]
    items = sc.items
    if want:
        changed.append("units")
        items = [
            it.model_copy(update={"unit": want[it.dataset][it.id]}) if it.dataset in want and it.unit != want[it.dataset][it.id] else it for it in sc.items
        ]
    results = old
    if "intervals" in changed:
        stamped = method.model_copy(update={"recomputed": recomputed}) if method is not None else None
        results = old.model_copy(update={"ci95": ci95, "main_score_ci95": main_ci, "ci_method": stamped})
    return IntervalRefresh(results, items, changed, notes)


def interval_method(suite: Suite, records: list[DatasetRecord]) -> IntervalMethod:
    """What the intervals of ``records`` resampled: the suite's unit when every item has one, each
    item alone when none has (a clustering suite whose old per-item scores lack units and whose data
    is not here to give them), both when mixed; and how many units in all."""
    with_unit = [u is not None for r in records for u in r.units or [None] * len(r.values or [])]
    unit = suite.resampling_unit
    if suite.cluster_field is not None and not all(with_unit):
        unit = f"{unit}, else {suite.item_units[0]}" if any(with_unit) else suite.item_units[0]
    units = sum(count_units(r.units, len(r.values or [])) for r in records)
    return IntervalMethod(unit=unit, units=units, resamples=N_RESAMPLES, confidence=CONFIDENCE, seed=SEED)
