package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/ephpm/ephpm-kv/etcdkv"
	"github.com/ephpm/ephpm-kv/kv"
	"github.com/ephpm/ephpm-kv/remote"
	"github.com/ephpm/ephpm-kv/shm"
)

// The operator's commands, on the same binary as the server: ephpm-kv
// stats|keys|locks|get|del [--shm /NAME | --server URL] [--json] ...
// They look inside a store the PHP processes use: a named shared segment,
// attached as one more process of its user would, or any ephpm.server.

// subcommand is one of the operator's commands.
type subcommand struct {
	name, args, summary string
	// help is the text after the synopsis, before the flags.
	help string
	// flags adds the command's own flags to the common ones.
	flags func(fs *flag.FlagSet, o *options)
	// min and max positional arguments.
	min, max int
	// check refuses bad arguments before the store is opened.
	check func(o *options, args []string) error
	run   func(c *cli, o *options, e kv.Engine, args []string) error
}

var subcommands = []*subcommand{
	{
		name: "stats", summary: "the store's counters (ephpm_kv_stats())",
		help: `Prints the store's counters, as ephpm_kv_stats() returns them (the names are the same), as a
table or, with --json, one JSON object with "engine" and "target" added. On a segment (--shm),
max_value_size and compress_min are each attaching process's own settings: what is shown is
this command's (the defaults), not php.ini's.`,
		run: (*cli).stats,
	},
	{
		name: "keys", args: "[PATTERN]", summary: "list the keys, with kind, time left and size",
		help: `Walks the keyspace with the engine's cursor (kv.Scanner: Redis's SCAN promise), --count keys a
call, holding nothing between calls: a write waits for one bucket at most. Every key there for the
whole walk is listed; one written or deleted meanwhile may be or not, and a key may come twice.
PATTERN is a Redis glob (* ? [abc] [^a-z], \ quotes): 'session:*'. Columns: kind (value,
evictable: cache, leases: a read/write lock or a semaphore, ratelog: a rate limiter), time left
(- for none), size in bytes (of the value, before compression; for a lease set or a rate log what
the engine keeps for it), key. --json prints one JSON array of {"key", "kind", "ttl_ms" (null: no
expiry), "size"}, with "key_base64" beside a key that is not UTF-8.`,
		flags: func(fs *flag.FlagSet, o *options) {
			fs.Int64Var(&o.limit, "limit", 0, "stop after `N` keys (default: all)")
			fs.IntVar(&o.count, "count", defaultCount, "keys visited per Scan call, `N` from 1 to 10000")
		},
		max: 1, check: checkPattern, run: (*cli).keys,
	},
	{
		name: "locks", args: "[PATTERN]", summary: "list the held locks, leases and semaphores",
		help: `Lists what is held: every key with a time left that holds a value (a lock's token, as
ephpm_kv_setnx() and Ephpm\Lock take it; a session's data or a counter with a TTL looks the same),
and every lease set (a read/write lock or a semaphore) with live holders, with the holder count
(LeaseCount) and the time left (a lease set's: its longest holder's). Cache entries and rate
limiters are not listed. A plain lock's fence is not stored with it (it is issued at acquisition,
and only ephpm_kv_fence()'s records are kept, which are not keys), so none is shown. Tokens are
shown only with --show-tokens (read with a Get). PATTERN and the walk as for keys. --json prints
one JSON array of {"key", "kind" ("lock" or "leases"), "holders", "ttl_ms", "token"}.`,
		flags: func(fs *flag.FlagSet, o *options) {
			fs.Int64Var(&o.limit, "limit", 0, "stop after `N` locks (default: all)")
			fs.IntVar(&o.count, "count", defaultCount, "keys visited per Scan call, `N` from 1 to 10000")
			fs.BoolVar(&o.showTokens, "show-tokens", false, "show each lock's token (whoever reads it can release the lock)")
		},
		max: 1, check: checkPattern, run: (*cli).locks,
	},
	{
		name: "get", args: "KEY", summary: "print a key's value",
		help: `Writes KEY's value to standard output as it is (no newline added); exit status 1 when there
is no such key. --json prints {"key", "value", "ttl_ms"} (with "value_base64" beside a value that
is not UTF-8: JSON text cannot carry its bytes).`,
		min: 1, max: 1, check: checkKeyArg, run: (*cli).get,
	},
	{
		name: "del", args: "KEY", summary: "delete a key",
		help: `Deletes KEY, whatever it holds: a lock (its holder loses it), every holder of a lease set, a rate
limiter's log. Prints whether it was there ({"key", "deleted"} with --json); exit status 0 either way.`,
		min: 1, max: 1, check: checkKeyArg, run: (*cli).del,
	},
}

