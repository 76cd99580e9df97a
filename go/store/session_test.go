package store

import (
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
	"github.com/ephpm/ephpm-kv/kv/kvtest"
)

func TestSessionOps(t *testing.T) {
	kvtest.CheckSessionOps(t, newTestStore(t, Config{SweepInterval: time.Hour}))
}

func TestSessionOpsRefuseTooLarge(t *testing.T) {
	kvtest.CheckSessionOpsRefuse(t, newTestStore(t, Config{MaxValueSize: 1024}), make([]byte, 2000))
}

// Many threads of one process sharing a session through the two steps.
func TestSessionsSerialize(t *testing.T) {
	s := newTestStore(t, Config{})
	kvtest.CheckSessionsSerialize(t, func() kv.Engine { return s }, 8, 300)
}
