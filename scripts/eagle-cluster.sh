#!/usr/bin/env bash
# Cluster mode daemons next to a Spark standalone cluster: one eagle-node per worker
# host, one eagle-central.
#
#   scripts/eagle-cluster.sh start  [options]  start what is not running (idempotent): the nodes,
#                                              then the central; waits until each answers a status
#   scripts/eagle-cluster.sh stop   [options]  the central, then the nodes: SIGTERM, SIGKILL after
#                                              --timeout
#   scripts/eagle-cluster.sh status [options]  each daemon's pid and its answer to the wire
#                                              protocol's status request; exit 1 if one is down
#   scripts/eagle-cluster.sh build  [options]  build the release binaries if missing or older than
#                                              their sources; print their directory
#
# Options [defaults]:
#   --hosts H[:PORT],...  worker hosts [the lines of $SPARK_CONF_DIR/workers (or
#                         $SPARK_HOME/conf/workers), else localhost]; a node without :PORT uses
#                         --node-port and is named H in the central's host list, else H:PORT
#   --central H[:PORT]    the host of eagle-central [localhost:7100]
#   --node-port P         [7101]
#   --slots N             slots of every node [the host's cores: nproc, run on that host]
#   --policy eagle-adaptive|eagle|hawk|sparrow [eagle-adaptive]  --lease-ms MS [3000]  --short-fraction F [0.1]
#   --short-partition fixed|adaptive|slots|share [fixed]  eagle-central's short partition: --short-fraction
#                         of the hosts (the paper's), or at least that, grown to the short tasks
#                         the drivers report (adaptive: whole hosts; slots: slots kept on every
#                         host, one per host in turn)
#   --placement lwl|lotes [lwl]  how eagle-central places long tasks: least work left, or LoTES's
#                         plan over the hosts' sizes (hosts of different --slots, e.g. the
#                         default nproc on machines of different sizes)
#   --long-headroom F     the share of the general hosts no one long job's tasks go to (eagle-central
#                         --long-headroom) [its own default, 0.1, under --policy eagle-adaptive, else 0: the papers']
#   --steal-fraction F    eagle-adaptive nodes' budget of the steal (eagle-node --steal-fraction):
#                         stolen short work holds at most this share of a host's slot-time; 0
#                         turns the steal off [eagle-node's default, 0.05]
#   --bind ADDR           listen address of every daemon [the host as given]; e.g. 0.0.0.0
#   --state DIR           pid files, logs/ and the default secret [target/eagle-cluster]
#   --secret-file F       the shared secret [STATE/secret]; created (0600, 32 random bytes as hex)
#                         when missing. Drivers use the same file.
#   --bin DIR             eagle-node and eagle-central [target/release, built with cargo if missing]
#   --timeout S           seconds for a daemon to answer after start, or to exit after SIGTERM [10]
#
# Hosts other than localhost, 127.0.0.1 and this machine's name are reached with $EAGLE_SSH
# [ssh -o BatchMode=yes], as Spark's sbin scripts reach workers: this checkout, --bin, --state and
# the secret file must be at the same paths there (a shared file system, or copied once).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SELF="$ROOT/scripts/eagle-cluster.sh"
log() { printf '[eagle-cluster] %s\n' "$*" >&2; }
die() { log "$*"; exit 2; }

# ---- on one host: start/stop/pid of one daemon (run locally or through $EAGLE_SSH) ------------
is_ours() { # pid kind: the process is alive and runs that binary
  [ -n "$1" ] && kill -0 "$1" 2>/dev/null && tr '\0' ' ' < "/proc/$1/cmdline" 2>/dev/null | grep -q -- "$2"
}

