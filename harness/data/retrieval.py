"""Retrieval datasets: BEIR-layout records, a validating BEIR folder loader, the in-memory form."""

from __future__ import annotations

import csv
import logging
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from harness.errors import CBenchError, validation_error
from harness.jsonfile import loads_line

log = logging.getLogger("cbench")


class CorpusRecord(BaseModel):
    """One line of corpus.jsonl."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)
    id: str = Field(alias="_id", min_length=1)
    title: str = ""
    text: str


class QueryRecord(BaseModel):
    """One line of queries.jsonl."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)
    id: str = Field(alias="_id", min_length=1)
    text: str


class QrelRecord(BaseModel):
    """One row of qrels/<split>.tsv."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    query_id: str = Field(alias="query-id", min_length=1)
    corpus_id: str = Field(alias="corpus-id", min_length=1)
    score: int


def document_text(title: str | None, text: str | None) -> str:
    """MTEB's convention, character for character, for a document with a title:
    ``(title + " " + text).strip()`` (mteb's RetrievalEvaluator; SciFact has 15 titles that end in
    spaces, and their inner spaces are kept, as MTEB keeps them). Without a title the text is kept
    as it is, as sentence-transformers' NanoBEIREvaluator keeps it (a text of spaces stays one);
    MTEB would strip it, which changes no token."""
    title = title or ""
    text = text or ""
    return f"{title} {text}".strip() if title else text


@dataclass
class RetrievalData:
    name: str
    corpus: dict[str, str]  # doc id -> text as encoded
    queries: dict[str, str]  # only queries that have qrels
    qrels: dict[str, dict[str, int]]
    source: str  # folder or hub id
    revision: str | None = None
    notes: list[str] = field(default_factory=list)

    def limit_queries(self, n: int | None) -> RetrievalData:
        if n is None or n >= len(self.queries):
            return self
        keep = sorted(self.queries)[:n]
        return RetrievalData(
            self.name,
            self.corpus,
            {q: self.queries[q] for q in keep},
            {q: self.qrels[q] for q in keep},
            self.source,
            self.revision,
            [*self.notes, f"limited to the first {n} queries by id"],
        )


def read_jsonl(path: Path, model: type[BaseModel]) -> list[BaseModel]:
    if not path.is_file():
        raise CBenchError("file not found", source=path)
    out: list[BaseModel] = []
    with open(path, "rb") as f:
        for n, raw in enumerate(f, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                raise CBenchError(f"not valid UTF-8 (byte {e.start})", source=path, field=f"line {n}") from None
            if not line.strip():
                continue
            obj = loads_line(line, path, n)
            if not isinstance(obj, dict):
                raise CBenchError("expected a JSON object", source=path, field=f"line {n}")
            try:
                out.append(model.model_validate(obj))
            except ValidationError as e:
                raise validation_error(e, path, within=f"line {n}", root="(line)") from None
    return out


def read_qrels_tsv(path: Path) -> list[QrelRecord]:
    if not path.is_file():
        raise CBenchError("file not found", source=path)
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as e:
        raise CBenchError(f"not valid UTF-8 (byte {e.start})", source=path) from None
    rows = list(csv.reader(text.splitlines(), delimiter="\t", quoting=csv.QUOTE_NONE))
    if not rows:
        raise CBenchError("empty qrels file", source=path)
    header = [h.strip() for h in rows[0]]
    if header[:3] != ["query-id", "corpus-id", "score"]:
        raise CBenchError(f"header must be 'query-id<TAB>corpus-id<TAB>score', got {'<TAB>'.join(header)!r}", source=path, field="line 1")
    out = []
    for n, row in enumerate(rows[1:], start=2):
        if not row or all(not c.strip() for c in row):
            continue
        if len(row) != 3:
            raise CBenchError(f"expected 3 tab-separated columns, got {len(row)}", source=path, field=f"line {n}")
        try:
            out.append(QrelRecord.model_validate({"query-id": row[0].strip(), "corpus-id": row[1].strip(), "score": row[2].strip()}))
        except ValidationError as e:
            raise validation_error(e, path, within=f"line {n}", root="(line)") from None
    return out


def assemble(
    name: str,
    docs: list[tuple[str, str, str]],
    queries: list[tuple[str, str]],
    qrels: list[tuple[str, str, int]],
    *,
    source: str,
    sources: tuple[str, str, str],
    revision: str | None = None,
    drop_empty_docs: bool = False,
    blank_queries_ok: bool = False,
    strict_qrels: bool = True,
) -> RetrievalData:
    """Check ids and cross-references and build RetrievalData.

    ``docs`` = (id, title, text); ``sources`` names the corpus, queries and qrels files for
    errors. Duplicate ids and qrels naming unknown documents are errors; queries without qrels
    are dropped (BEIR convention) with a warning; qrels naming unknown queries are ignored with
    a warning. ``drop_empty_docs`` drops documents whose text is the empty string and
    ``blank_queries_ok`` keeps whitespace-only queries (NanoBEIREvaluator's conventions).
    """
    corpus_src, queries_src, qrels_src = sources
    corpus: dict[str, str] = {}
    for doc_id, title, text in docs:
        if doc_id in corpus:
            raise CBenchError(f"duplicate document id '{doc_id}'", source=corpus_src, field="_id")
        corpus[doc_id] = document_text(title, text)
    if drop_empty_docs:
        corpus = {k: v for k, v in corpus.items() if len(v) > 0}
    if not corpus:
        raise CBenchError("corpus is empty", source=corpus_src)
    qtexts: dict[str, str] = {}
    for qid, text in queries:
        if qid in qtexts:
            raise CBenchError(f"duplicate query id '{qid}'", source=queries_src, field="_id")
        if not (text if blank_queries_ok else text.strip()):
            raise CBenchError(f"query '{qid}' has empty text", source=queries_src, field="text")
        qtexts[qid] = text
    judged: dict[str, dict[str, int]] = {}
    unknown_q: set[str] = set()
    known_docs = {d for d, _, _ in docs}
    unknown_docs = 0
    for qid, did, score in qrels:
        if did not in known_docs:
            if strict_qrels:
                raise CBenchError(f"corpus-id '{did}' (query '{qid}') is not in the corpus", source=qrels_src, field="corpus-id")
            unknown_docs += 1
        if qid not in qtexts:
            unknown_q.add(qid)
            continue
        if did in judged.get(qid, {}):
            raise CBenchError(f"duplicate judgement for query '{qid}', document '{did}'", source=qrels_src, field="corpus-id")
        judged.setdefault(qid, {})[did] = score
    notes = []
    if unknown_docs:
        notes.append(f"{unknown_docs} qrels name documents that are not in the corpus; they count as unretrieved")
    if unknown_q:
        notes.append(f"{len(unknown_q)} qrels query ids are not in the queries file; ignored")
    unjudged = [q for q in qtexts if q not in judged]
    if unjudged:
        notes.append(f"{len(unjudged)} queries have no qrels; dropped (BEIR convention)")
    kept = {q: t for q, t in qtexts.items() if q in judged}
    if not kept:  # before the warnings: a fatal error is reported in one line
        why = f" ({len(unknown_q)} qrels query ids are not in {queries_src})" if unknown_q else ""
        raise CBenchError(f"no query has relevance judgements{why}", source=qrels_src)
    for note in notes:
        log.warning("%s: %s", name, note)
    return RetrievalData(name, corpus, kept, {q: judged[q] for q in kept}, source, revision, notes)


def load_beir_folder(folder: Path, name: str | None = None, split: str = "test") -> RetrievalData:
    """A BEIR folder: corpus.jsonl, queries.jsonl, qrels/<split>.tsv."""
    folder = folder.expanduser()
    if not folder.is_dir():
        raise CBenchError("BEIR folder not found", source=folder)
    corpus_p, queries_p, qrels_p = folder / "corpus.jsonl", folder / "queries.jsonl", folder / "qrels" / f"{split}.tsv"
    docs = [(r.id, r.title, r.text) for r in read_jsonl(corpus_p, CorpusRecord)]  # type: ignore[attr-defined]
    queries = [(r.id, r.text) for r in read_jsonl(queries_p, QueryRecord)]  # type: ignore[attr-defined]
    qrels = [(r.query_id, r.corpus_id, r.score) for r in read_qrels_tsv(qrels_p)]
    return assemble(
        name or folder.name,
        docs,
        queries,
        qrels,
        source=str(folder),
        sources=(str(corpus_p), str(queries_p), str(qrels_p)),
    )
