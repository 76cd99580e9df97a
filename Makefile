# ephpm-kv: `make demo` runs the lock demo, `make test` runs every test.
# Both install what they need (Debian packages, Go modules) on first run.

SHELL := /bin/bash
export PATH := $(PATH):/usr/local/go/bin

PHP       ?= php
BUILD     := build
LIB       := $(BUILD)/libephpm_kv.so
SERVER    := $(BUILD)/ephpm-kv
EXT       := $(BUILD)/ephpm.so
PHP_EXT   := $(PHP) -n -d extension=$(CURDIR)/$(EXT)
RUN_TESTS := $(shell php-config --extension-dir 2>/dev/null)/build/run-tests.php
GO_SRC    := $(shell find go -name '*.go' -o -name '*.h' -o -name '*.c' -o -name go.mod -o -name go.sum | grep -v testdata)
EXT_SRC   := config.m4 $(wildcard ext/*.c ext/*.h) go/capi/ephpm_kv_ops.h
ABI_TEST  := $(BUILD)/out/abi_stress
SIGURG_TEST := $(BUILD)/out/abi_sigurg
include go-lib.mk # GO_LIB_FLAGS, shared with Makefile.frag (the phpize build)

.PHONY: all deps demo check install deb test test-preflight test-php84 trixie-start trixie-wait test-go test-storm test-lincheck test-hostile test-abi test-php test-fpm test-interop test-etcd test-bridges test-stubs test-package test-packaging test-valgrind bench bench-sessions bench-idle stubs clean

all: deps $(LIB) $(EXT) $(SERVER)

deps:
	@build/deps.sh

$(LIB): $(GO_SRC) Makefile
	cd go && go build $(GO_LIB_FLAGS) -o ../$(LIB) ./capi
	@rm -f $(BUILD)/libephpm_kv.h

$(SERVER): $(GO_SRC)
	cd go && go build -trimpath -o ../$(SERVER) ./cmd/ephpm-kv

$(EXT): $(EXT_SRC)
	build/build-ext.sh

demo: all
	@build/deps.sh demo
	$(PHP_EXT) examples/lock_demo.php
	@echo
	$(PHP_EXT) examples/patterns_demo.php
	@echo
	examples/shm_demo.sh
	@echo
	examples/coordination_demo.sh
	@echo
	examples/server_demo.sh
	@echo
	examples/backends_demo.sh

test: all test-preflight test-stubs trixie-start test-go trixie-wait test-storm test-lincheck test-hostile test-abi test-php test-fpm test-interop test-bridges test-package test-packaging test-php84 test-valgrind

# Into this PHP (php-config): both libraries in its extension directory,
# and on Debian an ini in mods-available enabled with phpenmod (elsewhere:
# add extension=ephpm.so to php.ini yourself). DESTDIR stages it.
EXT_DIR = $(shell php-config --extension-dir)
PHP_VER = $(shell php-config --version | cut -d. -f1,2)
install: all
	install -d $(DESTDIR)$(EXT_DIR)
	install -m 0644 $(EXT) $(LIB) $(DESTDIR)$(EXT_DIR)/
	@if [ -d /etc/php/$(PHP_VER)/mods-available ]; then \
		install -d $(DESTDIR)/etc/php/$(PHP_VER)/mods-available; \
		printf '; priority=20\nextension=ephpm.so\n' >$(DESTDIR)/etc/php/$(PHP_VER)/mods-available/ephpm.ini; \
		if [ -z "$(DESTDIR)" ] && command -v phpenmod >/dev/null; then phpenmod -v $(PHP_VER) ephpm && echo "enabled with phpenmod -v $(PHP_VER) ephpm"; fi; \
	else echo "add extension=ephpm.so to php.ini"; fi

# Debian packages into build/out/deb: php<version>-ephpm for this PHP, and
# the ephpm-kv server (build/deb.sh).
deb: all
	@build/deps.sh packaging
	build/deb.sh php $(PHP_VER) $(EXT) $(EXT_DIR) $(BUILD)/out/deb
	build/deb.sh server $(BUILD)/out/deb

# The suites load build/ephpm.so themselves: an ephpm already enabled in
# this PHP's ini (php8.2-ephpm installed, make install) would be loaded twice.
test-preflight:
	@! php -m 2>/dev/null | grep -x ephpm >/dev/null || { echo "ephpm is enabled in this PHP's ini (php$(PHP_VER)-ephpm or make install):" \
		"the tests load build/ephpm.so themselves; remove it first (apt-get purge php$(PHP_VER)-ephpm, or phpdismod ephpm)"; exit 1; }

# The edit-test loop, in under 2 minutes: formatting, vet, the stub, the
# short Go tests of kv, store and shm, and the phpt suite on the shared
# segment. `make test` is the whole suite.
check: all test-stubs
	cd go && test -z "$$(gofmt -l .)" || { gofmt -l .; echo "gofmt needed"; exit 1; }
	cd go && go vet ./... && go test -count=1 -short ./kv/... ./store ./shm
	build/phpt.sh shm phpt-check.log

# go/etcdkv's tests start etcd clusters of their own (Debian's etcd-server).
# GOMAXPROCS's two packages at a time: with four (155 s instead of 200),
# etcd's conformance Queue check saw a job's visibility run out mid-check.
# The longest packages first (go test starts them in the order given), so
# that they do not start last with one lane left: etcdkv (~140 s), remote
# (~115) and shm (~60) in a rehearsal's run that listed shm last took 227 s.
GO_TEST_FIRST := ./etcdkv ./remote ./shm
test-go:
	@build/deps.sh redis etcd
	cd go && test -z "$$(gofmt -l .)" || { gofmt -l .; echo "gofmt needed"; exit 1; }
	cd go && go vet ./... && go vet -tags benchfloor ./capi && go vet -tags ephpm_noetcd ./capi && \
		go test -race -count=1 -short $(GO_TEST_FIRST) $$(go list ./... | grep -vxF "$$(go list $(GO_TEST_FIRST))")

# The kill storms and the killed-owner takeover, alone and without -race: they
# assert that no operation waits over 1 s and that a killed stripe owner stops
# the others under 100 ms, bounds that only mean something at full speed (the
# race detector and other packages' tests on 2 cores would be the cause).
test-storm:
	cd go && go test -count=1 -run 'KillStorm|MutexKilledOwner' -v ./shm

# Linearizability under faults (go/lincheck, porcupine): lock workloads on
# an ephpm-kv server that is SIGSTOPped and kill -9ed, from goroutines and
# from PHP processes through the extension; a Redis 7 SIGSTOPped, and a
# Redis failover to a replica that missed the last writes; a 3-member etcd
# cluster whose leader is SIGSTOPped, whose members are kill -9ed and
# restarted, and which loses its quorum, under Go clients and PHP processes,
# and broken locks on it that the checker must catch. Without -race: calls time out
# at 100 ms (etcd: 250 ms) and faults last 20-300 ms (etcd: 0.5-2 s, over its
# 500 ms election timeout), bounds the race detector's slowdown
# would turn into timeouts everywhere. A failed check leaves porcupine's
# HTML view in build/out/lincheck. The model's own tests run in test-go.
test-lincheck: all
	@build/deps.sh redis etcd
	@mkdir -p $(BUILD)/out/lincheck
	cd go && EPHPM_KV_BIN=$(CURDIR)/$(SERVER) EPHPM_EXT=$(CURDIR)/$(EXT) EPHPM_LINCHECK_OUT=$(CURDIR)/$(BUILD)/out/lincheck \
		go test -count=1 -run 'Server|PHP|Redis|Etcd' -v ./lincheck

# Hostile clients against the built server binary, its RSS read from /proc.
test-hostile: all
	cd go && go vet -tags hostile ./server && EPHPM_KV_BIN=$(CURDIR)/build/ephpm-kv go test -tags hostile -count=1 -run Hostile ./server

$(ABI_TEST): go/capi/testdata/abi_stress.c go/capi/ephpm_kv_ops.h
	@mkdir -p $(dir $@)
	$(CC) -O2 -Wall -Wextra -Werror -Igo/capi -o $@ $< -lpthread -ldl

$(SIGURG_TEST): go/capi/testdata/abi_sigurg.c go/capi/ephpm_kv_ops.h
	@mkdir -p $(dir $@)
	$(CC) -O2 -Wall -Wextra -Werror -Igo/capi -o $@ $< -ldl

test-abi: $(LIB) $(ABI_TEST) $(SIGURG_TEST)
	$(ABI_TEST) $(LIB)
	$(SIGURG_TEST) $(LIB)

# The phpt suite once per engine, and in server mode on a Redis 7, a Redis
# Cluster and etcd too
# (build/phpt.sh: own log and summary each,
# php-tests/mode.inc tells a test its mode); every mode runs even after a
# failure, and any failure fails the target.
# map and shm (-j2, CPU-bound) run first, alone; then the server-mode runs,
# each on a store of its own, serial (-j1: some tests flush the store).
PHPT_MODES ?= map shm server redis redis-cluster etcd

# The etcd and ephpm-kv server modes run beside the Redis ones, each from its
# own tree (build/phpt.sh), printed once done: etcd's tests mostly wait out
# whole-second leases and raft commits (over 2 minutes), and a server-mode
# run leaves a core mostly idle (201 s instead of 239 with it in the
# foreground). The Redis Cluster's ran beside them too once, and 4 of its
# tests failed in CI (never here, in 5 runs; the cause is not known); it
# runs in the foreground until that is understood.
PHPT_BESIDE := etcd server

test-php: all
	@build/deps.sh redis etcd
	@fail=; out=$$(mktemp -d); bg=; \
	for mode in $(filter map shm,$(PHPT_MODES)); do build/phpt.sh $$mode phpt-$$mode.log || fail="$$fail $$mode"; done; \
	for mode in $(filter $(PHPT_BESIDE),$(PHPT_MODES)); do \
		PHPT_OWN_TREE=1 build/phpt.sh $$mode phpt-$$mode.log >$$out/$$mode 2>&1 & bg="$$bg $$!:$$mode"; done; \
	for mode in $(filter-out map shm $(PHPT_BESIDE),$(PHPT_MODES)); do build/phpt.sh $$mode phpt-$$mode.log || fail="$$fail $$mode"; done; \
	for b in $$bg; do wait $${b%%:*} || fail="$$fail $${b#*:}"; cat $$out/$${b#*:}; done; rm -rf $$out; \
		[ -z "$$fail" ] || { echo "phpt failed in:$$fail"; exit 1; }

# Memcheck gets a library without DWARF (-w): valgrind 3.19 cannot read Go's
# DWARF 5, and reading a DWARF 4 one cost every PHP process ~0.4 s of the
# run; nothing needs it, since build/valgrind-go.supp matches the library's
# frames by object, and the extension keeps its own debug information.
VG_LIB := $(BUILD)/out/valgrind/libephpm_kv.so
# Built with valgrind's headers there, so the library marks what it hands
# the extension as defined (go/capi/defined.go). Without the etcd engine
# (go/capi/etcd_off.go): its client's package inits (gRPC, protobuf) took
# 0.6 of the 1.3 s a PHP process's first call costs under memcheck, in a
# lane that runs the shm engine.
$(VG_LIB): $(GO_SRC) Makefile go-lib.mk
	@build/deps.sh valgrind
	cd go && go build -trimpath -buildmode=c-shared -tags ephpm_noetcd -ldflags="$(GO_LIB_LDFLAGS) -w" -o ../$(VG_LIB) ./capi

# A real php-fpm (4 workers): sharing through an ephpm-kv server, through the
# master's segment with no ephpm setting (and a named one with CLI processes),
# and the per-worker map, where the same proofs must come out short.
test-fpm: all
	@build/deps.sh server-tests status
	php-tests/fpm/run.sh server
	php-tests/fpm/run.sh shm
	php-tests/fpm/run.sh map

# The phpt suite on a 3-member etcd cluster only (test-php runs it too,
# with the etcd-only tests: processes, no quorum).
test-etcd: all
	@build/deps.sh etcd
	build/phpt.sh etcd phpt-etcd.log

# redis-cli and phpredis against the server.
test-interop: all
	@build/deps.sh server-tests
	php-tests/interop/run.sh

# The framework bridges (php/): each suite's PHPUnit tests, on Debian's
# framework packages, on a named segment (the shm engine, shared with child
# processes), an ephpm-kv server (the in-process map's engine, over RESP)
# and a Redis; the suites with locks and counters under contention (Laravel,
# Symfony) on a Redis Cluster and etcd too. Not the map and anonymous-segment
# modes: there each suite runs the same engines as in server and shm-named
# mode, with its multi-process tests skipped. Not PSR-16 and WordPress on the
# Cluster and etcd: they call the same ephpm_kv_* functions as the Laravel and
# Symfony adapters, and the backends' own behaviour is checked by the phpt suite
# (test-php) and go/kv/kvtest in every mode. Three streams at once, each
# printed once it is done: the suites mostly wait on the network, on TTLs
# and on their worker processes (the whole target used a third of the CPU
# when it ran as two). Laravel; Symfony on the Cluster and etcd, etcd first,
# so that no two etcd clusters run at once (Laravel's etcd mode is its last,
# after 60 s); Symfony's other modes, PSR-16 and WordPress.
BRIDGE_MODES := shm-named server redis
test-bridges: all
	@build/deps.sh bridges redis etcd
	@fail=; laravel_out=$$(mktemp); symfony_out=$$(mktemp); \
	build/phpunit-modes.sh php/tests/Laravel/bootstrap.php php/tests/Laravel $(BRIDGE_MODES) redis-cluster etcd >$$laravel_out 2>&1 & laravel=$$!; \
	build/phpunit-modes.sh php/tests/bootstrap.php php/tests/Symfony etcd redis-cluster >$$symfony_out 2>&1 & symfony=$$!; \
	build/phpunit-modes.sh php/tests/bootstrap.php php/tests/Symfony $(BRIDGE_MODES) || fail="$$fail Symfony"; \
	build/phpunit-modes.sh php/tests/Psr/bootstrap.php php/tests/Psr $(BRIDGE_MODES) || fail="$$fail Psr"; \
	build/phpunit-modes.sh php/tests/WordPress/bootstrap.php php/tests/WordPress $(BRIDGE_MODES) || fail="$$fail WordPress"; \
	wait $$symfony || fail="$$fail Symfony(cluster,etcd)"; cat $$symfony_out; \
	wait $$laravel || fail="$$fail Laravel"; cat $$laravel_out; rm -f $$laravel_out $$symfony_out; \
	[ -z "$$fail" ] || { echo "bridges failed:$$fail"; exit 1; }

# The extension built and installed the way PIE does (phpize, configure,
# make, make install from a copy of the tree), loaded with no ephpm.library;
# composer validate on both composer.json files.
test-package: all $(SIGURG_TEST)
	@build/deps.sh packaging
	build/test-package.sh

# packaging/: the systemd unit run as it says (socket group, umask,
# snapshot), the php.ini snippets' engines, the php-fpm pool snippets.
test-packaging: all
	@build/deps.sh packaging
	packaging/tests/systemd.sh
	packaging/tests/examples.sh
	packaging/tests/deb.sh 8.2 $(EXT) $(BUILD)/out/deb-test

# The PHP 8.4 lane, in a Debian 13 chroot that build/trixie.sh makes (and
# reuses) under build/out/trixie: the extension built there as PIE does, on
# the host's Go library; the phpt suite on the engines whose PHP side
# differs (shm, map, and server mode, which Redis, the Cluster and etcd share:
# those backends are Go code the 8.2 lane already runs); the php-fpm proof;
# the bridges' suites on trixie's Symfony 6.4, Laravel 10, PHPUnit 11,
# psr/simple-cache 3 and WordPress, on a named segment (their other modes
# run the same Go engines as in the 8.2 lane); php8.4-ephpm installed there.
PHP84_PHPT_MODES ?= shm map server

# make test starts the chroot while the Go tests run: debootstrap and apt
# mostly wait on the network and the disk. test-php84's own ensure waits
# for it (build/trixie.sh's lock), or makes the chroot itself if this failed.
# debootstrap is installed first, in the foreground: two apt-gets at once
# on the host would fail on dpkg's lock. At the lowest priorities, since the
# timing-bound Go tests run meanwhile.
trixie-start:
	@build/deps.sh trixie
	@mkdir -p $(BUILD)/out
	@(nice -n 19 ionice -c 3 build/trixie.sh ensure >$(BUILD)/out/trixie-ensure.log 2>&1 &)

# ...and is done, its files written out, before the kill storms and the
# linearizability runs, whose time bounds need the machine to themselves (an
# etcd election slowed to 3.5 s beside it once). Usually no wait: the Go
# tests take longer. Makes the chroot here if the background run failed.
trixie-wait:
	@build/trixie.sh ensure quiet
	@sync
test-php84: all
	build/trixie.sh build
	@fail=; out=$$(mktemp); server=; \
	if [ -n "$(filter server,$(PHP84_PHPT_MODES))" ]; then \
		PHPT_OWN_TREE=1 build/trixie.sh run build/phpt.sh server phpt84-server.log >$$out 2>&1 & server=$$!; fi; \
	for mode in $(filter-out server,$(PHP84_PHPT_MODES)); do build/trixie.sh run build/phpt.sh $$mode phpt84-$$mode.log || fail="$$fail phpt-$$mode"; done; \
	if [ -n "$$server" ]; then wait $$server || fail="$$fail phpt-server"; cat $$out; fi; rm -f $$out; \
	build/trixie.sh run php-tests/fpm/run.sh shm || fail="$$fail fpm"; \
	build/trixie.sh run build/phpunit-modes.sh php/tests/Laravel/bootstrap.php php/tests/Laravel shm-named >$$out 2>&1 & laravel=$$!; \
	for suite in "php/tests/bootstrap.php php/tests/Symfony" \
		"php/tests/Psr/bootstrap.php php/tests/Psr" "php/tests/WordPress/bootstrap.php php/tests/WordPress"; do \
		build/trixie.sh run build/phpunit-modes.sh $$suite shm-named || fail="$$fail $${suite##*/}"; done; \
	wait $$laravel || fail="$$fail Laravel"; cat $$out; rm -f $$out; \
	packaging/tests/deb.sh 8.4 $(BUILD)/out/php84/ephpm.so $(BUILD)/out/deb84-test || fail="$$fail deb"; \
	[ -z "$$fail" ] || { echo "PHP 8.4 lane failed:$$fail"; exit 1; }

