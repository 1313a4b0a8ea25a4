"""`ndcg-nb eval` against trec_eval 10.0 itself, built from its source, byte for byte.

trec_eval 10.0's source is vendored in tests/data/trec_eval_src/ (usnistgov/trec_eval, tag v10.0). A session fixture
copies it to a temporary folder and runs `make` there; if the build fails, every test here fails (CI must not pass
without comparing). The freshly built trec_eval is the oracle: no expected output is stored.

For every case (the generated pairs tests/data/trec_eval10/NAME.qrels + NAME.run, written by
tools/make_trec_eval10_cases.py, and trec_eval's own collection in tests/data/trec_eval/test/) and every flag set
(none, -c, -J, -c -M 100; only those with -c where the qrels has judged queries the run lacks, as trec_eval 10 stops
with an error there without it):

    trec_eval -q [flags] -m M1 -m M2 ... QRELS RUN
    ndcg-nb eval QRELS RUN -q [flags] -m M1 -m M2 ...

run once each (cached for the session, computed on every core first). The lines of each measure are compared byte
for byte, one test per (case, flags, measure group), per printed measure name in each program's order; and the whole
output, lines in order, one test per (case, flags). A gain table (`ndcg.-1=-2,1=1`) gets its own trec_eval call:
trec_eval keeps one parameter set per measure, so `-m ndcg -m ndcg.-1=-2,1=1` prints only the table's values (and some
long lists of measures with a table make it crash), so the whole-output test leaves the tables' lines out.

A second test: the `trec_eval_9` preset (scores read as 32-bit floats, as trec_eval 9.x and pytrec_eval read them)
against pytrec_eval on the same files, per query at 1e-12.
"""
import difflib
import functools
import math
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DATA = HERE / "data"
SOURCE = DATA / "trec_eval_src"
GENERATED = DATA / "trec_eval10"
UPSTREAM = DATA / "trec_eval" / "test"
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "NDCG_NB_LOAD_PLUGINS": ""}


# -- the cases -----------------------------------------------------------------------------------------------------

def _cases() -> dict:
    "{case id: (qrels, run)}: every generated pair, then trec_eval's own collection."
    cases = {path.stem: (path, path.with_suffix(".run")) for path in sorted(GENERATED.glob("*.qrels"))}
    cases.update({"upstream_test": (UPSTREAM / "qrels.test", UPSTREAM / "results.test"),
                  "upstream_rel_level": (UPSTREAM / "qrels.rel_level", UPSTREAM / "results.test"),
                  "upstream_trunc": (UPSTREAM / "qrels.test", UPSTREAM / "results.trunc"),
                  "upstream_302": (UPSTREAM / "qrels-302.test", UPSTREAM / "results-302.test"),
                  "upstream_comment": (UPSTREAM / "qrels.comment.test", UPSTREAM / "results.comment.test")})
    return cases


CASES = _cases()
FLAGS = {"none": (), "c": ("-c",), "J": ("-J",), "cM100": ("-c", "-M", "100")}


def _query_ids(path: Path) -> set:
    "The first column of a qrels or run file."
    with open(path) as f:
        return {line.split(maxsplit=1)[0] for line in f if line.strip()}


@functools.cache
def lacks_judged_queries(case: str) -> bool:
    "Whether the qrels of `case` judges a query its run does not have (trec_eval 10 needs -c there)."
    qrels, run = CASES[case]
    return bool(_query_ids(qrels) - _query_ids(run))


def _meaningful(case: str, flags: str) -> bool:
    return "-c" in FLAGS[flags] or not lacks_judged_queries(case)


# measure group -> (what is asked with -m, a pattern of the names trec_eval prints for it)
GROUPS = {
    "ndcg": ("ndcg", r"ndcg"),
    "ndcg_cut": ("ndcg_cut", r"ndcg_cut_\d+"),
    "dcg": ("dcg", r"dcg"),
    "ideal_dcg": ("ideal_dcg", r"ideal_dcg"),
    "ndcg_rel": ("ndcg_rel", r"ndcg_rel"),
    "Rndcg": ("Rndcg", r"Rndcg"),
    "map": ("map", r"map"),
    "P": ("P.5,10", r"P_\d+"),
    "recall": ("recall.10,100", r"recall_\d+"),
    "recip_rank": ("recip_rank", r"recip_rank"),
    "Rprec": ("Rprec", r"Rprec"),
    "success": ("success.1,5,10", r"success_\d+"),
}
GAIN_TABLES = ("ndcg.-1=-2,1=1", "ndcg.0=1,1=4", "dcg.1=3,2=9,3=27")
GROUPS.update({table: (table, re.escape(table.replace(".", "_", 1))) for table in GAIN_TABLES})
PLAIN = [asked for name, (asked, _) in GROUPS.items() if name not in GAIN_TABLES]


