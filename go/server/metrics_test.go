package server

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The names the PHP status page reads too: a contract.
var wantMetrics = map[string]string{
	"ephpm_keys":                   "gauge",
	"ephpm_memory_used_bytes":      "gauge",
	"ephpm_memory_limit_bytes":     "gauge",
	"ephpm_memory_evictable_bytes": "gauge",
	"ephpm_hits_total":             "counter",
	"ephpm_misses_total":           "counter",
	"ephpm_expired_total":          "counter",
	"ephpm_evicted_total":          "counter",
	"ephpm_rejected_total":         "counter",
	"ephpm_fence_records":          "gauge",
	"ephpm_quarantined_entries":    "gauge",
	"ephpm_compressed_entries":     "gauge",
	"ephpm_clients":                "gauge",
	"ephpm_commands_total":         "counter",
}

var (
	metricName = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)
	sampleLine = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*) (-?[0-9]+)$`)
)

// parseExposition checks text against the Prometheus text format (0.0.4)
// as this exposition uses it (no labels, no timestamps): every metric has
// one HELP line, then one TYPE line, then its samples, and no name comes
// twice. It returns each metric's type and value.
func parseExposition(t *testing.T, text string) (types map[string]string, values map[string]int64) {
	t.Helper()
	types, values = map[string]string{}, map[string]int64{}
	helped := map[string]bool{}
	if !strings.HasSuffix(text, "\n") {
		t.Error("the exposition does not end with a line feed")
	}
	sc := bufio.NewScanner(strings.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "# HELP "):
			name, help, ok := strings.Cut(strings.TrimPrefix(line, "# HELP "), " ")
			if !ok || !metricName.MatchString(name) || help == "" || helped[name] {
				t.Errorf("line %d: bad or repeated HELP: %q", n, line)
			}
			helped[name] = true
		case strings.HasPrefix(line, "# TYPE "):
			name, typ, ok := strings.Cut(strings.TrimPrefix(line, "# TYPE "), " ")
			if !ok || !helped[name] || types[name] != "" || (typ != "gauge" && typ != "counter") {
				t.Errorf("line %d: a TYPE line not after its HELP, repeated, or of an unknown type: %q", n, line)
			}
			types[name] = typ
		case strings.HasPrefix(line, "#"), line == "":
			t.Errorf("line %d: unexpected %q", n, line)
		default:
			m := sampleLine.FindStringSubmatch(line)
			if m == nil {
				t.Errorf("line %d: not a sample: %q", n, line)
				continue
			}
			if types[m[1]] == "" {
				t.Errorf("line %d: a sample before its TYPE line: %q", n, line)
			}
			if _, dup := values[m[1]]; dup {
				t.Errorf("line %d: a second sample of %s", n, m[1])
			}
			values[m[1]], _ = strconv.ParseInt(m[2], 10, 64)
			if types[m[1]] == "counter" && !strings.HasSuffix(m[1], "_total") {
				t.Errorf("counter %s does not end in _total", m[1])
			}
		}
	}
	return types, values
}

func scrape(t *testing.T, url string) (string, http.Header) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s\n%s", url, resp.Status, body)
	}
	return string(body), resp.Header
}

// The endpoint serves every metric, with the store's and the server's
// numbers, and only GET/HEAD /metrics.
func TestMetrics(t *testing.T) {
	s, addr := startServer(t, Config{Metrics: "127.0.0.1:0", Store: storeCfg(16<<20, 1<<20)})
	rc := dial(t, "unix", addr)
	dial(t, "unix", addr).do("PING")
	runSteps(t, rc, []step{
		cmd("OK", "SET", "a", "1"), cmd("OK", "SET", "b", "2"), cmd(`"1"`, "GET", "a"), cmd("(nil)", "GET", "nope"),
		cmd("*", "EPHPM.SETNXFENCED", "lock", "t", "60000"), cmd("1", "EPHPM.FENCE", "res", "5"),
		cmd("OK", "EPHPM.SETEVICTABLE", "c", "cached", "0"),
	})
	base := "http://" + s.MetricsAddr().String()
	text, hdr := scrape(t, base+"/metrics")
	if ct := hdr.Get("Content-Type"); ct != "text/plain; version=0.0.4; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	types, values := parseExposition(t, text)
	if len(types) != len(wantMetrics) {
		t.Errorf("%d metrics, want %d:\n%s", len(types), len(wantMetrics), text)
	}
	for name, typ := range wantMetrics {
		if types[name] != typ {
			t.Errorf("%s: type %q, want %q", name, types[name], typ)
		}
	}
	if !slices.Equal(MetricNames(), func() []string {
		var names []string
		for _, line := range strings.Split(text, "\n") {
			if name, ok := strings.CutPrefix(line, "# TYPE "); ok {
				names = append(names, strings.Fields(name)[0])
			}
		}
		return names
	}()) {
		t.Errorf("MetricNames %v is not the exposition's order", MetricNames())
	}
	st := s.Store().Counters()
	for name, want := range map[string]int64{
		"ephpm_keys": 4, "ephpm_hits_total": 1, "ephpm_misses_total": 1, "ephpm_fence_records": 1,
		"ephpm_clients": 2, "ephpm_memory_limit_bytes": 16 << 20,
		"ephpm_memory_used_bytes": st.BytesUsed, "ephpm_memory_evictable_bytes": st.BytesEvictable,
		"ephpm_commands_total": 8, "ephpm_rejected_total": 0,
	} {
		if values[name] != want {
			t.Errorf("%s = %d, want %d", name, values[name], want)
		}
	}
	if values["ephpm_memory_evictable_bytes"] <= 0 || values["ephpm_memory_used_bytes"] <= values["ephpm_memory_evictable_bytes"] {
		t.Errorf("memory: used %d, evictable %d", values["ephpm_memory_used_bytes"], values["ephpm_memory_evictable_bytes"])
	}

	for _, c := range []struct {
		method, path string
		status       int
	}{
		{"HEAD", "/metrics", 200}, {"POST", "/metrics", 405}, {"GET", "/", 404}, {"GET", "/metrics/x", 404},
	} {
		req, _ := http.NewRequest(c.method, base+c.path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.status {
			t.Errorf("%s %s: %d, want %d", c.method, c.path, resp.StatusCode, c.status)
		}
	}

	// Closing the server closes the endpoint.
	s.Close()
	if _, err := http.Get(base + "/metrics"); err == nil {
		t.Error("the endpoint still answers after Close")
	}
}

// Off by default; an address that cannot be listened on fails Listen.
func TestMetricsListen(t *testing.T) {
	s, _ := startServer(t, Config{Store: storeCfg(16<<20, 1<<20)})
	if s.MetricsAddr() != nil {
		t.Error("a metrics endpoint without --metrics")
	}
	taken := s2addr(t)
	srv, err := New(Config{Unix: t.TempDir() + "/kv.sock", Metrics: taken, Store: storeCfg(16<<20, 1<<20)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Listen(); err == nil || !strings.Contains(err.Error(), "--metrics "+taken) {
		t.Errorf("Listen with a taken metrics address: %v", err)
	}
}

// s2addr is the address of a metrics endpoint that is listening.
func s2addr(t *testing.T) string {
	s, _ := startServer(t, Config{Metrics: "127.0.0.1:0", Store: storeCfg(16<<20, 1<<20)})
	return s.MetricsAddr().String()
}

// promtool (Debian's prometheus package) finds nothing to say.
func TestMetricsPromtool(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool is not installed (apt-get install prometheus): the exposition is checked by TestMetrics's parser only")
	}
	s, _ := startServer(t, Config{Store: storeCfg(16<<20, 1<<20)})
	var b bytes.Buffer
	if err := s.WriteMetrics(&b); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = &b
	out, err := cmd.CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) != 0 {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}
