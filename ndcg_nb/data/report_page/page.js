
"use strict";
const DATA = JSON.parse(document.getElementById("report-data").textContent);
const SVG_NS = "http://www.w3.org/2000/svg";
const state = {measure: DATA.detail.measure, run: DATA.others.length ? DATA.others[0] : DATA.baseline,
               against: DATA.baseline, sort: "query", descending: false, filter: "", show: "all", least: 0,
               open: new Set(), width: 0};

function el(tag, attrs, ...kids) {
  const node = tag.startsWith("svg:") ? document.createElementNS(SVG_NS, tag.slice(4)) : document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) node.setAttribute(name, String(value));
  node.append(...kids.map(kid => kid instanceof Node ? kid : String(kid ?? "")));
  return node;
}
function own(table, key) { return table && Object.prototype.hasOwnProperty.call(table, key) ? table[key] : null; }
function fmt(x, decimals = 4) {
  if (x === null || x === undefined) return "";
  if (x !== 0 && Math.abs(x) < 0.5 * 10 ** -decimals) return x.toExponential(1);
  return x.toFixed(decimals);
}
function short(x) { return typeof x === "number" ? (Number.isInteger(x) ? String(x) : fmt(x)) : (x ?? ""); }
function signed(x) { return x === null || x === undefined ? "" : (x > 0 ? "+" : "") + fmt(x); }
function numCell(x, text) { return el("td", {class: "num"}, text ?? fmt(x)); }
function said(...parts) { return parts.map((part, k) => k % 2 ? el("bdi", {}, part) : part); }
function isolated(text) { return `\u2068${text}\u2069`; }
function plain(...parts) { return parts.map((part, k) => k % 2 ? isolated(part) : part).join(""); }
function clipped(name, most = 18) { return name.length > most ? name.slice(0, most - 1) + "…" : name; }

function alone() { return state.run === state.against; }
function pairRuns() { return alone() ? [state.run] : [state.against, state.run]; }
function boundsOf(i) {
  const rows = DATA.bounds.rows[state.measure];
  return rows ? pairRuns().map(r => own(rows[r], i)).filter(b => b) : [];
}
function queryRows() {
  const values = DATA.values[state.measure], base = values[state.against], mine = values[state.run];
  return DATA.queries.map((query, i) => {
    const found = boundsOf(i);
    return {i, query, against: base[i], run: mine[i],
            diff: alone() || base[i] === null || mine[i] === null ? null : mine[i] - base[i],
            ties: found.length ? Math.max(...found.map(b => b[2] - b[1])) : null,
            judged: found.length ? Math.min(...found.map(b => b[5] ?? 1)) : null};
  });
}

function byColumn(a, b) {
  const x = a[state.sort], y = b[state.sort];
  if (x === y) return a.i - b.i;
  if (x === null) return 1;
  if (y === null) return -1;
  const order = typeof x === "string" ? x.localeCompare(y, undefined, {numeric: true}) : x - y;
  return (state.descending ? -order : order) || a.i - b.i;
}
function shown(row) {
  const d = row.diff;
  if (state.filter && !row.query.toLowerCase().includes(state.filter.toLowerCase())) return false;
  if (alone()) return true;
  if (state.least > 0 && (d === null || Math.abs(d) < state.least)) return false;
  if (state.show === "all") return true;
  return d !== null && (state.show === "better" ? d > 0 : state.show === "worse" ? d < 0 : d === 0);
}

function columns() {
  const first = DATA.runs[state.run], second = DATA.runs[state.against];
  const cols = [["query", ["query"], false], ["against", ["", second], true]];
  if (!alone()) cols.push(["run", ["", first], true], ["diff", ["", first, " − ", second], true]);
  if (DATA.bounds.rows[state.measure]) cols.push(["ties", ["tie range"], true], ["judged", ["judged share"], true]);
  return cols;
}
function headerRow(cols) {
  return el("tr", {}, ...cols.map(([key, label, numeric]) => {
    const arrow = state.sort === key ? (state.descending ? " ▼" : " ▲") : "";
    const th = el("th", {"data-sort": key, class: numeric ? "num" : ""}, ...said(...label), arrow);
    th.addEventListener("click", () => {
      state.descending = state.sort === key ? !state.descending : numeric;
      state.sort = key;
      renderTable();
    });
    return th;
  }));
}

