package remote

// The connection: dialing, and one round trip of pipelined commands.

// connect dials (and authenticates) when there is no connection. Called
// with mu held. Nothing is retried: a retried SETNX could report its own
// first attempt as "held".
func (e *Engine) connect() (*client, error) {
	if e.cl != nil {
		if !e.cl.stale() {
			return e.cl, nil
		}
		// Closed by a server that restarted since the last call: nothing
		// of this call was sent, so dialing again is not a retry.
		e.drop()
	}
	nc, err := dialBlocking(e.network, e.dialAddr, e.timeout, e.raw)
	if err == nil && e.tls != nil {
		nc, err = handshake(nc, e.tls)
	}
	if err != nil {
		return nil, err
	}
	cl := newClient(nc)
	if e.password != "" {
		cl.command(2)
		cl.arg("AUTH")
		cl.arg(e.password)
		err = cl.flush()
		var r reply
		if err == nil {
			r, err = cl.read()
		}
		if err == nil && r.kind == '-' {
			err = replyError(r.data)
		}
		if err != nil {
			nc.Close()
			return nil, err
		}
	}
	e.maxValue.Store(limitUnknown)
	e.cl = cl
	return cl, nil
}

// drop closes the connection after a failure that leaves the reply stream
// out of step (or unknown), so the next call dials again. Called with mu held.
func (e *Engine) drop() {
	if e.cl != nil {
		e.cl.nc.Close()
		e.cl = nil
	}
}

// roundTrip sends what build appends (one command or several, pipelined)
// and hands each reply to handle in order, i counting the replies handle
// sees (a SCRIPT LOAD pipelined before its EVALSHA is not one of them);
// every reply is read even after an error, so the connection stays in
// step. An error reply goes to the caller as a replyError (the first one),
// as does handle's first error. An array reply's elements are read by
// handle, from c.
func (e *Engine) roundTrip(build func(c *client), handle func(i int, r *reply, c *client) error) error {
	return e.trip(build, handle, false)
}

// trip is roundTrip; withErrors hands error replies to handle as well.
func (e *Engine) trip(build func(c *client), handle func(i int, r *reply, c *client) error, withErrors bool) error {
	if e.hasPending.Load() {
		e.dropPending()
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	c, err := e.connect()
	if err != nil {
		return e.classify(err)
	}
	c.skip = c.skip[:0]
	build(c)
	skip, used := c.skip, c.dialect
	if err := c.flush(); err != nil {
		e.drop()
		return e.classify(err)
	}
	var first error
	i := 0
	for _, skipped := range skip {
		r, err := c.read()
		if err != nil {
			e.drop()
			return e.classify(err)
		}
		switch {
		case skipped:
			// A SCRIPT LOAD: should it fail, its EVALSHA says NOSCRIPT.
			err = discard(c, &r)
		case r.kind == '-' && !withErrors:
			err = replyError(r.data)
			i++
		default:
			err = handle(i, &r, c)
			i++
		}
		if err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		if !keepsConnection(first) {
			e.drop()
		}
		return e.retryable(first, used)
	}
	return nil
}
