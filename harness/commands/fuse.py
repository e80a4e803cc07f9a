"""`cbench fuse --verifier NAME`: fit a fused reranker on development queries and write its YAML."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from harness.errors import CBenchError
from harness.paths import DATA_DIR_HELP
from harness.ui import err_console, fail, out_console, setup_logging

HEADER = """\
# Written by `cbench fuse` (harness/fusion/fit.py); rerun the command in `fit.command` to refit.
# fused(q, d) = (s1 - first_stage_norm.mean) / first_stage_norm.scale
#             + weight * (s2 - verifier_norm.mean) / verifier_norm.scale
# s1: the first stage's score, s2: the verifier's. The norms and the weight were set on
# development queries only: {dev}.
# `fit` records the rule, the grid and every development point (descriptive: not part of the
# submission hash). No test query was used.
"""


def parse_grid(text: str) -> list[float]:
    try:
        grid = sorted({float(x) for x in text.split(",") if x.strip()})
    except ValueError:
        raise CBenchError(f"a comma-separated list of weights, got {text!r}", source="--grid") from None
    if not grid or any(w < 0 or w != w or w == float("inf") for w in grid):
        raise CBenchError(f"weights are finite and >= 0, got {text!r}", source="--grid")
    return grid


def yaml_text(config: dict, dev: str) -> str:
    import yaml

    return HEADER.format(dev=dev) + yaml.safe_dump(config, sort_keys=False, allow_unicode=True, width=120)


def fuse(
    verifier: Annotated[str, typer.Option("--verifier", help="The reranker to fuse (a submission with a first_stage: verifier, cross-encoder, ...).")],
    first_stage: Annotated[str | None, typer.Option("--first-stage", help="Default: the verifier's own first_stage.")] = None,
    name: Annotated[str | None, typer.Option("--name", help="The fused submission's name (default: <verifier>-fused).")] = None,
    out: Annotated[Path | None, typer.Option("--out", help="Where to write the YAML (default: submissions/<name>.yaml).")] = None,
    dev_suite: Annotated[str, typer.Option("--dev-suite", help="Development suite (role dev, type beir).")] = "offline-ir-dev",
    test_suite: Annotated[
        list[str] | None,
        typer.Option(
            "--test-suite", help="A further evaluation suite the development queries must be disjoint from (repeatable); the shipped ones always are."
        ),
    ] = None,
    budget: Annotated[float, typer.Option("--budget", min=0.0, help="Largest development nDCG@10 loss against the first stage.")] = 0.01,
    grid: Annotated[str | None, typer.Option("--grid", help="Comma-separated weights to try (default: 0 ... 10, 18 values).")] = None,
    results_dir: Annotated[Path, typer.Option("--results-dir", help="Where the development runs are kept (reused when rerun).")] = Path("runs/dev/results"),
    force: Annotated[bool, typer.Option("--force", help="Replace an existing YAML at --out.")] = False,
    device: Annotated[str, typer.Option("--device", help="cpu, cuda, cuda:0, mps ...")] = "cpu",
    submissions_dir: Annotated[
        list[Path] | None, typer.Option("--submissions-dir", help="Extra folder of submission YAMLs (repeatable; also $CBENCH_SUBMISSIONS).")
    ] = None,
    data_dir: Annotated[Path | None, typer.Option("--data-dir", help=DATA_DIR_HELP)] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Only errors and the final line.")] = False,
) -> None:
    """Fit a fused reranker, z(first stage) + w * z(verifier), on development queries only, and
    write its submission YAML. The verifier runs on the development suite (its runs kept in
    --results-dir); each part's global normalisation is its mean and standard deviation over the
    development candidates; w is the largest weight of the grid whose development nDCG@10 is at most
    --budget below the first stage's. Refuses (exit 2) a development set that shares a query id with
    an evaluation suite's split of the same collection."""
    setup_logging(quiet)
    from harness.atomic import atomic_write_text
    from harness.fusion.fit import DEFAULT_GRID, RULE, dev_queries, dev_runs, fit
    from harness.names import NAME_PATTERN
    from harness.paths import SUBMISSIONS_DIR, portable, portable_command
    from harness.paths import data_dir as resolve_data_dir
    from harness.results import os_reason
    from harness.scorers.fusion import FusionConfig, FusionFit
    from harness.submissions import Registry
    from harness.suites.registry import resolve_suite

    try:
        import re

        weights = parse_grid(grid) if grid is not None else list(DEFAULT_GRID)
        registry = Registry(submissions_dir)
        sub = registry.get(verifier, source="--verifier")
        fs = first_stage or getattr(sub.config, "first_stage", None)
        if "first_stage" not in type(sub.config).model_fields or "rerank_depth" not in type(sub.config).model_fields:
            raise CBenchError(f"'{sub.name}' is a {sub.kind} submission, not a reranker (no first_stage / rerank_depth)", source="--verifier")
        if fs != sub.config.first_stage:  # type: ignore[attr-defined]
            raise CBenchError(
                f"'{sub.name}' reranks '{sub.config.first_stage}', not '{fs}'; cbench fuse fits a reranker over its own first stage",  # type: ignore[attr-defined]
                source="--first-stage",
            )
        first = registry.get(fs, source="--first-stage")
        fused_name = name or f"{sub.name}-fused"
        if not re.fullmatch(NAME_PATTERN, fused_name):
            raise CBenchError(f"'{fused_name}' is not a valid submission name", source="--name")
        target = out if out is not None else SUBMISSIONS_DIR / f"{fused_name}.yaml"
        existing = registry.all().get(fused_name)
        if existing is not None and existing.path is not None and existing.path.resolve() != target.resolve():
            raise CBenchError(f"a submission named '{fused_name}' already exists at {existing.path}; choose another --name", source="--name")
        if target.exists() and not force:
            raise CBenchError("exists; pass --force to replace it", source=target)
        droot = resolve_data_dir(data_dir)
        dev = resolve_suite(dev_suite, droot)
        from harness.fusion.fit import evaluation_suites

        against = evaluation_suites(droot) + [resolve_suite(t, droot) for t in test_suite or []]
        queries = dev_queries(dev, droot, against)
        if not quiet:
            excluded = "".join(f"; {n} {ds} quer{'y' if n == 1 else 'ies'} left out (text of a test query)" for ds, n in queries.excluded.items())
            err_console.print(
                f"development queries: {', '.join(f'{ds} {n}' for ds, n in queries.counts.items())}, disjoint from "
                f"{', '.join(queries.checked) or 'no evaluation split'}{excluded}",
                highlight=False,
                markup=False,
                soft_wrap=True,
            )
        firsts, seconds = dev_runs(sub, registry, dev, results_dir, device=device, progress=not quiet and sys.stderr.isatty())
        result = fit(firsts, seconds, queries.qrels, weights, budget)
        argv = ["fuse", "--verifier", sub.name, "--dev-suite", dev_suite, "--budget", f"{budget:g}"]
        if grid is not None:
            argv += ["--grid", ",".join(f"{w:g}" for w in weights)]
        if name is not None:
            argv += ["--name", fused_name]
        fit_record = FusionFit(
            rule=RULE,
            budget=budget,
            grid=weights,
            dev_suite=dev.name,
            dev_datasets=queries.counts,
            dev_queries_excluded=queries.excluded,
            dev_query_ids_sha256=queries.ids_sha256,
            first_stage_dev=result.first_stage_dev,
            verifier_dev=result.verifier_dev,
            dev=result.points,
            chosen=result.chosen,
            evaluator=f"ranx {_version('ranx')} (fuse: wsum, no per-query normalisation; evaluate: ndcg@10)",
            command=portable_command(argv),
        )
        depth = int(sub.config.rerank_depth)  # type: ignore[attr-defined]
        config = {
            "name": fused_name,
            "kind": "fusion",
            "first_stage": first.name,
            "verifier": sub.name,
            "rerank_depth": depth,
            "weight": result.chosen,
            "first_stage_norm": result.first_stage_norm.model_dump(mode="json"),
            "verifier_norm": result.verifier_norm.model_dump(mode="json"),
            "description": (
                f"{first.name} top-{depth} re-sorted by z({first.name}) + {result.chosen:g} * z({sub.name}); weight and the two global "
                f"normalisations set on {dev.name} (development queries only) by cbench fuse."
            ),
            **({"license": sub.config.license} if sub.config.license else {}),
            **({"parameters": sub.config.parameters} if sub.config.parameters is not None else {}),
            "fit": fit_record.model_dump(mode="json", by_alias=True),
        }
        FusionConfig.model_validate(config)  # what is written loads
        text = yaml_text(config, f"{dev.name}: {', '.join(f'{ds} {n}' for ds, n in queries.counts.items())}")
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(target, text)
        except OSError as e:
            raise CBenchError(f"cannot write the submission: {os_reason(e)}", source=e.filename or target) from None
    except CBenchError as e:
        fail(e)
    chosen = result.chosen_point
    out_console.print(
        f"{fused_name}: weight {result.chosen:g} (development nDCG@10 {chosen.ndcg_at_10:.4f}, first stage {result.first_stage_dev.ndcg_at_10:.4f}, "
        f"{sub.name} alone {result.verifier_dev.ndcg_at_10:.4f}; budget {budget:g}); wrote {portable(target)}",
        highlight=False,
        markup=False,
        soft_wrap=True,
    )


