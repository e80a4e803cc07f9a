"""The leaderboard's cost columns, from the cost files (`cbench cost`): ms per near-miss pair, the
index (build time and size per document) and ms per query with the index built.

A row without a cost file has blank cells (not measured; never zero). Each measured cell's tooltip
says what was timed: CPU time, batch sizes, threads, CPU model, load average, date and commit; the
index cells also what each part stores. A schema-1 cost file (``harness.costs.record``: written
before the index was measured apart) keeps its ms/pair; its index cells are blank with that reason,
and so is its ms/query where it was measured with the documents re-encoded per query (a reranker
other than a cross-encoder); a first stage's or a cross-encoder's schema-1 ms/query is the same
measurement and is shown.
"""

from __future__ import annotations

from harness.costs.record import SCHEMA_1_REENCODED, CostRecord
from harness.leaderboard.collect import Leaderboard, Row
from harness.leaderboard.fmt import fmt_ms

PAIR_KEY, QUERY_KEY = "cost:ms_per_pair", "cost:ms_per_query"
INDEX_TIME_KEY, INDEX_SIZE_KEY = "cost:index_ms_per_doc", "cost:index_bytes_per_doc"  # CSV: bytes; the page shows KB
COST_KEYS = (PAIR_KEY, INDEX_TIME_KEY, INDEX_SIZE_KEY, QUERY_KEY)
RETRIEVAL_COST_KEYS = (INDEX_TIME_KEY, INDEX_SIZE_KEY, QUERY_KEY)  # controls have none: no retrieval
COST_COLUMNS = [  # CSV only, after the others
    "cost_cpu_ms_per_pair",
    "cost_index_cpu_ms_per_doc",
    "cost_index_documents",
    "cost_index_stores",
    "cost_cpu_ms_per_query",
    "cost_search_ms_per_query",
    "cost_rerank_ms_per_query",
    "cost_schema",
    "cost_batch_sizes",
]
COST_LINE = (
    "ms/pair, index ms/doc, index KB/doc, ms/query (index built): cost measured by `cbench cost` on one machine, wall-clock, "
    "median of the repeats after a warm-up. ms/pair: score_pairs on 256 nearmiss pairs, nothing cached. "
    "index ms/doc and KB/doc: everything the submission stores per document, built once for Medline's 1,033 documents: "
    "its first stage's index (pooled vectors float32, or BM25 / TF-IDF sparse arrays) plus what a reranker stores of its own "
    "(a verifier's or a late-interaction model's document token embeddings, float16; a cross-encoder stores nothing); "
    "KB = 1,024 bytes at the precision stored. ms/query (index built): a first stage's search of 30 Medline queries against that index; "
    "a reranker adds scoring its rerank_depth candidates with the documents read from the index, paying per query only what "
    "depends on the query (its encoding, the token-cosine maps and the verifier's network; a cross-encoder: every pair). "
    "Batch sizes, CPU time, threads, CPU, load average and what each part stores: leaderboard/cost/<submission>.json "
    "and the page's tooltips. Blank: not measured (a note says why where a cost file exists)."
)
_HOW = "wall-clock, median of repeats after a warm-up (cbench cost); tooltip: CPU time, batch sizes, machine; blank: not measured; lower is better"
SCHEMA_1_INDEX = "schema-1 cost file: the index was not measured apart; rerun cbench cost"
SCHEMA_1_QUERY = f"{SCHEMA_1_REENCODED}, not with the index built; rerun cbench cost"
NO_RETRIEVAL = "no retrieval: not measured"

Cell = tuple[str, str, float | None, str | None, str | None]  # text, CSV, sort key, note, tooltip
BLANK: Cell = ("", "", None, None, None)


def has_costs(lb: Leaderboard) -> bool:
    return any(r.cost is not None for r in [*lb.rows, *lb.controls])


