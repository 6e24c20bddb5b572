#!/usr/bin/env bash
# Runs a command with a private, unlocked Secret Service (gnome-keyring on a private D-Bus session)
# and HOME/XDG folders in a temp dir, so keychain tests use the real keychain but never the user's.
set -euo pipefail
tmp=$(mktemp -d "${TMPDIR:-/tmp}/md-keyring-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export HOME="$tmp/home" XDG_DATA_HOME="$tmp/data" XDG_CONFIG_HOME="$tmp/config" XDG_CACHE_HOME="$tmp/cache" XDG_RUNTIME_DIR="$tmp/run"
mkdir -p "$HOME" "$XDG_DATA_HOME" "$XDG_CONFIG_HOME" "$XDG_CACHE_HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"
# npm's cache must stay where it was (HOME moved).
export npm_config_cache="${npm_config_cache:-$(npm config get cache 2>/dev/null || echo /tmp/npm-cache)}"
exec dbus-run-session -- sh -c 'echo -n merchant-desk-test | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1; exec "$@"' sh "$@"
