package kvtest

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// Config is what the suite asks of a new engine. Every field is set.
type Config struct {
	MemoryLimit  int64 // bytes the store may hold (the engine may keep less: a segment has its own overhead)
	MaxValueSize int64 // largest value accepted, before compression
	CompressMin  int64 // values from this size are tried compressed; < 0: never
}

// DefaultConfig is the configuration of every check but the "full" ones.
var DefaultConfig = Config{MemoryLimit: 16 << 20, MaxValueSize: 64 << 10, CompressMin: 1 << 10}

// Target is an engine under test and what the suite must know of it. What
// legitimately differs between engines is a field here, never a skip.
type Target struct {
	// Open returns a new, empty engine with cfg's limits, and peer, which
	// opens another client of the same store (another connection, another
	// attach of the segment) for the concurrent checks; a nil peer means
	// the goroutines share e itself. The engine must not sweep expired
	// entries in the background meanwhile: the stats checks count what a
	// write reclaims.
	Open func(t *testing.T, cfg Config) (e kv.Engine, peer func() kv.Engine)
	// TTLResolution bounds how far a TTL read back may be from the one
	// set, beyond the time that passed: 1 ns in process; in server mode
	// TTLs travel in milliseconds (rounded up on the way in, truncated on
	// the way out), so 2 ms.
	TTLResolution time.Duration
	// WaitsOnRelease says the engine implements kv.ReleaseWaiter (the shared
	// segment's futex words); the others let waiters back off instead.
	WaitsOnRelease bool
	// Limits, when set, gives the limits an engine that Open made for cfg
	// really has, for an engine that cannot take cfg's as they are (a
	// Redis: its largest value is proto-max-bulk-len, at least 1 MiB; its
	// maxmemory counts its own overhead too; it never compresses, which
	// CompressMin 0 says). nil: cfg's.
	Limits func(cfg Config) Config
	// ReclaimExpired, when set, says the engine reclaims expired entries
	// only in the background (a Redis's active expiry), not when a write
	// needs their room: the suite calls it where it expects them gone, and
	// it returns once they are. nil: a write reclaims them itself.
	ReclaimExpired func(t *testing.T)
	// MemorySlack is how far the engine's memory accounting moves besides
	// its entries: 0 when it counts entries only; a Redis's used_memory
	// also counts its client buffers and scripts, which grow and shrink
	// by tens of KiB, and it refuses a write only once it is over its
	// limit. The memory checks allow this much either way.
	MemorySlack int64
	// FencesAreKeys says the engine keeps its fence counter and each
	// resource's fence record as keys of its own keyspace (a Redis, under
	// an "ephpm:" prefix), so they count in Stats.Keys, and Flush (the
	// server's FLUSHDB) takes the records with the keys.
	FencesAreKeys bool
	// FencesPerHashTag says fences rise per Redis Cluster hash tag only (the
	// counter must share its lock's slot), not across every lock name. The
	// checks that compare fences of several names then give the names one
	// tag; fences of names in different tags are not comparable.
	FencesPerHashTag bool
	// FullPerSlot says the engine is full per node, not as a whole (a Redis
	// Cluster: a master over its maxmemory refuses writes of its slots
	// while the others take theirs). The "full" check then names every
	// key under one hash tag, so one master fills and refuses.
	FullPerSlot bool
	// ExpiryLag is how much later than its ttl an expired entry may still
	// be seen: 0 where every access checks the deadline. etcd rounds a
	// lease up to whole seconds (at least the cluster's shortest lease)
	// and revokes expired leases from a loop on the leader (every 500 ms),
	// through consensus. Later, never sooner: a lock may outlive its ttl
	// a little, never fall short of it.
	ExpiryLag time.Duration
	// ExpiresUnseen says the engine's store expires entries itself, unseen by
	// clients (etcd revokes leases): Stats.Expired stays 0, and an expired
	// key is gone from Stats.Keys before any write meets it.
	ExpiresUnseen bool
	// FullCheckedBy, when set, names the engine's own test of kv.ErrFull:
	// the engine keeps no memory limit of its own (the cluster's quota,
	// etcd's --quota-backend-bytes, is its operator's, and freeing room
	// after it is reached is the operator's too), so the Full checks,
	// which fill the store to cfg.MemoryLimit and free room with Del,
	// do not apply.
	FullCheckedBy string
	// EvictableHeld says the engine takes kv.Cache's SetEvictable but stores
	// held entries (a Valkey or Redis: its eviction policies would evict
	// locks too, so the client refuses them). The eviction checks then
	// give way to CacheHeld, as for an engine without kv.Cache.
	EvictableHeld bool
	// FenceIsCreateRevision says the fence of a key is its create revision
	// (etcd): every key has one, however it was written, and it stays
	// while the key is overwritten. KeyInfo.Fence then reports it for
	// plain values too.
	FenceIsCreateRevision bool
	// Parallel says the checks may run at once, each on the engine it opens
	// (nothing shared between two Opens, as with etcd under a prefix of
	// its own): for an engine whose checks mostly wait out expiries.
	Parallel bool
}

