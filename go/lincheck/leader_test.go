package lincheck

import (
	"testing"
	"time"
)

// Leader elections (kv.Campaign, kv.CurrentLeader, and the leader's record
// as its lock token) checked by the lock model under the faults the lock
// tests inject: one leader per election at a time, terms above every fence
// before them, only the leader resigns or renews, and what CurrentLeader
// reports is the live leader's term. LostUndone: a campaign that failed
// after its insert gives the election back.

func checkLeaderHistory(t *testing.T, name string, cfg Config, rec *Recorder, log []string) {
	t.Helper()
	cfg.LostUndone = true
	v := verify(t, name, cfg, rec, log)
	if !v.Linearizable() {
		t.Errorf("%s: %v", name, v)
	}
	if v.Locks.Unknown == 0 || v.Locks.Granted < 100 {
		t.Errorf("the faults did not bite or the workload did not run: %v", v.Locks)
	}
}

var leaderWorkload = Workload{Clients: 6, Duration: 4 * time.Second, TTL: 3 * time.Second, Idle: 5 * time.Millisecond, Leader: true}

// TestServerLeaderStoppedIsLinearizable: the ephpm-kv server SIGSTOPped for
// 300 ms every 800 ms.
func TestServerLeaderStoppedIsLinearizable(t *testing.T) {
	faultTest(t)
	p, url := ephpmServer(t)
	rec, log := execute(t, Scenario{
		Open:     openURL(t, url, 100*time.Millisecond),
		Workload: leaderWorkload,
		Faults:   []Fault{Pause(p, 800*time.Millisecond, 300*time.Millisecond)},
	})
	checkLeaderHistory(t, "leader elections on a stopped server", ephpmModel, rec, log)
}

// TestRedisLeaderStoppedIsLinearizable: the same on a Redis.
func TestRedisLeaderStoppedIsLinearizable(t *testing.T) {
	faultTest(t)
	bin, _ := redisBinaries(t)
	p, sock, _ := redisProc(t, bin, t.TempDir(), "redis")
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	rec, log := execute(t, Scenario{
		Open:     openURL(t, "unix://"+sock, 100*time.Millisecond),
		Workload: leaderWorkload,
		Faults:   []Fault{Pause(p, 800*time.Millisecond, 300*time.Millisecond)},
	})
	checkLeaderHistory(t, "leader elections on a stopped Redis", redisModel, rec, log)
}

// The model catches a leader election that reads its leader wrong: a
// CurrentLeader reporting a term nobody holds.
func TestLeaderModelCatchesWrongTerm(t *testing.T) {
	rec := NewRecorder()
	add := func(in Input, out Output, call, ret int64) {
		in.Call, in.Return = call, ret
		rec.Add(1, in, out)
	}
	add(Input{Kind: Acquire, Key: "e", Token: "rec-a", TTL: time.Hour}, Output{OK: true, Fence: 7}, 0, 10)
	add(Input{Kind: Current, Key: "e"}, Output{OK: true, Fence: 7}, 20, 30)
	if v := Verify(ephpmModel, rec.History(), 10*time.Second); !v.Linearizable() {
		t.Fatalf("a correct history: %v", v)
	}
	add(Input{Kind: Current, Key: "e"}, Output{OK: true, Fence: 6}, 40, 50)
	if v := Verify(ephpmModel, rec.History(), 10*time.Second); v.Linearizable() {
		t.Errorf("a current leader with another term than the holder's passed")
	}
	rec2 := NewRecorder()
	rec2.Add(1, Input{Kind: Current, Key: "e", Call: 0, Return: 10}, Output{OK: true, Fence: 3})
	if v := Verify(ephpmModel, rec2.History(), 10*time.Second); v.Linearizable() {
		t.Errorf("a current leader of an election nobody won passed")
	}
}

// TestEtcdLeaderElectionStoppedIsLinearizable: leader elections on the etcd
// cluster while its leader is SIGSTOPped for 1 s every 1.5 s, as the lock
// test has it.
func TestEtcdLeaderElectionStoppedIsLinearizable(t *testing.T) {
	faultTest(t)
	c := startEtcd(t)
	w := etcdWorkload
	w.Duration, w.Leader = 6*time.Second, true
	v, rec, o := etcdRun(t, c, w, func(o *outages, _ *Recorder) []Fault {
		return []Fault{Every("SIGSTOP the leader", 1500*time.Millisecond, c.stopLeader(o, time.Second))}
	})
	etcdLinearizable(t, v, rec, o, 50)
}
