#!/usr/bin/env bash
# Shared segment: two separate PHP processes (as a cron job and a php-fpm
# worker would be) share one lock through a named segment. No server.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
name=/ephpm-demo-$$
trap 'rm -f /dev/shm$name' EXIT
php_on_segment() {
  php -n -d extension="$root/build/ephpm.so" -d ephpm.shm_name="$name" -r "$1"
}
echo "Shared segment: two PHP processes, no server, one named segment (ephpm.shm_name=$name)"
php_on_segment '$lock = Ephpm\Lock::acquire("lock:report", 30);
  printf("  process %d %-36s fence %d\n", getmypid(), "takes lock:report, works 1 s:", $lock->fence);
  ephpm_kv_set("demo:told", "1"); /* so the other process speaks after this line */
  usleep(1000000);
  printf("  process %d releases it\n", getmypid());
  $lock->release();' &
php_on_segment 'while (!ephpm_kv_exists("demo:told")) { usleep(1000); }
  printf("  process %d %-36s %s\n", getmypid(), "tries lock:report:",
    var_export(Ephpm\Lock::acquire("lock:report", 30) !== null, true));
  $t = microtime(true);
  $lock = Ephpm\Lock::acquire("lock:report", 30, wait: 5);
  printf("  process %d %-36s fence %d\n", getmypid(), sprintf("waited %.2f s, then took it:", microtime(true) - $t), $lock->fence);'
wait
echo "  engine: $(php_on_segment 'echo ephpm_kv_stats()["engine"];'); the segment stays in /dev/shm until removed (this demo removes it)"

echo
echo "Memory is never stranded: a burst of rate-limit counters fills a small segment and expires; then 1.2 KB"
echo "values take the same memory (free blocks are split and merged across size classes)"
php -n -d extension="$root/build/ephpm.so" -d ephpm.shm_size=8M -d ephpm.compress_min=0 -r '
  $n = 0;
  try { for (;; $n++) ephpm_kv_incr("rate:client-$n", 1, 1); } catch (Ephpm\KvException $e) {}
  printf("  %d counters filled the 8 MiB segment; after their 1 s window:\n", $n);
  sleep(1);
  $m = 0; $v = random_bytes(1200);
  try { for (;; $m++) ephpm_kv_set("page:$m", $v); } catch (Ephpm\KvException $e) {}
  $st = ephpm_kv_stats();
  printf("  %d values of 1.2 KB fit (%d%% of the segment in use), a lock too: %s\n", $m,
    100 * $st["bytes_used"] / $st["bytes_limit"], var_export(ephpm_kv_del("page:0") && Ephpm\Lock::acquire("lock:after", 30) !== null, true));'

echo
echo "Cache beside locks: a lock is taken, then 1 KB pages three times the segment's size are written as"
echo "evictable entries; SIEVE evicts pages to make room, never the lock, and a page read often stays"
php -n -d extension="$root/build/ephpm.so" -d ephpm.shm_size=4M -d ephpm.compress_min=0 -r '
  $lock = Ephpm\Lock::acquire("lock:nightly", 300);
  $page = str_repeat("p", 1000);
  ephpm_kv_set("page:home", $page, 0, true);
  for ($i = 0; $i < 12000; $i++) {
    ephpm_kv_set("page:$i", $page, 0, true);
    ephpm_kv_get("page:home");
  }
  $st = ephpm_kv_stats();
  printf("  %d pages written, %d evicted, %.1f MiB of cache held; the lock still ours: %s, the hot page kept: %s\n",
    12000, $st["evicted"], $st["bytes_evictable"] / 1048576, var_export($lock->isAcquired(), true),
    var_export(ephpm_kv_get("page:home") !== null, true));
  // A cache add (apcu_add): one winner, and never over the lock, which stays held.
  printf("  ephpm_kv_add of a new page: %s, of it again: %s, over the lock: %s\n", var_export(ephpm_kv_add("page:new", $page, 0, true), true),
    var_export(ephpm_kv_add("page:new", "other", 0, true), true), var_export(ephpm_kv_add("lock:nightly", "mine", 0, true), true));
  $lock->release();'

echo
echo "Compute once: 6 php-fpm-style processes ask for the same missing report; one computes it (0.5 s),"
echo "the others sleep until it is written and read it"
php -n -d extension="$root/build/ephpm.so" -d ephpm.shm_size=4M -r '
  $start = microtime(true);
  for ($c = 0; $c < 6; $c++) {
    if (pcntl_fork() === 0) {
      ephpm_kv_remember("report:daily", function () { ephpm_kv_incr("computed"); usleep(500000); return "report of " . date("Y-m-d"); });
      exit(0);
    }
  }
  while (pcntl_wait($status) > 0);
  printf("  6 processes got \"%s\", computed %d time(s), in %.2f s\n", ephpm_kv_get("report:daily"),
    ephpm_kv_get("computed"), microtime(true) - $start);'
