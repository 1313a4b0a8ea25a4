"""Input made by an attacker or a careless user is refused quickly, with a message of a few lines, and
never read as the wrong numbers. Every hostile file is made on the fly, in bounded memory (streamed), and every
read must end within a time limit."""
import gzip
import os
import subprocess
import sys
import time
import zlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ndcg_nb.metrics.batch import as_batch
from ndcg_nb.errors import InputTypeError
from ndcg_nb.evaluation import evaluate as evaluate_in_memory
from ndcg_nb.engine.runs import SAMPLE_QRELS, SAMPLE_RUN, TrecFormatError, read_qrels, read_run

MAX_MESSAGE = 600   # characters: "a few lines"
TREC = Path(__file__).parent / "data" / "trec_eval" / "test"


def refused(read, path, *needles, seconds: float = 20.0) -> str:
    "Read `path`, which must fail with a TrecFormatError holding every needle, quickly and in a few lines."
    start = time.monotonic()
    with pytest.raises(TrecFormatError) as info:
        read(path)
    took = time.monotonic() - start
    message = str(info.value)
    assert took < seconds, f"took {took:.1f} s"
    assert len(message) < MAX_MESSAGE, f"{len(message)} characters: {message[:300]}"
    for needle in needles:
        assert needle in message, message
    return message


def gzip_stream(path: Path, block: bytes, times: int, head: bytes = b"") -> Path:
    "A gzip file of `head` then `block` repeated `times` times, compressed a block at a time (bounded memory)."
    deflate = zlib.compressobj(9, zlib.DEFLATED, 31)
    with open(path, "wb") as out:
        out.write(deflate.compress(head))
        for _ in range(times):
            out.write(deflate.compress(block))
        out.write(deflate.flush())
    return path


# --- reading must stop early -------------------------------------------------------------------------------------

@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_dev_zero_as_run():
    refused(read_run, "/dev/zero", "/dev/zero, line 1: a NUL byte", seconds=5)


def test_gzip_bomb_of_zeros(tmp_path):
    "4 MiB of gzip that would inflate to 4 GiB of NUL bytes: refused at the first chunk."
    bomb = gzip_stream(tmp_path / "zeros.run.gz", bytes(1 << 20), 4096)
    assert bomb.stat().st_size < 8 << 20
    refused(read_run, bomb, "zeros.run.gz, line 1: a NUL byte", seconds=5)


def test_gzip_bomb_of_one_endless_line(tmp_path):
    "A gzip that inflates to gigabytes without a line break: refused after MAX_LINE_BYTES."
    bomb = gzip_stream(tmp_path / "line.qrels.gz", b"a" * (1 << 20), 4096, head=b"1 0 d 1\n")
    refused(read_qrels, bomb, "line 2: a line longer than", seconds=5)


def test_binary_start(tmp_path):
    "A file whose first chunk is not UTF-8 is refused before the rest is read."
    path = tmp_path / "image.run"
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(1, 256)) * 4)
    refused(read_run, path, "image.run, line 1: not UTF-8 text")


def test_million_duplicate_lines_short_message(tmp_path):
    "A gzip of a million copies of one line: the message names the first lines and the count, in a few lines."
    dup = gzip_stream(tmp_path / "dup.run.gz", b"1 Q0 d1 1 0.5 t\n", 1_000_000)
    message = refused(read_run, dup, "appears 1,000,000 times", "(lines 1, 2, 3, 4, 5, ... (1,000,000 in all))",
                      seconds=60)
    assert message.count("\n") == 0


def test_long_id_cut_in_messages(tmp_path):
    "A 500 kB document id is shown by its start and its length."
    path = tmp_path / "long.run"
    path.write_text("1 Q0 " + "x" * 500_000 + " 1 high t\n")
    refused(read_run, path, "score 'high' is not a finite number", "... (500,000 characters)")
    path.write_text("1 Q0 " + "y" * 500_000 + "\n")
    refused(read_run, path, "found 3:", "... (")


def test_max_line_is_sane():
    from ndcg_nb.engine.runs import MAX_LINE_BYTES
    assert MAX_LINE_BYTES == 1 << 20


# --- silent wrong numbers when reading ----------------------------------------------------------------------------

def test_run_given_as_qrels():
    "`ndcg-nb eval RUN_A RUN_B`: the first run is refused as qrels, naming what it looks like."
    refused(read_qrels, SAMPLE_RUN, "line 1: a qrels line has 4 fields", "this looks like a run")
    with pytest.raises(TrecFormatError, match="looks like a run"):
        evaluate_in_memory(SAMPLE_RUN, SAMPLE_RUN, progress=False)


def test_run_given_as_qrels_on_the_command_line():
    code = f"from ndcg_nb.__main__ import main; raise SystemExit(main(['eval', {str(SAMPLE_RUN)!r}, {str(SAMPLE_RUN)!r}]))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "looks like a run" in done.stderr, (done.returncode, done.stdout, done.stderr)


def test_bom_in_the_middle(tmp_path):
    "Two files joined with cat, the second with a byte order mark: refused with file and line."
    path = tmp_path / "joined.qrels"
    path.write_bytes(b"1 0 d1 1\n" + b"\xef\xbb\xbf" + b"2 0 d2 1\n")
    refused(read_qrels, path, "joined.qrels, line 2: a byte order mark")


def test_bom_at_the_start_is_dropped(tmp_path):
    "A byte order mark at the start is no part of the first query id, on both parsing paths."
    path = tmp_path / "bom.qrels"
    path.write_bytes(b"\xef\xbb\xbf1 0 d1 1\n1  0 d2 0\n")        # two spaces: the slow path
    assert read_qrels(path)["query"].tolist() == ["1", "1"]


