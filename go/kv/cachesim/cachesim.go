// Package cachesim holds what the engines' hit-ratio benchmarks compare
// against: a Zipf trace and an exact LRU simulated on it.
package cachesim

import (
	"container/list"
	"math"
	"math/rand/v2"
	"sort"
)

// ZipfTrace is n reads of keys 0..keys-1, key k drawn with weight
// 1/(k+1)^s (s may be below 1, which math/rand's Zipf does not take).
func ZipfTrace(n, keys int, s float64, seed uint64) []int {
	cdf := make([]float64, keys)
	sum := 0.0
	for k := range keys {
		sum += 1 / math.Pow(float64(k+1), s)
		cdf[k] = sum
	}
	r := rand.New(rand.NewPCG(seed, seed))
	trace := make([]int, n)
	for i := range trace {
		trace[i] = sort.SearchFloat64s(cdf, r.Float64()*sum)
	}
	return trace
}

// LRUHits is the hit count of an exact LRU of capacity entries on trace.
func LRUHits(trace []int, capacity int) int {
	l := list.New()
	at := map[int]*list.Element{}
	hits := 0
	for _, k := range trace {
		if e, ok := at[k]; ok {
			hits++
			l.MoveToFront(e)
			continue
		}
		at[k] = l.PushFront(k)
		if l.Len() > capacity {
			delete(at, l.Remove(l.Back()).(int))
		}
	}
	return hits
}
