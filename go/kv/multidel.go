package kv

// MultiDeleter is implemented by engines that delete many keys in one step
// where one Del per key would cost a round trip each (a server: one DEL).
// DelMulti checks every key first (CheckKey: nothing is deleted when one is
// bad), then deletes them and reports how many live keys went; a key named
// twice counts once.
type MultiDeleter interface {
	DelMulti(keys []string) (int64, error)
}

// DelMulti deletes keys with the engine's DelMulti when it has one, else
// with one Del per key; the count as MultiDeleter's. On an error the keys
// before the failing one may be gone.
func DelMulti(e Engine, keys []string) (int64, error) {
	if md, ok := e.(MultiDeleter); ok {
		return md.DelMulti(keys)
	}
	for _, k := range keys {
		if err := CheckKey(k); err != nil {
			return 0, err
		}
	}
	var n int64
	for _, k := range keys {
		ok, err := e.Del(k)
		if err != nil {
			return n, err
		}
		if ok {
			n++
		}
	}
	return n, nil
}
