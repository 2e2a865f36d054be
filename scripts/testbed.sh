#!/usr/bin/env bash
# A multi-host Spark standalone cluster on one machine, for the benchmarks.
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
#   --cores-list C1,C2,...  heterogeneous hosts: worker i gets Ci cores (one entry per worker;
#                    namespaces only, local-cluster cannot mix sizes). Sleep tasks need no real
#                    CPU, so the cores may exceed the machine's.
#   --network fast|congested [fast]   congested = every host link shaped to --rate (tbf, both ways)
#   --rate R [100mbit]
#   --state DIR [target/bench/testbed]
#   --prefix P [eb]  names of the bridge (P-br), veths (P-vN / P-pN) and namespaces (P-wN)
#   --subnet N [77]  the private /24 10.N.0.0/24: bridge 10.N.0.1 (master and driver), worker i at
#                    10.N.0.(10+i). Nothing outside this subnet and loopback is ever addressed.
#   --local          skip namespaces and use local-cluster[W,C,M] (also the automatic fallback
#                    when namespaces cannot be created, e.g. without root)
#   --eagle-daemons  cluster mode: one eagle-node in each worker namespace (on the
#                    worker's address, port 7101, named by that address) and eagle-central on the
#                    bridge address (port 7100), all stopped by 'down'; with local-cluster, on
#                    127.0.0.1 (nodes on 7101, 7102, ...). Binaries from scripts/eagle-cluster.sh build.
#   --eagle-slots N [--cores]  --eagle-policy eagle-adaptive|eagle|hawk|sparrow [eagle-adaptive]  --eagle-lease-ms MS [3000]
#   --eagle-slots-list N,...  node i's slots (hosts of different sizes; one entry per worker)
#   --eagle-placement lwl|lotes [lwl]  eagle-central's placement of long tasks
#   --host-cpu shared|isolated [shared]  isolated = a cpu cgroup of its own for each worker host (its
#                    worker, the executors it starts and its eagle-node), all of equal weight beside
#                    each driver's: hosts then share the machine's cores as separate machines would
#                    own theirs (one host's JIT or GC cannot take another's share under contention;
#                    a host's unused share goes to the busy ones). Needs a writable cpu cgroup
#                    (v1 /sys/fs/cgroup/cpu, or v2 with the cpu controller); namespaces only.
#   --eagle-short-partition fixed|adaptive|slots|share [fixed]  eagle-central's short partition: the
#                    paper's share, or grown to the drivers' short load (whole hosts, or slots
#                    kept on every host)
#   --eagle-long-headroom F  eagle-central's --long-headroom: the share of the general hosts no one
#                    long job's tasks go to [its own default, 0.1, under --eagle-policy eagle-adaptive, else 0]
#   --eagle-steal-fraction F  eagle-adaptive nodes' --steal-fraction: the budget of the steal before
#                    long work, a share of a host's slot-time [the node's default, 0.05; 0 turns it off]
#
# Each worker runs in its own network namespace behind a veth on a bridge in the root namespace,
# so Spark sees W distinct hosts and PROCESS_LOCAL / NODE_LOCAL / ANY mean something. netem is
# not available on this kernel, so only bandwidth is shaped (tbf), no latency is added.
#
# testbed.env (shell syntax, also read by bench/testbed.py):
#   TB_MODE=netns|local-cluster  TB_MASTER=spark://10.77.0.1:7077 | local-cluster[W,C,M]
#   TB_DRIVER_HOST  TB_HOSTS  TB_SLOTS  TB_CORES  TB_WORKERS  TB_NETWORK  TB_WORKER_MEMORY  TB_NOTE
#   with --eagle-daemons also: TB_EAGLE_CENTRAL=host:port  TB_EAGLE_NODES='name=host:port,...'
#   TB_EAGLE_SECRET (the shared secret file)  TB_EAGLE_SLOTS  TB_EAGLE_POLICY  TB_EAGLE_SLOTS_LIST
#   TB_EAGLE_PLACEMENT
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export SPARK_HOME="${SPARK_HOME:-$ROOT/.venv/lib/python3.11/site-packages/pyspark}"
export SPARK_SCALA_VERSION="${SPARK_SCALA_VERSION:-2.13}"
export SPARK_DAEMON_MEMORY="${SPARK_DAEMON_MEMORY:-256m}"