// fullName is name as the "full" check uses it.
func (t Target) fullName(name string) string {
	if t.FullPerSlot {
		return "{full}" + name
	}
	return name
}

// fenceName is name as the fence checks use it: under one hash tag when
// fences rise per tag only.
func (t Target) fenceName(name string) string {
	if t.FencesPerHashTag {
		return "{fences}" + name
	}
	return name
}

// Run runs every semantic check on engines from target. Each subtest opens
// its own engine.
func Run(t *testing.T, target Target) {
	var open func(t *testing.T, cfg Config) *harness
	open = func(t *testing.T, cfg Config) *harness {
		t.Helper()
		e, peer := target.Open(t, cfg)
		h := &harness{t: t, e: e, peer: peer, given: cfg, cfg: cfg, target: target, open: open}
		if target.Limits != nil {
			h.cfg = target.Limits(cfg)
		}
		if peer == nil {
			h.peer = func() kv.Engine { return e }
		}
		return h
	}
	checks := []struct {
		name  string
		cfg   Config
		check func(h *harness)
	}{
		{"GetSet", DefaultConfig, checkGetSet},
		{"GetBuffer", DefaultConfig, checkGetBuffer},
		{"SetNX", DefaultConfig, checkSetNX},
		{"Del", DefaultConfig, checkDel},
		{"DelIfEq", DefaultConfig, checkDelIfEq},
		{"Exists", DefaultConfig, checkExists},
		{"Expire", DefaultConfig, checkExpire},
		{"ExpireIfEq", DefaultConfig, checkExpireIfEq},
		{"TTL", DefaultConfig, checkTTLValues},
		{"TTLIfEq", DefaultConfig, checkTTLIfEq},
		{"TTLRange", DefaultConfig, func(h *harness) {
			seed := uint64(time.Now().UnixNano())
			h.t.Logf("seed %d", seed)
			ttls := TTLInputs(rand.New(rand.NewPCG(seed, seed)), 300)
			// One subtest per operation: each is independent of the
			// others, and on an engine where every write is a round of
			// consensus they run side by side.
			for _, op := range ttlOps {
				h.sub(op.name, func(h *harness) { checkTTLsOf(h.t, h.e, op, target.TTLResolution, ttls) })
			}
		}},
		{"Incr", DefaultConfig, checkIncr},
		{"Fences", DefaultConfig, checkFences},
		{"Flush", DefaultConfig, checkFlush},
		{"FlushRefusesStaleFences", DefaultConfig, checkFlushFences},
		{"Session", DefaultConfig, func(h *harness) { CheckSessionOpsLag(h.t, h.e, target.ExpiryLag) }},
		{"SessionRefuse", DefaultConfig, func(h *harness) {
			CheckSessionOpsRefuse(h.t, h.e, make([]byte, h.cfg.MaxValueSize+1))
		}},
		{"SessionsSerialize", DefaultConfig, func(h *harness) { CheckSessionsSerialize(h.t, h.peer, 6, 100) }},
		{"EmptyKey", DefaultConfig, checkEmptyKey},
		{"KeyTooLarge", DefaultConfig, checkKeyTooLarge},
		{"ValueTooLarge", DefaultConfig, checkValueTooLarge},
		{"Full", fullConfig, checkFull},
		{"FullReclaimsExpired", fullConfig, checkFullReclaimsExpired},
		{"MutualExclusion", DefaultConfig, checkMutualExclusion},
		{"OneWinner", DefaultConfig, checkOneWinner},
		{"IncrExact", DefaultConfig, checkIncrExact},
		{"FencesConcurrent", DefaultConfig, checkFencesConcurrent},
		{"WaitRelease", DefaultConfig, checkWaitRelease},
		{"Stats", DefaultConfig, checkStats},
		{"LeaseReadWrite", DefaultConfig, checkLeaseReadWrite},
		{"LeaseIntent", DefaultConfig, checkLeaseIntent},
		{"LeaseModeChange", DefaultConfig, checkLeaseModeChange},
		{"LeaseModeMix", DefaultConfig, checkLeaseModeMix},
		{"LeasePermitBesideWriter", DefaultConfig, checkLeasePermitBesideWriter},
		{"LeaseKeyExpire", DefaultConfig, checkLeaseKeyExpire},
		{"LeasePlainWrites", DefaultConfig, checkLeasePlainWrites},
		{"LeaseSemaphore", DefaultConfig, checkLeaseSemaphore},
		{"LeaseExpiry", DefaultConfig, checkLeaseExpiry},
		{"LeaseRenew", DefaultConfig, checkLeaseRenew},
		{"LeaseShortenedKeyGoes", DefaultConfig, checkLeaseShortenedKeyGoes},
		{"LeaseTTL", DefaultConfig, checkLeaseTTL},
		{"LeaseFences", DefaultConfig, checkLeaseFences},
		{"LeaseRelease", DefaultConfig, checkLeaseRelease},
		{"LeaseBadArgs", DefaultConfig, checkLeaseBadArgs},
		{"LeaseWrongType", DefaultConfig, checkLeaseWrongType},
		{"LeaseMaxHolders", DefaultConfig, checkLeaseMaxHolders},
		{"LeaseSemaphoreConcurrent", DefaultConfig, checkLeaseSemaphoreConcurrent},
		{"RateLimit", DefaultConfig, checkRateLimit},
		{"RateLimitExact", DefaultConfig, checkRateLimitExact},
		{"RateLimitConcurrent", DefaultConfig, checkRateLimitConcurrent},
		{"RateLimitChangedLimit", DefaultConfig, checkRateLimitChangedLimit},
		{"RateLimitShorterWindow", DefaultConfig, checkRateLimitShorterWindow},
		{"RateLimitBadArgs", DefaultConfig, checkRateLimitBadArgs},
		{"GetMulti", DefaultConfig, checkGetMulti},
		{"DelMulti", DefaultConfig, checkDelMulti},
		{"SetIfEq", DefaultConfig, checkSetIfEq},
		{"Leader", DefaultConfig, checkLeader},
		{"Barrier", DefaultConfig, checkBarrier},
		{"Queue", DefaultConfig, checkQueue},
		{"QueueConcurrent", DefaultConfig, checkQueueConcurrent},
		{"QueueFull", fullConfig, checkQueueFull},
		{"Scan", DefaultConfig, checkScan},
		{"ScanFence", DefaultConfig, checkScanFence},
		{"CacheSetEvictable", DefaultConfig, checkCacheSetEvictable},
		{"CacheSetNXEvictable", DefaultConfig, checkCacheSetNXEvictable},
		{"CacheHeldNeverEvicted", fullConfig, checkCacheHeldNeverEvicted},
		{"CacheEvictsOnlyWhenNeeded", fullConfig, checkCacheEvictsOnlyWhenNeeded},
		{"CacheHeldWriteEvicts", fullConfig, checkCacheHeldWriteEvicts},
		{"CacheHotSurvivesScan", fullConfig, checkCacheHotSurvivesScan},
		{"CacheLastWriteDecides", fullConfig, checkCacheLastWriteDecides},
		{"CacheBytesEvictable", fullConfig, checkCacheBytesEvictable},
		{"CacheFlushedGenerations", Config{MemoryLimit: 4 << 20, MaxValueSize: 16 << 10, CompressMin: -1}, checkCacheFlushedGenerations},
		{"CacheHeld", fullConfig, checkCacheHeld},
		{"StatsCompressionOff", Config{MemoryLimit: 16 << 20, MaxValueSize: 64 << 10, CompressMin: -1}, checkStatsCompressionOff},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			if target.Parallel {
				t.Parallel()
			}
			if target.FullCheckedBy != "" && c.cfg == fullConfig {
				t.Logf("no memory limit of the engine's own: kv.ErrFull is checked by %s", target.FullCheckedBy)
				return
			}
			c.check(open(t, c.cfg))
		})
	}
}

