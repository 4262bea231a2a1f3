#!/usr/bin/env bash
# html_check.sh FILE.html OUTDIR: load a page written by pacer's HTML writer
# (src/report/html.c) in headless chromium and check it.
#
# Passes (exit 0) when:
#   - nothing in the file refers to another resource (no src/href/... to a
#     URL, no CSS url() or @import; data: URIs and #fragments are fine);
#   - chromium, run behind a proxy on a dead port with DNS switched off,
#     logged no request made by the page (its network log is checked);
#   - the page logged nothing to the console (chromium's log does not tell
#     levels apart, and pacer's pages log nothing, so any message fails);
#   - <body> has data-rendered, no data-errors, and data-rendered equals both
#     the number of chart placeholders and of <svg class="pacer-chart">;
#   - a screenshot was written.
# On success it prints one line per chart, in page order:
#   chart<TAB>TITLE<TAB>series=N
# On failure it prints one line "html_check: REASON" on stderr and exits 1.
# Exit 2: usage; exit 3: chromium not found (callers fail on 3, naming the
# package: need_cmd chromium chromium).
#
# OUTDIR receives shot.png (1280x4000 screenshot), dom.html (the DOM after
# the scripts ran), chromium.log, netlog.json and charts.tsv: per chart,
#   TITLE<TAB>the names of its drawn series<TAB>its x tick labels
# (names and labels joined with '|'; reference lines' names end in ' (ref)'),
# and drawn.json: what the browser drew, read back from the SVG paths
# through each chart's axis mapping (data-xmap / data-ymap) into data units:
#   [{"title": T, "series": [{"name": N, "ref": bool, "limit": bool,
#                             "points": [[x, y], ..., null (a break), ...]}]}]
# so a test can check each line against the numbers it should show. Chromium runs at most
# HTML_CHECK_TIMEOUT seconds (default 60) in its own process group, which
# is killed on the way out. Env CHROMIUM overrides the browser binary.
set -u

die() { echo "html_check: $*" >&2; exit 1; }

