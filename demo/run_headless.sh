#!/usr/bin/env bash
# Runs a command that needs an X display for OpenGL (quadbin-demo --headless
# renders into an sf::RenderTexture, which needs a GL context): as it is when
# a display answers, else under a virtual one (xvfb-run from Debian's xvfb
# package; Mesa's llvmpipe does the rendering in software).
#   demo/run_headless.sh build/release/demo/quadbin-demo --headless --screenshot shot.png
set -euo pipefail
if [ $# -eq 0 ]; then
  echo "usage: $0 COMMAND [ARGS...]" >&2
  exit 2
fi
if [ -n "${DISPLAY:-}" ] && command -v xdpyinfo >/dev/null 2>&1 && xdpyinfo >/dev/null 2>&1; then
  exec "$@"
fi
if [ -n "${DISPLAY:-}" ] && ! command -v xdpyinfo >/dev/null 2>&1; then
  exec "$@"  # a display is set and we cannot probe it: trust it
fi
if ! command -v xvfb-run >/dev/null 2>&1; then
  # 77: what ctest's demo_headless takes for "skipped" (SKIP_RETURN_CODE).
  echo "run_headless.sh: no X display and no xvfb-run (Debian: apt-get install xvfb xauth)" >&2
  exit 77
fi
exec xvfb-run -a -s "-screen 0 1280x1024x24" "$@"