// harness is one subtest's engine with helpers that fail the test on
// errors it does not expect.
type harness struct {
	t      *testing.T
	e      kv.Engine
	peer   func() kv.Engine
	given  Config // the config Open was given
	cfg    Config // the limits the engine has (Target.Limits)
	target Target
	open   func(t *testing.T, cfg Config) *harness
}

// sub runs check as a subtest named name on a new engine of its own (the
// same config), in parallel with its siblings when the target allows it:
// for a check made of independent parts that mostly wait on the engine.
func (h *harness) sub(name string, check func(h *harness)) {
	h.t.Helper()
	h.t.Run(name, func(t *testing.T) {
		if h.target.Parallel {
			t.Parallel()
		}
		check(h.open(t, h.given))
	})
}

func (h *harness) noErr(what string, err error) {
	h.t.Helper()
	if err != nil {
		h.t.Fatalf("%s: %v", what, err)
	}
}

func (h *harness) set(key, value string, ttl time.Duration) {
	h.t.Helper()
	h.noErr("Set "+key, h.e.Set(key, []byte(value), ttl))
}

// get reads key through the two-call buffer protocol, as the C side does.
func (h *harness) get(key string) (string, bool) {
	h.t.Helper()
	buf := make([]byte, 8)
	for {
		n, found, err := h.e.Get(key, buf)
		h.noErr("Get "+key, err)
		if !found {
			return "", false
		}
		if n <= len(buf) {
			return string(buf[:n]), true
		}
		buf = make([]byte, n)
	}
}

