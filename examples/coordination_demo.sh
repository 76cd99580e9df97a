#!/usr/bin/env bash
# Coordination on a named segment, no server: one leader among 3 processes,
# and a queue that loses nothing when a worker is SIGKILLed holding a job.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
name=/ephpm-coord-demo-$$
trap 'rm -f /dev/shm$name' EXIT
php_on_segment() {
  php -n -d extension="$root/build/ephpm.so" -d ephpm.shm_name="$name" -r "$1"
}
echo "Leader election: 3 processes campaign for 'election:cron'; one leads, the others see who"
for i in 1 2 3; do
  php_on_segment '$me = "worker-'$i'";
    $l = Ephpm\Leader::campaign("election:cron", $me, ttl: 2);
    if ($l) { printf("  %s leads, term %d\n", $me, $l->term); usleep(600000); $l->resign(); exit; }
    usleep(200000);
    $c = Ephpm\Leader::current("election:cron");
    printf("  %s follows %s (term %d, %.1f s left)\n", $me, $c["value"], $c["term"], $c["remaining"]);' &
  sleep 0.05
done
wait
php_on_segment '$l = Ephpm\Leader::campaign("election:cron", "worker-4", ttl: 2);
  printf("  after the resignation worker-4 leads with term %d, greater than every term before\n", $l->term);'

echo
echo "Queue: 4 jobs; worker A takes one and is SIGKILLed; worker B gets it back after its 1 s visibility"
php_on_segment '$q = new Ephpm\Queue("jobs:mail", visibility: 1);
  foreach (["welcome", "invoice", "reminder", "digest"] as $p) { $q->push("mail:$p"); }
  printf("  queued %d jobs\n", $q->size());'
(php_on_segment '$job = (new Ephpm\Queue("jobs:mail", visibility: 1))->pop();
  printf("  worker A (pid %d) took job %s (%s) and dies without acknowledging it\n", getmypid(), $job->id, $job->payload);
  exec("kill -KILL " . getmypid());') 2>/dev/null || true # the shell's "Killed" line
php_on_segment '$q = new Ephpm\Queue("jobs:mail", visibility: 1);
  while ($job = $q->pop(wait: 1.5)) {
    printf("  worker B: job %s %-14s attempt %d, ack %s\n", $job->id, $job->payload, $job->attempts, var_export($job->ack(), true));
  }
  printf("  left in the queue: %d\n", $q->size());'
