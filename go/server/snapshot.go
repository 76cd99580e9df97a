package server

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/ephpm/ephpm-kv/store"
)

// Snapshot file: magic; the fence counter; the fence records (count, then
// resource and highest fence each), so fences never go backwards across a
// restart; then records of key, value and absolute expiry in Unix
// milliseconds (0 = none): wall time survives a restart, the store's
// monotonic deadlines do not. Written to a temp file and renamed into place.

var snapshotMagic = []byte("EPHPMKV2")

func (s *Server) saveSnapshot() error {
	path := s.cfg.Snapshot
	tmp, err := os.CreateTemp(filepath.Dir(path), ".ephpm-kv-snapshot-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriter(tmp)
	w.Write(snapshotMagic)
	fences := s.store.Fences()
	w.Write(binary.AppendVarint(nil, fences.Counter))
	w.Write(binary.AppendUvarint(nil, uint64(len(fences.Highest))))
	for resource, fence := range fences.Highest {
		w.Write(binary.AppendUvarint(nil, uint64(len(resource))))
		w.WriteString(resource)
		w.Write(binary.AppendVarint(nil, fence))
	}
	n := 0
	now := time.Now()
	err = s.store.Export(func(k string, v []byte, ttl time.Duration) error {
		var at int64
		if ttl > 0 {
			at = now.Add(ttl).UnixMilli() + 1
		}
		var hdr [binary.MaxVarintLen64 * 3]byte
		h := binary.AppendUvarint(hdr[:0], uint64(len(k)))
		h = binary.AppendUvarint(h, uint64(len(v)))
		h = binary.AppendVarint(h, at)
		w.Write(h)
		w.WriteString(k)
		_, err := w.Write(v)
		n++
		return err
	})
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("writing snapshot %s: %w", path, err)
	}
	s.log.Info("snapshot saved", "path", path, "keys", n)
	return nil
}

func (s *Server) loadSnapshot() (int, error) {
	f, err := os.Open(s.cfg.Snapshot)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	magic := make([]byte, len(snapshotMagic))
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != string(snapshotMagic) {
		return 0, fmt.Errorf("%s is not an ephpm-kv snapshot (or one from another version)", s.cfg.Snapshot)
	}
	if err := s.loadFences(r); err != nil {
		return 0, err
	}
	n := 0
	for {
		klen, err := binary.ReadUvarint(r)
		if err == io.EOF {
			return n, nil
		}
		vlen, err2 := binary.ReadUvarint(r)
		at, err3 := binary.ReadVarint(r)
		if err = errors.Join(err, err2, err3); err != nil || klen > 1<<16 || vlen > uint64(s.cfg.MaxBulk) {
			return n, fmt.Errorf("snapshot %s is corrupt after %d keys", s.cfg.Snapshot, n)
		}
		buf := make([]byte, klen+vlen)
		if _, err := io.ReadFull(r, buf); err != nil {
			return n, fmt.Errorf("snapshot %s is truncated after %d keys", s.cfg.Snapshot, n)
		}
		var ttl time.Duration
		if at != 0 {
			if ttl = time.Until(time.UnixMilli(at)); ttl <= 0 {
				continue // expired while the server was down
			}
		}
		if _, err := s.store.SetWith(string(buf[:klen]), buf[klen:], store.SetOptions{TTL: ttl}); err != nil {
			return n, fmt.Errorf("loading snapshot %s: %w", s.cfg.Snapshot, err)
		}
		n++
	}
}

func (s *Server) snapshotLoop() {
	defer close(s.snapDone)
	t := time.NewTicker(s.cfg.SnapshotEvery)
	defer t.Stop()
	for {
		select {
		case <-s.stopSnap:
			return
		case <-t.C:
			if err := s.saveSnapshot(); err != nil {
				s.log.Error("periodic snapshot failed", "err", err)
			}
		}
	}
}

func (s *Server) loadFences(r *bufio.Reader) error {
	corrupt := fmt.Errorf("snapshot %s is corrupt in its fence records", s.cfg.Snapshot)
	st := store.FenceState{Highest: map[string]int64{}}
	counter, err := binary.ReadVarint(r)
	if err != nil {
		return corrupt
	}
	st.Counter = counter
	count, err := binary.ReadUvarint(r)
	if err != nil || count > 1<<32 {
		return corrupt
	}
	for range count {
		n, err := binary.ReadUvarint(r)
		if err != nil || n > 1<<16 {
			return corrupt
		}
		resource := make([]byte, n)
		if _, err := io.ReadFull(r, resource); err != nil {
			return corrupt
		}
		fence, err := binary.ReadVarint(r)
		if err != nil {
			return corrupt
		}
		st.Highest[string(resource)] = fence
	}
	return s.store.RestoreFences(st)
}
