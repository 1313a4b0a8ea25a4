"""TREC files, DataFrames and dicts read into ndcg_nb's columnar form: categorical ids, exact errors for big files."""
import gzip

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from ndcg_nb.engine.runs import SAMPLE_QRELS, SAMPLE_RUN, TrecFormatError, as_qrels, as_run, read_qrels, read_run

RUN = "q1 Q0 d1 1 2.5 tag\nq1 Q0 d2 2 1.5 tag\nq2 Q0 d1 1 0.5 tag\n"
ROWS = [["q1", "d1", 2.5, 0], ["q1", "d2", 1.5, 1], ["q2", "d1", 0.5, 2]]


def write(tmp_path, text, name="x.run", compress=False):
    data = text.encode() if isinstance(text, str) else text
    path = tmp_path / name
    path.write_bytes(gzip.compress(data) if compress else data)
    return path


def rows(frame):
    "query, doc, value and order (if any) as plain Python values."
    columns = [c for c in frame.columns if c != "line"]
    return frame[columns].astype({"query": str, "doc": str}).values.tolist()


def big_run(n=150_000):
    "A regular run of `n` lines, 100 documents per query."
    return [f"{i // 100} Q0 doc-{i} {i % 100 + 1} {(i % 7) / 2} big" for i in range(n)]


def check_form(frame, value):
    assert list(frame.columns) == (["query", "doc", "relevance", "line"] if value == "relevance"
                                   else ["query", "doc", "score", "order", "line"])
    for column in ("query", "doc"):
        ids = frame[column]
        assert isinstance(ids.dtype, pd.CategoricalDtype)
        assert pd.api.types.is_string_dtype(ids.cat.categories)
        assert ids.cat.categories.is_unique
        assert ids.cat.codes.dtype.itemsize <= 4
    assert frame[value].dtype == np.float64
    assert frame["line"].dtype == np.int64
    if value == "score":
        assert frame["order"].tolist() == list(range(len(frame)))
    assert "source" in frame.attrs


@pytest.mark.parametrize("make", [
    lambda tmp_path: read_run(write(tmp_path, RUN)),
    lambda tmp_path: read_run(SAMPLE_RUN),
    lambda tmp_path: as_run(pd.DataFrame({"query": [1, 1, 2], "doc": ["a", "b", "a"], "score": [1, 2, 3]})),
    lambda tmp_path: as_run({"q1": {"a": 1.0, "b": 2}, 7: {"a": 0.5}}),
])
def test_run_frames_are_categorical(tmp_path, make):
    check_form(make(tmp_path), "score")


def test_qrels_frames_are_categorical(tmp_path):
    check_form(read_qrels(SAMPLE_QRELS), "relevance")
    check_form(as_qrels(pd.DataFrame({"query": ["1"], "doc": [3], "relevance": [1]})), "relevance")
    check_form(as_qrels({1: {2: 3}}), "relevance")


@pytest.mark.parametrize("text, lines", [
    (RUN, [1, 2, 3]),
    (RUN.replace(" ", "\t"), [1, 2, 3]),                                   # tabs
    (RUN.replace(" ", "   "), [1, 2, 3]),                                  # several spaces
    ("".join("  " + line + "  \n" for line in RUN.splitlines()), [1, 2, 3]),   # leading and trailing spaces
    (RUN.replace("tag\n", "tag and more words\n"), [1, 2, 3]),              # text after the last field
    ("\n" + RUN.replace("\n", "\n\n"), [2, 4, 6]),                          # blank lines
    (RUN.replace("\n", "\r\n"), [1, 2, 3]),                                # CRLF
    (RUN.replace(" 2.5", "\t  2.5 ").replace("Q0", "Q0\t"), [1, 2, 3]),     # tabs among spaces (trec_eval's results.test)
    (RUN.rstrip("\n"), [1, 2, 3]),                                         # no final line break
])
def test_irregular_whitespace(tmp_path, text, lines):
    run = read_run(write(tmp_path, text))
    assert rows(run) == ROWS
    assert run["line"].tolist() == lines
    assert run.attrs["tag"] == "tag"
    gz = read_run(write(tmp_path, text, "x.run.gz", compress=True))
    assert rows(gz) == ROWS and gz["line"].tolist() == lines


