/*
 * html.c - see html.h.
 *
 * The page body is kept as escaped HTML text as blocks are added; charts
 * leave a placeholder <figure> there and keep their data apart, so series
 * can be added in any order. html_doc_write() wraps the body in the page,
 * embeds the chart data as JSON (written with util/json.c, so NaN and
 * infinities become null, and with every '<' escaped as \u003c so no
 * string can close the <script> element) and appends the renderer.
 */
#include "report/html.h"

#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/json.h"

typedef struct hbuf {
    char *p;
    size_t len, cap;
} hbuf;

typedef struct html_series {
    char *name;
    size_t n;
    double *x, *y;
    bool ref; /* a reference line: dashed, no markers */
} html_series;

struct html_chart {
    html_doc *doc;
    char *title, *xlabel, *ylabel;
    int xscale, yscale;
    html_series *v;
    size_t n, cap;
    char **cats; /* x = i is labelled cats[i] (NULL: a numeric x axis) */
    size_t ncats;
};

struct html_doc {
    char *title;
    hbuf body;
    html_chart **charts;
    size_t ncharts, capcharts;
    int err; /* first error, sticky */
};

/* ---- the page's fixed parts ---------------------------------------------- */

/* Clean on screen and on paper; no web fonts. */
static const char html_style[] =
    "body {\n"
    "  font: 14px/1.45 system-ui, -apple-system, 'Segoe UI', Roboto, Arial, sans-serif;\n"
    "  color: #1b1b1b; background: #fff;\n"
    "  max-width: 1100px; margin: 0 auto; padding: 12px 24px 32px;\n"
    "}\n"
    "h1 { font-size: 1.45em; margin: 0.4em 0; overflow-wrap: anywhere; }\n"
    "h2 {\n"
    "  font-size: 1.15em; margin: 1.8em 0 0.5em;\n"
    "  padding-bottom: 0.2em; border-bottom: 1px solid #d8d8d8;\n"
    "}\n"
    "p { margin: 0.4em 0; overflow-wrap: anywhere; }\n"
    "table {\n"
    "  border-collapse: collapse; margin: 0.6em 0 1.2em; font-variant-numeric: tabular-nums;\n"
    "}\n"
    "caption { text-align: left; font-weight: 600; padding: 0.2em 0 0.4em; }\n"
    "th, td {\n"
    "  border: 1px solid #d0d0d0; padding: 0.25em 0.7em; text-align: left; vertical-align: top;\n"
    "}\n"
    "th { background: #f2f2f2; font-weight: 600; }\n"
    "td.num { text-align: right; white-space: nowrap; }\n"
    "pre {\n"
    "  background: #f7f7f7; border: 1px solid #dedede; padding: 0.8em 1em; overflow-x: auto;\n"
    "  font: 12px/1.3 ui-monospace, 'DejaVu Sans Mono', Menlo, Consolas, monospace;\n"
    "}\n"
    "figure { margin: 0.8em 0 1.6em; break-inside: avoid; page-break-inside: avoid; }\n"
    "figcaption { font-weight: 600; margin-bottom: 0.2em; }\n"
    ".pacer-nojs { color: #777; font-style: italic; }\n"
    "p.pacer-verdict { font-weight: 600; padding: 0.3em 0.6em; border-left: 4px solid; }\n"
    "p.pacer-verdict.pass { color: #176b2c; border-color: #2ca02c; background: #eef8f0; }\n"
    "p.pacer-verdict.fail { color: #9c1c1c; border-color: #d62728; background: #fcefef; }\n"
    "svg.pacer-chart { display: block; width: 100%; max-width: 960px; height: auto; }\n"
    "svg.pacer-chart text { font-size: 12px; fill: #333; }\n"
    "svg.pacer-chart text.label { font-size: 13px; fill: #111; }\n"
    "svg.pacer-chart .grid { stroke: #dcdcdc; stroke-width: 1; }\n"
    "svg.pacer-chart .grid.minor { stroke: #f0f0f0; }\n"
    "svg.pacer-chart .frame { fill: none; stroke: #888; stroke-width: 1; }\n"
    "svg.pacer-chart circle:hover { r: 5; }\n"
    "footer { margin-top: 2em; color: #777; font-size: 0.85em; }\n"
    "@media print {\n"
    "  body { max-width: none; padding: 0; font-size: 11pt; }\n"
    "  h2 { break-after: avoid; page-break-after: avoid; }\n"
    "  pre { white-space: pre-wrap; overflow: visible; font-size: 8pt; }\n"
    "  svg.pacer-chart { max-width: 100%; }\n"
    "}\n";

