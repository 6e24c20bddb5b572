#!/usr/bin/env bash
# Makes sure the system programs the tests need are present: Chromium (UI tests and the Chromium
# shell), a Secret Service (gnome-keyring + dbus, for the real OS keychain), sqlite3 and openssl
# (independent tools the tests compare against). On Debian/Ubuntu as root it installs what is
# missing; elsewhere it says exactly what to install and exits non-zero.
set -euo pipefail

need=()
command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ] || need+=(chromium)
command -v dbus-run-session >/dev/null 2>&1 || need+=(dbus dbus-x11)
command -v gnome-keyring-daemon >/dev/null 2>&1 || need+=(gnome-keyring)
command -v secret-tool >/dev/null 2>&1 || need+=(libsecret-tools)
command -v sqlite3 >/dev/null 2>&1 || need+=(sqlite3)
command -v openssl >/dev/null 2>&1 || need+=(openssl)
command -v xvfb-run >/dev/null 2>&1 || need+=(xvfb)

[ ${#need[@]} -eq 0 ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "ensure-system-deps: installing ${need[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  exit 0
fi

cat >&2 <<MSG
The tests need these system packages, which are missing: ${need[*]}
On Debian or Ubuntu:  sudo apt-get install -y ${need[*]}
(Chromium must be at /usr/bin/chromium or set CHROMIUM_PATH; the keychain tests need a Secret Service,
which gnome-keyring provides.)
MSG
exit 1
