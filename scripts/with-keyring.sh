#!/usr/bin/env bash
# Runs a command with a real, unlocked Secret Service keyring (GNOME Keyring) on a private
# D-Bus session, so tests use the OS keyring exactly as a desktop session would.
# Usage: scripts/with-keyring.sh COMMAND [ARGS…]
set -euo pipefail
if [ -z "${SILAS_KEYRING_READY:-}" ]; then
  if ! command -v dbus-run-session >/dev/null || ! command -v gnome-keyring-daemon >/dev/null; then
    echo "with-keyring: needs dbus-run-session and gnome-keyring-daemon (apt-get install dbus gnome-keyring)" >&2
    exit 1
  fi
  exec dbus-run-session -- env SILAS_KEYRING_READY=1 "$0" "$@"
fi
# A throwaway keyring directory, so tests never touch a person's real login keyring.
export XDG_DATA_HOME="${XDG_DATA_HOME_KEYRING:-$(mktemp -d /tmp/silas-keyring.XXXXXX)}"
eval "$(printf 'silas-test' | gnome-keyring-daemon --unlock --components=secrets --daemonize)"
export GNOME_KEYRING_CONTROL
exec "$@"
