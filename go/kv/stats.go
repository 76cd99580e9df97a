package kv

// StatsField is one counter of Stats under the one name every surface
// gives it: the keys of ephpm_kv_stats(), the members of the C ABI's
// struct ephpm_kv_stats (in this order, all int64_t), the EPHPM.STATS
// pairs, the README. The server and the remote client go by this table;
// go/capi's tests hold the C header, the extension and the README to it.
type StatsField struct {
	Name string
	Of   func(*Stats) *int64
}

// StatsFields lists every field of Stats once. An array, so that its
// length is a constant (go/capi checks the C struct's size against it
// when it compiles).
var StatsFields = [...]StatsField{
	{"keys", func(s *Stats) *int64 { return &s.Keys }},
	{"bytes_used", func(s *Stats) *int64 { return &s.BytesUsed }},
	{"bytes_limit", func(s *Stats) *int64 { return &s.BytesLimit }},
	{"hits", func(s *Stats) *int64 { return &s.Hits }},
	{"misses", func(s *Stats) *int64 { return &s.Misses }},
	{"expired", func(s *Stats) *int64 { return &s.Expired }},
	{"rejected", func(s *Stats) *int64 { return &s.Rejected }},
	{"compressed", func(s *Stats) *int64 { return &s.Compressed }},
	{"max_value_size", func(s *Stats) *int64 { return &s.MaxValueSize }},
	{"compress_min", func(s *Stats) *int64 { return &s.CompressMin }},
	{"fences", func(s *Stats) *int64 { return &s.Fences }},
	{"quarantined", func(s *Stats) *int64 { return &s.Quarantined }},
	{"evicted", func(s *Stats) *int64 { return &s.Evicted }},
	{"bytes_evictable", func(s *Stats) *int64 { return &s.BytesEvictable }},
}