/* First thing in <head>: every script error lands in data-errors. */
static const char html_head_js[] =
    "(function () {\n"
    "  function note(msg) {\n"
    "    var b = document.body || document.documentElement, p = b.getAttribute('data-errors');\n"
    "    b.setAttribute('data-errors', (p ? p + ' | ' : '') + msg);\n"
    "  }\n"
    "  window.addEventListener('error', function (e) {\n"
    "    note('error: ' + (e.message || e.type));\n"
    "  });\n"
    "  window.addEventListener('unhandledrejection', function (e) {\n"
    "    note('unhandled rejection: ' + String(e.reason));\n"
    "  });\n"
    "})();\n";

/* The renderer: one SVG per chart from the embedded data. Scales as in
 * html.h; linear axes get 1-2-5 ticks and start at 0 on y when the data
 * is not negative; log axes get decades (with 2..9 grid lines up to six
 * decades, labelled 2 and 5 up to two); the legend wraps under the plot;
 * each marker's <title> shows its values (at most 400 markers a series). */
static const char html_render_js[] =
    "(function () {\n"
    "'use strict';\n"
    "var NS = 'http://www.w3.org/2000/svg';\n"
    "var COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2',\n"
    "              '#17becf', '#7f7f7f', '#bcbd22'];\n"
    "var DASHES = ['none', '7 3', '2 3', '9 3 2 3'], REF = '#555';\n"
    "var W = 900, PL = 76, PR = 24, PT = 14, PH = 300, MAXMARKS = 400;\n"
    "\n"
    "function note(msg) {\n"
    "  var b = document.body, p = b.getAttribute('data-errors');\n"
    "  b.setAttribute('data-errors', (p ? p + ' | ' : '') + msg);\n"
    "}\n"
    "function el(name, attrs, parent) {\n"
    "  var e = document.createElementNS(NS, name);\n"
    "  Object.keys(attrs).forEach(function (k) { e.setAttribute(k, String(attrs[k])); });\n"
    "  if (parent) parent.appendChild(e);\n"
    "  return e;\n"
    "}\n"
    "function text(parent, x, y, s, attrs) {\n"
    "  var a = attrs || {};\n"
    "  a.x = x.toFixed(1);\n"
    "  a.y = y.toFixed(1);\n"
    "  var t = el('text', a, parent);\n"
    "  t.textContent = s;\n"
    "  return t;\n"
    "}\n"
    "function label(transform) {\n"
    "  var a = {'text-anchor': 'middle', 'class': 'label'};\n"
    "  if (transform) a.transform = transform;\n"
    "  return a;\n"
    "}\n"
    "function short(v) {\n"
    "  return String(Number(v.toPrecision(4)));\n"
    "}\n"
    "function num(v) {\n"
    "  var a = Math.abs(v);\n"
    "  if (v === 0) return '0';\n"
    "  if (a >= 1e13 || a < 1e-4)\n"
    "    return Number(v.toPrecision(3)).toExponential().replace('e+', 'e');\n"
    "  if (a >= 1e9) return short(v / 1e9) + 'G';\n"
    "  if (a >= 1e6) return short(v / 1e6) + 'M';\n"
    "  if (a >= 1e4) return short(v / 1e3) + 'k';\n"
    "  return short(v);\n"
    "}\n"
    "function colorOf(i) {\n"
    "  return COLORS[i % COLORS.length];\n"
    "}\n"
    "function dashOf(i) {\n"
    "  return DASHES[Math.floor(i / COLORS.length) % DASHES.length];\n"
    "}\n"
    "function pctLabel(k) {\n"
    "  if (k === 0) return '0%';\n"
    "  if (k === 1) return '90%';\n"
    "  return '99' + (k > 2 ? '.' + '9'.repeat(k - 2) : '') + '%';\n"
    "}\n"
    "\n"
    "/* Data value -> axis coordinate; NaN when the value does not fit, and\n"
    " * -Infinity for v <= 0 on a log axis: drawn on the bottom (left) edge. */\n"
    "function fwd(scale, v) {\n"
    "  if (typeof v !== 'number' || !isFinite(v)) return NaN;\n"
    "  if (scale === 1) return v > 0 ? Math.log10(v) : -Infinity;\n"
    "  if (scale === 2) return v >= 0 && v < 100 ? Math.log10(100 / (100 - v)) : NaN;\n"
    "  return v;\n"
    "}\n"
    "function niceStep(span, n) {\n"
    "  var raw = span / n, p = Math.pow(10, Math.floor(Math.log10(raw))), f = raw / p;\n"
    "  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10) * p;\n"
    "}\n"
    "function linearAxis(lo, hi, zero, ints) {\n"
    "  var d, step, ticks = [], i, v;\n"
    "  if (zero && lo > 0) lo = 0;\n"
    "  if (hi === lo) {\n"
    "    d = lo === 0 ? 1 : Math.abs(lo) / 10;\n"
    "    lo = zero && lo >= 0 && lo - d < 0 ? 0 : lo - d;\n"
    "    hi += d;\n"
    "  }\n"
    "  step = niceStep(hi - lo, 6);\n"
    "  if (ints && step < 1) step = 1; /* rounds, profiles: no 1.2 ticks */\n"
    "  lo = Math.floor(lo / step + 1e-9) * step;\n"
    "  hi = Math.ceil(hi / step - 1e-9) * step;\n"
    "  for (i = 0; i <= 60; i++) {\n"
    "    v = lo + i * step;\n"
    "    if (v > hi + step / 1e6) break;\n"
    "    ticks.push({t: v, label: num(Math.abs(v) < step / 1e6 ? 0 : v), major: true});\n"
    "  }\n"
    "  return {lo: lo, hi: hi, ticks: ticks};\n"
    "}\n"
    "function logAxis(lo, hi) {\n"
    "  var a = Math.floor(lo + 1e-9), b = Math.ceil(hi - 1e-9), dec, step, ticks = [], k, m, lab;\n"
    "  if (b <= a) b = a + 1;\n"
    "  dec = b - a;\n"
    "  step = Math.max(1, Math.ceil(dec / 8));\n"
    "  for (k = a; k <= b; k++) {\n"
    "    if ((k - a) % step === 0)\n"
    "      ticks.push({t: k, label: num(Math.pow(10, k)), major: true});\n"
    "    if (k < b && dec <= 6) {\n"
    "      for (m = 2; m <= 9; m++) {\n"
    "        lab = dec <= 2 && (m === 2 || m === 5) ? num(m * Math.pow(10, k)) : '';\n"
    "        ticks.push({t: k + Math.log10(m), label: lab, major: false});\n"
    "      }\n"
    "    }\n"
    "  }\n"
    "  return {lo: a, hi: b, ticks: ticks};\n"
    "}\n"
    "function pctAxis(hi) {\n"
    "  var b = Math.max(2, Math.ceil(hi - 1e-9)), step = Math.max(1, Math.ceil(b / 10));\n"
    "  var ticks = [], k;\n"
    "  for (k = 0; k <= b; k += step) ticks.push({t: k, label: pctLabel(k), major: true});\n"
    "  return {lo: 0, hi: b, ticks: ticks};\n"
    "}\n"
    "function axis(scale, lo, hi, zero, ints) {\n"
    "  if (scale === 1) return logAxis(lo, hi);\n"
    "  if (scale === 2) return pctAxis(hi);\n"
    "  return linearAxis(lo, hi, zero, ints);\n"
    "}\n"
    "function valueText(scale, v) {\n"
    "  if (scale === 2) return String(Number(v.toPrecision(7))) + '%';\n"
    "  return String(Number(v.toPrecision(5)));\n"
    "}\n"
    "/* Named x values (profiles...): one tick each, at 0, 1, 2... */\n"
    "function catAxis(cats) {\n"
    "  var ticks = cats.map(function (name, i) {\n"
    "    return {t: i, label: String(name), major: true};\n"
    "  });\n"
    "  return {lo: -0.5, hi: Math.max(cats.length, 1) - 0.5, ticks: ticks};\n"
    "}\n"
    "function clip(s, n) {\n"
    "  return s.length > n ? s.slice(0, n - 1) + '\\u2026' : s;\n"
    "}\n"
    "\n"
    "function render(fig, c) {\n"
    "  var xs = c.xscale, ys = c.yscale, series = c.series || [], pts = [];\n"
    "  var cats = Array.isArray(c.xcategories) ? c.xcategories : null;\n"
    "  var drawn = 0, have = false, xint = true;\n"
    "  var xmin = Infinity, xmax = -Infinity, ymin = Infinity, ymax = -Infinity;\n"
    "  series.forEach(function (s) {\n"
    "    var p = [], x = s.x || [], y = s.y || [], n = Math.min(x.length, y.length), j, tx, ty;\n"
    "    for (j = 0; j < n; j++) {\n"
    "      tx = fwd(xs, x[j]);\n"
    "      ty = fwd(ys, y[j]);\n"
    "      if (isNaN(tx) || isNaN(ty)) {\n"
    "        p.push(null);\n"
    "        continue;\n"
    "      }\n"
    "      p.push([tx, ty, x[j], y[j]]);\n"
    "      have = true;\n"
    "      if (isFinite(tx)) {\n"
    "        if (tx !== Math.round(tx)) xint = false;\n"
    "        xmin = Math.min(xmin, tx);\n"
    "        xmax = Math.max(xmax, tx);\n"
    "      }\n"
    "      if (isFinite(ty)) {\n"
    "        ymin = Math.min(ymin, ty);\n"
    "        ymax = Math.max(ymax, ty);\n"
    "      }\n"
    "    }\n"
    "    pts.push(p);\n"
    "  });\n"
    "  /* With nothing finite to span, a default range (log: 1..10). */\n"
    "  var ax = cats ? catAxis(cats)\n"
    "         : xmin <= xmax ? axis(xs, xmin, xmax, false, xint)\n"
    "         : axis(xs, 0, +(xs !== 1), false, false);\n"
    "  var ay = ymin <= ymax ? axis(ys, ymin, ymax, true) : axis(ys, 0, +(ys !== 1), true);\n"
    "  var x0 = PL, x1 = W - PR, y0 = PT, y1 = PT + PH;\n"
    "  var sx = function (t) {\n"
    "    return x0 + (Math.max(t, ax.lo) - ax.lo) / (ax.hi - ax.lo) * (x1 - x0);\n"
    "  };\n"
    "  var sy = function (t) {\n"
    "    return y1 - (Math.max(t, ay.lo) - ay.lo) / (ay.hi - ay.lo) * (y1 - y0);\n"
    "  };\n"
    "  var xText = function (v) {\n"
    "    return cats && cats[v] !== undefined ? String(cats[v]) : valueText(xs, v);\n"
    "  };\n"
    "  /* Tick labels too long for their room are slanted, and the plot grows\n"
    "   * downwards to hold them. */\n"
    "  var longest = 0, slant = false, below = 0;\n"
    "  ax.ticks.forEach(function (t) {\n"
    "    if (t.label) longest = Math.max(longest, t.label.length);\n"
    "  });\n"
    "  if (cats && longest * 7 > (x1 - x0) / Math.max(cats.length, 1) - 8) {\n"
    "    slant = true;\n"
    "    below = Math.ceil(Math.min(longest, 28) * 7 * 0.5);\n"
    "  }\n"
    "\n"
    "  /* The legend wraps under the axis label; its rows set the height. */\n"
    "  var items = [], lx = x0, ly = 0;\n"
    "  series.forEach(function (s, i) {\n"
    "    var empty = !pts[i].some(function (q) { return q !== null; });\n"
    "    var label = String(s.name) + (empty ? ' (no data)' : '');\n"
    "    var w = 44 + label.length * 7;\n"
    "    if (lx + w > x1 && lx > x0) {\n"
    "      lx = x0;\n"
    "      ly += 20;\n"
    "    }\n"
    "    items.push({x: lx, y: ly, label: label, empty: empty});\n"
    "    lx += w;\n"
    "  });\n"
    "  var legendTop = y1 + 58 + below, H = legendTop + (series.length ? ly + 20 : 0) + 6;\n"
    "\n"
    "  var svg = el('svg', {'class': 'pacer-chart', viewBox: '0 0 ' + W + ' ' + H, role: 'img',\n"
    "                       'aria-label': c.title, 'data-title': c.title});\n"
    "  var g = el('g', {'class': 'axes'}, svg);\n"
    "  ax.ticks.forEach(function (t) {\n"
    "    var x = sx(t.t);\n"
    "    el('line', {x1: x.toFixed(1), x2: x.toFixed(1), y1: y0, y2: y1,\n"
    "                'class': t.major ? 'grid' : 'grid minor'}, g);\n"
    "    if (!t.label) return;\n"
    "    if (slant)\n"
    "      /* cut to 28 characters, and to what fits left of the tick */\n"
    "      text(g, x + 4, y1 + 14, clip(t.label, Math.min(28, Math.floor(x / 6.1))),\n"
    "           {'text-anchor': 'end', 'class': 'xtick',\n"
    "           transform: 'rotate(-30 ' + (x + 4).toFixed(1) + ' ' + (y1 + 14) + ')'});\n"
    "    else\n"
    "      text(g, x, y1 + 17, t.label, {'text-anchor': 'middle', 'class': 'xtick'});\n"
    "  });\n"
    "  ay.ticks.forEach(function (t) {\n"
    "    var y = sy(t.t);\n"
    "    el('line', {x1: x0, x2: x1, y1: y.toFixed(1), y2: y.toFixed(1),\n"
    "                'class': t.major ? 'grid' : 'grid minor'}, g);\n"
    "    if (t.label) text(g, x0 - 6, y + 4, t.label, {'text-anchor': 'end'});\n"
    "  });\n"
    "  el('rect', {x: x0, y: y0, width: x1 - x0, height: y1 - y0, 'class': 'frame'}, g);\n"
    "  text(g, (x0 + x1) / 2, y1 + 40 + below, c.xlabel || '', label());\n"
    "  text(g, 0, 0, c.ylabel || '',\n"
    "       label('translate(16 ' + ((y0 + y1) / 2).toFixed(1) + ') rotate(-90)'));\n"
    "  if (!have)\n"
    "    text(g, (x0 + x1) / 2, (y0 + y1) / 2, 'no data', label());\n"
    "\n"
    "  /* A line on the very path of one drawn before it is dashed, so that\n"
    "   * both show (errors that are all never-sent requests, zero lines). */\n"
    "  var paths = {}, dashes = [];\n"
    "  series.forEach(function (s, i) {\n"
    "    var color = colorOf(i), dash = dashOf(i);\n"
    "    var p = pts[i], d = '', pen = false, count = 0, stride, sg, marks;\n"
    "    p.forEach(function (q) {\n"
    "      if (q === null) {\n"
    "        pen = false;\n"
    "        return;\n"
    "      }\n"
    "      d += (pen ? 'L' : 'M') + sx(q[0]).toFixed(2) + ' ' + sy(q[1]).toFixed(2);\n"
    "      pen = true;\n"
    "      count++;\n"
    "    });\n"
    "    if (!count) return;\n"
    "    drawn++;\n"
    "    if (paths[d]) dash = ['6 5', '2 4', '10 4 2 4'][(paths[d] - 1) % 3];\n"
    "    paths[d] = (paths[d] || 0) + 1;\n"
    "    dashes[i] = dash;\n"
    "    sg = el('g', {'class': s.ref ? 'series ref' : 'series', 'data-name': String(s.name)},\n"
    "            svg);\n"
    "    if (s.ref) {\n"
    "      /* A line to read the others against: dashed grey, no markers. */\n"
    "      var line = el('path', {d: d, fill: 'none', stroke: REF, 'stroke-width': 1.6,\n"
    "                             'stroke-dasharray': '6 4'}, sg);\n"
    "      el('title', {}, line).textContent = String(s.name);\n"
    "      return;\n"
    "    }\n"
    "    el('path', {d: d, fill: 'none', stroke: color, 'stroke-width': 1.8,\n"
    "                'stroke-dasharray': dash}, sg);\n"
    "    marks = el('g', {fill: color}, sg);\n"
    "    stride = Math.max(1, Math.ceil(count / MAXMARKS));\n"
    "    count = 0;\n"
    "    p.forEach(function (q) {\n"
    "      if (q === null || count++ % stride) return;\n"
    "      var m = el('circle', {cx: sx(q[0]).toFixed(2), cy: sy(q[1]).toFixed(2), r: 2.6},\n"
    "                 marks);\n"
    "      el('title', {}, m).textContent = String(s.name) + ': ' + (c.xlabel || 'x') + ' ' +\n"
    "        xText(q[2]) + ', ' + (c.ylabel || 'y') + ' ' + valueText(ys, q[3]);\n"
    "    });\n"
    "  });\n"
    "\n"
    "  var lg = el('g', {'class': 'legend'}, svg);\n"
    "  items.forEach(function (it, i) {\n"
    "    var ref = !!series[i].ref, color = ref ? REF : colorOf(i);\n"
    "    var dash = ref ? '6 4' : dashes[i] || dashOf(i);\n"
    "    var y = legendTop + it.y, row = el('g', it.empty ? {opacity: 0.5} : {}, lg);\n"
    "    el('line', {x1: it.x, x2: it.x + 26, y1: y, y2: y, stroke: color, 'stroke-width': 2,\n"
    "                'stroke-dasharray': dash}, row);\n"
    "    if (!ref) el('circle', {cx: it.x + 13, cy: y, r: 3, fill: color}, row);\n"
    "    text(row, it.x + 32, y + 4, it.label);\n"
    "  });\n"
    "  svg.setAttribute('data-series', String(drawn));\n"
    "  fig.appendChild(svg);\n"
    "  Array.prototype.forEach.call(fig.querySelectorAll('.pacer-nojs'), function (e) {\n"
    "    e.remove();\n"
    "  });\n"
    "}\n"
    "\n"
    "var data = JSON.parse(document.getElementById('pacer-data').textContent), done = 0;\n"
    "(data.charts || []).forEach(function (c, i) {\n"
    "  var fig = document.getElementById('pacer-chart-' + i);\n"
    "  try {\n"
    "    if (!fig) throw new Error('no place for chart ' + i);\n"
    "    render(fig, c);\n"
    "    done++;\n"
    "  } catch (e) {\n"
    "    note('chart ' + i + ': ' + (e && e.message ? e.message : String(e)));\n"
    "  }\n"
    "});\n"
    "document.body.dataset.rendered = String(done);\n"
    "})();\n";

