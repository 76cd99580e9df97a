package shm

import (
	"fmt"
	"math/bits"
	"sync/atomic"
	"time"
	"unsafe"
)

// Segment layout (byte offsets from the base, little-endian words, 8-byte
// aligned): a 4 KiB header, the stripe table, the per-stripe free list
// heads, the bucket index, then the arena. Everything but the header is
// derived from the segment size alone, so size and version pin the layout.
const (
	segMagic      = "EPHPMSHM"
	layoutVersion = 5 // 3: stripes keep a freeMask, which a v2 segment has all clear; 4: ghost slots; 5: intents are kv.LeaseIntent
	headerSize    = 4096
	stripeBytes   = 192 // three cache lines: the lock word and its stripe's counters, journal and SIEVE queue

	// MinSize is the smallest segment Attach accepts.
	MinSize = 256 << 10

	minStripes     = 8
	maxStripes     = 4096
	bytesPerStripe = 256 << 10
	bytesPerBucket = 256 // at most ~2 records a chain when the segment is full of lock-sized records
	arenaAlign     = 64
	// MaxSize is the largest segment: journal words hold 40-bit offsets.
	MaxSize = 1 << offsetBits
)

// Header words.
const (
	hMagic   = 0
	hVersion = 8
	hSize    = 16
	hStripes = 24
	hBuckets = 32
	hClasses = 40
	hArena   = 48
	hInit    = 64  // initZero, initFormatting (| owner word << 8 ... see format), initReady
	hBump    = 128 // next free arena byte; own cache line, every process allocates there
	hFence   = 192 // last fence issued; own cache line
	hRepairs = 256 // stripes repaired after their owner died (diagnostics)
	hSeed    = 320 // hashSeed, two words, written once by format
	// The fence floor: a resource without a fence record accepts a fence
	// only from here (int64; see fence.go). Own cache line.
	hFenceFloor = 384

	// The coalescing pass (coalesce.go), its own cache line: the owner
	// word of the process running one (0: none), the free bytes the last
	// one left when it made no room (0: it made room), when (nanotime) the
	// last ended, how many ran, and how many records compactions moved.
	hCoalesce     = 512
	hCoalesceFree = 520
	hCoalesceAt   = 528
	hCoalesces    = 536
	hMoves        = 544 // records a compaction moved (compact.go)
)

const (
	initZero  = 0
	initReady = 2
	// A formatting process stores its owner word (start<<32 | pid, never
	// 0 or 2 since pids are > 2 for any process that attaches).
)

// geometry is what a segment size implies.
type geometry struct {
	size       uint64
	stripes    uint64 // power of two
	stripeMask uint64
	buckets    uint64 // power of two, >= stripes; bucket b belongs to stripe b & stripeMask
	bucketMask uint64
	classes    uint64
	stripesOff uint64
	freeOff    uint64 // stripes*classes free list heads
	bucketsOff uint64
	ghostsOff  uint64 // ghost slots (ghost.go)
	ghostShift uint64 // 32 - log2(ghost slots)
	arenaOff   uint64
	arenaEnd   uint64
	maxChain   uint64 // more links than the arena holds blocks: a chain that loops
}

func pow2Floor(n uint64) uint64 {
	p := uint64(1)
	for p*2 <= n {
		p *= 2
	}
	return p
}

func geometryFor(size uint64) geometry {
	g := geometry{size: size}
	g.stripes = min(max(pow2Floor(size/bytesPerStripe), minStripes), maxStripes)
	g.stripeMask = g.stripes - 1
	g.buckets = max(pow2Floor(size/bytesPerBucket), g.stripes)
	g.bucketMask = g.buckets - 1
	g.stripesOff = headerSize
	g.freeOff = g.stripesOff + g.stripes*stripeBytes
	// Classes up to the first one as large as the whole segment: whatever
	// fits in the arena has a class.
	g.classes = uint64(classFor(size)) + 1
	g.bucketsOff = g.freeOff + g.stripes*g.classes*8
	g.ghostsOff = g.bucketsOff + g.buckets*8
	ghosts := max(g.buckets/ghostsPerBucket, 64)
	g.ghostShift = 32 - uint64(bits.TrailingZeros64(ghosts))
	g.arenaOff = alignUp(g.ghostsOff+ghosts*4, arenaAlign)
	g.arenaEnd = size &^ (arenaAlign - 1)
	g.maxChain = (g.arenaEnd-g.arenaOff)/classSizes[0] + 1
	return g
}

func alignUp(n, a uint64) uint64 { return (n + a - 1) &^ (a - 1) }

