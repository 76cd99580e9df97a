#!/usr/bin/env bash
# A 3-member etcd cluster on loopback ports, for the etcd backend's tests.
# Usage: build/etcd-cluster.sh start DIR [BASE_PORT|auto]   (prints the endpoints)
#        build/etcd-cluster.sh stop DIR
# Member i (1..3) serves clients on BASE_PORT+2i-2 and peers on BASE_PORT+2i-1;
# its data, log and pid are in DIR/m$i (put DIR on tmpfs: etcd fsyncs every
# commit). DIR/endpoints holds the client endpoints, comma-separated.
# BASE_PORT auto: 6 consecutive free loopback ports from a random base, so
# runs started at the same time (other test targets) do not meet.
# Heartbeat 50 ms, election 500 ms: a member lost is replaced fast, and the
# shortest lease the cluster grants is 1 s (1.5 election timeouts, rounded up).
set -euo pipefail

cmd=${1:?usage: $0 start|stop DIR [BASE_PORT]}
dir=${2:?usage: $0 start|stop DIR [BASE_PORT]}
base=${3:-23790}

stop() {
  # all members at once, and SIGKILL after 1 s: a member left without quorum
  # spends seconds in its graceful shutdown (7 s seen), and the data is thrown away
  local pids=() pid
  for i in 1 2 3; do
    [ -f "$dir/m$i/pid" ] && pids+=("$(cat "$dir/m$i/pid")")
    rm -f "$dir/m$i/pid"
  done
  ((${#pids[@]})) || return 0
  kill -CONT "${pids[@]}" 2>/dev/null || true # a stopped member would not see TERM
  kill "${pids[@]}" 2>/dev/null || true
  for _ in $(seq 20); do
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && break; pid=; done
    [ -n "$pid" ] || return 0
    sleep 0.05
  done
  kill -9 "${pids[@]}" 2>/dev/null || true
  for pid in "${pids[@]}"; do while kill -0 "$pid" 2>/dev/null; do sleep 0.02; done; done
}

case "$cmd" in
  start)
    command -v etcd >/dev/null || { echo "etcd-cluster.sh: etcd is not installed (build/deps.sh etcd installs etcd-server)" >&2; exit 1; }
    mkdir -p "$dir"
    if [ "$base" = auto ]; then
      base=$(php -n -r 'for ($i = 0; $i < 200; $i++) { // PHP: always there, unlike python3
        $b = 20000 + 8 * random_int(0, 1249); $held = [];
        for ($p = $b; $p < $b + 6; $p++) {
          $s = @stream_socket_server("tcp://127.0.0.1:$p");
          if (!$s) { continue 2; }
          $held[] = $s;
        }
        echo $b, "\n"; exit(0);
      } exit(1);')
    fi
    cluster="" endpoints=""
    for i in 1 2 3; do
      cluster+="${cluster:+,}m$i=http://127.0.0.1:$((base + 2 * i - 1))"
      endpoints+="${endpoints:+,}127.0.0.1:$((base + 2 * i - 2))"
    done
    token="ephpm-$$-$RANDOM"
    for i in 1 2 3; do
      m="$dir/m$i"
      rm -rf "$m" && mkdir -p "$m"
      client="http://127.0.0.1:$((base + 2 * i - 2))" peer="http://127.0.0.1:$((base + 2 * i - 1))"
      ETCD_UNSUPPORTED_ARCH="" setsid etcd --name "m$i" --data-dir "$m/data" \
        --listen-client-urls "$client" --advertise-client-urls "$client" \
        --listen-peer-urls "$peer" --initial-advertise-peer-urls "$peer" \
        --initial-cluster "$cluster" --initial-cluster-state new --initial-cluster-token "$token" \
        --heartbeat-interval 50 --election-timeout 500 --logger zap --log-outputs "$m/log" \
        </dev/null >/dev/null 2>&1 &
      echo $! >"$m/pid"
    done
    echo "$endpoints" >"$dir/endpoints"
    for _ in $(seq 100); do
      if ETCDCTL_API=3 etcdctl --endpoints "$endpoints" endpoint health >/dev/null 2>&1; then
        # healthy, but ours? A member that found its port taken has exited,
        # and the health came from someone else's cluster.
        for i in 1 2 3; do
          kill -0 "$(cat "$dir/m$i/pid")" 2>/dev/null ||
            { echo "etcd-cluster.sh: member m$i exited (port taken?); see $dir/m$i/log" >&2; stop; exit 1; }
        done
        echo "$endpoints"
        exit 0
      fi
      sleep 0.1
    done
    echo "etcd-cluster.sh: the cluster in $dir did not become healthy in 10 s; see $dir/m*/log" >&2
    stop
    exit 1
    ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop DIR [BASE_PORT]" >&2; exit 2 ;;
esac
