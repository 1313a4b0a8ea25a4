"""Render Sphinx math nodes as MathML (latex2mathml), which browsers display natively.

MathJax, Sphinx's default, loads from a CDN: the built site would need the network, and a
page checked offline logs a failed request. MathML needs no script and no asset.
"""
from docutils import nodes
from latex2mathml.converter import convert


def _mathml(latex: str, display: str) -> str:
    return convert(latex.strip(), display=display)


def visit_math(self, node):
    self.body.append(_mathml(node.astext(), "inline"))
    raise nodes.SkipNode


def visit_displaymath(self, node):
    latex = node.astext() if node.get("nowrap") else "\\begin{aligned}" + node.astext() + "\\end{aligned}" \
        if "\\\\" in node.astext() else node.astext()
    self.body.append(f'<div class="math-display">{_mathml(latex, "block")}</div>\n')
    raise nodes.SkipNode


def setup(app):
    app.add_html_math_renderer("mathml", (visit_math, None), (visit_displaymath, None))
    return {"parallel_read_safe": True, "parallel_write_safe": True}
