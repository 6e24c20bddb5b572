#!/usr/bin/env bash
# Makes sure the system programs the tests need are present: Chromium (UI tests and the Chromium
# shell), a Secret Service (gnome-keyring + dbus, for the real OS keychain), sqlite3 and openssl
# (independent tools the tests compare against), PostgreSQL 15 or later (the team tests start
# a throw-away server with its initdb and pg_ctl) and PgBouncer (the pooler tests put one in front of
# it). On Debian/Ubuntu as root it installs what is missing; elsewhere it says exactly what to install
# and exits non-zero.
set -euo pipefail

need=()
command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ] || need+=(chromium)
command -v dbus-run-session >/dev/null 2>&1 || need+=(dbus dbus-x11)
command -v gnome-keyring-daemon >/dev/null 2>&1 || need+=(gnome-keyring)
command -v secret-tool >/dev/null 2>&1 || need+=(libsecret-tools)
command -v sqlite3 >/dev/null 2>&1 || need+=(sqlite3)
command -v openssl >/dev/null 2>&1 || need+=(openssl)
command -v xvfb-run >/dev/null 2>&1 || need+=(xvfb)

# The server programs live in /usr/lib/postgresql/<major>/bin on Debian, not on PATH.
have_postgres() {
  local d
  for d in /usr/lib/postgresql/*/bin; do
    [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && [ "$(basename "$(dirname "$d")")" -ge 15 ] 2>/dev/null && return 0
  done
  command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1
}
have_postgres || need+=(postgresql)
# Debian installs it in /usr/sbin, which is not on every user's PATH.
command -v pgbouncer >/dev/null 2>&1 || [ -x /usr/sbin/pgbouncer ] || [ -n "${PGBOUNCER:-}" ] || need+=(pgbouncer)

[ ${#need[@]} -eq 0 ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "ensure-system-deps: installing ${need[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  # postgresql-15 where the archive has it; otherwise the distribution's own (15 or later on current Debian).
  for i in "${!need[@]}"; do
    if [ "${need[$i]}" = postgresql ] && apt-cache show postgresql-15 >/dev/null 2>&1; then need[$i]=postgresql-15; fi
  done
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  exit 0
fi

cat >&2 <<MSG
The tests need these system packages, which are missing: ${need[*]}
On Debian or Ubuntu:  sudo apt-get install -y ${need[*]}
(Chromium must be at /usr/bin/chromium or set CHROMIUM_PATH; the keychain tests need a Secret Service,
which gnome-keyring provides; the team tests need PostgreSQL 15 or later: set PG_BIN_DIR to the folder
holding its initdb and pg_ctl when they are not in /usr/lib/postgresql/<version>/bin or on PATH; the
pooler tests need PgBouncer: set PGBOUNCER to its path when it is neither on PATH nor /usr/sbin/pgbouncer.)
MSG
exit 1
