"""Extra CLI commands, each module exposing ``register(app)``; cli.py calls them all."""

from __future__ import annotations

import importlib

import typer

# Modules under harness.commands that add commands to the app. One line per module.
COMMAND_MODULES = [
    "leaderboard",
    "verifier",
    "distill",
    "finetune",
    "compare",
    "models",
    "results",
    "cost",
    "fuse",
]


def register_all(app: typer.Typer) -> None:
    for name in COMMAND_MODULES:
        importlib.import_module(f"harness.commands.{name}").register(app)
