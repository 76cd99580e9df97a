package kv

// Errors is every error engine.go and lease.go declare, for the tables
// that map them (the C ABI's codes, the RESP replies) and the tests that
// hold those tables complete.
var Errors = []error{
	ErrEmptyKey, ErrKeyTooLarge, ErrValueTooLarge, ErrBadTTL, ErrFull, ErrNotInteger, ErrOverflow,
	ErrClosed, ErrUnavailable, ErrBadArgument, ErrWrongType,
}

// ClientSide reports the errors only a client meets (the engine could not
// be reached, or was closed): no server ever replies with them.
func ClientSide(err error) bool { return err == ErrClosed || err == ErrUnavailable }
