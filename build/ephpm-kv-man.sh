#!/usr/bin/env bash
# Prints a man page (roff) for the ephpm-kv server made from its own --help,
# so the page lists exactly the flags the binary takes, and from its help
# (ephpm-kv help), the operator's commands it runs.
# Usage: build/ephpm-kv-man.sh PATH_TO_EPHPM_KV
set -euo pipefail
bin=${1:?usage: build/ephpm-kv-man.sh PATH_TO_EPHPM_KV}
cat <<'EOT'
.TH EPHPM-KV 1 "" "ephpm-kv" "User Commands"
.SH NAME
ephpm-kv \- key-value and lock store server speaking RESP
.SH SYNOPSIS
.B ephpm-kv
[\fIoptions\fR]
.br
.B ephpm-kv
\fIcommand\fR [\fB\-\-shm\fR \fI/NAME\fR | \fB\-\-server\fR \fIURL\fR] [\fB\-\-json\fR] [\fIargs\fR]
.SH DESCRIPTION
The ephpm-kv server keeps locks, leases, counters and cache entries in memory
and answers RESP, so redis-cli and phpredis can talk to it; the PHP extension
ephpm reaches it with ephpm.server=unix:///run/ephpm-kv/ephpm-kv.sock. A lock
is released by compare-and-delete (DELIFEQ, as Valkey 9 has it), never by a plain DEL of
someone else's lock. SIGTERM and SIGINT write the snapshot, if one is set, and
stop the server.
.PP
Given a command instead of flags, the same binary looks inside a store the PHP
processes use: a named shared segment (\-\-shm, ephpm.shm_name), opened with
the checks the extension makes and never created, or any ephpm.server address
(\-\-server). \fBephpm\-kv help\fR \fIcommand\fR gives a command's flags.
Exit status: 0 done, 1 failed (no such segment or key, refused, unreachable),
2 a bad command line.
.SH OPTIONS
EOT
# flag's usage: "  -name type", or "  -name<TAB>text" for a bool, and
# descriptions on lines indented with a tab.
"$bin" --help 2>&1 | awk -F '\t' '
  function roff(t) { gsub(/\\/, "\\\\", t); gsub(/-/, "\\-", t); if (t ~ /^[.\047]/) t = "\\&" t; return t }
  /^  -/ { sub(/^  -/, "", $1); n = split($1, w, " "); print ".TP";
           if (n > 1) printf ".BI \"\\-%s \" %s\n", w[1], w[2]; else printf ".B \\-%s\n", w[1];
           if (NF > 1) print roff($2); next }
  /^ *\t/ { print roff($2) }'
echo ".SH COMMANDS"
# help's list: "  name [args]   summary", after the "Commands" line, up to a
# blank line.
"$bin" help 2>&1 | awk '
  function roff(t) { gsub(/\\/, "\\\\", t); gsub(/-/, "\\-", t); if (t ~ /^[.\047]/) t = "\\&" t; return t }
  /^Commands/ { on = 1; next }
  on && /^$/ { exit }
  on { sub(/^ +/, ""); i = match($0, /   */); print ".TP"; printf ".B %s\n", roff(substr($0, 1, i - 1));
       print roff(substr($0, i + RLENGTH)) }'
cat <<'EOT'
.SH FILES
.TP
.I /lib/systemd/system/ephpm-kv.service
the unit: runs the server as user ephpm-kv with its socket in /run/ephpm-kv
and its snapshot in /var/lib/ephpm-kv
.SH SEE ALSO
.BR redis-cli (1)
EOT
