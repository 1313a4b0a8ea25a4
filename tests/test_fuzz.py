"""Property-based tests: whatever bytes, lines or names come in, the readers and parsers either
return a result or raise one of ndcg_nb's own errors (`NdcgError`), never another exception."""
import gzip
import warnings

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from ndcg_nb.errors import NdcgError, NdcgWarning
from ndcg_nb.evaluation import parse_measure
from ndcg_nb.plugins import parse_policy_spec
from ndcg_nb.engine.runs import read_qrels, read_run

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

FIELD = st.one_of(st.text(alphabet="abcdQ0123456789.-+eE#_", min_size=1, max_size=8),
                  st.sampled_from(["nan", "inf", "-inf", "1e400", "0x10", "1,5", "", "é", "\x00"]))
SEPARATOR = st.sampled_from([" ", "  ", "\t", " \t", "\v", "\f", "\r"])


def line(n_fields):
    return st.lists(FIELD, min_size=max(0, n_fields - 2), max_size=n_fields + 2).flatmap(
        lambda fields: st.tuples(st.just(fields), st.lists(SEPARATOR, min_size=len(fields), max_size=len(fields)))
    ).map(lambda pair: "".join(f + s for f, s in zip(*pair)))


def outcome(reader, path):
    "Read, and return the frame or the NdcgError; anything else fails the test."
    try:
        return reader(path)
    except NdcgError as error:
        assert str(error), "an error without a message"
        return error


@SETTINGS
@given(lines=st.lists(line(6), min_size=1, max_size=12), ending=st.sampled_from(["\n", "\r\n", "\r", ""]))
def test_random_run_lines(tmp_path, lines, ending):
    path = tmp_path / "run"
    path.write_bytes(ending.join(lines).encode("utf-8"))
    outcome(read_run, path)


@SETTINGS
@given(lines=st.lists(line(4), min_size=1, max_size=12))
def test_random_qrels_lines(tmp_path, lines):
    path = tmp_path / "qrels"
    path.write_bytes("\n".join(lines).encode("utf-8"))
    outcome(read_qrels, path)


@SETTINGS
@given(data=st.binary(max_size=300))
def test_random_bytes(tmp_path, data):
    path = tmp_path / "run"
    path.write_bytes(data)
    outcome(read_run, path)
    path.write_bytes(b"\x1f\x8b" + data)          # looks like gzip, is not
    outcome(read_qrels, path)


VALID_RUN = "".join(f"q{q} Q0 d{d} {d + 1} {1.0 / (d + 1)} tag\n" for q in range(3) for d in range(5)).encode()


@SETTINGS
@given(cut=st.integers(min_value=0, max_value=200), flip=st.integers(min_value=0, max_value=200),
       byte=st.integers(min_value=0, max_value=255))
def test_damaged_gzip(tmp_path, cut, flip, byte):
    packed = bytearray(gzip.compress(VALID_RUN))
    if flip < len(packed):
        packed[flip] = byte
    path = tmp_path / "run.gz"
    path.write_bytes(bytes(packed[:max(2, len(packed) - cut)]))
    outcome(read_run, path)


@SETTINGS
@given(spec=st.text(max_size=30))
def test_policy_spec_parser(spec):
    try:
        name, params = parse_policy_spec(spec)
    except NdcgError:
        return
    assert isinstance(name, str) and isinstance(params, dict)


@SETTINGS
@given(name=st.one_of(st.text(max_size=20),
                      st.from_regex(r"(ndcg_cut[._]|nDCG@|ndcg[._])[0-9.,=eE+\-a-z]{0,10}", fullmatch=True)))
def test_measure_parser(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NdcgWarning)
        try:
            measures = parse_measure(name)
        except NdcgError:
            return
    assert measures and all(m.k is None or (isinstance(m.k, int) and m.k >= 1) for m in measures)


ID = st.text(alphabet=st.characters(blacklist_categories=("Zs", "Zl", "Zp", "Cc", "Cs")), min_size=1, max_size=20_000)


@SETTINGS
@given(query=ID, doc=ID, copies=st.integers(1, 3000), fault=st.sampled_from(["score", "duplicate", "short", "nul"]))
def test_error_messages_stay_short(tmp_path, query, doc, copies, fault):
    "Whatever the ids and however many lines repeat, an error message is a few lines long."
    line = {"score": f"{query} Q0 {doc} 1 high t\n", "duplicate": f"{query} Q0 {doc} 1 0.5 t\n",
            "short": f"{query} Q0 {doc}\n", "nul": f"{query} Q0 {doc}\x00 1 0.5 t\n"}[fault]
    path = tmp_path / "run"
    path.write_bytes((line * (copies if fault == "duplicate" else 1)).encode("utf-8"))
    result = outcome(read_run, path)
    if isinstance(result, NdcgError):
        assert len(str(result)) < 600, str(result)[:300]
    else:
        assert fault == "duplicate" and copies == 1
