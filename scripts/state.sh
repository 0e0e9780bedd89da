# Sourced by the scripts that start servers: where this checkout keeps their state.
#
# Each checkout has its own folder, keyed by its path, so two checkouts on one machine never stop,
# reuse or empty each other's servers. Under $TMPDIR (default /tmp), not inside the checkout:
# PostgreSQL, which runs as its own user, must reach its data there, and its socket path must stay
# short. `checkout_state` prints it; ROOT is the checkout.
checkout_state() {
  local key; key="$(printf '%s' "$ROOT" | sha256sum | cut -c1-12)"
  echo "${TMPDIR:-/tmp}/searchain-$key"
}