/* ---- building ------------------------------------------------------------ */

static void put_n(html_doc *d, const char *s, size_t n)
{
    hbuf *b = &d->body;

    if (d->err || n == 0)
        return;
    if (n > b->cap - b->len) {
        size_t cap = b->cap ? b->cap : 4096;
        char *p;

        while (cap - b->len < n) {
            if (cap > SIZE_MAX / 2) {
                d->err = -ENOMEM;
                return;
            }
            cap *= 2;
        }
        p = realloc(b->p, cap);
        if (!p) {
            d->err = -ENOMEM;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
}

static void put(html_doc *d, const char *s)
{
    put_n(d, s, strlen(s));
}

/* The entity for c where text or an attribute value needs one, else NULL. */
static const char *entity(char c)
{
    switch (c) {
    case '&': return "&amp;";
    case '<': return "&lt;";
    case '>': return "&gt;";
    case '"': return "&quot;";
    case '\'': return "&#39;";
    default: return NULL;
    }
}

/* s as HTML text or attribute value: & < > " ' escaped. */
static void put_esc(html_doc *d, const char *s)
{
    const char *run = s;

    for (; s && *s; s++) {
        const char *e = entity(*s);

        if (!e)
            continue;
        put_n(d, run, (size_t)(s - run));
        put(d, e);
        run = s + 1;
    }
    if (s)
        put_n(d, run, (size_t)(s - run));
}

static void put_fmt(html_doc *d, const char *fmt, ...)
{
    char buf[128];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    assert(n >= 0 && (size_t)n < sizeof buf);
    put_n(d, buf, (size_t)n);
}

static char *dup_or_empty(const char *s)
{
    return strdup(s ? s : "");
}

html_doc *html_doc_new(const char *title)
{
    html_doc *d = calloc(1, sizeof *d);

    if (!d)
        return NULL;
    d->title = dup_or_empty(title);
    if (!d->title) {
        free(d);
        return NULL;
    }
    return d;
}

static void chart_free(html_chart *c)
{
    for (size_t i = 0; i < c->n; i++) {
        free(c->v[i].name);
        free(c->v[i].x);
        free(c->v[i].y);
    }
    free(c->v);
    for (size_t i = 0; i < c->ncats; i++)
        free(c->cats[i]);
    free(c->cats);
    free(c->title);
    free(c->xlabel);
    free(c->ylabel);
    free(c);
}

void html_doc_free(html_doc *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->ncharts; i++)
        chart_free(d->charts[i]);
    free(d->charts);
    free(d->body.p);
    free(d->title);
    free(d);
}

static void block(html_doc *d, const char *open, const char *text, const char *close)
{
    if (!d)
        return;
    put(d, open);
    put_esc(d, text);
    put(d, close);
}

void html_doc_heading(html_doc *d, const char *text)
{
    block(d, "<h2>", text, "</h2>\n");
}

void html_doc_text(html_doc *d, const char *text)
{
    block(d, "<p>", text, "</p>\n");
}

void html_doc_pre(html_doc *d, const char *text)
{
    block(d, "<pre>", text, "</pre>\n");
}

void html_doc_verdict(html_doc *d, bool pass, const char *text)
{
    block(d, pass ? "<p class=\"pacer-verdict pass\">" : "<p class=\"pacer-verdict fail\">", text,
          "</p>\n");
}

/* Whether a cell reads as a number (perhaps with a unit or %), to align it
 * right: "1234", "-0.5", "12.30 ms", "99.9%". */
static bool looks_numeric(const char *s)
{
    char *end;

    if (!s || !*s)
        return false;
    strtod(s, &end);
    if (end == s)
        return false;
    if (*end == ' ')
        end++;
    for (; *end; end++)
        if (!((*end >= 'a' && *end <= 'z') || (*end >= 'A' && *end <= 'Z') || *end == '%' ||
              *end == '/'))
            return false;
    return true;
}

void html_doc_table(html_doc *d, const char *caption, size_t ncols, size_t nrows,
                    const char *const *cells)
{
    if (!d || ncols == 0 || nrows == 0)
        return;
    if (nrows > SIZE_MAX / ncols || !cells) {
        d->err = d->err ? d->err : -ENOMEM;
        return;
    }
    put(d, "<table>\n");
    if (caption)
        block(d, "<caption>", caption, "</caption>\n");
    for (size_t r = 0; r < nrows; r++) {
        if (r == 0)
            put(d, "<thead>\n");
        else if (r == 1)
            put(d, "<tbody>\n");
        put(d, "<tr>");
        for (size_t c = 0; c < ncols; c++) {
            const char *s = cells[r * ncols + c];

            if (r == 0)
                block(d, "<th>", s, "</th>");
            else
                block(d, looks_numeric(s) ? "<td class=\"num\">" : "<td>", s, "</td>");
        }
        put(d, "</tr>\n");
        if (r == 0)
            put(d, "</thead>\n");
    }
    if (nrows > 1)
        put(d, "</tbody>\n");
    put(d, "</table>\n");
}

static int valid_scale(int s)
{
    return s == HTML_LOG || s == HTML_PERCENTILE ? s : HTML_LINEAR;
}

html_chart *html_doc_chart(html_doc *d, const char *title, const char *xlabel, int xscale,
                           const char *ylabel, int yscale)
{
    html_chart *c;

    if (!d)
        return NULL;
    if (d->ncharts == d->capcharts) {
        size_t cap = d->capcharts ? d->capcharts * 2 : 8;
        html_chart **v = realloc(d->charts, cap * sizeof *v);

        if (!v)
            goto oom;
        d->charts = v;
        d->capcharts = cap;
    }
    c = calloc(1, sizeof *c);
    if (!c)
        goto oom;
    c->doc = d;
    c->title = dup_or_empty(title);
    c->xlabel = dup_or_empty(xlabel);
    c->ylabel = dup_or_empty(ylabel);
    c->xscale = valid_scale(xscale);
    c->yscale = valid_scale(yscale);
    if (!c->title || !c->xlabel || !c->ylabel) {
        chart_free(c);
        goto oom;
    }
    put_fmt(d, "<figure class=\"pacer-figure\" id=\"pacer-chart-%zu\">", d->ncharts);
    block(d, "<figcaption>", title, "</figcaption>");
    put(d, "<p class=\"pacer-nojs\">(This chart is drawn by JavaScript.)</p></figure>\n");
    d->charts[d->ncharts++] = c;
    return c;
oom:
    d->err = d->err ? d->err : -ENOMEM;
    return NULL;
}

/* Append a series, taking ownership of x and y (n values each; NULL when
 * n is 0). On failure they are freed and the doc's error set. */
static void add_series(html_chart *c, const char *name, size_t n, double *x, double *y, bool ref)
{
    html_series *s;
    char *nm = dup_or_empty(name);

    if (!nm)
        goto oom;
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 4;
        html_series *v = realloc(c->v, cap * sizeof *v);

        if (!v)
            goto oom;
        c->v = v;
        c->cap = cap;
    }
    s = &c->v[c->n++];
    s->name = nm;
    s->n = n;
    s->x = x;
    s->y = y;
    s->ref = ref;
    return;
oom:
    free(nm);
    free(x);
    free(y);
    c->doc->err = c->doc->err ? c->doc->err : -ENOMEM;
}

