""""Which model for what": a short summary computed from the leaderboard, with the caveats the 95%
intervals and the chance bands impose (leaderboard.md and index.html show it first).

- best retrieval and best composition (the axes), with every other model inside the best one's
  interval named: the data do not separate those from it;
- the best composition at a retrieval loss of at most 0.01 / 0.03 against the model's base: a
  verifier's base is its ``first_stage``; a fine-tuned encoder's, the submission ``cbench finetune``
  recorded it was tuned from (``provenance.base.submission``); any other model is compared with
  the reference encoder, the first stage most verifiers share (all-MiniLM-L6-v2 on the committed
  board), and the line says so;
- the cheapest (fewest parameters) verifier above chance on every composition column: above the
  top of that column's chance band (:mod:`harness.leaderboard.chance`). Columns where no ranked
  model is above its band are set aside and named.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from harness.leaderboard.chance import ABOVE, Band, bands
from harness.leaderboard.collect import Cell, Leaderboard, Row
from harness.leaderboard.fmt import fmt_params

BUDGETS = (0.01, 0.03)
EPS = 1e-9


@dataclass
class Pick:
    title: str  # "Best retrieval"
    choice: str | None  # the submission picked (None: nothing qualifies)
    text: str  # the pick, one sentence
    caveats: list[str] = field(default_factory=list)

    @property
    def line(self) -> str:
        return " ".join([f"{self.title}: {self.text}", *self.caveats])


def config_of(lb: Leaderboard, name: str) -> dict:
    """The submission config its results recorded (the first results file, by suite name)."""
    for (sub, _suite), r in sorted(lb.results.items()):
        if sub == name:
            return r.metadata.submission_config
    return {}


def first_stage(lb: Leaderboard, name: str) -> str | None:
    fs = config_of(lb, name).get("first_stage")
    return fs if isinstance(fs, str) and fs else None


def tuned_from(lb: Leaderboard, name: str) -> str | None:
    prov = config_of(lb, name).get("provenance") or {}
    base = prov.get("base") if isinstance(prov, dict) else None
    sub = base.get("submission") if isinstance(base, dict) else None
    return sub if isinstance(sub, str) and sub else None


def reference_encoder(lb: Leaderboard) -> str | None:
    """The first stage most ranked verifiers share (ties: the better-placed one); None without any."""
    counts = Counter(fs for r in lb.rows if (fs := first_stage(lb, r.submission)))
    order = {r.submission: i for i, r in enumerate(lb.rows)}
    ranked = sorted(counts, key=lambda n: (-counts[n], order.get(n, len(order)), n))
    return ranked[0] if ranked else None


FIRST_STAGE, TUNED_FROM, REFERENCE, ITSELF = "first stage", "tuned from", "reference", "itself"


def base_of(lb: Leaderboard, name: str, reference: str | None) -> tuple[str | None, str]:
    """(base submission, how it was chosen: FIRST_STAGE / TUNED_FROM / REFERENCE / ITSELF) for the
    retrieval-loss comparison; (None, REFERENCE) without a reference encoder."""
    if fs := first_stage(lb, name):
        return fs, FIRST_STAGE
    if tf := tuned_from(lb, name):
        return tf, TUNED_FROM
    if reference == name:
        return name, ITSELF
    return reference, REFERENCE


def _versus(base: str, how: str, value: float) -> str:
    if how == FIRST_STAGE:
        return f"its first stage {base} ({value:.4f})"
    if how == TUNED_FROM:
        return f"{base}, which it was tuned from ({value:.4f})"
    return f"{base} ({value:.4f}; no base recorded)"


def _ci(cell: Cell) -> str:
    return f", 95% interval {cell.ci95[0]:.4f}–{cell.ci95[1]:.4f}" if cell.ci95 is not None else ", no interval recorded"


def _within(best: Row, cell_of, pool: list[Row], where: str = "its interval") -> str | None:
    """Who else lies inside the best one's interval (their point estimate at or above its low end)."""
    ci = cell_of(best).ci95
    if ci is None:
        return None
    others = [(r.submission, cell_of(r).value) for r in pool if r is not best and cell_of(r).value is not None and cell_of(r).value >= ci[0]]
    if not others:
        return f"No other model lies inside {where}."
    names = ", ".join(f"{n} ({v:.4f})" for n, v in others)
    return f"Inside {where}: {names}; the data do not separate {'it' if len(others) == 1 else 'them'} from {best.submission}."


def _axis_label(lb: Leaderboard, axis: str) -> str:
    if axis == "retrieval":
        return f"{lb.label(lb.retrieval_suite)} {lb.retrieval_metric}"
    return f"{lb.label(lb.composition_suite)} {lb.composition_metric}"


def best_on(lb: Leaderboard, axis: str) -> Pick:
    title = f"Best {axis}"
    cell_of = (lambda r: r.retrieval) if axis == "retrieval" else (lambda r: r.composition)
    pool = [r for r in lb.rows if cell_of(r).value is not None]
    if not pool:
        return Pick(title, None, f"no ranked model has a {axis} score.")
    best = max(pool, key=lambda r: cell_of(r).value)  # first in page order on ties
    c = cell_of(best)
    pick = Pick(title, best.submission, f"{best.submission} ({_axis_label(lb, axis)} {c.value:.4f}{_ci(c)}).")
    if w := _within(best, cell_of, pool):
        pick.caveats.append(w)
    if axis == "composition":
        band = bands(lb).composition
        if band is not None and band.place(c.value) not in (ABOVE, None):
            pick.caveats.append(f"It is inside the chance band ({band.text()}).")
    return pick


