package store

import "time"

// SetIfEq implements kv.Engine: SET IFEQ, decided in one Compute.
func (s *Store) SetIfEq(key string, value, old []byte, ttl time.Duration) (bool, error) {
	res, err := s.SetWith(key, value, SetOptions{Cond: IfEqual, Equal: old, TTL: ttl})
	return res.Stored, err
}