def test_nul_inside_an_id(tmp_path):
    path = tmp_path / "nul.run"
    path.write_bytes(b"1 Q0 d1 1 0.5 t\n1 Q0 d\x002 2 0.4 t\n")
    refused(read_run, path, "nul.run, line 2: a NUL byte", "File may contain no NULL characters")


def test_exponent_grade(tmp_path):
    "`1e2`: trec_eval's atol reads 1, a float reader 100; refused, saying both."
    path = tmp_path / "exp.qrels"
    path.write_text("1 0 d1 0\n1 0 d2 1e2\n")
    refused(read_qrels, path, "line 2: grade '1e2' is written with an exponent, which trec_eval reads as 1 "
                              "and a float reader as 100")


def test_frames_from_readers_checked_again():
    "concat/copy keep attrs['source']: the checks still apply, and name the file the frame came from."
    qrels, run = read_qrels(SAMPLE_QRELS), read_run(SAMPLE_RUN)
    good = evaluate_in_memory(qrels, run, progress=False).aggregate["value"].iloc[0]
    assert abs(good - 0.2548680) < 1e-6            # the sample's trec_eval ndcg, unchanged
    with pytest.raises(TrecFormatError, match=r"run frame read from .*sample\.run: document .* appears 2 times"):
        evaluate_in_memory(qrels, pd.concat([run, run]), progress=False)
    broken = run.copy()
    broken.loc[3, "score"] = np.nan
    with pytest.raises(TrecFormatError, match=r"run frame read from .*sample\.run, line 4: score nan"):
        evaluate_in_memory(qrels, broken, progress=False)


def test_nan_in_qrels_frame_blamed_on_the_qrels():
    qrels = read_qrels(SAMPLE_QRELS)
    qrels.loc[2, "relevance"] = np.nan
    with pytest.raises(TrecFormatError) as info:
        evaluate_in_memory(qrels, read_run(SAMPLE_RUN), progress=False)
    assert "qrels frame read from" in str(info.value) and "relevance nan" in str(info.value)
    assert "plugin" not in str(info.value)


@pytest.mark.parametrize("grades, what", [
    (np.array(["2020-01-01", "2020-01-02"], dtype="datetime64[D]"), "dates (datetime64)"),
    (np.array([1, 2], dtype="timedelta64[s]"), "durations (timedelta64)"),
    (pd.Series(pd.to_timedelta([1, 2], unit="s")), "durations (timedelta64)"),
    (np.array([1 + 1j, 2]), "complex numbers"),
])
def test_array_grades_that_are_not_real_numbers(grades, what):
    with pytest.raises(InputTypeError, match=what.replace("(", r"\(").replace(")", r"\)")):
        as_batch(grades)


# --- Dask, on its local scheduler (no client: a file system registered here is seen by the tasks) ------------------

def test_dask_write_failure_names_directory_and_removes_torn_files(tmp_path):
    "A disk that fills up while the workers write: the error names the directory; no torn file, no _SUCCESS."
    code = f"""
import fsspec
from fsspec.implementations.local import LocalFileSystem
from ndcg_nb.integrations.distributed import evaluate
from ndcg_nb.engine.runs import SAMPLE_QRELS, SAMPLE_RUN

class FullDisk(LocalFileSystem):
    protocol = ("fulldisk",)
    def _open(self, path, mode="rb", **kwargs):
        handle = super()._open(path, mode, **kwargs)
        if "w" in mode and path.endswith("00001.parquet"):
            write = handle.write
            def failing(data):
                if handle.tell() + len(data) > 100:
                    raise OSError(28, "No space left on device")
                return write(data)
            handle.write = failing
        return handle

fsspec.register_implementation("fulldisk", FullDisk, clobber=True)
evaluate(SAMPLE_QRELS, SAMPLE_RUN, npartitions=3, write_per_query="fulldisk://{tmp_path}/out")
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode != 0
    assert f"write_per_query='fulldisk://{tmp_path}/out' is incomplete (it has no _SUCCESS file)" in done.stderr
    assert "part-00001.parquet failed" in done.stderr and "No space left on device" in done.stderr
    left = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert "part-00001.parquet" not in left and "_SUCCESS" not in left


def test_dask_inputs_named_like_in_memory(tmp_path):
    "Empty run, truncated .gz, duplicate lines, run as qrels: the Dask path names file and line, as in memory."
    from ndcg_nb.integrations.distributed import evaluate
    raw = SAMPLE_RUN.read_bytes()
    (tmp_path / "empty.run").write_bytes(b"")
    (tmp_path / "blank.run").write_bytes(b"\n \n")
    (tmp_path / "torn.run.gz").write_bytes(gzip.compress(raw)[:-40])
    (tmp_path / "dup.run").write_bytes(raw + raw.splitlines(keepends=True)[3])
    cases = [(SAMPLE_QRELS, tmp_path / "empty.run", "empty.run: no run lines"),
             (SAMPLE_QRELS, tmp_path / "blank.run", "no run lines"),
             (SAMPLE_QRELS, tmp_path / "torn.run.gz", "torn.run.gz: a damaged or truncated gzip file"),
             (SAMPLE_QRELS, tmp_path / "dup.run", "dup.run, lines 4, 102"),
             (SAMPLE_RUN, SAMPLE_RUN, "this looks like a run")]
    for qrels, run, needle in cases:
        with pytest.raises(Exception) as info:
            evaluate(qrels, run, npartitions=2)
        assert needle in str(info.value), (run, type(info.value), str(info.value)[:300])
        assert not isinstance(info.value, (EOFError, TypeError)), info.value
