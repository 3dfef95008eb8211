#!/usr/bin/env bash
# PostgreSQL 15 + pgvector for ibid's store/postgres tests, on Debian bookworm.
#
#   .ci/postgres.sh start   install what is missing, start a throwaway cluster,
#                           write the connection to $STATE/env and print
#                           "export IBID_TEST_POSTGRES=postgres://…"
#   .ci/postgres.sh stop    stop that cluster and delete its folder
#   .ci/postgres.sh install only install (PostgreSQL, pgvector)
#
# Idempotent: every step checks before it acts; "start" with a cluster
# already running prints the same export line again. Runs as root. Network:
# Debian's mirror (the host the machine's apt sources already name) only.
# The cluster lives in $IBID_PG_STATE (default /tmp/ibid-pg), listens on a
# free port on 127.0.0.1 and on a unix socket in that folder, and trusts local
# connections: it is for tests, never for data.
set -euo pipefail

PGVER=15
PGBIN=/usr/lib/postgresql/$PGVER/bin
STATE=${IBID_PG_STATE:-/tmp/ibid-pg}
DB=ibid_test

log() { echo "postgres.sh: $*" >&2; }

mirror_host() {
	# The mirror the existing apt sources use for Debian itself.
	local h
	h=$(grep -rhoE 'https?://[^ /]+/debian/?( |$)' /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list 2>/dev/null |
		grep -v security | head -n1 | sed -E 's#/debian/?\s*$##; s#[[:space:]]+$##')
	echo "${h:-http://deb.debian.org}"
}

install_postgres() {
	if [ -x "$PGBIN/postgres" ] && [ -x "$PGBIN/pg_config" ] && [ -d /usr/include/postgresql/$PGVER/server ]; then
		return
	fi
	log "installing PostgreSQL $PGVER"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql postgresql-server-dev-$PGVER dpkg-dev build-essential >/dev/null
}

install_pgvector() {
	if [ -f /usr/share/postgresql/$PGVER/extension/vector.control ] && [ -f /usr/lib/postgresql/$PGVER/lib/vector.so ]; then
		return
	fi
	log "building pgvector from Debian trixie's source package"
	local src=/etc/apt/sources.list.d/ibid-trixie-src.sources
	if [ ! -f "$src" ]; then
		cat >"$src" <<SRC
Types: deb-src
URIs: $(mirror_host)/debian
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
	fi
	apt-get update -qq
	if ! command -v dpkg-source >/dev/null || ! command -v gcc >/dev/null || ! command -v make >/dev/null; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq dpkg-dev build-essential >/dev/null
	fi
	local build
	build=$(mktemp -d /tmp/ibid-pgvector.XXXXXX)
	(cd "$build" && apt-get source -qq pgvector >/dev/null 2>&1 || (cd "$build" && apt-get source pgvector))
	local dir
	dir=$(find "$build" -maxdepth 1 -type d -name 'pgvector-*' | head -n1)
	[ -n "$dir" ] || { log "apt-get source pgvector gave no source folder"; exit 1; }
	make -s -C "$dir" PG_CONFIG=$PGBIN/pg_config -j"$(nproc)" >/dev/null
	make -s -C "$dir" PG_CONFIG=$PGBIN/pg_config install >/dev/null
	rm -rf "$build"
}

free_port() {
	local p
	for p in $(seq 55432 55532); do
		if ! (echo >/dev/tcp/127.0.0.1/$p) 2>/dev/null; then
			echo "$p"
			return
		fi
	done
	log "no free port in 55432-55532"
	exit 1
}

as_pg() { runuser -u postgres -- "$@"; }

start() {
	install_postgres
	install_pgvector
	if [ -f "$STATE/env" ] && [ -f "$STATE/data/postmaster.pid" ] && as_pg "$PGBIN/pg_ctl" -D "$STATE/data" status >/dev/null 2>&1; then
		cat "$STATE/env"
		return
	fi
	rm -rf "$STATE"
	mkdir -p "$STATE"
	chown postgres:postgres "$STATE"
	local port
	port=$(free_port)
	as_pg "$PGBIN/initdb" -D "$STATE/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >/dev/null
	# Sized for a small test machine; fsync stays on so crash tests mean something.
	cat >>"$STATE/data/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$STATE'
max_connections = 100
shared_buffers = 256MB
maintenance_work_mem = 512MB
max_parallel_maintenance_workers = 1
max_wal_size = 2GB
synchronous_commit = on
logging_collector = off
CONF
	as_pg "$PGBIN/pg_ctl" -D "$STATE/data" -l "$STATE/log" -w -t 60 start >/dev/null
	as_pg "$PGBIN/psql" -h "$STATE" -p "$port" -U postgres -q -v ON_ERROR_STOP=1 -c "CREATE DATABASE $DB" >/dev/null
	as_pg "$PGBIN/psql" -h "$STATE" -p "$port" -U postgres -d "$DB" -q -v ON_ERROR_STOP=1 -c "CREATE EXTENSION IF NOT EXISTS vector" >/dev/null
	echo "export IBID_TEST_POSTGRES=postgres://postgres@127.0.0.1:$port/$DB?sslmode=disable" >"$STATE/env"
	cat "$STATE/env"
}

stop() {
	if [ -d "$STATE/data" ]; then
		as_pg "$PGBIN/pg_ctl" -D "$STATE/data" -m fast -w stop >/dev/null 2>&1 || true
	fi
	rm -rf "$STATE"
}

case "${1:-start}" in
start) start ;;
stop) stop ;;
install) install_postgres; install_pgvector ;;
*) echo "usage: $0 [start|stop|install]" >&2; exit 2 ;;
esac
