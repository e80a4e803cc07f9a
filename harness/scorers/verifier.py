"""`kind: verifier` - a first stage plus a verifier over the query x candidate token cosine map.

Token embeddings are the last hidden states of a named encoder submission (special tokens
included, truncated to ``max_length``), as in the reference experiment. Retrieval: the first
stage's top ``rerank_depth`` per query are re-scored by the verifier and re-sorted (documents
outside that depth are never considered). Near-miss pairs: s(a, b) = verifier(a as query, b as
candidate); query-document pairs (``score_query_docs``): verifier(query, document) directly, as in
reranking, with no first stage (the suite gives the candidates). Token embeddings are cached (fp16) like pooled ones, so a second verifier over the
same encoder encodes nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import numpy as np
import torch
from pydantic import Field

from harness.errors import CBenchError
from harness.run_context import RunContext
from harness.scorers.base import DocumentStore, Retrieval, Scorer, SubmissionBase, store_key
from harness.scorers.encoder import EncoderScorer
from harness.search import rank


class VerifierConfig(SubmissionBase):
    kind: Literal["verifier"]
    first_stage: str = Field(min_length=1, description="submission whose top rerank_depth are re-scored")
    encoder: str = Field(min_length=1, description="encoder submission whose token embeddings build the map")
    arch: Literal["mean", "maxsim", "align", "cnn", "transformer"]
    checkpoint: str | None = Field(default=None, description="trained verifier folder (relative: to the submission file)")
    max_length: int = Field(default=128, gt=0, le=512)
    rerank_depth: int = Field(default=100, gt=0, le=10_000)
    batch_size: int = Field(default=64, gt=0, le=4096)


class VerifierScorer(Scorer):
    kind = "verifier"
    Config = VerifierConfig
    colour = "#8c564b"  # leaderboard plot
    parts = ("first_stage", "encoder")

    def __init__(
        self,
        config: VerifierConfig,
        ctx: RunContext,
        base_dir: Path | None = None,
        *,
        path: Path | None = None,
        first_stage: Scorer,
        encoder: Scorer,
    ):
        super().__init__(config, ctx, base_dir, path=path)
        self.cfg = config
        self._verifier = None
        # both built by harness.submissions.registry.build_submission_scorer
        if not isinstance(encoder, EncoderScorer):
            raise CBenchError(f"'{config.encoder}' is not an encoder submission", source=f"submission {config.name}", field="encoder")
        if encoder.cfg.backend != "torch":  # token embeddings come from the torch model's hidden states
            raise CBenchError(
                f"encoder '{config.encoder}' uses backend {encoder.cfg.backend}; token embeddings need backend torch",
                source=f"submission {config.name}",
                field="encoder",
            )
        self.encoder = encoder
        self.first_stage = first_stage

    # -- parts -----------------------------------------------------------------------------
    @property
    def verifier(self):
        if self._verifier is None:
            from harness.simmap_nets.archs import build_verifier
            from harness.simmap_nets.train import load_verifier

            if self.cfg.checkpoint:
                folder = self.local_path(self.cfg.checkpoint)
                if not (folder / "config.json").is_file():
                    raise CBenchError(f"no trained verifier at {folder} (config.json missing)", source=f"submission {self.cfg.name}", field="checkpoint")
                v = load_verifier(folder)
                if v.arch != self.cfg.arch:
                    raise CBenchError(f"checkpoint holds arch '{v.arch}', not '{self.cfg.arch}'", source=f"submission {self.cfg.name}", field="checkpoint")
            else:
                if self.cfg.arch in {"cnn", "transformer"}:
                    raise CBenchError(f"arch '{self.cfg.arch}' needs a trained checkpoint", source=f"submission {self.cfg.name}", field="checkpoint")
                v = build_verifier(self.cfg.arch)
            self._verifier = v.eval()
        return self._verifier

    # -- token embeddings ------------------------------------------------------------------
    def token_spec(self) -> dict:
        return {"kind": "encoder-tokens", "weights": self.encoder.weights_fingerprint, "max_length": self.cfg.max_length, "dtype": "float16"}

    def token_rows(self, texts: list[str], label: str = "token embeddings") -> list[np.ndarray]:
        """(tokens, dim) float16 per text, through the embedding cache (as stored)."""
        from harness.simmap_nets.tokens import encode_tokens

        def encode(batch: list[str]) -> list[np.ndarray]:
            embs = encode_tokens(self.encoder.model, batch, max_length=self.cfg.max_length, batch_size=self.encoder.cfg.batch_size)
            return [e.detach().cpu().numpy().astype(np.float16) for e in embs]

        return self.cached_rows(self.token_spec(), texts, encode, label)

    def tokens(self, texts: list[str], label: str = "token embeddings") -> list[torch.Tensor]:
        return [torch.from_numpy(r.astype(np.float32)) for r in self.token_rows(texts, label)]

    def index_documents(self, corpus: dict[str, str]) -> DocumentStore | None:
        """The encoder's token embeddings of every document (special tokens included, at most
        ``max_length``), float16 as cached and read when reranking: tokens x dim x 2 bytes. The first
        stage's index is its own part (``index_parts``)."""
        rows = self.token_rows(list(corpus.values()), "index: document token embeddings")
        tokens = sum(int(r.shape[0]) for r in rows)
        dim = int(rows[0].shape[1]) if rows else 0
        mean = tokens / len(rows) if rows else 0.0
        dtype = rows[0].dtype if rows else np.dtype(np.float16)
        what = f"document token embeddings {dtype} (mean {mean:.0f} tokens x {dim} dims)"
        return DocumentStore(what, sum(int(r.nbytes) for r in rows), len(rows), store_key("tokens", self.token_spec()))

    def _score(self, a: list[str], b: list[str]) -> np.ndarray:
        from harness.simmap_nets.simmap import score_pairs

        uniq = list(dict.fromkeys(a + b))
        embs = dict(zip(uniq, self.tokens(uniq), strict=True))
        return score_pairs(self.verifier, [embs[t] for t in a], [embs[t] for t in b], batch_size=self.cfg.batch_size)

    # -- Scorer ----------------------------------------------------------------------------
    def retrieve(self, queries: dict[str, str], corpus: dict[str, str], top_k: int) -> Retrieval:
        first = self.first_stage.retrieve(queries, corpus, self.cfg.rerank_depth).run
        pairs = [(qid, did) for qid, docs in first.items() for did in docs]
        scores = self._score([queries[q] for q, _ in pairs], [corpus[d] for _, d in pairs]) if pairs else np.zeros(0)
        run: dict[str, dict[str, float]] = {qid: {} for qid in first}
        for (qid, did), s in zip(pairs, scores, strict=True):
            run[qid][did] = float(s)
        return Retrieval({qid: rank(docs, top_k) for qid, docs in run.items()}, first_stage_run=first)

    def score_pairs(self, a: list[str], b: list[str]) -> np.ndarray:
        return self._score(a, b)

    def score_query_docs(self, queries: list[str], docs: list[str]) -> np.ndarray:
        """verifier(query as query, document as candidate), as it reranks; the first stage is not
        run (the suite names the candidates)."""
        return self._score(queries, docs)

    def fingerprints(self) -> dict[str, str]:
        from harness.model_refs import folder_fingerprint

        out = {"encoder": self.encoder.weights_fingerprint}
        if self.cfg.checkpoint:
            out["checkpoint"] = folder_fingerprint(self.local_path(self.cfg.checkpoint))
        out.update({f"first_stage.{k}": v for k, v in self.first_stage.fingerprints().items()})
        return out

    def info(self) -> dict[str, Any]:
        v = self.verifier
        return {
            "first_stage": self.cfg.first_stage,
            "first_stage_info": self.first_stage.info(),
            "rerank_depth": self.cfg.rerank_depth,
            "verifier": self.cfg.arch,
            "verifier_parameters": sum(p.numel() for p in v.parameters()),
            "checkpoint": self.cfg.checkpoint,
            "encoder": self.cfg.encoder,
            "token_max_length": self.cfg.max_length,
            "weights_fingerprint": self.encoder.weights_fingerprint,
        }
