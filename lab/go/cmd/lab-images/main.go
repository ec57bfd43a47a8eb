// lab-images builds OCI images from files on this machine (the lab's Go-built upstream binaries and a
// few Debian files) and pushes them to a registry, the way an air-gapped site fills its own registry.
// Test bed only: the product never runs it.
//
//	lab-images build SPEC.json     write the images SPEC names into the OCI layout it names
//	lab-images push LAYOUT REGISTRY CA.crt
//	                               push every image of LAYOUT to REGISTRY, the source registry's host
//	                               replaced by REGISTRY (registry.k8s.io/pause:3.10.2 → REGISTRY/pause:3.10.2),
//	                               as $REGISTRY_USER with $REGISTRY_PASSWORD
//	lab-images htpasswd USER       the registry's htpasswd line for USER, the password read from stdin
package main

import (
	"archive/tar"
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"sort"
	"strings"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// Entry is one file, directory or symlink of a layer.
type Entry struct {
	Dest    string `json:"dest"`
	Src     string `json:"src,omitempty"`
	Mode    int64  `json:"mode,omitempty"`
	Symlink string `json:"symlink,omitempty"`
	Dir     bool   `json:"dir,omitempty"`
}

type Image struct {
	Ref        string    `json:"ref"`
	Layers     [][]Entry `json:"layers"`
	Entrypoint []string  `json:"entrypoint,omitempty"`
	Cmd        []string  `json:"cmd,omitempty"`
	Env        []string  `json:"env,omitempty"`
	WorkingDir string    `json:"workingDir,omitempty"`
	User       string    `json:"user,omitempty"`
}

type Spec struct {
	Out    string  `json:"out"`
	Images []Image `json:"images"`
}

const refAnnotation = "org.opencontainers.image.ref.name"

func main() {
	if len(os.Args) < 2 {
		fail("usage: lab-images build SPEC.json | push LAYOUT REGISTRY CA.crt")
	}
	var err error
	switch os.Args[1] {
	case "build":
		if len(os.Args) != 3 {
			fail("usage: lab-images build SPEC.json")
		}
		err = build(os.Args[2])
	case "htpasswd":
		if len(os.Args) != 3 {
			fail("usage: lab-images htpasswd USER < password")
		}
		err = htpasswd(os.Args[2])
	case "push":
		if len(os.Args) != 5 {
			fail("usage: lab-images push LAYOUT REGISTRY CA.crt")
		}
		err = push(os.Args[2], os.Args[3], os.Args[4])
	default:
		fail("unknown command " + os.Args[1])
	}
	if err != nil {
		fail(err.Error())
	}
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "lab-images:", msg)
	os.Exit(1)
}

func build(specPath string) error {
	raw, err := os.ReadFile(specPath)
	if err != nil {
		return err
	}
	var spec Spec
	if err := json.Unmarshal(raw, &spec); err != nil {
		return fmt.Errorf("%s: %w", specPath, err)
	}
	p, err := layout.Write(spec.Out, empty.Index)
	if err != nil {
		return err
	}
	for _, im := range spec.Images {
		img, err := image(im)
		if err != nil {
			return fmt.Errorf("%s: %w", im.Ref, err)
		}
		if err := p.AppendImage(img, layout.WithAnnotations(map[string]string{refAnnotation: im.Ref})); err != nil {
			return fmt.Errorf("%s: %w", im.Ref, err)
		}
		d, _ := img.Digest()
		fmt.Printf("built %s %s\n", im.Ref, d)
	}
	return nil
}

func image(im Image) (v1.Image, error) {
	img := empty.Image
	for i, entries := range im.Layers {
		data, err := layerTar(entries)
		if err != nil {
			return nil, fmt.Errorf("layer %d: %w", i, err)
		}
		layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil })
		if err != nil {
			return nil, err
		}
		if img, err = mutate.AppendLayers(img, layer); err != nil {
			return nil, err
		}
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.Architecture, cf.OS = "amd64", "linux"
	cf.Created = v1.Time{Time: time.Unix(0, 0).UTC()}
	cf.Config.Entrypoint, cf.Config.Cmd, cf.Config.Env = im.Entrypoint, im.Cmd, im.Env
	cf.Config.WorkingDir, cf.Config.User = im.WorkingDir, im.User
	return mutate.ConfigFile(img, cf)
}

