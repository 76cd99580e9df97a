#!/usr/bin/env bash
# Runs one PHPUnit suite of the framework bridges (php/tests/<Suite>) once per
# engine, as build/phpt.sh does for the phpt suite; exits 1 when a run failed.
# Usage: build/phpunit-modes.sh BOOTSTRAP DIR [MODES...]   (modes: map shm shm-named server redis redis-cluster etcd; default all)
# PHPUNIT_SLOWEST=N: also print each run's N slowest tests (from its JUnit log).
#   map        the in-process Go map (-d ephpm.shm_size=0)
#   shm        the shared segment with the extension's defaults (anonymous)
#   shm-named  a named segment (ephpm.shm_name), so a child process shares it
#   server     an ephpm-kv server this script starts on a unix socket
#   redis      server mode on Debian's redis-server (7), started the same way
#   redis-cluster  a 3-master Redis Cluster on loopback (build/redis-cluster.sh)
#   etcd       a 3-member etcd cluster on loopback (build/etcd-cluster.sh, tmpfs, free ports)
# Not -n: PHPUnit needs Debian's dom, mbstring and xml extensions from php.ini.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bootstrap=$1 dir=$2
shift 2
modes=("$@")
((${#modes[@]})) || modes=(map shm shm-named server redis redis-cluster etcd)
export EPHPM_EXT=$root/build/ephpm.so # a test that starts another PHP process loads this
export EPHPM_SO=$EPHPM_EXT          # (its older name, still read by php/tests/Support/Processes.php)
work=$(mktemp -d /tmp/ephpm-phpunit.XXXXXX)
server= redis= etcd=
cleanup() {
  [ -z "$server" ] || { kill "$server" 2>/dev/null; wait "$server" 2>/dev/null || true; }
  [ -z "$redis" ] || { kill "$redis" 2>/dev/null; wait "$redis" 2>/dev/null || true; }
  [ ! -f "$work/cluster/pids" ] || xargs -r kill <"$work/cluster/pids" 2>/dev/null || true
  [ ! -d "$etcd" ] || { "$root/build/etcd-cluster.sh" stop "$etcd" || true; rm -rf "$etcd"; }
  rm -f "/dev/shm/ephpm-phpunit-$$"
  rm -rf "$work"
}
trap cleanup EXIT
# The suites test the bridge as Composer installs it (php/tests/autoload.php)
export EPHPM_BRIDGE_VENDOR
EPHPM_BRIDGE_VENDOR=$("$root/build/composer-bridge.sh" "$work/app")
status=0
for mode in "${modes[@]}"; do
  args=(-d "extension=$EPHPM_EXT")
  case "$mode" in
    map) args+=(-d ephpm.shm_size=0) ;;
    shm) ;;
    shm-named) args+=(-d "ephpm.shm_name=/ephpm-phpunit-$$") ;;
    server)
      "$root/build/ephpm-kv" --unix "$work/kv.sock" 2>"$work/kv.log" &
      server=$!
      for _ in $(seq 100); do [ -S "$work/kv.sock" ] && break; sleep 0.05; done
      [ -S "$work/kv.sock" ] || { echo "phpunit $mode: ephpm-kv did not start"; cat "$work/kv.log"; exit 1; }
      args+=(-d "ephpm.server=unix://$work/kv.sock") ;;
    redis)
      command -v redis-server >/dev/null || { echo "phpunit $mode: redis-server is not installed (build/deps.sh redis)"; exit 1; }
      redis-server --port 0 --unixsocket "$work/redis.sock" --save '' --appendonly no --dir "$work" \
        --maxmemory-policy noeviction --proto-max-bulk-len 1mb --logfile "$work/redis.log" & # 1 MiB values at most, as ephpm-kv
      redis=$!
      for _ in $(seq 100); do [ -S "$work/redis.sock" ] && break; sleep 0.05; done
      [ -S "$work/redis.sock" ] || { echo "phpunit $mode: redis-server did not start"; cat "$work/redis.log"; exit 1; }
      args+=(-d "ephpm.server=unix://$work/redis.sock") ;;
    redis-cluster)
      mkdir -p "$work/cluster"
      args+=(-d "ephpm.server=$("$root/build/redis-cluster.sh" "$work/cluster")") ;;
    etcd)
      etcd=$(mktemp -d /dev/shm/ephpm-phpunit-etcd.XXXXXX) # etcd fsyncs every commit: tmpfs
      # 5 s an op, not the default 1: the Laravel suite runs beside the
      # Symfony one, and its workers' gets on a loaded 2-core machine
      # outlasted 1 s (context deadline exceeded in CI)
      args+=(-d "ephpm.server=etcd://$("$root/build/etcd-cluster.sh" start "$etcd" "${EPHPM_ETCD_PORT:-auto}")" -d ephpm.server_timeout=5) ;;
    *) echo "phpunit-modes.sh: unknown mode '$mode'" >&2; exit 2 ;;
  esac
  started=$SECONDS
  if out=$(cd "$root" && php "${args[@]}" /usr/bin/phpunit --do-not-cache-result --bootstrap "$bootstrap" "$dir" --log-junit "$work/junit-$mode.xml" 2>&1); then
    echo "phpunit $dir $mode: $(tail -n 1 <<<"$out") ($((SECONDS - started)) s)"
    [ -z "${PHPUNIT_SLOWEST:-}" ] || php -r '$x = simplexml_load_file($argv[1]); $t = [];
      foreach ($x->xpath("//testcase") as $c) { $t[(string)$c["class"] . "::" . $c["name"]] = (float)$c["time"]; }
      arsort($t); foreach (array_slice($t, 0, (int)$argv[2]) as $n => $s) { printf("  %6.2f s  %s\n", $s, $n); }' "$work/junit-$mode.xml" "$PHPUNIT_SLOWEST"
  else
    echo "phpunit $dir $mode: FAILED"
    echo "$out"
    status=1
  fi
done
exit $status
