#!/bin/sh
# The run page in a browser (issue 22): the report.html of a simulated-policy run, drawn
# by headless Chromium at laptop sizes (1366 x 768 and 1280 x 800), fits the window: no
# horizontal scrolling, no element reaching past the right edge, no two labels of a
# chart on top of each other, for each x axis of the learning curves and with every
# disclosure open. A probe script in a copy of the page writes what it measured into
# the DOM, which --dump-dom prints; the probe first has to catch a page that is too wide
# and a chart with overlapping labels, made so on purpose. Screenshots are left in
# WORK_DIR (run-1366.png, run-1280.png) for a person to look at. The run is deterministic,
# so that every try draws the same page (its seconds aside: the wall-clock axis and the
# seconds per step depend on the machine).
# Skipped (status 77) without chromium (Debian package chromium; scripts/setup.sh).
# Usage: report_browser.sh ADARL SOURCE_DIR WORK_DIR
adarl=$1 src=$2 dir=$3
browser=""
for b in chromium chromium-browser; do
  if command -v "$b" >/dev/null 2>&1; then browser=$b; break; fi
done
if [ -z "$browser" ]; then
  echo "chromium not found (apt-get install chromium, or scripts/setup.sh): skipped"
  exit 77
fi
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
fail() { echo "FAIL: $*"; exit 1; }

# Chromium without a display, a sandbox (containers, root), the network or a profile.
headless() {  # headless WIDTH HEIGHT ARGS...
  w=$1 h=$2
  shift 2
  profile=$(mktemp -d "$dir/profile.XXXXXX")
  timeout 90 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --disable-dev-shm-usage --user-data-dir="$profile" --window-size="$w,$h" "$@" 2>/dev/null
  status=$?
  rm -rf "$profile"
  return $status
}

# The probe: for each x axis of the curves (radio buttons), every element's right edge
# against the page's width and every pair of labels within each chart.
cat > probe.html <<'EOF'
<script>
(function () {
  var root = document.documentElement, wide = {}, overlaps = {}, width = 0;
  document.querySelectorAll('details').forEach(function (d) { d.open = true; });
  function measure() {
    width = Math.max(width, root.scrollWidth);
    document.querySelectorAll('body *').forEach(function (e) {
      var r = e.getBoundingClientRect();
      if (r.width > 0 && r.right > root.clientWidth + 0.5) wide[e.tagName + (e.id ? '#' + e.id : '')] = 1;
    });
    document.querySelectorAll('svg').forEach(function (svg) {
      var t = [].slice.call(svg.querySelectorAll('text')).map(function (e) {
        return [e.textContent, e.getBoundingClientRect()];
      }).filter(function (x) { return x[1].width > 0; });
      for (var i = 0; i < t.length; ++i)
        for (var j = i + 1; j < t.length; ++j) {
          var a = t[i][1], b = t[j][1];
          if (a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1)
            overlaps[t[i][0] + ' / ' + t[j][0]] = 1;
        }
    });
  }
  var radios = document.querySelectorAll('input[type=radio]');
  if (radios.length === 0) measure();
  radios.forEach(function (r) { r.checked = true; measure(); });
  var p = document.createElement('pre');
  p.textContent = 'probe: client ' + root.clientWidth + ' scroll ' + width + ' wide ' +
    Object.keys(wide).length + ' [' + Object.keys(wide).slice(0, 6).join(' ') + '] overlaps ' +
    Object.keys(overlaps).length + ' [' + Object.keys(overlaps).slice(0, 6).join('; ') + '] end';
  document.body.appendChild(p);
})();
</script>
EOF
with_probe() {  # with_probe PAGE COPY: the page with the probe before </body>
  awk '/<\/body>/ { while ((getline line < "probe.html") > 0) print line } { print }' "$1" > "$2"
}
probe() {  # probe PAGE WIDTH HEIGHT: the probe's line
  # Chromium now and then prints no DOM on a loaded machine (once in a parallel ctest
  # beside a sanitizer build): up to three tries for a line; what the line says is
  # never retried.
  for try in 1 2 3; do
    out=$(headless "$2" "$3" --dump-dom "file://$dir/$1" | grep -o 'probe: [^<]*end')
    [ -n "$out" ] && break
    echo "probe: chromium printed no probe line for $1 at $2 px (try $try)" >&2
  done
  echo "$out"
}

