package kvtest

import "time"

// checkStats checks that each counter moves with the operation that should
// move it, and the configured limits read back.
func checkStats(h *harness) {
	t := h.t
	st := h.stats()
	if st.Keys != 0 || st.Hits != 0 || st.Misses != 0 || st.Expired != 0 || st.Rejected != 0 || st.Compressed != 0 {
		t.Fatalf("a new engine's stats: %+v", st)
	}
	if st.BytesLimit <= 0 || st.BytesLimit > h.cfg.MemoryLimit {
		t.Errorf("BytesLimit %d, configured memory limit %d", st.BytesLimit, h.cfg.MemoryLimit)
	}
	if st.MaxValueSize != h.cfg.MaxValueSize || st.CompressMin != h.cfg.CompressMin {
		t.Errorf("MaxValueSize %d, CompressMin %d; configured %d, %d", st.MaxValueSize, st.CompressMin, h.cfg.MaxValueSize, h.cfg.CompressMin)
	}

	// Keys and bytes: up with a new key, back down with its delete.
	base := h.stats()
	h.set("plain", string(noise(3000)), 0)
	st = h.stats()
	slack := h.target.MemorySlack
	if st.Keys != base.Keys+1 || st.BytesUsed < base.BytesUsed+3000-slack || st.Compressed != base.Compressed {
		t.Fatalf("after a 3000-byte incompressible Set: keys %d, bytes %d (before %d, %d), compressed %d",
			st.Keys, st.BytesUsed, base.Keys, base.BytesUsed, st.Compressed)
	}
	if _, err := h.e.Del("plain"); err != nil {
		t.Fatal(err)
	}
	if st = h.stats(); st.Keys != base.Keys || st.BytesUsed < base.BytesUsed-slack || st.BytesUsed > base.BytesUsed+slack {
		t.Fatalf("after its Del: keys %d, bytes %d, want %d, %d", st.Keys, st.BytesUsed, base.Keys, base.BytesUsed)
	}

	// Compressed: a compressible value from CompressMin, and its bytes
	// are the compressed ones. An engine that never compresses
	// (CompressMin 0) counts none.
	if h.cfg.CompressMin > 0 {
		big := compressible(int(h.cfg.CompressMin) * 8)
		h.set("big", big, 0)
		if st = h.stats(); st.Compressed != base.Compressed+1 || st.BytesUsed >= base.BytesUsed+int64(len(big)) {
			t.Fatalf("after a %d-byte compressible Set: compressed %d, bytes %d (before %d)", len(big), st.Compressed, st.BytesUsed, base.BytesUsed)
		}
		h.set("big", "small now", 0)
		if st = h.stats(); st.Compressed != base.Compressed {
			t.Fatalf("after overwriting it with a small value: compressed %d", st.Compressed)
		}
		h.set("small", compressible(int(h.cfg.CompressMin)-1), 0)
	} else {
		h.set("big", compressible(8<<10), 0)
		h.set("small", "small", 0)
	}
	if st = h.stats(); st.Compressed != base.Compressed {
		t.Fatalf("a value under CompressMin (or with compression off) was compressed: %d", st.Compressed)
	}

	// Hits and misses: one per Get, the two-call read counting once.
	base = h.stats()
	h.get("small")
	h.get("nope")
	h.get("nope")
	n, _, err := h.e.Get("big", nil)
	h.noErr("Get", err)
	if _, _, err := h.e.Get("big", make([]byte, n)); err != nil {
		t.Fatal(err)
	}
	if st = h.stats(); st.Hits != base.Hits+2 || st.Misses != base.Misses+2 {
		t.Fatalf("two hits and two misses counted as %d and %d", st.Hits-base.Hits, st.Misses-base.Misses)
	}

	// Expired: counted once when a write, or a Get, meets an expired
	// entry, which it reclaims or replaces.
	writes := []struct {
		name    string
		write   func() error
		replace bool // the write leaves a live entry in its place
	}{
		{"Get", func() error { _, _, err := h.e.Get("short", nil); return err }, false},
		{"Del", func() error { _, err := h.e.Del("short"); return err }, false},
		{"DelIfEq", func() error { _, err := h.e.DelIfEq("short", []byte("v")); return err }, false},
		{"Expire", func() error { _, err := h.e.Expire("short", time.Minute); return err }, false},
		{"Set", func() error { return h.e.Set("short", []byte("w"), 0) }, true},
		{"SetNX", func() error { _, err := h.e.SetNX("short", []byte("w"), 0); return err }, true},
		{"Incr", func() error { _, err := h.e.Incr("short", 1, 0); return err }, true},
	}
	for _, w := range writes {
		h.set("short", "v", expireSoon)
		h.waitExpiry()
		before := h.stats()
		h.noErr(w.name, w.write())
		st = h.stats()
		keys := before.Keys - 1
		if w.replace {
			keys++
		}
		if h.target.ExpiresUnseen {
			// Gone before the write: the cluster expired it, unseen.
			if keys++; st.Expired != 0 || st.Keys != keys {
				t.Errorf("%s of a key the cluster expired: expired %d, keys %d (before %d)", w.name, st.Expired, st.Keys, before.Keys)
			}
		} else if st.Expired != before.Expired+1 || st.Keys != keys {
			t.Errorf("%s of an expired key: expired +%d, keys %d (before %d)", w.name, st.Expired-before.Expired, st.Keys, before.Keys)
		}
		if _, err := h.e.Del("short"); err != nil {
			t.Fatal(err)
		}
	}
	// Rejected moves in the full checks.
}

// With compression off nothing is compressed, and CompressMin reads 0.
func checkStatsCompressionOff(h *harness) {
	h.set("big", compressible(10000), 0)
	if st := h.stats(); st.Compressed != 0 || st.CompressMin != 0 || st.BytesUsed < 10000 {
		h.t.Fatalf("compression off: %+v", st)
	}
	if v := h.value("big"); v != compressible(10000) {
		h.t.Fatal("the value changed")
	}
}
