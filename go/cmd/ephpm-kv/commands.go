package main

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ephpm/ephpm-kv/kv"
	"github.com/ephpm/ephpm-kv/shm"
)

// errNoKey is get's answer for a key that is not there: exit status 1.
var errNoKey = errors.New("no such key")

func (c *cli) stats(o *options, e kv.Engine, _ []string) error {
	st, err := e.Stats()
	if err != nil {
		return err
	}
	engine, target := "server", o.server
	if _, ok := e.(*shm.Engine); ok {
		engine, target = "shm", o.shm
	}
	if o.json {
		// Ordered as StatsFields, so the output is stable.
		var b strings.Builder
		fmt.Fprintf(&b, "{%q: %s, %q: %s", "engine", jsonString(engine), "target", jsonString(target))
		for _, f := range kv.StatsFields {
			fmt.Fprintf(&b, ", %q: %d", f.Name, *f.Of(&st))
		}
		b.WriteString("}\n")
		_, err := io.WriteString(c.stdout, b.String())
		return err
	}
	fmt.Fprintf(c.stdout, "%-16s %s\n%-16s %s\n", "engine", engine, "target", target)
	for _, f := range kv.StatsFields {
		fmt.Fprintf(c.stdout, "%-16s %d\n", f.Name, *f.Of(&st))
	}
	return nil
}

// walk calls page with each page of keys a Scan call reports, until the
// keyspace is done or page says to stop. Nothing is kept from one call to
// the next but the cursor.
func walk(o *options, e kv.Engine, pattern string, page func([]kv.KeyInfo) (more bool, err error)) error {
	sc, ok := e.(kv.Scanner)
	if !ok {
		return fmt.Errorf("this engine (%T) cannot list its keys yet (it has no kv.Scanner)", e)
	}
	cursor := ""
	for {
		var keys []kv.KeyInfo
		next, err := sc.Scan(cursor, pattern, o.count, func(k kv.KeyInfo) { keys = append(keys, k) })
		if err != nil {
			return err
		}
		if more, err := page(keys); err != nil || !more {
			return err
		}
		if next == "" {
			return nil
		}
		cursor = next
	}
}

// pattern is the optional PATTERN argument.
func pattern(args []string) string {
	if len(args) > 0 {
		return args[0]
	}
	return ""
}

// checkPattern checks PATTERN and --count as Scan does.
func checkPattern(o *options, args []string) error {
	p := pattern(args)
	if err := kv.CheckScan(p, o.count); err != nil {
		if errors.Is(err, kv.ErrKeyTooLarge) {
			return fmt.Errorf("PATTERN of %d bytes: at most %d (a key's limit)", len(p), kv.MaxKeySize)
		}
		return err
	}
	return nil
}

// list prints rows as a table (a header, then a line each) or as one JSON
// array, as they come: nothing is held but the current page.
type list struct {
	w      io.Writer
	json   bool
	header string
	n      int64
}

func (l *list) row(table string, obj func(b *strings.Builder)) error {
	var err error
	if l.json {
		var b strings.Builder
		if l.n == 0 {
			b.WriteString("[\n  {")
		} else {
			b.WriteString(",\n  {")
		}
		obj(&b)
		b.WriteString("}")
		_, err = io.WriteString(l.w, b.String())
	} else {
		if l.n == 0 {
			io.WriteString(l.w, l.header+"\n")
		}
		_, err = io.WriteString(l.w, table+"\n")
	}
	l.n++
	return err
}

func (l *list) end() error {
	var err error
	switch {
	case l.json && l.n == 0:
		_, err = io.WriteString(l.w, "[]\n")
	case l.json:
		_, err = io.WriteString(l.w, "\n]\n")
	case l.n == 0:
		_, err = io.WriteString(l.w, l.header+"\n")
	}
	return err
}

func (c *cli) keys(o *options, e kv.Engine, args []string) error {
	p := pattern(args)
	l := &list{w: c.stdout, json: o.json, header: fmt.Sprintf("%-9s %10s %10s  %s", "KIND", "TTL", "SIZE", "KEY")}
	err := walk(o, e, p, func(keys []kv.KeyInfo) (bool, error) {
		for _, k := range keys {
			if o.limit > 0 && l.n >= o.limit {
				return false, nil
			}
			err := l.row(fmt.Sprintf("%-9s %10s %10d  %s", k.Kind, ttlText(k.TTL), k.Size, keyText(k.Key)), func(b *strings.Builder) {
				jsonKey(b, "key", k.Key)
				fmt.Fprintf(b, `, "kind": %q, "ttl_ms": %s, "size": %d`, k.Kind.String(), ttlJSON(k.TTL), k.Size)
			})
			if err != nil {
				return false, err
			}
		}
		return true, nil
	})
	if err != nil {
		return err
	}
	return l.end()
}

// held is one row of locks.
type held struct {
	key, kind string
	holders   int64
	fence     int64 // 0: none issued (a plain SetNX's lock)
	ttl       time.Duration
	token     []byte
}

func (c *cli) locks(o *options, e kv.Engine, args []string) error {
	p := pattern(args)
	header := fmt.Sprintf("%-7s %7s %10s %12s  %s", "KIND", "HOLDERS", "TTL", "FENCE", "KEY")
	if o.showTokens {
		header += "  TOKEN"
	}
	l := &list{w: c.stdout, json: o.json, header: header}
	err := walk(o, e, p, func(keys []kv.KeyInfo) (bool, error) {
		for _, k := range keys {
			if o.limit > 0 && l.n >= o.limit {
				return false, nil
			}
			h, ok, err := lockOf(o, e, k)
			if err != nil {
				return false, err
			}
			if !ok {
				continue
			}
			table := fmt.Sprintf("%-7s %7d %10s %12s  %s", h.kind, h.holders, ttlText(h.ttl), fenceText(h.fence), keyText(h.key))
			if o.showTokens && h.token != nil {
				table += "  " + keyText(string(h.token))
			}
			err = l.row(table, func(b *strings.Builder) {
				jsonKey(b, "key", h.key)
				fmt.Fprintf(b, `, "kind": %q, "holders": %d, "ttl_ms": %s, "fence": %s`, h.kind, h.holders, ttlJSON(h.ttl), fenceJSON(h.fence))
				if o.showTokens && h.token != nil {
					b.WriteString(", ")
					jsonKey(b, "token", string(h.token))
				}
			})
			if err != nil {
				return false, err
			}
		}
		return true, nil
	})
	if err != nil {
		return err
	}
	return l.end()
}

