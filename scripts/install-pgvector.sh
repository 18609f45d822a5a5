#!/usr/bin/env bash
# Makes the `vector` extension available on the local PostgreSQL when it is missing.
#
# Debian 12 has no pgvector package, but Debian 13's source package builds against the machine's
# PostgreSQL in about a minute. A private apt folder fetches that source without touching the
# system's apt sources. Idempotent: prints nothing and exits 0 when the extension is already there.
#
# Environment: PGHOST (127.0.0.1), PGPORT (5432), PGUSER (postgres), PGDATABASE (postgres).
set -euo pipefail

export PGHOST="${PGHOST:-127.0.0.1}" PGPORT="${PGPORT:-5432}" PGUSER="${PGUSER:-postgres}" PGDATABASE="${PGDATABASE:-postgres}"

available() {
  [ "$(psql -XtAc "SELECT 1 FROM pg_available_extensions WHERE name = 'vector'" 2>/dev/null)" = "1" ]
}

if available; then exit 0; fi

if ! psql -XtAc 'SELECT 1' >/dev/null 2>&1; then
  echo "install-pgvector: no PostgreSQL answers at $PGHOST:$PGPORT" >&2
  exit 1
fi

pg_config=/usr/bin/pg_config
major=$(psql -XtAc 'SHOW server_version_num' | cut -c1-2)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log="$work/log"

run() {
  if ! "$@" >>"$log" 2>&1; then
    echo "install-pgvector: failed: $*" >&2
    tail -n 30 "$log" >&2
    exit 1
  fi
}

echo "install-pgvector: building pgvector for PostgreSQL $major (about a minute)" >&2

# The server's headers and PGXS; the normal apt sources have them.
if [ ! -x "$pg_config" ] || ! dpkg -s "postgresql-server-dev-$major" >/dev/null 2>&1; then
  run apt-get update
  run env DEBIAN_FRONTEND=noninteractive apt-get install -y "postgresql-server-dev-$major"
fi

# Debian 13's source package through a private apt folder.
uri=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
uri="${uri:-http://deb.debian.org/debian}"
mkdir -p "$work/apt/lists/partial" "$work/src"
cat >"$work/apt/trixie-src.sources" <<EOF
Types: deb-src
URIs: $uri
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
apt_opts=(-o Dir::Etc::sourcelist=- -o "Dir::Etc::sourceparts=$work/apt" -o "Dir::State::Lists=$work/apt/lists")
run apt-get "${apt_opts[@]}" update
(cd "$work/src" && run apt-get "${apt_opts[@]}" source --download-only pgvector)

tarball=$(ls "$work"/src/pgvector_*.orig.tar.* | head -n 1)
run tar -xf "$tarball" -C "$work/src"
dir=$(find "$work/src" -maxdepth 1 -mindepth 1 -type d -name 'pgvector-*' | head -n 1)
run make -C "$dir" PG_CONFIG="$pg_config"
run make -C "$dir" install PG_CONFIG="$pg_config"

if ! available; then
  echo "install-pgvector: built and installed, but PostgreSQL still lists no 'vector' extension" >&2
  exit 1
fi
echo "install-pgvector: pgvector $(basename "$dir" | sed 's/^pgvector-//') installed" >&2
