package store

import "unsafe"

// A value SetNXFenced wrote (a lock's) keeps the fence it was issued with,
// for the status page and the CLI (kv.KeyInfo.Fence): its item is part of
// a fencedItem, so other items pay nothing for it.
type fencedItem struct {
	item
	fence int64 // set under the bucket lock before the item is published
}

// fencedOverhead is what a fencedItem holds beyond an item.
const fencedOverhead = int(unsafe.Sizeof(fencedItem{}) - unsafe.Sizeof(item{}))

// setFence records the fence issued with a fenced item, before it is
// published; an item not allocated as a fencedItem has no room for one.
func (it *item) setFence(fence int64) {
	if it.fenced {
		(*fencedItem)(unsafe.Pointer(it)).fence = fence
	}
}

// fenceOf is the fence SetNXFenced issued with it; 0 for any other item.
func (it *item) fenceOf() int64 {
	if !it.fenced {
		return 0
	}
	return (*fencedItem)(unsafe.Pointer(it)).fence
}

// highestLiveFence is the highest fence among a lease set's holders that
// are live at now (intents hold nothing); under the item's bucket lock.
func highestLiveFence(it *item, now int64) int64 {
	var highest int64
	d := it.data
	for r := leaseHeader; r+leaseEntryFixed <= len(d); r += leaseEntryFixed + int(d[r+17]) {
		if d[r] != modeIntent && entryExpiry(d, r) > now {
			highest = max(highest, entryFence(d, r))
		}
	}
	return highest
}