# -- trec_eval 10.0, built once per session -----------------------------------------------------------------------

@pytest.fixture(scope="session")
def trec_eval_10(tmp_path_factory) -> Path:
    "trec_eval 10.0 built from tests/data/trec_eval_src/ in a temporary copy. A failed build fails the tests."
    work = tmp_path_factory.mktemp("trec_eval_10") / "trec_eval"
    shutil.copytree(SOURCE, work)
    command = ["make", f"CC={os.environ.get('CC', 'cc')}"]
    try:
        done = subprocess.run(command, cwd=work, capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.SubprocessError) as error:
        pytest.fail(f"could not build trec_eval 10.0 ({' '.join(command)} in {work}): {error}", pytrace=False)
    binary = work / "trec_eval"
    if done.returncode != 0 or not binary.is_file():
        pytest.fail(f"building trec_eval 10.0 failed ({' '.join(command)} in {work}, exit {done.returncode}):\n"
                    f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}", pytrace=False)
    return binary


class Outputs:
    "What trec_eval and ndcg-nb print for one (case, flags), each computed once and kept: {printed name: [lines]}."

    def __init__(self, trec_eval: Path):
        self.trec_eval = trec_eval

    @staticmethod
    def _run(command: list) -> str:
        done = subprocess.run([str(part) for part in command], capture_output=True, env=ENV, cwd=ROOT, timeout=600)
        stdout = done.stdout.decode("utf-8", "surrogateescape")      # lossless: equal text is equal bytes
        if done.returncode != 0:
            pytest.fail(f"exit {done.returncode} from {_shell(command)}\n"
                        f"stderr: {done.stderr.decode('utf-8', 'replace')[-3000:]}", pytrace=False)
        assert stdout.endswith("\n"), f"{_shell(command)}: output does not end with a newline"
        return stdout

    def trec_eval_command(self, case: str, flags: str, measures) -> list:
        qrels, run = CASES[case]
        return [self.trec_eval, "-q", *FLAGS[flags], *[x for m in measures for x in ("-m", m)], qrels, run]

    @staticmethod
    def ndcg_nb_command(case: str, flags: str, measures) -> list:
        qrels, run = CASES[case]
        return [sys.executable, "-m", "ndcg_nb", "eval", qrels, run, "-q", *FLAGS[flags],
                *[x for m in measures for x in ("-m", m)]]

    @functools.cache
    def trec_eval_texts(self, case: str, flags: str) -> tuple:
        "trec_eval's output with every measure but the gain tables (one call), and each gain table's (one call each)."
        return (self._run(self.trec_eval_command(case, flags, PLAIN)),
                *(self._run(self.trec_eval_command(case, flags, [table])) for table in GAIN_TABLES))

    @functools.cache
    def ndcg_nb_text(self, case: str, flags: str) -> str:
        "ndcg-nb's output with every measure (one call)."
        return self._run(self.ndcg_nb_command(case, flags, [*PLAIN, *GAIN_TABLES]))

    def trec_eval_lines(self, case: str, flags: str) -> dict:
        return _by_name("".join(self.trec_eval_texts(case, flags)))

    def ndcg_nb_lines(self, case: str, flags: str) -> dict:
        return _by_name(self.ndcg_nb_text(case, flags))


@pytest.fixture(scope="session")
def outputs(trec_eval_10, request) -> Outputs:
    "The outputs, those the selected tests need computed first, on every core (a failure shows in its own tests)."
    outputs = Outputs(trec_eval_10)
    wanted = sorted({(item.callspec.params["case"], item.callspec.params["flags"]) for item in request.session.items
                     if getattr(item, "module", None) is sys.modules[__name__] and "flags" in getattr(
                         getattr(item, "callspec", None), "params", {})})

    def compute(key):
        try:
            outputs.trec_eval_texts(*key), outputs.ndcg_nb_text(*key)
        except BaseException:                             # not cached: the test that needs it runs it again and fails
            pass

    with ThreadPoolExecutor(max_workers=min(4, os.cpu_count() or 1)) as pool:
        list(pool.map(compute, wanted))
    return outputs


