package remote

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ephpm/ephpm-kv/kv"
)

// kv.Scanner. On an ephpm-kv server one EPHPM.SCAN a page, which carries
// each key's kind, time left, size and fence. On a Valkey or Redis, SCAN,
// then one pipelined round of TYPE, PTTL, STRLEN, GETRANGE 0 1 and
// scriptKeyFence for the page's keys: only strings are ours (a key of
// another Redis type is another program's, and left out), and a lease set
// or a rate log is a string that opens with its family's header ("L\1",
// "R\1": see scripts.go). A lock's fence is read from its fence record
// (lockFenceKey), a lease set's from its entries. The fence counter, the
// fence marks and the locks' fence records (the "ephpm:fence-" and
// "ephpm:lock-fence:" keys) are the scripts' own, and left out too. On a
// Redis Cluster, every master in
// turn (in the order of their addresses), the cursor naming the master
// and its own cursor.
//
// The cursor is the server's, in decimal ("0" on the wire is "" here); a
// cluster's is "host:port/cursor". A Redis's COUNT is a hint: a page may
// hold more keys than count.

var (
	_ kv.Scanner = (*Engine)(nil)
	_ kv.Scanner = (*Cluster)(nil)
)

// wireCursor is the server's cursor for cursor: "0" for "" (the start),
// else the decimal number the server returned.
func wireCursor(cursor string) (string, bool) {
	if cursor == "" {
		return "0", true
	}
	n, err := strconv.ParseUint(cursor, 10, 64)
	if err != nil || n == 0 || strconv.FormatUint(n, 10) != cursor {
		return "", false
	}
	return cursor, true
}

// kvCursor is the cursor for the server's: "" once the walk is done.
func kvCursor(b []byte) (string, error) {
	if string(b) == "0" {
		return "", nil
	}
	if _, ok := wireCursor(string(b)); !ok {
		return "", errProtocolReply{fmt.Sprintf("scan cursor %.40q is not a number", b)}
	}
	return string(b), nil
}

// internalKey reports the keys the scripts keep for themselves.
func internalKey(key string) bool {
	return key == fenceCounterKey || strings.HasPrefix(key, fenceCounterKey+":{") || strings.HasPrefix(key, fenceMarkPrefix) ||
		strings.HasPrefix(key, lockFencePrefix)
}

// kindNames reads EPHPM.SCAN's kinds.
var kindNames = map[string]kv.KeyKind{}

func init() {
	for _, k := range []kv.KeyKind{kv.KindValue, kv.KindEvictable, kv.KindLeases, kv.KindRateLog} {
		kindNames[k.String()] = k
	}
}

// redisKeyInfo is a Redis key's KeyInfo from TYPE, PTTL, STRLEN, its
// first two bytes and scriptKeyFence; false for a key that is not one of
// ours or is gone.
func redisKeyInfo(key, typ string, pttl, size int64, head string, fence int64) (kv.KeyInfo, bool) {
	if typ != "string" || pttl == -2 || pttl < -2 {
		return kv.KeyInfo{}, false
	}
	info := kv.KeyInfo{Key: key, Kind: kv.KindValue, TTL: kv.TTLPersistent, Size: size, Fence: fence}
	switch {
	case head == "L\x01":
		info.Kind = kv.KindLeases
	case head == "R\x01" && (size-2)%8 == 0:
		info.Kind = kv.KindRateLog
	}
	if pttl >= 0 {
		info.TTL = time.Duration(max(pttl, 1)) * time.Millisecond
	}
	return info, true
}

// ourKeys keeps the keys a Redis SCAN returned that are the user's and
// match (kv.Match decides, whatever the server's MATCH let through).
func ourKeys(keys []string, match string) []string {
	return slices.DeleteFunc(keys, func(k string) bool { return internalKey(k) || !kv.Match(match, k) })
}

// badCursor words a server's refusal of a cursor as kv.ErrBadCursor.
func badCursor(err error) error {
	if err != nil && strings.Contains(err.Error(), "ERR invalid cursor") {
		return fmt.Errorf("%w (%v)", kv.ErrBadCursor, err)
	}
	return err
}