const defaultCount = 1000

// options are the flags every command takes, and those of some.
type options struct {
	shm, server, password string
	timeout               time.Duration
	json                  bool
	tls                   remote.TLSFiles
	tlsVerify             bool

	limit      int64
	count      int
	showTokens bool
}

func commonFlags(fs *flag.FlagSet, o *options) {
	fs.StringVar(&o.shm, "shm", "", "the named shared segment `/NAME` (ephpm.shm_name): the file /dev/shm/NAME, of this user, mode 0600")
	fs.StringVar(&o.server, "server", "", "an ephpm.server `URL`: unix:///run/ephpm-kv/ephpm-kv.sock, tcp://h:p, redis://h:p, rediss://h:p, redis-cluster://h:p,..., etcd://h:p,...")
	fs.BoolVar(&o.json, "json", false, "print JSON instead of a table")
	fs.DurationVar(&o.timeout, "timeout", 5*time.Second, "bound on each call to the server, or on a wait for a segment's stripe lock")
	fs.StringVar(&o.password, "password", "", "the server's `password` (ephpm.server_password); default $EPHPM_KV_PASSWORD, which, unlike a flag, other users cannot see in ps")
	fs.StringVar(&o.tls.CAFile, "tls-ca", "", "rediss://: PEM CA certificates the server's must be signed by (default: the system's)")
	fs.StringVar(&o.tls.CertFile, "tls-cert", "", "rediss://: PEM client certificate")
	fs.StringVar(&o.tls.KeyFile, "tls-key", "", "rediss://: its private key")
	fs.StringVar(&o.tls.ServerName, "tls-server-name", "", "rediss://: the name the server's certificate must carry (default: the host)")
	fs.BoolVar(&o.tlsVerify, "tls-verify", true, "rediss://: verify the server's certificate")
}

// cli runs one command with its output on stdout and stderr.
type cli struct {
	stdout, stderr io.Writer
}

// isCommand reports whether args name one of the operator's commands
// rather than the server's flags: the server takes flags only, so any
// first argument that is not one is a command (or a mistyped one).
func isCommand(args []string) bool {
	return len(args) > 0 && args[0] != "" && args[0][0] != '-'
}

// runCommand runs the command args name, on this process's stdout and
// stderr. Usage errors are printed here (usageError.printed); main prints
// the others.
func runCommand(args []string) error {
	return (&cli{stdout: os.Stdout, stderr: os.Stderr}).run(args)
}

func findCommand(name string) *subcommand {
	for _, s := range subcommands {
		if s.name == name {
			return s
		}
	}
	return nil
}

func commandNames() string {
	names := make([]string, 0, len(subcommands)+1)
	for _, s := range subcommands {
		names = append(names, s.name)
	}
	return strings.Join(append(names, "help"), ", ")
}

