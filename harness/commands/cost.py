"""`cbench cost --model NAME`: time a submission's scoring on a fixed workload; write its cost file."""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from harness.errors import EXIT_SKIPPED, CBenchError, DataUnavailable
from harness.paths import DATA_DIR_HELP
from harness.ui import err_console, fail, out_console, setup_logging

# Fields whose errors mean the submission's weights cannot be had here (a hub model not in the
# local cache, a checkpoint or delta not built): the submission is skipped (exit 3), not failed.
WEIGHT_FIELDS = frozenset({"model", "checkpoint", "weights_delta"})


class WeightsUnavailable(CBenchError):
    exit_code = EXIT_SKIPPED


def writable_folder(out: Path) -> Path:
    """``--out`` as a folder that exists and can be written to (made when missing), checked before
    anything is timed."""
    if out.exists() and not out.is_dir():
        raise CBenchError("not a folder", source=out, field="--out")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        from harness.results import os_reason

        raise CBenchError(f"cannot create the folder: {os_reason(e)}", source=out, field="--out") from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise CBenchError("folder is not writable", source=out, field="--out")
    return out


def cost(
    model: Annotated[
        list[str],
        typer.Option(
            "--model",
            "-m",
            help="Registered submission name or submission YAML (repeatable: the submissions are timed one after another in "
            "one process, and a store several share, such as a first stage's index or a verifier encoder's document tokens, is built once).",
        ),
    ],
    out: Annotated[Path | None, typer.Option("--out", help="Folder for <submission>.json (default: leaderboard/cost).")] = None,
    pairs: Annotated[int, typer.Option("--pairs", min=1, help="Near-miss pairs scored per repeat.")] = 256,
    queries: Annotated[int, typer.Option("--queries", min=2, help="Medline queries searched per repeat (it has 30).")] = 30,
    repeats: Annotated[int, typer.Option("--repeats", min=1, help="Timed repeats after the warm-up (figures are their median).")] = 3,
    device: Annotated[str, typer.Option("--device", help="cpu, cuda, cuda:0, mps ...")] = "cpu",
    trust_remote_code: Annotated[bool, typer.Option("--trust-remote-code", help="Allow models that ask for it to run their own code.")] = False,
    submissions_dir: Annotated[
        list[Path] | None,
        typer.Option("--submissions-dir", help="Extra folder of submission YAMLs (repeatable; also $CBENCH_SUBMISSIONS)."),
    ] = None,
    data_dir: Annotated[Path | None, typer.Option("--data-dir", help=DATA_DIR_HELP)] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Only errors and the final line.")] = False,
) -> None:
    """Measure a submission's cost on this machine, as a deployment pays it: ms per near-miss pair
    (score_pairs on 256 nearmiss pairs, nothing cached); for kinds with retrieval, its index of
    Medline's 1,033 documents built once (ms and bytes per document: a first stage's vectors or
    BM25 / TF-IDF matrices, plus what a reranker stores per document, e.g. a verifier's document
    token embeddings; a cross-encoder stores nothing) and ms per Medline query with that index
    built (a first stage: its search; a reranker: its first stage plus scoring rerank_depth
    candidates, paying only what is computed per query). Warm-up first, median of the repeats;
    batch sizes, threads, CPU and load average are recorded. Writes <out>/<submission>.json.
    Several --model: each is timed in turn (one failing does not stop the others; a store they
    share is built once) and the exit code is the worst. Exit 3: weights or the Medline data are
    not here."""
    setup_logging(quiet)
    from harness.costs.measure import MeasureContext, measure
    from harness.costs.record import DEFAULT_COST_DIR, cost_path, write_cost
    from harness.paths import data_dir_choice
    from harness.submissions import Registry

    def announce(line: str) -> None:
        if not quiet:
            err_console.print(line, highlight=False, markup=False, soft_wrap=True)

    flags = ["--pairs", str(pairs), "--queries", str(queries), "--repeats", str(repeats), "--device", device]
    flags = [] if (pairs, queries, repeats, device) == (256, 30, 3, "cpu") else flags
    try:
        folder = writable_folder(out if out is not None else DEFAULT_COST_DIR)
        registry = Registry(submissions_dir)
        subs = [registry.resolve(m) for m in model]
        choice = data_dir_choice(data_dir)
        data = choice.path
    except CBenchError as e:
        fail(e)
    ctx = MeasureContext(device=device, use_cache=False, trust_remote_code=trust_remote_code)
    worst = 0
    for sub in subs:
        try:
            try:
                record = measure(
                    sub,
                    registry,
                    pairs=pairs,
                    queries=queries,
                    repeats=repeats,
                    data_dir=data,
                    device=device,
                    trust_remote_code=trust_remote_code,
                    command=shlex.join(["cbench", "cost", "--model", sub.name, *flags]),
                    announce=announce,
                    ctx=ctx,
                )
            except DataUnavailable as e:
                if choice.found:
                    raise
                raise DataUnavailable(f"{e.message.split(';')[0]}: {choice.missing_line()}", source=e.source, field=e.field) from None
            except CBenchError as e:
                if e.field in WEIGHT_FIELDS and type(e) is CBenchError:
                    raise WeightsUnavailable(f"weights unavailable, not measured: {e.message}", source=e.source, field=e.field) from None
                raise
            path = cost_path(folder, sub.name)
            write_cost(path, record)
        except CBenchError as e:
            if len(subs) == 1:
                fail(e)
            for line in e.lines:  # each names the submission's file
                err_console.print(f"[red]error:[/red] {escape(line)}", highlight=False, soft_wrap=True)
            worst = e.exit_code if worst == 0 else min(worst, e.exit_code)  # 2 (bad input) outranks 3 (skipped)
            continue
        out_console.print(f"{summary(record)}; wrote {path}", highlight=False, markup=False, soft_wrap=True)
    if worst:
        raise typer.Exit(worst)


def summary(record) -> str:
    """The one line ``cbench cost`` prints per submission: the three numbers."""
    p, i, q = record.pairs, record.index, record.queries
    line = f"{record.submission}: {p.ms_per_pair:.4g} ms/pair (CPU {p.cpu_ms_per_pair:.4g}; {p.pairs} pairs)"
    if i is not None:
        line += (
            f", index {i.ms_per_doc:.4g} ms/doc (CPU {i.cpu_ms_per_doc:.4g}), {i.bytes_per_doc / 1024:.4g} KB/doc "
            f"({i.documents} documents: {i.stores})"
        )
    if q is not None:
        how = f"{q.first_stage}'s search {q.search_ms_per_query:.4g}"
        if q.rerank_depth:
            how += f" + reranking {q.rerank_depth} candidates {q.rerank_ms_per_query:.4g}"
        line += f", {q.ms_per_query:.4g} ms/query with the index built (CPU {q.cpu_ms_per_query:.4g}; {q.queries} queries: {how})"
    return line


def register(app: typer.Typer) -> None:
    app.command("cost")(cost)
