"""What the machine is and was doing while it was timed: CPU model, threads, load average."""

from __future__ import annotations

import os
import platform
from pathlib import Path

CPUINFO = Path("/proc/cpuinfo")


def cpu_model(cpuinfo: Path = CPUINFO) -> str:
    """The first ``model name`` of /proc/cpuinfo (Linux), else what ``platform`` knows."""
    try:
        for line in cpuinfo.read_text(encoding="utf-8", errors="replace").splitlines():
            key, sep, value = line.partition(":")
            if sep and key.strip() in {"model name", "Model", "cpu model"} and value.strip():
                return " ".join(value.split())
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def load_average() -> tuple[float, float, float]:
    """1, 5 and 15 minute load averages; zeros where the system has none (Windows)."""
    try:
        one, five, fifteen = os.getloadavg()
    except (OSError, AttributeError):
        return (0.0, 0.0, 0.0)
    return (round(one, 2), round(five, 2), round(fifteen, 2))


def torch_threads() -> int:
    import torch

    return torch.get_num_threads()
