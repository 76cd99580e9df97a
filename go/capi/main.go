// Command capi is the ephpm-kv engine as a C shared library
// (go build -buildmode=c-shared): it exports one ops table, declared in
// ephpm_kv_ops.h, that the PHP extension loads with dlopen.
package main

func main() {}