// Scan implements kv.Scanner.
func (e *Engine) Scan(cursor, match string, count int, fn func(kv.KeyInfo)) (string, error) {
	if err := kv.CheckScan(match, count); err != nil {
		return "", err
	}
	wc, ok := wireCursor(cursor)
	if !ok {
		return "", kv.ErrBadCursor
	}
	if match == "*" {
		match = ""
	}
	// Know the server before sending EPHPM.SCAN: one older than the
	// command must not be taken for a Redis when it does not know it.
	if e.maxValue.Load() == limitUnknown {
		if _, err := e.learnMaxValue(); err != nil {
			return "", err
		}
	}
	var (
		next    string
		infos   []kv.KeyInfo
		keys    []string // from a Valkey or Redis: their kinds, ttls and sizes come next
		isRedis bool
	)
	err := e.do(func(c *client) {
		n := 3
		if match != "" {
			n += 2
		}
		if c.dialect.redis() {
			c.command(n + 1)
			c.arg("SCAN")
			c.arg(wc)
			c.arg("COUNT")
		} else {
			c.command(n)
			c.arg("EPHPM.SCAN")
			c.arg(wc)
		}
		c.argInt(int64(count))
		if match != "" {
			c.arg("MATCH")
			c.arg(match)
		}
	}, func(_ int, r *reply, c *client) error {
		infos, keys, isRedis = infos[:0], keys[:0], c.dialect.redis()
		var err error
		next, err = readScanPage(r, c, isRedis, &infos, &keys)
		return err
	})
	if err != nil {
		return "", badCursor(err)
	}
	if isRedis {
		if infos, err = e.redisKeyInfos(ourKeys(keys, match)); err != nil {
			return "", err
		}
	}
	for _, k := range infos {
		fn(k)
	}
	return next, nil
}

// ephpmScanFields is the elements of one key in EPHPM.SCAN's reply: key,
// kind, ttl, size, fence.
const ephpmScanFields = 5

// readScanPage reads SCAN's reply (keys) or EPHPM.SCAN's (infos) and
// returns the next cursor.
func readScanPage(r *reply, c *client, fromRedis bool, infos *[]kv.KeyInfo, keys *[]string) (string, error) {
	if r.kind != '*' || r.n != 2 {
		return "", errUnexpected(r)
	}
	cur, err := c.read()
	if err != nil {
		return "", err
	}
	if cur.kind != '$' || cur.n < 0 {
		return "", errUnexpected(&cur)
	}
	next, err := kvCursor(cur.data)
	if err != nil {
		return "", err
	}
	page, err := c.read()
	if err != nil {
		return "", err
	}
	if page.kind != '*' || page.n < 0 || (!fromRedis && page.n%ephpmScanFields != 0) {
		return "", errUnexpected(&page)
	}
	for i := int64(0); i < page.n; i++ {
		el, err := c.read()
		if err != nil {
			return "", err
		}
		if el.kind != '$' || el.n < 0 {
			return "", errUnexpected(&el)
		}
		if fromRedis {
			*keys = append(*keys, string(el.data))
			continue
		}
		// key, kind, ttl in ms (-1: none), size, fence
		info := kv.KeyInfo{Key: string(el.data)}
		kind, err := c.read()
		if err != nil {
			return "", err
		}
		if kind.kind != '$' || kind.n < 0 {
			return "", errUnexpected(&kind)
		}
		k, known := kindNames[string(kind.data)] // a kind this client does not know: the key is left out
		var nums [ephpmScanFields - 2]int64
		for j := range nums {
			n, err := c.read()
			if err != nil {
				return "", err
			}
			if n.kind != ':' {
				return "", errUnexpected(&n)
			}
			nums[j] = n.n
		}
		i += ephpmScanFields - 1
		ttl, size, fence := nums[0], nums[1], nums[2]
		if (ttl < 0 && ttl != -1) || ttl > int64(kv.MaxTTL/time.Millisecond) || size < 0 || fence < 0 {
			return "", errProtocolReply{fmt.Sprintf("EPHPM.SCAN entry %.40q with ttl %d, size %d and fence %d", info.Key, ttl, size, fence)}
		}
		if !known {
			continue
		}
		info.Kind, info.TTL, info.Size, info.Fence = k, kv.TTLPersistent, size, fence
		if ttl >= 0 {
			info.TTL = time.Duration(ttl) * time.Millisecond
		}
		*infos = append(*infos, info)
	}
	return next, nil
}