func (c *cli) run(args []string) (err error) {
	name, args := args[0], args[1:]
	if name == "help" {
		return c.help(args)
	}
	sc := findCommand(name)
	if sc == nil {
		return c.usageErr(nil, fmt.Errorf("unknown command %q: the commands are %s; the server takes flags only (ephpm-kv --help)", name, commandNames()))
	}
	o, pos, err := c.parse(sc, args)
	if err != nil {
		return err
	}
	e, closeEngine, err := c.open(sc, o)
	if err != nil {
		var u usageError
		if errors.As(err, &u) {
			return c.usageErr(sc, u.error)
		}
		return fmt.Errorf("%s: %w", sc.name, err)
	}
	defer closeEngine()
	out := bufio.NewWriterSize(c.stdout, 64<<10)
	defer func() {
		if ferr := out.Flush(); err == nil && ferr != nil {
			err = fmt.Errorf("%s: writing the output: %w", sc.name, ferr)
		}
	}()
	// A segment whose file shrank under this process faults on access
	// (shm.Fault): an error, not a crash.
	if se, ok := e.(*shm.Engine); ok {
		defer func() {
			if r := recover(); r != nil {
				ferr := se.Fault(r)
				if ferr == nil {
					panic(r)
				}
				err = fmt.Errorf("%s: %w", sc.name, ferr)
			}
		}()
	}
	if err := sc.run(&cli{stdout: out, stderr: c.stderr}, o, e, pos); err != nil {
		var u usageError
		if errors.As(err, &u) {
			return c.usageErr(sc, u.error)
		}
		return fmt.Errorf("%s: %w", sc.name, err)
	}
	return nil
}