function queryCell(row, key) {
  if (key === "query") return el("td", {class: "query"}, row.query);
  if (key === "diff") return el("td", {class: "num " + (row.diff > 0 ? "up" : row.diff < 0 ? "down" : "")}, signed(row.diff));
  return key === "judged" ? numCell(row.judged, fmt(row.judged, 2)) : numCell(row[key]);
}
function queryRow(row, cols) {
  const tr = el("tr", {class: "query-row", "data-query-index": row.i}, ...cols.map(([key]) => queryCell(row, key)));
  tr.addEventListener("click", () => toggle(tr, row, cols.length));
  return tr;
}
function renderTable() {
  const cols = columns(), body = el("tbody");
  if (!cols.some(([key]) => key === state.sort)) Object.assign(state, {sort: "query", descending: false});
  const rows = queryRows().filter(shown).sort(byColumn);
  for (const row of rows) {
    const tr = queryRow(row, cols);
    body.append(tr);
    if (state.open.has(row.i)) { tr.classList.add("open"); body.append(detailRow(row, cols.length)); }
  }
  document.getElementById("query-table").replaceChildren(el("thead", {}, headerRow(cols)), body);
  document.getElementById("table-count").textContent = `${rows.length} of ${DATA.queries.length} queries shown`;
  fitTables();
}
function toggle(tr, row, width) {
  if (state.open.delete(row.i)) { tr.classList.remove("open"); tr.nextElementSibling.remove(); }
  else { state.open.add(row.i); tr.classList.add("open"); tr.after(detailRow(row, width)); }
  fitTables();
}

function rankTable(d) {
  const body = el("tbody"), headers = DATA.detail.headers;
  const add = (row, kind) => body.append(el("tr", {class: (row[2] > 0 ? "relevant " : "") + kind},
    ...row.map((v, c) => el("td", {class: typeof v === "number" ? "num" : "id", "data-label": headers[c]}, short(v)))));
  d.rows.forEach(row => add(row, "rank"));
  if (d.last && d.depth > d.rows.length + 1)
    body.append(el("tr", {class: "gap"}, el("td", {colspan: headers.length}, `ranks ${d.rows.length + 1} to ${d.depth - 1} not shown`)));
  if (d.last) add(d.last, "rank last");
  const head = el("tr", {}, ...headers.map(h => el("th", {}, h)));
  return el("table", {class: "ranks reflow"}, el("thead", {}, head), body);
}
function runDetail(r, d) {
  const box = el("div", {class: "run-detail"}, el("h4", {}, DATA.runs[r]));
  if (d === null) { box.append(el("p", {class: "note"}, "This run ranks no document for this query.")); return box; }
  const numbers = ` ${fmt(d.value)} (DCG ${fmt(d.dcg)}, IDCG ${fmt(d.idcg)})`;
  box.append(el("p", {}, ...said("", DATA.measures[DATA.detail.measure], numbers)));
  if (d.note) box.append(el("p", {class: "note"}, d.note));
  if (d.rows.length) box.append(rankTable(d));
  return box;
}

function boundsTable(i) {
  if (!DATA.bounds.computed) return el("p", {class: "note"}, "Bounds were not computed.");
  const body = el("tbody"), headers = ["measure", "run", ...DATA.bounds.columns];
  DATA.bounds.rows.forEach((runs, m) => runs && pairRuns().forEach(r => {
    const b = own(runs[r], i);
    if (b) body.append(el("tr", {}, ...[DATA.measures[m], DATA.runs[r], ...b].map((v, c) =>
      el("td", {class: c > 1 ? "num" : "id", "data-label": headers[c]}, c > 1 ? fmt(v) : v))));
  }));
  if (!body.children.length) return el("p", {class: "note"}, "No tie and no unjudged document could move these values.");
  const head = el("tr", {}, ...headers.map(h => el("th", {}, h)));
  return el("div", {class: "bounds"}, el("h4", {}, "What ties and unjudged documents could do"),
            el("table", {class: "reflow"}, el("thead", {}, head), body));
}
function detailRow(row, width) {
  const box = el("div", {class: "detail-box"}), lists = own(DATA.detail.lists, row.i);
  if (lists) pairRuns().forEach(r => box.append(runDetail(r, lists[r])));
  else box.append(el("p", {class: "note"}, DATA.detail.missing));
  box.append(boundsTable(row.i));
  return el("tr", {class: "detail"}, el("td", {colspan: width}, box));
}

