"""What ndcg_nb.analysis.plots draws: bars, lines, their values, labels and titles (Agg backend, no window)."""
import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest

from ndcg_nb import explain, ndcg
from ndcg_nb.analysis.plots import plot_cumulative_dcg, plot_discount_curves, plot_discounted_gains, plot_ndcg_at_k


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def legend_texts(ax):
    return [t.get_text() for t in ax.get_legend().get_texts()]


def test_discounted_gains_bars_match_explain():
    grades = [3, 2, 3, 0, 1, 2]
    ax = plot_discounted_gains(grades, 5, gain="exponential")
    table = explain(grades, 5, gain="exponential")
    ranked, ideal = ax.containers
    assert (len(ranked), len(ideal)) == (5, 5)
    assert len(ax.patches) == 10
    np.testing.assert_allclose([b.get_height() for b in ranked], table.discounted_gain, rtol=0, atol=1e-12)
    np.testing.assert_allclose([b.get_height() for b in ideal], table.ideal_discounted_gain, rtol=0, atol=1e-12)
    # ranked bars sit left of each rank, ideal bars right of it
    assert all(r.get_x() < i.get_x() for r, i in zip(ranked, ideal))
    assert legend_texts(ax) == ["ranked list", "ideal order"]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("rank", "discounted gain")
    assert ax.get_title() == "Discounted gain per rank (gain exponential, discount log2)"
    assert not ax.texts  # no item labels unless items are given


def test_discounted_gains_item_labels_and_short_list():
    ax = plot_discounted_gains([0.5, 0.9], 3, items=["A", "B"], ideal=[0.9, 0.6, 0.5], ideal_items="BDA")
    ranked, ideal = ax.containers
    assert (len(ranked), len(ideal)) == (2, 3)
    assert [t.get_text() for t in ax.texts] == ["A", "B", "B", "D", "A"]
    assert ideal[0].get_height() == pytest.approx(0.9, abs=1e-15)


def test_negative_grades_give_negative_bars():
    ax = plot_discounted_gains([1, 1, 1, -1], ideal=[1, 1, 1])
    ranked, _ = ax.containers
    assert ranked[3].get_height() == pytest.approx(-1 / np.log2(5), abs=1e-12)


def test_given_axes_is_used_and_returned():
    fig, (left, right) = plt.subplots(1, 2)
    for plot, args in ((plot_discounted_gains, ([1, 0, 2],)), (plot_cumulative_dcg, ([1, 0, 2],)),
                       (plot_ndcg_at_k, ([1, 0, 2],)), (plot_discount_curves, (4,))):
        right.clear()
        assert plot(*args, ax=right) is right
        assert not left.get_lines() and not left.patches
        assert right.get_lines() or right.patches


def test_cumulative_lines():
    ax = plot_cumulative_dcg([1, 1, 1], 5, ideal=[1] * 5)
    dcg_line, idcg_line = ax.get_lines()
    assert list(dcg_line.get_xdata()) == [1, 2, 3, 4, 5]
    expected_ideal = np.cumsum(1 / np.log2(np.arange(2, 7)))
    np.testing.assert_allclose(idcg_line.get_ydata(), expected_ideal, rtol=0, atol=1e-12)
    # the list ends at rank 3, so its running DCG stays at the rank-3 value
    np.testing.assert_allclose(dcg_line.get_ydata(), expected_ideal[[0, 1, 2, 2, 2]], rtol=0, atol=1e-12)
    assert legend_texts(ax) == ["DCG up to rank", "IDCG up to rank"]
    assert ax.get_xlabel() == "rank"
    assert ax.get_title().startswith("Cumulative DCG and IDCG")


def test_ndcg_at_k_line_and_comparison():
    grades = [3, 2, 3, 0, 1]
    ax = plot_ndcg_at_k(grades, [1, 3, 5, 10], label="vendor example")
    (line,) = ax.get_lines()
    assert list(line.get_xdata()) == [1, 3, 5, 10]
    np.testing.assert_allclose(line.get_ydata(), [ndcg(grades, k) for k in (1, 3, 5, 10)], rtol=0, atol=1e-15)
    assert line.get_ydata()[2] == line.get_ydata()[3]  # a list of 5 scores the same at 5 and 10
    plot_ndcg_at_k([1, 0, 0], ideal=[1, 1, 1], label="other", ax=ax)
    assert len(ax.get_lines()) == 2
    assert legend_texts(ax) == ["vendor example", "other"]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("depth k", "NDCG@k")


def test_ndcg_at_k_default_depths_follow_the_ideal_pool():
    ax = plot_ndcg_at_k([1, 1, 1], ideal=[1] * 5, truncation="pad")
    (line,) = ax.get_lines()
    assert list(line.get_xdata()) == [1, 2, 3, 4, 5]
    assert line.get_ydata()[-1] == pytest.approx(ndcg([1, 1, 1], 5, ideal=[1] * 5), abs=1e-15)


