#!/usr/bin/env bash
# Regenerates docs/images/demo-<structure>.png: one headless quadbin-demo
# shot per broad phase (480x480, the clustered scene), and
# docs/images/demo-pinball.png (the pinball scene, 400x600), re-encoded
# smaller by scripts/shrink_png.py. Needs a Release build with the demo:
#   cmake --preset release && cmake --build --preset release -j2 --target quadbin-demo
#   scripts/demo_screenshots.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build/release}
demo=$build/demo/quadbin-demo
out=$root/docs/images
mkdir -p "$out"
for s in $("$demo" --list-broadphases); do
  "$root/demo/run_headless.sh" "$demo" --headless --scene clustered --n 2000 --frames 30 \
    --threads 2 --broadphase "$s" --width 480 --height 480 --screenshot "$out/demo-$s.png"
done
"$root/demo/run_headless.sh" "$demo" --headless --scene pinball --frames 240 --threads 2 \
  --overlay off --width 400 --height 600 --screenshot "$out/demo-pinball.png"
python3 "$root/scripts/shrink_png.py" "$out"/demo-*.png