// parse reads sc's flags and positional arguments, in any order ("--"
// ends the flags).
func (c *cli) parse(sc *subcommand, args []string) (*options, []string, error) {
	o := &options{}
	fs := c.flagSet(sc, o)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				c.commandHelp(c.stdout, sc)
				return nil, nil, err
			}
			return nil, nil, c.usageErr(sc, err)
		}
		rest := fs.Args()
		if consumed := args[:len(args)-len(rest)]; len(consumed) > 0 && consumed[len(consumed)-1] == "--" {
			pos = append(pos, rest...)
			break
		}
		if len(rest) == 0 {
			break
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
	switch {
	case len(pos) < sc.min:
		return nil, nil, c.usageErr(sc, fmt.Errorf("want %s", sc.args))
	case len(pos) > sc.max:
		return nil, nil, c.usageErr(sc, fmt.Errorf("unexpected argument %q (want %s)", pos[sc.max], strings.TrimSpace(sc.name+" "+sc.args)))
	case o.shm == "" && o.server == "":
		return nil, nil, c.usageErr(sc, errors.New("say which store: --shm /NAME (a named segment, ephpm.shm_name) or --server URL (ephpm.server)"))
	case o.shm != "" && o.server != "":
		return nil, nil, c.usageErr(sc, errors.New("--shm and --server: give one"))
	case o.timeout <= 0:
		return nil, nil, c.usageErr(sc, fmt.Errorf("--timeout %s: want more than 0", o.timeout))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set["limit"] && o.limit < 1 {
		return nil, nil, c.usageErr(sc, fmt.Errorf("--limit %d: want 1 or more (leave it out for all)", o.limit))
	}
	if set["count"] && (o.count < 1 || o.count > kv.MaxScanCount) {
		return nil, nil, c.usageErr(sc, fmt.Errorf("--count %d: want 1 to %d", o.count, kv.MaxScanCount))
	}
	if o.shm != "" && (o.tls != remote.TLSFiles{} || !o.tlsVerify || set["password"]) {
		return nil, nil, c.usageErr(sc, errors.New("--password and --tls-* are for --server"))
	}
	if !set["password"] {
		o.password = os.Getenv("EPHPM_KV_PASSWORD")
	}
	o.tls.SkipVerify = !o.tlsVerify
	if sc.check != nil {
		if err := sc.check(o, pos); err != nil {
			return nil, nil, c.usageErr(sc, err)
		}
	}
	return o, pos, nil
}

func (c *cli) flagSet(sc *subcommand, o *options) *flag.FlagSet {
	fs := flag.NewFlagSet("ephpm-kv "+sc.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // the errors are ours to print, and the help
	fs.Usage = func() {}
	commonFlags(fs, o)
	if sc.flags != nil {
		sc.flags(fs, o)
	}
	return fs
}

// usageErr prints err and where the usage is; main exits 2.
func (c *cli) usageErr(sc *subcommand, err error) error {
	if sc == nil {
		fmt.Fprintf(c.stderr, "ephpm-kv: %v\nRun ephpm-kv help for the commands.\n", err)
	} else {
		fmt.Fprintf(c.stderr, "ephpm-kv %s: %v\nRun ephpm-kv %s --help for its usage.\n", sc.name, err, sc.name)
	}
	return usageError{error: err, printed: true}
}

func (c *cli) help(args []string) error {
	switch {
	case len(args) == 0:
		c.overview(c.stdout)
		return nil
	case len(args) == 1:
		if sc := findCommand(args[0]); sc != nil {
			c.commandHelp(c.stdout, sc)
			return nil
		}
		if args[0] == "help" {
			c.overview(c.stdout)
			return nil
		}
	}
	return c.usageErr(nil, fmt.Errorf("help %s: no such command; the commands are %s", strings.Join(args, " "), commandNames()))
}

func (c *cli) overview(w io.Writer) {
	fmt.Fprint(w, `Usage:
  ephpm-kv [flags]                        run the server (ephpm-kv --help for its flags)
  ephpm-kv COMMAND [--shm /NAME | --server URL] [--json] [ARGS]

Commands, to look inside a store the PHP processes use:
`)
	for _, sc := range subcommands {
		fmt.Fprintf(w, "  %-22s %s\n", strings.TrimSpace(sc.name+" "+sc.args), sc.summary)
	}
	fmt.Fprint(w, `  help [COMMAND]         the commands, or one command's usage and flags

The store:
  --shm /NAME    a named shared segment (ephpm.shm_name=/NAME): the file /dev/shm/NAME, opened with
                 the checks the extension makes (it must belong to the user running the command,
                 mode 0600) and attached as one more process; never created nor resized
  --server URL   any ephpm.server address: unix:///path, tcp://host:port, redis://host:port,
                 rediss://host:port, redis-cluster://h:p,h:p, etcd://h:p,h:p (password:
                 $EPHPM_KV_PASSWORD or --password)
The anonymous segment (no ephpm.shm_name) belongs to php-fpm's master and its workers only: no
other process can open it.

Exit status: 0 done; 1 failed (no such segment or key, refused, unreachable); 2 a bad command line.
`)
}

func (c *cli) commandHelp(w io.Writer, sc *subcommand) {
	fmt.Fprintf(w, "Usage: ephpm-kv %s [--shm /NAME | --server URL] [--json] [flags]\n\n%s\n\nFlags:\n",
		strings.TrimSpace(sc.name+" "+sc.args), sc.help)
	fs := c.flagSet(sc, &options{})
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// open returns the engine o names.
func (c *cli) open(sc *subcommand, o *options) (kv.Engine, func(), error) {
	if o.shm != "" {
		e, unmap, err := openSegment(o.shm, o.timeout)
		if err != nil {
			return nil, nil, err
		}
		return e, unmap, nil
	}
	// Nothing is dialled yet: what is refused here is the address or
	// the TLS files, a bad command line.
	e, err := serverEngine(o.server, o.password, o.timeout, o.tls)
	if err != nil {
		var u usageError
		if !errors.As(err, &u) {
			err = usageError{error: fmt.Errorf("--server: %w", err)}
		}
		return nil, nil, err
	}
	return e, func() {
		if cl, ok := e.(io.Closer); ok {
			cl.Close()
		}
	}, nil
}

// serverEngine is go/capi's (the extension's) choice of engine for an
// ephpm.server address: a Redis Cluster, etcd, or anything that speaks
// RESP (an ephpm-kv server, a Valkey, a Redis).
func serverEngine(url, password string, timeout time.Duration, tls remote.TLSFiles) (kv.Engine, error) {
	switch {
	case remote.IsClusterAddress(url):
		return remote.NewCluster(url, password, timeout, tls)
	case strings.HasPrefix(url, "etcd://"):
		if tls != (remote.TLSFiles{}) {
			return nil, usagef("--server %s: etcd:// does not take the --tls-* flags yet", url)
		}
		return etcdkv.NewFromURL(url, password, timeout)
	}
	return remote.New(url, password, timeout, remote.WithTLS(tls))
}