def test_gzip_detected_by_content_not_name(tmp_path):
    assert rows(read_run(write(tmp_path, RUN, "plain-name.txt", compress=True))) == ROWS
    qrels = read_qrels(write(tmp_path, "1 0 d1 2\n1 0 d2 0\n", "q.gz", compress=True))
    assert rows(qrels) == [["1", "d1", 2.0], ["1", "d2", 0.0]]


def test_empty_field_is_not_read_as_the_next_one(tmp_path):
    # one space too many and the tag missing: six space-separated columns, but not the six fields
    with pytest.raises(TrecFormatError, match=r"line 2: expected 6 fields \(query q0 doc rank score tag\), found 5"):
        read_run(write(tmp_path, "q1 Q0 d1 1 2.5 tag\nq1  Q0 d2 2 1.5\n"))
    with pytest.raises(TrecFormatError, match="line 1: expected 4 fields"):
        read_qrels(write(tmp_path, "1\t\td1\t1\n", "q"))


def test_big_file_short_line_names_file_and_line(tmp_path):
    lines = big_run()
    lines[123_456] = "1234 Q0 doc-123456 57 0.5"   # the tag is missing
    path = write(tmp_path, "\n".join(lines) + "\n", "big.run")
    with pytest.raises(TrecFormatError) as error:
        read_run(path)
    assert str(error.value) == (f"{path}, line 123457: expected 6 fields (query q0 doc rank score tag), "
                                "found 5: '1234 Q0 doc-123456 57 0.5'")


def test_big_gzip_file_bad_score_names_line(tmp_path):
    lines = big_run()
    lines[140_000] = "1400 Q0 doc-140000 1 0,5 big"
    path = write(tmp_path, "\n".join(lines) + "\n", "big.run.gz", compress=True)
    with pytest.raises(TrecFormatError, match=r"big.run.gz, line 140001: score '0,5' is not a finite number "
                                              r"\(query '1400', document 'doc-140000'\)"):
        read_run(path)


def test_big_file_long_line_and_blank_line(tmp_path):
    lines = big_run()
    lines[100_000] += " trailing words"   # read; the extra words are ignored
    lines.insert(120_000, "")             # blank: later line numbers move by one
    run = read_run(write(tmp_path, "\n".join(lines) + "\n", "big.run"))
    assert len(run) == 150_000
    assert rows(run.iloc[[100_000]]) == [["1000", "doc-100000", 2.5, 100_000]]
    assert run["line"].iloc[[119_999, 120_000, -1]].tolist() == [120_000, 120_002, 150_001]


def test_big_file_duplicate_names_lines(tmp_path):
    lines = big_run()
    lines[130_001] = "1300 Q0 doc-130000 2 1.0 big"
    with pytest.raises(TrecFormatError, match=r"document 'doc-130000' appears 2 times for query '1300' "
                                              r"\(lines 130001, 130002\)"):
        read_run(write(tmp_path, "\n".join(lines) + "\n", "big.run"))


def test_same_document_for_two_queries_is_not_a_duplicate(tmp_path):
    qrels = read_qrels(write(tmp_path, "1 0 d 1\n2 0 d 0\n1 0 e 2\n", "q"))
    assert rows(qrels) == [["1", "d", 1.0], ["2", "d", 0.0], ["1", "e", 2.0]]


@pytest.mark.parametrize("policy, kept", [("first", [["d", 1.0, 1], ["e", 5.0, 2]]),
                                          ("last", [["e", 5.0, 2], ["d", 2.0, 4]]),
                                          ("max", [["e", 5.0, 2], ["d", 3.0, 3]])])