// redisKeyInfos asks a Valkey or Redis for keys' types, times left, sizes,
// headers and fences, in one round trip (another, should the server have
// lost scriptKeyFence: NOSCRIPT; it is a read, so sent again).
func (e *Engine) redisKeyInfos(keys []string) ([]kv.KeyInfo, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	type answers struct {
		typ, head         string
		pttl, size, fence int64
		skip              bool
	}
	const perKey = 5 // TYPE, PTTL, STRLEN, GETRANGE, scriptKeyFence
	var got []answers
	build := func(c *client) {
		for _, k := range keys {
			c.command(2)
			c.arg("TYPE")
			c.arg(k)
			c.command(2)
			c.arg("PTTL")
			c.arg(k)
			c.command(2)
			c.arg("STRLEN")
			c.arg(k)
			c.command(4)
			c.arg("GETRANGE")
			c.arg(k)
			c.arg("0")
			c.arg("1")
			c.evalsha(scriptKeyFence, 2, 0)
			c.arg(k)
			c.arg(serverLockFenceKey(k))
		}
	}
	handle := func(i int, r *reply, c *client) error {
		a := &got[i/perKey]
		if r.kind == '-' {
			if strings.HasPrefix(string(r.data), "WRONGTYPE") {
				a.skip = true // changed type since TYPE: not ours, or no more
				return nil
			}
			return replyError(r.data)
		}
		switch i % perKey {
		case 0:
			if r.kind != '+' {
				return errUnexpected(r)
			}
			a.typ = string(r.data)
		case 1, 2:
			if r.kind != ':' {
				return errUnexpected(r)
			}
			if i%perKey == 1 {
				a.pttl = r.n
			} else {
				a.size = r.n
			}
		case 3:
			if r.kind != '$' || r.n < 0 {
				return errUnexpected(r)
			}
			a.head = string(r.data)
		case 4:
			f, err := intOrBulk(r)
			if err != nil || f < 0 {
				return errUnexpected(r)
			}
			a.fence = f
		}
		return nil
	}
	for tries := 0; ; tries++ {
		got = make([]answers, len(keys))
		err := e.trip(build, handle, true)
		var again *notRun
		if err == nil {
			break
		}
		if !errors.As(err, &again) || again.unknownCommand {
			return nil, err
		}
		if tries == 2 {
			return nil, again.err
		}
		e.forgetScripts()
	}
	infos := make([]kv.KeyInfo, 0, len(keys))
	for i, a := range got {
		if info, ok := redisKeyInfo(keys[i], a.typ, a.pttl, a.size, a.head, a.fence); ok && !a.skip {
			infos = append(infos, info)
		}
	}
	return infos, nil
}

// clusterCursor splits a cluster cursor, "host:port/cursor", "" to start.
func clusterCursor(cursor string) (addr string, at uint64, ok bool) {
	if cursor == "" {
		return "", 0, true
	}
	i := strings.LastIndexByte(cursor, '/')
	if i < 1 {
		return "", 0, false
	}
	n, err := strconv.ParseUint(cursor[i+1:], 10, 64)
	if err != nil || strconv.FormatUint(n, 10) != cursor[i+1:] {
		return "", 0, false
	}
	return cursor[:i], n, true
}