def best_within(lb: Leaderboard, budget: float) -> Pick:
    """The best composition among models whose retrieval is at most ``budget`` below their base's."""
    title = f"Best composition at ≤ {budget:g} retrieval loss"
    reference = reference_encoder(lb)
    by_name = {r.submission: r for r in lb.rows}
    eligible: list[tuple[Row, Row, str]] = []
    for r in lb.rows:
        if r.point is None:
            continue
        base, how = base_of(lb, r.submission, reference)
        b = by_name.get(base or "")
        if b is None or b.retrieval.value is None:
            continue
        if b.retrieval.value - r.retrieval.value <= budget + EPS:
            eligible.append((r, b, how))
    if not eligible:
        return Pick(title, None, "no ranked model has both axes and a base with a retrieval score.")
    best, base, how = max(eligible, key=lambda e: e[0].composition.value)  # first in page order on ties
    c, ret, bret = best.composition, best.retrieval.value, base.retrieval.value
    if how == ITSELF:
        vs = "the reference encoder itself: no model within the budget of its base scores higher on composition"
    else:
        vs = f"{ret - bret:+.4f} vs {_versus(base.submission, how, bret)}"
    text = f"{best.submission} ({_axis_label(lb, 'composition')} {c.value:.4f}{_ci(c)}; {_axis_label(lb, 'retrieval')} {ret:.4f}, {vs})."
    pick = Pick(title, best.submission, text)
    halves = [(x.ci95[1] - x.ci95[0]) / 2 for x in (best.retrieval, base.retrieval) if x.ci95 is not None]
    if halves and max(halves) > budget:
        pick.caveats.append(f"The retrieval intervals (±{max(halves):.3f}) are wider than the {budget:g} budget: the loss itself is not resolved.")
    if w := _within(best, lambda r: r.composition, [e[0] for e in eligible], "its composition interval, within the budget"):
        pick.caveats.append(w)
    return pick


def composition_columns(lb: Leaderboard) -> list[tuple[Band, object]]:
    """(band, cell_of) of the suite-level composition-type columns that have a band, page order."""
    b = bands(lb)
    cols: list[tuple[Band | None, object]] = [(b.composition, lambda r: r.composition), (b.second, lambda r: r.second)]
    cols += [(band, lambda r, s=s: r.extras.get(s, Cell(None))) for s, band in b.extras.items()]
    return [(band, get) for band, get in cols if band is not None and band.reference is not None]


def cheapest_verifier(lb: Leaderboard) -> Pick:
    title = "Cheapest verifier above chance on every composition column"
    cols = composition_columns(lb)
    cleared = [(band, get) for band, get in cols if any(band.place(get(r).value) == ABOVE for r in lb.rows)]
    aside = [band.label for band, get in cols if (band, get) not in cleared]
    verifiers = [r for r in lb.rows if first_stage(lb, r.submission)]
    if not verifiers:
        return Pick(title, None, "no ranked verifier (a submission with a first stage).")
    if not cleared:
        return Pick(title, None, "no composition column has a ranked model above its controls.")

    def fails(r: Row) -> list[str]:
        out = []
        for band, get in cleared:
            v = get(r).value
            if v is None:
                out.append(f"{band.label} (no score)")
            elif band.place(v) != ABOVE:
                out.append(f"{band.label} ({v:.4f} ≤ {band.top:.4f})")
        return out

    order = {r.submission: i for i, r in enumerate(lb.rows)}
    cost = lambda r: (r.parameters is None, r.parameters or 0, order[r.submission])  # noqa: E731
    ok = sorted((r for r in verifiers if not fails(r)), key=cost)
    labels = ", ".join(band.label for band, _g in cleared)
    set_aside = f"Set aside: {', '.join(aside)} (no ranked model scores above the controls there)." if aside else None
    if not ok:
        closest = min(verifiers, key=lambda r: (len(fails(r)), *cost(r)))
        pick = Pick(title, None, f"none is above its controls on all of {labels}; closest: {closest.submission}, not above on {', '.join(fails(closest))}.")
        pick.caveats += [set_aside] if set_aside else []
        return pick
    best = ok[0]
    pick = Pick(title, best.submission, f"{best.submission} ({fmt_params(best.parameters)} parameters), above its controls on {labels}.")
    if set_aside:
        pick.caveats.append(set_aside)
    reach = [
        f"{band.label} ({get(best).ci95[0]:.4f} ≤ {band.top:.4f})" for band, get in cleared if get(best).ci95 is not None and get(best).ci95[0] <= band.top
    ]
    if reach:
        pick.caveats.append(f"Its 95% interval reaches into the band on {', '.join(reach)}.")
    ties = [r.submission for r in ok[1:] if r.parameters == best.parameters]
    if ties:
        pick.caveats.append(f"Same parameter count: {', '.join(ties)}.")
    return pick


def which_model(lb: Leaderboard) -> list[Pick]:
    """The summary's picks, in order; empty without ranked rows."""
    if not lb.rows:
        return []
    return [best_on(lb, "retrieval"), best_on(lb, "composition"), *(best_within(lb, b) for b in BUDGETS), cheapest_verifier(lb)]


def bases_line(lb: Leaderboard) -> str:
    """How the retrieval loss is measured, with the reference encoder named."""
    ref = reference_encoder(lb)
    tail = f"any other model against {ref}, the first stage most verifiers share" if ref else "models without a base are left out"
    return (
        "Retrieval loss = the base's retrieval score minus the model's: a verifier's base is its first stage, a fine-tuned "
        f"encoder's the submission it was tuned from when its YAML records it; {tail}. "
        "Above chance = above the top of the column's chance band (its controls' range, widened to the suite's chance level)."
    )
