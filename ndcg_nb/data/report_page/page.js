
"use strict";
const DATA = JSON.parse(document.getElementById("report-data").textContent);
const SVG_NS = "http://www.w3.org/2000/svg";
const state = {measure: DATA.detail.measure, run: DATA.others.length ? DATA.others[0] : DATA.baseline, sort: "query",
               descending: false, filter: "", show: "all", least: 0, open: new Set()};

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
function widest(numbers, pick) { return numbers.reduce((a, b) => pick(a, b), 0); }
function said(...parts) { return parts.map((part, k) => k % 2 ? el("bdi", {}, part) : part); }
function isolated(text) { return `\u2068${text}\u2069`; }
function plain(...parts) { return parts.map((part, k) => k % 2 ? isolated(part) : part).join(""); }

function boundsOf(i) {
  const rows = DATA.bounds.rows[state.measure];
  return rows ? rows.map(byQuery => own(byQuery, i)).filter(b => b) : [];
}
function queryRows() {
  const values = DATA.values[state.measure], base = values[DATA.baseline];
  return DATA.queries.map((query, i) => {
    const found = boundsOf(i);
    return {i, query, values: values.map(v => v[i]),
            diffs: DATA.others.map(r => values[r][i] === null || base[i] === null ? null : values[r][i] - base[i]),
            ties: found.length ? Math.max(...found.map(b => b[2] - b[1])) : null,
            judged: found.length ? Math.min(...found.map(b => b[5] ?? 1)) : null};
  });
}

function sortValue(row, key) {
  const [kind, j] = key.split(":");
  return kind === "value" ? row.values[+j] : kind === "diff" ? row.diffs[+j] : row[kind];
}
function byColumn(a, b) {
  const x = sortValue(a, state.sort), y = sortValue(b, state.sort);
  if (x === y) return a.i - b.i;
  if (x === null) return 1;
  if (y === null) return -1;
  const order = typeof x === "string" ? x.localeCompare(y, undefined, {numeric: true}) : x - y;
  return (state.descending ? -order : order) || a.i - b.i;
}
function shown(row) {
  const d = row.diffs[DATA.others.indexOf(state.run)] ?? null;
  if (state.filter && !row.query.toLowerCase().includes(state.filter.toLowerCase())) return false;
  if (state.least > 0 && (d === null || Math.abs(d) < state.least)) return false;
  if (state.show === "all") return true;
  return d !== null && (state.show === "better" ? d > 0 : state.show === "worse" ? d < 0 : d === 0);
}