/* Room for two arrays of n doubles; false (doc error set) when it cannot
 * be had, including when n * sizeof(double) would overflow. */
static bool alloc_xy(html_chart *c, size_t n, double **x, double **y)
{
    *x = *y = NULL;
    if (n == 0)
        return true;
    if (n > SIZE_MAX / sizeof(double) / 2)
        goto oom;
    *x = malloc(n * sizeof(double));
    *y = malloc(n * sizeof(double));
    if (*x && *y)
        return true;
    free(*x);
    free(*y);
    *x = *y = NULL;
oom:
    c->doc->err = c->doc->err ? c->doc->err : -ENOMEM;
    return false;
}

static void copy_series(html_chart *c, const char *name, size_t n, const double *x,
                        const double *y, bool ref)
{
    double *cx, *cy;

    if (!c)
        return;
    assert(n == 0 || (x && y));
    if (!x || !y)
        n = 0;
    if (!alloc_xy(c, n, &cx, &cy))
        return;
    if (n) {
        memcpy(cx, x, n * sizeof *cx);
        memcpy(cy, y, n * sizeof *cy);
    }
    add_series(c, name, n, cx, cy, ref);
}

void html_chart_series(html_chart *c, const char *name, size_t n, const double *x,
                       const double *y)
{
    copy_series(c, name, n, x, y, false);
}

