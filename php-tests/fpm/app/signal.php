<?php
// Sets ?key (for app/hold.php: the signal to let go).
ephpm_kv_set($_GET['key'], '1', 60);
echo getmypid();
