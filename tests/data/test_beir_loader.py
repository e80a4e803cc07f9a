import pytest

from cbench_testutil import MEDLINE, write_beir
from harness.data.retrieval import load_beir_folder
from harness.errors import CBenchError


def test_tiny_folder(tiny_beir):
    data = load_beir_folder(tiny_beir)
    assert data.name == "tiny"
    assert data.corpus["d1"] == "Cats Cats are small domesticated felines that purr."  # title + " " + text
    assert data.corpus["d2"] == "The stock market fell sharply on Monday after the bank report."  # no title
    assert set(data.queries) == {"q1", "q2", "q3"}  # q4 has no qrels: dropped
    assert data.qrels["q3"] == {"d4": 1, "d6": 0}
    assert any("no qrels" in n for n in data.notes)


def test_duplicate_ids_and_unknown_docs_are_errors(tmp_path):
    folder = write_beir(tmp_path / "bad", {"d1": ("", "x"), "d2": ("", "y")}, {"q1": "x"}, [("q1", "nope", 1)])
    with pytest.raises(CBenchError, match="corpus-id 'nope'"):
        load_beir_folder(folder)
    (folder / "corpus.jsonl").write_text('{"_id": "d1", "text": "x"}\n{"_id": "d1", "text": "y"}\n')
    with pytest.raises(CBenchError, match="duplicate document id 'd1'"):
        load_beir_folder(folder)


def test_bad_lines_name_file_and_line(tmp_path, tiny_beir):
    with open(tiny_beir / "corpus.jsonl", "a") as f:
        f.write('{"_id": "d9"}\n')
    with pytest.raises(CBenchError) as e:
        load_beir_folder(tiny_beir)
    assert e.value.line.startswith(f"{tiny_beir / 'corpus.jsonl'}: line 7: text:")


@pytest.mark.skipif(not MEDLINE.is_dir(), reason="shared medline data not present")
def test_same_as_beir_generic_data_loader():
    from beir.datasets.data_loader import GenericDataLoader

    corpus, queries, qrels = GenericDataLoader(str(MEDLINE)).load(split="test")
    data = load_beir_folder(MEDLINE)
    assert set(data.corpus) == set(corpus) and len(data.corpus) == 1033
    for did, doc in corpus.items():
        title = doc.get("title", "")
        assert data.corpus[did] == (f"{title} {doc['text']}" if title else doc["text"])
    assert data.queries == queries
    assert data.qrels == qrels
