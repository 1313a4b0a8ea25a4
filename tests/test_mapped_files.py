"""A regular file is read whole into memory of its own (`ndcg_nb.engine.trec_bytes.read_checked_text`), a chunk at a time, each
chunk checked and noted as it lands, and handed on as it lies only when its bytes are what the general text checks
would return unchanged. Whatever path the bytes take, they are read to the same fields, lines, tags, errors and
values as the same bytes read as a stream (an open file, which is read a chunk at a time through the guard)."""
import gc
import gzip
import weakref
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from ndcg_nb.engine import read_trec, trec_bytes as runs   # the constants and the memory of the byte reader
from ndcg_nb.engine.runs import TrecFormatError, read_qrels, read_run, split_file
from ndcg_nb.engine.trec_bytes import _FileBytes, read_checked_text as _read_bytes
from ndcg_nb.evaluation import evaluate

TEST = Path(__file__).resolve().parent / "data" / "trec_eval" / "test"


@pytest.fixture
def short_lines(monkeypatch):
    "Lines of at most 64 bytes, read 64 bytes at a time, memory populated 4 KiB at a time: small files take every branch."
    monkeypatch.setattr(runs, "MAX_LINE_BYTES", 64)
    monkeypatch.setattr(runs, "_CHUNK", 64)
    monkeypatch.setattr(runs, "_FILL_BYTES", 4096)


def written(folder: Path, name: str, data: bytes) -> Path:
    path = folder / name
    path.write_bytes(data)
    return path


def as_stream(path: Path):
    "What the reader makes of the same bytes given as an open file: bytes or an error message."
    with open(path, "rb") as stream:
        try:
            return bytes(_read_bytes(stream))
        except TrecFormatError as exc:
            return str(exc).replace("<stream>", "F").replace(str(path), "F")


def as_path(path: Path):
    try:
        return bytes(_read_bytes(path)[:])
    except TrecFormatError as exc:
        return str(exc).replace(str(path), "F")


RUN = b"1 Q0 d1 1 0.5 r\n1 Q0 d2 2 0.4 r\n"
HANDED_ON_OR_NOT = {
    "plain": (RUN, True),
    "no final line end": (RUN[:-1], True),
    "crlf": (RUN.replace(b"\n", b"\r\n"), False),
    "carriage returns alone": (RUN.replace(b"\n", b"\r"), False),
    "byte order mark": (b"\xef\xbb\xbf" + RUN, False),
    "utf-8": ("1 Q0 é 1 0.5 r\n".encode(), False),
    "gzip": (gzip.compress(RUN), False),
    "empty": (b"", False),
    "line of 64 bytes": (b"1 Q0 " + b"d" * 53 + b" 1 0 r\n", True),
}


@pytest.mark.parametrize("name", HANDED_ON_OR_NOT)
def test_handed_on_as_it_lies_only_when_unchanged(tmp_path, short_lines, name):
    data, kept = HANDED_ON_OR_NOT[name]
    path = written(tmp_path, "file", data)
    got = _read_bytes(path)
    assert isinstance(got, _FileBytes) == kept
    assert bytes(got[:]) == as_stream(path)
    if kept:
        assert got[:] == data


REFUSED = {
    "byte order mark inside": RUN + b"\xef\xbb\xbf" + RUN,
    "nul": RUN + b"\x00",
    "nul in a later chunk": RUN * 10 + b"\x00",
    "not utf-8": b"1 Q0 \xff 1 0.5 r\n",
    "utf-16": RUN.decode().encode("utf-16"),
    "line of 65 bytes": b"1 Q0 " + b"d" * 54 + b" 1 0 r\n",
    "long line in a later chunk": RUN * 10 + b"x" * 200,
}


@pytest.mark.parametrize("name", REFUSED)
def test_refused_with_the_same_message_either_way(tmp_path, short_lines, name):
    path = written(tmp_path, "file", REFUSED[name])
    with pytest.raises(TrecFormatError):
        _read_bytes(path)
    assert as_path(path) == as_stream(path)


BYTES = st.lists(st.sampled_from([b"1", b" ", b"\t", b"\n", b"\r", b"\x00", b"d", b"#", b"\xef\xbb\xbf", b"\xc3\xa9",
                                  b"\xff", b"\x1f\x8b", b"x" * 30]), max_size=40).map(b"".join)


