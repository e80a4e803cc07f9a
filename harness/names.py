"""The names that become results paths (submissions, suites, datasets): one pattern for all."""

from __future__ import annotations

NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$"