// lockOf is k as a held lock: a value with a time left, or a lease set
// with live holders (ok false: neither, or gone since the scan).
func lockOf(o *options, e kv.Engine, k kv.KeyInfo) (held, bool, error) {
	h := held{key: k.Key, ttl: k.TTL, fence: k.Fence}
	switch {
	case k.Kind == kv.KindLeases:
		n, err := e.LeaseCount(k.Key)
		if errors.Is(err, kv.ErrWrongType) {
			return h, false, nil // a plain value since the scan
		}
		if err != nil || n == 0 {
			return h, false, err
		}
		h.kind, h.holders = "leases", n
		return h, true, nil
	case k.Kind == kv.KindValue && k.TTL != kv.TTLPersistent:
		h.kind, h.holders = "lock", 1
		if o.showTokens {
			v, found, err := getValue(e, k.Key)
			if err != nil || !found {
				return h, false, err
			}
			h.token = v
		}
		return h, true, nil
	}
	return h, false, nil
}

// getValue reads key whole, however large.
func getValue(e kv.Engine, key string) ([]byte, bool, error) {
	buf := make([]byte, 4096)
	for {
		n, found, err := e.Get(key, buf)
		if err != nil || !found {
			return nil, found, err
		}
		if n <= len(buf) {
			return buf[:n], true, nil
		}
		buf = make([]byte, n) // it grew meanwhile: again
	}
}

// checkKeyArg refuses a KEY no engine takes.
func checkKeyArg(_ *options, args []string) error {
	if err := kv.CheckKey(args[0]); err != nil {
		return fmt.Errorf("KEY %s: %v", keyText(truncate(args[0], 80)), err)
	}
	return nil
}

func (c *cli) get(o *options, e kv.Engine, args []string) error {
	key := args[0]
	v, found, err := getValue(e, key)
	if err != nil {
		return err
	}
	if !found {
		return fmt.Errorf("%w: %s", errNoKey, keyText(key))
	}
	if !o.json {
		_, err = c.stdout.Write(v)
		return err
	}
	ttl, err := e.TTL(key)
	if err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("{")
	jsonKey(&b, "key", key)
	b.WriteString(", ")
	jsonKey(&b, "value", string(v))
	ttlField := ttlJSON(ttl)
	if ttl == kv.TTLMissing { // gone between the two reads
		ttlField = "0"
	}
	fmt.Fprintf(&b, `, "ttl_ms": %s}`+"\n", ttlField)
	_, err = io.WriteString(c.stdout, b.String())
	return err
}

func (c *cli) del(o *options, e kv.Engine, args []string) error {
	key := args[0]
	deleted, err := e.Del(key)
	if err != nil {
		return err
	}
	switch {
	case o.json:
		var b strings.Builder
		b.WriteString("{")
		jsonKey(&b, "key", key)
		fmt.Fprintf(&b, `, "deleted": %t}`+"\n", deleted)
		_, err = io.WriteString(c.stdout, b.String())
	case deleted:
		_, err = fmt.Fprintf(c.stdout, "deleted %s\n", keyText(key))
	default:
		_, err = fmt.Fprintf(c.stdout, "no key %s (nothing deleted)\n", keyText(key))
	}
	return err
}

// ttlText is a time left for a table: "-" for none, seconds to the
// millisecond under a minute, whole seconds above.
func ttlText(d time.Duration) string {
	switch {
	case d == kv.TTLPersistent:
		return "-"
	case d < 0:
		return "gone"
	case d < time.Minute:
		return d.Round(time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// ttlJSON is a time left in ms, null for none.
func ttlJSON(d time.Duration) string {
	if d == kv.TTLPersistent {
		return "null"
	}
	return strconv.FormatInt(max(d.Milliseconds(), 0), 10)
}

// keyText is a key (or token) for a table: as it is when it is printable
// UTF-8 with no space, else Go-quoted, so that the columns stay
// unambiguous and no byte reaches the terminal raw.
func keyText(s string) string {
	if s == "" || !utf8.ValidString(s) || strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) || unicode.IsSpace(r) || r == '"' }) >= 0 {
		return strconv.Quote(s)
	}
	return s
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// jsonKey writes "name": s, and "name_base64" beside it when s is not
// UTF-8 (JSON strings are text: the bytes would be replaced).
func jsonKey(b *strings.Builder, name, s string) {
	fmt.Fprintf(b, "%q: %s", name, jsonString(s))
	if !utf8.ValidString(s) {
		fmt.Fprintf(b, ", %q: %q", name+"_base64", base64.StdEncoding.EncodeToString([]byte(s)))
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s) // a string always marshals
	return string(b)
}

// fenceText is a lock's fence in the table: "-" for none.
func fenceText(f int64) string {
	if f == 0 {
		return "-"
	}
	return strconv.FormatInt(f, 10)
}

// fenceJSON is a lock's fence in --json: null for none.
func fenceJSON(f int64) string {
	if f == 0 {
		return "null"
	}
	return strconv.FormatInt(f, 10)
}
