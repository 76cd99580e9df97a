package kv

import "fmt"

// CheckKey refuses an empty key and one over MaxKeySize: the same check,
// and message, in every engine (the remote client checks before sending,
// as for TTLs, so a key too large for the server's bulk limit does not
// cost the connection).
func CheckKey(key string) error {
	switch {
	case len(key) == 0:
		return ErrEmptyKey
	case len(key) > MaxKeySize:
		return fmt.Errorf("%w: %d bytes, the limit is %d", ErrKeyTooLarge, len(key), MaxKeySize)
	}
	return nil
}
