// Package lincheck checks recorded histories of lock operations against a
// kv.Engine for linearizability, with porcupine. It is for tests only: the
// library (capi), the server and the engines never import it, so porcupine
// is never linked into what ships.
//
// The model is one lock per key with the operations the API offers: fenced
// acquire (SetNXFenced), release (DelIfEq), refresh (ExpireIfEq), reads
// (Get, TTLIfEq) and the fence check (Fence).
//
// Time. A lock's expiry deadline is set by the engine at some instant inside
// the acquiring (or refreshing) call, so it lies in [call+ttl,
// return+ttl+Slack]; an operation whose whole interval is before that
// window sees the lock live, one whose whole interval is after it sees it
// gone, and one that overlaps it may see either (the model branches: a
// porcupine NondeterministicModel). With TTLs far longer than a run no
// deadline is ever reached and the check is exact lock safety; with short
// TTLs the same model checks handover by expiry, which is how a lock is
// lost in practice (and where a blind DEL release does its harm).
//
// Maybe-happened. A call that failed with kv.ErrUnavailable may have taken
// effect at any later time (a request sitting in a stopped server's socket
// runs when it resumes). It is recorded with an unknown output and a return
// time of math.MaxInt64, so porcupine may place it anywhere after its call,
// including after everything else (= it never happened). Its effect is
// applied where it is placed; any output is accepted. An engine that takes
// back its lost acquisitions (etcd: Config.LostUndone) may end one at any
// time after it happened.
//
// Checking. Verify checks a history in two parts: every guarantee with
// each key on its own, and the fence order across a fence domain with the
// locks left out; one search over an engine-wide domain with tens of
// maybe-happened calls can run for minutes (see Verdict).
//
// Plugging in a backend. A backend is an Opener (one kv.Engine, one
// connection, per client), a Config (its fence domain: EngineWide,
// PerKey, HashTag; its TTL Slack; the Guarantees it gives under the fault
// at hand) and Procs for its processes (Pause = SIGSTOP/SIGCONT,
// KillRestart = kill -9 and start again; Proc.Ready polls until it
// serves; the *Picked forms take a Pick that finds the process to hit at
// each strike, such as the current etcd leader; Every runs any action,
// such as a Redis failover). A Scenario runs a Workload and the Faults together; Verify
// checks the Recorder's history. etcd_test.go is a worked example: three
// etcd members as Procs (build/etcd-cluster.sh member), a Pick that asks
// each member whether it leads, strikes for a stopped leader, a killed
// member and a lost quorum, and a Config whose Slack puts no upper bound on
// expiry (a new etcd leader renews every lease). In this package's tests, a new ephpm.server
// scheme is one line in server_test.go's dialers map, and
// TestBackendFromEnv runs against a backend started by hand
// (EPHPM_LINCHECK_SERVER=url, EPHPM_LINCHECK_FENCES=engine|key|hashtag,
// EPHPM_LINCHECK_PAUSE=pid).
package lincheck
