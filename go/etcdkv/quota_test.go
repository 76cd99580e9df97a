package etcdkv

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// The engine's memory limit is the cluster's quota (--quota-backend-bytes,
// here 1 MiB). Over it, etcd raises its NOSPACE alarm: every write is
// kv.ErrFull (SetNX included: never a false "held") and counted in
// Rejected, nothing stored is lost, and a lock can still be released
// (a delete is allowed under the alarm). Writing again takes an operator:
// compact, defragment, disarm.
func TestQuotaFull(t *testing.T) {
	c := ownCluster(t, 20, "ETCD_QUOTA_BACKEND_BYTES=1048576")
	e := newTestEngine(t, c, Config{Timeout: 5 * time.Second})
	if ok, err := e.SetNX("held", []byte("A"), time.Minute); err != nil || !ok {
		t.Fatalf("SetNX before filling: %v, %v", ok, err)
	}
	stored := map[string]string{}
	value := string(make([]byte, 64<<10))
	for i := 0; ; i++ {
		if i > 200 {
			t.Fatal("200 writes of 64 KiB and the 1 MiB quota never reached")
		}
		key := fmt.Sprintf("fill:%04d", i)
		err := e.Set(key, []byte(value), 0)
		if errors.Is(err, kv.ErrFull) {
			break
		}
		if err != nil {
			t.Fatalf("Set while filling: %v", err)
		}
		stored[key] = value
	}
	st, err := e.Stats()
	if err != nil {
		t.Fatal(err)
	}
	one := []byte("x")
	refusals := map[string]func() error{
		"Set": func() error { return e.Set("new", one, 0) },
		"SetNX": func() error {
			ok, err := e.SetNX("new", one, 0)
			return errors.Join(err, falseIsHeld(ok))
		},
		"SetNXFenced": func() error {
			_, ok, err := e.SetNXFenced("new", one, time.Minute)
			return errors.Join(err, falseIsHeld(ok))
		},
		"Incr": func() error { _, err := e.Incr("new", 1, 0); return err },
		"LockAndGet": func() error {
			ok, _, _, err := kv.LockAndGet(e, "new", one, time.Minute, "fill:0000", nil)
			return errors.Join(err, falseIsHeld(ok))
		},
	}
	for name, op := range refusals {
		if err := op(); !errors.Is(err, kv.ErrFull) {
			t.Errorf("%s over the quota: %v, want kv.ErrFull", name, err)
		}
	}
	after, err := e.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if got := after.Rejected - st.Rejected; got != int64(len(refusals)) {
		t.Errorf("Rejected moved by %d for %d refused writes", got, len(refusals))
	}
	buf := make([]byte, 64<<10)
	for key, want := range stored {
		if n, found, err := e.Get(key, buf); err != nil || !found || string(buf[:n]) != want {
			t.Fatalf("%s after the quota was reached: found %v, %v", key, found, err)
		}
	}
	if ok, err := e.DelIfEq("held", []byte("A")); err != nil || !ok {
		t.Fatalf("releasing a lock over the quota: %v, %v", ok, err)
	}
}

func falseIsHeld(ok bool) error {
	if !ok {
		return errors.New(`returned false ("held") instead of an error`)
	}
	return nil
}