// Scan implements kv.Scanner: the masters one after another, in the order
// of their addresses. A master that left the cluster mid-walk is skipped
// (the walk goes on at the next address); keys of slots that moved
// between masters meanwhile may be missed or reported twice.
func (c *Cluster) Scan(cursor, match string, count int, fn func(kv.KeyInfo)) (string, error) {
	if err := kv.CheckScan(match, count); err != nil {
		return "", err
	}
	addr, at, ok := clusterCursor(cursor)
	if !ok {
		return "", kv.ErrBadCursor
	}
	if match == "*" {
		match = ""
	}
	if err := c.check(); err != nil {
		return "", err
	}
	c.dropPending()
	ctx := context.Background()
	var mu sync.Mutex
	masters := map[string]*redis.Client{}
	err := c.rdb.ForEachMaster(ctx, func(_ context.Context, n *redis.Client) error {
		mu.Lock()
		masters[n.Options().Addr] = n
		mu.Unlock()
		return nil
	})
	if err != nil {
		return "", c.classify(err)
	}
	addrs := make([]string, 0, len(masters))
	for a := range masters {
		addrs = append(addrs, a)
	}
	slices.Sort(addrs)
	i, found := slices.BinarySearch(addrs, addr)
	if i == len(addrs) {
		return "", nil
	}
	if !found {
		at = 0
	}
	n := masters[addrs[i]]
	keys, nextAt, err := n.Scan(ctx, at, match, int64(count)).Result()
	if err != nil {
		return "", badCursor(c.classify(err))
	}
	infos, err := c.keyInfos(ctx, n, ourKeys(keys, match))
	if err != nil {
		return "", err
	}
	next := ""
	switch {
	case nextAt != 0:
		next = addrs[i] + "/" + strconv.FormatUint(nextAt, 10)
	case i+1 < len(addrs):
		next = addrs[i+1] + "/0"
	}
	for _, k := range infos {
		fn(k)
	}
	return next, nil
}

// keyInfos is Engine.redisKeyInfos on one master, pipelined: scriptKeyFence
// by EVALSHA, and once more by EVAL when the master does not have it.
func (c *Cluster) keyInfos(ctx context.Context, n *redis.Client, keys []string) ([]kv.KeyInfo, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	const perKey = 5 // type, pttl, strlen, getrange, scriptKeyFence
	var cmds []*redis.Cmd
	var rerr redis.Error
	for _, eval := range []bool{false, true} {
		cmds = make([]*redis.Cmd, 0, perKey*len(keys))
		_, err := n.Pipelined(ctx, func(p redis.Pipeliner) error {
			for _, k := range keys {
				cmds = append(cmds, p.Do(ctx, "type", k), p.Do(ctx, "pttl", k), p.Do(ctx, "strlen", k), p.Do(ctx, "getrange", k, 0, 1))
				fkeys := withLockFence(k)
				if eval {
					cmds = append(cmds, p.Eval(ctx, scriptKeyFence.src, fkeys))
				} else {
					cmds = append(cmds, p.EvalSha(ctx, scriptKeyFence.sha, fkeys))
				}
			}
			return nil
		})
		if err != nil && !errors.As(err, &rerr) {
			return nil, c.classify(err)
		}
		if err == nil || eval || !noScript(cmds[perKey-1].Err()) {
			break
		}
	}
	infos := make([]kv.KeyInfo, 0, len(keys))
	for i, k := range keys {
		typ, err1 := cmds[perKey*i].Text()
		pttl, err2 := cmds[perKey*i+1].Int64()
		size, err3 := cmds[perKey*i+2].Int64()
		head, err4 := cmds[perKey*i+3].Text()
		fence, err5 := c.toInt(cmds[perKey*i+4].Result())
		if err := errors.Join(err1, err2, err3, err4, err5); err != nil {
			// WRONGTYPE (not a string), MOVED or ASK (its slot is
			// moving): not ours, or the next master's to report.
			if errors.As(err, &rerr) {
				continue
			}
			return nil, c.classify(err)
		}
		if info, ok := redisKeyInfo(k, typ, pttl, size, head, fence); ok {
			infos = append(infos, info)
		}
	}
	return infos, nil
}

// noScript says err is a NOSCRIPT reply: the script did not run.
func noScript(err error) bool {
	return err != nil && strings.HasPrefix(err.Error(), "NOSCRIPT")
}
