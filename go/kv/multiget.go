package kv

// MultiGetter is implemented by engines that read many keys in one step
// where one Get per key would cost a round trip each (a server: one MGET).
// GetMulti checks every key first (CheckKey: nothing is read when one is
// bad), then calls fn once per key, in order, with its live value (valid
// only during the call) or found false.
type MultiGetter interface {
	GetMulti(keys []string, fn func(i int, value []byte, found bool)) error
}

// GetMulti reads keys with the engine's GetMulti when it has one, else
// with one Get per key; fn as MultiGetter's.
func GetMulti(e Engine, keys []string, fn func(i int, value []byte, found bool)) error {
	if mg, ok := e.(MultiGetter); ok {
		return mg.GetMulti(keys, fn)
	}
	for _, k := range keys {
		if err := CheckKey(k); err != nil {
			return err
		}
	}
	buf := make([]byte, 256)
	for i, k := range keys {
		for {
			n, found, err := e.Get(k, buf)
			if err != nil {
				return err
			}
			if n > len(buf) {
				buf = make([]byte, n)
				continue
			}
			fn(i, buf[:n], found)
			break
		}
	}
	return nil
}
