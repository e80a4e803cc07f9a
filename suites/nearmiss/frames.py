"""Frames of the near-miss v2 generator: the file format (pydantic) and how a frame renders.

A frame is one declarative record in ``suites/nearmiss/frames/<category>.yaml`` (see FRAMES.md):
two *sides* (two meanings that differ by the category's minimal edit), each written as a
``text`` (the plain form) and one or more ``far`` forms (the same meaning restructured; the
i-th far form of both sides is the same restructuring). Templates use

* ``{slot}``: a filler drawn from a pool (``pools.yaml`` or the file's own ``pools:``) or
  from an inline list; two slots naming the same pool get different fillers;
* ``[x|y]``: a meaning-preserving alternation (synonyms, contractions, "3"/"three"). Every
  text of an item uses the same choice per group, except ``pos_close``, which flips one;
* ``a(n)``: the indefinite article, written "a" or "an" by the word that follows.

A frame belongs to one split: ``test`` or ``train`` (both in nearmiss-v2.jsonl) or ``dev``
(nearmiss-v2-dev.jsonl, for setting thresholds). A pool holds disjoint fillers per split.

Rendering is pure and deterministic given the slot fillers and alternation choices.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

CATEGORIES = ("negation", "role_swap", "attribute_binding", "spatial", "quantity", "comparative", "temporal_order")
SPLITS = ("test", "train")  # the splits of nearmiss-v2.jsonl
DEV = "dev"  # development data (thresholds): its own file, nearmiss-v2-dev.jsonl
ALL_SPLITS = (*SPLITS, DEV)
Style = Literal["statement", "question", "request"]

SLOT = re.compile(r"\{([a-z][a-z0-9_]*)\}")
ALT = re.compile(r"\[([^\[\]]*\|[^\[\]]*)\]")
ARTICLE = re.compile(r"\b([Aa])\(n\)(\s+)(\S+)")
FRAME_ID = r"^[a-z0-9][a-z0-9_-]{2,80}$"

# "an" before these (vowel sound) although they start with a consonant letter, and "a" before
# these although they start with a vowel letter.
_AN_EXCEPTIONS = ("hour", "honest", "honor", "honour", "heir", "8", "11", "18", "80")
_A_EXCEPTIONS = ("uni", "use", "usu", "uti", "eu", "one", "once", "ur", "ubi", "uk")


class Pool(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    test: list[str] = Field(default_factory=list)
    train: list[str] = Field(default_factory=list)
    dev: list[str] = Field(default_factory=list, description="fillers for dev frames (none: dev frames cannot use the pool)")

    @model_validator(mode="after")
    def _disjoint(self) -> Pool:
        # a test/train pool has both halves (and may add dev fillers); a dev-only pool has only dev
        if (self.test or self.train or not self.dev) and (len(self.test) < 2 or len(self.train) < 2):
            raise ValueError("test and train need at least 2 fillers each (a pool for dev frames only: just dev)")
        if len(self.dev) == 1:
            raise ValueError("dev needs at least 2 fillers (or none)")
        for x, y in (("test", "train"), ("test", "dev"), ("train", "dev")):
            shared = set(map(str.lower, getattr(self, x))) & set(map(str.lower, getattr(self, y)))
            if shared:
                raise ValueError(f"{x} and {y} fillers overlap: {sorted(shared)[:5]}")
        for v in self.test + self.train + self.dev:
            if "{" in v or "}" in v:
                raise ValueError(f"a filler cannot hold a slot: {v!r}")
        return self


class Side(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    text: str = Field(min_length=3, description="plain form of this meaning")
    far: list[str] = Field(min_length=1, description="restructured forms (same meaning)")

    @field_validator("far", mode="before")
    @classmethod
    def _one_or_many(cls, v):
        return [v] if isinstance(v, str) else v


class Frame(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str = Field(pattern=FRAME_ID)
    split: Literal["test", "train", "dev"]
    domain: str = Field(pattern=r"^[a-z][a-z_]{1,30}$")
    style: Style
    slots: dict[str, str | list[str]] = Field(default_factory=dict, description="slot -> pool name or inline fillers")
    sides: list[Side] = Field(min_length=2, max_length=2)
    note: str | None = None

    @model_validator(mode="after")
    def _consistent(self) -> Frame:
        a, b = self.sides
        if len(a.far) != len(b.far):
            raise ValueError("both sides need the same number of far forms (the i-th far forms are one restructuring)")
        if a.text == b.text:
            raise ValueError("the two sides have the same text")
        for name, spec in self.slots.items():
            if isinstance(spec, list) and len(spec) < 2:
                raise ValueError(f"slot '{name}': an inline list needs at least 2 fillers")
        templates = [a.text, b.text, *a.far, *b.far]
        for t in templates:
            for s in SLOT.findall(t):
                if s not in self.slots:
                    raise ValueError(f"template uses undeclared slot {{{s}}}: {t!r}")
        for side in (a, b):
            if not ALT.search(side.text):
                raise ValueError(f"side text has no [x|y] alternation (pos_close needs one): {side.text!r}")
        return self


class FrameFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    category: Literal[CATEGORIES]  # type: ignore[valid-type]
    pools: dict[str, Pool] = Field(default_factory=dict)
    frames: list[Frame] = Field(min_length=1)


class PoolsFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    pools: dict[str, Pool]


class FrameError(ValueError):
    """A frame or pool file that does not validate: message names the file and field."""


def _load_yaml(path: Path, model: type[BaseModel]) -> BaseModel:
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as e:
        raise FrameError(f"{path}: invalid YAML: {e}") from None
    try:
        return model.model_validate(raw)
    except ValidationError as e:
        err = e.errors()[0]
        loc = ".".join(str(p) for p in err["loc"])
        raise FrameError(f"{path}: {loc}: {err['msg']}") from None


def load_frames(
    frames_dir: Path, pools_path: Path, categories: tuple[str, ...] = CATEGORIES
) -> tuple[dict[str, Pool], list[tuple[str, Frame, dict[str, Pool]]]]:
    """Global pools and every (category, frame, file pools) from ``frames_dir/<category>.yaml``."""
    pools = _load_yaml(pools_path, PoolsFile).pools  # type: ignore[attr-defined]
    out: list[tuple[str, Frame, dict[str, Pool]]] = []
    seen: dict[str, Path] = {}
    for path in sorted(frames_dir.glob("*.yaml")):
        if path.stem not in categories:
            continue
        ff: FrameFile = _load_yaml(path, FrameFile)  # type: ignore[assignment]
        if ff.category != path.stem:
            raise FrameError(f"{path}: category: '{ff.category}' in a file named {path.name}")
        for i, fr in enumerate(ff.frames):
            if fr.id in seen:
                raise FrameError(f"{path}: frames.{i}.id: '{fr.id}' also in {seen[fr.id].name}")
            seen[fr.id] = path
            for name, spec in fr.slots.items():
                if isinstance(spec, str) and spec not in ff.pools and spec not in pools:
                    raise FrameError(f"{path}: frames.{i}.slots.{name}: unknown pool '{spec}'")
            out.append((ff.category, fr, ff.pools))
    return pools, out


# -- rendering --------------------------------------------------------------------------------


def alternation_groups(text: str) -> list[str]:
    """The [x|y] groups of a text, in order of first appearance (group key = inner text)."""
    seen: list[str] = []
    for g in ALT.findall(text):
        if g not in seen:
            seen.append(g)
    return seen


def fill_slots(template: str, fillers: dict[str, str]) -> str:
    return SLOT.sub(lambda m: fillers[m.group(1)], template)


def resolve(text: str, choices: dict[str, int]) -> str:
    """Replace every [x|y] group by its chosen option, then tidy the sentence."""
    out = ALT.sub(lambda m: m.group(1).split("|")[choices.get(m.group(1), 0)], text)
    return tidy(out)


def _article(m: re.Match) -> str:
    a, space, word = m.group(1), m.group(2), m.group(3)
    w = word.lower().lstrip("\"'(")
    vowel = w[:1] in set("aeiou")
    if w.startswith(_AN_EXCEPTIONS):
        vowel = True
    elif w.startswith(_A_EXCEPTIONS):
        vowel = False
    return (a + "n" if vowel else a) + space + word


@lru_cache(maxsize=1 << 16)
def tidy(text: str) -> str:
    text = ARTICLE.sub(_article, text)
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"\s+([,.;:?!])", r"\1", text)
    return text[:1].upper() + text[1:]
