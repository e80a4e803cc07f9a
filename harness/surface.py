"""Surface-form similarities: the features that control scorers use and the generator balances.

Each function maps two texts to a number where higher means "more alike on the surface". None
reads for meaning; a composition suite on which one of them (or its negation) beats chance is
measuring its generator, not composition (``docs/validity.md``; as SugarCrepe, arXiv 2306.14610,
showed for ARO and CREPE); ``tests/suites/test_nearmiss_validity.py`` holds cbench's suites to that.

Words are lower-cased runs of letters/digits (an apostrophe inside a word is kept: "doesn't").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from difflib import SequenceMatcher
from functools import lru_cache

import numpy as np

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


@lru_cache(maxsize=1 << 16)
def _words(text: str) -> tuple[str, ...]:
    return tuple(_WORD.findall(text.lower()))


def words(text: str) -> list[str]:
    return list(_words(text))


def jaccard(a: str, b: str) -> float:
    """Word-set Jaccard."""
    sa, sb = set(_words(a)), set(_words(b))
    return len(sa & sb) / len(sa | sb) if sa | sb else 1.0


def seqratio(a: str, b: str) -> float:
    """difflib's ratio over the word sequences (order-aware)."""
    return SequenceMatcher(None, _words(a), _words(b), autojunk=False).ratio()


@lru_cache(maxsize=1 << 16)
def _grams(text: str, n: int = 3) -> frozenset[str]:
    t = " ".join(_words(text))
    return frozenset(t[i : i + n] for i in range(max(1, len(t) - n + 1)))


def char3(a: str, b: str) -> float:
    """Character 3-gram set Jaccard over the normalised word string."""
    ga, gb = _grams(a), _grams(b)
    return len(ga & gb) / len(ga | gb) if ga | gb else 1.0


def prefix(a: str, b: str) -> float:
    """Number of leading words in common."""
    n = 0
    for x, y in zip(_words(a), _words(b), strict=False):
        if x != y:
            break
        n += 1
    return float(n)


def length(a: str, b: str) -> float:
    """Minus the difference in word count (equal length = most alike)."""
    return -float(abs(len(_words(a)) - len(_words(b))))


PAIRWISE: dict[str, Callable[[str, str], float]] = {
    "jaccard": jaccard,
    "seqratio": seqratio,
    "char3": char3,
    "prefix": prefix,
    "length": length,
}
FEATURES = (*PAIRWISE, "bm25")


def bm25_pairs(a: list[str], b: list[str]) -> np.ndarray:
    """BM25 of b[i] for query a[i], normalised by a[i]'s own score, over an index of the pair
    texts: the ``lexical`` kind's pair score with its default settings."""
    from harness.run_context import RunContext
    from harness.scorers.lexical import LexicalConfig, LexicalScorer

    return LexicalScorer(LexicalConfig(name="surface-bm25", kind="lexical"), RunContext()).score_pairs(list(a), list(b))


def feature_pairs(feature: str, a: list[str], b: list[str]) -> np.ndarray:
    """The feature for every pair (a[i], b[i])."""
    if feature == "bm25":
        return bm25_pairs(a, b)
    fn = PAIRWISE[feature]
    return np.array([fn(x, y) for x, y in zip(a, b, strict=True)], dtype=np.float64)
