/*
 * html_render.js - the chart renderer of pacer's HTML page (src/report/html.c
 * writes the page and compiles this file into it, as the page's last script).
 *
 * It draws one SVG per chart from the JSON in the element #pacer-data
 * ({charts: [{title, xlabel, ylabel, xscale, yscale, xcategories?,
 * series: [{name, ref?, limit?, steps?, xend?, x: [...], y: [...]}]}]}; null
 * for values that are not finite) into the placeholder <figure
 * id="pacer-chart-N">; a limit is drawn red and named at its end, steps
 * hold each value to the next x (the last to xend). Scales as
 * in html.h (0 linear, 1 log, 2 percentile); linear axes get 1-2-5 ticks
 * and start at 0 on y when the data is not negative; log axes get decades
 * (with 2..9 grid lines up to six decades, labelled 2 and 5 up to two); the
 * legend wraps under the plot; each marker's <title> shows its values (at
 * most 400 markers a series).
 *
 * What tests/tools/html_check.sh reads: <body data-rendered=N> once done,
 * each <svg class="pacer-chart"> with data-title and data-series (the
 * number of series drawn), data-xmap / data-ymap ("lo hi from to scale":
 * axis coordinate lo..hi drawn at pixel from..to), its <g class="series"
 * data-name=...> with the drawn <path>, <text class="xtick">, and every
 * error in <body data-errors>.
 * The page's Content-Security-Policy admits inline scripts. Nothing here
 * may hold what would end the script element early or open an HTML comment
 * in it (scripts/embed.sh refuses such a file).
 */