def _shell(command) -> str:
    "A command as one would type it: `ndcg-nb` for the module, file names without their folders."
    words = [str(part) for part in command]
    if words[:3] == [sys.executable, "-m", "ndcg_nb"]:
        words = ["ndcg-nb", *words[3:]]
    return " ".join(Path(word).name if "/" in word else word for word in words)


def _by_name(text: str) -> dict:
    "{printed measure name: [its lines, in printed order]}"
    lines = {}
    for line in text.split("\n")[:-1]:
        lines.setdefault(line.split("\t", 1)[0].rstrip(" "), []).append(line)
    return lines


def _key(line: str) -> tuple:
    "(measure, query) of a printed line."
    return tuple(part.strip() for part in line.split("\t")[:2])


def first_differences(theirs: list, ours: list, limit: int = 8) -> str:
    """A readable account of the first differing lines (tabs and padding shown, as repr): side by side where both
    print the same (measure, query) lines in the same order, else a unified diff."""
    if [_key(line) for line in theirs] == [_key(line) for line in ours]:
        pairs = [(i, a, b) for i, (a, b) in enumerate(zip(theirs, ours), 1) if a != b]
        shown = [f"  line {i}: trec_eval {a!r}\n  {' ' * len(str(i))}       ndcg-nb   {b!r}" for i, a, b in pairs[:limit]]
        return "\n".join(shown + (["  ..."] if len(pairs) > limit else []))
    shown = []
    for line in difflib.unified_diff(theirs, ours, fromfile="trec_eval 10.0", tofile="ndcg-nb", lineterm="", n=1):
        shown.append(line if line.startswith(("---", "+++", "@@")) else f"{line[:1]} {line[1:]!r}")
        if len(shown) >= 2 * limit:
            shown.append("  ...")
            break
    return "\n".join(shown)


def compare(theirs: dict, ours: dict, pattern: str) -> list:
    "The differences between trec_eval's and ndcg-nb's lines of the measures whose printed name matches `pattern`."
    names = sorted(name for name in {*theirs, *ours} if re.fullmatch(pattern, name))
    problems = []
    for name in names:
        a, b = theirs.get(name, []), ours.get(name, [])
        if a != b:
            differing = sum(x != y for x, y in zip(a, b)) + abs(len(a) - len(b))
            problems.append(f"{name}: {len(a)} lines from trec_eval, {len(b)} from ndcg-nb, {differing} differ\n"
                            + first_differences(a, b))
    return problems


# -- the comparisons ---------------------------------------------------------------------------------------------

PARAMS = [pytest.param(case, flags, group, id=f"{case}-{flags}-{group}")
          for case in CASES for flags in FLAGS if _meaningful(case, flags) for group in GROUPS]


@pytest.mark.parametrize("case, flags, group", PARAMS)
def test_byte_identical_to_trec_eval_10(outputs, case, flags, group):
    asked, pattern = GROUPS[group]
    theirs, ours = outputs.trec_eval_lines(case, flags), outputs.ndcg_nb_lines(case, flags)
    assert any(re.fullmatch(pattern, name) for name in theirs), f"trec_eval printed no {asked} lines"
    problems = compare(theirs, ours, pattern)
    commands = (f"  {_shell(outputs.trec_eval_command(case, flags, [asked]))}\n"
                f"  {_shell(outputs.ndcg_nb_command(case, flags, [asked]))}")
    if problems:
        pytest.fail(f"-m {asked} on {case} with flags {list(FLAGS[flags])}:\n{commands}\n" + "\n".join(problems),
                    pytrace=False)


CASE_FLAGS = list(dict.fromkeys(p.values[:2] for p in PARAMS))
GAIN_NAMES = {table.replace(".", "_", 1) for table in GAIN_TABLES}


@pytest.mark.parametrize("case, flags", CASE_FLAGS, ids=[f"{case}-{flags}" for case, flags in CASE_FLAGS])
def test_whole_output_byte_identical(outputs, case, flags):
    """Everything ndcg-nb prints but the gain tables' lines is, byte for byte and in order, what one trec_eval call
    with the same measures prints (no note or other line on stdout, measures in trec_eval's order within a query)."""
    theirs = outputs.trec_eval_texts(case, flags)[0]
    ours = "".join(f"{line}\n" for line in outputs.ndcg_nb_text(case, flags).split("\n")[:-1]
                   if line.split("\t", 1)[0].rstrip(" ") not in GAIN_NAMES)
    if ours != theirs:
        a, b = theirs.split("\n")[:-1], ours.split("\n")[:-1]
        pytest.fail(f"{case} with flags {list(FLAGS[flags])}: {len(a)} lines from trec_eval, {len(b)} from ndcg-nb\n"
                    f"  {_shell(outputs.trec_eval_command(case, flags, PLAIN))}\n"
                    f"  {_shell(outputs.ndcg_nb_command(case, flags, PLAIN))}\n" + first_differences(a, b),
                    pytrace=False)