function columns() {
  const cols = [["query", ["query"], false], ...DATA.runs.map((run, j) => [`value:${j}`, ["", run], true]),
                ...DATA.others.map((r, j) => [`diff:${j}`, ["", DATA.runs[r], " − ", DATA.runs[DATA.baseline]], true])];
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

function queryRow(row, cols) {
  const tr = el("tr", {class: "query-row", "data-query-index": row.i}, el("td", {class: "query"}, row.query),
                ...row.values.map(v => numCell(v)),
                ...row.diffs.map(d => el("td", {class: "num " + (d > 0 ? "up" : d < 0 ? "down" : "")}, signed(d))));
  if (cols.length > tr.children.length) tr.append(numCell(row.ties), numCell(row.judged, fmt(row.judged, 2)));
  tr.addEventListener("click", () => toggle(tr, row, cols.length));
  return tr;
}
function renderTable() {
  const cols = columns(), body = el("tbody"), rows = queryRows().filter(shown).sort(byColumn);
  for (const row of rows) {
    const tr = queryRow(row, cols);
    body.append(tr);
    if (state.open.has(row.i)) { tr.classList.add("open"); body.append(detailRow(row, cols.length)); }
  }
  document.getElementById("query-table").replaceChildren(el("thead", {}, headerRow(cols)), body);
  document.getElementById("table-count").textContent = `${rows.length} of ${DATA.queries.length} queries shown`;
}
function toggle(tr, row, width) {
  if (state.open.delete(row.i)) { tr.classList.remove("open"); tr.nextElementSibling.remove(); }
  else { state.open.add(row.i); tr.classList.add("open"); tr.after(detailRow(row, width)); }
}

function rankTable(d) {
  const body = el("tbody"), width = DATA.detail.headers.length;
  const add = (row, kind) => body.append(el("tr", {class: (row[2] > 0 ? "relevant " : "") + kind},
    ...row.map((v, c) => typeof v === "number" ? el("td", {class: "num"}, short(v)) : el("td", {}, v ?? ""))));
  d.rows.forEach(row => add(row, "rank"));
  if (d.last && d.depth > d.rows.length + 1)
    body.append(el("tr", {class: "gap"}, el("td", {colspan: width}, `ranks ${d.rows.length + 1} to ${d.depth - 1} not shown`)));
  if (d.last) add(d.last, "rank last");
  const head = el("tr", {}, ...DATA.detail.headers.map(h => el("th", {}, h)));
  return el("table", {class: "ranks"}, el("thead", {}, head), body);
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
  const body = el("tbody");
  DATA.bounds.rows.forEach((runs, m) => runs && runs.forEach((byQuery, r) => {
    const b = own(byQuery, i);
    if (b) body.append(el("tr", {}, el("td", {}, DATA.measures[m]), el("td", {}, DATA.runs[r]), ...b.map(v => numCell(v))));
  }));
  if (!body.children.length) return el("p", {class: "note"}, "No tie and no unjudged document could move these values.");
  const head = el("tr", {}, ...["measure", "run", ...DATA.bounds.columns].map(h => el("th", {}, h)));
  return el("div", {class: "bounds"}, el("h4", {}, "What ties and unjudged documents could do"),
            el("table", {}, el("thead", {}, head), body));
}
function detailRow(row, width) {
  const box = el("div", {class: "detail-box"}), lists = own(DATA.detail.lists, row.i);
  if (lists) lists.forEach((d, r) => box.append(runDetail(r, d)));
  else box.append(el("p", {class: "note"}, DATA.detail.missing));
  box.append(boundsTable(row.i));
  return el("tr", {class: "detail"}, el("td", {colspan: width}, box));
}

function chartPoints() {
  const values = DATA.values[state.measure], base = values[DATA.baseline], mine = values[state.run], points = [];
  const alone = state.run === DATA.baseline;
  DATA.queries.forEach((query, i) => {
    if (mine[i] !== null && (alone || base[i] !== null)) points.push({i, query, y: alone ? mine[i] : mine[i] - base[i]});
  });
  return points.sort((a, b) => b.y - a.y || a.i - b.i);
}
function chartScale(points) {
  const width = 900, left = 52, pad = 12, labelled = points.length <= 40, plot = 240 - 2 * pad;
  const high = widest(points.map(p => p.y), Math.max), low = widest(points.map(p => p.y), Math.min);
  const step = (width - left) / Math.max(points.length, 1);
  return {width, left, labelled, high, low, step, bar: Math.min(0.8 * step, 36), height: labelled ? 310 : 240,
          y: v => pad + (high - v) / ((high - low) || 1) * plot, x: j => left + (j + 0.5) * step};
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
function chartAxis(s, mean) {
  const ticks = [0, s.high, s.low].filter((v, k) => k === 0 || Math.abs(s.y(v) - s.y(0)) > 14);
  const marks = [el("svg:line", {class: "zero", x1: s.left, x2: s.width, y1: s.y(0), y2: s.y(0)}),
                 el("svg:line", {class: "mean", x1: s.left, x2: s.width, y1: s.y(mean), y2: s.y(mean)})];
  return marks.concat(ticks.map(v => el("svg:text", {x: s.left - 6, y: s.y(v) + 4, "text-anchor": "end"}, fmt(v, 2))));
}
function chartLabel(p, j, s) {
  const name = p.query.length > 14 ? plain("", p.query.slice(0, 13), "…") : p.query, x = s.x(j), y = 240;
  return el("svg:text", {x, y, transform: `rotate(60 ${x} ${y})`, class: "query-label"}, name);
}

function renderChart() {
  const points = chartPoints(), s = chartScale(points), alone = state.run === DATA.baseline;
  const measure = DATA.measures[state.measure], run = DATA.runs[state.run];
  const label = alone ? ["", measure, " of ", run, " per query, highest first"]
                      : ["", measure, ": ", run, " − ", DATA.runs[DATA.baseline], " per query, largest gain first"];
  const mean = points.reduce((sum, p) => sum + p.y, 0) / (points.length || 1);
  const svg = el("svg:svg", {id: "difference-chart", viewBox: `0 0 ${s.width} ${s.height}`, role: "img"},
                 el("svg:title", {}, plain(...label)), ...chartAxis(s, mean));
  points.forEach((p, j) => svg.append(chartBar(p, j, s, alone ? fmt : signed)));
  if (s.labelled) points.forEach((p, j) => svg.append(chartLabel(p, j, s)));
  document.getElementById("chart").replaceChildren(svg);
  const up = points.filter(p => p.y > 0).length, down = points.filter(p => p.y < 0).length;
  document.getElementById("chart-caption").replaceChildren(...said(...label), alone ? `; mean ${fmt(mean)}` :
    `: ${up} better, ${down} worse, ${points.length - up - down} equal; mean difference ${signed(mean)}`);
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
function renderControls() {
  const runs = DATA.runs.map((r, j) => [j, r]).filter(([j]) => j !== DATA.baseline || !DATA.others.length);
  const parts = [choice("measure", DATA.measures.map((m, j) => [j, m]), state.measure, v => { state.measure = +v; renderAll(); }),
                 choice("run", runs, state.run, v => { state.run = +v; renderAll(); })];
  if (DATA.others.length) parts.push(
    choice("show", [["all", "all queries"], ["better", "better than the baseline"], ["worse", "worse than the baseline"],
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
function renderAll() { renderChart(); renderTable(); }
renderControls();
renderAll();