function runsSummary(r) {
  const values = DATA.values[state.measure], base = values[state.against], mine = values[r];
  const d = DATA.queries.map((q, i) => mine[i] === null || base[i] === null ? null : mine[i] - base[i]).filter(x => x !== null);
  const mean = r === state.against || !d.length ? null : d.reduce((a, b) => a + b, 0) / d.length;
  return [DATA.means[r][state.measure], mean, ...(r === state.against ? ["", "", ""] :
          [d.filter(x => x > 0).length, d.filter(x => x < 0).length, d.filter(x => x === 0).length].map(String))];
}
function renderRuns() {
  const box = document.getElementById("runs-view");
  if (DATA.runs.length <= 2) { box.replaceChildren(); return; }
  const second = DATA.runs[state.against];
  const labels = [["run"], ["mean"], ["mean difference from ", second], ["better"], ["worse"], ["equal"]];
  const head = el("tr", {}, ...labels.map((label, c) => el("th", {class: c ? "num" : ""}, ...said(...label))));
  const body = el("tbody", {}, ...DATA.runs.map((name, r) => {
    const [mean, diff, ...counts] = runsSummary(r), texts = [fmt(mean), signed(diff), ...counts];
    const tr = el("tr", {class: r === state.run ? "picked" : r === state.against ? "against" : "", "data-run": r},
                  el("td", {class: "id", "data-label": "run"}, name),
                  ...texts.map((text, c) => el("td", {class: "num", "data-label": plain(...labels[c + 1])}, text)));
    tr.addEventListener("click", () => { state.run = r; renderAll(); });
    return tr;
  }));
  box.replaceChildren(el("p", {class: "note"}, ...said("Every run on ", DATA.measures[state.measure], " against ", second,
                                                     " over the queries both count; click a run to pick it.")),
                      el("table", {id: "runs-table", class: "reflow"}, el("thead", {}, head), body));
}

function chartPoints() {
  const values = DATA.values[state.measure], base = values[state.against], mine = values[state.run], points = [];
  DATA.queries.forEach((query, i) => {
    if (mine[i] !== null && (alone() || base[i] !== null)) points.push({i, query, y: alone() ? mine[i] : mine[i] - base[i]});
  });
  return points.sort((a, b) => b.y - a.y || a.i - b.i);
}
function niceTicks(low, high) {
  const raw = (high - low || 1) / 4, power = 10 ** Math.floor(Math.log10(raw));
  const factor = [1, 2, 2.5, 5, 10].find(f => f * power >= raw * (1 - 1e-9)), step = factor * power;
  const first = Math.floor(low / step + 1e-9), last = Math.ceil(high / step - 1e-9), ticks = [];
  for (let k = first; k <= last; k++) ticks.push(k * step);
  const decimals = Math.max(0, -Math.floor(Math.log10(step) + 1e-9) + (factor === 2.5 ? 1 : 0));
  return {ticks, decimals};
}
function chartScale(points) {
  const width = Math.max(280, Math.round(state.width) || 900), left = 64, right = 8, top = 10, plot = 200;
  const ys = points.map(p => p.y), {ticks, decimals} = niceTicks(Math.min(0, ...ys), Math.max(0, ...ys));
  const low = ticks[0], high = ticks[ticks.length - 1], step = (width - left - right) / Math.max(points.length, 1);
  const labelled = points.length > 0 && step >= 11, bottom = top + plot;
  return {width, left, right, top, bottom, height: bottom + (labelled ? 62 : 6) + 26, labelled, ticks, decimals, step,
          bar: Math.min(0.8 * step, 36), y: v => top + (high - v) / ((high - low) || 1) * plot, x: j => left + (j + 0.5) * step};
}

function chartBar(p, j, s, text) {
  const top = Math.min(s.y(p.y), s.y(0)), size = Math.abs(s.y(p.y) - s.y(0));
  const bar = el("svg:rect", {class: `bar ${p.y > 0 ? "up" : p.y < 0 ? "down" : "flat"}`, x: s.x(j) - s.bar / 2,
                              y: p.y === 0 ? top - 1 : top, width: Math.max(s.bar, 0.5),
                              height: p.y === 0 ? 2 : Math.max(size, 0.5), "data-query-index": p.i},
                 el("svg:title", {}, plain("", p.query, `: ${text(p.y)}`)));
  bar.addEventListener("click", () => openQuery(p.i));
  return bar;
}
function chartAxis(s, mean, titles) {
  const tick = v => Math.abs(v) < 1e-12 ? "0" : (alone() || v < 0 ? "" : "+") + v.toFixed(s.decimals);
  const marks = s.ticks.flatMap(v => [el("svg:line", {class: "grid", x1: s.left, x2: s.width - s.right, y1: s.y(v), y2: s.y(v)}),
                                      el("svg:text", {class: "tick", x: s.left - 6, y: s.y(v) + 4, "text-anchor": "end"}, tick(v))]);
  const middle = (s.top + s.bottom) / 2, centre = (s.left + s.width - s.right) / 2;
  return marks.concat(el("svg:line", {class: "zero", x1: s.left, x2: s.width - s.right, y1: s.y(0), y2: s.y(0)}),
                      el("svg:line", {class: "mean", x1: s.left, x2: s.width - s.right, y1: s.y(mean), y2: s.y(mean)}),
                      el("svg:text", {class: "axis-title y-title", x: 14, y: middle, "text-anchor": "middle",
                                      transform: `rotate(-90 14 ${middle})`}, titles[0]),
                      el("svg:text", {class: "axis-title x-title", x: centre, y: s.height - 8, "text-anchor": "middle"},
                         titles[1]));
}
function chartLabel(p, j, s) {
  const name = p.query.length > 14 ? plain("", p.query.slice(0, 13), "…") : p.query, x = s.x(j), y = s.bottom + 10;
  return el("svg:text", {x, y, transform: `rotate(60 ${x} ${y})`, class: "query-label"}, name);
}