def test_the_built_trec_eval_is_10(trec_eval_10):
    done = subprocess.run([trec_eval_10, "-v"], capture_output=True, text=True)
    assert (done.stdout + done.stderr).startswith("trec_eval version 10.0"), done


def test_every_case_is_compared():
    "Every file of tests/data/trec_eval10/ is the README or half of a qrels/run pair, and each pair is compared."
    files = {path.name for path in GENERATED.iterdir()}
    pairs = {name[:-6] for name in files if name.endswith(".qrels")}
    assert files == {"README.md"} | {f"{p}.qrels" for p in pairs} | {f"{p}.run" for p in pairs}
    assert len(pairs) >= 4 and pairs <= {case for case, _, _ in (p.values for p in PARAMS)}
    assert sum(path.stat().st_size for path in GENERATED.iterdir()) < 1_000_000
    assert any(lacks_judged_queries(case) for case in CASES)          # -c meets judged queries the run lacks


def test_the_source_holds_no_built_file():
    "The vendored source is source: no trec_eval binary, object file or archive."
    built = [path for path in SOURCE.rglob("*") if path.is_file() and (
        path.suffix in {".o", ".a", ".so", ".exe", ".obj", ".tar"} or path.name == "trec_eval"
        or path.read_bytes()[:4] in {b"\x7fELF", b"\xcf\xfa\xed\xfe", b"MZ\x90\x00"})]
    assert not built
    assert (SOURCE / "LICENSE.md").is_file() and (SOURCE / "README.md").is_file()


# -- the trec_eval_9 preset against pytrec_eval -------------------------------------------------------------------

NINE = ("ndcg", "ndcg_cut.10", "map", "P.10", "recall.100", "recip_rank", "Rprec", "success.10")


def _read_qrels(path: Path) -> dict:
    qrels = {}
    with open(path) as f:
        for line in f:
            if line.strip():
                query, _, doc, grade = line.split()[:4]
                qrels.setdefault(query, {})[doc] = int(grade)
    return qrels


def _read_run(path: Path) -> dict:
    run = {}
    with open(path) as f:
        for line in f:
            if line.strip():
                fields = line.split()
                run.setdefault(fields[0], {})[fields[2]] = float(fields[4])
    return run


@functools.cache
def _pytrec_eval(case: str) -> dict:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = CASES[case]
    return pytrec_eval.RelevanceEvaluator(_read_qrels(qrels), set(NINE)).evaluate(_read_run(run))


@functools.cache
def _trec_eval_9(case: str):
    from ndcg_nb import evaluate
    qrels, run = CASES[case]
    return evaluate(qrels, run, measures=list(NINE), preset="trec_eval_9", progress=False)


@pytest.mark.parametrize("measure", NINE)
@pytest.mark.parametrize("case", CASES)
def test_trec_eval_9_preset_equals_pytrec_eval(case, measure):
    name = measure.replace(".", "_")
    theirs = {query: values[name] for query, values in _pytrec_eval(case).items()}
    result = _trec_eval_9(case)
    rows = result.per_query[(result.per_query["measure"] == name) & result.per_query["counted"].astype(bool)]
    ours = dict(zip(rows["query"].astype(str), rows["value"].astype(float)))
    assert set(ours) == set(theirs), (f"queries only in ndcg_nb: {sorted(set(ours) - set(theirs))[:10]}, "
                                      f"only in pytrec_eval: {sorted(set(theirs) - set(ours))[:10]}")
    wrong = [(q, ours[q], theirs[q]) for q in sorted(theirs) if not math.isclose(ours[q], theirs[q], rel_tol=0,
                                                                                  abs_tol=1e-12)]
    assert not wrong, f"{len(wrong)} of {len(theirs)} queries differ (query, ndcg_nb, pytrec_eval): {wrong[:8]}"
    mean = math.fsum(theirs.values()) / len(theirs)
    assert math.isclose(result.value(name), mean, rel_tol=0, abs_tol=1e-12), (result.value(name), mean)