void html_chart_reference(html_chart *c, const char *name, size_t n, const double *x,
                          const double *y)
{
    copy_series(c, name, n, x, y, true);
}

void html_chart_categories(html_chart *c, size_t n, const char *const *names)
{
    char **v;

    if (!c || n == 0)
        return;
    v = n <= SIZE_MAX / sizeof *v ? calloc(n, sizeof *v) : NULL;
    for (size_t i = 0; v && i < n; i++) {
        if (!(v[i] = dup_or_empty(names[i]))) {
            while (i--)
                free(v[i]);
            free(v);
            v = NULL;
        }
    }
    if (!v) {
        c->doc->err = c->doc->err ? c->doc->err : -ENOMEM;
        return;
    }
    for (size_t i = 0; i < c->ncats; i++)
        free(c->cats[i]);
    free(c->cats);
    c->cats = v;
    c->ncats = n;
}

void html_chart_spectrum(html_chart *c, const char *name, const hdr_hist *h, double scale)
{
    hdr_pct_iter it;
    double *x, *y;
    size_t n = 0, i = 0;

    if (!c)
        return;
    assert(h != NULL);
    if (!(scale > 0))
        scale = 1;
    hdr_pct_iter_init(&it, h, 5);
    while (hdr_pct_iter_next(&it))
        if (!it.is_last && it.percentile < 100)
            n++;
    if (!alloc_xy(c, n, &x, &y))
        return;
    hdr_pct_iter_init(&it, h, 5);
    while (i < n && hdr_pct_iter_next(&it)) {
        if (it.is_last || it.percentile >= 100)
            continue;
        x[i] = it.percentile;
        y[i] = (double)it.value / scale;
        i++;
    }
    add_series(c, name, n, x, y, false);
}

