package shm

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"
)

func TestAttachSharesOneStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "seg")
	m1, err := MapFile(path, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer Unmap(m1)
	e1, err := Attach(m1, Config{})
	if err != nil {
		t.Fatal(err)
	}
	e1.Set("k", []byte("from one"), 0)
	m2, err := MapFile(path, 1<<20) // another mapping: what a second process sees
	if err != nil {
		t.Fatal(err)
	}
	defer Unmap(m2)
	e2, err := Attach(m2, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := get(t, e2, "k"); v != "from one" {
		t.Fatalf("second mapping reads %q", v)
	}
}

func TestIncompatibleSegments(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "seg")
	m1, err := MapFile(path, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer Unmap(m1)
	if _, err := Attach(m1, Config{}); err != nil {
		t.Fatal(err)
	}
	// The same segment mapped at another size.
	m2, err := MapFile(path, 2<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer Unmap(m2)
	_, err = Attach(m2, Config{})
	if !errors.Is(err, ErrIncompatible) || !strings.Contains(err.Error(), fmt.Sprintf("layout v%d for 1 MiB; this process wants v%[1]d / 2 MiB", layoutVersion)) {
		t.Fatalf("other size: %v", err)
	}
	// Another layout version.
	*(*uint64)(m1Word(m1, hVersion)) = 99
	if _, err := Attach(m1, Config{}); !errors.Is(err, ErrIncompatible) || !strings.Contains(err.Error(), fmt.Sprintf("layout v99 for 1 MiB; this process wants v%d / 1 MiB", layoutVersion)) {
		t.Fatalf("other version: %v", err)
	}
	// Not a segment at all.
	junk, _ := MapAnonymous(1 << 20)
	defer Unmap(junk)
	copy(junk, "some other data")
	if _, err := Attach(junk, Config{}); !errors.Is(err, ErrIncompatible) || !strings.Contains(err.Error(), "not an ephpm-kv segment") {
		t.Fatalf("junk: %v", err)
	}
	// Junk everywhere, the init word too: refused, not formatted over.
	junk2, _ := MapAnonymous(1 << 20)
	defer Unmap(junk2)
	for i := range junk2 {
		junk2[i] = 0x5a
	}
	if _, err := Attach(junk2, Config{}); !errors.Is(err, ErrIncompatible) || junk2[4096] != 0x5a {
		t.Fatalf("junk everywhere: %v", err)
	}
	// Zero where the magic goes, junk in the init word.
	clear(junk2[:8])
	if _, err := Attach(junk2, Config{}); !errors.Is(err, ErrIncompatible) || !strings.Contains(err.Error(), "init word") {
		t.Fatalf("junk init word: %v", err)
	}
	// Too small.
	small, _ := MapAnonymous(64 << 10)
	defer Unmap(small)
	if _, err := Attach(small, Config{}); !errors.Is(err, ErrIncompatible) {
		t.Fatalf("small: %v", err)
	}
}

func m1Word(mem []byte, off int) *uint64 { return (*uint64)(unsafe.Pointer(&mem[off])) }

func TestFormatterDiedIsReplaced(t *testing.T) {
	mem, _ := MapAnonymous(1 << 20)
	defer Unmap(mem)
	// A process died halfway through formatting.
	*m1Word(mem, hInit) = deadOwner(t)
	*m1Word(mem, hVersion) = layoutVersion
	e, err := Attach(mem, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Set("k", []byte("v"), 0); err != nil {
		t.Fatal(err)
	}
	mustVerify(t, e)
}

func TestGeometry(t *testing.T) {
	for _, size := range []uint64{MinSize, 1 << 20, 64 << 20, 1 << 30, 3<<20 + 4096} {
		g := geometryFor(size)
		if g.arenaOff >= g.arenaEnd || g.arenaEnd > size || g.buckets < g.stripes || g.stripes&(g.stripes-1) != 0 {
			t.Fatalf("%d: %+v", size, g)
		}
		// The largest class holds the whole arena: any record that fits
		// has a class.
		if classSizes[g.classes-1] < g.arenaEnd-g.arenaOff || g.classes > maxClasses {
			t.Fatalf("%d: %d classes", size, g.classes)
		}
	}
	if g := geometryFor(64 << 20); g.stripes != 256 || g.buckets != 256<<10 {
		t.Fatalf("64 MiB: %d stripes %d buckets", g.stripes, g.buckets)
	}
}

func TestClassFor(t *testing.T) {
	for n := uint64(0); n < 1<<20; n++ {
		c := classFor(n)
		if classSizes[c] < n || (c > 0 && classSizes[c-1] >= n) {
			t.Fatalf("classFor(%d) = %d (%d bytes)", n, c, classSizes[c])
		}
	}
}

// hashKey spreads lock-like keys evenly: with as many keys as buckets, no
// chain gets long (a poor hash piles similar keys into few buckets).
func TestHashSpreadsKeys(t *testing.T) {
	const buckets = 1 << 18
	var chains [buckets]uint8
	longest := uint8(0)
	seed := newHashSeed()
	for i := range buckets {
		for _, key := range []string{fmt.Sprint("lock:", i), fmt.Sprintf("PHPREDIS_SESSION:%026x", i)} {
			b := seed.sum(key) & (buckets - 1)
			chains[b]++
			longest = max(longest, chains[b])
		}
	}
	// Two keys a bucket on average, the seed random: Poisson(2) gives one
	// of 2^18 buckets 17 keys once in 10^5 runs.
	if longest > 16 {
		t.Fatalf("a chain of %d keys at load 2", longest)
	}
}
