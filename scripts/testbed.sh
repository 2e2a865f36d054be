#!/usr/bin/env bash
# A multi-host Spark standalone cluster on one machine, for the benchmarks (issue 4).
#
#   scripts/testbed.sh up   [options]   start master + W workers, write STATE/testbed.env, print it
#   scripts/testbed.sh down [options]   stop every process it started (by pid), delete its
#                                       namespaces, veths and bridge
#   scripts/testbed.sh run  [options] -- CMD ARGS...
#                                       up, run CMD with the testbed.env variables exported, then
#                                       down, whatever happens (trap on EXIT/INT/TERM)
#   scripts/testbed.sh status [options] print testbed.env and what is still alive
#
# Options (defaults in brackets):
#   --workers W [4]  --cores C [2]  --memory M (worker memory) [1g]
#   --network fast|congested [fast]   congested = every host link shaped to --rate (tbf, both ways)
#   --rate R [100mbit]
#   --state DIR [target/bench/testbed]
#   --prefix P [eb]  names of the bridge (P-br), veths (P-vN / P-pN) and namespaces (P-wN)
#   --subnet N [77]  the private /24 10.N.0.0/24: bridge 10.N.0.1 (master and driver), worker i at
#                    10.N.0.(10+i). Nothing outside this subnet and loopback is ever addressed.
#   --local          skip namespaces and use local-cluster[W,C,M] (also the automatic fallback
#                    when namespaces cannot be created, e.g. without root)
#
# Each worker runs in its own network namespace behind a veth on a bridge in the root namespace,
# so Spark sees W distinct hosts and PROCESS_LOCAL / NODE_LOCAL / ANY mean something. netem is
# not available on this kernel, so only bandwidth is shaped (tbf), no latency is added.
#
# testbed.env (shell syntax, also read by bench/testbed.py):
#   TB_MODE=netns|local-cluster  TB_MASTER=spark://10.77.0.1:7077 | local-cluster[W,C,M]
#   TB_DRIVER_HOST  TB_HOSTS  TB_SLOTS  TB_CORES  TB_WORKERS  TB_NETWORK  TB_WORKER_MEMORY  TB_NOTE
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export SPARK_HOME="${SPARK_HOME:-$ROOT/.venv/lib/python3.11/site-packages/pyspark}"
export SPARK_SCALA_VERSION="${SPARK_SCALA_VERSION:-2.13}"
export SPARK_DAEMON_MEMORY="${SPARK_DAEMON_MEMORY:-256m}"

WORKERS=4 CORES=2 MEMORY=1g NETWORK=fast RATE=100mbit STATE="$ROOT/target/bench/testbed"
PREFIX=eb SUBNET=77 FORCE_LOCAL=0
CMD=()
ACTION="${1:-}"
[ $# -gt 0 ] && shift
while [ $# -gt 0 ]; do
  case "$1" in
    --workers) WORKERS="$2"; shift 2 ;;
    --cores) CORES="$2"; shift 2 ;;
    --memory) MEMORY="$2"; shift 2 ;;
    --network) NETWORK="$2"; shift 2 ;;
    --rate) RATE="$2"; shift 2 ;;
    --state) STATE="$2"; shift 2 ;;
    --prefix) PREFIX="$2"; shift 2 ;;
    --subnet) SUBNET="$2"; shift 2 ;;
    --local) FORCE_LOCAL=1; shift ;;
    --) shift; CMD=("$@"); break ;;
    *) echo "testbed: unknown option $1" >&2; exit 2 ;;
  esac
done
case "$NETWORK" in fast|congested) ;; *) echo "testbed: --network must be fast or congested" >&2; exit 2 ;; esac
[[ "$WORKERS" =~ ^[0-9]+$ && "$WORKERS" -ge 1 && "$WORKERS" -le 200 ]] || { echo "testbed: --workers must be 1..200" >&2; exit 2; }
[[ "$SUBNET" =~ ^[0-9]+$ && "$SUBNET" -ge 0 && "$SUBNET" -le 255 ]] || { echo "testbed: --subnet must be 0..255" >&2; exit 2; }
[[ "$PREFIX" =~ ^[a-z][a-z0-9]{0,5}$ ]] || { echo "testbed: --prefix must be 1-6 lowercase letters/digits" >&2; exit 2; }

NET="10.$SUBNET.0"
BRIDGE="$PREFIX-br"
MASTER_IP="$NET.1"
MASTER_PORT=7077
MASTER_UI=18080
mem_mb() { local m="$1"; case "$m" in *g|*G) echo $(( ${m%[gG]} * 1024 ));; *m|*M) echo "${m%[mM]}";; *) echo "$m";; esac; }

log() { printf '[testbed] %s\n' "$*" >&2; }

