"""The HTML report page: `ndcg_nb.analysis.report_page` and `ndcg-nb report`.

- the page's numbers, read back from the data embedded in it, are those of `evaluate` and `compare`, bit for bit,
  and its per-rank tables end at the evaluation's DCG and IDCG;
- ids from the input (query ids, document ids, run tags) reach the page escaped: as entities in the markup, as JSON
  escapes in the embedded data, so that none can end the script element or start another;
- a name from the input inside a sentence of the page (the header, the notes, the chart's caption) stands in a
  `<bdi>` element (as text only: between U+2068 and U+2069), so that a run tag ending in U+202E RIGHT-TO-LEFT
  OVERRIDE cannot turn the rest of the sentence around;
- the page is self-contained: it links and fetches nothing (its Content Security Policy says default-src 'none');
- 300 queries x 2 runs stay well under 5 MB; for thousands of queries the page holds what its options say, and
  says what it leaves out;
- `ndcg-nb report` writes the same page;
- in headless Chromium (Debian's chromium and chromedriver, through selenium): no console error, every query and
  the chart there, a click on a query opens its per-rank tables, sorting and filtering work, hostile ids show as
  text and none of their scripts runs, and the screenshot (saved to test-artifacts/) is not blank; the browser is
  tools/report_screenshot.py's, whose picture of a page (the tutorial's) is not blank either;
- in the same browser, with twelve runs: the two runs picked (run, against, or a click in the table of runs) are the
  ones the query table, the chart, its caption and the per-rank tables show, and two runs turned around turn the
  differences' signs; each mark the means show is one the legend explains, for every significant difference, and
  the legend explains no other; no table, chart or control is wider than the page at 1280 and at 390 pixels (the
  sample, twelve runs, names of a hundred characters), and the chart has one title on each axis.
Without Chromium the browser tests are skipped, except in CI (CI=true), where they fail.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ndcg_nb.__main__ import main
from ndcg_nb.analysis.comparison import SAMPLE_RUN_B, compare
from ndcg_nb.analysis.report_page import embedded_data, report, report_html
from ndcg_nb.engine.runs import SAMPLE_QRELS, SAMPLE_RUN
from ndcg_nb.evaluation import evaluate

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
from report_screenshot import headless_chromium, palette_png, save_screenshot  # noqa: E402  (tools/ is no package)
sys.path.remove(str(ROOT / "tools"))
ARTIFACTS = ROOT / "test-artifacts"
IN_CI = os.environ.get("CI", "").lower() == "true"
SAMPLE_RUNS = {"A": SAMPLE_RUN, "B": SAMPLE_RUN_B}
MEASURES = ["ndcg", "nDCG@10"]

HOSTILE_QUERY = "q\"1'</script><script>window.__pwned = 'query'</script>"
HOSTILE_DOC = "<script>alert(1)</script>"
HOSTILE_IMG = "<img src=x onerror=\"window.__pwned='doc'\">"
HOSTILE_QRELS = {HOSTILE_QUERY: {HOSTILE_DOC: 2, HOSTILE_IMG: 1, "d3": 0}, "plain": {"x": 1, "y": 0}}
TURNED = "B\u202e"           # a run tag ending in RIGHT-TO-LEFT OVERRIDE: the text after it would be drawn backwards
TURNED_RUNS = {"A": SAMPLE_RUN, TURNED: SAMPLE_RUN_B}
HOSTILE_RUNS = {"<b>A</b>&amp;": {HOSTILE_QUERY: {HOSTILE_DOC: 1.0, HOSTILE_IMG: 2.0, "zz": 0.5}, "plain": {"x": 1.0}},
                "B\"'<!--": {HOSTILE_QUERY: {HOSTILE_DOC: 3.0, "d3": 2.0}, "plain": {"y": 1.0, "x": 0.5}}}


def synthetic(n_queries: int, depth: int = 100, judged: int = 40, seed: int = 0) -> tuple[dict, dict]:
    "Qrels and two runs as dicts: `judged` documents of grades 0-3 per query, `depth` retrieved, quarter-point scores."
    rng = np.random.default_rng(seed)
    qrels, a, b = {}, {}, {}
    for q in range(n_queries):
        query, docs = f"q{q:05d}", [f"doc-{q}-{d:04d}" for d in range(2 * depth)]
        qrels[query] = {docs[d]: int(rng.integers(0, 4)) for d in rng.choice(len(docs), judged, replace=False)}
        for run in (a, b):
            run[query] = {docs[d]: float(np.round(rng.normal() * 4) / 4) for d in rng.choice(len(docs), depth, replace=False)}
    return qrels, {"A": a, "B": b}


def counted_values(evaluation, measure: str) -> dict:
    rows = evaluation.per_query
    return rows[(rows.measure == measure) & rows.counted].set_index("query")["value"].to_dict()


# -- the numbers -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("convention", [{}, {"preset": "sklearn"}, {"gain": "exponential", "missing_queries": "zero"}])
def test_numbers_are_those_of_evaluate_and_compare(convention):
    data = embedded_data(report_html(SAMPLE_QRELS, SAMPLE_RUNS, MEASURES, seed=3, **convention))
    assert data["runs"] == ["A", "B"] and data["measures"] == ["ndcg", "nDCG@10"]   # two dialects, each its own
    for r, run in enumerate(SAMPLE_RUNS.values()):
        alone = evaluate(SAMPLE_QRELS, run, MEASURES, **convention)
        for m, measure in enumerate(data["measures"]):
            assert data["means"][r][m] == alone.value(measure)
            shown = {q: v for q, v in zip(data["queries"], data["values"][m][r]) if v is not None}
            assert shown == counted_values(alone, measure)
    tested = compare(SAMPLE_QRELS, SAMPLE_RUNS, MEASURES, seed=3, **convention)
    assert pd.DataFrame(data["comparison"]).equals(tested.reset_index(drop=True))
    assert data["tests"]["baseline"] == "A" and data["convention"] == convention_as_json(convention)


def convention_as_json(convention: dict) -> dict:
    return json.loads(json.dumps(evaluate(SAMPLE_QRELS, SAMPLE_RUN, "ndcg", **convention).convention.as_dict()))


def test_per_rank_tables_end_at_the_evaluations_values():
    data = embedded_data(report_html(SAMPLE_QRELS, SAMPLE_RUNS, MEASURES, detail_measure="nDCG@10", tests="t"))
    assert data["detail"]["measure"] == 1
    for r, run in enumerate(SAMPLE_RUNS.values()):
        rows = evaluate(SAMPLE_QRELS, run, MEASURES).per_query.set_index(["measure", "query"])
        for i, entries in data["detail"]["lists"].items():
            entry, row = entries[r], rows.loc[("nDCG@10", data["queries"][int(i)])]
            if entry is None:              # topic 106: counted 0 by ir_measures' convention, ranked by no run
                assert data["queries"][int(i)] == "106" and row.status == "missing_from_run"
                continue
            assert (entry["value"], entry["dcg"], entry["idcg"]) == (row.value, row.dcg, row.idcg)
            last = entry["last"] or entry["rows"][-1]
            assert (last[0], entry["note"]) == (10, None)
            assert last[5] == pytest.approx(row.dcg, abs=1e-6) and last[9] == pytest.approx(row.idcg, abs=1e-6)


def test_tied_documents_averaged_are_noted():
    data = embedded_data(report_html(SAMPLE_QRELS, SAMPLE_RUNS, MEASURES, preset="sklearn", tests="t"))
    notes = [e["note"] for entries in data["detail"]["lists"].values() for e in entries if e and e["note"]]
    unjudged = [note for note in notes if note.startswith("The query has no judgments")]   # topic 999, which sklearn scores
    assert unjudged and notes != unjudged and all("ties='average'" in note for note in notes if note not in unjudged)


# -- ids from the files --------------------------------------------------------------------------------------------

def test_hostile_ids_are_escaped():
    text = report_html(HOSTILE_QRELS, HOSTILE_RUNS, ["ndcg", "nDCG@2"], tests="t")
    for raw in (HOSTILE_QUERY, HOSTILE_DOC, HOSTILE_IMG, "<b>A</b>", "<img", "onerror=\"", "</script><"):
        assert raw not in text, raw
    assert text.count("<script") == 2 and text.lower().count("</script") == 2      # the page's data and its script
    assert text.count("<!--") == 0
    assert "&lt;b&gt;A&lt;/b&gt;&amp;amp;" in text                                 # the run tag in the markup
    data = embedded_data(text)
    assert data["queries"] == ["plain", HOSTILE_QUERY] and data["runs"] == list(HOSTILE_RUNS)
    docs = {row[1] for entries in data["detail"]["lists"].values() for e in entries if e for row in e["rows"]}
    assert {HOSTILE_DOC, HOSTILE_IMG} <= docs


def test_names_inside_the_pages_sentences_are_isolated():
    text = report_html(SAMPLE_QRELS, TURNED_RUNS, MEASURES, tests="t", baseline=TURNED)
    assert "<title>ndcg_nb report: \u2068A\u2069, \u2068B\u202e\u2069</title>" in text
    assert "<h1>ndcg_nb report: <bdi>A</bdi>, <bdi>B\u202e</bdi></h1>" in text
    assert "measures <bdi>ndcg</bdi>, <bdi>nDCG@10</bdi>, baseline <bdi>B\u202e</bdi>; made by ndcg_nb" in text
    assert ("No mean differs significantly from <bdi>B\u202e</bdi> under the t test (p corrected &lt; 0.05, holm "
            "correction): none is marked.") in text
    assert "Each run against <bdi>B\u202e</bdi>; p corrected" in text
    assert "Per-rank tables are for \u2068ndcg\u2069; their numbers" in text
    sentences = re.sub(r"<script.*?</script>|<table[ >].*?</table>|<title>.*?</title>", "", text, flags=re.S)
    assert sentences.count("B\u202e") == sentences.count("<bdi>B\u202e</bdi>") >= 4   # none outside a <bdi>


def test_page_is_self_contained():
    text = report_html(SAMPLE_QRELS, SAMPLE_RUNS, MEASURES, tests="t")
    assert re.findall(r"\b(?:src|href|srcset|action)\s*=", text) == []
    assert "@import" not in text and "url(" not in text
    assert set(re.findall(r"https?://[^\s\"']+", text)) == {"http://www.w3.org/2000/svg"}   # a namespace, not fetched
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', text).group(1)
    assert policy.startswith("default-src 'none'; script-src 'sha256-")


# -- size -----------------------------------------------------------------------------------------------------------

def test_300_queries_and_2_runs_stay_well_under_5_mb(tmp_path):
    qrels, runs = synthetic(300)
    page = report(qrels, runs, path=tmp_path / "report.html", tests="t")
    size = page.stat().st_size
    print(f"300 queries x 2 runs of 100 documents: {size / 1e6:.2f} MB")
    assert size < 2_000_000, size
    data = embedded_data(page)
    assert len(data["queries"]) == len(data["detail"]["lists"]) == 300


def test_thousands_of_queries_keep_what_the_options_say():
    qrels, runs = synthetic(2000, depth=30, judged=10)
    data = embedded_data(report_html(qrels, runs, detail_queries=100, detail_ranks=5, tests="t", with_bounds=False))
    assert len(data["queries"]) == 2000 and len(data["detail"]["lists"]) == 100
    entries = [e for entries in data["detail"]["lists"].values() for e in entries if e]
    assert all(len(e["rows"]) == 5 and e["last"][0] == e["depth"] for e in entries)
    assert any("Per-rank tables for 100 of 2000 queries" in note for note in data["left_out"])
    assert any("first 5 ranks" in note for note in data["left_out"])
    changes = np.abs(np.array(data["values"][0][1], dtype=float) - np.array(data["values"][0][0], dtype=float))
    kept = sorted(map(int, data["detail"]["lists"]))
    assert changes[kept].min() >= np.delete(changes, kept).max()       # the queries that move most


# -- the command line --------------------------------------------------------------------------------------------

def test_cli_report(tmp_path, capsys):
    out = tmp_path / "report.html"
    code = main(["report", str(SAMPLE_QRELS), str(SAMPLE_RUN), str(SAMPLE_RUN_B), "-o", str(out), "-m", "nDCG@10",
                 "--test", "t", "--seed", "1", "--gain", "exponential"])
    printed, err = capsys.readouterr()
    assert code == 0, err
    assert printed.startswith(f"wrote {out} (") and printed.rstrip().endswith("KiB)")
    data = embedded_data(out)
    tested = compare(SAMPLE_QRELS, [SAMPLE_RUN, SAMPLE_RUN_B], "nDCG@10", tests="t", seed=1, gain="exponential")
    assert pd.DataFrame(data["comparison"]).equals(tested.reset_index(drop=True))
    code = main(["report", str(SAMPLE_QRELS), str(SAMPLE_RUN), "-o", str(out), "--detail-measure", "nDCG@5"])
    assert code == 2 and "'nDCG@5' is not evaluated" in capsys.readouterr().err


# -- in a browser ----------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def browser():
    if not (shutil.which("chromium") and shutil.which("chromedriver")):
        reason = "Debian's chromium and chromium-driver are not installed (apt-get install -y chromium chromium-driver)"
        if IN_CI:
            pytest.fail(f"CI must run the browser test: {reason}")
        pytest.skip(reason)
    pytest.importorskip("selenium", reason="selenium comes with the dev extra")
    ARTIFACTS.mkdir(exist_ok=True)
    with headless_chromium(1280, 1000) as driver:
        yield driver


def open_page(driver, page: Path):
    driver.get_log("browser")                       # what earlier pages logged
    driver.get(page.resolve().as_uri())


def console_errors(driver) -> list[str]:
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def query_cells(driver) -> list[str]:
    return driver.execute_script("return [...document.querySelectorAll('tr.query-row td.query')].map(td => td.textContent)")


def not_blank(png: Path) -> bool:
    "Whether a screenshot holds a picture: many colours, and a fair share of pixels that are not the background."
    from PIL import Image
    image = np.asarray(Image.open(png).convert("RGB")).reshape(-1, 3)
    colours, counts = np.unique(image, axis=0, return_counts=True)
    return len(colours) > 20 and counts.max() / len(image) < 0.97


def test_report_in_chromium(browser, tmp_path):
    page = report(SAMPLE_QRELS, SAMPLE_RUNS, MEASURES, path=tmp_path / "report.html", tests="t")
    data = embedded_data(page)
    open_page(browser, page)
    assert browser.title == "ndcg_nb report: \u2068A\u2069, \u2068B\u2069"
    assert sorted(query_cells(browser)) == sorted(data["queries"])
    bars = browser.find_elements("css selector", "svg#difference-chart rect.bar")
    assert len(bars) == sum(a is not None and b is not None for a, b in zip(*data["values"][0]))
    browser.find_elements("css selector", "tr.query-row")[0].click()
    tables = browser.find_elements("css selector", "tr.detail table.ranks")
    assert len(tables) == 2                                             # one per run
    first = data["detail"]["lists"]["0"][0]["rows"][0]
    assert tables[0].find_elements("css selector", "tbody tr td")[1].text == first[1]
    browser.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", bars[-1])
    assert len(browser.find_elements("css selector", "tr.detail")) == 2      # the bar's query opened too
    browser.find_element("css selector", "th[data-sort='diff']").click()    # the largest gain first
    differences = {q: b - a for q, a, b in zip(data["queries"], *data["values"][0]) if a is not None and b is not None}
    assert query_cells(browser)[0] == max(differences, key=differences.get)
    browser.find_element("css selector", "#query-filter").send_keys("103")
    assert query_cells(browser) == ["103"]
    png = ARTIFACTS / "report-page.png"
    browser.save_screenshot(str(png))
    assert not_blank(png), f"{png} looks blank"
    assert console_errors(browser) == []


def test_hostile_ids_stay_text_in_chromium(browser, tmp_path):
    page = tmp_path / "hostile.html"
    page.write_text(report_html(HOSTILE_QRELS, HOSTILE_RUNS, ["ndcg", "nDCG@2"], tests="t"), encoding="utf-8")
    open_page(browser, page)
    from selenium.common.exceptions import NoAlertPresentException
    with pytest.raises(NoAlertPresentException):
        browser.switch_to.alert
    assert browser.execute_script("return window.__pwned === undefined")
    assert sorted(query_cells(browser)) == sorted(["plain", HOSTILE_QUERY])
    row = next(r for r in browser.find_elements("css selector", "tr.query-row") if r.text.startswith("q\"1'"))
    row.click()
    documents = browser.execute_script(
        "return [...document.querySelectorAll('tr.detail table.ranks tbody td:nth-child(2)')].map(td => td.textContent)")
    assert {HOSTILE_DOC, HOSTILE_IMG} <= set(documents)
    assert browser.execute_script("return document.querySelectorAll('img, iframe, object, embed').length") == 0
    assert browser.execute_script("return document.scripts.length") == 2
    assert browser.execute_script("return window.__pwned === undefined")
    with pytest.raises(NoAlertPresentException):
        browser.switch_to.alert
    assert console_errors(browser) == []
    assert browser.find_element("css selector", "h1").text == "ndcg_nb report: <b>A</b>&amp;, B\"'<!--"


def test_a_turned_name_keeps_to_itself_in_chromium(browser, tmp_path):
    page = report(SAMPLE_QRELS, TURNED_RUNS, MEASURES, path=tmp_path / "turned.html", tests="t")
    open_page(browser, page)
    caption = browser.find_element("css selector", "#chart-caption")
    parts = browser.execute_script("return [...arguments[0].childNodes].map(n => [n.nodeName, n.textContent])", caption)
    assert [text for kind, text in parts if kind == "BDI"] == ["ndcg", TURNED, "A"], parts
    kind, rest = parts[-1]
    assert kind == "#text" and "better" in rest and "mean difference" in rest, parts     # after the names, outside them
    left = browser.execute_script("""
        const node = arguments[0].lastChild, text = node.textContent;
        return arguments[1].map(word => {
          const range = document.createRange(), at = text.indexOf(word);
          range.setStart(node, at); range.setEnd(node, at + word.length);
          return range.getBoundingClientRect().left;
        });""", caption, ["better", "mean", "difference"])
    assert left == sorted(left), left                    # drawn left to right, as written
    header = browser.find_element("css selector", "th[data-sort='diff']")
    assert [b.text for b in header.find_elements("css selector", "bdi")] == [TURNED, "A"]
    title = browser.execute_script("return document.querySelector('#difference-chart > title').textContent")
    assert title.startswith("\u2068ndcg\u2069: \u2068B\u202e\u2069 − \u2068A\u2069 per query"), title
    assert console_errors(browser) == []


def test_a_palette_picture_keeps_its_pixels(tmp_path):
    from PIL import Image
    import io
    picture = io.BytesIO()
    rng = np.random.default_rng(0)
    Image.fromarray(rng.choice([0, 128, 255], size=(20, 40, 3)).astype(np.uint8)).save(picture, format="PNG")
    small = Image.open(io.BytesIO(palette_png(picture.getvalue())))
    assert small.mode == "P"
    assert (np.asarray(small.convert("RGB")) == np.asarray(Image.open(picture).convert("RGB"))).all()   # 27 colours kept


def test_the_tools_screenshot_is_not_blank(browser, tmp_path):
    page = report(SAMPLE_QRELS, SAMPLE_RUNS, MEASURES, path=tmp_path / "report.html", tests="t")
    png = save_screenshot(page, ARTIFACTS / "report-page-tool.png", open_queries=1)
    assert not_blank(png), f"{png} looks blank"


# -- many runs, marks, and fitting the screen ---------------------------------------------------------------------

def twelve_runs(n_queries: int = 30) -> tuple[dict, dict]:
    "Qrels and twelve runs: one run's documents, each run's scores that run's plus its own seeded noise."
    qrels, runs = synthetic(n_queries, depth=30, judged=15)
    rng = np.random.default_rng(7)
    return qrels, {f"system_{k:02d}": {q: {d: s + rng.normal() for d, s in docs.items()} for q, docs in runs["A"].items()}
                   for k in range(12)}


def pick(driver, name: str, run: int):
    from selenium.webdriver.support.ui import Select
    Select(driver.find_element("css selector", f"#choose-{name}")).select_by_value(str(run))


def table_columns(driver) -> dict:
    "The query table as {header: [cells]}, read as the page shows it."
    return dict(driver.execute_script("""
        const table = document.getElementById('query-table'), heads = [...table.querySelectorAll(':scope > thead th')];
        const rows = [...table.querySelectorAll(':scope > tbody > tr.query-row')];
        return heads.map((th, c) => [th.textContent.replace(/ [▲▼]$/, ''), rows.map(tr => tr.children[c].textContent)]);"""))


def test_two_of_twelve_runs_in_chromium(browser, tmp_path):
    qrels, runs = twelve_runs()
    page = report(qrels, runs, path=tmp_path / "twelve.html", tests="t")
    data = embedded_data(page)
    names = data["runs"]
    open_page(browser, page)
    for name in ("run", "against"):
        options = browser.find_elements("css selector", f"#choose-{name} option")
        assert [o.text for o in options] == names
    assert browser.find_element("css selector", "#choose-run").get_attribute("value") == "1"      # the first against the baseline
    assert browser.find_element("css selector", "#choose-against").get_attribute("value") == "0"
    rows = browser.find_elements("css selector", "#runs-table tbody tr")
    assert [r.find_element("css selector", "td").text for r in rows] == names

    pick(browser, "against", 3)
    pick(browser, "run", 7)
    shown = table_columns(browser)
    assert list(shown) == ["query", names[3], names[7], f"{names[7]} − {names[3]}", "tie range", "judged share"]
    values = data["values"][0]
    by_query = {q: (a, b) for q, a, b in zip(data["queries"], values[3], values[7])}
    for query, a, b, d in zip(shown["query"], shown[names[3]], shown[names[7]], shown[f"{names[7]} − {names[3]}"]):
        expected_a, expected_b = by_query[query]
        assert (float(a), float(b)) == (round(expected_a, 4), round(expected_b, 4))
        assert float(d) == pytest.approx(expected_b - expected_a, abs=5e-5)
    bars = browser.find_elements("css selector", "svg#difference-chart rect.bar")
    assert len(bars) == sum(a is not None and b is not None for a, b in by_query.values())
    caption = browser.find_element("css selector", "#chart-caption").text
    mean = np.mean([b - a for a, b in by_query.values()])
    assert caption.startswith(f"ndcg: {names[7]} − {names[3]} per query") and f"mean difference {mean:+.4f}" in caption
    runs_row = browser.find_element("css selector", "#runs-table tr[data-run='7']")
    assert "picked" in runs_row.get_attribute("class")
    assert runs_row.find_elements("css selector", "td")[2].text == f"{mean:+.4f}"   # its mean difference from the other

    browser.find_elements("css selector", "tr.query-row")[0].click()
    assert [h.text for h in browser.find_elements("css selector", "tr.detail .run-detail h4")] == [names[3], names[7]]
    browser.find_element("css selector", "#runs-table tr[data-run='10']").click()          # a click on a run picks it
    assert browser.find_element("css selector", "#choose-run").get_attribute("value") == "10"
    assert list(table_columns(browser))[2] == names[10]
    assert [h.text for h in browser.find_elements("css selector", "tr.detail .run-detail h4")] == [names[3], names[10]]
    pick(browser, "run", 3)                                                                # one run: its values alone
    assert list(table_columns(browser)) == ["query", names[3], "tie range", "judged share"]
    assert console_errors(browser) == []


def test_the_picker_turns_two_runs_around_in_chromium(browser, tmp_path):
    page = report(SAMPLE_QRELS, SAMPLE_RUNS, MEASURES, path=tmp_path / "report.html", tests="t")
    data = embedded_data(page)
    open_page(browser, page)
    assert browser.find_elements("css selector", "#runs-table") == []         # two runs: the picker is enough
    before = table_columns(browser)["B − A"]
    pick(browser, "run", 0)
    pick(browser, "against", 1)
    after = table_columns(browser)["A − B"]
    assert [float(x) if x else None for x in after] == [-float(x) if x else None for x in before]
    assert any(float(x or 0) for x in before)
    assert table_columns(browser)["query"] == sorted(data["queries"])
    assert console_errors(browser) == []


def legend_and_means(driver) -> tuple[str, list[list[str]]]:
    legend = driver.find_element("css selector", "#means-legend").text
    cells = driver.execute_script(
        "return [...document.querySelectorAll('#means tbody tr')].map(tr => [...tr.children].map(td => td.textContent))")
    return legend, cells


@pytest.mark.parametrize("tests", [("t", "randomization", "bootstrap"), ("t",)])
def test_the_legend_explains_the_marks_the_means_show_in_chromium(browser, tmp_path, tests):
    page = report(SAMPLE_QRELS, SAMPLE_RUNS, MEASURES, path=tmp_path / "report.html", tests=tests, seed=0)
    data = embedded_data(page)
    open_page(browser, page)
    legend, cells = legend_and_means(browser)
    marks = dict(zip(tests, "*†‡"))                        # the tests' marks, in the order the tests were asked for
    significant = [row for row in data["comparison"] if row["significant"]]
    for row in significant:                                # each significant difference carries its test's mark...
        r, m = data["runs"].index(row["run"]), data["measures"].index(row["measure"])
        assert marks[row["test"]] in cells[r][1 + m], (row, cells)
        assert f"{marks[row['test']]} {row['test']} test" in legend, legend           # ...which the legend explains
    shown = {mark for row in cells for cell in row for mark in "*†‡" if mark in cell}
    assert shown == {marks[row["test"]] for row in significant}
    assert {mark for mark in "*†‡" if mark in legend} == shown                 # and the legend explains no other mark
    if not significant:
        assert legend.startswith("No mean differs significantly from A under the t test")
    else:
        assert tests == ("t", "randomization", "bootstrap") and shown == {"‡"}   # the sample's five queries: bootstrap only


MEASURE_WIDTHS = """
    const width = document.documentElement.clientWidth, wide = [];
    for (const node of document.querySelectorAll('table, svg, select, input, .controls, h1, p, li')) {
      const box = node.getBoundingClientRect();
      if (box.width && (box.right > width + 0.5 || box.left < -0.5))
        wide.push(`${node.tagName}#${node.id} ${Math.round(box.left)}..${Math.round(box.right)}`);
    }
    return [width, document.documentElement.scrollWidth, wide];"""
LONG = "a_run_name_that_goes_on_and_on_without_a_single_space_" * 2


def long_names_page(path: Path) -> Path:
    query, doc = "query-" + "x" * 80, "document-" + "y" * 80
    qrels = {query: {doc: 2, "d2": 1}, "plain": {"x": 1}}
    runs = {LONG + "1": {query: {doc: 1.0, "d2": 2.0}, "plain": {"x": 1.0}}, LONG + "2": {query: {doc: 3.0}, "plain": {"x": 0.5}}}
    return report(qrels, runs, ["ndcg", "nDCG@2"], path=path, tests="t")


@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("which", ["sample", "twelve", "long names"])
def test_nothing_is_wider_than_the_page_in_chromium(browser, tmp_path, width, which):
    if which == "sample":
        page = report(SAMPLE_QRELS, SAMPLE_RUNS, MEASURES, path=tmp_path / "page.html", seed=0)
    elif which == "twelve":
        page = report(*twelve_runs(), path=tmp_path / "page.html", tests=("t", "bootstrap"), resamples=500)
    else:
        page = long_names_page(tmp_path / "page.html")
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                            {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": False})
    try:
        open_page(browser, page)
        browser.find_elements("css selector", "tr.query-row")[0].click()           # per-rank and bounds tables too
        browser.find_element("css selector", "#convention summary").click()
        page_width, scrolled, wide = browser.execute_script(MEASURE_WIDTHS)
        assert page_width == width
        assert (scrolled, wide) == (width, []), f"wider than the page at {width} px: {wide}"
        assert len(browser.find_elements("css selector", "tr.detail table.ranks")) >= 1
        titles = browser.find_elements("css selector", "svg#difference-chart text.axis-title")
        assert sorted(t.get_attribute("class") for t in titles) == ["axis-title x-title", "axis-title y-title"]  # one per axis
        png = ARTIFACTS / f"report-page-{which.replace(' ', '-')}-{width}.png"
        browser.save_screenshot(str(png))
        assert console_errors(browser) == []
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_hostile_run_names_in_the_picker_stay_text_in_chromium(browser, tmp_path):
    runs = {**HOSTILE_RUNS, "<img src=x onerror=\"window.__pwned='run'\">": HOSTILE_RUNS["B\"'<!--"]}
    page = tmp_path / "hostile-runs.html"
    page.write_text(report_html(HOSTILE_QRELS, runs, ["ndcg"], tests="t"), encoding="utf-8")
    open_page(browser, page)
    names = list(runs)
    for name in ("run", "against"):
        assert [o.text for o in browser.find_elements("css selector", f"#choose-{name} option")] == names
    assert [r.find_element("css selector", "td").text for r in browser.find_elements("css selector", "#runs-table tbody tr")] == names
    pick(browser, "against", 2)
    pick(browser, "run", 0)
    assert list(table_columns(browser))[1:4] == [names[2], names[0], f"{names[0]} − {names[2]}"]
    title = browser.find_element("css selector", "svg#difference-chart text.y-title").text
    assert title == f"\u2068ndcg\u2069: \u2068{names[0]}\u2069 − \u2068{names[2][:17]}…\u2069"   # a long name clipped, as text
    assert browser.execute_script("return document.querySelectorAll('img, iframe, object, embed').length") == 0
    assert browser.execute_script("return window.__pwned === undefined")
    assert console_errors(browser) == []
