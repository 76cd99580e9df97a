package server

import (
	"crypto/subtle"
	"os"
)

var pid = os.Getpid()

func subtleEqual(a, b []byte) bool { return subtle.ConstantTimeCompare(a, b) == 1 }
