"""`cbench cost --model NAME`: time a submission's scoring on a fixed workload; write its cost file."""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import Annotated

import typer

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
    model: Annotated[str, typer.Option("--model", "-m", help="Registered submission name or submission YAML.")],
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
    average are recorded. Writes <out>/<submission>.json. Exit 3: its weights or the Medline data are
    not here."""
    setup_logging(quiet)
    from harness.costs.measure import measure
    from harness.costs.record import DEFAULT_COST_DIR, cost_path, write_cost
    from harness.paths import data_dir as resolve_data_dir
    from harness.submissions import Registry

    def announce(line: str) -> None:
        if not quiet:
            err_console.print(line, highlight=False, markup=False, soft_wrap=True)

    try:
        folder = writable_folder(out if out is not None else DEFAULT_COST_DIR)
        registry = Registry(submissions_dir)
        sub = registry.resolve(model)
        flags = (
            []
            if (pairs, queries, repeats, device) == (256, 30, 3, "cpu")
            else ["--pairs", str(pairs), "--queries", str(queries), "--repeats", str(repeats), "--device", device]
        )
        command = shlex.join(["cbench", "cost", "--model", sub.name, *flags])
        try:
            record = measure(
                sub,
                registry,
                pairs=pairs,
                queries=queries,
                repeats=repeats,
                data_dir=resolve_data_dir(data_dir),
                device=device,
                trust_remote_code=trust_remote_code,
                command=command,
                announce=announce,
            )
        except CBenchError as e:
            if e.field in WEIGHT_FIELDS and type(e) is CBenchError:
                raise WeightsUnavailable(f"weights unavailable, not measured: {e.message}", source=e.source, field=e.field) from None
            raise
        path = cost_path(folder, sub.name)
        write_cost(path, record)
    except CBenchError as e:
        fail(e)
    p, q = record.pairs, record.queries
    line = f"{sub.name}: {p.ms_per_pair:.4g} ms/pair (CPU {p.cpu_ms_per_pair:.4g}; {p.pairs} pairs)"
    if q is not None:
        rerank = f", {q.first_stage} + reranking {q.rerank_depth}" if q.rerank_depth else ""
        line += f", {q.ms_per_query:.4g} ms/query (CPU {q.cpu_ms_per_query:.4g}; {q.queries} queries{rerank})"
    out_console.print(f"{line}; wrote {path}", highlight=False, markup=False, soft_wrap=True)

def register(app: typer.Typer) -> None:
    app.command("cost")(cost)
