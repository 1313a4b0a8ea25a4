"""A big file mapped into memory instead of copied (`ndcg_nb.engine.runs._mapped_text`): mapped only when its bytes
are what the bytes reader would return unchanged, and then read to the same fields, lines, tags, errors and values.
The size bound is lowered here so that small files take the mapped path."""
import gzip
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from ndcg_nb.engine import runs
from ndcg_nb.engine.runs import TrecFormatError, _mapped_text, _read_bytes, split_file
from ndcg_nb.evaluation import evaluate

TEST = Path(__file__).resolve().parent / "data" / "trec_eval" / "test"
NO_MAPPING = 1 << 62


@pytest.fixture
def map_any_size(monkeypatch):
    monkeypatch.setattr(runs, "MAP_FROM_BYTES", 1)


@pytest.fixture
def short_lines(monkeypatch):
    "Lines of at most 64 bytes, read 64 bytes at a time (the bytes reader reads chunks as long as the longest line)."
    monkeypatch.setattr(runs, "MAX_LINE_BYTES", 64)
    monkeypatch.setattr(runs, "_CHUNK", 64)


def written(folder: Path, name: str, data: bytes) -> Path:
    path = folder / name
    path.write_bytes(data)
    return path


RUN = b"1 Q0 d1 1 0.5 r\n1 Q0 d2 2 0.4 r\n"
MAPPED_OR_NOT = {
    "plain": (RUN, True),
    "no final line end": (RUN[:-1], True),
    "crlf": (RUN.replace(b"\n", b"\r\n"), False),
    "carriage returns alone": (RUN.replace(b"\n", b"\r"), False),
    "byte order mark": (b"\xef\xbb\xbf" + RUN, False),
    "byte order mark inside": (RUN + b"\xef\xbb\xbf" + RUN, False),
    "nul": (RUN + b"\x00", False),
    "utf-8": ("1 Q0 é 1 0.5 r\n".encode(), False),
    "not utf-8": (b"1 Q0 \xff 1 0.5 r\n", False),
    "gzip": (gzip.compress(RUN), False),
    "utf-16": (RUN.decode().encode("utf-16"), False),
    "empty": (b"", False),
    "line of 64 bytes": (b"1 Q0 " + b"d" * 53 + b" 1 0 r\n", True),
    "line of 65 bytes": (b"1 Q0 " + b"d" * 54 + b" 1 0 r\n", False),
}


@pytest.mark.parametrize("name", MAPPED_OR_NOT)
def test_mapped_only_when_read_unchanged(tmp_path, map_any_size, short_lines, name):
    data, mapped = MAPPED_OR_NOT[name]
    got = _mapped_text(written(tmp_path, "file", data))
    assert (got is not None) == mapped
    if mapped:
        assert got[:] == _read_bytes(tmp_path / "file") == data


def test_not_mapped_below_the_bound_or_not_a_file(tmp_path):
    path = written(tmp_path, "run", RUN)
    assert _mapped_text(path) is None                                     # smaller than MAP_FROM_BYTES
    assert _mapped_text(written(tmp_path, "big", RUN * (runs.MAP_FROM_BYTES // len(RUN) + 1))) is not None
    with open(path, "rb") as handle:
        assert _mapped_text(handle) is None                               # an open file is read as bytes
    assert _mapped_text(tmp_path) is None and _mapped_text(tmp_path / "missing") is None


BYTES = st.lists(st.sampled_from([b"1", b" ", b"\t", b"\n", b"\r", b"\x00", b"d", b"\xef\xbb\xbf", b"\xc3\xa9",
                                  b"\xff", b"\x1f\x8b", b"x" * 30]), max_size=40).map(b"".join)


@settings(max_examples=300, deadline=None)
@given(data=BYTES)
def test_mapped_exactly_when_the_bytes_pass_unchanged(tmp_path_factory, data):
    "Mapped if and only if the bytes reader returns the file as it is, in ASCII without NUL or carriage return."
    path = written(tmp_path_factory.mktemp("f"), "file", data)
    old = runs.MAP_FROM_BYTES, runs.MAX_LINE_BYTES, runs._CHUNK
    runs.MAP_FROM_BYTES, runs.MAX_LINE_BYTES, runs._CHUNK = 1, 64, 64
    try:
        mapped = _mapped_text(path)
        try:
            read = _read_bytes(path)
        except TrecFormatError:
            read = None
    finally:
        runs.MAP_FROM_BYTES, runs.MAX_LINE_BYTES, runs._CHUNK = old
    plain = read == data and data.isascii() and b"\r" not in data and len(data) > 0
    assert (mapped is not None) == plain
    if mapped is not None:
        assert mapped[:] == read


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
}


def read_or_error(path, kind):
    try:
        table, lines, tag = split_file(path, kind)
    except TrecFormatError as exc:
        return str(exc)
    return table.to_pydict(), lines.tolist(), tag


@pytest.mark.parametrize("name", FILES)
def test_same_fields_or_error_either_way(tmp_path, monkeypatch, name):
    kind, data = FILES[name]
    path = written(tmp_path, name.replace(" ", "_"), data)
    monkeypatch.setattr(runs, "MAP_FROM_BYTES", NO_MAPPING)
    as_bytes = read_or_error(path, kind)
    monkeypatch.setattr(runs, "MAP_FROM_BYTES", 1)
    assert _mapped_text(path) is not None, "these files are clean ASCII: the mapped path must take them"
    assert read_or_error(path, kind) == as_bytes


@pytest.mark.parametrize("qrels, run", [("qrels.test", "results.test"), ("qrels.rel_level", "results.test"),
                                        ("qrels.comment.test", "results.comment.test"), ("qrels.test", "results.trunc")])
@pytest.mark.parametrize("options", [{}, {"ties": "input"}, {"preset": "ir_measures"}], ids=str)
def test_same_values_on_trec_eval_collection(monkeypatch, qrels, run, options):
    measures = ["ndcg", "ndcg_cut.10", "map", "P.5"]
    monkeypatch.setattr(runs, "MAP_FROM_BYTES", NO_MAPPING)
    as_bytes = evaluate(TEST / qrels, TEST / run, measures, progress=False, **options)
    monkeypatch.setattr(runs, "MAP_FROM_BYTES", 1)
    assert _mapped_text(TEST / qrels) is not None and _mapped_text(TEST / run) is not None
    mapped = evaluate(TEST / qrels, TEST / run, measures, progress=False, **options)
    pd.testing.assert_frame_equal(mapped.per_query, as_bytes.per_query, check_exact=True)
    assert mapped.run_tag == as_bytes.run_tag


def mapped_paths() -> set:
    "The files this process has mapped into memory (Linux)."
    with open("/proc/self/maps") as maps:
        return {line.split(None, 5)[5].strip() for line in maps if len(line.split(None, 5)) == 6}


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="needs Linux's /proc")
def test_mapping_released_after_reading(tmp_path, map_any_size):
    path = written(tmp_path, "run", RUN * 1000)
    table, _, tag = split_file(path, "run")   # released as it returns, not by a later collection
    assert table.num_rows == 2000 and tag == "r"
    assert str(path) not in mapped_paths()
    mapped = _mapped_text(path)
    assert str(path) in mapped_paths(), "the check must see a mapping that is held"
    mapped.close()
