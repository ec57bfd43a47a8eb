// A stand-in for `bootkube render`'s cost on this machine, where bootkube itself cannot be built (its
// module needs GitHub): the key work of its render, done the way it did it — Go's crypto/rsa, one
// RSA-2048 key after another, each certificate signed by its CA — for the keys bootkube v0.14 rendered
// (cluster CA, API server, admin, service account, etcd CA, etcd server, etcd peer, etcd client; its
// manifests are templates and cost next to nothing). With -keys N it makes N keys instead (17 is what
// Bootdeck renders for 3 masters: per-master etcd server and peer keys, the front proxy's pair, the
// controller-manager's, the scheduler's and the API server's kubelet client). Writes the PEM files
// into -dir, like a render.
//
//	go build -o /tmp/bootkube-keys ./bench/bootkube-keys && hyperfine '/tmp/bootkube-keys -dir /tmp/bk'
package main

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"flag"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"time"
)

func main() {
	keys := flag.Int("keys", 8, "RSA-2048 keys to generate (bootkube v0.14: 8)")
	dir := flag.String("dir", "bootkube-assets", "directory to write the PEM files into")
	flag.Parse()
	if err := os.MkdirAll(*dir, 0o700); err != nil {
		fail(err)
	}
	start := time.Now()
	now := time.Now()
	var caKey *rsa.PrivateKey
	var caCert *x509.Certificate
	for i := 0; i < *keys; i++ {
		key, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			fail(err)
		}
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(int64(i + 1)),
			Subject:      pkix.Name{CommonName: fmt.Sprintf("key-%d", i)},
			NotBefore:    now,
			NotAfter:     now.Add(365 * 24 * time.Hour),
			KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
			ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		}
		parent, signer := tmpl, key
		if i == 0 {
			tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
			tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature
		} else {
			parent, signer = caCert, caKey
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, signer)
		if err != nil {
			fail(err)
		}
		if i == 0 {
			caKey = key
			if caCert, err = x509.ParseCertificate(der); err != nil {
				fail(err)
			}
		}
		write(*dir, fmt.Sprintf("key-%d.key", i), "RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(key))
		write(*dir, fmt.Sprintf("key-%d.crt", i), "CERTIFICATE", der)
	}
	fmt.Printf("%d RSA-2048 keys and certificates in %s\n", *keys, time.Since(start).Round(time.Millisecond))
}

func write(dir, name, kind string, der []byte) {
	if err := os.WriteFile(filepath.Join(dir, name), pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