def fusion_curves(
    model: Annotated[list[str] | None, typer.Option("--model", "-m", help="A fusion submission (repeatable); default: every registered one.")] = None,
    results_dir: Annotated[Path | None, typer.Option("--results-dir", help="Where the parts' results are (default: leaderboard/results).")] = None,
    out: Annotated[Path | None, typer.Option("--out", help="Folder for <submission>.json (default: leaderboard/fusion).")] = None,
    retrieval: Annotated[
        str | None, typer.Option("--retrieval", help="Retrieval suite: name, YAML or BEIR folder (default: the leaderboard's retrieval axis).")
    ] = None,
    submissions_dir: Annotated[
        list[Path] | None, typer.Option("--submissions-dir", help="Extra folder of submission YAMLs (repeatable; also $CBENCH_SUBMISSIONS).")
    ] = None,
    data_dir: Annotated[Path | None, typer.Option("--data-dir", help=DATA_DIR_HELP + " The retrieval qrels.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Only errors and the final lines.")] = False,
) -> None:
    """Each fused submission's TEST curve over its weight grid, from its first stage's to its
    verifier's, computed from what the parts' results keep (runs and per-item scores; nothing is
    rescored) and drawn on the leaderboard. Never used to choose a weight: cbench fuse chose it on
    development queries. Writes <out>/<submission>.json."""
    setup_logging(quiet)
    from harness import __version__
    from harness.atomic import atomic_write_text
    from harness.fusion.curves import curves, curves_path
    from harness.fusion.fit import DEFAULT_GRID
    from harness.paths import DEFAULT_RESULTS_DIR, LEADERBOARD_DIR, portable, portable_command
    from harness.paths import data_dir as resolve_data_dir
    from harness.provenance import git_commit, now
    from harness.results import os_reason
    from harness.submissions import Registry
    from harness.suites.registry import load_suite_file, suite_files

    written: list[str] = []
    try:
        registry = Registry(submissions_dir)
        subs = [registry.get(m, source="--model") for m in model] if model else [s for s in registry.all().values() if s.kind == "fusion"]
        for sub in subs:
            if sub.kind != "fusion":
                raise CBenchError(f"'{sub.name}' is a {sub.kind} submission, not a fusion", source="--model")
        droot = resolve_data_dir(data_dir)
        shipped = {}
        for path in suite_files().values():
            try:
                suite = load_suite_file(path, droot)
            except CBenchError:
                continue
            shipped[suite.name] = suite
        facts = {n: s.facts() for n, s in shipped.items()}
        from harness.suites.registry import resolve_suite

        axis_suite = resolve_suite(retrieval, droot) if retrieval else shipped[min((f.preference, n) for n, f in facts.items() if f.role == "retrieval")[1]]
        if axis_suite.task != "retrieval":
            raise CBenchError(f"'{axis_suite.name}' is a {axis_suite.task} suite, not a retrieval suite", source="--retrieval")
        axis = axis_suite.name
        composition = [
            n
            for n, f in sorted(facts.items(), key=lambda kv: (kv[1].preference, kv[0]))
            if f.task == "nearmiss" and f.role in ("composition", "extra") and not f.superseded_by
        ]
        folder = out if out is not None else LEADERBOARD_DIR / "fusion"
        rdir = results_dir or DEFAULT_RESULTS_DIR
        argv = ["fusion-curves"]
        for sub in subs:
            cfg = sub.config
            grid = list(cfg.fit.grid) if cfg.fit is not None else list(DEFAULT_GRID)  # type: ignore[attr-defined]
            c = curves(
                cfg,  # type: ignore[arg-type]
                sub.hash,
                rdir,
                axis_suite,
                composition,
                grid,
                provenance={"cbench_version": __version__, "git_commit": git_commit(), "date": now()},
                command=portable_command([*argv, "--model", sub.name]),
            )
            target = curves_path(folder, sub.name)
            try:
                folder.mkdir(parents=True, exist_ok=True)
                atomic_write_text(target, c.model_dump_json(indent=1) + "\n")
            except OSError as e:
                raise CBenchError(f"cannot write the curve file: {os_reason(e)}", source=e.filename or target) from None
            left = "; ".join(f"{s}: {why}" for s, why in c.left_out.items())
            on = ", ".join(([axis] if c.points[0].retrieval is not None else []) + c.suites)
            written.append(f"{sub.name}: {len(c.points)} points on {on}" + (f" (left out: {left})" if left else "") + f"; wrote {portable(target)}")
    except CBenchError as e:
        fail(e)
    for line in written:
        out_console.print(line, highlight=False, markup=False, soft_wrap=True)


def _version(package: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(package)
    except PackageNotFoundError:
        return "unknown"


def register(app: typer.Typer) -> None:
    app.command("fuse")(fuse)
    app.command("fusion-curves")(fusion_curves)