# ---- down: everything recorded in STATE, plus anything with our names ------------------------
down() {
  local pidfile="$STATE/pids"
  if [ -f "$pidfile" ]; then
    # Workers first (they stop their executors), then the master.
    tac "$pidfile" | while read -r pid what; do
      [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null && log "stopping $what (pid $pid)" || true
    done
    for _ in $(seq 1 40); do
      local alive=0
      while read -r pid what; do kill -0 "$pid" 2>/dev/null && alive=1; done < "$pidfile"
      [ $alive = 0 ] && break
      sleep 0.25
    done
    while read -r pid what; do
      if kill -0 "$pid" 2>/dev/null; then log "killing $what (pid $pid)"; kill -KILL "$pid" 2>/dev/null || true; fi
    done < "$pidfile"
  fi
  # Processes still inside our namespaces (executors a worker left behind) are ours too.
  local ns
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^$PREFIX-w[0-9]+$" || true); do
    local pids
    pids=$(ip netns pids "$ns" 2>/dev/null || true)
    if [ -n "$pids" ]; then
      log "stopping leftover processes in $ns: $pids"
      kill -TERM $pids 2>/dev/null || true
      sleep 1
      pids=$(ip netns pids "$ns" 2>/dev/null || true)
      [ -n "$pids" ] && kill -KILL $pids 2>/dev/null || true
    fi
    ip netns del "$ns" 2>/dev/null || true
  done
  local l
  for l in $(ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | sed 's/@.*//' | grep -E "^$PREFIX-(v[0-9]+|br)$" || true); do
    ip link del "$l" 2>/dev/null || true
  done
  rm -f "$pidfile"
  [ -f "$STATE/testbed.env" ] && mv -f "$STATE/testbed.env" "$STATE/testbed.env.down" || true
  log "down"
}

wait_for() { # seconds, description, command...
  local secs="$1" what="$2"; shift 2
  local i
  for i in $(seq 1 $(( secs * 4 ))); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.25
  done
  log "timed out after ${secs}s waiting for $what"
  return 1
}

alive_workers() { # count ALIVE workers registered at the master
  local url="http://$MASTER_IP:$MASTER_UI/json/"
  "$PY" - "$url" <<'EOF'
import json, sys, urllib.request
try:
    d = json.load(urllib.request.urlopen(sys.argv[1], timeout=2))
    print(sum(1 for w in d.get("workers", []) if w.get("state") == "ALIVE"))
except Exception:
    print(0)
EOF
}

write_env() { # mode master hosts note
  local slots=$(( WORKERS * CORES ))
  cat > "$STATE/testbed.env" <<EOF
TB_MODE=$1
TB_MASTER='$2'
TB_DRIVER_HOST=$3
TB_HOSTS=$WORKERS
TB_WORKERS=$WORKERS
TB_CORES=$CORES
TB_SLOTS=$slots
TB_WORKER_MEMORY=$MEMORY
TB_NETWORK=$5
TB_WORKER_IPS='$6'
TB_NOTE='$4'
TB_STATE='$STATE'
EOF
}

netns_possible() {
  [ "$(id -u)" = 0 ] || return 1
  command -v ip >/dev/null || return 1
  local probe="$PREFIX-probe$$"
  ip netns add "$probe" 2>/dev/null || return 1
  ip netns del "$probe" 2>/dev/null || true
  return 0
}

up() {
  mkdir -p "$STATE"
  if [ -f "$STATE/pids" ] || ip link show "$BRIDGE" >/dev/null 2>&1; then
    log "a testbed with prefix '$PREFIX' looks alive (state $STATE); run: scripts/testbed.sh down --prefix $PREFIX --state $STATE"
    exit 3
  fi
  : > "$STATE/pids"
  PY="$ROOT/.venv/bin/python"; [ -x "$PY" ] || PY=python3
  local memmb; memmb=$(mem_mb "$MEMORY")
  if [ "$FORCE_LOCAL" = 1 ] || ! netns_possible; then
    local why="requested with --local"
    [ "$FORCE_LOCAL" = 1 ] || why="network namespaces are not available (need root and iproute2 'ip netns')"
    local note="FALLBACK: $why; using local-cluster[$WORKERS,$CORES,$memmb]: one host, locality levels and --network shaping do not apply"
    log "$note"
    write_env local-cluster "local-cluster[$WORKERS,$CORES,$memmb]" 127.0.0.1 "$note" none ""
    rm -f "$STATE/pids"
    cat "$STATE/testbed.env"
    return 0
  fi
  # If anything below fails, tear down what was built so far.
  trap 'rc=$?; log "bring-up failed (exit $rc); tearing down"; down; exit $rc' ERR INT TERM

  log "bridge $BRIDGE $MASTER_IP/24, $WORKERS worker namespaces, network=$NETWORK"
  ip link add "$BRIDGE" type bridge
  ip addr add "$MASTER_IP/24" dev "$BRIDGE"
  ip link set "$BRIDGE" up
  local i ips=""
  for i in $(seq 1 "$WORKERS"); do
    local ns="$PREFIX-w$i" v="$PREFIX-v$i" p="$PREFIX-p$i" ip="$NET.$((10 + i))"
    ip netns add "$ns"
    ip link add "$v" type veth peer name "$p"
    ip link set "$p" netns "$ns"
    ip link set "$v" master "$BRIDGE"
    ip link set "$v" up
    ip -n "$ns" link set lo up
    ip -n "$ns" link set "$p" name eth0
    ip -n "$ns" addr add "$ip/24" dev eth0
    ip -n "$ns" link set eth0 up
    if [ "$NETWORK" = congested ]; then
      # tbf on both ends: host-side egress (into the worker) and namespace-side egress (out of it).
      tc qdisc add dev "$v" root tbf rate "$RATE" burst 256kb latency 50ms
      tc -n "$ns" qdisc add dev eth0 root tbf rate "$RATE" burst 256kb latency 50ms
    fi
    ips="$ips $ip"
  done
  ips="${ips# }"

  local logs="$STATE/logs"; mkdir -p "$logs"
  log "master spark://$MASTER_IP:$MASTER_PORT (ui $MASTER_UI)"
  SPARK_LOCAL_IP="$MASTER_IP" SPARK_LOCAL_HOSTNAME="$MASTER_IP" nohup "$SPARK_HOME/bin/spark-class" org.apache.spark.deploy.master.Master \
    --host "$MASTER_IP" --port "$MASTER_PORT" --webui-port "$MASTER_UI" > "$logs/master.log" 2>&1 &
  echo "$! master" >> "$STATE/pids"
  wait_for 60 "the master on $MASTER_IP:$MASTER_PORT" bash -c "exec 3<>/dev/tcp/$MASTER_IP/$MASTER_PORT"
  # Every namespace reaches the master over its veth and the bridge.
  for i in $(seq 1 "$WORKERS"); do
    wait_for 15 "a connection from $PREFIX-w$i to the master" \
      ip netns exec "$PREFIX-w$i" bash -c "exec 3<>/dev/tcp/$MASTER_IP/$MASTER_PORT"
  done
  for i in $(seq 1 "$WORKERS"); do
    local ns="$PREFIX-w$i" ip="$NET.$((10 + i))" wdir="$STATE/w$i"
    mkdir -p "$wdir/work" "$wdir/local"
    ip netns exec "$ns" env SPARK_LOCAL_IP="$ip" SPARK_LOCAL_HOSTNAME="$ip" SPARK_LOCAL_DIRS="$wdir/local" SPARK_WORKER_DIR="$wdir/work" \
      nohup "$SPARK_HOME/bin/spark-class" org.apache.spark.deploy.worker.Worker \
      --host "$ip" --cores "$CORES" --memory "$MEMORY" --work-dir "$wdir/work" --webui-port 8081 \
      "spark://$MASTER_IP:$MASTER_PORT" > "$logs/worker$i.log" 2>&1 &
    echo "$! worker$i@$ip" >> "$STATE/pids"
  done
  local n=0
  for _ in $(seq 1 240); do
    n=$(alive_workers)
    [ "$n" -ge "$WORKERS" ] && break
    sleep 0.5
  done
  if [ "$n" -lt "$WORKERS" ]; then
    log "only $n of $WORKERS workers registered within 120 s (logs in $logs)"
    false
  fi
  trap - ERR INT TERM
  local shaped="unshaped"
  [ "$NETWORK" = congested ] && shaped="tbf $RATE per host, both directions"
  write_env netns "spark://$MASTER_IP:$MASTER_PORT" "$MASTER_IP" \
    "$WORKERS hosts in network namespaces on $NET.0/24 ($shaped)" "$NETWORK" "$ips"
  log "up: $WORKERS workers x $CORES cores registered"
  cat "$STATE/testbed.env"
}

status() {
  [ -f "$STATE/testbed.env" ] && cat "$STATE/testbed.env" || echo "no testbed.env in $STATE"
  [ -f "$STATE/pids" ] && while read -r pid what; do
    if kill -0 "$pid" 2>/dev/null; then echo "alive: $what pid $pid"; else echo "dead: $what pid $pid"; fi
  done < "$STATE/pids"
  ip netns list 2>/dev/null | grep -E "^$PREFIX-w" || true
}

case "$ACTION" in
  up) up ;;
  down) down ;;
  status) status ;;
  run)
    [ ${#CMD[@]} -gt 0 ] || { echo "testbed run: give a command after --" >&2; exit 2; }
    trap 'down' EXIT
    trap 'exit 130' INT TERM
    up > /dev/null
    set -a; . "$STATE/testbed.env"; set +a
    rc=0
    "${CMD[@]}" || rc=$?
    exit $rc
    ;;
  *) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
