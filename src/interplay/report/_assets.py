"""The report's stylesheet and script (vanilla JavaScript + SVG, no library, nothing loaded from the network).

Every string from the data block is written with ``textContent`` or ``setAttribute`` (never ``innerHTML``).
The script recomputes the redundancy analysis for the gamma slider: H_gamma = {i -> j : |W(i, j)| <= gamma},
strongly connected components (Tarjan), condensation sources (in-degree 0) and sinks (out-degree 0), the same
definitions as :mod:`interplay.plot._analysis`.
"""

CSS = r"""
:root { --pos: #e8384f; --neg: #1f77d0; --ink: #1d2329; --muted: #5f6b76; --line: #e3e7eb; --card: #ffffff;
        --bg: #f5f7f9; --src: #1b9e3e; --sink: #7a3db8; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink);
       background: var(--bg); }
header { padding: 18px 28px 8px; }
h1 { margin: 0; font-size: 22px; font-weight: 650; }
h2 { margin: 0 0 4px; font-size: 16px; font-weight: 650; }
.sub, .hint { color: var(--muted); margin: 2px 0 10px; font-size: 13px; }
main { padding: 0 28px 28px; display: grid; grid-template-columns: repeat(auto-fit, minmax(520px, 1fr));
       gap: 16px; align-items: start; }
section { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 14px 16px;
          min-width: 0; }
section.wide { grid-column: 1 / -1; }
.cards { display: flex; flex-wrap: wrap; gap: 12px; align-items: stretch; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 8px 14px; min-width: 130px; background: #fbfcfd; }
.card .k { color: var(--muted); font-size: 12px; }
.card .v { font-size: 20px; font-weight: 650; font-variant-numeric: tabular-nums; }
select, button, input[type=range] { font: inherit; }
button { border: 1px solid var(--line); background: #fff; border-radius: 6px; padding: 2px 10px; cursor: pointer; }
button:hover { background: #eef2f5; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.meta td:first-child { color: var(--muted); white-space: nowrap; width: 1%; padding-right: 24px; }
.meta td { word-break: break-all; }
svg { display: block; max-width: 100%; height: auto; }
svg text { font: 12px system-ui, sans-serif; fill: var(--ink); }
.graphbox { border: 1px solid var(--line); border-radius: 8px; background: #fff; cursor: grab; touch-action: none; }
.graphbox:active { cursor: grabbing; }
.controls { display: flex; flex-wrap: wrap; gap: 14px; align-items: center; margin: 6px 0 8px; }
.controls label { display: flex; gap: 6px; align-items: center; }
#gamma { width: 220px; }
#max-edges { width: 120px; }
.swatch { display: inline-block; width: 11px; height: 11px; border-radius: 50%; margin-right: 5px;
          vertical-align: -1px; }
.ring { display: inline-block; width: 12px; height: 12px; border-radius: 50%; border: 2.5px solid; margin-right: 5px;
        vertical-align: -2px; }
.legend { display: flex; flex-wrap: wrap; gap: 14px; color: var(--muted); font-size: 12px; margin-top: 6px; }
.split { display: flex; flex-wrap: wrap; gap: 18px; align-items: flex-start; }
.split > div:first-child { flex: 0 1 640px; min-width: 0; }
.side { flex: 1 1 300px; min-width: 0; }
.tables { display: grid; grid-template-columns: repeat(auto-fit, minmax(240px, 1fr)); gap: 14px; }
.tables h3 { font-size: 13px; margin: 0 0 4px; }
.empty { color: var(--muted); font-style: italic; }
#tooltip { position: fixed; pointer-events: none; background: rgba(29,35,41,.94); color: #fff; padding: 5px 8px;
           border-radius: 6px; font-size: 12px; max-width: 360px; white-space: pre-line; z-index: 10; }
.edge { transition: opacity .12s; }
.dim { opacity: 0.08; }
footer { grid-column: 1 / -1; color: var(--muted); font-size: 12px; }
.tokens { font-size: 16px; line-height: 2.1; margin: 4px 0; }
.token { padding: 2px 4px; border-radius: 4px; }
canvas.overlay { width: min(100%, 420px); image-rendering: pixelated; border-radius: 6px; display: block; }
"""

