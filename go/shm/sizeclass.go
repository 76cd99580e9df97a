package shm

// Size classes grow geometrically (about 1.25x, in multiples of 16 bytes)
// from 64 bytes. A block's class changes only when it is split or merged
// (coalesce.go), so memory freed in one class serves every other.
const maxClasses = 128

var classSizes = func() (s [maxClasses]uint64) {
	s[0] = 64
	for i := 1; i < maxClasses; i++ {
		s[i] = max(s[i-1]+16, alignUp(s[i-1]*5/4, 16))
	}
	return
}()

// smallClass maps (n+15)/16 to classFor(n) for records up to 4 KiB: one
// load on the hot path instead of a binary search.
var smallClass = func() (t [4096/16 + 1]uint8) {
	for i := range t {
		t[i] = uint8(classSearch(uint64(i) * 16))
	}
	return
}()

// classFor is the smallest class holding n bytes (maxClasses-1 for more).
func classFor(n uint64) int {
	if n <= 4096 {
		return int(smallClass[(n+15)/16])
	}
	return classSearch(n)
}

func classSearch(n uint64) int {
	lo, hi := 0, maxClasses-1
	for lo < hi {
		mid := (lo + hi) / 2
		if classSizes[mid] >= n {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}