// Engine implements kv.Engine (and kv.ReleaseWaiter) on a segment. It is
// safe for concurrent use by goroutines and by other processes attached to
// the same segment.
type Engine struct {
	mem  []byte
	base unsafe.Pointer
	geometry
	maxValue    int64
	compressMin int64 // <= 0: never
	seed        hashSeed
	lockTimeout time.Duration
	fault       atomic.Pointer[error] // set by Fault: the segment shrank
}

func (e *Engine) at(off uint64) unsafe.Pointer { return unsafe.Add(e.base, off) }
func (e *Engine) word(off uint64) *uint64      { return (*uint64)(e.at(off)) }

func (e *Engine) stripe(si uint64) *stripe {
	return (*stripe)(e.at(e.stripesOff + si*stripeBytes))
}

// freeHead is the head of stripe si's free list of class c.
func (e *Engine) freeHead(si, c uint64) *uint64 {
	return e.word(e.freeOff + (si*e.classes+c)*8)
}

func (e *Engine) bucket(b uint64) *uint64 { return e.word(e.bucketsOff + b*8) }

// stripe is one stripe's shared state. Everything but the mutex word,
// seq (read by futex) and waiters is only touched under the mutex.
type stripe struct {
	mu      stripeMutex // 0
	seq     uint32      // 8: release sequence, bumped on every delete/expiry/change; futex word
	waiters uint32      // 12: someone sleeps on seq
	jAlloc  uint64      // 16: journal: block being allocated (offset | class<<48)
	jFree   uint64      // 24: journal: block being freed
	keys    int64       // 32: user records in the chains, expired ones included
	bytes   int64       // 40: block bytes of user and fence records
	comp    int64       // 48: user records stored compressed
	fences  int64       // 56: fence records
	hits    int64       // 64
	misses  int64       // 72
	expired int64       // 80
	reject  int64       // 88
	jOut    uint64      // 96: journal: block being moved to another stripe's list (see steal)
	// 104: a lower bound of the deadlines of the stripe's records (0 =
	// none has one): a reclaim pass skips stripes where nothing expired.
	minDL       int64
	fenceBytes  int64 // 112: block bytes of fence records (bounded, see foldFences)
	quarantined int64 // 120: user records found corrupt, kept unreadable (quarantine.go)
	// 128: the SIEVE queue of the stripe's evictable records (sieve.go):
	// its oldest and newest record and the hand (0: none, or the oldest).
	qOldest, qNewest, qHand uint64
	evictBytes              int64 // 152: block bytes of evictable records
	evicted                 int64 // 160: evictable records dropped to make room
	// 168: bit c set when the free list of class c may hold a block. Set
	// before a push, cleared when a pop empties the list (both under the
	// lock), so a list with blocks never reads clear: other stripes' writers
	// looking for a block to steal skip the rest (alloc.go).
	freeMask [2]uint64
}

var _ [stripeBytes - unsafe.Sizeof(stripe{})]byte // the struct fits its slot

// Attach formats mem when it is all zero (a fresh segment) or attaches to
// the store it holds. mem must stay mapped while the Engine is used.
func Attach(mem []byte, cfg Config) (*Engine, error) {
	size := uint64(len(mem))
	if size < MinSize || size > MaxSize {
		return nil, fmt.Errorf("%w: %d bytes is outside %d..%d", ErrIncompatible, size, MinSize, uint64(MaxSize))
	}
	base := unsafe.Pointer(unsafe.SliceData(mem))
	if uintptr(base)%arenaAlign != 0 {
		return nil, fmt.Errorf("%w: segment base %p is not %d-byte aligned", ErrIncompatible, base, arenaAlign)
	}
	e := &Engine{mem: mem, base: base, geometry: geometryFor(size)}
	e.maxValue = cfg.MaxValueSize
	if e.maxValue <= 0 {
		e.maxValue = DefaultMaxValueSize
	}
	// No longer than a record's 32-bit lengths hold: put's fast path
	// (a value stored as it is) checks maxValue alone.
	e.maxValue = min(e.maxValue, maxRecordValue)
	e.lockTimeout = cfg.LockTimeout
	if e.lockTimeout <= 0 {
		e.lockTimeout = DefaultLockTimeout
	}
	e.compressMin = cfg.CompressMin
	if e.compressMin == 0 {
		e.compressMin = DefaultCompressMin
	}
	if err := e.formatOrWait(); err != nil {
		return nil, err
	}
	if err := e.checkHeader(); err != nil {
		return nil, err
	}
	e.seed = hashSeed{*e.word(hSeed), *e.word(hSeed + 8)}
	// Fences never go back, not even across a segment that was dropped
	// and formatted again: raise the counter to the wall clock, in ns
	// (a process issues over a million fences a second, so a counter
	// seeded in microseconds was overtaken within a second).
	raiseTo(e.word(hFence), wallNanos())
	return e, nil
}