// value is get's value, "(absent)" when there is none.
func (h *harness) value(key string) string {
	h.t.Helper()
	if v, ok := h.get(key); ok {
		return v
	}
	return "(absent)"
}

func (h *harness) ttl(key string) time.Duration {
	h.t.Helper()
	d, err := h.e.TTL(key)
	h.noErr("TTL "+key, err)
	return d
}

func (h *harness) exists(key string) bool {
	h.t.Helper()
	ok, err := h.e.Exists(key)
	h.noErr("Exists "+key, err)
	return ok
}

func (h *harness) stats() kv.Stats {
	h.t.Helper()
	st, err := h.e.Stats()
	h.noErr("Stats", err)
	return st
}

// within reports whether d is a time left for a ttl set at most elapsed ago.
func (h *harness) within(d, ttl, elapsed time.Duration) bool {
	r := h.target.TTLResolution
	return d > 0 && d <= ttl+r && d >= ttl-elapsed-r
}

// expireSoon is a ttl short enough to wait out and long enough that the
// key is still there for the next call or two.
const expireSoon = 30 * time.Millisecond

// waitExpiry sleeps past expireSoon, and the engine's expiry lag.
func (h *harness) waitExpiry() { time.Sleep(2*expireSoon + h.target.ExpiryLag) }

// compressible is a value from n bytes that compresses well.
func compressible(n int) string {
	return string(bytes.Repeat([]byte("lock-token-0123456789;"), n/22+1))[:n]
}