function renderChart() {
  const box = document.getElementById("chart");
  state.width = box.clientWidth;
  const points = chartPoints(), s = chartScale(points), single = alone();
  const measure = DATA.measures[state.measure], first = DATA.runs[state.run], second = DATA.runs[state.against];
  const label = single ? ["", measure, " of ", first, " per query, highest first"]
                       : ["", measure, ": ", first, " − ", second, " per query, largest gain first"];
  const titles = [single ? plain("", clipped(measure), " of ", clipped(first))
                         : plain("", clipped(measure), ": ", clipped(first), " − ", clipped(second)),
                  `queries (${points.length}), ${single ? "highest" : "largest gain"} first`];
  const mean = points.reduce((sum, p) => sum + p.y, 0) / (points.length || 1);
  const svg = el("svg:svg", {id: "difference-chart", viewBox: `0 0 ${s.width} ${s.height}`, role: "img"},
                 el("svg:title", {}, plain(...label)), ...chartAxis(s, mean, titles));
  points.forEach((p, j) => svg.append(chartBar(p, j, s, single ? fmt : signed)));
  if (s.labelled) points.forEach((p, j) => svg.append(chartLabel(p, j, s)));
  box.replaceChildren(svg);
  const up = points.filter(p => p.y > 0).length, down = points.filter(p => p.y < 0).length;
  document.getElementById("chart-caption").replaceChildren(...said(...label), single ? `; mean ${fmt(mean)} (dashed)` :
    `: ${up} better, ${down} worse, ${points.length - up - down} equal; mean difference ${signed(mean)} (dashed)`);
}

function choice(name, options, value, change) {
  const select = el("select", {id: `choose-${name}`});
  for (const [v, text] of options) { const o = el("option", {value: v}, text); o.selected = String(v) === String(value); select.append(o); }
  select.addEventListener("change", () => change(select.value));
  return el("label", {}, `${name} `, select);
}
function field(id, attrs, change) {
  const input = el("input", {id, ...attrs});
  input.addEventListener("input", () => { change(input.value); renderTable(); });
  return input;
}
function renderPair() {
  const runs = DATA.runs.map((name, r) => [r, name]);
  document.getElementById("pair-controls").replaceChildren(
    choice("measure", DATA.measures.map((m, j) => [j, m]), state.measure, v => { state.measure = +v; renderAll(); }),
    choice("run", runs, state.run, v => { state.run = +v; renderAll(); }),
    choice("against", runs, state.against, v => { state.against = +v; renderAll(); }));
}
function renderControls() {
  const second = DATA.runs[state.against];
  const parts = [];
  if (!alone()) parts.push(
    choice("show", [["all", "all queries"], ["better", plain("better than ", second)], ["worse", plain("worse than ", second)],
                    ["equal", "equal"]], state.show, v => { state.show = v; renderTable(); }),
    el("label", {}, "|difference| ≥ ", field("least-difference", {type: "number", min: 0, step: 0.01, value: state.least},
                                              v => { state.least = Number(v) || 0; })));
  parts.push(field("query-filter", {type: "search", placeholder: "query id contains", value: state.filter},
                   v => { state.filter = v; }));
  document.getElementById("controls").replaceChildren(...parts);
}

function openQuery(i) {
  Object.assign(state, {filter: "", show: "all", least: 0});
  state.open.add(i);
  renderControls();
  renderTable();
  const tr = document.querySelector(`tr.query-row[data-query-index="${i}"]`);
  if (tr) tr.scrollIntoView({block: "center"});
}
function overflows(table) {
  const page = document.documentElement, body = document.body;
  const right = body.getBoundingClientRect().right - parseFloat(getComputedStyle(body).paddingRight);
  return table.getBoundingClientRect().right > right + 0.5 || page.scrollWidth > page.clientWidth;
}
function fitTables() {
  const tables = [...document.querySelectorAll("table.reflow")];
  tables.forEach(table => table.classList.add("reflowed"));
  for (const table of tables) {
    table.classList.remove("reflowed");
    if (overflows(table)) table.classList.add("reflowed");
  }
}
function renderAll() { renderPair(); renderRuns(); renderControls(); renderChart(); renderTable(); }
window.addEventListener("resize", () => {
  if (document.getElementById("chart").clientWidth !== state.width) renderChart();
  fitTables();
});
renderAll();
