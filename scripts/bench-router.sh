#!/usr/bin/env bash
# Measures the router against nginx as a plain reverse proxy, in one run, on loopback only:
# one Go backend; (a) the router driven with signed requests, (b) nginx proxying to the same
# backend; the same wrk load (threads, connections, duration) for both, alternated over ROUNDS
# rounds, each side scored by its best round. Prints req/s and p50/p99 for both and the ratios;
# the last line is machine-readable:
#
#   bench-router: rps_vs_nginx=<router/nginx req/s> p99_vs_nginx=<router/nginx p99>
#
# Goal: rps_vs_nginx >= 0.9 and p99_vs_nginx <= 1.2. Neither side writes access logs (nginx
# access_log off; router success lines sampled at 0, failures still logged). Installs nginx and
# wrk from Debian when missing (needs root). Tunables: BENCH_THREADS (2), BENCH_CONNECTIONS (32),
# BENCH_DURATION (10s), BENCH_WARMUP (2s), ROUNDS (2).
set -euo pipefail

cd "$(dirname "$0")/.."
THREADS="${BENCH_THREADS:-2}"
CONNECTIONS="${BENCH_CONNECTIONS:-32}"
DURATION="${BENCH_DURATION:-10s}"
WARMUP="${BENCH_WARMUP:-2s}"
ROUNDS="${ROUNDS:-2}"
HOST=bench.tenant.test

log() { echo "bench-router: $*" >&2; }

install_tools() {
  local need=()
  command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || need+=(nginx)
  command -v wrk >/dev/null || need+=(wrk)
  [ ${#need[@]} -eq 0 ] && return
  log "installing ${need[*]} from Debian…"
  # Keep the package's init script from starting a system nginx on port 80: policy-rc.d
  # exit 101 is Debian's "do not start services" switch.
  local policy=/usr/sbin/policy-rc.d added_policy=0
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy" && added_policy=1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  [ "$added_policy" = 1 ] && rm -f "$policy"
  return 0
}

install_tools
NGINX=$(command -v nginx || echo /usr/sbin/nginx)

TMP=$(mktemp -d)
PIDS=()
cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

log "building the router and the bench backend…"
go build -trimpath -o "$TMP/kamuidash-router" ./worker-src/router/cmd/kamuidash-router
go build -trimpath -o "$TMP/benchtool" ./worker-src/router/internal/benchtool

mapfile -t PORTS < <("$TMP/benchtool" ports 4)
BACKEND_PORT=${PORTS[0]} ROUTER_PORT=${PORTS[1]} ADMIN_PORT=${PORTS[2]} NGINX_PORT=${PORTS[3]}

wait_port() { # wait_port <port> <name>: up to 10 s for a listener
  local i
  for i in $(seq 100); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  log "$2 did not start on 127.0.0.1:$1"
  exit 1
}

"$TMP/benchtool" backend -listen "127.0.0.1:$BACKEND_PORT" &
PIDS+=($!)
wait_port "$BACKEND_PORT" backend

# The secret is random per run, lives only in a 0600 file and is never printed.
mkdir -m 700 "$TMP/secret"
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$TMP/secret/key"
chmod 600 "$TMP/secret/key"
"$TMP/kamuidash-router" --listen "127.0.0.1:$ROUTER_PORT" --admin-listen "127.0.0.1:$ADMIN_PORT" \
  --secret-file "$TMP/secret/key" --namespace-prefix tenant- --upstream-template '127.0.0.1:{port}' \
  --log-sample-rate 0 --max-skew 2m >"$TMP/router.log" 2>&1 &
PIDS+=($!)
wait_port "$ROUTER_PORT" router

# nginx as a plain keep-alive reverse proxy, in the foreground, with every path under $TMP.
mkdir -p "$TMP/nginx"
chmod 711 "$TMP"
user_line=""
[ "$(id -u)" = 0 ] && id www-data >/dev/null 2>&1 && user_line="user www-data;"
cat >"$TMP/nginx/nginx.conf" <<CONF
$user_line
daemon off;
worker_processes auto;
pid $TMP/nginx/nginx.pid;
error_log $TMP/nginx/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $TMP/nginx/client_body;
  proxy_temp_path $TMP/nginx/proxy;
  fastcgi_temp_path $TMP/nginx/fastcgi;
  uwsgi_temp_path $TMP/nginx/uwsgi;
  scgi_temp_path $TMP/nginx/scgi;
  upstream backend {
    server 127.0.0.1:$BACKEND_PORT;
    keepalive 64;
  }
  server {
    listen 127.0.0.1:$NGINX_PORT;
    location / {
      proxy_pass http://backend;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host \$host;
      proxy_set_header X-Forwarded-For \$remote_addr;
    }
  }
}
CONF
"$NGINX" -p "$TMP/nginx" -c "$TMP/nginx/nginx.conf" -e "$TMP/nginx/error.log" &
PIDS+=($!)
wait_port "$NGINX_PORT" nginx

# run_wrk <name> <port> <duration> <lua>: prints "<rps> <p50_ms> <p99_ms>", fails on any error.
run_wrk() {
  local out
  out=$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"$3" --latency -s "$4" "http://127.0.0.1:$2/")
  if grep -qE 'Non-2xx|Socket errors' <<<"$out"; then
    log "$1: wrk reported errors:"
    echo "$out" >&2
    exit 1
  fi
  awk '
    function ms(v) {
      if (v ~ /us$/) return v / 1000
      if (v ~ /ms$/) return v + 0
      if (v ~ /s$/) return v * 1000
      return v
    }
    $1 == "50%" { p50 = ms($2) }
    $1 == "99%" { p99 = ms($2) }
    $1 == "Requests/sec:" { rps = $2 }
    END { if (rps == "" || p99 == "") exit 1; printf "%.2f %.3f %.3f\n", rps, p50, p99 }
  ' <<<"$out"
}

