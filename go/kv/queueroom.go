package kv

import (
	"encoding/binary"
	"errors"
)

// A queue's spare room. Every change of the index writes a new copy of it
// before the old one is freed, so a store that pushes filled to the brim
// could not take one more pop, and its jobs could never be drained. So a
// push keeps a spare key, key + ":room", holding a copy of an index at
// least as long as the one it writes (the same bytes take the same room,
// compressed or not), and refuses with ErrFull when it cannot. An index
// write refused as full deletes the spare and writes into its room; then
// it puts the spare back as a copy of the index it replaced, into the
// room that one leaves. A pop, a release or a touch never grows the index
// (its entries have one size), so each write fits where the last one was.

func queueRoomKey(key string) string { return key + ":room" }

// ensureQueueRoom makes the spare at least as long as index, which is
// about to be written, and records its length in index's header (bytes 2
// to 5): an Exists, not a read of the spare, when it is long enough
// already. ErrFull when the store cannot hold it.
func ensureQueueRoom(e Engine, key string, index []byte) error {
	if int(binary.LittleEndian.Uint32(index[2:])) >= len(index) {
		if ok, err := e.Exists(queueRoomKey(key)); ok || err != nil {
			return err
		}
	}
	// A quarter more than the index (its entries again, so it takes the
	// room the index would), so that pushes set it again only now and then.
	more := (len(index) - queueHead) / 4 / queueEntry * queueEntry
	spare := append(append(make([]byte, 0, len(index)+more), index...), index[queueHead:queueHead+more]...)
	binary.LittleEndian.PutUint32(index[2:], uint32(len(spare)))
	binary.LittleEndian.PutUint32(spare[2:], uint32(len(spare)))
	return e.Set(queueRoomKey(key), spare, 0)
}

// putIndex is put for an index: refused as full, it writes into the
// spare's room.
func putIndex(e Engine, key string, rec, old []byte, found bool) (bool, error) {
	ok, err := put(e, key, rec, old, found, 0)
	if !errors.Is(err, ErrFull) || !found {
		return ok, err
	}
	if gone, derr := e.Del(queueRoomKey(key)); derr != nil || !gone {
		return ok, err
	}
	if ok, err = put(e, key, rec, old, found, 0); err == nil {
		e.SetNX(queueRoomKey(key), old, 0) // best effort: where old was
	}
	return ok, err
}
