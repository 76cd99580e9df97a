package remote

import (
	"math/rand"
	"strconv"
	"testing"
)

// A value kept for Get's second call (the first one's buffer was too
// small) does not outlive a Flush: read again, the key is gone.
func TestRedisClusterFlushDropsKeptValue(t *testing.T) {
	url, _ := redisCluster(t)
	e := newCluster(t, url)
	if err := e.Set("{kept}big", []byte("0123456789"), 0); err != nil {
		t.Fatal(err)
	}
	if n, found, err := e.Get("{kept}big", make([]byte, 2)); n != 10 || !found || err != nil {
		t.Fatalf("Get with a small buffer: %d, %v, %v", n, found, err)
	}
	if err := e.Flush(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 16)
	if n, found, err := e.Get("{kept}big", buf); found || err != nil {
		t.Fatalf("Get after Flush: %q, %v, %v", buf[:n], found, err)
	}
}

// The slot the engine computes for a name, and its fence counter's slot,
// are the server's (CLUSTER KEYSLOT) for names made of '{', '}' and a
// letter: empty tags, nested and unclosed braces, tags at either end. A
// name whose counter cannot share its slot is refused, never sent.
func TestRedisClusterSlotsMatchServer(t *testing.T) {
	_, socks := redisCluster(t)
	r := rand.New(rand.NewSource(1))
	const alpha = "{}a"
	for range 1000 {
		b := make([]byte, 1+r.Intn(7))
		for j := range b {
			b[j] = alpha[r.Intn(len(alpha))]
		}
		lock := string(b)
		want := redisCmd(t, socks[0], "CLUSTER", "KEYSLOT", lock)
		if got := strconv.Itoa(int(slotOf(lock))); got != want {
			t.Errorf("slot of %q: %s, the server says %s", lock, got, want)
		}
		if counter, ok := clusterFenceCounter(lock); ok {
			if got := redisCmd(t, socks[0], "CLUSTER", "KEYSLOT", counter); got != want {
				t.Errorf("%q in slot %s, its counter %q in %s", lock, want, counter, got)
			}
		}
	}
}
