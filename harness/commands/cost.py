"""`cbench cost --model NAME`: time a submission's scoring on a fixed workload; write its cost file."""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from harness.errors import EXIT_SKIPPED, CBenchError
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
            "one process, and rerankers over the same first stage share its index build).",
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
    data_dir: Annotated[Path | None, typer.Option("--data-dir", help="Local data root (default $CBENCH_DATA_DIR).")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Only errors and the final line.")] = False,
) -> None:
    """Measure a submission's scoring cost on this machine: ms per near-miss pair (score_pairs on
    256 nearmiss pairs) and, for kinds with retrieval, ms per Medline query (a first stage: search
    against its built index; a reranker: its first stage plus reranking rerank_depth candidates).
    Warm-up first, nothing cached, median of the repeats; batch sizes, threads, CPU and load
    average are recorded. Writes <out>/<submission>.json. Several --model: each is timed in turn
    (one failing does not stop the others) and the exit code is the worst. Exit 3: weights or the
    Medline data are not here."""
    setup_logging(quiet)
    from harness.costs.measure import MeasureContext, measure
    from harness.costs.record import DEFAULT_COST_DIR, cost_path, write_cost
    from harness.paths import data_dir as resolve_data_dir
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
        data = resolve_data_dir(data_dir)
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
        p, q = record.pairs, record.queries
        line = f"{sub.name}: {p.ms_per_pair:.4g} ms/pair (CPU {p.cpu_ms_per_pair:.4g}; {p.pairs} pairs)"
        if q is not None:
            rerank = f", {q.first_stage} + reranking {q.rerank_depth}" if q.rerank_depth else ""
            line += f", {q.ms_per_query:.4g} ms/query (CPU {q.cpu_ms_per_query:.4g}; {q.queries} queries{rerank})"
        out_console.print(f"{line}; wrote {path}", highlight=False, markup=False, soft_wrap=True)
    if worst:
        raise typer.Exit(worst)


def register(app: typer.Typer) -> None:
    app.command("cost")(cost)
