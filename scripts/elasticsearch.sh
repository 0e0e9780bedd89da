#!/usr/bin/env bash
# A real, throw-away Elasticsearch for tests, CI and benchmarks, on 127.0.0.1.
#
#   scripts/elasticsearch.sh start   # prints the URL; state in $ES_BASE/current
#   scripts/elasticsearch.sh stop
#   scripts/elasticsearch.sh url
#
# The integration-test distribution (no bundled JDK; security switched off) comes from Maven Central
# through Maven (cached in ~/.m2) and runs on the machine's JDK (17 or newer). Elasticsearch will
# not run as root, so as root it runs as the system user `searchain-es`.
set -euo pipefail

ES_VERSION="${ES_VERSION:-8.19.21}"
ES_BASE="${ES_BASE:-/tmp/searchain-es}"
ES_HEAP="${ES_HEAP:-512m}"
ES_USER="${ES_USER:-searchain-es}"
DIST="$ES_BASE/elasticsearch-$ES_VERSION"
STATE="$ES_BASE/current"

log() { echo "elasticsearch.sh: $*" >&2; }

fetch() {
  [ -x "$DIST/bin/elasticsearch" ] && return
  mkdir -p "$ES_BASE"
  local zip_dir
  zip_dir="$(mktemp -d "$ES_BASE/zip.XXXX")"
  log "fetching org.elasticsearch.distribution.integ-test-zip:elasticsearch:$ES_VERSION from Maven Central"
  mvn -q -B dependency:copy \
    -Dartifact="org.elasticsearch.distribution.integ-test-zip:elasticsearch:$ES_VERSION:zip" \
    -DoutputDirectory="$zip_dir" >&2
  local unpack
  unpack="$(mktemp -d "$ES_BASE/unpack.XXXX")"
  python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' \
    "$zip_dir"/elasticsearch-*.zip "$unpack"
  chmod +x "$unpack"/elasticsearch-*/bin/* "$unpack"/elasticsearch-*/lib/platform/*/* 2>/dev/null || true
  mv "$unpack/elasticsearch-$ES_VERSION" "$DIST"
  rm -rf "$zip_dir" "$unpack"
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start() {
  if [ -f "$STATE/url" ] && curl -sf "$(cat "$STATE/url")" >/dev/null 2>&1; then
    cat "$STATE/url"; return
  fi
  command -v java >/dev/null || { log "no java on PATH: install a JDK 17+"; exit 1; }
  fetch
  rm -rf "$STATE"; mkdir -p "$STATE/data" "$STATE/logs"
  local port transport
  port="$(free_port)"; transport="$(free_port)"
  local run=()
  if [ "$(id -u)" = 0 ]; then
    id "$ES_USER" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$ES_USER"
    chown -R "$ES_USER" "$DIST" "$STATE"
    chmod 755 "$ES_BASE"
    run=(runuser -u "$ES_USER" --)
  fi
  local java_home="${ES_JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}"
  "${run[@]}" env ES_JAVA_OPTS="-Xms$ES_HEAP -Xmx$ES_HEAP" ES_JAVA_HOME="$java_home" \
    "$DIST/bin/elasticsearch" -d -p "$STATE/pid" \
    -E discovery.type=single-node -E network.host=127.0.0.1 \
    -E http.port="$port" -E transport.port="$transport" \
    -E path.data="$STATE/data" -E path.logs="$STATE/logs" \
    -E cluster.routing.allocation.disk.threshold_enabled=false \
    -E action.destructive_requires_name=false -E xpack.security.enabled=false \
    -E xpack.ml.enabled=false > "$STATE/logs/console.log" 2>&1
  local url="http://127.0.0.1:$port"
  for _ in $(seq 1 120); do
    if curl -sf "$url/_cluster/health?wait_for_status=green&timeout=1s" >/dev/null 2>&1; then
      echo "$url" > "$STATE/url"
      log "green at $url"
      echo "$url"; return
    fi
    sleep 1
  done
  log "not green after 120 s; last log lines:"; tail -n 20 "$STATE"/logs/*.log >&2 || true
  stop; exit 1
}

stop() {
  if [ -f "$STATE/pid" ]; then
    local pid; pid="$(cat "$STATE/pid")"
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -rf "$STATE"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  url) cat "$STATE/url" ;;
  *) echo "usage: $0 start|stop|url" >&2; exit 2 ;;
esac