/* ---- writing ------------------------------------------------------------- */

static void w_chart(json_w *w, const html_chart *c)
{
    json_w_obj_begin(w);
    json_w_kstr(w, "title", c->title);
    json_w_kstr(w, "xlabel", c->xlabel);
    json_w_kstr(w, "ylabel", c->ylabel);
    json_w_kint(w, "xscale", c->xscale);
    json_w_kint(w, "yscale", c->yscale);
    if (c->cats) {
        json_w_key(w, "xcategories");
        json_w_arr_begin(w);
        for (size_t i = 0; i < c->ncats; i++)
            json_w_str(w, c->cats[i]);
        json_w_arr_end(w);
    }
    json_w_key(w, "series");
    json_w_arr_begin(w);
    for (size_t i = 0; i < c->n; i++) {
        const html_series *s = &c->v[i];

        json_w_obj_begin(w);
        json_w_kstr(w, "name", s->name);
        if (s->ref) {
            json_w_key(w, "ref");
            json_w_bool(w, true);
        }
        json_w_key(w, "x");
        json_w_arr_begin(w);
        for (size_t j = 0; j < s->n; j++)
            json_w_double(w, s->x[j]);
        json_w_arr_end(w);
        json_w_key(w, "y");
        json_w_arr_begin(w);
        for (size_t j = 0; j < s->n; j++)
            json_w_double(w, s->y[j]);
        json_w_arr_end(w);
        json_w_obj_end(w);
    }
    json_w_arr_end(w);
    json_w_obj_end(w);
}

