package remote

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
	"github.com/ephpm/ephpm-kv/server"
	"github.com/ephpm/ephpm-kv/store"
)

// commandsProcessed is the server's INFO total_commands_processed, read
// on a connection of its own (which adds one, the INFO).
func commandsProcessed(t *testing.T, addr string) int {
	t.Helper()
	nc, err := net.Dial("unix", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(5 * time.Second))
	fmt.Fprint(nc, "*1\r\n$4\r\nINFO\r\n")
	r := bufio.NewReader(nc)
	head, err := r.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(head[1 : len(head)-2])
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`total_commands_processed:(\d+)`).FindSubmatch(body)
	if m == nil {
		t.Fatalf("INFO has no total_commands_processed: %.200q", body)
	}
	c, _ := strconv.Atoi(string(m[1]))
	return c
}

// GetMulti is one MGET: 50 keys cost the server one command, not 50.
func TestGetMultiIsOneCommand(t *testing.T) {
	url := startServer(t, server.Config{Store: store.Config{MemoryLimit: 1 << 20, MaxValueSize: 1024}})
	addr := strings.TrimPrefix(url, "unix://")
	e := newEngine(t, url, "", time.Second)
	keys := make([]string, 50)
	for i := range keys {
		keys[i] = fmt.Sprint("k", i)
		if i%2 == 0 {
			if err := e.Set(keys[i], []byte(keys[i]), 0); err != nil {
				t.Fatal(err)
			}
		}
	}
	before := commandsProcessed(t, addr)
	found := 0
	err := kv.GetMulti(e, keys, func(i int, v []byte, ok bool) {
		if ok != (i%2 == 0) || (ok && string(v) != keys[i]) {
			t.Errorf("%s: %q %v", keys[i], v, ok)
		}
		if ok {
			found++
		}
	})
	if err != nil || found != 25 {
		t.Fatalf("GetMulti: %v, %d found", err, found)
	}
	if n := commandsProcessed(t, addr) - before; n != 2 { // the MGET and the second INFO
		t.Errorf("GetMulti of 50 keys took %d commands", n-1)
	}
}