// layerTar writes a reproducible tar: sorted, owned by root, dated 1970, parents created as directories.
func layerTar(entries []Entry) ([]byte, error) {
	sort.Slice(entries, func(i, j int) bool { return entries[i].Dest < entries[j].Dest })
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	dirs := map[string]bool{}
	epoch := time.Unix(0, 0).UTC()
	var mkdirs func(string) error
	mkdirs = func(d string) error {
		if d == "/" || d == "." || dirs[d] {
			return nil
		}
		if err := mkdirs(path.Dir(d)); err != nil {
			return err
		}
		dirs[d] = true
		return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: strings.TrimPrefix(d, "/") + "/", Mode: 0o755, ModTime: epoch, Format: tar.FormatPAX})
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Dest, "/") {
			return nil, fmt.Errorf("%q: destinations are absolute", e.Dest)
		}
		if err := mkdirs(path.Dir(e.Dest)); err != nil {
			return nil, err
		}
		name := strings.TrimPrefix(e.Dest, "/")
		switch {
		case e.Dir:
			if err := mkdirs(e.Dest); err != nil {
				return nil, err
			}
		case e.Symlink != "":
			if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeSymlink, Name: name, Linkname: e.Symlink, Mode: 0o777, ModTime: epoch, Format: tar.FormatPAX}); err != nil {
				return nil, err
			}
		default:
			data, err := os.ReadFile(e.Src)
			if err != nil {
				return nil, err
			}
			mode := e.Mode
			if mode == 0 {
				st, err := os.Stat(e.Src)
				if err != nil {
					return nil, err
				}
				mode = int64(st.Mode().Perm())
			}
			if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Size: int64(len(data)), Mode: mode, ModTime: epoch, Format: tar.FormatPAX}); err != nil {
				return nil, err
			}
			if _, err := tw.Write(data); err != nil {
				return nil, err
			}
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func push(layoutDir, registry, caFile string) error {
	ca, err := os.ReadFile(caFile)
	if err != nil {
		return err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		return fmt.Errorf("%s holds no PEM certificate", caFile)
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	opts := []remote.Option{remote.WithTransport(transport)}
	if user := os.Getenv("REGISTRY_USER"); user != "" {
		opts = append(opts, remote.WithAuth(&authn.Basic{Username: user, Password: os.Getenv("REGISTRY_PASSWORD")}))
	}
	p, err := layout.FromPath(layoutDir)
	if err != nil {
		return err
	}
	idx, err := p.ImageIndex()
	if err != nil {
		return err
	}
	m, err := idx.IndexManifest()
	if err != nil {
		return err
	}
	for _, desc := range m.Manifests {
		src := desc.Annotations[refAnnotation]
		if src == "" {
			continue
		}
		target, err := mirrored(src, registry)
		if err != nil {
			return err
		}
		img, err := idx.Image(desc.Digest)
		if err != nil {
			return err
		}
		// Already there with this digest: nothing to send (a lab starts in seconds once pushed).
		if got, err := remote.Head(target, opts...); err == nil && got.Digest == desc.Digest {
			fmt.Printf("present %s\n", target)
			continue
		}
		if err := remote.Write(target, img, opts...); err != nil {
			return fmt.Errorf("pushing %s: %w", target, err)
		}
		fmt.Printf("pushed %s %s\n", target, desc.Digest)
	}
	return nil
}

// mirrored is the product's mirror rule: the image's registry host is replaced by the mirror.
func mirrored(src, registry string) (name.Reference, error) {
	ref, err := name.ParseReference(src)
	if err != nil {
		return nil, err
	}
	repo := ref.Context().RepositoryStr()
	return name.ParseReference(fmt.Sprintf("%s/%s:%s", registry, repo, ref.Identifier()))
}

// htpasswd prints the bcrypt line distribution's htpasswd authentication reads.
func htpasswd(user string) error {
	password, err := io.ReadAll(os.Stdin)
	if err != nil {
		return err
	}
	hash, err := bcrypt.GenerateFromPassword(bytes.TrimSpace(password), bcrypt.DefaultCost)
	if err != nil {
		return err
	}
	fmt.Printf("%s:%s\n", user, hash)
	return nil
}