# Memcheck follows the PHP processes a test starts (run-tests.php passes
# --trace-children=yes) but not the other programs: a server, a Redis, the
# C compiler and openssl are not what is checked here, and under memcheck
# they took most of the run's time (redis_tls alone: openssl's RSA keys and
# a TLS Redis, 90 of 280 s). The shell that exec() runs stays traced, so a
# PHP child started through it is still checked.
VG_JOBS ?= 3
VG_SKIP := */ephpm-kv,*/setpriv,*/redis-server,*/redis-cli,*/etcd,*/etcdctl,*/openssl,*/cc,*/gcc,*/rm
test-valgrind: all $(VG_LIB)
	@build/deps.sh valgrind
	@USE_ZEND_ALLOC=0 EPHPM_TEST_VALGRIND=1 VALGRIND_OPTS="--suppressions=$(CURDIR)/build/valgrind-go.supp --trace-children-skip=$(VG_SKIP)" \
		build/phpt.sh shm phpt-valgrind.log -j$(VG_JOBS) -m -d ephpm.library=$(CURDIR)/$(VG_LIB)

# The committed arginfo must match the stub. Generated under build/out and
# compared, so ext/ephpm_arginfo.h is never rewritten (a new mtime would
# make the next build recompile the extension).
test-stubs:
	@build/gen-stub.sh --check

