package lincheck

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// Proc is a backend process the harness starts, pauses and kills: an
// ephpm-kv server, a redis-server, an etcd member.
type Proc struct {
	Name string
	Path string
	Args []string
	Env  []string // added to the environment
	// Ready returns nil once the process serves; polled after each start.
	Ready func() error

	mu   sync.Mutex
	pid  int // a process someone else started: only paused and resumed
	cmd  *exec.Cmd
	done chan struct{}
	out  bytes.Buffer // every start's stdout and stderr
}

// Start runs the process and waits until Ready (at most 20 s).
func (p *Proc) Start() error {
	p.mu.Lock()
	cmd := exec.Command(p.Path, p.Args...)
	cmd.Env = append(os.Environ(), p.Env...)
	w := &procWriter{p}
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		p.mu.Unlock()
		return fmt.Errorf("%s: %w", p.Name, err)
	}
	done := make(chan struct{})
	p.cmd, p.done = cmd, done
	p.mu.Unlock()
	go func() { cmd.Wait(); close(done) }()
	for deadline := time.Now().Add(20 * time.Second); ; {
		if p.Ready == nil || p.Ready() == nil {
			return nil
		}
		select {
		case <-done:
			return fmt.Errorf("%s exited at start:\n%s", p.Name, p.Output())
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not come up:\n%s", p.Name, p.Output())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

type procWriter struct{ p *Proc }

func (w *procWriter) Write(b []byte) (int, error) {
	w.p.mu.Lock()
	defer w.p.mu.Unlock()
	return w.p.out.Write(b)
}

// Output is what the process wrote, over all its starts.
func (p *Proc) Output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// Pid is the running process's id (0 when not started).
func (p *Proc) Pid() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil {
		return p.pid
	}
	return p.cmd.Process.Pid
}

func (p *Proc) signal(sig syscall.Signal) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil {
		if p.pid > 0 {
			return syscall.Kill(p.pid, sig)
		}
		return fmt.Errorf("%s: not started", p.Name)
	}
	return p.cmd.Process.Signal(sig)
}

// Pause stops the process (SIGSTOP): its sockets stay open, its clients
// time out.
func (p *Proc) Pause() error { return p.signal(syscall.SIGSTOP) }

// Resume continues a paused process (SIGCONT).
func (p *Proc) Resume() error { return p.signal(syscall.SIGCONT) }

// Kill is kill -9, then waits for the exit.
func (p *Proc) Kill() error { return p.end(syscall.SIGKILL) }

// Stop is SIGTERM (after SIGCONT, in case it is paused), then waits.
func (p *Proc) Stop() error {
	p.signal(syscall.SIGCONT)
	return p.end(syscall.SIGTERM)
}

func (p *Proc) end(sig syscall.Signal) error {
	p.mu.Lock()
	cmd, done := p.cmd, p.done
	p.mu.Unlock()
	if cmd == nil {
		return nil
	}
	if err := cmd.Process.Signal(sig); err != nil {
		return err
	}
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		<-done
		return fmt.Errorf("%s ignored %v for 20 s", p.Name, sig)
	}
	p.mu.Lock()
	p.cmd = nil
	p.mu.Unlock()
	return nil
}

// Fault breaks and heals a backend while the workload runs.
type Fault struct {
	Name string
	// Inject runs until ctx ends and leaves the backend healed; it logs
	// each action with the recorder's clock through note.
	Inject func(ctx context.Context, note func(format string, args ...any)) error
}

// Pick chooses the process a fault hits, at each strike: a fixed one, or
// the one that matters then (the etcd leader, the Redis primary).
type Pick func() (*Proc, error)

// This always picks p.
func This(p *Proc) Pick { return func() (*Proc, error) { return p, nil } }

// Every strikes with act every period until ctx ends; act must leave the
// backend healed when it returns (a Redis failover: kill the primary,
// promote a replica, restart the old one as a replica).
func Every(name string, period time.Duration, act func(ctx context.Context, note func(string, ...any)) error) Fault {
	return Fault{Name: name, Inject: func(ctx context.Context, note func(string, ...any)) error {
		for {
			if sleep(ctx, period); ctx.Err() != nil {
				return nil
			}
			if err := act(ctx, note); err != nil {
				return err
			}
		}
	}}
}

// Pause SIGSTOPs p for length, every period.
func Pause(p *Proc, period, length time.Duration) Fault {
	return PausePicked("SIGSTOP "+p.Name, This(p), period, length)
}

// PausePicked SIGSTOPs the process pick chooses for length, every period.
func PausePicked(name string, pick Pick, period, length time.Duration) Fault {
	return Every(name, period-length, func(ctx context.Context, note func(string, ...any)) error {
		p, err := pick()
		if err != nil {
			return err
		}
		if err := p.Pause(); err != nil {
			return err
		}
		note("SIGSTOP %s (pid %d)", p.Name, p.Pid())
		sleep(ctx, length)
		if err := p.Resume(); err != nil {
			return err
		}
		note("SIGCONT %s", p.Name)
		return nil
	})
}

// KillRestart kill -9s p every period and starts it again after down.
func KillRestart(p *Proc, period, down time.Duration) Fault {
	return KillRestartPicked("SIGKILL "+p.Name, This(p), period, down)
}

// KillRestartPicked kill -9s the process pick chooses every period and
// starts it again after down (an etcd member rejoins its cluster).
func KillRestartPicked(name string, pick Pick, period, down time.Duration) Fault {
	return Every(name, period-down, func(ctx context.Context, note func(string, ...any)) error {
		p, err := pick()
		if err != nil {
			return err
		}
		if err := p.Kill(); err != nil {
			return err
		}
		note("SIGKILL %s", p.Name)
		time.Sleep(down) // not cut short: the backend must come back
		if err := p.Start(); err != nil {
			return err
		}
		note("restarted %s (pid %d)", p.Name, p.Pid())
		return nil
	})
}

// Scenario is a workload on a backend under faults.
type Scenario struct {
	Open     Opener
	Workload Workload
	Faults   []Fault
}

// Execute runs the workload and the faults together, recording into rec,
// and returns the fault log.
func (s Scenario) Execute(ctx context.Context, rec *Recorder) ([]string, error) {
	var mu sync.Mutex
	var log []string
	note := func(format string, args ...any) {
		mu.Lock()
		log = append(log, fmt.Sprintf("%8.3fs ", float64(rec.Now())/1e9)+fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	w := s.Workload.withDefaults()
	fctx, stop := context.WithTimeout(ctx, w.Duration)
	defer stop()
	ferrs := make([]error, len(s.Faults))
	var wg sync.WaitGroup
	for i, f := range s.Faults {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := f.Inject(fctx, note); err != nil {
				ferrs[i] = fmt.Errorf("%s: %w", f.Name, err)
			}
		}()
	}
	err := Run(ctx, s.Open, w, rec)
	stop()
	wg.Wait()
	for _, fe := range ferrs {
		if fe != nil && err == nil {
			err = fe
		}
	}
	return log, err
}