(function () {
'use strict';
var NS = 'http://www.w3.org/2000/svg';
var COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2',
              '#17becf', '#7f7f7f', '#bcbd22'];
var DASHES = ['none', '7 3', '2 3', '9 3 2 3'], REF = '#555', LIMIT = '#c62828';
var W = 900, PL = 76, PR = 24, PT = 14, PH = 300, MAXMARKS = 400;

function note(msg) {
  var b = document.body, p = b.getAttribute('data-errors');
  b.setAttribute('data-errors', (p ? p + ' | ' : '') + msg);
}
function el(name, attrs, parent) {
  var e = document.createElementNS(NS, name);
  Object.keys(attrs).forEach(function (k) { e.setAttribute(k, String(attrs[k])); });
  if (parent) parent.appendChild(e);
  return e;
}
function text(parent, x, y, s, attrs) {
  var a = attrs || {};
  a.x = x.toFixed(1);
  a.y = y.toFixed(1);
  var t = el('text', a, parent);
  t.textContent = s;
  return t;
}
function label(transform) {
  var a = {'text-anchor': 'middle', 'class': 'label'};
  if (transform) a.transform = transform;
  return a;
}
function short(v) {
  return String(Number(v.toPrecision(4)));
}
function num(v) {
  var a = Math.abs(v);
  if (v === 0) return '0';
  if (a >= 1e13 || a < 1e-4)
    return Number(v.toPrecision(3)).toExponential().replace('e+', 'e');
  if (a >= 1e9) return short(v / 1e9) + 'G';
  if (a >= 1e6) return short(v / 1e6) + 'M';
  if (a >= 1e4) return short(v / 1e3) + 'k';
  return short(v);
}
function colorOf(i) {
  return COLORS[i % COLORS.length];
}
function dashOf(i) {
  return DASHES[Math.floor(i / COLORS.length) % DASHES.length];
}
function pctLabel(k) {
  if (k === 0) return '0%';
  if (k === 1) return '90%';
  return '99' + (k > 2 ? '.' + '9'.repeat(k - 2) : '') + '%';
}

/* Data value -> axis coordinate; NaN when the value does not fit, and
 * -Infinity for v <= 0 on a log axis: drawn on the bottom (left) edge. */
function fwd(scale, v) {
  if (typeof v !== 'number' || !isFinite(v)) return NaN;
  if (scale === 1) return v > 0 ? Math.log10(v) : -Infinity;
  if (scale === 2) return v >= 0 && v < 100 ? Math.log10(100 / (100 - v)) : NaN;
  return v;
}
function niceStep(span, n) {
  var raw = span / n, p = Math.pow(10, Math.floor(Math.log10(raw))), f = raw / p;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10) * p;
}
function linearAxis(lo, hi, zero, ints) {
  var d, step, ticks = [], i, v;
  if (zero && lo > 0) lo = 0;
  if (hi === lo) {
    d = lo === 0 ? 1 : Math.abs(lo) / 10;
    lo = zero && lo >= 0 && lo - d < 0 ? 0 : lo - d;
    hi += d;
  }
  step = niceStep(hi - lo, 6);
  if (ints && step < 1) step = 1; /* rounds, profiles: no 1.2 ticks */
  lo = Math.floor(lo / step + 1e-9) * step;
  hi = Math.ceil(hi / step - 1e-9) * step;
  for (i = 0; i <= 60; i++) {
    v = lo + i * step;
    if (v > hi + step / 1e6) break;
    ticks.push({t: v, label: num(Math.abs(v) < step / 1e6 ? 0 : v), major: true});
  }
  return {lo: lo, hi: hi, ticks: ticks};
}
function logAxis(lo, hi) {
  var a = Math.floor(lo + 1e-9), b = Math.ceil(hi - 1e-9), dec, step, ticks = [], k, m, lab;
  if (b <= a) b = a + 1;
  dec = b - a;
  step = Math.max(1, Math.ceil(dec / 8));
  for (k = a; k <= b; k++) {
    if ((k - a) % step === 0)
      ticks.push({t: k, label: num(Math.pow(10, k)), major: true});
    if (k < b && dec <= 6) {
      for (m = 2; m <= 9; m++) {
        lab = dec <= 2 && (m === 2 || m === 5) ? num(m * Math.pow(10, k)) : '';
        ticks.push({t: k + Math.log10(m), label: lab, major: false});
      }
    }
  }
  return {lo: a, hi: b, ticks: ticks};
}
function pctAxis(hi) {
  var b = Math.max(2, Math.ceil(hi - 1e-9)), step = Math.max(1, Math.ceil(b / 10));
  var ticks = [], k;
  for (k = 0; k <= b; k += step) ticks.push({t: k, label: pctLabel(k), major: true});
  return {lo: 0, hi: b, ticks: ticks};
}
function axis(scale, lo, hi, zero, ints) {
  if (scale === 1) return logAxis(lo, hi);
  if (scale === 2) return pctAxis(hi);
  return linearAxis(lo, hi, zero, ints);
}
function valueText(scale, v) {
  if (scale === 2) return String(Number(v.toPrecision(7))) + '%';
  return String(Number(v.toPrecision(5)));
}
/* Named x values (profiles...): one tick each, at 0, 1, 2... */
function catAxis(cats) {
  var ticks = cats.map(function (name, i) {
    return {t: i, label: String(name), major: true};
  });
  return {lo: -0.5, hi: Math.max(cats.length, 1) - 0.5, ticks: ticks};
}
function clip(s, n) {
  return s.length > n ? s.slice(0, n - 1) + '\u2026' : s;
}

