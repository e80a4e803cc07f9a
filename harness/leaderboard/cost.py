"""The leaderboard's cost columns: ms per pair and ms per query from the cost files (`cbench cost`).

A row without a cost file has blank cells (not measured; never zero). Each measured cell's tooltip
says what was timed: CPU time, batch sizes, threads, CPU model, load average, date and commit.
"""

from __future__ import annotations

from harness.costs.record import CostRecord
from harness.leaderboard.collect import Leaderboard, Row
from harness.leaderboard.fmt import fmt_ms

PAIR_KEY, QUERY_KEY = "cost:ms_per_pair", "cost:ms_per_query"
COST_KEYS = (PAIR_KEY, QUERY_KEY)
COST_COLUMNS = ["cost_cpu_ms_per_pair", "cost_cpu_ms_per_query", "cost_batch_sizes"]  # CSV only, after the others
COST_LINE = (
    "ms/pair, ms/query: scoring cost measured by `cbench cost` on one machine, wall-clock ms, median of the repeats after a warm-up, "
    "nothing cached: score_pairs on 256 nearmiss pairs; a first stage's search of 30 Medline queries against its built index "
    "(a reranker: plus reranking its rerank_depth candidates). Batch sizes, CPU time, threads, CPU and load average: "
    "leaderboard/cost/<submission>.json and the page's tooltips. Blank: not measured."
)
_TITLE = (
    "wall-clock ms, median of repeats after a warm-up, nothing cached (cbench cost); tooltip: CPU time, batch sizes, machine; blank: not measured; "
    "lower is better"
)

Cell = tuple[str, str, float | None, str | None, str | None]  # text, CSV, sort key, note, tooltip
BLANK: Cell = ("", "", None, None, None)


def has_costs(lb: Leaderboard) -> bool:
    return any(r.cost is not None for r in [*lb.rows, *lb.controls])


def cost_columns() -> list[tuple[str, str, str]]:
    """(key, header, header tooltip) of the two columns."""
    return [
        (PAIR_KEY, "ms/pair", f"scoring cost per near-miss pair: {_TITLE}"),
        (QUERY_KEY, "ms/query", f"cost per query: a first stage's search against its built index, a reranker's first stage plus reranking; {_TITLE}"),
    ]


def _batches(c: CostRecord) -> str:
    if not c.batch_sizes:
        return "batch size: none (the kind has no batches)"
    return "batch size: " + ", ".join(f"{name} {size}" for name, size in c.batch_sizes.items())


def _machine(c: CostRecord) -> str:
    m = c.machine
    load = f"load average {m.load_average_start[0]:g} → {m.load_average_end[0]:g}"
    threads = f"{m.torch_threads} torch thread{'s' if m.torch_threads != 1 else ''}"
    return f"{m.cpu}, {m.device}, {threads}, {load}; {c.date[:10]}, commit {(c.git_commit or 'unknown')[:12]}"


def cost_cells(row: Row) -> list[Cell]:
    """The two cells of ``row``: (text, CSV value, sort key, note, tooltip)."""
    c = row.cost
    if c is None:
        return [BLANK, BLANK]
    p = c.pairs
    pair_tip = (
        f"{p.ms_per_pair:g} ms per pair (CPU {p.cpu_ms_per_pair:g} ms): {p.pairs} {p.suite} pairs in one call, median of {c.repeats}; "
        f"{_batches(c)}; {_machine(c)}"
    )
    cells: list[Cell] = [(fmt_ms(p.ms_per_pair), f"{p.ms_per_pair:.6g}", p.ms_per_pair, row.cost_note, pair_tip)]
    q = c.queries
    if q is None:
        cells.append(("", "", None, None, "no retrieval: not measured"))
        return cells
    how = f"{q.first_stage}'s search {q.search_ms_per_query:g} ms"
    if q.rerank_depth is not None:
        how += f" + reranking {q.rerank_depth} candidates {q.rerank_ms_per_query:g} ms"
    query_tip = (
        f"{q.ms_per_query:g} ms per query (CPU {q.cpu_ms_per_query:g} ms) = {how}; {q.queries} {q.collection} queries, median of {c.repeats}; "
        f"index built once in {q.index.wall_ms[0]:.0f} ms, not included; {_batches(c)}; {_machine(c)}"
    )
    cells.append((fmt_ms(q.ms_per_query), f"{q.ms_per_query:.6g}", q.ms_per_query, row.cost_note, query_tip))
    return cells


def cost_raw(row: Row) -> list[str]:
    """The CSV-only cost columns (COST_COLUMNS) of ``row``."""
    c = row.cost
    if c is None:
        return ["", "", ""]
    q = "" if c.queries is None else f"{c.queries.cpu_ms_per_query:.6g}"
    return [f"{c.pairs.cpu_ms_per_pair:.6g}", q, ";".join(f"{n}={b}" for n, b in c.batch_sizes.items())]
