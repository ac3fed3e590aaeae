#!/usr/bin/env bash
# ctest demo_headless: one headless screenshot per broad phase, each checked
# by quadbin-demo-png-check (exists, size, dimensions, not blank); the
# pinball scene; the window driven by scripted keys; bad command lines
# refused.
#   headless_test.sh QUADBIN_DEMO PNG_CHECK OUT_DIR
set -euo pipefail
demo=$1
check=$2
out=$3
mkdir -p "$out"
rm -f "$out"/*.png
structures=$("$demo" --list-broadphases)
count=0
for s in $structures; do
  file="$out/demo-$s.png"
  "$demo" --headless --n 1000 --frames 8 --broadphase "$s" --width 320 --height 240 \
    --threads 2 --screenshot "$file"
  "$check" "$file" 320 240 --min-bytes 2000 --min-colours 8
  count=$((count + 1))
done
# The overlay off and another scene, at another size.
"$demo" --headless --scene mixed --n 400 --frames 3 --overlay off --width 200 --height 300 \
  --screenshot "$out/plain.png"
"$check" "$out/plain.png" 200 300 --min-bytes 1000 --min-colours 4
# The pinball scene: outlines (segments, a chain, polygons, turned boxes, a
# kinematic paddle) under gravity, y up; its balls drained and dropped again.
"$demo" --headless --scene pinball --frames 90 --width 200 --height 300 --threads 2 \
  --screenshot "$out/pinball.png"
"$check" "$out/pinball.png" 200 300 --min-bytes 1000 --min-colours 8
# Its window: the keys of the reference scenes stay harmless (D removes
# every ball but never the table; a burst lands only on the field).
"$demo" --scene pinball --n 50 --width 200 --height 300 --threads 2 --frames 16 \
  --keys "D,D,A,burst,grab,S,release,Up,ZoomIn,Down,Z,R" --screenshot "$out/pinball-window.png"
"$check" "$out/pinball-window.png" 200 300 --min-bytes 1000 --min-colours 8
# Zoomed in on a corner (World::draw culls to the view), and zoomed out.
"$demo" --headless --scene clustered --n 1000 --frames 5 --zoom 5 --center 20,25 --width 240 \
  --height 240 --screenshot "$out/zoom.png"
"$check" "$out/zoom.png" 240 240 --min-bytes 1000 --min-colours 8
"$demo" --headless --n 500 --frames 2 --zoom 0.5 --width 160 --height 160 \
  --screenshot "$out/zoom-out.png"
"$check" "$out/zoom-out.png" 160 160 --min-bytes 500 --min-colours 4
# The window, driven by --keys (every key and both mouse actions), its last
# frame saved.
"$demo" --n 500 --width 300 --height 300 --threads 2 --frames 40 \
  --keys "H,Tab,ShiftTab,3,A,D,burst,grab,C,C,+,-,O,O,Space,S,S,Space,release,R,5,0,9,7,6,8,4,1,2,ZoomIn,ZoomIn,Left,Up,Right,Down,ZoomOut,Z,ZoomIn" \
  --screenshot "$out/window.png"
"$check" "$out/window.png" 300 300 --min-bytes 1000 --min-colours 8
# Bad options are refused with a message and exit code 2.
for bad in "--headless --broadphase no-such-structure --screenshot $out/x.png" \
           "--headless --n 10" "--overlay maybe" "--frames 5 --keys NoSuchKey" \
           "--headless --center 1 --screenshot $out/x.png" "--headless --center 1,nan --screenshot $out/x.png" \
           "--headless --zoom 0 --screenshot $out/x.png"; do
  rc=0
  # shellcheck disable=SC2086
  "$demo" $bad >/dev/null 2>&1 || rc=$?
  if [ "$rc" -ne 2 ]; then
    echo "headless_test: '$bad' exited with $rc, expected 2" >&2
    exit 1
  fi
done
# No display: refused with advice, not an abort inside SFML.
rc=0
env -u DISPLAY "$demo" --headless --screenshot "$out/x.png" >/dev/null 2>&1 || rc=$?
[ "$rc" -eq 2 ] || { echo "headless_test: no DISPLAY gave exit code $rc, expected 2" >&2; exit 1; }
# A font that cannot be loaded: a warning, and the picture without text.
"$demo" --headless --n 300 --frames 2 --font /nonexistent/font.ttf --width 160 --height 160 \
  --screenshot "$out/nofont.png" 2>"$out/nofont.err"
grep -q "warning" "$out/nofont.err"
"$check" "$out/nofont.png" 160 160 --min-bytes 500 --min-colours 3
echo "headless_test: $count structures rendered and checked"
[ "$count" -ge 10 ]
