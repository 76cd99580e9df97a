# libephpm_kv.so, the Go library ephpm.so dlopens, built into modules/ so that
# `make install` (install-modules copies modules/*) puts it beside ephpm.so,
# where the extension finds it with no ephpm.library setting. A prerequisite
# of ephpm.la, so both `make` and a bare `make install` build it. Async
# preemption off: see go-lib.mk, which the project Makefile includes too.
include $(srcdir)/go-lib.mk
EPHPM_GO_SOURCES = $(shell find $(srcdir)/go -name testdata -prune -o \( -name '*.go' -o -name '*.c' -o -name '*.h' -o -name go.mod -o -name go.sum \) -print)

$(phplibdir)/ephpm.la: $(phplibdir)/libephpm_kv.so

$(phplibdir)/libephpm_kv.so: $(EPHPM_GO_SOURCES)
	@$(mkinstalldirs) $(phplibdir)
	cd $(srcdir)/go && CGO_ENABLED=1 $(EPHPM_GO) build $(GO_LIB_FLAGS) -o $(phplibdir)/libephpm_kv.so ./capi
	@rm -f $(phplibdir)/libephpm_kv.h