WORKERS=4 CORES=2 MEMORY=1g NETWORK=fast RATE=100mbit STATE="$ROOT/target/bench/testbed"
PREFIX=eb SUBNET=77 FORCE_LOCAL=0 CORES_LIST=""
EAGLE=0 EAGLE_SLOTS="" EAGLE_POLICY=eagle-adaptive EAGLE_LEASE_MS=3000 EAGLE_CENTRAL_PORT=7100 EAGLE_NODE_PORT=7101
EAGLE_SLOTS_LIST="" EAGLE_PLACEMENT=lwl EAGLE_SHORT_PARTITION=fixed HOST_CPU=shared EAGLE_LONG_HEADROOM="" EAGLE_STEAL_FRACTION=""
CMD=()
ACTION="${1:-}"
[ $# -gt 0 ] && shift
while [ $# -gt 0 ]; do
  case "$1" in
    --workers) WORKERS="$2"; shift 2 ;;
    --cores) CORES="$2"; shift 2 ;;
    --cores-list) CORES_LIST="$2"; shift 2 ;;
    --memory) MEMORY="$2"; shift 2 ;;
    --network) NETWORK="$2"; shift 2 ;;
    --rate) RATE="$2"; shift 2 ;;
    --state) STATE="$2"; shift 2 ;;
    --prefix) PREFIX="$2"; shift 2 ;;
    --subnet) SUBNET="$2"; shift 2 ;;
    --local) FORCE_LOCAL=1; shift ;;
    --host-cpu) HOST_CPU="$2"; shift 2 ;;
    --eagle-daemons) EAGLE=1; shift ;;
    --eagle-slots) EAGLE_SLOTS="$2"; shift 2 ;;
    --eagle-policy) EAGLE_POLICY="$2"; shift 2 ;;
    --eagle-slots-list) EAGLE_SLOTS_LIST="$2"; shift 2 ;;
    --eagle-placement) EAGLE_PLACEMENT="$2"; shift 2 ;;
    --eagle-short-partition) EAGLE_SHORT_PARTITION="$2"; shift 2 ;;
    --eagle-lease-ms) EAGLE_LEASE_MS="$2"; shift 2 ;;
    --eagle-long-headroom) EAGLE_LONG_HEADROOM="$2"; shift 2 ;;
    --eagle-steal-fraction) EAGLE_STEAL_FRACTION="$2"; shift 2 ;;
    --) shift; CMD=("$@"); break ;;
    *) echo "testbed: unknown option $1" >&2; exit 2 ;;
  esac
