#!/usr/bin/env bash
# ctest demo_headless: one headless screenshot per broad phase, each checked
# by quadbin-demo-png-check (exists, size, dimensions, not blank).
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
  "$demo" --headless --n 600 --frames 4 --broadphase "$s" --width 320 --height 240 \
    --threads 2 --screenshot "$file"
  "$check" "$file" 320 240 --min-bytes 2000 --min-colours 8
  count=$((count + 1))
done
# The overlay off and another scene, at another size.
"$demo" --headless --scene mixed --n 400 --frames 3 --overlay off --width 200 --height 300 \
  --screenshot "$out/plain.png"
"$check" "$out/plain.png" 200 300 --min-bytes 1000 --min-colours 4
# Bad options are refused with a message and exit code 2.
if "$demo" --headless --broadphase no-such-structure --screenshot "$out/x.png" 2>/dev/null; then
  echo "headless_test: an unknown broad phase was accepted" >&2
  exit 1
fi
echo "headless_test: $count structures rendered and checked"
[ "$count" -ge 10 ]