/* The chart data as JSON into f, safe inside <script>: '<' appears only
 * in strings there, and becomes \u003c (as do '>' and '&', for good
 * measure). 0, -ENOMEM or -EIO. */
static int write_data(const html_doc *d, FILE *f)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    json_w w;
    int rc;

    if (!m)
        return -ENOMEM;
    json_w_init(&w, m, 0);
    json_w_obj_begin(&w);
    json_w_key(&w, "charts");
    json_w_arr_begin(&w);
    for (size_t i = 0; i < d->ncharts; i++)
        w_chart(&w, d->charts[i]);
    json_w_arr_end(&w);
    json_w_obj_end(&w);
    rc = json_w_finish(&w);
    assert(rc != -EINVAL);
    /* A memory stream fails only for want of memory. */
    if (fclose(m) != 0 || rc < 0) {
        free(buf);
        return -ENOMEM;
    }
    for (size_t i = 0, run = 0; i <= len; i++) {
        const char *e = i == len        ? ""
                        : buf[i] == '<' ? "\\u003c"
                        : buf[i] == '>' ? "\\u003e"
                        : buf[i] == '&' ? "\\u0026"
                                        : NULL;

        if (e) {
            fwrite(buf + run, 1, i - run, f);
            fputs(e, f);
            run = i + 1;
        }
    }
    free(buf);
    return 0;
}