done
case "$NETWORK" in fast|congested) ;; *) echo "testbed: --network must be fast or congested" >&2; exit 2 ;; esac
case "$HOST_CPU" in shared|isolated) ;; *) echo "testbed: --host-cpu must be shared or isolated, got '$HOST_CPU'" >&2; exit 2 ;; esac
[[ "$WORKERS" =~ ^[0-9]+$ && "$WORKERS" -ge 1 && "$WORKERS" -le 200 ]] || { echo "testbed: --workers must be 1..200" >&2; exit 2; }
[[ "$SUBNET" =~ ^[0-9]+$ && "$SUBNET" -ge 0 && "$SUBNET" -le 255 ]] || { echo "testbed: --subnet must be 0..255" >&2; exit 2; }
[[ "$PREFIX" =~ ^[a-z][a-z0-9]{0,5}$ ]] || { echo "testbed: --prefix must be 1-6 lowercase letters/digits" >&2; exit 2; }
if [ -n "$CORES_LIST" ]; then
  [[ "$CORES_LIST" =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || { echo "testbed: --cores-list must be positive integers separated by commas, got '$CORES_LIST'" >&2; exit 2; }
  IFS=, read -r -a CORES_OF <<< "$CORES_LIST"
  [ "${#CORES_OF[@]}" -eq "$WORKERS" ] || { echo "testbed: --cores-list has ${#CORES_OF[@]} entries for --workers $WORKERS" >&2; exit 2; }
fi
# Cores of worker i (1-based).
worker_cores() { if [ -n "$CORES_LIST" ]; then echo "${CORES_OF[$(( $1 - 1 ))]}"; else echo "$CORES"; fi; }
EAGLE_SLOTS="${EAGLE_SLOTS:-$CORES}"
[[ "$EAGLE_SLOTS" =~ ^[0-9]+$ && "$EAGLE_SLOTS" -ge 1 ]] || { echo "testbed: --eagle-slots must be a positive integer" >&2; exit 2; }
case "$EAGLE_POLICY" in eagle|eagle-adaptive|hawk|sparrow) ;; *) echo "testbed: --eagle-policy must be eagle, eagle-adaptive, hawk or sparrow" >&2; exit 2 ;; esac
case "$EAGLE_PLACEMENT" in lwl|lotes) ;; *) echo "testbed: --eagle-placement must be lwl or lotes, got '$EAGLE_PLACEMENT'" >&2; exit 2 ;; esac
case "$EAGLE_SHORT_PARTITION" in fixed|adaptive|slots|share) ;; *) echo "testbed: --eagle-short-partition must be fixed, adaptive, slots or share, got '$EAGLE_SHORT_PARTITION'" >&2; exit 2 ;; esac
# eagle-central's own default (0.1) is eagle-adaptive's; the papers' policies place over every host.
[ -n "$EAGLE_LONG_HEADROOM" ] || [ "$EAGLE_POLICY" = eagle-adaptive ] || EAGLE_LONG_HEADROOM=0
[ -z "$EAGLE_LONG_HEADROOM" ] || [[ "$EAGLE_LONG_HEADROOM" =~ ^0(\.[0-9]+)?$ ]] || { echo "testbed: --eagle-long-headroom must be a number in [0, 1), got '$EAGLE_LONG_HEADROOM'" >&2; exit 2; }
[ -z "$EAGLE_STEAL_FRACTION" ] || [[ "$EAGLE_STEAL_FRACTION" =~ ^(0(\.[0-9]+)?|1(\.0*)?)$ ]] || { echo "testbed: --eagle-steal-fraction must be a number in [0, 1], got '$EAGLE_STEAL_FRACTION'" >&2; exit 2; }
if [ -n "$EAGLE_SLOTS_LIST" ]; then
  [[ "$EAGLE_SLOTS_LIST" =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || { echo "testbed: --eagle-slots-list must be positive integers separated by commas, got '$EAGLE_SLOTS_LIST'" >&2; exit 2; }
  IFS=, read -r -a EAGLE_SLOTS_OF <<< "$EAGLE_SLOTS_LIST"
  [ "${#EAGLE_SLOTS_OF[@]}" -eq "$WORKERS" ] || { echo "testbed: --eagle-slots-list has ${#EAGLE_SLOTS_OF[@]} entries for --workers $WORKERS" >&2; exit 2; }
fi
# Slots of node i (1-based).
node_slots() { if [ -n "$EAGLE_SLOTS_LIST" ]; then echo "${EAGLE_SLOTS_OF[$(( $1 - 1 ))]}"; else echo "$EAGLE_SLOTS"; fi; }
[[ "$EAGLE_LEASE_MS" =~ ^[0-9]+$ && "$EAGLE_LEASE_MS" -ge 10 ]] || { echo "testbed: --eagle-lease-ms must be an integer >= 10" >&2; exit 2; }

NET="10.$SUBNET.0"
BRIDGE="$PREFIX-br"
MASTER_IP="$NET.1"
MASTER_PORT=7077
MASTER_UI=18080
mem_mb() { local m="$1"; case "$m" in *g|*G) echo $(( ${m%[gG]} * 1024 ));; *m|*M) echo "${m%[mM]}";; *) echo "$m";; esac; }

