package remote

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
)

// TLSFiles is how a rediss:// connection is secured: ephpm.server_tls_*.
// Empty fields take the defaults: the system's CA pool, no client
// certificate, the address's host as the name to verify.
type TLSFiles struct {
	CAFile     string // PEM CA certificates that must have signed the server's
	CertFile   string // PEM client certificate (for tls-auth-clients yes)
	KeyFile    string // its private key
	ServerName string // the name the server's certificate must carry
	// SkipVerify accepts any server certificate: encryption without
	// knowing who answers. For tests and trusted networks only.
	SkipVerify bool
}

func (f TLSFiles) set() bool { return f != TLSFiles{} }

// WithTLS secures a rediss:// address with f. Given for any other address
// it is refused (a setting that would silently do nothing).
func WithTLS(f TLSFiles) Option { return func(e *Engine) { e.tlsFiles = f } }

// tlsConfig builds the client configuration from the files, at configure
// time, so that a missing or malformed file is a configuration error, not
// an unreachable server.
func tlsConfig(f TLSFiles, host string) (*tls.Config, error) {
	cfg := &tls.Config{ServerName: host, MinVersion: tls.VersionTLS12, InsecureSkipVerify: f.SkipVerify}
	if f.ServerName != "" {
		cfg.ServerName = f.ServerName
	}
	if f.CAFile != "" {
		pem, err := os.ReadFile(f.CAFile)
		if err != nil {
			return nil, fmt.Errorf("ephpm.server_tls_ca: %w", err)
		}
		cfg.RootCAs = x509.NewCertPool()
		if !cfg.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("ephpm.server_tls_ca: no PEM certificate in %s", f.CAFile)
		}
	}
	switch {
	case f.CertFile != "" && f.KeyFile != "":
		cert, err := tls.LoadX509KeyPair(f.CertFile, f.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("ephpm.server_tls_cert, ephpm.server_tls_key: %w", err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	case f.CertFile != "" || f.KeyFile != "":
		return nil, errors.New("ephpm.server_tls_cert and ephpm.server_tls_key go together: set both or neither")
	}
	return cfg, nil
}

// handshake runs TLS over a dialed connection; the socket's timeouts bound
// it as they bound every read and write.
func handshake(nc net.Conn, cfg *tls.Config) (net.Conn, error) {
	tc := tls.Client(nc, cfg)
	if err := tc.Handshake(); err != nil {
		nc.Close()
		var verify *tls.CertificateVerificationError
		if errors.As(err, &verify) {
			return nil, fmt.Errorf("the server's TLS certificate did not verify (check ephpm.server_tls_ca and ephpm.server_tls_server_name): %w", err)
		}
		return nil, fmt.Errorf("TLS handshake: %w", err)
	}
	return tc, nil
}
