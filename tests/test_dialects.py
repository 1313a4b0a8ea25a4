"""A measure's dialect decides its convention when no preset is named, and a measure named
twice is computed once. The numbers are the tools' own, run here: pytrec_eval for trec_eval's names,
ir_measures for ir_measures', ranx for ranx's."""
import json

import numpy as np
import pytest

from ndcg_nb import Evaluator, evaluate
from ndcg_nb.__main__ import main
from ndcg_nb.engine.runs import SAMPLE_QRELS, SAMPLE_RUN
from ndcg_nb.errors import UsageError

WRITTEN = ["ndcg_cut.10", "nDCG@10", "ndcg@10"]


def _dicts():
    qrels, run = {}, {}
    for line in SAMPLE_QRELS.read_text().splitlines():
        q, _, d, r = line.split()
        qrels.setdefault(q, {})[d] = int(r)
    for line in SAMPLE_RUN.read_text().splitlines():
        q, _, d, _, s, _ = line.split()
        run.setdefault(q, {})[d] = float(s)
    return qrels, run


def _tools():
    "NDCG@10 of the sample by trec_eval (pytrec_eval), ir_measures and ranx, each run here."
    pytrec_eval = pytest.importorskip("pytrec_eval")
    ir_measures = pytest.importorskip("ir_measures")
    ranx = pytest.importorskip("ranx")
    qrels, run = _dicts()
    trec = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"}).evaluate(run)
    measure = ir_measures.nDCG @ 10
    ir = ir_measures.calc_aggregate([measure], [ir_measures.Qrel(q, d, r) for q, docs in qrels.items()
                                                for d, r in docs.items()],
                                    [ir_measures.ScoredDoc(q, d, s) for q, docs in run.items() for d, s in docs.items()])
    ranx_value = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), "ndcg@10", make_comparable=True)
    return {"ndcg_cut_10": np.mean([v["ndcg_cut_10"] for v in trec.values()]), "nDCG@10": ir[measure],
            "ndcg@10": float(ranx_value)}


def test_no_preset_each_name_its_tools_number():
    tools = _tools()
    result = evaluate(SAMPLE_QRELS, SAMPLE_RUN, WRITTEN)
    assert result.aggregate["measure"].tolist() == list(tools)
    for name, value in tools.items():
        assert result.value(name) == pytest.approx(value, abs=1e-9, rel=0), name
    assert round(tools["ndcg_cut_10"], 4) == 0.1431 and round(tools["nDCG@10"], 4) == 0.1193
    assert [c.preset for c in result.conventions.values()] == ["trec_eval", "ir_measures", "ranx"]
    assert result.notes == ("no preset named, so each measure takes the convention of its dialect: trec_eval for "
                            "ndcg_cut_10; ir_measures for nDCG@10; ranx for ndcg@10",)
    assert repr(result).splitlines()[1].startswith("  ndcg_cut_10: preset trec_eval")
    data = json.loads(result.to_json())
    assert data["convention"]["preset"] == "trec_eval" and sorted(data["conventions"]) == ["nDCG@10", "ndcg@10"]


@pytest.mark.parametrize("preset", ["trec_eval", "ir_measures", "ranx", "sklearn"])
def test_a_preset_named_wins(preset):
    result = evaluate(SAMPLE_QRELS, SAMPLE_RUN, WRITTEN, preset=preset)
    values = result.aggregate["value"].tolist()
    assert values[0] == values[1] == values[2]
    assert values[0] == evaluate(SAMPLE_QRELS, SAMPLE_RUN, ["ndcg_cut.10"], preset=preset).value("ndcg_cut_10")
    assert {c.preset for c in result.conventions.values()} == {preset}
    assert not any(note.startswith("no preset named") for note in result.notes)


def test_overrides_apply_to_every_dialect():
    tools = _tools()
    skipped = evaluate(SAMPLE_QRELS, SAMPLE_RUN, WRITTEN, missing_queries="skip")
    assert skipped.aggregate["value"].tolist() == pytest.approx([tools["ndcg_cut_10"]] * 3, abs=1e-9)
    completed = evaluate(SAMPLE_QRELS, SAMPLE_RUN, WRITTEN, missing_queries="zero")
    assert completed.aggregate["value"].tolist() == pytest.approx([tools["nDCG@10"]] * 3, abs=1e-9)
    exponential = evaluate(SAMPLE_QRELS, SAMPLE_RUN, WRITTEN, gain="exponential")
    assert [c.gain for c in exponential.conventions.values()] == ["exponential"] * 3
    assert [c.preset for c in exponential.conventions.values()] == ["trec_eval", "ir_measures", "ranx"]


def test_what_a_name_says_stays_under_a_preset():
    burges = evaluate(SAMPLE_QRELS, SAMPLE_RUN, ["ndcg_burges@10", "nDCG(judged_only=True)@10"], preset="trec_eval")
    conventions = list(burges.conventions.values())
    assert (conventions[0].gain, conventions[1].unjudged) == ("exponential", "drop")
    assert {c.preset for c in conventions} == {"trec_eval"}


def test_the_held_evaluator_and_the_front_door_agree():
    held = Evaluator(SAMPLE_QRELS, WRITTEN).evaluate(SAMPLE_RUN)
    once = evaluate(SAMPLE_QRELS, SAMPLE_RUN, WRITTEN)
    assert held.aggregate.equals(once.aggregate) and held.notes == once.notes


def test_case_sensitive_and_misspelt_names():
    with pytest.raises(UsageError, match="names are case-sensitive"):
        evaluate(SAMPLE_QRELS, SAMPLE_RUN, ["NDCG@10"])
    assert evaluate(SAMPLE_QRELS, SAMPLE_RUN, ["ndcg"]).conventions["ndcg"].preset == "trec_eval"   # not ranx's


def test_a_measure_named_twice_is_computed_once(capsys):
    result = evaluate(SAMPLE_QRELS, SAMPLE_RUN, ["ndcg_cut.10", "ndcg", "ndcg_cut_10", "ndcg_cut.10", "ndcg"])
    assert result.aggregate["measure"].tolist() == ["ndcg_cut_10", "ndcg"]
    assert main(["eval", str(SAMPLE_QRELS), str(SAMPLE_RUN), "-m", "ndcg_cut.10", "-m", "ndcg_cut_10", "-m",
                 "nDCG@10", "-m", "nDCG()@10", "-q", "--silent"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split("\t")[0].strip() for line in lines if "\tall\t" in line] == ["ndcg_cut_10", "nDCG@10"]
    assert len(lines) == len(set(lines))


def test_command_line_by_dialect_and_by_preset(capsys):
    assert main(["eval", str(SAMPLE_QRELS), str(SAMPLE_RUN), *sum((["-m", m] for m in WRITTEN), [])]) == 0
    out, err = capsys.readouterr()
    assert [line.split("\t")[2] for line in out.splitlines()] == ["0.1431", "0.1193", "0.1193"]
    assert "ndcg-nb: note: no preset named, so each measure takes the convention of its dialect" in err
    assert main(["eval", str(SAMPLE_QRELS), str(SAMPLE_RUN), *sum((["-m", m] for m in WRITTEN), []),
                 "--preset", "ranx"]) == 0
    out, _ = capsys.readouterr()
    assert len({line.split("\t")[2] for line in out.splitlines()}) == 1
    assert main(["eval", str(SAMPLE_QRELS), str(SAMPLE_RUN), "-m", "nDCG@10", "-c", "--silent"]) == 0
    assert capsys.readouterr().out.split("\t")[2].strip() == "0.1193"