# Sign right before each run, so the context is fresh for the whole of it.
router_lua() {
  "$TMP/benchtool" wrk-script -secret-file "$TMP/secret/key" -method GET -host "$HOST" \
    -app bench -upstream "tenant-bench/web:$BACKEND_PORT" -request-id bench-run >"$TMP/router.lua"
}
echo 'wrk.method = "GET"' >"$TMP/nginx.lua"
echo "wrk.headers[\"Host\"] = \"$HOST\"" >>"$TMP/nginx.lua"

log "load: wrk -t$THREADS -c$CONNECTIONS -d$DURATION (warm-up $WARMUP), $ROUNDS rounds, alternating"
router_lua
run_wrk router "$ROUTER_PORT" "$WARMUP" "$TMP/router.lua" >/dev/null
run_wrk nginx "$NGINX_PORT" "$WARMUP" "$TMP/nginx.lua" >/dev/null

best_router="0 0 0" best_nginx="0 0 0"
better() { awk -v a="$1" -v b="$2" 'BEGIN { split(a, x, " "); split(b, y, " "); exit !(x[1] > y[1]) }'; }
for round in $(seq "$ROUNDS"); do
  router_lua
  r=$(run_wrk router "$ROUTER_PORT" "$DURATION" "$TMP/router.lua")
  n=$(run_wrk nginx "$NGINX_PORT" "$DURATION" "$TMP/nginx.lua")
  read -r rr rp50 rp99 <<<"$r"
  read -r nr np50 np99 <<<"$n"
  printf 'round %d  router: %10s req/s  p50 %7s ms  p99 %7s ms | nginx: %10s req/s  p50 %7s ms  p99 %7s ms\n' \
    "$round" "$rr" "$rp50" "$rp99" "$nr" "$np50" "$np99"
  better "$r" "$best_router" && best_router=$r
  better "$n" "$best_nginx" && best_nginx=$n
done

read -r rr rp50 rp99 <<<"$best_router"
read -r nr np50 np99 <<<"$best_nginx"
printf 'best    router: %10s req/s  p50 %7s ms  p99 %7s ms | nginx: %10s req/s  p50 %7s ms  p99 %7s ms\n' \
  "$rr" "$rp50" "$rp99" "$nr" "$np50" "$np99"
if grep -q '"level":"ERROR"\|"level":"WARN"' "$TMP/router.log"; then
  log "the router logged failures during the run:"
  grep '"level":"ERROR"\|"level":"WARN"' "$TMP/router.log" | head -5 >&2
  exit 1
fi
awk -v rr="$rr" -v nr="$nr" -v rp="$rp99" -v np="$np99" \
  'BEGIN { printf "bench-router: rps_vs_nginx=%.2f p99_vs_nginx=%.2f\n", rr / nr, rp / np }'