daemon_start() { # kind id state bin secret timeout listen -- args... (slots 'auto' = nproc)
  local kind="$1" id="$2" state="$3" bin="$4" secret="$5" timeout="$6" listen="$7"; shift 8
  local pidf="$state/$id.pid" logf="$state/logs/$id.log" host; host="$(hostname)"
  mkdir -p "$state/logs"
  if [ -f "$pidf" ] && is_ours "$(cat "$pidf")" "$kind"; then
    echo "$id on $host: already running (pid $(cat "$pidf"))"; return 0
  fi
  [ -x "$bin/$kind" ] || { echo "$id on $host: no executable $bin/$kind" >&2; return 1; }
  [ -r "$secret" ] || { echo "$id on $host: cannot read the secret file $secret" >&2; return 1; }
  local args=() a
  for a in "$@"; do [ "$a" = auto ] && a="$(nproc)"; args+=("$a"); done
  echo "--- $(date -u +%FT%TZ) $kind ${args[*]}" >> "$logf"
  RUST_LOG="${RUST_LOG:-info}" nohup "$bin/$kind" "${args[@]}" >> "$logf" 2>&1 < /dev/null &
  local pid=$!
  echo "$pid" > "$pidf"
  local ask="$listen"
  case "$ask" in 0.0.0.0:*) ask="127.0.0.1:${ask##*:}" ;; "[::]:"*) ask="[::1]:${ask##*:}" ;; esac
  local i
  for i in $(seq 1 $(( timeout * 4 ))); do
    if ! kill -0 "$pid" 2>/dev/null; then
      rm -f "$pidf"
      echo "$id on $host: $kind exited at start (listening on $listen); its log $logf ends:" >&2
      tail -n 5 "$logf" | sed 's/^/    /' >&2
      return 1
    fi
    if "$bin/$kind" --status "$ask" --secret-file "$secret" > /dev/null 2>&1; then
      echo "$id on $host: started (pid $pid, $listen)"; return 0
    fi
    sleep 0.25
  done
  echo "$id on $host: $kind (pid $pid) does not answer on $ask after ${timeout}s; log $logf" >&2
  return 1
}

daemon_stop() { # kind id state timeout
  local kind="$1" id="$2" state="$3" timeout="$4" host; host="$(hostname)"
  local pidf="$state/$id.pid"
  [ -f "$pidf" ] || { echo "$id on $host: not running"; return 0; }
  local pid; pid="$(cat "$pidf")"
  if ! is_ours "$pid" "$kind"; then rm -f "$pidf"; echo "$id on $host: not running (stale pid file)"; return 0; fi
  kill -TERM "$pid" 2>/dev/null || true
  local i
  for i in $(seq 1 $(( timeout * 4 ))); do
    is_ours "$pid" "$kind" || { rm -f "$pidf"; echo "$id on $host: stopped (pid $pid)"; return 0; }
    sleep 0.25
  done
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$pidf"
  echo "$id on $host: killed (pid $pid did not exit within ${timeout}s of SIGTERM)"
}

daemon_pid() { # kind id state: prints the pid or 'down'
  local pidf="$3/$2.pid"
  if [ -f "$pidf" ] && is_ours "$(cat "$pidf")" "$1"; then cat "$pidf"; else echo down; fi
}

case "${1:-}" in
  _start) shift; daemon_start "$@"; exit $? ;;
  _stop) shift; daemon_stop "$@"; exit $? ;;
  _pid) shift; daemon_pid "$@"; exit $? ;;
esac

# ---- options -----------------------------------------------------------------------------------
ACTION="${1:-}"; [ $# -gt 0 ] && shift
HOSTS="" CENTRAL="localhost:7100" NODE_PORT=7101 SLOTS=auto POLICY=eagle-adaptive LEASE_MS=3000
SHORT_FRACTION=0.1 SHORT_PARTITION=fixed LONG_HEADROOM="" STEAL_FRACTION="" BIND="" STATE="$ROOT/target/eagle-cluster" SECRET="" BIN="" TIMEOUT=10 PLACEMENT=lwl
while [ $# -gt 0 ]; do
  [ $# -ge 2 ] || die "option $1 needs a value"
  case "$1" in
    --hosts) HOSTS="$2" ;;
    --central) CENTRAL="$2" ;;
    --node-port) NODE_PORT="$2" ;;
    --slots) SLOTS="$2" ;;
    --policy) POLICY="$2" ;;
    --lease-ms) LEASE_MS="$2" ;;
    --short-fraction) SHORT_FRACTION="$2" ;;
    --placement) PLACEMENT="$2" ;;
    --short-partition) SHORT_PARTITION="$2" ;;
    --long-headroom) LONG_HEADROOM="$2" ;;
    --steal-fraction) STEAL_FRACTION="$2" ;;
    --bind) BIND="$2" ;;
    --state) STATE="$2" ;;
    --secret-file) SECRET="$2" ;;
    --bin) BIN="$2" ;;
    --timeout) TIMEOUT="$2" ;;
    *) die "unknown option $1 (see: $0 help)" ;;
  esac
  shift 2