def cost_columns() -> list[tuple[str, str, str]]:
    """(key, header, header tooltip) of the four columns."""
    return [
        (PAIR_KEY, "ms/pair", f"ms per near-miss pair: score_pairs on 256 nearmiss pairs in one call, nothing cached; {_HOW}"),
        (
            INDEX_TIME_KEY,
            "index ms/doc",
            "index build time per document: everything the submission stores per document (its first stage's vectors or "
            "BM25 / TF-IDF matrices, plus a reranker's own store, e.g. a verifier's document token embeddings; a cross-encoder "
            f"stores nothing), built once for Medline's 1,033 documents, ms / documents; {_HOW}",
        ),
        (
            INDEX_SIZE_KEY,
            "index KB/doc",
            "index size per document, at the precision stored (pooled vectors float32, token embeddings float16, BM25 / TF-IDF "
            "sparse arrays; vocabularies not counted), first stage and reranker together; KB = 1,024 bytes (CSV: bytes); "
            "blank: not measured; lower is better",
        ),
        (
            QUERY_KEY,
            "ms/query (index built)",
            "ms per query with the index built: a first stage's search against it; a reranker's first stage plus scoring its "
            "rerank_depth candidates, the documents read from the index and only the query's own work paid (its encoding, the "
            f"maps, the network; a cross-encoder: every pair); {_HOW}",
        ),
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


def _note(*parts: str | None) -> str | None:
    return "; ".join(p for p in parts if p) or None


def _kb(nbytes: float) -> str:
    return fmt_ms(nbytes / 1024)


def _index_cells(row: Row) -> list[Cell]:
    c = row.cost
    assert c is not None
    i = c.index
    if c.queries is None:
        return [("", "", None, None, NO_RETRIEVAL)] * 2
    if i is None:  # a schema-1 file
        blank: Cell = ("", "", None, _note(SCHEMA_1_INDEX, row.cost_note), "not measured: " + SCHEMA_1_INDEX)
        return [blank, blank]
    parts = "; ".join(
        f"{p.submission} ({p.kind}): {p.stores}, {p.bytes / i.documents / 1024:.4g} KB/doc, built in {p.build.wall_ms[0]:.0f} ms"
        + (f" (for {p.built_for}, in the same process)" if p.built_for else "")
        for p in i.parts
    )
    where = f"{i.documents} {i.collection} documents, built once"
    time_tip = (
        f"{i.ms_per_doc:g} ms per document (CPU {i.cpu_ms_per_doc:g} ms), {where}: {parts or 'nothing stored per document'}; "
        f"{_batches(c)}; {_machine(c)}"
    )
    size_tip = f"{i.bytes_per_doc:,.0f} bytes per document ({i.bytes:,} bytes, {where}): {i.stores}" + (f"; {parts}" if parts else "")
    return [
        (fmt_ms(i.ms_per_doc), f"{i.ms_per_doc:.6g}", i.ms_per_doc, row.cost_note, time_tip),
        (_kb(i.bytes_per_doc), f"{i.bytes_per_doc:.6g}", i.bytes_per_doc, row.cost_note, size_tip),
    ]


def _query_cell(row: Row) -> Cell:
    c = row.cost
    assert c is not None
    q = c.queries
    if q is None:
        return ("", "", None, None, NO_RETRIEVAL)
    if c.documents_reencoded:
        tip = f"not measured with the index built: the schema-1 file's {q.ms_per_query:g} ms per query was {SCHEMA_1_REENCODED}"
        return ("", "", None, _note(SCHEMA_1_QUERY, row.cost_note), tip)
    how = f"{q.first_stage}'s search {q.search_ms_per_query:g} ms"
    if q.rerank_depth is not None:
        how += f" + reranking {q.rerank_depth} candidates {q.rerank_ms_per_query:g} ms"
    built = "the index built once, not included (index columns)"
    if c.schema_version == 1:
        built = "schema-1 cost file: the same measurement (a first stage's search against its built index; a cross-encoder scores every pair either way)"
    tip = (
        f"{q.ms_per_query:g} ms per query (CPU {q.cpu_ms_per_query:g} ms) = {how}; {q.queries} {q.collection} queries, "
        f"median of {c.repeats}; {built}; {_batches(c)}; {_machine(c)}"
    )
    return (fmt_ms(q.ms_per_query), f"{q.ms_per_query:.6g}", q.ms_per_query, row.cost_note, tip)


def cost_cells(row: Row) -> list[Cell]:
    """The four cells of ``row`` (ms/pair, index ms/doc, index KB/doc, ms/query): (text, CSV value,
    sort key, note, tooltip)."""
    c = row.cost
    if c is None:
        return [BLANK] * len(COST_KEYS)
    p = c.pairs
    pair_tip = (
        f"{p.ms_per_pair:g} ms per pair (CPU {p.cpu_ms_per_pair:g} ms): {p.pairs} {p.suite} pairs in one call, nothing cached, median of {c.repeats}; "
        f"{_batches(c)}; {_machine(c)}"
    )
    pair: Cell = (fmt_ms(p.ms_per_pair), f"{p.ms_per_pair:.6g}", p.ms_per_pair, row.cost_note, pair_tip)
    return [pair, *_index_cells(row), _query_cell(row)]


def cost_raw(row: Row) -> list[str]:
    """The CSV-only cost columns (COST_COLUMNS) of ``row``: raw numbers, blank where not measured."""
    c = row.cost
    if c is None:
        return [""] * len(COST_COLUMNS)
    i, q = c.index, c.queries
    index = ["", "", ""] if i is None else [f"{i.cpu_ms_per_doc:.6g}", str(i.documents), i.stores]
    if q is None:
        query = ["", "", ""]
    elif c.documents_reencoded:  # the search was measured against the built index; the reranking was not
        query = ["", f"{q.search_ms_per_query:.6g}", ""]
    else:
        rerank = "" if q.rerank_ms_per_query is None else f"{q.rerank_ms_per_query:.6g}"
        query = [f"{q.cpu_ms_per_query:.6g}", f"{q.search_ms_per_query:.6g}", rerank]
    batches = ";".join(f"{n}={b}" for n, b in c.batch_sizes.items())
    return [f"{c.pairs.cpu_ms_per_pair:.6g}", *index, *query, str(c.schema_version), batches]