JS = r"""
(function () {
  "use strict";
  var SVGNS = "http://www.w3.org/2000/svg";
  // group colours: no red or blue, which mean positive / negative edges
  var PALETTE = ["#ff9f1c", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#bcbd22", "#17becf", "#5b5b5b",
                 "#c49a00", "#1b7f79"];
  var POS = "#e8384f", NEG = "#1f77d0", GREY = "#b7bec6", SRC = "#1b9e3e", SINK = "#7a3db8";
  var D = JSON.parse(document.getElementById("interplay-data").textContent);
  var names = D.feature_names;
  var app = document.getElementById("app");
  var tip = document.getElementById("tooltip");

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    if (attrs) { for (var k in attrs) { node.setAttribute(k, attrs[k]); } }
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }
  function sv(tag, attrs, text) {
    var node = document.createElementNS(SVGNS, tag);
    if (attrs) { for (var k in attrs) { node.setAttribute(k, attrs[k]); } }
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }
  function fmt(x) {
    if (x === null || x === undefined || !isFinite(x)) { return "n/a"; }
    var a = Math.abs(x);
    if (a !== 0 && (a < 1e-3 || a >= 1e5)) { return x.toExponential(3); }
    return Number(x.toPrecision(4)).toString();
  }
  function signed(x) { return (x > 0 ? "+" : "") + fmt(x); }
  function showTip(evt, text) {
    tip.textContent = text; tip.hidden = false;
    var x = evt.clientX + 14, y = evt.clientY + 12;
    if (x + 280 > window.innerWidth) { x = evt.clientX - 290; }
    tip.style.left = x + "px"; tip.style.top = y + "px";
  }
  function hideTip() { tip.hidden = true; }
  function hover(node, textFn) {
    node.addEventListener("mousemove", function (e) { showTip(e, textFn()); });
    node.addEventListener("mouseleave", hideTip);
  }
  function section(title, hint, wide) {
    var s = el("section", wide ? {"class": "wide"} : null);
    s.appendChild(el("h2", null, title));
    if (hint) { s.appendChild(el("p", {"class": "hint"}, hint)); }
    app.appendChild(s);
    return s;
  }
  function mix(a, b, t) {  // a, b: "#rrggbb", t in [0, 1]
    var pa = [1, 3, 5].map(function (i) { return parseInt(a.substr(i, 2), 16); });
    var pb = [1, 3, 5].map(function (i) { return parseInt(b.substr(i, 2), 16); });
    return "rgb(" + pa.map(function (v, i) { return Math.round(v + (pb[i] - v) * t); }).join(",") + ")";
  }
  function diverging(v, limit) {
    var t = limit > 0 ? Math.max(-1, Math.min(1, v / limit)) : 0;
    return t >= 0 ? mix("#f7f7f7", POS, t) : mix("#f7f7f7", NEG, -t);
  }
  function short(s) { s = String(s); return s.length > 24 ? s.slice(0, 23) + "\u2026" : s; }  // full name on hover
  function textWidth(s) { return 7.6 * short(s).length; }

  // ------------------------------------------------------------------ analysis of H_gamma (matches Python)
  function analyse(W, gamma) {
    var n = W.length, adj = [], i, j;
    for (i = 0; i < n; i++) { adj.push([]); for (j = 0; j < n; j++) {
      if (i !== j && Math.abs(W[i][j]) <= gamma) { adj[i].push(j); } } }
    var index = 0, stack = [], on = [], idx = [], low = [], comp = [], ncomp = 0;
    for (i = 0; i < n; i++) { idx.push(-1); low.push(0); on.push(false); comp.push(-1); }
    function strong(v) {
      idx[v] = low[v] = index++; stack.push(v); on[v] = true;
      adj[v].forEach(function (w) {
        if (idx[w] < 0) { strong(w); low[v] = Math.min(low[v], low[w]); }
        else if (on[w]) { low[v] = Math.min(low[v], idx[w]); }
      });
      if (low[v] === idx[v]) {
        var w; do { w = stack.pop(); on[w] = false; comp[w] = ncomp; } while (w !== v);
        ncomp++;
      }
    }
    for (i = 0; i < n; i++) { if (idx[i] < 0) { strong(i); } }
    var members = [], indeg = [], outdeg = [], degree = [], edges = 0;
    for (i = 0; i < ncomp; i++) { members.push([]); indeg.push(0); outdeg.push(0); }
    for (i = 0; i < n; i++) { members[comp[i]].push(i); degree.push(0); }
    for (i = 0; i < n; i++) { adj[i].forEach(function (j) {
      edges++; degree[i]++; degree[j]++;
      if (comp[i] !== comp[j]) { outdeg[comp[i]]++; indeg[comp[j]]++; } }); }
    var groups = members.filter(function (m) { return m.length > 1; })
      .map(function (m) { return m.slice().sort(function (a, b) { return a - b; }); })
      .sort(function (a, b) { return a[0] - b[0]; });
    var groupOf = []; for (i = 0; i < n; i++) { groupOf.push(-1); }
    groups.forEach(function (g, k) { g.forEach(function (f) { groupOf[f] = k; }); });
    var sources = [], sinks = [], isolated = [];
    for (i = 0; i < n; i++) {
      if (degree[i] === 0) { isolated.push(i); continue; }
      if (indeg[comp[i]] === 0) { sources.push(i); }
      if (outdeg[comp[i]] === 0) { sinks.push(i); }
    }
    return {groups: groups, groupOf: groupOf, sources: sources, sinks: sinks, isolated: isolated,
            density: n > 1 ? edges / (n * (n - 1)) : 0, adj: adj};
  }
  window.interplayAnalyse = analyse;  // used by the tests to compare with networkx

  // ------------------------------------------------------------------ charts
  function barChart(values, data, stderr) {
    var order = values.map(function (_, i) { return i; })
      .sort(function (a, b) { return Math.abs(values[b]) - Math.abs(values[a]); }).slice(0, 20);
    var labels = order.map(function (i) {
      return data ? short(names[i]) + " = " + fmt(data[i]) : short(names[i]); });
    var left = Math.min(300, Math.max(80, Math.max.apply(null, labels.map(function (s) { return 7.6 * s.length; })) + 14));
    var width = 660, row = 24, top = 8, pad = 64, plotW = width - left - 2 * pad;
    var height = top + row * order.length + 26;
    var limit = Math.max.apply(null, order.map(function (i) { return Math.abs(values[i]); })) || 1;
    var hasNeg = order.some(function (i) { return values[i] < 0; });
    var hasPos = order.some(function (i) { return values[i] > 0; });
    var zero = left + pad + (hasNeg && hasPos ? plotW / 2 : (hasNeg ? plotW : 0));
    var scale = (hasNeg && hasPos ? plotW / 2 : plotW) / limit;
    var svg = sv("svg", {viewBox: "0 0 " + width + " " + height, width: width, height: height,
                         role: "img", "aria-label": "attribution chart"});
    order.forEach(function (f, k) {
      var y = top + k * row, v = values[f], w = Math.abs(v) * scale;
      var label = sv("text", {x: left - 8, y: y + row / 2 + 4, "text-anchor": "end"}, labels[k]);
      svg.appendChild(label);
      var rect = sv("rect", {x: v >= 0 ? zero : zero - w, y: y + 4, width: Math.max(w, 0.5), height: row - 8,
                             rx: 2, fill: v >= 0 ? POS : NEG});
      hover(rect, function () { return names[f] + "\nvalue " + (data ? fmt(data[f]) : "n/a") +
        "\nattribution " + signed(v) + (stderr ? " \u00b1 " + fmt(stderr[f]) : ""); });
      svg.appendChild(rect);
      svg.appendChild(sv("text", {x: v >= 0 ? zero + w + 4 : zero - w - 4, y: y + row / 2 + 4,
        "text-anchor": v >= 0 ? "start" : "end", fill: "#444"}, signed(v)));
    });
    svg.appendChild(sv("line", {x1: zero, x2: zero, y1: top, y2: height - 22, stroke: "#555"}));
    svg.appendChild(sv("text", {x: zero - 8, y: height - 6, "text-anchor": "end", fill: "#5f6b76"},
      "\u2190 lowers the output"));
    svg.appendChild(sv("text", {x: zero + 8, y: height - 6, "text-anchor": "start", fill: "#5f6b76"},
      "raises the output \u2192"));
    return svg;
  }

  function heatmap(matrix, label) {
    var n = matrix.length, cell = Math.max(14, Math.min(40, Math.floor(440 / n)));
    var left = Math.min(180, Math.max.apply(null, names.map(textWidth)) + 12), top = Math.round(left * 0.9) + 10;
    var size = left + n * cell + 70;
    var svg = sv("svg", {viewBox: "0 0 " + size + " " + (top + n * cell + 10), width: size,
                         height: top + n * cell + 10, role: "img", "aria-label": "interaction heatmap"});
    var limit = 0, i, j;
    for (i = 0; i < n; i++) { for (j = 0; j < n; j++) { limit = Math.max(limit, Math.abs(matrix[i][j])); } }
    for (i = 0; i < n; i++) {
      svg.appendChild(sv("text", {x: left - 6, y: top + i * cell + cell / 2 + 4, "text-anchor": "end"}, short(names[i])));
      var t = sv("text", {x: 0, y: 0, "text-anchor": "start",
        transform: "translate(" + (left + i * cell + cell / 2 + 4) + "," + (top - 6) + ") rotate(-60)"}, short(names[i]));
      svg.appendChild(t);
      for (j = 0; j < n; j++) {
        (function (i, j) {
          var v = matrix[i][j];
          var r = sv("rect", {x: left + j * cell, y: top + i * cell, width: cell - 1, height: cell - 1,
                              fill: diverging(v, limit)});
          hover(r, function () { return (i === j ? names[i] + " (alone)" : names[i] + " \u00d7 " + names[j]) +
                                        "\n" + label + " " + signed(v); });
          svg.appendChild(r);
        })(i, j);
      }
    }
    var lx = left + n * cell + 16;
    for (i = 0; i <= 20; i++) {
      svg.appendChild(sv("rect", {x: lx, y: top + i * (n * cell / 21), width: 12, height: n * cell / 21 + 0.5,
                                  fill: diverging(limit * (1 - i / 10), limit)}));
    }
    svg.appendChild(sv("text", {x: lx + 16, y: top + 10}, signed(limit)));
    svg.appendChild(sv("text", {x: lx + 16, y: top + n * cell}, signed(-limit)));
    return svg;
  }

  // ------------------------------------------------------------------ the directed explanation graph
  function graphView(container, G) {
    var W = G.weights, n = W.length, pr = G.pagerank, i, j;
    var maxAbs = 0;
    for (i = 0; i < n; i++) { for (j = 0; j < n; j++) { if (i !== j) { maxAbs = Math.max(maxAbs, Math.abs(W[i][j])); } } }
    var prMin = Math.min.apply(null, pr), prMax = Math.max.apply(null, pr);
    var longest = Math.max.apply(null, names.map(textWidth));
    var size = Math.min(1000, 620 + Math.max(0, n - 12) * 14);  // more room for more features
    var cx = size / 2, cy = size / 2, R = size / 2 - Math.min(150, Math.max(70, longest + 40));
    var rMax = Math.max(6, Math.min(26, 0.42 * 2 * Math.PI * R / n)), rMin = Math.min(9, rMax * 0.45);
    var pos = [], rad = [];
    for (i = 0; i < n; i++) {
      var a = -Math.PI / 2 + 2 * Math.PI * i / n;
      pos.push([cx + R * Math.cos(a), cy + R * Math.sin(a), a]);
      rad.push(rMin + (rMax - rMin) * (prMax > prMin ? (pr[i] - prMin) / (prMax - prMin) : 0.5));
    }

    var controls = el("div", {"class": "controls"});
    var gl = el("label", null, "\u03b3 (redundancy threshold)");
    var slider = el("input", {type: "range", id: "gamma", min: "0", max: "1000", step: "1"});
    var gval = el("span", {id: "gamma-value"});
    gl.appendChild(slider); gl.appendChild(gval);
    var hl = el("label"); var hbox = el("input", {type: "checkbox", id: "show-h"});
    hl.appendChild(hbox); hl.appendChild(document.createTextNode("show redundancy edges (H\u03b3)"));
    var reset = el("button", {type: "button"}, "reset view");
    var zin = el("button", {type: "button", "aria-label": "zoom in"}, "+");
    var zout = el("button", {type: "button", "aria-label": "zoom out"}, "\u2212");
    var el_ = el("label", null, "edges");
    var edgeSlider = el("input", {type: "range", id: "max-edges", min: "0", max: "400", step: "1"});
    var eval_ = el("span");
    el_.appendChild(edgeSlider); el_.appendChild(eval_);
    [gl, el_, hl, zin, zout, reset].forEach(function (c) { controls.appendChild(c); });
    container.appendChild(controls);

    var split = el("div", {"class": "split"}); container.appendChild(split);
    var left = el("div"); split.appendChild(left);
    var svg = sv("svg", {"class": "graphbox", id: "graph", viewBox: "0 0 " + size + " " + size, width: size,
                         height: size, role: "img", "aria-label": "directed explanation graph"});
    var defs = sv("defs");
    [["pos", POS], ["neg", NEG], ["red", "#8a949e"]].forEach(function (m) {
      var marker = sv("marker", {id: "arrow-" + m[0], viewBox: "0 0 10 10", refX: "9", refY: "5",
                                 markerWidth: "7", markerHeight: "7", orient: "auto-start-reverse",
                                 markerUnits: "userSpaceOnUse"});
      marker.appendChild(sv("path", {d: "M0,0 L10,5 L0,10 z", fill: m[1]}));
      defs.appendChild(marker);
    });
    svg.appendChild(defs);
    var scene = sv("g"); svg.appendChild(scene);
    var edgeLayer = sv("g"), nodeLayer = sv("g"); scene.appendChild(edgeLayer); scene.appendChild(nodeLayer);
    left.appendChild(svg);

    var legend = el("div", {"class": "legend"});
    function legendItem(kind, color, text) {
      var s = el("span"); var m = el("span", {"class": kind}); m.style[kind === "ring" ? "borderColor" : "background"] = color;
      if (kind === "line") { m.className = "swatch"; m.style.borderRadius = "1px"; m.style.height = "3px"; m.style.width = "16px"; m.style.verticalAlign = "3px"; }
      s.appendChild(m); s.appendChild(document.createTextNode(text)); legend.appendChild(s);
    }
    legendItem("line", POS, "edge i\u2192j: j raises the output when i is present");
    legendItem("line", NEG, "lowers it");
    legendItem("ring", SRC, "source of H\u03b3 (makes others redundant)");
    legendItem("ring", SINK, "sink of H\u03b3 (redundant given others)");
    legendItem("swatch", GREY, "in no group");
    left.appendChild(legend);
    left.appendChild(el("p", {"class": "hint"},
      "Node size: PageRank of the graph (softplus weights, no self-loops). Colours: groups of mutually " +
      "redundant features (strongly connected components of H\u03b3). Only the strongest edges above \u03b3 are " +
      "drawn (the edges slider sets how many). Hover a node or an edge; scroll or " +
      "use +/\u2212 to zoom, drag to pan."));
    var side = el("div", {"class": "side"}); split.appendChild(side);
    var note = el("p", {"class": "hint"}); side.appendChild(note);
    var tables = el("div", {"class": "tables"}); side.appendChild(tables);

    function curve(i, j, shrinkEnd) {
      var x1 = pos[i][0], y1 = pos[i][1], x2 = pos[j][0], y2 = pos[j][1];
      var mx = (x1 + x2) / 2, my = (y1 + y2) / 2, dx = x2 - x1, dy = y2 - y1, len = Math.sqrt(dx * dx + dy * dy) || 1;
      var qx = mx - dy / len * len * 0.12, qy = my + dx / len * len * 0.12;
      var ex = x2 - qx, ey = y2 - qy, el2 = Math.sqrt(ex * ex + ey * ey) || 1;
      var tx = x2 - ex / el2 * (rad[j] + shrinkEnd), ty = y2 - ey / el2 * (rad[j] + shrinkEnd);
      var sx = x1 + (qx - x1) / (Math.sqrt((qx - x1) * (qx - x1) + (qy - y1) * (qy - y1)) || 1) * rad[i];
      var sy = y1 + (qy - y1) / (Math.sqrt((qx - x1) * (qx - x1) + (qy - y1) * (qy - y1)) || 1) * rad[i];
      return "M" + sx.toFixed(1) + "," + sy.toFixed(1) + " Q" + qx.toFixed(1) + "," + qy.toFixed(1) + " " +
             tx.toFixed(1) + "," + ty.toFixed(1);
    }

    // edges of G, strongest first, at most 250 drawn
    var pairs = [];
    for (i = 0; i < n; i++) { for (j = 0; j < n; j++) { if (i !== j && W[i][j] !== 0) { pairs.push([i, j]); } } }
    pairs.sort(function (a, b) { return Math.abs(W[b[0]][b[1]]) - Math.abs(W[a[0]][a[1]]); });
    pairs = pairs.slice(0, 400);
    var edgeEls = pairs.map(function (p) {
      var w = W[p[0]][p[1]];
      var path = sv("path", {"class": "edge", d: curve(p[0], p[1], 1), fill: "none",
        stroke: w > 0 ? POS : NEG, "stroke-opacity": "0.62",
        "stroke-width": (0.6 + 6 * Math.abs(w) / (maxAbs || 1)).toFixed(2),
        "marker-end": "url(#arrow-" + (w > 0 ? "pos" : "neg") + ")"});
      hover(path, function () { return names[p[0]] + " \u2192 " + names[p[1]] + "\nimportance of " + names[p[1]] +
        " when " + names[p[0]] + " is present: " + signed(w); });
      edgeLayer.appendChild(path);
      return {i: p[0], j: p[1], w: w, el: path};
    });
    var redundancyLayer = sv("g"); edgeLayer.appendChild(redundancyLayer);

    var nodeEls = [];
    for (i = 0; i < n; i++) {
      (function (i) {
        var g = sv("g", {"class": "node", "data-index": String(i)});
        var ring = sv("circle", {cx: pos[i][0], cy: pos[i][1], r: rad[i] + 5, fill: "none", "stroke-width": "3"});
        var dot = sv("circle", {cx: pos[i][0], cy: pos[i][1], r: rad[i], stroke: "#fff", "stroke-width": "1.5"});
        var out = 1, ax = Math.cos(pos[i][2]), ay = Math.sin(pos[i][2]);
        var label = sv("text", {x: (pos[i][0] + ax * (rad[i] + 10)).toFixed(1),
          y: (pos[i][1] + ay * (rad[i] + 10) + 4).toFixed(1),
          "text-anchor": Math.abs(ax) < 0.3 ? "middle" : (ax > 0 ? "start" : "end")}, short(names[i]));
        g.appendChild(ring); g.appendChild(dot); g.appendChild(label);
        nodeLayer.appendChild(g);
        nodeEls.push({g: g, ring: ring, dot: dot});
        hover(g, function () {
          var s = state.analysis, groupText = s.groupOf[i] >= 0 ? "group " + (s.groupOf[i] + 1) : "in no group";
          var role = s.isolated.indexOf(i) >= 0 ? "no redundancy edges" :
            [s.sources.indexOf(i) >= 0 ? "source" : "", s.sinks.indexOf(i) >= 0 ? "sink" : ""]
              .filter(Boolean).join(" and ") || "intermediate";
          return names[i] + "\nPageRank " + fmt(pr[i]) + " (rank " + (rankOf[i] + 1) + " of " + n + ")\n" +
                 groupText + "; " + role;
        });
        g.addEventListener("mouseenter", function () {
          edgeEls.forEach(function (e) { if (e.i !== i && e.j !== i) { e.el.classList.add("dim"); } });
        });
        g.addEventListener("mouseleave", function () {
          edgeEls.forEach(function (e) { e.el.classList.remove("dim"); });
        });
      })(i);
    }
    var rankOrder = pr.map(function (_, k) { return k; }).sort(function (a, b) { return pr[b] - pr[a]; });
    var rankOf = []; rankOrder.forEach(function (f, r) { rankOf[f] = r; });

    // zoom and pan through the viewBox
    var view = {x: 0, y: 0, w: size};
    function applyView() { svg.setAttribute("viewBox", [view.x, view.y, view.w, view.w].map(function (v) { return v.toFixed(1); }).join(" ")); }
    function zoom(f, px, py) {
      var nw = Math.max(size / 8, Math.min(size * 2, view.w * f));
      view.x = px - (px - view.x) * nw / view.w; view.y = py - (py - view.y) * nw / view.w; view.w = nw; applyView();
    }
    svg.addEventListener("wheel", function (e) {
      e.preventDefault();
      var r = svg.getBoundingClientRect();
      zoom(e.deltaY > 0 ? 1.15 : 1 / 1.15, view.x + (e.clientX - r.left) / r.width * view.w,
           view.y + (e.clientY - r.top) / r.height * view.w);
    }, {passive: false});
    var drag = null;
    svg.addEventListener("pointerdown", function (e) { drag = {x: e.clientX, y: e.clientY, vx: view.x, vy: view.y}; });
    window.addEventListener("pointerup", function () { drag = null; });
    svg.addEventListener("pointermove", function (e) {
      if (!drag) { return; }
      var r = svg.getBoundingClientRect();
      view.x = drag.vx - (e.clientX - drag.x) / r.width * view.w; view.y = drag.vy - (e.clientY - drag.y) / r.height * view.w;
      applyView();
    });
    zin.addEventListener("click", function () { zoom(1 / 1.3, view.x + view.w / 2, view.y + view.w / 2); });
    zout.addEventListener("click", function () { zoom(1.3, view.x + view.w / 2, view.y + view.w / 2); });
    reset.addEventListener("click", function () { view = {x: 0, y: 0, w: size}; applyView(); });

    // gamma: slider positions on a square-root scale from 0 to max |W|, so small thresholds get room
    function gammaAt(pos) { return maxAbs * Math.pow(pos / 1000, 2); }
    function posOf(gamma) { return maxAbs > 0 ? Math.round(1000 * Math.sqrt(gamma / maxAbs)) : 0; }
    var state = {gamma: G.gamma, analysis: null, maxEdges: Math.min(pairs.length, Math.max(40, 4 * n))};
    edgeSlider.max = String(pairs.length); edgeSlider.value = String(state.maxEdges);
    edgeSlider.addEventListener("input", function () { state.maxEdges = Number(edgeSlider.value); redraw(); });
    slider.value = String(posOf(G.gamma));

    function listCell(items) {
      var td = el("td");
      if (!items.length) { td.appendChild(el("span", {"class": "empty"}, "none")); return td; }
      td.textContent = items.map(function (f) { return names[f]; }).join(", ");
      return td;
    }
    function smallTable(title, head, rows) {
      var box = el("div"); box.appendChild(el("h3", null, title));
      var t = el("table"); var tr = el("tr");
      head.forEach(function (h) { tr.appendChild(el("th", null, h)); }); t.appendChild(tr);
      rows.forEach(function (r) { t.appendChild(r); });
      if (!rows.length) { var e = el("tr"); var td = el("td", {colspan: String(head.length), "class": "empty"}, "none");
        e.appendChild(td); t.appendChild(e); }
      box.appendChild(t); return box;
    }
    function renderTables(s) {
      tables.textContent = "";
      var groupRows = s.groups.map(function (g, k) {
        var tr = el("tr"); var td = el("td"); var sw = el("span", {"class": "swatch"});
        sw.style.background = PALETTE[k % PALETTE.length]; td.appendChild(sw);
        td.appendChild(document.createTextNode(String(k + 1))); tr.appendChild(td);
        tr.appendChild(listCell(g)); return tr;
      });
      tables.appendChild(smallTable("Mutual-redundancy groups", ["#", "interchangeable features"], groupRows));
      function roleRows(list) {
        return list.length ? [(function () { var tr = el("tr"); tr.appendChild(listCell(list)); return tr; })()] : [];
      }
      tables.appendChild(smallTable("Sources of H\u03b3", ["make the others redundant"], roleRows(s.sources)));
      tables.appendChild(smallTable("Sinks of H\u03b3", ["redundant given others"], roleRows(s.sinks)));
      tables.appendChild(smallTable("No redundancy edges", ["features"], roleRows(s.isolated)));
      var rankRows = rankOrder.slice(0, 15).map(function (f, r) {
        var tr = el("tr"); tr.appendChild(el("td", {"class": "num"}, String(r + 1)));
        tr.appendChild(el("td", null, names[f])); tr.appendChild(el("td", {"class": "num"}, fmt(pr[f]))); return tr;
      });
      tables.appendChild(smallTable("PageRank ranking", ["#", "feature", "score"], rankRows));
    }
    function redraw() {
      var s = analyse(W, state.gamma); state.analysis = s;
      gval.textContent = fmt(state.gamma) + "  (H\u03b3 density " + Math.round(100 * s.density) + "%)";
      note.textContent = s.density === 0 ? "At this \u03b3 no feature is redundant given another: every edge " +
        "carries more than \u03b3. Move the slider right to treat weaker edges as redundancies." : "";
      var shown = 0;  // the strongest edges above gamma, at most the chosen number
      edgeEls.forEach(function (e) {
        var on = Math.abs(e.w) > state.gamma && shown < state.maxEdges;
        if (on) { shown++; }
        e.el.style.display = on ? "" : "none";
      });
      eval_.textContent = shown + " shown";
      redundancyLayer.textContent = "";
      if (hbox.checked) {
        for (var a = 0; a < n; a++) { s.adj[a].forEach(function (b) {
          redundancyLayer.appendChild(sv("path", {d: curve(a, b, 1), fill: "none", stroke: "#8a949e",
            "stroke-dasharray": "4 3", "stroke-width": "1.2", "marker-end": "url(#arrow-red)"})); }); }
      }
      for (var k = 0; k < n; k++) {
        var gi = s.groupOf[k];
        nodeEls[k].dot.setAttribute("fill", gi >= 0 ? PALETTE[gi % PALETTE.length] : GREY);
        var isSrc = s.sources.indexOf(k) >= 0, isSink = s.sinks.indexOf(k) >= 0;
        nodeEls[k].ring.setAttribute("stroke", isSrc ? SRC : (isSink ? SINK : "none"));
        nodeEls[k].ring.setAttribute("stroke-dasharray", isSink && !isSrc ? "4 3" : "");
        nodeEls[k].g.setAttribute("data-group", String(gi));
      }
      renderTables(s);
    }
    slider.addEventListener("input", function () { state.gamma = gammaAt(Number(slider.value)); redraw(); });
    hbox.addEventListener("change", redraw);
    redraw();
  }

  function summaryChart(S) {
    var names = S.feature_names || D.feature_names;  // stays right when another row is shown
    var V = S.values, X = S.data, m = V.length, d = names.length, j, k;
    var imp = names.map(function (_, f) { var s = 0; for (k = 0; k < m; k++) { s += Math.abs(V[k][f]); } return s / m; });
    var order = imp.map(function (_, f) { return f; }).sort(function (a, b) { return imp[b] - imp[a]; }).slice(0, 15);
    var left = Math.min(200, Math.max.apply(null, order.map(function (f) { return textWidth(names[f]); })) + 14);
    var width = 760, row = 30, top = 6, plotW = width - left - 20, height = top + row * order.length + 30;
    var lo = Infinity, hi = -Infinity;
    order.forEach(function (f) { for (k = 0; k < m; k++) { lo = Math.min(lo, V[k][f]); hi = Math.max(hi, V[k][f]); } });
    lo = Math.min(lo, 0); hi = Math.max(hi, 0); if (hi === lo) { hi = lo + 1; }
    function X0(v) { return left + (v - lo) / (hi - lo) * plotW; }
    var svg = sv("svg", {viewBox: "0 0 " + width + " " + height, width: width, height: height, role: "img",
                         "aria-label": "summary over rows"});
    svg.appendChild(sv("line", {x1: X0(0), x2: X0(0), y1: top, y2: height - 24, stroke: "#555"}));
    order.forEach(function (f, r) {
      var y = top + r * row + row / 2, cmin = Infinity, cmax = -Infinity;
      for (k = 0; k < m; k++) { cmin = Math.min(cmin, X[k][f]); cmax = Math.max(cmax, X[k][f]); }
      svg.appendChild(sv("text", {x: left - 8, y: y + 4, "text-anchor": "end"}, short(names[f])));
      for (k = 0; k < m; k++) {
        var t = cmax > cmin ? (X[k][f] - cmin) / (cmax - cmin) : 0.5;
        var jitter = (((k * 2654435761) % 1000) / 1000 - 0.5) * (row - 12);
        var c = sv("circle", {cx: X0(V[k][f]).toFixed(1), cy: (y + jitter).toFixed(1), r: 3,
                              fill: t >= 0.5 ? mix("#b0b0b0", POS, 2 * t - 1) : mix("#b0b0b0", NEG, 1 - 2 * t),
                              "fill-opacity": "0.85"});
        (function (k, f) { hover(c, function () { return names[f] + " = " + fmt(X[k][f]) + "\nattribution " + signed(V[k][f]) +
                                                         "\n(row " + (D.rows[k] ? D.rows[k].label : k) + ")"; }); })(k, f);
        svg.appendChild(c);
      }
    });
    svg.appendChild(sv("text", {x: left + plotW / 2, y: height - 6, "text-anchor": "middle", fill: "#5f6b76"},
      "attribution (one dot per row; colour: the feature's value, low blue to high red)"));
    return svg;
  }

  function tokenView(tokens, values) {
    var box = el("p", {"class": "tokens"});
    var limit = Math.max.apply(null, values.map(Math.abs)) || 1;
    tokens.forEach(function (t, k) {
      var span = el("span", {"class": "token"}, t);
      span.style.background = diverging(values[k], limit);
      hover(span, function () { return t + "\nattribution " + signed(values[k]); });
      box.appendChild(span); box.appendChild(document.createTextNode(" "));
    });
    return box;
  }

  function decode(b64) {
    var raw = atob(b64), out = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) { out[i] = raw.charCodeAt(i); }
    return out;
  }
  function imageView(I, values) {
    var w = I.width, h = I.height, rgb = decode(I.rgb), seg = new Int32Array(decode(I.segments).buffer);
    var canvas = el("canvas", {width: String(w), height: String(h), "class": "overlay"});
    var ctx = canvas.getContext("2d"), img = ctx.createImageData(w, h);
    var limit = Math.max.apply(null, values.map(Math.abs)) || 1;
    for (var p = 0; p < w * h; p++) {
      var r = seg[p], t = Math.max(-1, Math.min(1, values[r] / limit));
      var tint = t >= 0 ? [232, 56, 79] : [31, 119, 208], a = 0.65 * Math.abs(t);
      var edge = (p % w < w - 1 && seg[p + 1] !== r) || (p + w < w * h && seg[p + w] !== r);
      for (var c = 0; c < 3; c++) {
        var v = rgb[3 * p + c] * (1 - a) + tint[c] * a;
        img.data[4 * p + c] = edge ? v * 0.35 : v;
      }
      img.data[4 * p + 3] = 255;
    }
    ctx.putImageData(img, 0, 0);
    canvas.addEventListener("mouseleave", hideTip);
    canvas.addEventListener("mousemove", function (e) {
      var b = canvas.getBoundingClientRect();
      var x = Math.floor((e.clientX - b.left) / b.width * w), y = Math.floor((e.clientY - b.top) / b.height * h);
      var r = seg[Math.max(0, Math.min(h - 1, y)) * w + Math.max(0, Math.min(w - 1, x))];
      showTip(e, names[r] + "\nattribution " + signed(values[r]));
    });
    return canvas;
  }

  // ------------------------------------------------------------------ page
  var rowArea = el("div", {style: "display: contents"});
  function renderRow(R) {
    names = R.feature_names || D.feature_names;  // rows of one page may explain different features
    rowArea.textContent = "";
    var keep = app; app = rowArea;
    var s = section("Prediction", R.attribution_method ? "attributions by method \u201c" + R.attribution_method + "\u201d" : null, true);
    var cards = el("div", {"class": "cards"});
    function card(k, v) { var c = el("div", {"class": "card"}); c.appendChild(el("div", {"class": "k"}, k));
      c.appendChild(el("div", {"class": "v"}, v)); cards.appendChild(c); }
    card("prediction (" + (R.explained_output || "model output") + ")", fmt(R.prediction));
    card("baseline (average output)", fmt(R.baseline));
    card("difference = sum of attributions", R.attribution ? signed(R.attribution.reduce(function (a, b) { return a + b; }, 0)) : "n/a");
    card("features", String(names.length));
    s.appendChild(cards);
    if (R.attribution) {
      var a = section("Attributions", "How much each feature moves the output from the baseline to the prediction " +
        "(largest first; hover a bar).");
      a.appendChild(barChart(R.attribution, R.data || null, R.std_errors || null));
    }
    if (R.tokens && R.attribution) {
      var tx = section("Text", "Each token tinted by its attribution (red raises the output, blue lowers it); " +
        "hover a token.", true);
      tx.appendChild(tokenView(R.tokens, R.attribution));
    }
    if (R.image && R.attribution) {
      var im = section("Image regions", "Each region tinted by its attribution (red raises the output, blue " +
        "lowers it); hover the image for a region's value.");
      im.appendChild(imageView(R.image, R.attribution));
    }
    if (R.interactions) {
      var h = section("Interactions (" + R.interactions.index.toUpperCase() + ")",
        "Pairwise interaction values off the diagonal, single-feature values on it; red: the pair together adds " +
        "to the output, blue: it takes away. Hover a cell.");
      h.appendChild(heatmap(R.interactions.matrix, R.interactions.index.toUpperCase()));
    }
    if (R.graph) {
      var g = section("Directed explanation graph (Bivariate Shapley)",
        "An edge i \u2192 j carries the importance of j when i is present. Edges with |weight| \u2264 \u03b3 are " +
        "redundancies (j adds nothing once i is there); they are hidden here and form the redundancy graph " +
        "H\u03b3. Move \u03b3 to see how groups, sources and sinks change.", true);
      graphView(g, R.graph);
    }
    app = keep;
  }

  var first = 0;  // start with the first row that has a graph (the most complete view)
  for (var r = D.rows.length - 1; r >= 0; r--) { if (D.rows[r].graph) { first = r; } }
  if (D.rows.length > 1) {
    var pick = section("Rows", "Choose the explained row.", true);
    var sel = el("select", {id: "row-select", "aria-label": "explained row"});
    D.rows.forEach(function (R, k) { sel.appendChild(el("option", {value: String(k)}, R.label)); });
    sel.value = String(first);
    sel.addEventListener("change", function () { renderRow(D.rows[Number(sel.value)]); });
    pick.appendChild(sel);
  }
  app.appendChild(rowArea);
  if (D.rows.length) { renderRow(D.rows[first]); }
  if (D.summary) {
    var shownRows = D.summary.values.length, totalRows = D.summary.total_rows || shownRows;
    var sm = section("All explained rows", (shownRows < totalRows ? "The first " + shownRows + " of " + totalRows :
      String(totalRows)) + " rows summarised: features ordered by mean |attribution|.", true);
    sm.appendChild(summaryChart(D.summary));
  }
  var meta = section("About this report", null, true);
  var t = el("table", {"class": "meta"});
  D.meta.forEach(function (kv) { var tr = el("tr"); tr.appendChild(el("td", null, kv[0]));
    tr.appendChild(el("td", null, kv[1])); t.appendChild(tr); });
  meta.appendChild(t);
  document.body.setAttribute("data-ready", "1");
})();
"""