done
is_port() { [[ "$1" =~ ^[0-9]+$ ]] && [ "$1" -ge 1 ] && [ "$1" -le 65535 ]; }
is_port "$NODE_PORT" || die "--node-port must be a port (1-65535), got '$NODE_PORT'"
[[ "$SLOTS" = auto || ( "$SLOTS" =~ ^[0-9]+$ && "$SLOTS" -ge 1 ) ]] || die "--slots must be a positive integer, got '$SLOTS'"
case "$POLICY" in eagle|eagle-adaptive|hawk|sparrow) ;; *) die "--policy must be eagle, eagle-adaptive, hawk or sparrow, got '$POLICY'" ;; esac
case "$PLACEMENT" in lwl|lotes) ;; *) die "--placement must be lwl or lotes, got '$PLACEMENT'" ;; esac
case "$SHORT_PARTITION" in fixed|adaptive|slots|share) ;; *) die "--short-partition must be fixed, adaptive, slots or share, got '$SHORT_PARTITION'" ;; esac
# eagle-central's own default (0.1) is eagle-adaptive's; the papers' policies place over every host.
[ -n "$LONG_HEADROOM" ] || [ "$POLICY" = eagle-adaptive ] || LONG_HEADROOM=0
[ -z "$LONG_HEADROOM" ] || [[ "$LONG_HEADROOM" =~ ^0(\.[0-9]+)?$ ]] || die "--long-headroom must be a number in [0, 1), got '$LONG_HEADROOM'"
[ -z "$STEAL_FRACTION" ] || [[ "$STEAL_FRACTION" =~ ^(0(\.[0-9]+)?|1(\.0*)?)$ ]] || die "--steal-fraction must be a number in [0, 1], got '$STEAL_FRACTION'"
[ -z "$STEAL_FRACTION" ] || [ "$POLICY" = eagle-adaptive ] || die "--steal-fraction applies to --policy eagle-adaptive only (hawk steals from idle nodes)"
[[ "$LEASE_MS" =~ ^[0-9]+$ && "$LEASE_MS" -ge 10 ]] || die "--lease-ms must be an integer >= 10, got '$LEASE_MS'"
[[ "$TIMEOUT" =~ ^[0-9]+$ && "$TIMEOUT" -ge 1 ]] || die "--timeout must be a positive integer, got '$TIMEOUT'"
[[ "$SHORT_FRACTION" =~ ^0(\.[0-9]+)?$|^\.[0-9]+$ ]] || die "--short-fraction must be in [0, 1), got '$SHORT_FRACTION'"
STATE="$(mkdir -p "$STATE" && cd "$STATE" && pwd)"
SECRET="${SECRET:-$STATE/secret}"
DEFAULT_BIN="$ROOT/target/release"
BIN="${BIN:-$DEFAULT_BIN}"
EAGLE_SSH="${EAGLE_SSH:-ssh -o BatchMode=yes}"

# host[:port] → "host port"
split_hp() { # entry default-port
  local e="$1" h p
  if [[ "$e" == *:* ]]; then h="${e%:*}"; p="${e##*:}"; else h="$e"; p="$2"; fi
  [ -n "$h" ] && is_port "$p" || die "bad host entry '$e': expected HOST or HOST:PORT"
  echo "$h $p"
}

worker_hosts() {
  if [ -n "$HOSTS" ]; then tr ',' '\n' <<< "$HOSTS"; return; fi
  local f="${SPARK_CONF_DIR:-${SPARK_HOME:-/nonexistent}/conf}/workers"
  if [ -f "$f" ]; then sed 's/#.*//; s/[[:space:]]//g; /^$/d' "$f"; else echo localhost; fi
}

# Every host entry is checked here, in this shell, so that a bad one stops the script.
for e in $(worker_hosts); do split_hp "$e" "$NODE_PORT" > /dev/null; done
split_hp "$CENTRAL" 7100 > /dev/null

is_local() {
  case "$1" in localhost|127.0.0.1|::1|"$(hostname)"|"$(hostname -f 2>/dev/null || hostname)") return 0 ;; esac
  return 1
}

on_host() { # host args-of-this-script...
  local host="$1"; shift
  if is_local "$host"; then bash "$SELF" "$@"; return $?; fi
  local cmd; cmd="$(printf '%q ' bash "$SELF" "$@")"
  # shellcheck disable=SC2086
  $EAGLE_SSH "$host" "$cmd" || { local rc=$?; [ $rc = 255 ] && log "cannot reach $host with '$EAGLE_SSH'"; return $rc; }
}

build() {
  local need=0
  for b in eagle-node eagle-central; do [ -x "$BIN/$b" ] || need=1; done
  if [ "$BIN" = "$DEFAULT_BIN" ] && [ $need = 0 ] && \
     [ -n "$(find "$ROOT/rust/eagle-node" "$ROOT/rust/eagle-central" "$ROOT/rust/eagle-wire" "$ROOT/rust/eagle-core" \
               -name '*.rs' -newer "$BIN/eagle-node" -print -quit 2>/dev/null)" ]; then
    need=1
  fi
  if [ $need = 1 ]; then
    [ "$BIN" = "$DEFAULT_BIN" ] || die "no eagle-node / eagle-central in --bin $BIN (build: cargo build --release -p eagle-node -p eagle-central)"
    log "building eagle-node and eagle-central (cargo build --release)"
    (cd "$ROOT" && cargo build --release -q -p eagle-node -p eagle-central) >&2
  fi
  echo "$BIN"
}

