package server

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// The metrics endpoint (--metrics ADDR): GET /metrics in the Prometheus
// text exposition format, version 0.0.4. The names are shared with the
// PHP status page: they are a contract, kept as they are.

// MetricsContentType is the Content-Type of the exposition.
const MetricsContentType = "text/plain; version=0.0.4; charset=utf-8"

// metric is one metric of the exposition: a gauge or a counter.
type metric struct {
	name, typ, help string
	value           func(s *Server, st *kv.Stats) int64
}

// metrics lists every metric, in the exposition's order.
var metrics = []metric{
	{"ephpm_keys", "gauge", "Entries held, including expired ones not reclaimed yet.",
		func(_ *Server, st *kv.Stats) int64 { return st.Keys }},
	{"ephpm_memory_used_bytes", "gauge", "Accounted memory: keys, stored values and per-entry overhead.",
		func(_ *Server, st *kv.Stats) int64 { return st.BytesUsed }},
	{"ephpm_memory_limit_bytes", "gauge", "The accounted memory the store may hold (--memory-limit).",
		func(_ *Server, st *kv.Stats) int64 { return st.BytesLimit }},
	{"ephpm_memory_evictable_bytes", "gauge", "Of the memory used, what evictable (cache) entries hold.",
		func(_ *Server, st *kv.Stats) int64 { return st.BytesEvictable }},
	{"ephpm_hits_total", "counter", "Reads that found a live key.",
		func(_ *Server, st *kv.Stats) int64 { return st.Hits }},
	{"ephpm_misses_total", "counter", "Reads that found no live key.",
		func(_ *Server, st *kv.Stats) int64 { return st.Misses }},
	{"ephpm_expired_total", "counter", "Entries reclaimed after their TTL ran out.",
		func(_ *Server, st *kv.Stats) int64 { return st.Expired }},
	{"ephpm_evicted_total", "counter", "Evictable entries dropped to make room.",
		func(_ *Server, st *kv.Stats) int64 { return st.Evicted }},
	{"ephpm_rejected_total", "counter", "Writes refused because the store was full.",
		func(_ *Server, st *kv.Stats) int64 { return st.Rejected }},
	{"ephpm_fence_records", "gauge", "Fence records held (one per fenced resource).",
		func(_ *Server, st *kv.Stats) int64 { return st.Fences }},
	{"ephpm_quarantined_entries", "gauge", "Entries found corrupt and kept unreadable until they go.",
		func(_ *Server, st *kv.Stats) int64 { return st.Quarantined }},
	{"ephpm_compressed_entries", "gauge", "Entries stored compressed.",
		func(_ *Server, st *kv.Stats) int64 { return st.Compressed }},
	{"ephpm_clients", "gauge", "Connected clients.",
		func(s *Server, _ *kv.Stats) int64 { return s.clients.Load() }},
	{"ephpm_commands_total", "counter", "Commands processed.",
		func(s *Server, _ *kv.Stats) int64 { return s.totalCmds.Load() }},
}

// MetricNames lists the names the exposition has, in its order.
func MetricNames() []string {
	names := make([]string, len(metrics))
	for i, m := range metrics {
		names[i] = m.name
	}
	return names
}

// WriteMetrics writes the store's and the server's counters in the
// Prometheus text format: for each metric its HELP and TYPE lines and one
// sample.
func (s *Server) WriteMetrics(w io.Writer) error {
	st := s.store.Counters()
	bw := bufio.NewWriter(w)
	var line []byte
	for _, m := range metrics {
		line = append(line[:0], "# HELP "...)
		line = append(line, m.name...)
		line = append(line, ' ')
		line = append(line, m.help...)
		line = append(line, "\n# TYPE "...)
		line = append(line, m.name...)
		line = append(line, ' ')
		line = append(line, m.typ...)
		line = append(line, '\n')
		line = append(line, m.name...)
		line = append(line, ' ')
		line = strconv.AppendInt(line, m.value(s, &st), 10)
		line = append(line, '\n')
		bw.Write(line)
	}
	return bw.Flush()
}

// MetricsHandler serves GET (and HEAD) /metrics.
func (s *Server) MetricsHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", MetricsContentType)
		w.Header().Set("Cache-Control", "no-store")
		if r.Method == http.MethodGet {
			s.WriteMetrics(w)
		}
	})
	return mux
}

// listenMetrics opens the metrics endpoint at cfg.Metrics and serves it
// until Close.
func (s *Server) listenMetrics() error {
	ln, err := net.Listen("tcp", s.cfg.Metrics)
	if err != nil {
		return err
	}
	hs := &http.Server{
		Handler:           s.MetricsHandler(),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      10 * time.Second,
		IdleTimeout:       time.Minute,
		MaxHeaderBytes:    16 << 10,
	}
	done := make(chan struct{})
	s.mu.Lock()
	s.metricsSrv, s.metricsLn, s.metricsDone = hs, ln, done
	s.mu.Unlock()
	go func() {
		defer close(done)
		if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("metrics endpoint stopped", "addr", ln.Addr(), "err", err)
		}
	}()
	s.log.Info("serving metrics", "addr", "http://"+ln.Addr().String()+"/metrics")
	return nil
}

// MetricsAddr is the metrics endpoint's address once Listen opened it, nil
// when there is none.
func (s *Server) MetricsAddr() net.Addr {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.metricsLn == nil {
		return nil
	}
	return s.metricsLn.Addr()
}

// closeMetrics stops the metrics endpoint.
func (s *Server) closeMetrics() {
	s.mu.Lock()
	hs, done := s.metricsSrv, s.metricsDone
	s.metricsSrv = nil
	s.mu.Unlock()
	if hs != nil {
		hs.Close()
		<-done
	}
}