function render(fig, c) {
  var xs = c.xscale, ys = c.yscale, series = c.series || [], pts = [];
  var cats = Array.isArray(c.xcategories) ? c.xcategories : null;
  var drawn = 0, have = false, xint = true;
  var xmin = Infinity, xmax = -Infinity, ymin = Infinity, ymax = -Infinity;
  series.forEach(function (s) {
    var p = [], x = s.x || [], y = s.y || [], n = Math.min(x.length, y.length), j, tx, ty;
    for (j = 0; j < n; j++) {
      tx = fwd(xs, x[j]);
      ty = fwd(ys, y[j]);
      if (isNaN(tx) || isNaN(ty)) {
        p.push(null);
        continue;
      }
      p.push([tx, ty, x[j], y[j]]);
      have = true;
      if (isFinite(tx)) {
        if (tx !== Math.round(tx)) xint = false;
        xmin = Math.min(xmin, tx);
        xmax = Math.max(xmax, tx);
      }
      if (isFinite(ty)) {
        ymin = Math.min(ymin, ty);
        ymax = Math.max(ymax, ty);
      }
    }
    /* Steps: the last value holds to xend, which the x axis spans too. */
    tx = s.steps ? fwd(xs, s.xend) : NaN;
    if (isFinite(tx)) {
      xmin = Math.min(xmin, tx);
      xmax = Math.max(xmax, tx);
      if (tx !== Math.round(tx)) xint = false;
    }
    pts.push(p);
  });
  /* With nothing finite to span, a default range (log: 1..10). */
  var ax = cats ? catAxis(cats)
         : xmin <= xmax ? axis(xs, xmin, xmax, false, xint)
         : axis(xs, 0, +(xs !== 1), false, false);
  var ay = ymin <= ymax ? axis(ys, ymin, ymax, true) : axis(ys, 0, +(ys !== 1), true);
  var x0 = PL, x1 = W - PR, y0 = PT, y1 = PT + PH;
  var sx = function (t) {
    return x0 + (Math.max(t, ax.lo) - ax.lo) / (ax.hi - ax.lo) * (x1 - x0);
  };
  var sy = function (t) {
    return y1 - (Math.max(t, ay.lo) - ay.lo) / (ay.hi - ay.lo) * (y1 - y0);
  };
  var xText = function (v) {
    return cats && cats[v] !== undefined ? String(cats[v]) : valueText(xs, v);
  };
  /* Tick labels too long for their room are slanted, and the plot grows
   * downwards to hold them. */
  var longest = 0, slant = false, below = 0;
  ax.ticks.forEach(function (t) {
    if (t.label) longest = Math.max(longest, t.label.length);
  });
  if (cats && longest * 7 > (x1 - x0) / Math.max(cats.length, 1) - 8) {
    slant = true;
    below = Math.ceil(Math.min(longest, 28) * 7 * 0.5);
  }

  /* The legend wraps under the axis label; its rows set the height. */
  var items = [], lx = x0, ly = 0;
  series.forEach(function (s, i) {
    var empty = !pts[i].some(function (q) { return q !== null; });
    var label = String(s.name) + (empty ? ' (no data)' : '');
    var w = 44 + label.length * 7.6;
    if (lx + w > x1 && lx > x0) {
      lx = x0;
      ly += 20;
    }
    items.push({x: lx, y: ly, label: label, empty: empty});
    lx += w;
  });
  var legendTop = y1 + 58 + below, H = legendTop + (series.length ? ly + 20 : 0) + 6;

  /* The axes' mapping (axis coordinates to pixels), for whoever checks
   * the drawn paths against the data (tests/tools/html_check.sh). */
  var svg = el('svg', {'class': 'pacer-chart', viewBox: '0 0 ' + W + ' ' + H, role: 'img',
                       'aria-label': c.title, 'data-title': c.title,
                       'data-xmap': [ax.lo, ax.hi, x0, x1, cats ? 0 : xs].join(' '),
                       'data-ymap': [ay.lo, ay.hi, y1, y0, ys].join(' ')});
  var g = el('g', {'class': 'axes'}, svg);
  ax.ticks.forEach(function (t) {
    var x = sx(t.t);
    el('line', {x1: x.toFixed(1), x2: x.toFixed(1), y1: y0, y2: y1,
                'class': t.major ? 'grid' : 'grid minor'}, g);
    if (!t.label) return;
    if (slant)
      /* cut to 28 characters, and to what fits left of the tick */
      text(g, x + 4, y1 + 14, clip(t.label, Math.min(28, Math.floor(x / 6.1))),
           {'text-anchor': 'end', 'class': 'xtick',
           transform: 'rotate(-30 ' + (x + 4).toFixed(1) + ' ' + (y1 + 14) + ')'});
    else
      text(g, x, y1 + 17, t.label, {'text-anchor': 'middle', 'class': 'xtick'});
  });
  ay.ticks.forEach(function (t) {
    var y = sy(t.t);
    el('line', {x1: x0, x2: x1, y1: y.toFixed(1), y2: y.toFixed(1),
                'class': t.major ? 'grid' : 'grid minor'}, g);
    if (t.label) text(g, x0 - 6, y + 4, t.label, {'text-anchor': 'end'});
  });
  el('rect', {x: x0, y: y0, width: x1 - x0, height: y1 - y0, 'class': 'frame'}, g);
  text(g, (x0 + x1) / 2, y1 + 40 + below, c.xlabel || '', label());
  text(g, 0, 0, c.ylabel || '',
       label('translate(16 ' + ((y0 + y1) / 2).toFixed(1) + ') rotate(-90)'));
  if (!have)
    text(g, (x0 + x1) / 2, (y0 + y1) / 2, 'no data', label());

  /* A line on the very path of one drawn before it is dashed, so that
   * both show (errors that are all never-sent requests, zero lines). */
  var paths = {}, dashes = [];
  series.forEach(function (s, i) {
    var color = colorOf(i), dash = dashOf(i);
    var p = pts[i], d = '', pen = false, count = 0, stride, sg, marks, last = null;
    var end = s.steps ? fwd(xs, s.xend) : NaN;
    var at = function (tx, ty) {
      return sx(tx).toFixed(2) + ' ' + sy(ty).toFixed(2);
    };
    p.forEach(function (q) {
      if (q === null) {
        pen = false;
        last = null;
        return;
      }
      /* Steps: across to this x at the last value, then up or down. */
      if (s.steps && pen && last) d += 'L' + at(q[0], last[1]);
      d += (pen ? 'L' : 'M') + at(q[0], q[1]);
      pen = true;
      last = q;
      count++;
    });
    if (s.steps && last && isFinite(end) && end > last[0] && p[p.length - 1] !== null)
      d += 'L' + at(end, last[1]);
    if (!count) return;
    drawn++;
    if (paths[d]) dash = ['6 5', '2 4', '10 4 2 4'][(paths[d] - 1) % 3];
    paths[d] = (paths[d] || 0) + 1;
    dashes[i] = dash;
    sg = el('g', {'class': s.limit ? 'series ref limit' : s.ref ? 'series ref' : 'series',
                  'data-name': String(s.name)}, svg);
    if (s.ref) {
      /* A line to read the others against: dashed grey, no markers; a
       * limit (an objective) dashed red, named at its right end. */
      var line = el('path', {d: d, fill: 'none', stroke: s.limit ? LIMIT : REF,
                             'stroke-width': 1.6, 'stroke-dasharray': s.limit ? '4 3' : '6 4'},
                    sg);
      el('title', {}, line).textContent = String(s.name);
      if (s.limit) {
        var end = null;
        p.forEach(function (q) { if (q !== null) end = q; });
        text(sg, sx(end[0]) - 4, sy(end[1]) - 5, String(s.name),
             {'text-anchor': 'end', 'class': 'limit-label', fill: LIMIT});
      }
      return;
    }
    el('path', {d: d, fill: 'none', stroke: color, 'stroke-width': 1.8,
                'stroke-dasharray': dash}, sg);
    marks = el('g', {fill: color}, sg);
    stride = Math.max(1, Math.ceil(count / MAXMARKS));
    count = 0;
    p.forEach(function (q) {
      if (q === null || count++ % stride) return;
      var m = el('circle', {cx: sx(q[0]).toFixed(2), cy: sy(q[1]).toFixed(2), r: 2.6},
                 marks);
      el('title', {}, m).textContent = String(s.name) + ': ' + (c.xlabel || 'x') + ' ' +
        xText(q[2]) + ', ' + (c.ylabel || 'y') + ' ' + valueText(ys, q[3]);
    });
  });

  var lg = el('g', {'class': 'legend'}, svg);
  items.forEach(function (it, i) {
    var ref = !!series[i].ref, color = series[i].limit ? LIMIT : ref ? REF : colorOf(i);
    var dash = series[i].limit ? '4 3' : ref ? '6 4' : dashes[i] || dashOf(i);
    var y = legendTop + it.y, row = el('g', it.empty ? {opacity: 0.5} : {}, lg);
    el('line', {x1: it.x, x2: it.x + 26, y1: y, y2: y, stroke: color, 'stroke-width': 2,
                'stroke-dasharray': dash}, row);
    if (!ref) el('circle', {cx: it.x + 13, cy: y, r: 3, fill: color}, row);
    text(row, it.x + 32, y + 4, it.label);
  });
  svg.setAttribute('data-series', String(drawn));
  fig.appendChild(svg);
  Array.prototype.forEach.call(fig.querySelectorAll('.pacer-nojs'), function (e) {
    e.remove();
  });
}

var data = JSON.parse(document.getElementById('pacer-data').textContent), done = 0;
(data.charts || []).forEach(function (c, i) {
  var fig = document.getElementById('pacer-chart-' + i);
  try {
    if (!fig) throw new Error('no place for chart ' + i);
    render(fig, c);
    done++;
  } catch (e) {
    note('chart ' + i + ': ' + (e && e.message ? e.message : String(e)));
  }
});
document.body.dataset.rendered = String(done);
})();
