package shm

// Crash points: the steps of a mutation between which a process may die.
// Tests set testCrash to stop there (panic or SIGKILL) and check that
// repair brings the stripe back; it is nil otherwise (one load and branch).
const (
	crashWritten       = iota + 1 // a new record is complete, not yet published
	crashPublished                // published; the old block not yet freed
	crashUnlinked                 // a record unlinked, its block not yet freed
	crashMarkedFree               // a block marked free, not yet on its list
	crashPushed                   // a block pushed on its free list, journal not yet cleared
	crashPopped                   // a block off its free list, not yet written
	crashClaimed                  // a bump block claimed, the bump pointer not yet past it
	crashStealUnlinked            // a stolen block off its list, not yet on the thief's
	crashInPlace                  // one of two in-place word stores of a lease or rate log done
	crashCarved                   // one more free-block header laid over a region (split or coalesce)
	crashSplitTail                // a split's tail laid out, its blocks not all pushed
	crashSplitShrunk              // a split block shrunk to its new class, its tail not yet pushed
	crashListsEmptied             // a coalescing pass emptied every free list
	crashLowering                 // a block's body zeroed, the bump pointer not yet below it
	crashMoved                    // a record copied by a compaction, the copy not yet published
)

var testCrash func(point int)

func crashPoint(p int) {
	if testCrash != nil {
		testCrash(p)
	}
}