ensure_secret() {
  [ -s "$SECRET" ] && return 0
  mkdir -p "$(dirname "$SECRET")"
  (umask 077 && head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$SECRET")
  chmod 600 "$SECRET"
  log "created the shared secret $SECRET (0600); give drivers the same file"
}

# The nodes: "id host port name" per line.
nodes() {
  local e h p name
  while read -r e; do
    read -r h p < <(split_hp "$e" "$NODE_PORT")
    if [[ "$e" == *:* ]]; then name="$h:$p"; else name="$h"; fi
    echo "node-${h//[^A-Za-z0-9._-]/_}-$p $h $p $name"
  done < <(worker_hosts)
}

listen_of() { echo "${BIND:-$1}:$2"; }

start() {
  build > /dev/null
  ensure_secret
  local failed=0 id h p name list="" peers=()
  while read -r id h p name; do peers+=("$h:$p"); list="$list${list:+,}$name=$h:$p"; done < <(nodes)
  while read -r id h p name; do
    local args=(--slots "$SLOTS" --listen "$(listen_of "$h" "$p")" --secret-file "$SECRET" --policy "$POLICY"
                --lease-ms "$LEASE_MS" --name "$name" --advertise "$h:$p")
    if [ "$POLICY" = hawk ] || [ "$POLICY" = eagle-adaptive ]; then
      local others; others="$(printf '%s\n' "${peers[@]}" | grep -vxF "$h:$p" | paste -sd, - || true)"
      [ -n "$others" ] && args+=(--peers "$others")
    fi
    [ -n "$STEAL_FRACTION" ] && args+=(--steal-fraction "$STEAL_FRACTION")
    on_host "$h" _start eagle-node "$id" "$STATE" "$BIN" "$SECRET" "$TIMEOUT" "$(listen_of "$h" "$p")" -- "${args[@]}" < /dev/null || failed=1
  done < <(nodes)
  local ch cp ping=$(( LEASE_MS / 4 < 500 ? (LEASE_MS / 4 > 0 ? LEASE_MS / 4 : 1) : 500 ))
  read -r ch cp < <(split_hp "$CENTRAL" 7100)
  on_host "$ch" _start eagle-central central "$STATE" "$BIN" "$SECRET" "$TIMEOUT" "$(listen_of "$ch" "$cp")" -- \
    --listen "$(listen_of "$ch" "$cp")" --secret-file "$SECRET" --nodes "$list" --short-fraction "$SHORT_FRACTION" \
    --short-partition "$SHORT_PARTITION" ${LONG_HEADROOM:+--long-headroom "$LONG_HEADROOM"} --placement "$PLACEMENT" --ping-ms "$ping" \
    < /dev/null || failed=1
  [ $failed = 0 ] || { log "some daemons did not start (above)"; exit 1; }
}

stop() {
  local ch cp id h p name
  read -r ch cp < <(split_hp "$CENTRAL" 7100)
  on_host "$ch" _stop eagle-central central "$STATE" "$TIMEOUT" < /dev/null || true
  while read -r id h p name; do on_host "$h" _stop eagle-node "$id" "$STATE" "$TIMEOUT" < /dev/null || true; done < <(nodes)
}

status() {
  local bad=0 ch cp id h p name pid line
  [ -x "$BIN/eagle-node" ] || die "no $BIN/eagle-node: run '$0 build' first"
  while read -r id h p name; do
    pid="$(on_host "$h" _pid eagle-node "$id" "$STATE" < /dev/null || echo unknown)"
    if line="$("$BIN/eagle-node" --status "$h:$p" --secret-file "$SECRET" 2>&1)"; then
      echo "$id pid=$pid $line"
    else
      echo "$id pid=$pid DOWN: $line"; bad=1
    fi
  done < <(nodes)
  read -r ch cp < <(split_hp "$CENTRAL" 7100)
  pid="$(on_host "$ch" _pid eagle-central central "$STATE" < /dev/null || echo unknown)"
  if line="$("$BIN/eagle-central" --status "$ch:$cp" --secret-file "$SECRET" 2>&1)"; then
    echo "central pid=$pid $line"
  else
    echo "central pid=$pid DOWN: $line"; bad=1
  fi
  return $bad
}

case "$ACTION" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  build) build ;;
  *) sed -n '2,31p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
