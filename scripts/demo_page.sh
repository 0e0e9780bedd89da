#!/usr/bin/env bash
# The demo question's Tree-of-Reasoning page and its screenshot, for docs/ (README shows it).
#
#   scripts/demo_page.sh     # after `make demo`: writes docs/demo-page.png
#
# It asks make demo's question with make demo's settings (the offline model unless an API key or
# server is set), writes the page with --html, and captures it in headless Chromium
# (scripts/browser.sh installs it).
set -euo pipefail
cd "$(dirname "$0")/.."

QUESTION="${QUESTION:-Lorenzo Monaco was influenced by which Italian painter and architect?}"
page=".searchain/demo-page.html"
.venv/bin/searchain index --demo --index .searchain/demo-index --overwrite >&2
.venv/bin/searchain ask "$QUESTION" --index .searchain/demo-index --llm auto --reader llm \
  --db .searchain/demo-page.sqlite --html "$page"
scripts/browser.sh >/dev/null
profile="$(mktemp -d)"
trap 'rm -rf "$profile"' EXIT
chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
  --disable-component-update --disable-sync --no-first-run --user-data-dir="$profile" \
  --hide-scrollbars --window-size=900,1500 --screenshot="$PWD/docs/demo-page.png" \
  "file://$PWD/$page" 2>/dev/null
echo "docs/demo-page.png"