log() { printf '[testbed] %s\n' "$*" >&2; }

# ---- --host-cpu isolated: a cpu cgroup for each worker host -----------------------------------------
# The mounted cpu hierarchy: cgroup v1's 'cpu', or v2's root with the cpu controller. Each host's
# group keeps the default weight, which is also what each driver's session (an autogroup) has.
cpu_cgroup_root() {
  if [ -w /sys/fs/cgroup/cpu/cgroup.procs ]; then echo /sys/fs/cgroup/cpu; return 0; fi
  if [ -f /sys/fs/cgroup/cgroup.controllers ] && grep -qw cpu /sys/fs/cgroup/cgroup.controllers; then
    grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control || echo +cpu > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null || return 1
    echo /sys/fs/cgroup; return 0
  fi
  return 1
}
# The command prefix that starts a process in worker i's group (nothing when hosts share the CPU).
# It goes before 'ip netns exec', which mounts a sysfs of the namespace's own over /sys.
host_cpu_prefix() {
  [ "$HOST_CPU" = isolated ] || return 0
  printf '%s\0' sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$CG_ROOT/$PREFIX-w$1"
}
remove_host_cgroups() {
  local root d
  root="$(cpu_cgroup_root 2>/dev/null)" || return 0
  for d in "$root/$PREFIX"-w*; do
    [ -d "$d" ] || continue
    for _ in $(seq 1 20); do rmdir "$d" 2>/dev/null && break; sleep 0.25; done
    [ -d "$d" ] && log "cpu cgroup $d still has processes: $(tr '\n' ' ' < "$d/cgroup.procs")" || true
  done
}

