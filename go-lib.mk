# The library runs in PHP's threads: with asynchronous preemption on, the Go
# runtime sends SIGURG to the thread that called it, which can land after the
# call returned and cut PHP's usleep() or poll() short (EINTR). The runtime
# reads GODEBUG from the process's initial environment, which the library
# cannot change, and //go:debug and go.mod refuse asyncpreemptoff
# (golang/go#71283), so the linker sets the runtime's built-in default; a
# GODEBUG the user sets still wins (this -X replaces the go command's own
# default, empty while go.mod's go line matches the toolchain). Checked by
# test-abi (abi_sigurg.c).
GO_LIB_LDFLAGS := -X=runtime.godebugDefault=asyncpreemptoff=1
GO_LIB_FLAGS := -trimpath -buildmode=c-shared -ldflags=$(GO_LIB_LDFLAGS)