def test_duplicate_policies(tmp_path, policy, kept):
    qrels = read_qrels(write(tmp_path, "1 0 d 1\n1 0 e 5\n1 0 d 3\n1 0 d 2\n", "q"), duplicates=policy)
    assert qrels[["doc", "relevance", "line"]].astype({"doc": str}).values.tolist() == kept


def test_not_utf8_names_line(tmp_path):
    with pytest.raises(TrecFormatError, match=r"x.run, line 3: not UTF-8 text"):
        read_run(write(tmp_path, b"1 Q0 a 1 1 t\n1 Q0 \xc3\xa9 2 1 t\n1 Q0 \xe9 3 1 t\n"))
    assert read_run(write(tmp_path, "1 Q0 caf\u00e9 1 1 t\n"))["doc"].tolist() == ["caf\u00e9"]


@pytest.mark.parametrize("ids", [
    [3, 3, 10],                                      # int64
    [1.5, 1.5, 2.0],                                 # float64
    pd.Categorical([7, 7, 8]),                       # categorical of ints
    pd.array(["a", "a", "b"], dtype="str"),          # arrow-backed strings
    pd.Series(["a", "a", "b"], dtype=object),        # Python strings
    pd.Series([1, 1, "x"], dtype=object),            # mixed
    pd.Series([1, 1.0, True], dtype=object),         # equal to pandas, printed differently
])
def test_dataframe_ids_print_as_astype_str(ids):
    frame = pd.DataFrame({"qid": ids, "docno": ids, "sim": [0.1, 0.2, 0.3]}).set_axis([10, 20, 30])
    if frame["qid"].astype(str).duplicated().any():   # (query, doc) pairs must differ
        frame["docno"] = ["a", "b", "c"]
    run = as_run(frame, query="qid", doc="docno", score="sim")
    assert run["query"].astype(str).tolist() == pd.Series(ids).astype(str).tolist()
    assert run["doc"].astype(str).tolist() == frame["docno"].astype(str).tolist()
    assert run["line"].tolist() == [0, 1, 2]
    assert run.attrs["source"] == "run"


def test_ids_printed_alike_are_one_category():
    run = as_run(pd.DataFrame({"query": pd.Series([1, "1"], dtype=object), "doc": ["a", "b"], "score": [1, 2]}))
    assert list(run["query"].cat.categories) == ["1"]
    with pytest.raises(TrecFormatError, match=r"run: document 'a' appears 2 times for query '1' \(rows 0, 1\)"):
        as_run(pd.DataFrame({"query": pd.Series([1, "1"], dtype=object), "doc": ["a", "a"], "score": [1, 2]}))


def test_missing_id_is_an_error():
    with pytest.raises(TrecFormatError, match="qrels frame, row 2: doc id is missing"):
        as_qrels(pd.DataFrame({"query": [1, 1, 1], "doc": ["a", "b", None], "relevance": 1}))


def test_dict_input():
    run = as_run({1: {"a": 0.5, 2: "0.25"}, "q": {"a": np.float32(1)}})
    assert rows(run) == [["1", "a", 0.5, 0], ["1", "2", 0.25, 1], ["q", "a", 1.0, 2]]
    with pytest.raises(TrecFormatError, match="qrels dict, row 1: relevance 'high' is not a finite number"):
        as_qrels({"q": {"a": 1, "b": "high"}})


def test_frames_read_before_pass_through(tmp_path):
    run, qrels = read_run(write(tmp_path, RUN)), read_qrels(SAMPLE_QRELS)
    assert as_run(run) is run and as_qrels(qrels) is qrels


def test_arrow_strings_become_categories_without_python_strings(tmp_path):
    run = read_run(write(tmp_path, RUN))
    categories = run["doc"].cat.categories
    assert categories.dtype != object   # arrow-backed strings (pandas 3 + pyarrow), not Python objects
    assert isinstance(pa.array(categories), pa.Array)