static void write_esc(FILE *f, const char *s)
{
    for (; *s; s++) {
        const char *e = entity(*s);

        if (e)
            fputs(e, f);
        else
            fputc(*s, f);
    }
}

int html_doc_write(const html_doc *d, FILE *f)
{
    int rc;

    if (!d)
        return -ENOMEM;
    if (d->err)
        return d->err;
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          /* Belt and braces: even a mistake in here cannot fetch anything. */
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta name=\"generator\" content=\"pacer " PACER_VERSION "\">\n<title>",
          f);
    write_esc(f, d->title);
    fputs("</title>\n<style>\n", f);
    fputs(html_style, f);
    fputs("</style>\n<script>\n", f);
    fputs(html_head_js, f);
    fputs("</script>\n</head>\n<body>\n<h1>", f);
    write_esc(f, d->title);
    fputs("</h1>\n", f);
    if (d->body.len)
        fwrite(d->body.p, 1, d->body.len, f);
    fputs("<footer>Written by pacer " PACER_VERSION ". This page is self-contained: it loads "
          "nothing, and its charts are drawn from the data embedded in it.</footer>\n"
          "<script type=\"application/json\" id=\"pacer-data\">",
          f);
    rc = write_data(d, f);
    if (rc < 0)
        return rc;
    fputs("</script>\n<script>\n", f);
    fputs(html_render_js, f);
    fputs("</script>\n</body>\n</html>\n", f);
    if (ferror(f) || fflush(f) != 0)
        return -EIO;
    return 0;
}
