(function () {
  "use strict";
  var SVGNS = "http://www.w3.org/2000/svg";
  var POS = "#e8384f", NEG = "#1f77d0", GREY = "#b7bec6", REDUNDANT = "#3d4650", GROUP = "#f4ead2",
      GROUP_EDGE = "#b08a2e";
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
  function plain(x, digits) {  // as the plots' format_number: whole numbers exactly, else `digits` significant
    // digits in plain notation (the integer part kept whole), scientific only below 1e-4 or from 1e9 on
    var a = Math.abs(x);
    if (Number.isInteger(x) && a < 1e15) { return String(x); }
    if (a < 1e-4 || a >= 1e9) {  // "1.5e-05", as Python writes it
      return Number(x.toPrecision(digits)).toExponential().replace(/e([+-])(\d)$/, function (_, s, d) {
        return "e" + s + "0" + d; });
    }
    var decimals = Math.max(digits - 1 - Math.floor(Math.log10(a)), 1);
    var text = x.toFixed(decimals).replace(/0+$/, "").replace(/\.$/, "");
    return text === "-0" ? "0" : text;
  }
  function fmtValue(v, digits) {  // a feature value: a category as its name, a number by plain(), null: missing
    if (v === null || v === undefined) { return "missing"; }
    if (typeof v !== "number") { return String(v); }
    return isFinite(v) ? plain(v, digits || 4) : "n/a";
  }
  function shade(column) {  // one feature's values in [0, 1] for a colour (null when missing): numbers low to
    // high; categories (any text in the column) by their position among the sorted distinct values
    var known = column.filter(function (v) { return v !== null && v !== undefined; });
    var text = known.some(function (v) { return typeof v !== "number"; });
    if (text) {
      var at = new Map();
      known.forEach(function (v) { at.set(String(v), 0); });
      var cats = Array.from(at.keys()).sort(), span = Math.max(cats.length - 1, 1);
      cats.forEach(function (c, i) { at.set(c, i); });
      return column.map(function (v) { return v === null || v === undefined ? null :
        (cats.length > 1 ? at.get(String(v)) / span : 0.5); });
    }
    var sorted = known.filter(function (v) { return typeof v === "number" && isFinite(v); })
      .sort(function (a, b) { return a - b; });
    function quantile(q) { return sorted.length ? sorted[Math.round(q * (sorted.length - 1))] : 0; }
    var lo = quantile(0.05), hi = quantile(0.95);  // as ip.plot.beeswarm: outliers do not wash out the rest
    if (!(hi > lo)) { lo = sorted.length ? sorted[0] : 0; hi = sorted.length ? sorted[sorted.length - 1] : 0; }
    return column.map(function (v) { return typeof v !== "number" || !isFinite(v) ? null :
      (hi > lo ? Math.min(Math.max((v - lo) / (hi - lo), 0), 1) : 0.5); });
  }
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

  // ------------------------------------------------------------------ charts
  var HALF_WIDTH = 640;  // about what half the page leaves a chart (two columns of 520 px or more)
  var BAR_FEATURES = 20, SUMMARY_FEATURES = 20;  // features drawn at first; the rest behind a visible note
  function moreNote(hidden, labels, what, onShow) {  // "N more features ... not shown", and a button showing all
    var p = el("p", {"class": "hint more"});
    p.appendChild(document.createTextNode(hidden.length + " more feature" + (hidden.length === 1 ? "" : "s") +
      " with smaller " + what + " not shown: " + hidden.slice(0, 12).map(function (f) { return labels[f]; }).join(", ") +
      (hidden.length > 12 ? ", \u2026" : "") + ". "));
    var b = el("button", {type: "button"}, "show all");
    b.addEventListener("click", onShow);
    p.appendChild(b);
    return p;
  }
  function barChart(values, data, stderr, all) {
    var ranked = values.map(function (_, i) { return i; })
      .sort(function (a, b) { return Math.abs(values[b]) - Math.abs(values[a]); });
    var order = all ? ranked : ranked.slice(0, BAR_FEATURES);
    var labels = order.map(function (i) {
      return data ? short(names[i]) + " = " + short(fmtValue(data[i])) : short(names[i]); });
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
      hover(rect, function () { return names[f] + "\nvalue " + (data ? fmtValue(data[f], 6) : "n/a") +
        "\nattribution " + signed(v) + (stderr ? (stderr[f] === null ? " \u00b1 n/a" : " \u00b1 " + fmt(stderr[f])) : ""); });
      svg.appendChild(rect);
      svg.appendChild(sv("text", {x: v >= 0 ? zero + w + 4 : zero - w - 4, y: y + row / 2 + 4,
        "text-anchor": v >= 0 ? "start" : "end", fill: "#444"}, signed(v)));
    });
    svg.appendChild(sv("line", {x1: zero, x2: zero, y1: top, y2: height - 22, stroke: "#555"}));
    svg.appendChild(sv("text", {x: zero - 8, y: height - 6, "text-anchor": "end", fill: "#5f6b76"},
      "\u2190 lowers the output"));
    svg.appendChild(sv("text", {x: zero + 8, y: height - 6, "text-anchor": "start", fill: "#5f6b76"},
      "raises the output \u2192"));
    if (order.length === ranked.length) { return svg; }
    var box = el("div");
    box.appendChild(svg);
    box.appendChild(moreNote(ranked.slice(order.length), names, "|attribution|", function () {
      box.parentNode.replaceChild(barChart(values, data, stderr, true), box); }));
    return box;
  }

  function heatmap(matrix, label, unestimated) {
    // colours scaled by the off-diagonal values (the pairs); the diagonal (single features) is a separate column
    // with its own scale, so that a large single-feature value does not wash the interactions out
    var n = matrix.length, cell = Math.max(14, Math.min(40, Math.floor(440 / n)));
    var left = Math.min(180, Math.max.apply(null, names.map(textWidth)) + 12), top = Math.round(left * 0.9) + 10;
    var limit = 0, diagLimit = 0, i, j;
    var gap = {};  // subsets the sampler could not estimate (too few samples): n/a, not 0, and not in the scale
    (unestimated || []).forEach(function (p) { gap[p[0] + "," + p[1]] = true; gap[p[1] + "," + p[0]] = true; });
    function missing(a, b) { return gap[a + "," + b] === true; }
    var NA = "not estimated: too few samples at this budget (standard error infinite); a larger --budget estimates it";
    for (i = 0; i < n; i++) {
      if (!missing(i, i)) { diagLimit = Math.max(diagLimit, Math.abs(matrix[i][i])); }
      for (j = 0; j < n; j++) { if (i !== j && !missing(i, j)) { limit = Math.max(limit, Math.abs(matrix[i][j])); } }
    }
    // two colour bars, one above the other, right of the "alone" column: the pairs', then the column's own (side
    // by side, they made 10 features' heatmap too wide for half the page)
    var diagX = left + n * cell + 14, size = diagX + cell + 90;
    var barsH = Math.max(n * cell, 138), barH = (barsH - 18) / 2, height = top + barsH + 10;
    var svg = sv("svg", {viewBox: "0 0 " + size + " " + height, width: size, height: height, role: "img",
                         "aria-label": "interaction heatmap"});
    var hatch = sv("pattern", {id: "na-hatch", width: "6", height: "6", patternUnits: "userSpaceOnUse",
                               patternTransform: "rotate(45)"});
    hatch.appendChild(sv("rect", {width: "6", height: "6", fill: "#eceef1"}));
    hatch.appendChild(sv("line", {x1: "0", y1: "0", x2: "0", y2: "6", stroke: "#b7bec6", "stroke-width": "2"}));
    var defs = sv("defs"); defs.appendChild(hatch); svg.appendChild(defs);
    for (i = 0; i < n; i++) {
      svg.appendChild(sv("text", {x: left - 6, y: top + i * cell + cell / 2 + 4, "text-anchor": "end"}, short(names[i])));
      var t = sv("text", {x: 0, y: 0, "text-anchor": "start",
        transform: "translate(" + (left + i * cell + cell / 2 + 4) + "," + (top - 6) + ") rotate(-60)"}, short(names[i]));
      svg.appendChild(t);
      for (j = 0; j < n; j++) {
        (function (i, j) {
          var v = matrix[i][j], diag = i === j, na = !diag && missing(i, j);
          var r = sv("rect", {x: left + j * cell, y: top + i * cell, width: cell - 1, height: cell - 1,
                              fill: diag ? "#ffffff" : na ? "url(#na-hatch)" : diverging(v, limit),
                              stroke: diag ? "#d5dae0" : "none",
                              "class": diag ? "diag" : na ? "pair unestimated" : "pair"});
          hover(r, function () { return (diag ? names[i] + " alone (see the column on the right)" :
                                         names[i] + " \u00d7 " + names[j]) + "\n" + label + " " +
                                         (na ? "n/a\n" + NA : signed(v)); });
          svg.appendChild(r);
        })(i, j);
      }
      (function (i) {
        var v = matrix[i][i], na = missing(i, i);
        var r = sv("rect", {x: diagX, y: top + i * cell, width: cell - 1, height: cell - 1,
                            "class": na ? "alone unestimated" : "alone",
                            fill: na ? "url(#na-hatch)" : diverging(v, diagLimit)});
        hover(r, function () { return names[i] + " alone\n" + label + " " + (na ? "n/a\n" + NA : signed(v)); });
        svg.appendChild(r);
      })(i);
    }
    svg.appendChild(sv("text", {x: diagX + cell / 2, y: top - 6, "text-anchor": "middle", fill: "#5f6b76"}, "alone"));
    function colourBar(y0, scale, name) {  // one scale's bar, from +scale (top) to -scale, named in its middle
      var lx = diagX + cell + 14, bar = sv("g", {"class": "colour-bar " + name});
      for (var k = 0; k <= 20; k++) {
        bar.appendChild(sv("rect", {x: lx, y: y0 + k * (barH / 21), width: 12, height: barH / 21 + 0.5,
                                    fill: diverging(scale * (1 - k / 10), scale)}));
      }
      bar.appendChild(sv("text", {x: lx + 16, y: y0 + 10}, signed(scale)));
      bar.appendChild(sv("text", {x: lx + 16, y: y0 + barH / 2 + 4}, name));
      bar.appendChild(sv("text", {x: lx + 16, y: y0 + barH}, signed(-scale)));
      svg.appendChild(bar);
    }
    // the "alone" column has a scale of its own: without its bar its colours could only be read by hovering
    colourBar(top, limit, "pairs");
    colourBar(top + barH + 18, diagLimit, "alone");
    return svg;
  }

  // ------------------------------------------------------------------ the directed explanation graph
  // Everything about H_gamma (groups, sources, sinks, layers, positions, class edges) was computed in Python for
  // every distinct threshold (interplay.plot._analysis.thresholds); the page only looks it up.
  function graphView(container, G) {
    var W = G.weights, n = W.length, phi = G.phi, rank = G.ranking, i, j;
    var size = G.size || phi.map(Math.abs);  // node sizes: |phi| (stored once), else the ranking scores
    // the distinct pictures, each stored as its change from the one before (report/__init__.py's
    // _compact_states): keys left out are the previous state's; dx / ddepth: [feature, value, ...] changes
    var distinct = [], previous = {};
    G.distinct_states.forEach(function (written) {
      var s = {}, key, k;
      for (key in previous) { if (Object.prototype.hasOwnProperty.call(previous, key)) { s[key] = previous[key]; } }
      for (key in written) {
        if (!Object.prototype.hasOwnProperty.call(written, key)) { continue; }
        if (key === "dx" || key === "ddepth") {
          var full = s[key.slice(1)].slice(), changes = written[key];
          for (k = 0; k < changes.length; k += 2) { full[changes[k]] = changes[k + 1]; }
          s[key.slice(1)] = full;
        } else { s[key] = written[key]; }
      }
      distinct.push(s);
      previous = s;
    });
    var pictures = distinct.map(function (s) {  // x in 1/10000, depth as indices into G.levels, edges flat
      var edges = [];
      for (var k = 0; k < s.edges.length; k += 2) { edges.push([s.edges[k], s.edges[k + 1]]); }
      return {groups: s.groups, sources: s.sources, sinks: s.sinks, isolated: s.isolated, no_effect: s.no_effect,
              little_effect: s.little_effect, edges: edges,
              x: s.x.map(function (v) { return v / 10000; }), depth: s.depth.map(function (d) { return G.levels[d]; })};
    });
    // each threshold's state: its distinct picture and its own density
    var gammas = G.gammas, states = G.state_at.map(function (d, k) {
      var s = {}, src = pictures[d], key;
      for (key in src) { if (Object.prototype.hasOwnProperty.call(src, key)) { s[key] = src[key]; } }
      s.density = G.densities[k];
      return s;
    });
    var maxAbs = 0, maxSize = Math.max.apply(null, size.map(Math.abs)) || 1;
    for (i = 0; i < n; i++) { for (j = 0; j < n; j++) { if (i !== j) { maxAbs = Math.max(maxAbs, Math.abs(W[i][j])); } } }
    var WIDTH = 860, PAD = 70, ROW = 120, TOP = 80;
    function heightOf(s) { return TOP + Math.max.apply(null, s.depth) * ROW + 130; }
    var HEIGHT = heightOf(states[G.default]);

    if (G.summary) { container.appendChild(el("p", {"class": "summary", id: "graph-summary"}, G.summary)); }
    // the paragraph reads the default threshold only: said when the slider is elsewhere (it read "none of the
    // others is redundant" beside the arrows drawn at a larger gamma)
    var summaryNote = el("p", {"class": "hint", id: "graph-summary-note"});
    summaryNote.hidden = true;
    if (G.summary) { container.appendChild(summaryNote); }
    var controls = el("div", {"class": "controls"});
    var gl = el("label", null, "\u03b3 (redundancy threshold)");
    var slider = el("input", {type: "range", id: "gamma", min: "0", max: String(gammas.length - 1), step: "1"});
    var gval = el("span", {id: "gamma-value"});
    gl.appendChild(slider); gl.appendChild(gval);
    var reset = el("button", {type: "button"}, "reset view");
    var zin = el("button", {type: "button", "aria-label": "zoom in"}, "+");
    var zout = el("button", {type: "button", "aria-label": "zoom out"}, "\u2212");
    var el_ = el("label", null, "strongest other edges");
    var edgeSlider = el("input", {type: "range", id: "max-edges", min: "0", max: String(Math.min(n * (n - 1), 60)),
                                  step: "1"});
    var eval_ = el("span");
    el_.appendChild(edgeSlider); el_.appendChild(eval_);
    [gl, el_, zin, zout, reset].forEach(function (c) { controls.appendChild(c); });
    container.appendChild(controls);

    var split = el("div", {"class": "split"}); container.appendChild(split);
    var left = el("div"); split.appendChild(left);
    var svg = sv("svg", {"class": "graphbox", id: "graph", viewBox: "0 0 " + WIDTH + " " + HEIGHT, width: WIDTH,
                         height: HEIGHT, role: "img", "aria-label": "directed explanation graph"});
    var defs = sv("defs");
    [["pos", POS], ["neg", NEG], ["red", REDUNDANT]].forEach(function (m) {
      var marker = sv("marker", {id: "arrow-" + m[0], viewBox: "0 0 10 10", refX: "10", refY: "5",
                                 markerWidth: "10", markerHeight: "10", orient: "auto-start-reverse",
                                 markerUnits: "userSpaceOnUse"});
      marker.appendChild(sv("path", {d: "M0,0 L10,5 L0,10 z", fill: m[1]}));
      defs.appendChild(marker);
    });
    svg.appendChild(defs);
    var scene = sv("g"); svg.appendChild(scene);
    var boxLayer = sv("g"), edgeLayer = sv("g"), nodeLayer = sv("g");
    [boxLayer, edgeLayer, nodeLayer].forEach(function (l) { scene.appendChild(l); });
    left.appendChild(svg);

    var legend = el("div", {"class": "legend"});
    function legendItem(kind, color, text) {
      var s = el("span"); var m = el("span", {"class": kind === "line" ? "swatch" : kind});
      m.style[kind === "ring" ? "borderColor" : "background"] = color;
      if (kind === "line") { m.style.borderRadius = "1px"; m.style.height = "3px"; m.style.width = "16px"; m.style.verticalAlign = "3px"; }
      s.appendChild(m); s.appendChild(document.createTextNode(text)); legend.appendChild(s);
    }
    legendItem("line", REDUNDANT, "A \u2192 B: once A is known, B adds little (|W| \u2264 \u03b3)");
    legendItem("line", POS, "A \u2192 B: B raises the output given A");
    legendItem("line", NEG, "\u2026 lowers it");
    legendItem("swatch", GROUP, "box: interchangeable features");
    if (phi) { legendItem("swatch", GREY, "grey: no notable effect on this prediction"); }  // as the picture
    left.appendChild(legend);
    left.appendChild(el("p", {"class": "hint"},
      "Rows: the top row is made redundant by no other feature, the rows below by those above (the condensation " +
      "of the redundancy graph H\u03b3, sources on top); features with no redundancy edge below them, then, faded, " +
      "those set aside (too little effect on their own to call redundant, then no effect), each kind in rows of " +
      "its own. Node area: " +
      (phi ? "|attribution| (red raises, blue lowers the output)" : "ranking score") + "; a row no arrow reaches " +
      "reads left to right from the largest (a box by its largest member), a row arrows reach places each node " +
      "below its sources. Redundancy arrows implied " +
      "by others are left out. Hover a node or an edge; scroll or use +/\u2212 to zoom, drag to pan."));
    var side = el("div", {"class": "side"}); split.appendChild(side);
    var note = el("p", {"class": "hint"}); side.appendChild(note);
    var tables = el("div", {"class": "tables"}); side.appendChild(tables);

    function radius(f) { return 6 + 18 * Math.sqrt(Math.abs(size[f]) / maxSize); }
    function colour(f) { return !phi || phi[f] === 0 ? GREY : (phi[f] > 0 ? POS : NEG); }

    // nodes: one g.node per feature (dot + label); members of a group are listed inside their group's box
    var nodeEls = [];
    for (i = 0; i < n; i++) {
      (function (f) {
        var g = sv("g", {"class": "node", "data-index": String(f)});
        var dot = sv("circle", {r: radius(f).toFixed(1), fill: colour(f), stroke: "#fff", "stroke-width": "1.5"});
        var label = sv("text", {"text-anchor": "middle"}, short(names[f]));
        var value = sv("text", {"text-anchor": "middle", fill: "#5f6b76"}, phi ? signed(phi[f]) : "");
        g.appendChild(dot); g.appendChild(label); g.appendChild(value);
        hover(g, function () {
          var s = state.s, role = [];
          if (s.sources.indexOf(f) >= 0) { role.push("source of H\u03b3 (no other feature makes it redundant)"); }
          if (s.sinks.indexOf(f) >= 0) { role.push("sink of H\u03b3 (makes no feature outside its class redundant)"); }
          if (s.isolated.indexOf(f) >= 0) { role = ["no redundancy edge either way"]; }
          if ((s.no_effect || []).indexOf(f) >= 0) { role = ["no notable effect on this prediction: at most \u03b3 alone and given any other feature (set aside)"]; }
          if ((s.little_effect || []).indexOf(f) >= 0) {
            role = ["little effect on its own (|attribution| \u2264 2\u03b3): too small to call redundant, set aside"]; }
          return names[f] + (phi ? "\nattribution " + signed(phi[f]) : "") + "\nrank " + (rankOf[f] + 1) + " of " + n +
            " (" + G.ranking_method + ": " + fmt(rank[f]) + ")" + (role.length ? "\n" + role.join("\n") : "");
        });
        g.addEventListener("mouseenter", function () {
          edgeEls.forEach(function (e) { if (e.a !== f && e.b !== f) { e.el.classList.add("dim"); } });
        });
        g.addEventListener("mouseleave", function () {
          edgeEls.forEach(function (e) { e.el.classList.remove("dim"); });
        });
        nodeLayer.appendChild(g);
        nodeEls.push({g: g, dot: dot, label: label, value: value});
      })(i);
    }
    var rankOrder = rank.map(function (_, k) { return k; }).sort(function (a, b) { return rank[b] - rank[a]; });
    var rankOf = []; rankOrder.forEach(function (f, r) { rankOf[f] = r; });

    // geometry of one state: class shapes (circle or box) and where each feature is drawn
    var shapes = null, edgeEls = [];
    function layout(s) {
      var groupOf = [], k;
      for (k = 0; k < n; k++) { groupOf.push(-1); }
      s.groups.forEach(function (g, gi) { g.forEach(function (f) { groupOf[f] = gi; }); });
      var out = {groupOf: groupOf, at: [], shape: []};
      for (k = 0; k < n; k++) {
        var cx = PAD + s.x[k] * (WIDTH - 2 * PAD), cy = TOP + s.depth[k] * ROW;
        if (groupOf[k] < 0) {
          out.shape[k] = {kind: "circle", x: cx, y: cy, r: radius(k)};
          out.at[k] = {x: cx, y: cy, r: radius(k), inBox: false};
        }
      }
      s.groups.forEach(function (g, gi) {
        var members = g.slice().sort(function (a, b) { return Math.abs(size[b]) - Math.abs(size[a]); });
        var f0 = g[0], cx = PAD + s.x[f0] * (WIDTH - 2 * PAD), cy = TOP + s.depth[f0] * ROW;
        var shown = members.slice(0, 5), bw = Math.max.apply(null, shown.map(function (f) { return textWidth(names[f]); })) + 40;
        var bh = 20 * shown.length + (members.length > 5 ? 18 : 0) + 12;
        var box = {kind: "box", x: cx, y: cy, w: bw, h: bh, members: members};
        members.forEach(function (f, r) {
          out.shape[f] = box;
          out.at[f] = {x: cx - bw / 2 + 14, y: cy - bh / 2 + 16 + 20 * Math.min(r, 5), r: 5, inBox: true, hidden: r >= 5};
        });
      });
      return out;
    }
    function anchor(shape, tx, ty) {  // the point on a shape's border towards (tx, ty)
      var dx = tx - shape.x, dy = ty - shape.y, len = Math.sqrt(dx * dx + dy * dy) || 1;
      if (shape.kind === "circle") { return [shape.x + dx / len * (shape.r + 2), shape.y + dy / len * (shape.r + 2)]; }
      var sx = Math.abs(dx) > 0 ? (shape.w / 2 + 3) / Math.abs(dx) : Infinity;
      var sy = Math.abs(dy) > 0 ? (shape.h / 2 + 3) / Math.abs(dy) : Infinity;
      var t = Math.min(sx, sy);
      return [shape.x + dx * t, shape.y + dy * t];
    }
    function curve(sa, sb, bend) {  // a quadratic curve from outline to outline, bent sideways by `bend` (c; c1, c2:
                                    // the same as a cubic)
      var mx = (sa.x + sb.x) / 2, my = (sa.y + sb.y) / 2, dx = sb.x - sa.x, dy = sb.y - sa.y;
      var qx = mx - dy * bend, qy = my + dx * bend, p = anchor(sa, qx, qy), q = anchor(sb, qx, qy);
      return {p: p, c: [qx, qy], c1: [p[0] + 2 / 3 * (qx - p[0]), p[1] + 2 / 3 * (qy - p[1])],
              c2: [q[0] + 2 / 3 * (qx - q[0]), q[1] + 2 / 3 * (qy - q[1])], q: q};
    }
    // a curve leaving a dot at angle ta and entering the other at angle tb (radians, y down): for an end whose
    // label, under its dot, every bend of the direct curve runs through (an arrow up into a node from below)
    function portCurve(sa, sb, ta, tb, reach) {  // reach: how far out the curve goes, a multiple of the default
      var dx = sb.x - sa.x, dy = sb.y - sa.y, d = reach * Math.max(30, Math.min(140, 0.35 * Math.sqrt(dx * dx + dy * dy)));
      var ua = [Math.cos(ta), Math.sin(ta)], ub = [Math.cos(tb), Math.sin(tb)];
      var p = [sa.x + ua[0] * (sa.r + 2), sa.y + ua[1] * (sa.r + 2)], q = [sb.x + ub[0] * (sb.r + 2), sb.y + ub[1] * (sb.r + 2)];
      return {p: p, c1: [p[0] + ua[0] * d, p[1] + ua[1] * d], c2: [q[0] + ub[0] * d, q[1] + ub[1] * d], q: q};
    }
    // the directions a curve may leave or enter a dot by: all round but straight down, where its label is
    var PORTS = [-90, -45, -135, 0, 180, 30, 150].map(function (a) { return a * Math.PI / 180; });
    function pathOf(k) {
      function xy(v) { return v[0].toFixed(1) + "," + v[1].toFixed(1); }
      return "M" + xy(k.p) + (k.c ? " Q" + xy(k.c) : " C" + xy(k.c1) + " " + xy(k.c2)) + " " + xy(k.q);
    }
    // what an edge should not cross: every drawn node's dot or group box, and every label (its ends' too: an
    // arrow entering a node from below would run through the name written under it)
    function obstaclesOf(L) {
      var out = [], seen = [];
      for (var f = 0; f < n; f++) {
        var sh = L.shape[f], at = L.at[f];
        if (sh.kind === "box") {
          if (seen.indexOf(sh) < 0) { seen.push(sh); out.push({shape: sh, x0: sh.x - sh.w / 2, y0: sh.y - sh.h / 2,
                                                               x1: sh.x + sh.w / 2, y1: sh.y + sh.h / 2}); }
          continue;
        }
        var half = Math.max(textWidth(names[f]), phi ? 7 * signed(phi[f]).length : 0) / 2 + 2;
        out.push({shape: sh, x0: at.x - at.r - 2, y0: at.y - at.r - 2, x1: at.x + at.r + 2, y1: at.y + at.r + 2});
        out.push({label: true, x0: at.x - half, y0: at.y + at.r + 2, x1: at.x + half, y1: at.y + at.r + (phi ? 32 : 18)});
      }
      return out;
    }
    function pointsOf(k) {  // points along a curve, about every 8 px (a sparser sampling stepped over a label)
      var out = [], chord = Math.abs(k.q[0] - k.p[0]) + Math.abs(k.q[1] - k.p[1]);
      var hull = chord + Math.abs(k.c1[0] - k.p[0]) + Math.abs(k.c1[1] - k.p[1]) +
                 Math.abs(k.c2[0] - k.q[0]) + Math.abs(k.c2[1] - k.q[1]);
      var m = Math.max(25, Math.ceil(hull / 8));
      for (var i = 0; i < m; i++) {
        var t = (i + 0.5) / m, u = 1 - t, a = u * u * u, b = 3 * u * u * t, c = 3 * u * t * t, e = t * t * t;
        out.push([a * k.p[0] + b * k.c1[0] + c * k.c2[0] + e * k.q[0], a * k.p[1] + b * k.c1[1] + c * k.c2[1] + e * k.q[1]]);
      }
      return out;
    }
    function lengthOf(points) {
      var s = 0;
      for (var i = 1; i < points.length; i++) { s += Math.hypot(points[i][0] - points[i - 1][0], points[i][1] - points[i - 1][1]); }
      return s;
    }
    // how badly a curve lies: each obstacle it runs into (not its own ends' dots or boxes) counts 1, and its points
    // inside obstacles or out of the picture, then (less) its points near the edges already drawn, per 1/25 of it
    function cost(points, sa, sb, obstacles, drawn) {
      var hits = 0, crowd = 0, crossed = [], m = points.length, unit = 25 / m, end = Math.round(4 / unit);
      points.forEach(function (pt, i) {
        var x = pt[0], y = pt[1];
        if (x < 4 || x > WIDTH - 4 || y < 4 || y > HEIGHT - 4) { hits += 2; return; }
        for (var o = 0; o < obstacles.length; o++) {
          var b = obstacles[o];
          // an end's own dot or box is where the curve starts and stops (a dot counts only inside its circle, which
          // a curve leaving it backwards runs through); its label is not: an arrow run through the name under its
          // own end hid the name (the labels carried their node's shape and were exempt with it)
          var own = !b.label && (b.shape === sa || b.shape === sb);
          if (own && (b.shape.kind !== "circle" || Math.hypot(x - b.shape.x, y - b.shape.y) >= b.shape.r)) { continue; }
          if (x > b.x0 && x < b.x1 && y > b.y0 && y < b.y1) {
            hits++;
            if (crossed.indexOf(b) < 0) { crossed.push(b); }
            return;
          }
        }
        if (i < end || i > m - 1 - end) { return; }  // edges of one node meet near it anyway
        for (var d = 0; d < drawn.length; d++) {
          if (Math.abs(drawn[d][0] - x) < 7 && Math.abs(drawn[d][1] - y) < 7) { crowd++; return; }
        }
      });
      return crossed.length + unit * (hits + 0.3 * crowd);
    }
    // the bend (from `bends`, in order of preference) whose curve lies best; remembered as drawn
    function route(sa, sb, bends, obstacles, drawn) {
      var best = null, lowest = Infinity;
      function consider(k, port) {
        var points = pointsOf(k), c = cost(points, sa, sb, obstacles, drawn);
        if (port) {  // taken only where it lies better by a whole point; the shortest (least detour) first
          c += 0.5 + 0.4 * Math.max(0, lengthOf(points) / Math.max(1, Math.hypot(k.q[0] - k.p[0], k.q[1] - k.p[1])) - 1);
        }
        if (c < lowest) { best = {k: k, points: points}; lowest = c; }
      }
      bends.forEach(function (bend) { consider(curve(sa, sb, bend), false); });
      if (lowest >= 1 && sa.kind === "circle" && sb.kind === "circle") {  // through a label or a node: go round
        [1, 2].forEach(function (reach) {  // farther out: round a long name written under a near node
          PORTS.forEach(function (ta) { PORTS.forEach(function (tb) { consider(portCurve(sa, sb, ta, tb, reach), true); }); });
        });
      }
      best.points.forEach(function (pt) { drawn.push(pt); });
      return pathOf(best.k);
    }
    var STRAIGHT_BENDS = [0, 0.12, -0.12, 0.25, -0.25, 0.4, -0.4];
    var ARC_BENDS = [0.18, -0.18, 0.3, -0.3, 0.45, -0.45, 0.08, -0.08, 0.65, -0.65];

    // pairs of G by strength, for the "strongest other edges"
    var pairs = [];
    for (i = 0; i < n; i++) { for (j = 0; j < n; j++) { if (i !== j && W[i][j] !== 0) { pairs.push([i, j]); } } }
    pairs.sort(function (a, b) { return Math.abs(W[b[0]][b[1]]) - Math.abs(W[a[0]][a[1]]); });

    // zoom and pan through the viewBox
    var view = {x: 0, y: 0, w: WIDTH, h: HEIGHT};
    function applyView() { svg.setAttribute("viewBox", [view.x, view.y, view.w, view.h].map(function (v) { return v.toFixed(1); }).join(" ")); }
    function zoom(f, px, py) {
      var nw = Math.max(WIDTH / 8, Math.min(WIDTH * 2, view.w * f)), k = nw / view.w;
      view.x = px - (px - view.x) * k; view.y = py - (py - view.y) * k; view.w = nw; view.h = view.h * k; applyView();
    }
    svg.addEventListener("wheel", function (e) {
      e.preventDefault();
      var r = svg.getBoundingClientRect();
      zoom(e.deltaY > 0 ? 1.15 : 1 / 1.15, view.x + (e.clientX - r.left) / r.width * view.w,
           view.y + (e.clientY - r.top) / r.height * view.h);
    }, {passive: false});
    var drag = null;
    svg.addEventListener("pointerdown", function (e) { drag = {x: e.clientX, y: e.clientY, vx: view.x, vy: view.y}; });
    window.addEventListener("pointerup", function () { drag = null; });
    svg.addEventListener("pointermove", function (e) {
      if (!drag) { return; }
      var r = svg.getBoundingClientRect();
      view.x = drag.vx - (e.clientX - drag.x) / r.width * view.w; view.y = drag.vy - (e.clientY - drag.y) / r.height * view.h;
      applyView();
    });
    zin.addEventListener("click", function () { zoom(1 / 1.3, view.x + view.w / 2, view.y + view.h / 2); });
    zout.addEventListener("click", function () { zoom(1.3, view.x + view.w / 2, view.y + view.h / 2); });
    reset.addEventListener("click", function () { view = {x: 0, y: 0, w: WIDTH, h: HEIGHT}; applyView(); });

    var state = {k: G.default, s: states[G.default], maxEdges: Math.min(5, n)};
    edgeSlider.value = String(state.maxEdges);
    edgeSlider.addEventListener("input", function () { state.maxEdges = Number(edgeSlider.value); redraw(); });
    slider.value = String(G.default);

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
        var tr = el("tr"); tr.appendChild(el("td", {"class": "num"}, String(k + 1)));
        tr.appendChild(listCell(g)); return tr;
      });
      tables.appendChild(smallTable("Interchangeable groups", ["#", "features"], groupRows));
      function roleRows(list) {
        return list.length ? [(function () { var tr = el("tr"); tr.appendChild(listCell(list)); return tr; })()] : [];
      }
      var isolated = s.isolated, aside = (s.no_effect || []).concat(s.little_effect || []);
      var notIso = function (f) { return isolated.indexOf(f) < 0; };
      tables.appendChild(smallTable("Sources of H\u03b3", ["made redundant by no other feature"], roleRows(s.sources.filter(notIso))));
      tables.appendChild(smallTable("Sinks of H\u03b3", ["make no outside feature redundant"], roleRows(s.sinks.filter(notIso))));
      tables.appendChild(smallTable("No redundancy edges", ["features"],
        roleRows(isolated.filter(function (f) { return aside.indexOf(f) < 0; }))));
      tables.appendChild(smallTable("No notable effect on this prediction", ["at most \u03b3 alone and given any other: set aside"],
        roleRows(s.no_effect || [])));
      tables.appendChild(smallTable("Little effect on their own", ["|attribution| \u2264 2\u03b3: set aside"],
        roleRows(s.little_effect || [])));
      var rankRows = rankOrder.map(function (f, r) {  // every feature (a table: cheap, and none left out)
        var tr = el("tr"); tr.appendChild(el("td", {"class": "num"}, String(r + 1)));
        tr.appendChild(el("td", null, names[f])); tr.appendChild(el("td", {"class": "num"}, fmt(rank[f]))); return tr;
      });
      var rankBox = smallTable("Ranking (" + G.ranking_method + ")", ["#", "feature", "score"], rankRows);
      // say what the ranking is, and where it parts from the attributions' order (a reader takes it for |phi|)
      var above = null;
      if (phi && G.ranking_method === "importance") {
        for (var r1 = 0; r1 < rankOrder.length && !above; r1++) {
          for (var r2 = r1 + 1; r2 < rankOrder.length; r2++) {
            if (Math.abs(phi[rankOrder[r2]]) > Math.abs(phi[rankOrder[r1]]) * (1 + 1e-9)) { above = [rankOrder[r1], rankOrder[r2]]; break; }
          }
        }
        rankBox.appendChild(el("p", {"class": "hint ranking-note"}, "PageRank on |weight|, the walk restarting in " +
          "proportion to |attribution|: a feature that matters given many others climbs, one that makes others " +
          "redundant passes its weight on. " + (above ? "It differs from the attribution order here: " + names[above[0]] +
          " ranks above " + names[above[1]] + ", whose |attribution| is larger." : "Here it follows the attribution order.")));
      }
      tables.appendChild(rankBox);
    }
    function redraw() {
      var s = states[state.k], gamma = gammas[state.k], L = layout(s), k;
      state.s = s;
      var height = heightOf(s);
      if (height !== HEIGHT) {  // the layers of this threshold need another height: keep the zoom, change the box
        view.h = view.h * height / HEIGHT; HEIGHT = height;
        svg.setAttribute("height", String(HEIGHT)); applyView();
      }
      gval.textContent = fmt(state.k === G.default ? G.gamma : gamma) + "  (H\u03b3 density " + Math.round(100 * s.density) + "%" +
        (state.k === G.default ? ", default" : "") + ")";
      summaryNote.hidden = state.k === G.default;
      summaryNote.textContent = "The paragraph above reads the graph at the default \u03b3 = " + fmt(G.gamma) +
        "; the picture and the tables below are at \u03b3 = " + fmt(gamma) + ".";
      note.textContent = s.density === 0 ? "At this \u03b3 no feature is redundant given another. Move the " +
        "slider right to treat weaker edges as redundancies." : "";
      boxLayer.textContent = ""; edgeLayer.textContent = ""; edgeEls = [];
      var drawnBoxes = [];
      for (k = 0; k < n; k++) {
        var box = L.shape[k];
        if (box.kind === "box" && drawnBoxes.indexOf(box) < 0) {
          drawnBoxes.push(box);
          boxLayer.appendChild(sv("rect", {"class": "group", x: (box.x - box.w / 2).toFixed(1), y: (box.y - box.h / 2).toFixed(1),
            width: box.w.toFixed(1), height: box.h.toFixed(1), rx: "8", fill: GROUP, stroke: GROUP_EDGE, "stroke-width": "1.5"}));
          if (box.members.length > 5) {
            boxLayer.appendChild(sv("text", {x: (box.x - box.w / 2 + 8).toFixed(1), y: (box.y + box.h / 2 - 8).toFixed(1),
              fill: "#5f6b76"}, "+" + (box.members.length - 5) + " more"));
          }
        }
        var at = L.at[k], node = nodeEls[k];
        node.g.style.display = at.hidden ? "none" : "";
        node.dot.setAttribute("cx", at.x.toFixed(1)); node.dot.setAttribute("cy", at.y.toFixed(1));
        node.dot.setAttribute("r", (at.inBox ? 5 : at.r).toFixed(1));
        node.label.setAttribute("text-anchor", at.inBox ? "start" : "middle");
        node.label.setAttribute("x", (at.inBox ? at.x + 10 : at.x).toFixed(1));
        node.label.setAttribute("y", (at.inBox ? at.y + 4 : at.y + at.r + 14).toFixed(1));
        node.value.setAttribute("x", at.x.toFixed(1)); node.value.setAttribute("y", (at.y + at.r + 28).toFixed(1));
        node.value.style.display = at.inBox ? "none" : "";
        node.g.setAttribute("data-group", String(L.groupOf[k]));
        var role = [];
        if (s.sources.indexOf(k) >= 0) { role.push("source"); }
        if (s.sinks.indexOf(k) >= 0) { role.push("sink"); }
        if (s.isolated.indexOf(k) >= 0) { role.push("isolated"); }
        var setAside = (s.no_effect || []).indexOf(k) >= 0 || (s.little_effect || []).indexOf(k) >= 0;
        if (setAside) { role.push("aside"); }
        node.dot.setAttribute("fill", (s.no_effect || []).indexOf(k) >= 0 ? GREY : colour(k));  // as the picture
        node.g.setAttribute("data-role", role.join(" "));
        node.g.style.opacity = setAside ? "0.45" : "";
      }
      var obstacles = obstaclesOf(L), drawn = [];
      s.edges.forEach(function (e) {  // the condensation's transitive reduction: "once A is known, B adds little"
        var path = sv("path", {"class": "edge redundancy", d: route(L.shape[e[0]], L.shape[e[1]], STRAIGHT_BENDS, obstacles, drawn), fill: "none",
          "data-from": String(e[0]), "data-to": String(e[1]),
          stroke: REDUNDANT, "stroke-width": "1.8", "marker-end": "url(#arrow-red)"});
        var A = L.shape[e[0]].members || [e[0]], B = L.shape[e[1]].members || [e[1]];
        hover(path, function () { return "once " + A.map(function (f) { return names[f]; }).join(" / ") + " is known, " +
          B.map(function (f) { return names[f]; }).join(", ") + " add(s) little"; });
        edgeLayer.appendChild(path); edgeEls.push({el: path, a: e[0], b: e[1]});
      });
      var shown = 0;
      for (k = 0; k < pairs.length && shown < state.maxEdges; k++) {
        var a = pairs[k][0], b = pairs[k][1], w = W[a][b];
        // none from a feature with no effect: its edge only restates the other feature's own importance
        if (Math.abs(w) <= gamma || L.shape[a] === L.shape[b] || (s.no_effect || []).indexOf(a) >= 0) { continue; }
        shown++;
        (function (a, b, w) {
          var path = sv("path", {"class": "edge strong", d: route(L.shape[a], L.shape[b], ARC_BENDS, obstacles, drawn), fill: "none",
            "data-from": String(a), "data-to": String(b),
            stroke: w > 0 ? POS : NEG, "stroke-opacity": "0.7",
            "stroke-width": (0.8 + 4.5 * Math.abs(w) / (maxAbs || 1)).toFixed(2),
            "marker-end": "url(#arrow-" + (w > 0 ? "pos" : "neg") + ")"});
          hover(path, function () { return names[a] + " \u2192 " + names[b] + "\nimportance of " + names[b] +
            " when " + names[a] + " is present: " + signed(w); });
          edgeLayer.appendChild(path); edgeEls.push({el: path, a: a, b: b});
        })(a, b, w);
      }
      eval_.textContent = shown + " shown";
      renderTables(s);
    }
    slider.addEventListener("input", function () { state.k = Number(slider.value); redraw(); });
    redraw();
  }

  function summaryChart(S, all) {
    var names = S.feature_names || D.feature_names;  // stays right when another row is shown
    var V = S.values, X = S.data, m = V.length, d = names.length, j, k;
    var imp = S.importance || names.map(function (_, f) {  // over every row (the page draws the first ones)
      var s = 0; for (k = 0; k < m; k++) { s += Math.abs(V[k][f]); } return s / m; });
    var ranked = imp.map(function (_, f) { return f; }).sort(function (a, b) { return imp[b] - imp[a]; });
    var order = all ? ranked : ranked.slice(0, SUMMARY_FEATURES);
    var left = Math.min(200, Math.max.apply(null, order.map(function (f) { return textWidth(names[f]); })) + 14);
    var width = 760, row = 30, top = 6, plotW = width - left - 20, height = top + row * order.length + 44;
    var lo = Infinity, hi = -Infinity;
    order.forEach(function (f) { for (k = 0; k < m; k++) { lo = Math.min(lo, V[k][f]); hi = Math.max(hi, V[k][f]); } });
    lo = Math.min(lo, 0); hi = Math.max(hi, 0); if (hi === lo) { hi = lo + 1; }
    function X0(v) { return left + (v - lo) / (hi - lo) * plotW; }
    var svg = sv("svg", {viewBox: "0 0 " + width + " " + height, width: width, height: height, role: "img",
                         "aria-label": "summary over rows"});
    svg.appendChild(sv("line", {x1: X0(0), x2: X0(0), y1: top, y2: height - 30, stroke: "#555"}));
    order.forEach(function (f, r) {
      var y = top + r * row + row / 2, T = shade(X.map(function (x) { return x[f]; }));
      svg.appendChild(sv("text", {x: left - 8, y: y + 4, "text-anchor": "end"}, short(names[f])));
      for (k = 0; k < m; k++) {
        var t = T[k];
        var jitter = (((k * 2654435761) % 1000) / 1000 - 0.5) * (row - 12);
        var c = sv("circle", {cx: X0(V[k][f]).toFixed(1), cy: (y + jitter).toFixed(1), r: 3,
                              fill: t === null ? "#b0b0b0" : t >= 0.5 ? mix("#b0b0b0", POS, 2 * t - 1) :
                                mix("#b0b0b0", NEG, 1 - 2 * t),
                              "fill-opacity": "0.85"});
        (function (k, f) { hover(c, function () { return names[f] + " = " + fmtValue(X[k][f], 6) + "\nattribution " + signed(V[k][f]) +
                                                         "\n(" + (S.labels && S.labels[k] !== undefined ? S.labels[k] : "row " + k) + ")"; }); })(k, f);
        svg.appendChild(c);
      }
    });
    var ticks = [lo, 0, hi].filter(function (v, i, a) { return a.indexOf(v) === i; });
    ticks.forEach(function (v) {  // the scale: the smallest, 0 and the largest value shown
      var x = X0(v);
      svg.appendChild(sv("line", {x1: x, x2: x, y1: height - 30, y2: height - 25, stroke: "#555"}));
      svg.appendChild(sv("text", {"class": "tick", x: x, y: height - 16, fill: "#5f6b76", "font-size": "11",
                                  "text-anchor": v === lo ? "start" : v === hi ? "end" : "middle"}, fmt(v)));
    });
    svg.appendChild(sv("text", {x: left + plotW / 2, y: height - 2, "text-anchor": "middle", fill: "#5f6b76"},
      "attribution" + (S.unit ? " (" + S.unit + ")" : "") + "; one dot per row, coloured by the feature's value"));
    var legendNote = sv("title", null, "colour: the feature's value from low (blue) to high (red), between its 5th and " +
      "95th percentiles; categories in alphabetical order; grey: missing");
    svg.appendChild(legendNote);
    if (order.length === ranked.length) { return svg; }
    var box = el("div");
    box.appendChild(svg);
    box.appendChild(moreNote(ranked.slice(order.length), names, "mean |attribution|",
      function () { box.parentNode.replaceChild(summaryChart(S, true), box); }));
    return box;
  }

  function valueLegend() {  // the beeswarm's colours, visible: they are the feature's value, not the sign that the
    // other charts' red and blue stand for (raises / lowers the output)
    var legend = el("div", {"class": "legend value-legend"});
    var scale = el("span");
    scale.appendChild(document.createTextNode("dot colour = the feature's value: low"));
    scale.appendChild(el("span", {"class": "gradient"}));
    scale.appendChild(document.createTextNode("high (blue to red, between its 5th and 95th percentiles; " +
      "categories in alphabetical order)"));
    legend.appendChild(scale);
    var grey = el("span");
    var dot = el("span", {"class": "swatch"}); dot.style.background = "#b0b0b0"; grey.appendChild(dot);
    grey.appendChild(document.createTextNode("grey: a constant column (one value or one category) or a missing value"));
    legend.appendChild(grey);
    legend.appendChild(el("span", null, "unlike the other charts, red / blue here do not mean raises / lowers the " +
      "output: a dot right of 0 raises it, left of 0 lowers it"));
    return legend;
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
    // the image stays visible: a light tint (at most 45 % opaque) and each region's outline in its sign's colour,
    // next to the untouched image
    var w = I.width, h = I.height, rgb = decode(I.rgb), seg = new Int32Array(decode(I.segments).buffer);
    var limit = Math.max.apply(null, values.map(Math.abs)) || 1;
    function draw(overlay) {
      var canvas = el("canvas", {width: String(w), height: String(h), "class": overlay ? "overlay" : "original"});
      var ctx = canvas.getContext("2d"), img = ctx.createImageData(w, h);
      for (var p = 0; p < w * h; p++) {
        var r = seg[p], t = Math.max(-1, Math.min(1, values[r] / limit));
        var tint = t >= 0 ? [232, 56, 79] : [31, 119, 208], a = overlay ? 0.45 * Math.abs(t) : 0;
        var x = p % w;
        var edge = overlay && ((x < w - 1 && seg[p + 1] !== r) || (x > 0 && seg[p - 1] !== r) ||
                               (p + w < w * h && seg[p + w] !== r) || (p - w >= 0 && seg[p - w] !== r));
        for (var c = 0; c < 3; c++) {
          var v = rgb[3 * p + c] * (1 - a) + tint[c] * a;
          img.data[4 * p + c] = edge && Math.abs(t) > 0.05 ? 0.4 * v + 0.6 * tint[c] : v;
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
    var box = el("div", {"class": "images"});
    box.appendChild(draw(false)); box.appendChild(draw(true));
    return box;
  }

  // ------------------------------------------------------------------ page
  function fromUpper(upper) {  // a symmetric matrix stored as its upper triangle (row i from column i on)
    return upper.map(function (_, i) { return upper.map(function (_, j) {
      return upper[Math.min(i, j)][Math.abs(j - i)]; }); });
  }
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
    card("baseline (" + (R.baseline_label || "average output") + ")", fmt(R.baseline));
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
      var im = section("Image regions", "The image, and each region lightly tinted and outlined by its attribution (red raises the output, blue " +
        "lowers it); hover the image for a region's value.");
      im.appendChild(imageView(R.image, R.attribution));
    }
    if (R.interactions) {
      var gaps = R.interactions.unestimated || [];
      var matrix = R.interactions.matrix || fromUpper(R.interactions.upper);
      var map = heatmap(matrix, R.interactions.index.toUpperCase(), gaps);
      // a heatmap wider than half the page (more than ~30 features) gets the whole width: squeezed into half,
      // 60 features' names were written about 7 px high
      var h = section("Interactions (" + R.interactions.index.toUpperCase() + ")",
        "Pairwise interaction values off the diagonal; the single-feature values in the column \u201calone\u201d " +
        "on the right (its own colour scale: the lower colour bar, \u201calone\u201d; the pairs' is the upper one; the " +
        "diagonal is left blank); red: the pair together adds " +
        "to the output, blue: it takes away. Hover a cell.", Number(map.getAttribute("width")) > HALF_WIDTH);
      var pairGaps = gaps.filter(function (p) { return p[0] !== p[1]; }).length, nf = matrix.length;
      if (gaps.length) {
        h.appendChild(el("p", {"class": "hint unestimated-note"}, (pairGaps ? pairGaps + " of " + nf * (nf - 1) / 2 +
          " pairs" : gaps.length + " single features") + " had too few samples for an estimate at this budget " +
          "(method \u201c" + R.interactions.method + "\u201d): hatched grey, n/a, left out of the colour scale. " +
          "They are not zero; a larger --budget estimates them."));
      }
      h.appendChild(map);
    }
    if (R.graph) {
      var g = section("Directed explanation graph (Bivariate Shapley)",
        "An edge i \u2192 j of the graph carries the importance of j when i is present; |weight| \u2264 \u03b3 " +
        "makes it a redundancy (j adds little once i is known). Move \u03b3 to see how the groups, sources and " +
        "sinks change (computed in advance for every threshold).", true);
      var differ = R.attribution && R.graph.phi && R.graph.phi.some(function (v, k) {
        return Math.abs(v - R.attribution[k]) > 1e-9 * Math.max(1, Math.abs(v)); });
      if (differ) {  // two estimates of one row's Shapley values on one page: say which is which
        g.appendChild(el("p", {"class": "hint graph-values"}, "The graph's node values are its own Shapley " +
          "estimates (method \u201c" + R.graph.method + "\u201d, from the evaluations of its edges), not the " +
          "attribution chart's (method \u201c" + R.attribution_method + "\u201d, a separate estimate): the two " +
          "differ by their estimation error."));
      }
      graphView(g, R.graph);
    }
    app = keep;
  }

  var first = 0;  // start with the first row that has a graph (the most complete view)
  for (var r = D.rows.length - 1; r >= 0; r--) { if (D.rows[r].graph) { first = r; } }
  if (D.rows.length > 1) {
    var pick = section("Rows", "Choose the explained row." + (D.detail ? " The first " + D.detail.shown + " of the " +
      D.detail.of + " rows have a view of their own; the other " + (D.detail.of - D.detail.shown) + ": in the " +
      (D.summary && D.summary.values.length < (D.summary.total_rows || 0) ? "saved results (the first " +
       D.summary.values.length + " rows drawn in the summary below)." :
       "summary of all explained rows below and in the saved results.") : ""), true);
    var sel = el("select", {id: "row-select", "aria-label": "explained row"});
    var some = D.rows.some(function (R) { return !R.graph && !R.interactions; });
    D.rows.forEach(function (R, k) {  // which rows have more than attributions (the CLI's --detail-rows)
      var more = (R.interactions ? ["interactions"] : []).concat(R.graph ? ["graph"] : []);
      sel.appendChild(el("option", {value: String(k)}, R.label + (some && more.length ? " + " + more.join(", ") : "")));
    });
    sel.value = String(first);
    sel.addEventListener("change", function () { renderRow(D.rows[Number(sel.value)]); });
    pick.appendChild(sel);
  }
  app.appendChild(rowArea);
  if (D.rows.length) { renderRow(D.rows[first]); }
  if (D.summary) {
    var shownRows = D.summary.values.length, totalRows = D.summary.total_rows || shownRows;
    var sm = section("All explained rows" + (D.summary.target !== undefined ? " (class " + D.summary.target + ")" : ""),
      (shownRows < totalRows ? "The first " + shownRows + " of " + totalRows + " rows drawn: features ordered " +
      "by mean |attribution| over all " + totalRows + " rows." :
      String(totalRows) + " rows summarised: features ordered by mean |attribution|."), true);
    sm.appendChild(valueLegend());
    sm.appendChild(summaryChart(D.summary));
  }
  var meta = section("About this report", null, true);
  var t = el("table", {"class": "meta"});
  D.meta.forEach(function (kv) { var tr = el("tr"); tr.appendChild(el("td", null, kv[0]));
    tr.appendChild(el("td", null, kv[1])); t.appendChild(tr); });
  meta.appendChild(t);
  document.body.setAttribute("data-ready", "1");
})();