stubs:
	build/gen-stub.sh -f

# The floor of the lock path: setnx and del_if_eq return at once (floor.go).
FLOOR_LIB := $(BUILD)/out/floor/libephpm_kv.so
$(FLOOR_LIB): $(GO_SRC) Makefile
	cd go && go build -tags benchfloor $(GO_LIB_FLAGS) -o ../$(FLOOR_LIB) ./capi
	@rm -f $(BUILD)/out/floor/libephpm_kv.h

# bench/profile.php's library: the same build without DWARF, which
# valgrind 3.19 cannot read in Go's form (DWARF 5).
PROFILE_LIB := $(BUILD)/out/profile/libephpm_kv.so
$(PROFILE_LIB): $(GO_SRC) Makefile go-lib.mk
	cd go && go build -trimpath -buildmode=c-shared -ldflags="$(GO_LIB_LDFLAGS) -w" -o ../$(PROFILE_LIB) ./capi
	@rm -f $(BUILD)/out/profile/libephpm_kv.h

bench: all $(FLOOR_LIB) $(PROFILE_LIB)
	@build/deps.sh bench bridges redis etcd valgrind
	@mkdir -p $(BUILD)/out
	cd go && go test -run '^$$' -bench . -benchmem -count 5 ./store/ ./shm/ | tee ../$(BUILD)/out/go-bench.txt
	$(PHP) -n bench/lock_pair.php
	$(PHP) -n bench/profile.php
	$(PHP) -n bench/cache.php
	$(PHP) -n bench/lease_pair.php
	$(PHP) -n bench/queue.php
	$(PHP) -n bench/bridges.php
	bench/server.sh
	$(PHP) -n bench/backends.php
	bench/sessions.sh
	bench/idle_workers.sh

# Sessions end to end (nginx -> php-fpm): the shared engine, ephpm server
# mode, phpredis, php-memcached and files.
bench-sessions: all
	bench/sessions.sh

# Private memory, threads and idle CPU of 50 idle php-fpm workers per engine.
bench-idle: all
	@build/deps.sh bench
	bench/idle_workers.sh

clean:
	rm -rf $(BUILD)/out $(LIB) $(EXT) $(SERVER) $(BUILD)/*.h
