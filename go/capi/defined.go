package main

/*
#include <stddef.h>
#if defined(__has_include)
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define EPHPM_MAKE_DEFINED(p, n) VALGRIND_MAKE_MEM_DEFINED(p, n)
#endif
#endif
#ifndef EPHPM_MAKE_DEFINED
#define EPHPM_MAKE_DEFINED(p, n) ((void)0)
#endif
static void ephpm_defined(void *p, size_t n) { EPHPM_MAKE_DEFINED(p, n); }
*/
import "C"

import "unsafe"

// handedToC tells memcheck (make test-valgrind) that the n bytes the
// library just wrote at p for the extension are defined; outside valgrind
// it does nothing. Memcheck takes a switch between two goroutine stacks
// that lie close together in Go's heap for a stack frame popped, and marks
// the live frames of the goroutine switched away from undefined; what the
// library builds on them (a scan page, a message) then reaches the
// extension looking undefined, and its reads of those bytes are reported
// in the extension, where build/valgrind-go.supp's entries for the
// library's own frames do not hide them. Seen once in kv_scan_walk.phpt.
// Built without valgrind's headers, the request compiles to nothing.
func handedToC(p unsafe.Pointer, n int) {
	if n > 0 {
		C.ephpm_defined(p, C.size_t(n))
	}
}
