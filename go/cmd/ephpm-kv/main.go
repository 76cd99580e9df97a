// Command ephpm-kv serves one ephpm-kv store per host over RESP, on a unix
// socket and optionally TCP, for every PHP process (ephpm.server) and for
// Redis tools and clients.
package main

import (
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ephpm/ephpm-kv/server"
	"github.com/ephpm/ephpm-kv/store"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "ephpm-kv:", err)
		os.Exit(1)
	}
}

// byteSize is a flag such as 64M.
type byteSize int64

func (b *byteSize) String() string { return strconv.FormatInt(int64(*b), 10) }

func (b *byteSize) Set(s string) error {
	mult := int64(1)
	switch strings.ToUpper(s[len(s)-1:]) {
	case "K":
		mult = 1 << 10
	case "M":
		mult = 1 << 20
	case "G":
		mult = 1 << 30
	}
	if mult != 1 {
		s = s[:len(s)-1]
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return fmt.Errorf("not a byte size: %q", s)
	}
	*b = byteSize(n * mult)
	return nil
}

func run(args []string) error {
	fs := flag.NewFlagSet("ephpm-kv", flag.ContinueOnError)
	unix := fs.String("unix", "/run/ephpm-kv.sock", "unix socket path (empty: none)")
	unixMode := fs.String("unix-mode", "0660", "unix socket permissions")
	bind := fs.String("bind", "127.0.0.1", "TCP address to listen on, with --port")
	port := fs.Int("port", 0, "TCP port (0: no TCP)")
	pass := fs.String("requirepass", os.Getenv("EPHPM_KV_PASSWORD"), "password clients must AUTH with (default $EPHPM_KV_PASSWORD)")
	maxClients := fs.Int("maxclients", 10000, "most connections at once")
	memLimit, maxValue, compressMin := byteSize(store.DefaultMemoryLimit), byteSize(store.DefaultMaxValueSize), byteSize(store.DefaultCompressMin)
	fs.Var(&memLimit, "memory-limit", "accounted bytes the store may hold (e.g. 256M)")
	fs.Var(&maxValue, "max-value-size", "largest value accepted")
	fs.Var(&compressMin, "compress-min", "values at least this large are compressed (0: never)")
	var maxCommand byteSize
	fs.Var(&maxCommand, "max-command-size", "largest command a client may send, all arguments together (default: 4M, or more if a max-value-size value and the largest key need it)")
	writeTimeout := fs.Duration("client-write-timeout", time.Minute, "close a client whose replies stay unread this long")
	snapshot := fs.String("snapshot", "", "snapshot file: loaded on start, written periodically and on shutdown")
	snapshotEvery := fs.Duration("snapshot-every", time.Minute, "time between periodic snapshots (0: only on shutdown)")
	procs := fs.Int("procs", 0, "OS threads running Go code (GOMAXPROCS); 0: a quarter of the CPUs, at least 1")
	verbose := fs.Bool("v", false, "log connections closed with errors")
	if err := fs.Parse(args); err != nil {
		return err
	}
	// The server shares its host with the PHP workers it serves; like Redis
	// it does well on few cores, and cross-core wakeups cost more than they
	// bring when the clients keep the other cores busy.
	if *procs <= 0 {
		*procs = max(1, runtime.NumCPU()/4)
	}
	runtime.GOMAXPROCS(*procs)
	mode, err := strconv.ParseUint(*unixMode, 8, 32)
	if err != nil {
		return fmt.Errorf("--unix-mode: %w", err)
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	cfg := server.Config{
		Unix: *unix, UnixMode: os.FileMode(mode), Password: *pass, MaxClients: *maxClients,
		Snapshot: *snapshot, SnapshotEvery: *snapshotEvery,
		MaxCommandSize: int64(maxCommand), ClientWriteTimeout: *writeTimeout,
		Store:  store.Config{MemoryLimit: int64(memLimit), MaxValueSize: int64(maxValue), CompressMin: int64(compressMin)},
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})),
	}
	if compressMin == 0 {
		cfg.Store.CompressMin = -1
	}
	if *port != 0 {
		cfg.TCP = net.JoinHostPort(*bind, strconv.Itoa(*port))
	}
	srv, err := server.New(cfg)
	if err != nil {
		return err
	}
	addrs, err := srv.Listen()
	if err != nil {
		return err
	}
	for _, a := range addrs {
		cfg.Logger.Info("listening", "network", a.Network(), "addr", a.String())
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	sig := <-stop
	cfg.Logger.Info("shutting down", "signal", sig.String())
	return srv.Close()
}