# Worker namespaces and host-side interfaces with our prefix's names.
our_namespaces() { ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^$PREFIX-w[0-9]+$" || true; }
our_links() {
  ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | sed 's/@.*//' | grep -E "^$PREFIX-(v[0-9]+|p[0-9]+|br)$" || true
}

# What an earlier testbed of this prefix left behind without its state file (a bring-up killed
# before its own teardown ran, a host rebooted mid-down, a down run with another --state): with
# no process in any of its namespaces it is stale and goes, with a line naming it. A namespace
# that still runs a process belongs to a live testbed: refuse, and touch nothing.
clear_stale() {
  local ns busy=() stale=()
  for ns in $(our_namespaces); do
    if [ -n "$(ip netns pids "$ns" 2>/dev/null)" ]; then busy+=("$ns"); else stale+=("$ns"); fi
  done
  if [ ${#busy[@]} -gt 0 ]; then
    log "namespace(s) ${busy[*]} still run processes: a testbed with prefix '$PREFIX' is live; run: scripts/testbed.sh down --prefix $PREFIX (or pick another --prefix)"
    exit 3
  fi
  local links; mapfile -t links < <(our_links)
  [ ${#stale[@]} -gt 0 ] || [ ${#links[@]} -gt 0 ] || return 0
  log "removing stale leftovers of an earlier testbed with prefix '$PREFIX': ${stale[*]} ${links[*]}"
  for ns in "${stale[@]}"; do ip netns del "$ns" 2>/dev/null || true; done
  local l
  for l in "${links[@]}"; do ip link del "$l" 2>/dev/null || true; done
}

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
  for ns in $(our_namespaces); do
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
  for l in $(our_links); do
    ip link del "$l" 2>/dev/null || true
  done
  remove_host_cgroups
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
  (cd "$ROOT" && "$PY" -m bench.spark_master "$url")
}

write_env() { # mode master hosts note
  local slots=0 i
  for i in $(seq 1 "$WORKERS"); do slots=$(( slots + $(worker_cores "$i") )); done
  cat > "$STATE/testbed.env" <<EOF
TB_MODE=$1
TB_MASTER='$2'
TB_DRIVER_HOST=$3
TB_HOSTS=$WORKERS
TB_WORKERS=$WORKERS
TB_CORES=$CORES
TB_SLOTS=$slots
TB_CORES_LIST='$CORES_LIST'
TB_WORKER_MEMORY=$MEMORY
TB_NETWORK=$5
TB_HOST_CPU=$HOST_CPU
TB_WORKER_IPS='$6'
TB_NOTE='$4'
TB_STATE='$STATE'
EOF
}

# ---- cluster mode daemons (--eagle-daemons) -------------------------------------------------------
# One eagle-node per address (inside worker namespace i when netns), then eagle-central. Every pid
# goes to STATE/pids, so 'down' (and a failed 'up') stops them, before the workers.
start_eagle() { # mode central-addr node-addr...
  local mode="$1" central="$2"; shift 2
  local bin secret="$STATE/eagle.secret" logs="$STATE/logs" list="" addr i=0
  bin="$(bash "$ROOT/scripts/eagle-cluster.sh" build)"
  mkdir -p "$logs"
  (umask 077 && head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$secret")
  # Named as Spark names the executor's host (the worker's address); on 127.0.0.1, with the port.
  for addr in "$@"; do
    local name="$addr"
    [ "$mode" = netns ] && name="${addr%:*}"
    list="$list${list:+,}$name=$addr"
  done
  for addr in "$@"; do
    i=$((i + 1))
    local run=() extra=() peers
    [ "$mode" = netns ] && mapfile -d '' run < <(host_cpu_prefix "$i") && run+=(ip netns exec "$PREFIX-w$i")
    peers="$(printf '%s\n' "$@" | grep -vxF "$addr" | paste -sd, - || true)"
    # Hawk steals from idle nodes; eagle-adaptive before long work (docs/guide/cluster-mode.md).
    case "$EAGLE_POLICY" in hawk|eagle-adaptive) [ -n "$peers" ] && extra=(--peers "$peers") ;; esac
    [ "$EAGLE_POLICY" = eagle-adaptive ] && [ -n "$EAGLE_STEAL_FRACTION" ] && extra+=(--steal-fraction "$EAGLE_STEAL_FRACTION")
    "${run[@]}" env RUST_LOG="${RUST_LOG:-info}" nohup "$bin/eagle-node" --slots "$(node_slots "$i")" --listen "$addr" \
      --secret-file "$secret" --policy "$EAGLE_POLICY" --lease-ms "$EAGLE_LEASE_MS" "${extra[@]}" \
      > "$logs/eagle-node$i.log" 2>&1 < /dev/null &
    echo "$! eagle-node$i@$addr" >> "$STATE/pids"
  done
  local ping=$(( EAGLE_LEASE_MS / 4 < 500 ? EAGLE_LEASE_MS / 4 + 1 : 500 ))
  RUST_LOG="${RUST_LOG:-info}" nohup "$bin/eagle-central" --listen "$central" --secret-file "$secret" --nodes "$list" \
    --placement "$EAGLE_PLACEMENT" --short-partition "$EAGLE_SHORT_PARTITION" ${EAGLE_LONG_HEADROOM:+--long-headroom "$EAGLE_LONG_HEADROOM"} \
    --ping-ms "$ping" > "$logs/eagle-central.log" 2>&1 < /dev/null &
  echo "$! eagle-central@$central" >> "$STATE/pids"
  for addr in "$@"; do
    wait_for 30 "eagle-node on $addr (logs in $logs)" "$bin/eagle-node" --status "$addr" --secret-file "$secret"
  done
  wait_for 30 "eagle-central on $central to link all $# nodes (log $logs/eagle-central.log)" \
    bash -c '"$1" --status "$2" --secret-file "$3" | grep -q " nodes=$4/$4 "' _ "$bin/eagle-central" "$central" "$secret" "$#"
  {
    echo "TB_EAGLE_CENTRAL=$central"
    echo "TB_EAGLE_NODES='$list'"
    echo "TB_EAGLE_SECRET='$secret'"
    echo "TB_EAGLE_SLOTS=$EAGLE_SLOTS"
    echo "TB_EAGLE_POLICY=$EAGLE_POLICY"
    echo "TB_EAGLE_SLOTS_LIST=$EAGLE_SLOTS_LIST"
    echo "TB_EAGLE_PLACEMENT=$EAGLE_PLACEMENT"
    echo "TB_EAGLE_SHORT_PARTITION=$EAGLE_SHORT_PARTITION"
  } >> "$STATE/testbed.env"
  log "eagle: central $central, $# nodes x ${EAGLE_SLOTS_LIST:-$EAGLE_SLOTS} slots, policy $EAGLE_POLICY, placement $EAGLE_PLACEMENT, short partition $EAGLE_SHORT_PARTITION, long headroom ${EAGLE_LONG_HEADROOM:-the eagle-central default}"
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
  netns_possible && [ "$FORCE_LOCAL" != 1 ] && clear_stale
  : > "$STATE/pids"
  PY="$ROOT/.venv/bin/python"; [ -x "$PY" ] || PY=python3
  local memmb; memmb=$(mem_mb "$MEMORY")
  if [ -n "$CORES_LIST" ] && { [ "$FORCE_LOCAL" = 1 ] || ! netns_possible; }; then
    log "--cores-list needs network namespaces (root, iproute2): local-cluster gives every worker the same cores"
    rm -f "$STATE/pids"
    exit 2
  fi
  if [ "$HOST_CPU" = isolated ] && { [ "$FORCE_LOCAL" = 1 ] || ! netns_possible; }; then
    log "--host-cpu isolated needs network namespaces (root, iproute2): local-cluster runs every executor under one process"
    rm -f "$STATE/pids"
    exit 2
  fi
  if [ "$HOST_CPU" = isolated ]; then
    CG_ROOT="$(cpu_cgroup_root)" || {
      log "--host-cpu isolated needs a writable cpu cgroup (v1 /sys/fs/cgroup/cpu, or v2 with the cpu controller); found neither"
      rm -f "$STATE/pids"
      exit 2
    }
  fi
  if [ "$FORCE_LOCAL" = 1 ] || ! netns_possible; then
    local why="requested with --local"
    [ "$FORCE_LOCAL" = 1 ] || why="network namespaces are not available (need root and iproute2 'ip netns')"
    local note="FALLBACK: $why; using local-cluster[$WORKERS,$CORES,$memmb]: one host, locality levels and --network shaping do not apply"
    log "$note"
    write_env local-cluster "local-cluster[$WORKERS,$CORES,$memmb]" 127.0.0.1 "$note" none ""
    if [ "$EAGLE" = 1 ]; then
      trap 'rc=$?; log "bring-up failed (exit $rc); tearing down"; down; exit $rc' ERR INT TERM
      local addrs=() i
      for i in $(seq 1 "$WORKERS"); do addrs+=("127.0.0.1:$((EAGLE_NODE_PORT + i - 1))"); done
      start_eagle local "127.0.0.1:$EAGLE_CENTRAL_PORT" "${addrs[@]}"
      trap - ERR INT TERM
    else
      rm -f "$STATE/pids"
    fi
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
    if [ "$HOST_CPU" = isolated ]; then mkdir -p "$CG_ROOT/$ns"; fi
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
    local cg=(); mapfile -d '' cg < <(host_cpu_prefix "$i")
    "${cg[@]}" ip netns exec "$ns" env SPARK_LOCAL_IP="$ip" SPARK_LOCAL_HOSTNAME="$ip" SPARK_LOCAL_DIRS="$wdir/local" SPARK_WORKER_DIR="$wdir/work" \
      nohup "$SPARK_HOME/bin/spark-class" org.apache.spark.deploy.worker.Worker \
      --host "$ip" --cores "$(worker_cores "$i")" --memory "$MEMORY" --work-dir "$wdir/work" --webui-port 8081 \
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
  [ "$HOST_CPU" = isolated ] && shaped="$shaped; a cpu cgroup per host"
  write_env netns "spark://$MASTER_IP:$MASTER_PORT" "$MASTER_IP" \
    "$WORKERS hosts in network namespaces on $NET.0/24 ($shaped)" "$NETWORK" "$ips"
  if [ "$EAGLE" = 1 ]; then
    trap 'rc=$?; log "bring-up failed (exit $rc); tearing down"; down; exit $rc' ERR INT TERM
    local addrs=() wip
    for wip in $ips; do addrs+=("$wip:$EAGLE_NODE_PORT"); done
    start_eagle netns "$MASTER_IP:$EAGLE_CENTRAL_PORT" "${addrs[@]}"
    trap - ERR INT TERM
  fi
  log "up: $WORKERS workers x ${CORES_LIST:-$CORES} cores registered"
  cat "$STATE/testbed.env"
}

status() {
  [ -f "$STATE/testbed.env" ] && cat "$STATE/testbed.env" || echo "no testbed.env in $STATE"
  [ -f "$STATE/pids" ] && while read -r pid what; do
    if kill -0 "$pid" 2>/dev/null; then echo "alive: $what pid $pid"; else echo "dead: $what pid $pid"; fi
  done < "$STATE/pids"
  ip netns list 2>/dev/null | grep -E "^$PREFIX-w" || true
  if [ -f "$STATE/testbed.env" ] && grep -q '^TB_EAGLE_CENTRAL=' "$STATE/testbed.env"; then
    local TB_EAGLE_CENTRAL TB_EAGLE_NODES TB_EAGLE_SECRET TB_EAGLE_SLOTS TB_EAGLE_POLICY e bin="$ROOT/target/release"
    eval "$(grep '^TB_EAGLE_' "$STATE/testbed.env")"
    for e in ${TB_EAGLE_NODES//,/ }; do "$bin/eagle-node" --status "${e#*=}" --secret-file "$TB_EAGLE_SECRET" 2>&1 || true; done
    "$bin/eagle-central" --status "$TB_EAGLE_CENTRAL" --secret-file "$TB_EAGLE_SECRET" 2>&1 || true
  fi
}

# The benchmark's testbed (prefix eb) belongs to the scripts/bench that holds the bench lock
# (bench/harness.py, hold_machine): run by hand, up, down or run would tear it down mid-run.
# The bench's own calls pass that lock's open file as EAGLE_BENCH_LOCK_FD, which takes the
# lock again at once; anyone else only checks it (the lock is not kept, so a testbed brought up
# by hand never holds a later bench off), and stops if it is held.
guard_bench_lock() {
  [ "$PREFIX" = eb ] && command -v flock > /dev/null || return 0
  local lock="${EAGLE_BENCH_LOCK:-/tmp/eagle-spark-bench.lock}" fd="${EAGLE_BENCH_LOCK_FD:-}" rc=0
  if [[ "$fd" =~ ^[0-9]+$ ]] && [ "$fd" -gt 2 ] && flock -n "$fd" 2> /dev/null; then
    eval "exec $fd>&-"          # the processes started below must not keep the bench's lock
    return 0
  fi
  [ -r "$lock" ] || return 0
  { flock -n 9 || rc=$?; } 9< "$lock"
  if [ $rc -ne 0 ]; then
    log "a scripts/bench holds $lock ($(head -c 300 "$lock" | tr -d '\n')): '$ACTION' would tear its" \
      "testbed (prefix eb) down mid-run; wait for it or stop it, or use another --prefix and --subnet"
    exit 1
  fi
}

case "$ACTION" in
  up|down|run) guard_bench_lock ;;
esac
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
  *) sed -n '2,36p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