def test_discount_curves():
    ax = plot_discount_curves(6, ["log2", "ln", "none", "log:base=10"])
    lines = ax.get_lines()
    assert len(lines) == 4
    ranks = np.arange(1, 7)
    for line, expected in zip(lines, (1 / np.log2(ranks + 1), 1 / np.log(ranks + 1), np.ones(6),
                                      1 / np.log10(ranks + 1))):
        assert list(line.get_xdata()) == list(ranks)
        np.testing.assert_allclose(line.get_ydata(), expected, rtol=0, atol=1e-12)
    assert [t.split(":")[0] for t in legend_texts(ax)] == ["log2", "ln", "none", "log"]
    assert ax.get_title() == "Discount curves"
    assert ax.get_ylabel() == "weight on the gain"


@pytest.mark.parametrize("bad", [0, -3, 2.5, True])
def test_discount_curves_reject_bad_depth(bad):
    with pytest.raises(ValueError, match="max_rank must be a positive integer"):
        plot_discount_curves(bad)


# ---- a per-query plot of one evaluation; plots saved with a plain savefig keep their text whole

def _text_outside(figure, ax) -> list[str]:
    "The title and axis labels of `ax` whose extents, as the PNG renderer draws them after `savefig`, leave the figure."
    import tempfile
    from pathlib import Path

    import matplotlib.image
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(figure)
    with tempfile.TemporaryDirectory() as folder:
        figure.savefig(Path(folder) / "plot.png")                    # no bbox_inches: the figure as laid out
        height, width = matplotlib.image.imread(Path(folder) / "plot.png").shape[:2]
    assert (height, width) == (round(figure.bbox.height), round(figure.bbox.width))
    renderer = canvas.get_renderer()
    outside = []
    for text in (ax.title, ax.xaxis.label, ax.yaxis.label):
        box = text.get_window_extent(renderer)
        if not (0 <= box.x0 and box.x1 <= width and 0 <= box.y0 and box.y1 <= height):
            outside.append(text.get_text())
    return outside


def _sample_runs():
    from ndcg_nb.analysis.comparison import SAMPLE_RUN_B, evaluate_runs
    from ndcg_nb.engine.runs import SAMPLE_QRELS, SAMPLE_RUN
    return evaluate_runs(SAMPLE_QRELS, [SAMPLE_RUN, SAMPLE_RUN_B], ["ndcg", "nDCG@10"])


def test_plot_differences_saved_plainly_keeps_title_and_labels():
    runs = _sample_runs()
    ax = runs.plot_differences("sample_b", "nDCG@10")
    assert _text_outside(ax.figure, ax) == []
    control, ax = plt.subplots(figsize=ax.figure.get_size_inches())    # the same plot without a layout: clipped
    runs.plot_differences("sample_b", "nDCG@10", ax=ax)
    assert _text_outside(control, ax) != []


def test_per_query_plot_of_one_evaluation():
    from ndcg_nb.analysis.plots import plot_per_query
    from ndcg_nb.engine.runs import SAMPLE_QRELS, SAMPLE_RUN
    from ndcg_nb.evaluation import evaluate

    evaluation = evaluate(SAMPLE_QRELS, SAMPLE_RUN, ["ndcg", "ndcg_cut.10"], missing_queries="zero")
    ax = plot_per_query(evaluation, "ndcg_cut.10")
    rows = evaluation.per_query[evaluation.per_query.measure == "ndcg_cut_10"]
    heights = [bar.get_height() for bar in ax.patches]
    assert heights == sorted(rows["value"], reverse=True)            # sorted, highest first, every counted query
    (mean,) = [line for line in ax.get_lines() if line.get_linestyle() == "--"]
    assert mean.get_ydata()[0] == pytest.approx(evaluation.value("ndcg_cut.10"), abs=1e-15)
    assert [t.get_text() for t in ax.get_xticklabels()] == list(rows.sort_values("value", ascending=False,
                                                                                  kind="stable")["query"])
    assert _text_outside(ax.figure, ax) == []


def test_a_turned_run_tag_keeps_to_itself_in_the_per_query_title():
    "A run tag ending in U+202E RIGHT-TO-LEFT OVERRIDE would turn the rest of the title around: it stands isolated."
    import io

    from ndcg_nb.analysis.plots import plot_per_query
    from ndcg_nb.engine.runs import SAMPLE_QRELS, SAMPLE_RUN, read_run
    from ndcg_nb.evaluation import evaluate

    run = read_run(io.BytesIO(SAMPLE_RUN.read_bytes().replace(b" sample\n", " ab\u202ecd\n".encode())))
    ax = plot_per_query(evaluate(SAMPLE_QRELS, run, "ndcg_cut.10"), "ndcg_cut.10")
    assert ax.get_title() == "\u2068ndcg_cut_10\u2069 per query (\u2068ab\u202ecd\u2069)"