// Defaults for Config's zero fields (the same as the in-process store's).
const (
	DefaultMaxValueSize = 1 << 20
	DefaultCompressMin  = 1 << 10
)

// wallNanos seeds the fence counter; tests step it.
var wallNanos = func() int64 { return time.Now().UnixNano() }

func raiseTo(w *uint64, v int64) {
	for {
		cur := atomic.LoadUint64(w)
		if int64(cur) >= v || atomic.CompareAndSwapUint64(w, cur, uint64(v)) {
			return
		}
	}
}

// formatOrWait formats a zero segment (the first process to CAS the init
// word does it) or waits for the formatter; a formatter that died is
// replaced, since formatting is idempotent on a segment nobody uses yet.
func (e *Engine) formatOrWait() error {
	init := e.word(hInit)
	deadline := time.Now().Add(10 * time.Second)
	for {
		// Someone else's data is never formatted over: a magic that is
		// set and not ours, or an init word no formatter writes, refuses.
		if m := atomic.LoadUint64(e.word(hMagic)); m != 0 && string(e.mem[hMagic:hMagic+8]) != segMagic {
			return e.incompatible()
		}
		st := atomic.LoadUint64(init)
		switch {
		case st == initReady:
			return nil
		case st == initZero:
			if atomic.CompareAndSwapUint64(init, initZero, self()) {
				e.format()
				atomic.StoreUint64(init, initReady)
				return nil
			}
		case !plausibleOwner(st):
			return fmt.Errorf("%w: the segment's init word %#x is not ephpm-kv's; this process wants layout v%d / %s",
				ErrIncompatible, st, layoutVersion, sizeString(e.size))
		case !ownerAlive(st):
			if atomic.CompareAndSwapUint64(init, st, self()) {
				e.format()
				atomic.StoreUint64(init, initReady)
				return nil
			}
		default:
			if time.Now().After(deadline) {
				return fmt.Errorf("%w: another process (owner word %#x) has been formatting the segment for 10 s", ErrIncompatible, st)
			}
			time.Sleep(time.Millisecond)
		}
	}
}

// plausibleOwner reports whether w could be an owner word (a pid the kernel
// can issue).
func plausibleOwner(w uint64) bool {
	pid := uint32(w) &^ waitersBit
	return pid > 0 && pid <= 1<<22 && uint32(w)&waitersBit == 0
}

// format writes the header of a fresh segment. The rest is valid zeroed:
// free locks, empty chains, empty free lists.
func (e *Engine) format() {
	*e.word(hVersion) = layoutVersion
	*e.word(hSize) = e.size
	*e.word(hStripes) = e.stripes
	*e.word(hBuckets) = e.buckets
	*e.word(hClasses) = e.classes
	*e.word(hArena) = e.arenaOff
	seed := newHashSeed()
	*e.word(hSeed), *e.word(hSeed + 8) = seed[0], seed[1]
	atomic.StoreUint64(e.word(hBump), e.arenaOff)
	atomic.StoreUint64(e.word(hFence), uint64(wallNanos()))
	atomic.StoreUint64(e.word(hFenceFloor), 1<<63) // math.MinInt64: no fence refused yet
	copy(e.mem[hMagic:hMagic+8], segMagic)
}

func (e *Engine) checkHeader() error {
	if string(e.mem[hMagic:hMagic+8]) != segMagic {
		return e.incompatible()
	}
	v, sz := *e.word(hVersion), *e.word(hSize)
	if v != layoutVersion || sz != e.size || *e.word(hStripes) != e.stripes ||
		*e.word(hBuckets) != e.buckets || *e.word(hClasses) != e.classes || *e.word(hArena) != e.arenaOff {
		return e.incompatible()
	}
	return nil
}

func (e *Engine) incompatible() error {
	if string(e.mem[hMagic:hMagic+8]) != segMagic {
		return fmt.Errorf("%w: the segment is not an ephpm-kv segment (magic %q); this process wants layout v%d / %s",
			ErrIncompatible, e.mem[hMagic:hMagic+8], layoutVersion, sizeString(e.size))
	}
	return fmt.Errorf("%w: segment formatted by layout v%d for %s; this process wants v%d / %s",
		ErrIncompatible, *e.word(hVersion), sizeString(*e.word(hSize)), layoutVersion, sizeString(e.size))
}

func sizeString(n uint64) string {
	switch {
	case n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
