// Command ephpm-kv serves one ephpm-kv store per host over RESP, on a unix
// socket and optionally TCP, for every PHP process (ephpm.server) and for
// Redis tools and clients.
package main

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
	"github.com/ephpm/ephpm-kv/server"
	"github.com/ephpm/ephpm-kv/store"
)

// fenceBlock is how many fences are reserved durably at a time; 0 is the
// default (store.DefaultFenceBlock). Tests make it small.
var fenceBlock int64

func main() {
	os.Exit(exitCode(run(os.Args[1:])))
}

// exitCode maps run's result to the process status: 0, 2 for a bad command
// line (flag's own convention; --help is 0) and 1 for anything else.
func exitCode(err error) int {
	var usage usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &usage):
		if !usage.printed {
			fmt.Fprintln(os.Stderr, "ephpm-kv:", err)
			fmt.Fprintln(os.Stderr, "Run ephpm-kv --help for the flags.")
		}
		return 2
	}
	fmt.Fprintln(os.Stderr, "ephpm-kv:", err)
	return 1
}

func run(args []string) error {
	if isCommand(args) {
		return runCommand(args) // stats, keys, locks, get, del, help: cli.go
	}
	fs := flag.NewFlagSet("ephpm-kv", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: ephpm-kv [flags]   serve (the flags below)")
		fmt.Fprintln(fs.Output(), "       ephpm-kv stats|keys|locks|get|del [--shm /NAME | --server URL] ...   look inside a store (ephpm-kv help)")
		fs.PrintDefaults()
	}
	unix := fs.String("unix", "/run/ephpm-kv.sock", "unix socket path (empty: none)")
	unixMode := fs.String("unix-mode", "0660", "unix socket permissions")
	bind := fs.String("bind", "127.0.0.1", "TCP address to listen on, with --port")
	port := fs.Int("port", 0, "TCP port (0: no TCP)")
	pass := fs.String("requirepass", os.Getenv("EPHPM_KV_PASSWORD"), "password clients must AUTH with (default $EPHPM_KV_PASSWORD); after 3 failed AUTHs on one connection, each further one is answered after a delay of 100ms doubling to 1s")
	maxClients := fs.Int("maxclients", 10000, "most connections at once")
	memLimit := byteSize{n: store.DefaultMemoryLimit, min: 1}
	maxValue := byteSize{n: store.DefaultMaxValueSize, min: 1}
	compressMin := byteSize{n: store.DefaultCompressMin, min: 0}
	fs.Var(&memLimit, "memory-limit", "accounted bytes the store may hold (e.g. 256M)")
	fs.Var(&maxValue, "max-value-size", "largest value accepted")
	fs.Var(&compressMin, "compress-min", "values at least this large are compressed (0: never)")
	maxCommand := byteSize{n: 0, min: 1} // 0: derived from max-value-size
	fs.Var(&maxCommand, "max-command-size", "largest command a client may send, all arguments together (default: 4M, or more if a max-value-size value and the largest key need it)")
	maxClientMemory := byteSize{n: 0, min: 1} // 0: derived from max-command-size
	fs.Var(&maxClientMemory, "max-client-memory", "bytes all clients' buffers may hold together; past it the clients with the largest buffers are closed (default: 128M, or twice max-command-size if more)")
	writeTimeout := fs.Duration("client-write-timeout", time.Minute, "close a client whose replies stay unread this long")
	snapshot := fs.String("snapshot", "", "snapshot file: loaded on start, written periodically and on shutdown")
	snapshotEvery := fs.Duration("snapshot-every", time.Minute, "time between periodic snapshots (0: only on shutdown)")
	procs := fs.Int("procs", 0, "OS threads running Go code (GOMAXPROCS); 0: a quarter of the CPUs, at least 1")
	verbose := fs.Bool("v", false, "log connections closed with errors")
	metrics := fs.String("metrics", "", "host:port of an HTTP endpoint serving GET /metrics in the Prometheus text format (empty: none)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{error: err, printed: true}
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q (flags only)", fs.Arg(0))
	}
	switch {
	case *port < 0 || *port > 65535:
		return usagef("--port %d: want 0 (no TCP) to 65535", *port)
	case *maxClients < 1:
		return usagef("--maxclients %d: want at least 1", *maxClients)
	case *procs < 0:
		return usagef("--procs %d: want 0 (automatic) or more", *procs)
	case *snapshotEvery < 0:
		return usagef("--snapshot-every %s: want 0 (only on shutdown) or more", *snapshotEvery)
	case *writeTimeout <= 0:
		return usagef("--client-write-timeout %s: want more than 0", *writeTimeout)
	}
	// maxValue.n is at least 1 (its min); the server's bulk limit also
	// admits the largest key.
	if least := server.MinCommandSize(max(maxValue.n, kv.MaxKeySize)); maxCommand.n != 0 && maxCommand.n < least {
		return usagef("--max-command-size %d: want at least %d, so that a SET of the largest value (--max-value-size) and key fits", maxCommand.n, least)
	}
	if maxClientMemory.n != 0 {
		command := maxCommand.n
		if command == 0 {
			command = server.DefaultCommandSize(max(maxValue.n, kv.MaxKeySize))
		}
		if least := server.MinClientMemory(command); maxClientMemory.n < least {
			return usagef("--max-client-memory %d: want at least %d, twice the command limit, so that one client may send a command of the largest size", maxClientMemory.n, least)
		}
	}
	// The server shares its host with the PHP workers it serves; like Redis
	// it does well on few cores, and cross-core wakeups cost more than they
	// bring when the clients keep the other cores busy.
	if *procs <= 0 {
		*procs = max(1, runtime.NumCPU()/4)
	}
	runtime.GOMAXPROCS(*procs)
	mode, err := strconv.ParseUint(*unixMode, 8, 32)
	if err != nil || mode > 0o777 {
		return usagef("--unix-mode %q: want octal permissions such as 0660", *unixMode)
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	cfg := server.Config{
		Unix: *unix, UnixMode: os.FileMode(mode), Password: *pass, MaxClients: *maxClients,
		Snapshot: *snapshot, SnapshotEvery: *snapshotEvery, FenceBlock: fenceBlock,
		MaxCommandSize: maxCommand.n, ClientWriteTimeout: *writeTimeout, MaxClientMemory: maxClientMemory.n, Metrics: *metrics,
		Store:  store.Config{MemoryLimit: memLimit.n, MaxValueSize: maxValue.n, CompressMin: compressMin.n},
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})),
	}
	if compressMin.n == 0 {
		cfg.Store.CompressMin = -1
	}
	if *port != 0 {
		cfg.TCP = net.JoinHostPort(*bind, strconv.Itoa(*port))
	}
	srv, err := server.New(cfg)
	if err != nil {
		return err
	}
	// SIGHUP is ignored, as Redis does: a closed terminal or a reload by a
	// service manager must not stop the server (its default would kill the
	// process with no snapshot and a stale socket). Caught before Listen:
	// once clients can connect, no signal may take the default action.
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	addrs, err := srv.Listen()
	if err != nil {
		return err
	}
	for _, a := range addrs {
		cfg.Logger.Info("listening", "network", a.Network(), "addr", a.String())
	}
	for {
		sig := <-stop
		if sig == syscall.SIGHUP {
			cfg.Logger.Info("SIGHUP ignored; SIGTERM or SIGINT stop the server")
			continue
		}
		cfg.Logger.Info("shutting down", "signal", sig.String())
		return srv.Close()
	}
}