if [ $# -ne 2 ]; then
    echo "usage: html_check.sh FILE.html OUTDIR" >&2
    exit 2
fi
file=$1 out=$2
limit=${HTML_CHECK_TIMEOUT:-60}
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

browser=${CHROMIUM:-}
if [ -z "$browser" ]; then
    for b in chromium chromium-browser google-chrome; do
        if command -v "$b" >/dev/null 2>&1; then
            browser=$(command -v "$b")
            break
        fi
    done
fi
if [ -z "$browser" ] || ! [ -x "$browser" ]; then
    echo "html_check: chromium not found" >&2
    exit 3
fi
[ -f "$file" ] || die "no such file: $file"
mkdir -p "$out" || die "cannot create $out"
abs=$(realpath "$file") || die "cannot resolve $file"

work=$(mktemp -d /tmp/html-check.XXXXXX) || die "mktemp failed"
tpid=""
cleanup() {
    # timeout(1) leads its own process group: that is chromium and all of
    # its helpers, and nothing else.
    if [ -n "$tpid" ]; then
        kill -TERM -- "-$tpid" 2>/dev/null
        kill -KILL -- "-$tpid" 2>/dev/null
    fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# 1. Static: every attribute and style in the file.
"$PY" - "$abs" <<'PY' || exit 1
import re, sys
from html.parser import HTMLParser

URL_ATTRS = {'src', 'href', 'xlink:href', 'action', 'formaction', 'srcset', 'poster',
             'data', 'background', 'manifest', 'ping', 'codebase', 'cite', 'longdesc'}
CSS_URL = re.compile(r'url\(\s*[\'"]?\s*(?!data:|#)([^\'")\s]*)|@import', re.I)

class P(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.bad = None
        self.tag = None
    def flag(self, why):
        if self.bad is None:
            self.bad = why
    def handle_starttag(self, tag, attrs):
        self.tag = tag
        if tag in ('link', 'base', 'iframe', 'frame', 'embed', 'object', 'img', 'audio',
                   'video', 'source', 'track', 'input'):
            for k, v in attrs:
                if k in URL_ATTRS and v and not v.strip().startswith(('data:', '#')):
                    self.flag('<%s %s="%s"> loads a resource' % (tag, k, v))
        for k, v in attrs:
            v = v or ''
            if k in URL_ATTRS and re.match(r'\s*([a-z][a-z0-9+.-]*:|//)', v, re.I) \
                    and not re.match(r'\s*data:', v, re.I):
                self.flag('<%s %s="%s"> points off the page' % (tag, k, v))
            if k == 'style' and CSS_URL.search(v):
                self.flag('<%s style="..."> uses url() or @import' % tag)
            if k == 'http-equiv' and v.lower() == 'refresh':
                self.flag('<meta http-equiv="refresh">')
    handle_startendtag = handle_starttag
    def handle_data(self, data):
        if self.tag == 'style' and CSS_URL.search(data):
            self.flag('a <style> uses url() or @import')
    def handle_endtag(self, tag):
        self.tag = None

p = P()
with open(sys.argv[1], encoding='utf-8', errors='replace') as f:
    p.feed(f.read())
p.close()
if p.bad:
    print('html_check: ' + p.bad, file=sys.stderr)
    sys.exit(1)
PY

# 2. Load it. Everything network goes to a proxy on a port nothing
# listens on (loopback included), and no name resolves: whatever the page
# might try, nothing leaves; the network log shows whether it tried.
timeout --kill-after=5 "$limit" "$browser" \
    --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --disable-extensions --hide-scrollbars \
    --user-data-dir="$work/profile" \
    --enable-logging=stderr --v=0 \
    --proxy-server=127.0.0.1:9 --proxy-bypass-list='<-loopback>' \
    --host-resolver-rules='MAP * ~NOTFOUND' \
    --log-net-log="$out/netlog.json" \
    --window-size=1280,4000 --screenshot="$out/shot.png" \
    --dump-dom "file://$abs" >"$out/dom.html" 2>"$out/chromium.log" </dev/null &
tpid=$!
wait "$tpid"
rc=$?
[ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] && die "chromium did not finish within ${limit}s"
[ "$rc" -eq 0 ] || die "chromium exited with status $rc (see $out/chromium.log)"

msg=$(grep -m1 ':CONSOLE' "$out/chromium.log")
[ -z "$msg" ] || die "console message: ${msg#*] }"
[ -s "$out/shot.png" ] || die "no screenshot written"

# 3. What the page did: network requests, errors, charts.
"$PY" - "$out/netlog.json" "$out/dom.html" "$out/charts.tsv" "$out/drawn.json" <<'PY'
import json, re, sys
from html.parser import HTMLParser

def fail(why):
    print('html_check: ' + why, file=sys.stderr)
    sys.exit(1)

# Requests of the browser itself (update checks...) have no origin as
# initiator; the page's have its origin (file:// is "null").
raw = open(sys.argv[1], encoding='utf-8', errors='replace').read()
try:
    log = json.loads(raw)
    types = {v: k for k, v in log['constants']['logEventTypes'].items()}
    for e in log.get('events', []):
        p = e.get('params') or {}
        if types.get(e.get('type')) == 'URL_REQUEST_START_JOB' and \
                p.get('initiator', 'not an origin') != 'not an origin':
            fail('the page made a network request: %s' % p.get('url', '?'))
except (ValueError, KeyError, TypeError):
    # A log cut short (chromium killed) does not parse; look at it raw.
    for m in re.finditer(r'"initiator":"([^"]*)"', raw):
        if m.group(1) != 'not an origin':
            fail('the page made a network request (initiator %s)' % m.group(1))

class D(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.body = None
        self.root_errors = None
        self.figures = 0
        self.charts = []
        self.detail = []   # per chart: [series names, x tick labels]
        self.xtick = None  # the x tick label being read
        self.drawn = []    # per chart: title, axis mappings, series with their paths
        self.inseries = None
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get('class') or '').split()
        if tag == 'g' and 'series' in cls and self.detail:
            self.detail[-1][0].append(a.get('data-name', '') + (' (ref)' if 'ref' in cls else ''))
            self.inseries = {'name': a.get('data-name', ''), 'ref': 'ref' in cls,
                             'limit': 'limit' in cls, 'd': None}
            self.drawn[-1]['series'].append(self.inseries)
        elif tag == 'path' and self.inseries is not None and self.inseries['d'] is None:
            self.inseries['d'] = a.get('d', '')
        elif tag == 'text' and 'xtick' in cls and self.detail:
            self.xtick = ''
        if tag == 'html':
            self.root_errors = a.get('data-errors')
        elif tag == 'body':
            self.body = a
        elif tag == 'figure' and 'pacer-figure' in (a.get('class') or '').split():
            self.figures += 1
        elif tag == 'svg' and 'pacer-chart' in (a.get('class') or '').split():
            self.charts.append((a.get('data-title'), a.get('data-series')))
            self.detail.append([[], []])
            self.drawn.append({'title': a.get('data-title'), 'xmap': a.get('data-xmap'),
                               'ymap': a.get('data-ymap'), 'series': []})
    handle_startendtag = handle_starttag
    def handle_data(self, data):
        if self.xtick is not None:
            self.xtick += data
    def handle_endtag(self, tag):
        if tag == 'svg':
            self.inseries = None
        if tag == 'text' and self.xtick is not None:
            self.detail[-1][1].append(self.xtick)
            self.xtick = None

d = D()
d.feed(open(sys.argv[2], encoding='utf-8', errors='replace').read())
d.close()
if d.body is None:
    fail('no <body> in the rendered page')
errors = d.body.get('data-errors') or d.root_errors
if errors:
    fail('page errors: ' + errors)
rendered = d.body.get('data-rendered')
if rendered is None:
    fail('the charts were not rendered (no data-rendered on <body>)')
if not rendered.isdigit() or int(rendered) != d.figures or len(d.charts) != d.figures:
    fail('data-rendered=%s, but %d chart places and %d charts drawn'
         % (rendered, d.figures, len(d.charts)))
flat = lambda s: re.sub(r'[\t\r\n|]', ' ', s or '')
with open(sys.argv[3], 'w') as f:
    for (title, _), (names, ticks) in zip(d.charts, d.detail):
        f.write('%s\t%s\t%s\n' % (flat(title), '|'.join(map(flat, names)),
                                  '|'.join(map(flat, ticks))))
# Pixels back to data units: the inverse of html_render.js's sx/sy and fwd.
def inverse(m):
    try:
        lo, hi, p0, p1, scale = (float(v) for v in (m or '').split())
    except ValueError:
        fail('a chart lacks data-xmap or data-ymap')
    def f(px):
        t = lo + (px - p0) / (p1 - p0) * (hi - lo)
        return 10 ** t if scale == 1 else 100 - 100 / 10 ** t if scale == 2 else t
    return f
out = []
for c in d.drawn:
    fx, fy = inverse(c['xmap']), inverse(c['ymap'])
    series = []
    for s in c['series']:
        pts = []
        for op, x, y in re.findall(r'([ML])\s*(-?[0-9.]+)[ ,](-?[0-9.]+)', s['d'] or ''):
            if op == 'M' and pts:
                pts.append(None)
            pts.append([fx(float(x)), fy(float(y))])
        series.append({'name': s['name'], 'ref': s['ref'], 'limit': s['limit'], 'points': pts})
    out.append({'title': c['title'], 'series': series})
with open(sys.argv[4], 'w') as f:
    json.dump(out, f)
for title, series in d.charts:
    if title is None or series is None or not series.isdigit():
        fail('a chart lacks data-title or data-series')
    print('chart\t%s\tseries=%s' % (re.sub(r'[\t\r\n]', ' ', title), series))
PY
