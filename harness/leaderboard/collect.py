"""Read every results file under a results dir and build one leaderboard row per submission.

Every empty cell carries the reason it is empty: ``not run`` (no results file), ``data unavailable:
<reason>`` (the run skipped datasets whose data was not here) or ``incomplete`` (the run stopped
before every dataset was done).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from harness import __version__, paths
from harness.costs.record import CostRecord, read_costs
from harness.errors import CBenchError
from harness.fusion.curves import FusionCurves, read_curves
from harness.leaderboard.gate import Gate, gate
from harness.leaderboard.pareto import RANKING_RULE, rank
from harness.leaderboard.scored import Scored, ScoredCache
from harness.leaderboard.significance import Marks, mark
from harness.metrics.retrieval import MAIN_METRIC as RETRIEVAL_METRIC
from harness.results import Results, read_results, results_files
from harness.scorers.registry import SCORERS
from harness.submissions.reproduce import extra_folders, is_folder_run, run_command, suite_arg
from harness.suites.base import SuiteFacts
from harness.suites.registry import find_suite, shipped_suites, suite_facts

# Which suites are the axes and columns, their labels and category order come from the suites
# themselves (SuiteFacts: a suite YAML's ``leaderboard:`` block); nothing here names a suite.
FALSE_ACCEPT = "false_accept@95"


@dataclass(frozen=True)
class Cell:
    """A score, or None with the reason; ``note`` may also qualify a score that is present."""

    value: float | None
    note: str | None = None
    ci95: tuple[float, float] | None = None  # 95% bootstrap interval, when the results file has one


def is_control(kind: str) -> bool:
    """Whether a scorer kind is a control (its class says so: ``Scorer.is_control``)."""
    cls = SCORERS.get(kind)
    return bool(cls is not None and cls.is_control)


def label_of(labels: dict[str, str], suite: str | None) -> str:
    return labels.get(suite or "", suite or "—")


NOT_RUN = Cell(None, "not run")


@dataclass
class Row:
    submission: str
    kind: str
    parameters: int | None
    description: str
    registered: bool
    reproduce: str
    retrieval: Cell
    retrieval_datasets: dict[str, Cell]
    composition: Cell
    categories: dict[str, Cell]
    false_accept: Cell
    second: Cell
    notes: list[str] = field(default_factory=list)
    extras: dict[str, Cell] = field(default_factory=dict)  # suites with role "extra", one column each
    layer: int | None = None
    rank: int = 0
    indistinguishable_from: list[str] = field(default_factory=list)  # better-placed names, on both axes (significance.py)
    same_retrieval_as: list[str] = field(default_factory=list)  # better-placed names indistinguishable on the retrieval axis
    same_composition_as: list[str] = field(default_factory=list)  # ... on the composition axis
    untested: str | None = None  # why it was left out of the significance tests
    cost: CostRecord | None = None  # its cost file (cbench cost), when there is one
    cost_note: str | None = None  # a caveat on it (measured for another version of the YAML)
    gates: dict[str, Gate | Cell] = field(default_factory=dict)  # gate suite -> its gate, or an empty cell with the reason (gate.py)
    overlay: Path | None = None  # the --overlay folder some or all of its results came from: "your run" on the page

    @property
    def marks_text(self) -> str:
        """The ≈ cell: "≈ A (both axes); ≈ B (retrieval); ≈ C (composition)", names best-placed first."""
        parts = [f"≈ {', '.join(self.indistinguishable_from)} (both axes)"] if self.indistinguishable_from else []
        for axis, names in (("retrieval", self.same_retrieval_as), ("composition", self.same_composition_as)):
            if only := [n for n in names if n not in self.indistinguishable_from]:
                parts.append(f"≈ {', '.join(only)} ({axis})")
        return "; ".join(parts)

    @property
    def pareto(self) -> bool:
        return self.layer == 1

    @property
    def point(self) -> tuple[float, float] | None:
        if self.retrieval.value is None or self.composition.value is None:
            return None
        return (self.retrieval.value, self.composition.value)

    @property
    def mean(self) -> float | None:
        p = self.point
        return None if p is None else (p[0] + p[1]) / 2


@dataclass
class Leaderboard:
    rows: list[Row]
    retrieval_suite: str | None
    retrieval_metric: str
    composition_suite: str
    composition_metric: str
    second_suite: str
    second_metric: str
    retrieval_datasets: list[str]
    categories: list[str]
    axis_notes: list[str]
    files: list[Path]
    warnings: list[str] = field(default_factory=list)
    version: str = __version__
    rule: str = RANKING_RULE
    labels: dict[str, str] = field(default_factory=dict)  # suite -> label shown in headers
    extra_suites: dict[str, str] = field(default_factory=dict)  # suite -> metric, for role "extra"
    # Rows of control kinds (surface-only and candidate-only scorers): not ranked, listed apart,
    # highest composition score first; their composition scores span the chance band.
    controls: list[Row] = field(default_factory=list)
    marks: Marks = field(default_factory=Marks)
    scored: ScoredCache | None = None  # the per-item scores read for the marks (the explorer reads on)
    results: dict[tuple[str, str], Results] = field(default_factory=dict)  # (submission, suite) -> results
    facts: dict[str, SuiteFacts] = field(default_factory=dict)
    costs: dict[str, CostRecord] = field(default_factory=dict)  # submission -> cost file read (cbench cost)
    gate_suites: dict[str, str] = field(default_factory=dict)  # composition suite -> the development suite that sets its gate
    curves: dict[str, FusionCurves] = field(default_factory=dict)  # fused submission -> its test curve (cbench fusion-curves)
    overlaid: dict[tuple[str, str], Path] = field(default_factory=dict)  # (submission, suite) -> the --overlay folder its file came from
    replaced: list[Replaced] = field(default_factory=list)  # overlay files that replace a base file, in (submission, suite) order

    def suites_of(self, task: str) -> list[str]:
        """Suites of ``task`` that have results: the axis first, then the page's columns in order,
        then any others (by preference, then name)."""
        have = {suite for (_sub, suite), r in self.results.items() if r.task == task}
        first = [self.retrieval_suite] if task == "retrieval" else [self.composition_suite, self.second_suite, *self.extra_suites]
        rest = sorted(have, key=lambda s: (self.facts[s].preference if s in self.facts else 100, s))
        return [s for s in dict.fromkeys([*first, *rest]) if s in have]

    @property
    def chance_band(self) -> tuple[float, float] | None:
        """(lowest, highest) composition main score of the controls, None without controls."""
        values = [r.composition.value for r in self.controls if r.composition.value is not None]
        return (min(values), max(values)) if values else None

    def label(self, suite: str | None) -> str:
        return label_of(self.labels, suite)

    @property
    def meta_line(self) -> str:
        n, c = len(self.files), len(self.costs)
        costs = f" and {c} cost file{'s' if c != 1 else ''}" if c else ""
        mine = ""
        if self.overlaid:
            folders = ", ".join(dict.fromkeys(str(f) for f in self.overlaid.values()))
            mine = f" ({len(self.overlaid)} of them from {folders}: rows marked your run)"
        return f"Generated from {n} results file{'s' if n != 1 else ''}{mine}{costs} by cbench {self.version}."


# -- reading ---------------------------------------------------------------------------------


def load_all(results_dir: Path) -> tuple[dict[tuple[str, str], tuple[Path, Results]], list[str]]:
    """(submission, suite) -> (file, results); plus one warning line per file left out."""
    found: dict[tuple[str, str], tuple[Path, Results]] = {}
    warnings: list[str] = []
    for path in results_files(results_dir):
        try:
            r = read_results(path)
        except CBenchError as e:
            warnings.append(f"{e.line} (left out)")
            continue
        key = (r.submission, r.suite)
        if key in found:
            warnings.append(f"{path}: also holds {r.submission}/{r.suite}, already read from {found[key][0]} (left out)")
            continue
        found[key] = (path, r)
    return found, warnings


# -- overlays (--overlay): a user's results laid over the base ---------------------------------


@dataclass(frozen=True)
class Replaced:
    """An overlay's results file that takes the place of the base's for the same submission and suite."""

    submission: str
    suite: str
    overlay: Path
    base: Results
    over: Results


def read_overlays(
    found: dict[tuple[str, str], tuple[Path, Results]], overlays: Sequence[Path]
) -> tuple[dict[tuple[str, str], Path], list[Replaced], list[str]]:
    """Lay each overlay folder's results files over ``found`` (changed in place; a later overlay wins):
    (submission, suite) -> overlay folder of every file taken from one, the base files replaced, warnings."""
    overlaid: dict[tuple[str, str], Path] = {}
    replaced: dict[tuple[str, str], Replaced] = {}
    base = dict(found)
    warnings: list[str] = []
    for folder in overlays:
        if not folder.is_dir():
            raise CBenchError("no such folder (--overlay)", source=folder)
        got, problems = load_all(folder)
        warnings += problems
        if not got and not problems:
            raise CBenchError("no results files (<submission>/<suite>.json) in this folder (--overlay)", source=folder)
        for key, (path, r) in got.items():
            found[key], overlaid[key] = (path, r), folder
            if key in base:
                replaced[key] = Replaced(key[0], key[1], folder, base[key][1], r)
    return overlaid, [replaced[k] for k in sorted(replaced)], warnings


def _values(r: Results) -> dict[tuple[str, str], float | None]:
    """(dataset, metric) -> value for every metric of every dataset, and ("", main metric) -> the main score."""
    out: dict[tuple[str, str], float | None] = {(ds, m): v for ds, metrics in r.datasets.items() for m, v in metrics.items()}
    out[("", r.main_metric)] = r.main_score
    return out


def _metric_name(key: tuple[str, str]) -> str:
    return f"{key[0]} {key[1]}" if key[0] else f"main score {key[1]}"


# Below this, two runs' numbers are the same on the page (4 decimals): what float arithmetic alone
# moves between two machines or thread counts (a mean similarity by 1e-8, an AUROC rounded to 6
# decimals by 1e-6).
SAME_TO = 5e-5


def compare_line(rep: Replaced, base_name: str = "the committed results") -> str:
    """One line: does the overlay's file give the same numbers as the base's (every metric of every
    dataset and the main score)? Equal; the same to the 4 decimals shown (under ``SAME_TO``); or differs."""
    a, b = _values(rep.base), _values(rep.over)
    both = [k for k in a if k in b and a[k] is not None and b[k] is not None]
    worst, where = 0.0, ""
    for k in both:
        d = abs(a[k] - b[k])  # type: ignore[operator]
        if d > worst:
            worst, where = d, _metric_name(k)
    odd = [_metric_name(k) for k in dict.fromkeys([*a, *b]) if k not in both]
    head = f"{rep.submission}/{rep.suite}: your run"
    n = f"{len(both)} metric{'s' if len(both) != 1 else ''}"
    if worst == 0.0 and not odd:
        return f"{head} equals {base_name} (max |difference| 0.0 over {n})"
    if worst < SAME_TO and not odd:
        return f"{head} matches {base_name} to 4 decimals (max |difference| {worst:.2g}, {where}, over {n})"
    text = f"{head} differs from {base_name}: max |difference| {worst:.4g}" + (f" ({where})" if where else "") + f" over {n}"
    if odd:
        text += f"; not in both: {', '.join(odd[:5])}" + (f" and {len(odd) - 5} more" if len(odd) > 5 else "")
    return text


def base_name(results_dir: Path) -> str:
    """How the lines comparing an overlay name the base: the committed results, or their folder."""
    return "the committed results" if results_dir.resolve() == paths.DEFAULT_RESULTS_DIR.resolve() else f"the results in {results_dir}"


class OverlaidScored(ScoredCache):
    """Per-item scores read from the folder each results file came from: an overlay, else the base."""

    def __init__(self, results_dir: Path, overlaid: dict[tuple[str, str], Path]) -> None:
        super().__init__(results_dir)
        self._overlaid = overlaid
        self._caches = {f: ScoredCache(f) for f in dict.fromkeys(overlaid.values())}

    def get(self, submission: str, suite: str) -> Scored | CBenchError:
        folder = self._overlaid.get((submission, suite))
        return super().get(submission, suite) if folder is None else self._caches[folder].get(submission, suite)


# -- cells -----------------------------------------------------------------------------------


def _limited(r: Results) -> str | None:
    n = r.metadata.limit_queries
    return f"first {n} queries per dataset only (--limit-queries {n})" if n else None


def suite_cell(r: Results | None) -> Cell:
    if r is None:
        return NOT_RUN
    if r.main_score is not None:
        ci = tuple(r.main_score_ci95) if r.main_score_ci95 is not None else None
        return Cell(r.main_score, _limited(r), ci)  # type: ignore[arg-type]
    if r.skipped:
        why = "; ".join(f"{ds}: {reason}" for ds, reason in r.skipped.items())
        return Cell(None, f"data unavailable: {why}")
    return Cell(None, f"incomplete ({len(r.datasets)} datasets done)")


def dataset_cell(r: Results | None, dataset: str, metric: str) -> Cell:
    if r is None:
        return NOT_RUN
    if dataset in r.datasets:
        value = r.datasets[dataset].get(metric)
        return Cell(value, None if value is not None else f"{metric} not reported")
    if dataset in r.skipped:
        return Cell(None, f"data unavailable: {r.skipped[dataset]}")
    return Cell(None, "incomplete")


def aggregate_cell(r: Results | None, key: str) -> Cell:
    main = suite_cell(r)
    if main.value is None or r is None:
        return Cell(None, main.note)
    value = r.aggregate.get(key)
    return Cell(value, main.note) if value is not None else Cell(None, f"{key} not reported")


# -- axes ------------------------------------------------------------------------------------


def _scored(by_suite: dict[str, dict[str, Results]], suite: str) -> int:
    return sum(1 for r in by_suite.get(suite, {}).values() if r.main_score is not None)


def choose_retrieval(
    requested: str, by_suite: dict[str, dict[str, Results]], tasks: dict[str, str], facts: dict[str, SuiteFacts]
) -> tuple[str | None, str | None]:
    """The retrieval axis suite and, when it is not the requested one, a note saying why.
    Fallback: the retrieval suite with most complete results, then by preference, then name."""
    labels = {n: f.label for n, f in facts.items()}
    if tasks.get(requested, "retrieval") != "retrieval":
        raise CBenchError(f"'{requested}' is a {tasks[requested]} suite, not a retrieval suite", source="--retrieval")
    if _scored(by_suite, requested):
        return requested, None
    have = "none complete" if requested in by_suite else "none"
    candidates = sorted(
        (s for s, t in tasks.items() if t == "retrieval" and _scored(by_suite, s)),
        key=lambda s: (-_scored(by_suite, s), facts[s].preference if s in facts else 100, s),
    )
    if not candidates:
        return None, f"The retrieval axis is empty: no retrieval suite has complete results ({label_of(labels, requested)} results: {have})."
    return candidates[0], (
        f"The retrieval axis is {candidates[0]}, the retrieval suite with the most complete results ({label_of(labels, requested)} results: {have})."
    )


def _ordered_keys(results: list[Results], preferred: list[str] | None = None) -> list[str]:
    seen: list[str] = []
    for r in results:
        for k in [*r.datasets, *r.skipped]:
            if k not in seen:
                seen.append(k)
    if preferred:
        seen = [k for k in preferred if k in seen] + [k for k in seen if k not in preferred]
    return seen


def _metric(results: list[Results], default: str) -> str:
    return results[0].main_metric if results else default


def _first(facts: dict[str, SuiteFacts], role: str, but: str | None = None) -> str | None:
    """The suite of ``role`` with the lowest preference (then name), other than ``but``."""
    ranked = sorted((f.preference, n) for n, f in facts.items() if f.role == role and n != but)
    return ranked[0][1] if ranked else None


def all_facts(found: dict[tuple[str, str], tuple[Path, Results]]) -> dict[str, SuiteFacts]:
    """Leaderboard facts of every shipped suite and of every suite that has results."""
    facts = {name: suite.facts() for name, suite in shipped_suites().items()}
    for (_sub, suite), (_path, r) in sorted(found.items()):
        if suite not in facts:
            facts[suite] = suite_facts(suite, r.task, r.metadata.suite_file)
    return facts


def folder_cells(
    runs: list[Results], cells: dict[str, Cell], axis_revisions: dict[str, set[str]], metric: str, axis: str
) -> list[str]:
    """Fill ``cells`` (an axis dataset -> cell; only the empty ones) from a submission's BEIR-folder
    runs ``runs`` on the same data (the same dataset revision as the axis results record); the notes
    for runs whose data no column holds."""
    notes: list[str] = []
    for r in runs:
        ((ds, metrics),) = r.datasets.items()
        revision = r.metadata.dataset_revisions.get(ds)
        column = next((c for c, revs in axis_revisions.items() if revision is not None and revision in revs), None)
        if column is None:
            notes.append(
                f"results for the BEIR folder '{r.suite}' ({r.main_metric} {metrics.get(r.main_metric, float('nan')):.4f}): "
                f"no {axis} column holds the same data"
            )
        elif cells[column].value is None and metrics.get(metric) is not None:
            limited = _limited(r)
            cells[column] = Cell(
                metrics[metric], f"from the run on the BEIR folder '{r.suite}' ({r.submission}/{r.suite}.json)" + (f"; {limited}" if limited else "")
            )
    return notes


# -- building --------------------------------------------------------------------------------


def build(
    results_dir: Path,
    registry_subs: dict,
    *,
    retrieval: str | None = None,
    composition: str | None = None,
    cost_dir: Path | None = None,
    fusion_dir: Path | None = None,
    overlays: Sequence[Path] = (),
) -> Leaderboard:
    """The leaderboard for every results file under ``results_dir``.

    ``retrieval`` / ``composition``: the axis suites; default: the suite of that role with the
    lowest ``preference`` (suite YAMLs' ``leaderboard:`` blocks). The second composition column is
    the next composition suite; every suite with role "extra" that has results gets a column.

    ``registry_subs``: name -> Submission (``Registry().all()``); results of names not in it still
    get a row (kind and parameters from the config recorded in the results), marked unregistered.

    ``cost_dir``: the cost files (``cbench cost``) to show; default: ``cost/`` beside ``results_dir``.
    ``fusion_dir``: fused submissions' test curves (``cbench fusion-curves``); default: ``fusion/`` beside it.

    Results of development suites (role ``dev``) are never a column or an axis: they set the gate
    thresholds (``gate.py``) of the suite they are ``dev_for``.

    ``overlays`` (``--overlay``): folders whose results files are laid over ``results_dir``'s: one
    replaces the base's file of the same submission and suite, others add rows; their rows are
    marked (``Row.overlay``), read with their own sidecars, and reproduced into that folder. The
    files replaced are in ``Leaderboard.replaced`` (``compare_line``). Nothing is written anywhere.
    """
    found, warnings = load_all(results_dir)
    overlaid, replaced, overlay_warnings = read_overlays(found, overlays)
    warnings += overlay_warnings
    dev_roles = {n for n, f in all_facts(found).items() if f.role == "dev"}
    dev_found = {k: v for k, v in found.items() if k[1] in dev_roles}
    found = {k: v for k, v in found.items() if k[1] not in dev_roles}
    costs, cost_warnings = read_costs(cost_dir if cost_dir is not None else results_dir.parent / "cost")
    warnings += cost_warnings
    by_suite: dict[str, dict[str, Results]] = {}
    tasks: dict[str, str] = {}
    for (sub, suite), (_path, r) in found.items():
        by_suite.setdefault(suite, {})[sub] = r
        tasks.setdefault(suite, r.task)
    facts = all_facts({**found, **dev_found})
    labels = {n: f.label for n, f in facts.items()}
    retrieval = retrieval or _first(facts, "retrieval") or ""
    composition = composition or _first(facts, "composition") or ""
    if tasks.get(composition, "nearmiss") != "nearmiss":
        raise CBenchError(f"'{composition}' is a {tasks[composition]} suite, not a near-miss suite", source="--composition")
    second = _first(facts, "composition", but=composition) or ""
    ret_suite, ret_note = choose_retrieval(retrieval, by_suite, tasks, facts)
    axis_notes = [ret_note] if ret_note else []
    if not _scored(by_suite, composition):
        have = "none complete" if composition in by_suite else "none"
        axis_notes.append(f"The composition axis is empty ({label_of(labels, composition)} results: {have}).")
    extras = {
        n: _metric(list(by_suite[n].values()), facts[n].main_metric)
        for _p, n in sorted((facts[n].preference, n) for n in by_suite if facts[n].role == "extra")
    }

    ret_results = list(by_suite.get(ret_suite, {}).values()) if ret_suite else []
    comp_results = list(by_suite.get(composition, {}).values())
    second_results = list(by_suite.get(second, {}).values())
    ret_metric = _metric(ret_results, RETRIEVAL_METRIC)
    comp_metric = _metric(comp_results, facts[composition].main_metric if composition in facts else "triplet_accuracy")
    second_metric = _metric(second_results, facts[second].main_metric if second in facts else "triplet_accuracy")
    ret_datasets = _ordered_keys(ret_results)
    axis_revisions = {ds: {v for r in ret_results if (v := r.metadata.dataset_revisions.get(ds))} for ds in ret_datasets}
    categories = _ordered_keys(comp_results, list(facts[composition].category_order) if composition in facts else None)

    names = sorted({sub for sub, _suite in found})
    for name in sorted(set(costs) - set(names) - set(registry_subs)):  # a registered part (a verifier's encoder) has a cost and no row
        warnings.append(f"cost file for '{name}', which has no results and no submission YAML (left out)")
    costs = {n: c for n, c in costs.items() if n in names}
    rows: list[Row] = []
    for name in names:
        r_ret = by_suite.get(ret_suite, {}).get(name) if ret_suite else None
        r_comp = by_suite.get(composition, {}).get(name)
        r_second = by_suite.get(second, {}).get(name)
        own = [r for (sub, _s), (_p, r) in sorted(found.items()) if sub == name]
        sub = registry_subs.get(name)
        config = own[0].metadata.submission_config
        notes: list[str] = []
        if sub is None:
            notes.append(f"'{name}' is not a registered submission (no YAML in the submission folders)")
        else:
            stale = sorted(r.suite for r in own if r.metadata.submission_hash != sub.hash)
            if stale:
                notes.append(f"results for {', '.join(stale)} were made with a different version of the submission YAML (hash differs); rerun with --overwrite")
        kind = sub.kind if sub is not None else str(config.get("kind", "unknown"))
        suites = reproduce_suites(name, kind, by_suite, [ret_suite, composition, second], list(extras), [r.suite for r in own])
        limits = {r.metadata.limit_queries for r in (r_ret, r_comp, r_second) if r is not None and r.metadata.limit_queries}
        overlay = next((overlaid[(name, r.suite)] for r in own if (name, r.suite) in overlaid), None)
        if overlay is not None:
            notes.append(f"your run: {', '.join(r.suite for r in own if (name, r.suite) in overlaid)} from {overlay}")
        reproduce = run_command(
            name,
            [suite_arg(s, by_suite.get(s, {}).get(name) or next(iter(by_suite.get(s, {}).values()), None)) for s in suites],
            results_dir=overlay or results_dir,
            folders=extra_folders(sub, registry_subs) if sub is not None else [],
            build=sub.config.build if sub is not None else None,
            options=["--limit-queries", str(max(limits))] if limits else [],
        )
        ret_cell = suite_cell(r_ret) if ret_suite else Cell(None, "no retrieval suite has results")
        ret_cells = {ds: dataset_cell(r_ret, ds, ret_metric) for ds in ret_datasets}
        folder_runs = [r for r in own if r.suite != ret_suite and is_folder_run(r)]
        notes += folder_cells(folder_runs, ret_cells, axis_revisions, ret_metric, label_of(labels, ret_suite))
        rows.append(
            Row(
                submission=name,
                kind=kind,
                parameters=sub.config.parameters if sub is not None else config.get("parameters"),
                description=sub.config.description if sub is not None else str(config.get("description", "")),
                registered=sub is not None,
                reproduce=reproduce,
                retrieval=ret_cell,
                retrieval_datasets=ret_cells,
                composition=suite_cell(r_comp),
                categories={c: dataset_cell(r_comp, c, comp_metric) for c in categories},
                false_accept=aggregate_cell(r_comp, FALSE_ACCEPT),
                second=suite_cell(r_second),
                notes=notes,
                extras={s: suite_cell(by_suite[s].get(name)) for s in extras},
                cost=costs.get(name),
                cost_note=_cost_note(costs.get(name), sub),
                overlay=overlay,
            )
        )

    scored = OverlaidScored(results_dir, overlaid) if overlaid else ScoredCache(results_dir)
    gate_suites = {
        f.dev_for: n for n, f in sorted(facts.items()) if f.role == "dev" and f.dev_for and f.dev_for in by_suite and any(k[1] == n for k in dev_found)
    }
    for row in rows:
        row.gates = {s: _gate(scored, row.submission, s, d, labels) for s, d in gate_suites.items()}
    curves, curve_warnings = read_curves(fusion_dir if fusion_dir is not None else results_dir.parent / "fusion")
    warnings += curve_warnings
    for name, c in list(curves.items()):
        sub = registry_subs.get(name)
        if name not in names:
            del curves[name]
        elif sub is not None and sub.hash != c.submission_hash:
            warnings.append(f"fusion curve of '{name}' was made for another version of its YAML (hash differs); rerun cbench fusion-curves (left out)")
            del curves[name]
    controls = sorted(
        (r for r in rows if is_control(r.kind)), key=lambda r: (-(r.composition.value if r.composition.value is not None else -1.0), r.submission)
    )
    rows = [r for r in rows if not is_control(r.kind)]
    order = rank({row.submission: row.point for row in rows})
    by_name = {row.submission: row for row in rows}
    ranked: list[Row] = []
    for i, (name, layer) in enumerate(order, start=1):
        row = by_name[name]
        row.layer, row.rank = layer, i
        ranked.append(row)
    axis_suites = {s: find_suite(s, next(iter(by_suite[s].values())).metadata.suite_file) for s in (ret_suite, composition) if s and by_suite.get(s)}
    marks = mark(
        [r.submission for r in ranked if r.layer is not None], ret_suite, composition if _scored(by_suite, composition) else None, scored, suites=axis_suites
    )
    for row in ranked:
        row.indistinguishable_from = marks.indistinguishable.get(row.submission, [])
        row.same_retrieval_as = marks.same["retrieval"].get(row.submission, [])
        row.same_composition_as = marks.same["composition"].get(row.submission, [])
        row.untested = marks.untested.get(row.submission)
    return Leaderboard(
        rows=ranked,
        retrieval_suite=ret_suite,
        retrieval_metric=ret_metric,
        composition_suite=composition,
        composition_metric=comp_metric,
        second_suite=second,
        second_metric=second_metric,
        retrieval_datasets=ret_datasets,
        categories=categories,
        axis_notes=axis_notes,
        files=[p for p, _r in found.values()],
        warnings=warnings,
        labels=labels,
        extra_suites=extras,
        controls=controls,
        marks=marks,
        scored=scored,
        results={key: r for key, (_p, r) in sorted(found.items())},
        facts=facts,
        costs=costs,
        gate_suites=gate_suites,
        curves=curves,
        overlaid=overlaid,
        replaced=replaced,
    )


def reproduce_suites(name: str, kind: str, by_suite: dict[str, dict[str, Results]], columns: list[str | None], extras: list[str], own: list[str]) -> list[str]:
    """The suites a row's reproduce command names: only those it has results for. A ranked row: the
    axes and the second column (``columns``), then its runs on single BEIR folders (they fill an axis
    column); a control (no retrieval): the composition columns and extra suites. A row with none of
    those: its extra suites, else every suite it has."""
    has = [s for s in own if name in by_suite.get(s, {})]  # own: its results' suites, dev suites aside (not in by_suite)
    if is_control(kind):
        picked = [s for s in (*columns[1:], *extras) if s in has]
    else:
        picked = [s for s in columns if s in has] + [s for s in has if s not in columns and is_folder_run(by_suite[s][name])]
    return picked or [s for s in extras if s in has] or has


def _gate(scored: ScoredCache, name: str, suite: str, dev: str, labels: dict[str, str]) -> Gate | Cell:
    """``name``'s gate on ``suite`` with its threshold from ``dev`` (gate.py), or why there is none."""
    test, dev_got = scored.get(name, suite), scored.get(name, dev)
    if isinstance(test, CBenchError) or not test[0].complete:
        return Cell(None, f"no complete {label_of(labels, suite)} results with per-item scores")
    if isinstance(dev_got, CBenchError) or not dev_got[0].complete:
        return Cell(None, f"not run on {label_of(labels, dev)} (the development pairs that set the threshold)")
    a, b = test[0].metadata, dev_got[0].metadata
    if (a.submission_hash, a.fingerprints) != (b.submission_hash, b.fingerprints):
        return Cell(None, f"its {label_of(labels, dev)} results were made with other weights or another YAML than its {label_of(labels, suite)} results")
    g = gate(suite, dev, [it for items in dev_got[1].values() for it in items], [it for items in test[1].values() for it in items])
    return g if g is not None else Cell(None, "no positive or no negative pairs")


def _cost_note(cost: CostRecord | None, sub) -> str | None:
    if cost is not None and sub is not None and cost.submission_hash != sub.hash:
        return "cost measured for a different version of the submission YAML (hash differs); rerun cbench cost"
    return None
