package kv_test

import (
	"errors"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
	"github.com/ephpm/ephpm-kv/store"
)

// An index cut short (in its header or an entry), or of another format, is
// refused as another kind of value by every queue operation: never read
// past, never rewritten.
func TestQueueIndexCutShortIsRefused(t *testing.T) {
	s := store.New(store.Config{})
	defer s.Close()
	head := []byte{'Q', 2, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0}
	entry := make([]byte, 30)
	entry[0] = 1 // id 1
	for name, rec := range map[string][]byte{
		"header cut":       head[:10],
		"entry cut":        append(append([]byte(nil), head...), entry[:12]...),
		"second entry cut": append(append(append([]byte(nil), head...), entry...), entry[:29]...),
		"another magic":    append([]byte{'R'}, head[1:]...),
		"another version":  append([]byte{'Q', 1}, head[2:]...),
	} {
		if err := s.Set("q", rec, 0); err != nil {
			t.Fatal(err)
		}
		tok := []byte("t")
		for op, err := range map[string]error{
			"push": func() error { _, err := kv.QueuePush(s, "q", []byte("p"), 0); return err }(),
			"pop":  func() error { _, _, err := kv.QueuePop(s, "q", tok, time.Second, 5, 0); return err }(),
			"ack":  func() error { _, err := kv.QueueAck(s, "q", 1, tok); return err }(),
			"size": func() error { _, err := kv.QueueSize(s, "q", 5); return err }(),
		} {
			if !errors.Is(err, kv.ErrWrongType) {
				t.Errorf("%s: %s: %v, want ErrWrongType", name, op, err)
			}
		}
		if got, _, _ := s.Get("q", make([]byte, 64)); got != len(rec) {
			t.Errorf("%s: the index was rewritten (%d bytes, was %d)", name, got, len(rec))
		}
	}
}