@settings(max_examples=300, deadline=None)
@given(data=BYTES)
def test_same_bytes_or_error_as_a_stream(tmp_path_factory, data):
    "Read from its path or as an open stream, a file gives the same bytes or the same error; kept as it lies exactly when plain."
    path = written(tmp_path_factory.mktemp("f"), "file", data)
    old = runs.MAX_LINE_BYTES, runs._CHUNK, runs._FILL_BYTES
    runs.MAX_LINE_BYTES, runs._CHUNK, runs._FILL_BYTES = 64, 64, 4096
    try:
        assert as_path(path) == as_stream(path)
        try:
            kept = isinstance(_read_bytes(path), _FileBytes)
        except TrecFormatError:
            kept = None
    finally:
        runs.MAX_LINE_BYTES, runs._CHUNK, runs._FILL_BYTES = old
    plain = data.isascii() and b"\r" not in data and b"\x00" not in data and len(data) > 0 and \
        all(len(line) <= 64 for line in data.split(b"\n"))
    assert kept == (True if plain else None if kept is None else False)


FILES = {
    "regular qrels": ("qrels", b"1 0 d1 2\n1 0 d2 0\n2 0 d1 1\n"),
    "tabs": ("qrels", b"1\t0\td1\t2\n1\t0\td2\t0\n"),
    "vertical tab": ("qrels", b"1 0 d1\x0bx 2\n"),          # whitespace, so five fields: only `in` sends it the slow way
    "spaces and blank lines": ("run", b"1  Q0 d1 1 0.5 r\n\n  1 Q0 d2 2 0.4 r extra\n"),
    "regular run": ("run", RUN),
    "short line": ("run", b"1 Q0 d1 1 0.5 r\n1 Q0 d2 2\n"),
    "run given as qrels": ("qrels", RUN),
    "exponent grade": ("qrels", b"1 0 d1 1e2\n"),
    "score not a number": ("run", b"1 Q0 d1 1 high r\n"),
    "score not finite": ("run", b"1 Q0 d1 1 inf r\n"),
    "no lines": ("run", b"\n\n"),
    "comment lines": ("run", b"# by hand\n1 Q0 d#1 1 0.5 r\n#1 Q0 d2 2 0.4 r\n"),
    "two blanks at the end": ("run", RUN + b"\n\n"),
    "a blank at the start": ("run", b" " + RUN),
}


def fields_or_error(source, kind, path):
    try:
        table, lines, tag = split_file(source, kind)
    except TrecFormatError as exc:
        return str(exc).replace(str(path), "F")
    return table.to_pydict(), lines.tolist(), tag


@pytest.mark.parametrize("name", FILES)
def test_same_fields_or_error_either_way(tmp_path, name):
    kind, data = FILES[name]
    path = written(tmp_path, name.replace(" ", "_"), data)
    assert isinstance(_read_bytes(path), _FileBytes), "these files are plain ASCII: handed on as they lie"
    with open(path, "rb") as stream:
        assert fields_or_error(path, kind, path) == fields_or_error(stream, kind, path)


@pytest.mark.parametrize("qrels, run", [("qrels.test", "results.test"), ("qrels.rel_level", "results.test"),
                                        ("qrels.comment.test", "results.comment.test"), ("qrels.test", "results.trunc")])
@pytest.mark.parametrize("options", [{}, {"ties": "input"}, {"preset": "ir_measures"}], ids=str)
def test_same_values_on_trec_eval_collection(qrels, run, options):
    "Paths (read whole, the files joined by one sort) and open streams (read a chunk at a time) give the same values."
    measures = ["ndcg", "ndcg_cut.10", "map", "P.5"]
    from_paths = evaluate(TEST / qrels, TEST / run, measures, progress=False, **options)
    with open(TEST / qrels, "rb") as qrels_stream, open(TEST / run, "rb") as run_stream:
        read = read_qrels(qrels_stream), read_run(run_stream)
    from_streams = evaluate(*read, measures, progress=False, **options)
    pd.testing.assert_frame_equal(from_paths.per_query, from_streams.per_query, check_exact=True)
    assert from_paths.run_tag == from_streams.run_tag


def test_memory_released_after_reading(tmp_path, monkeypatch):
    "The text is released as `split_file` returns, not at a later collection: no reference outlives the parse."
    path = written(tmp_path, "run", RUN * 1000)
    held = []
    real = read_trec.read_checked_text
    monkeypatch.setattr(read_trec, "read_checked_text", lambda p: held.append(weakref.ref(text := real(p))) or text)
    gc.disable()
    try:
        table, _, tag = split_file(path, "run")
        assert table.num_rows == 2000 and tag == "r"
        assert held and held[0]() is None, "the text of the file is still referenced after split_file returned"
    finally:
        gc.enable()
