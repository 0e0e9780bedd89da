#!/usr/bin/env bash
# A real browser for the page tests: Debian's Chromium and ChromeDriver, and axe-core (the
# accessibility checker the tests run inside it) from the npm registry.
#
#   scripts/browser.sh    # installs what is missing; prints the path of axe.min.js
#
# chromium and chromium-driver come from Debian's packages (apt-get, which needs root): test
# tools' own browser downloads are not reachable here. axe-core is installed with npm into
# $BROWSER_TOOLS (default /tmp/searchain-browser), once.
set -euo pipefail

BROWSER_TOOLS="${BROWSER_TOOLS:-/tmp/searchain-browser}"
AXE_VERSION="${AXE_VERSION:-4.14.1}"

log() { echo "browser.sh: $*" >&2; }

if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
  [ "$(id -u)" = 0 ] || { log "Chromium is not installed: apt-get install chromium chromium-driver (as root)"; exit 1; }
  log "installing Debian's chromium and chromium-driver packages"
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >&2
fi
axe="$BROWSER_TOOLS/node_modules/axe-core/axe.min.js"
if [ ! -f "$axe" ]; then
  command -v npm >/dev/null || { log "no npm on PATH: install Node.js and npm"; exit 1; }
  log "installing axe-core $AXE_VERSION from the npm registry"
  mkdir -p "$BROWSER_TOOLS"
  npm install --silent --no-save --no-audit --no-fund --prefix "$BROWSER_TOOLS" "axe-core@$AXE_VERSION" >&2
fi
echo "$axe"
