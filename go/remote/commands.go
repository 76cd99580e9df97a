package remote

// Building commands and reading their usual replies.

import "strconv"

// statsPairs runs EPHPM.STATS and calls fn for each name and integer value.
func (e *Engine) statsPairs(fn func(name string, value int64)) error {
	return e.roundTrip(func(c *client) {
		c.command(1)
		c.arg("EPHPM.STATS")
	}, func(_ int, r *reply, c *client) error {
		return readStatsPairs(r, c, fn)
	})
}

// readStatsPairs reads EPHPM.STATS's reply, which also tells this
// connection's dialect.
func readStatsPairs(r *reply, c *client, fn func(name string, value int64)) error {
	{
		if r.kind != '*' || r.n < 0 {
			return errUnexpected(r)
		}
		var name string
		evictable := false
		for i := int64(0); i < r.n; i++ {
			el, err := c.read()
			if err != nil {
				return err
			}
			switch {
			case i%2 == 0 && el.kind == '$' && el.n >= 0:
				name = string(el.data)
				evictable = evictable || name == "bytes_evictable"
			case i%2 == 1 && el.kind == ':':
				fn(name, el.n)
			case el.kind == '*':
				return errUnexpected(&el) // nested: out of step
			}
		}
		c.dialect.kind, c.dialect.evictable = dialectEphpm, evictable
		return nil
	}
}

// intCmd runs a command whose reply is an integer.
func (e *Engine) intCmd(build func(c *client)) (int64, error) {
	var n int64
	err := e.do(build, func(_ int, r *reply, _ *client) error {
		if r.kind != ':' {
			return errUnexpected(r)
		}
		n = r.n
		return nil
	})
	return n, err
}

// intOrBulk reads an integer reply, or a bulk holding one (what a script
// returns for a number that a Lua double could not hold exactly).
func intOrBulk(r *reply) (int64, error) {
	switch r.kind {
	case ':':
		return r.n, nil
	case '$':
		if n, err := strconv.ParseInt(string(r.data), 10, 64); err == nil && r.n >= 0 {
			return n, nil
		}
	}
	return 0, errUnexpected(r)
}

func (e *Engine) boolCmd(build func(c *client)) (bool, error) {
	n, err := e.intCmd(build)
	return n == 1, err
}

// fencedCmd runs a fenced write: its reply is the fence granted, 0 when
// refused (held by someone else).
func (e *Engine) fencedCmd(build func(c *client)) (int64, bool, error) {
	var fence int64
	err := e.do(build, func(_ int, r *reply, _ *client) (err error) {
		fence, err = intOrBulk(r)
		return err
	})
	if err != nil {
		return 0, false, e.fenceCounterError(err)
	}
	return fence, fence != 0, nil
}

// okCmd runs a command whose reply is +OK; nil is (false, nil) (SET NX).
func (e *Engine) okCmd(build func(c *client)) (bool, error) {
	var ok bool
	err := e.do(build, func(_ int, r *reply, _ *client) error {
		switch {
		case r.kind == '+':
			ok = true
		case !r.isNil():
			return errUnexpected(r)
		}
		return nil
	})
	return ok, err
}

// keyCmd builds NAME key.
func keyCmd(name, key string) func(c *client) {
	return func(c *client) {
		c.command(2)
		c.arg(name)
		c.arg(key)
	}
}

// tokenCmd builds NAME key token.
func tokenCmd(name, key string, token []byte) func(c *client) {
	return func(c *client) {
		c.command(3)
		c.arg(name)
		c.arg(key)
		c.argBytes(token)
	}
}

// setCmd appends SET key value [NX] [PX px].
func setCmd(c *client, key string, value []byte, nx bool, px int64) {
	n := 3
	if nx {
		n++
	}
	if px > 0 {
		n += 2
	}
	c.command(n)
	c.arg("SET")
	c.arg(key)
	c.argBytes(value)
	if nx {
		c.arg("NX")
	}
	if px > 0 {
		c.arg("PX")
		c.argInt(px)
	}
}
