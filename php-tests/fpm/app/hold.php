<?php
// For the status page's checks (fpm_test.php): holds a lock (?lock), a
// semaphore permit (?sem) and a read lock (?rw) until the key ?until exists
// in the store or ?hold seconds pass, then gives them back: "held PID
// fence F" (the lock's fence, which the page must have shown).
$lock = Ephpm\Lock::acquire($_GET['lock'], 60) ?? exit('lock not acquired');
$sem = Ephpm\Semaphore::acquire($_GET['sem'], 3, 60) ?? exit('permit not acquired');
$rw = Ephpm\ReadWriteLock::read($_GET['rw'], 60) ?? exit('read lock not acquired');
$deadline = microtime(true) + (float)($_GET['hold'] ?? 60);
while (microtime(true) < $deadline && !(isset($_GET['until']) && ephpm_kv_exists($_GET['until']))) {
    usleep(20000);
}
$lock->release();
$sem->release();
$rw->release();
echo 'held ', getmypid(), ' fence ', $lock->fence;