# The probe catches what it should: a table wider than the page, labels on top of each other.
cat > bad.html <<'EOF'
<!DOCTYPE html><html><body><p>x</p>
<table id="wide"><tr><td style="min-width:2000px">too wide</td></tr></table>
<svg width="200" height="100"><text x="10" y="50">label one</text><text x="14" y="52">label two</text></svg>
</body></html>
EOF
with_probe bad.html bad-probe.html
bad=$(probe bad-probe.html 1366 768)
echo "control: $bad"
case "$bad" in
  *"wide 0 "*|"") fail "the probe misses a table wider than the page: $bad" ;;
esac
case "$bad" in
  *"overlaps 0 "*) fail "the probe misses overlapping labels: $bad" ;;
esac
echo "$bad" | grep -q 'TABLE#wide' || fail "the probe does not name the wide table: $bad"

"$adarl" run "$src/configs/sim-smoke.yaml" tracker.steps=60 eval.every=10 deterministic=true out=run \
  > run.txt 2>&1 || fail "adarl run: $(tail -n 5 run.txt)"
[ -f run/report.html ] || fail "no run/report.html: $(tail -n 5 run.txt)"
grep -q 'id="verdict"' run/report.html || fail "run/report.html is not the run page"
with_probe run/report.html run-probe.html
# The same run drawn as if it had resumed at step 1000 on a busy machine (its first
# evaluation 5 ms in): axes that do not start at 0 put a wide first x label ("1000")
# beside the lowest y label, as a CI machine once drew the wall-clock axis ("0.005").
cp -r run late && python3 - late <<'PY' || fail "could not shift the run's steps"
import json, sys
for name, keys in (("metrics.jsonl", ("step", "heldout_version", "policy_version")),
                   ("eval.jsonl", ("version",))):
    path = f"{sys.argv[1]}/{name}"
    rows = [json.loads(l) for l in open(path)]
    for r in rows:
        for k in keys:
            if k in r:
                r[k] += 1000
        if "elapsed" in r:
            r["elapsed"] += 0.005
    open(path, "w").write("".join(json.dumps(r) + "\n" for r in rows))
PY
"$adarl" report late > late.txt 2>&1 || fail "adarl report late: $(tail -n 5 late.txt)"
grep -q '>1000</text>' late/report.html || fail "the shifted page has no axis starting at step 1000"
with_probe late/report.html late-probe.html
for size in 1366,768 1280,800 late:1366,768; do
  page=run-probe.html
  case "$size" in late:*) page=late-probe.html size=${size#late:} ;; esac
  w=${size%,*} h=${size#*,}
  line=$(probe "$page" "$w" "$h")
  echo "$page $w px: $line"
  [ -n "$line" ] || fail "no probe line from chromium at $w px"
  scroll=$(echo "$line" | sed -n 's/.* scroll \([0-9]*\) .*/\1/p')
  client=$(echo "$line" | sed -n 's/probe: client \([0-9]*\) .*/\1/p')
  [ "$client" -gt 0 ] && [ "$client" -le "$w" ] || fail "odd page width at $w px: $line"
  [ "$scroll" -le "$client" ] || fail "horizontal scrolling at $w px: $line"
  case "$line" in *"wide 0 "*) ;; *) fail "elements past the right edge at $w px: $line" ;; esac
  case "$line" in *"overlaps 0 "*) ;; *) fail "overlapping labels at $w px: $line" ;; esac
  [ "$page" = run-probe.html ] &&
    headless "$w" "$h" --screenshot="$dir/run-$w.png" "file://$dir/run/report.html" >/dev/null
done
echo "run page in chromium: fits at 1366 and 1280 px (and resumed at step 1000)"
