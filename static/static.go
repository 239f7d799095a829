// Package static embeds kgstudio's CSS, JavaScript and vendored libraries
// and names each file by a content hash so browsers may cache it forever.
package static

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"path"
	"strings"
	"sync"
)

//go:embed css js img vendor
var files embed.FS

// FS is the embedded asset tree.
var FS fs.FS = files

// Assets maps asset paths to hashed URLs. Build one with New.
type Assets struct {
	prefix string
	once   sync.Once
	hashes map[string]string // path -> short hash
	byHash map[string]string // "hash/path" -> path
}

// New returns the asset index for URLs under prefix (e.g. "/static").
func New(prefix string) *Assets { return &Assets{prefix: strings.TrimRight(prefix, "/")} }

func (a *Assets) index() {
	a.once.Do(func() {
		a.hashes = map[string]string{}
		a.byHash = map[string]string{}
		_ = fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := files.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(b)
			h := hex.EncodeToString(sum[:])[:12]
			a.hashes[p] = h
			a.byHash[h+"/"+p] = p
			return nil
		})
	})
}

// URL returns the cache-busting URL of an asset, e.g.
// "/static/3f2a9c1b7d2e/js/graph.js". Unknown paths get an unhashed URL.
func (a *Assets) URL(p string) string {
	a.index()
	p = strings.TrimPrefix(p, "/")
	if h, ok := a.hashes[p]; ok {
		return a.prefix + "/" + h + "/" + p
	}
	return a.prefix + "/" + p
}

// Resolve maps "hash/path" (the part after the prefix) to the embedded file
// path; immutable reports that the hash matched, so the response may be
// cached for a long time.
func (a *Assets) Resolve(rest string) (p string, immutable bool, ok bool) {
	a.index()
	rest = path.Clean(strings.TrimPrefix(rest, "/"))
	if p, ok := a.byHash[rest]; ok {
		return p, true, true
	}
	// A stale hash or none: serve the file without long caching.
	if i := strings.IndexByte(rest, '/'); i > 0 {
		if _, ok := a.hashes[rest[i+1:]]; ok {
			return rest[i+1:], false, true
		}
	}
	if _, ok := a.hashes[rest]; ok {
		return rest, false, true
	}
	return "", false, false
}
