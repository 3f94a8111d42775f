package photos

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"marketplace/internal/market"
)

// Local is a Store in a directory on the local file system: the default,
// under the data dir. Each object is one file holding a one-line header
// (content type and ETag) and then the bytes, so the type and the bytes are
// replaced together by one rename.
type Local struct {
	dir string
}

// localMagic starts every object file; the JSON header line follows.
const localMagic = "marketplace-object v1\n"

type localHeader struct {
	ContentType string `json:"contentType"`
	ETag        string `json:"etag"`
}

// NewLocal opens (creating it if needed) a store rooted at dir.
func NewLocal(dir string) (*Local, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("photo store dir: %w", err)
	}
	if err := os.MkdirAll(abs, 0o750); err != nil {
		return nil, fmt.Errorf("photo store dir: %w", err)
	}
	return &Local{dir: abs}, nil
}

func (l *Local) path(key string) string {
	// checkKey has ruled out "..", absolute paths and empty segments, so
	// the result stays under l.dir.
	return filepath.Join(l.dir, filepath.FromSlash(key))
}

// Put writes to a temporary file beside the target and renames it into
// place, so a reader sees the old object or the new one, never a part.
func (l *Local) Put(ctx context.Context, key string, body []byte, contentType string) error {
	if err := checkKey(key); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return market.Internal(err)
	}
	sum := sha256.Sum256(body)
	hdr, err := json.Marshal(localHeader{ContentType: contentType, ETag: hex.EncodeToString(sum[:16])})
	if err != nil {
		return market.Internal(err)
	}
	p := l.path(key)
	if err := os.MkdirAll(filepath.Dir(p), 0o750); err != nil {
		return market.Internal(fmt.Errorf("photo store: %w", err))
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return market.Internal(fmt.Errorf("photo store: %w", err))
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	w := bufio.NewWriter(tmp)
	w.WriteString(localMagic)
	w.Write(hdr)
	w.WriteByte('\n')
	w.Write(body)
	if err := w.Flush(); err != nil {
		return market.Internal(fmt.Errorf("photo store: %w", err))
	}
	if err := tmp.Sync(); err != nil {
		return market.Internal(fmt.Errorf("photo store: %w", err))
	}
	if err := tmp.Close(); err != nil {
		return market.Internal(fmt.Errorf("photo store: %w", err))
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		os.Remove(tmp.Name())
		done = true
		return market.Internal(fmt.Errorf("photo store: %w", err))
	}
	done = true
	return nil
}

// localObject is an open object file positioned past its header.
type localObject struct {
	*io.SectionReader
	f *os.File
}

func (o localObject) Close() error { return o.f.Close() }

// Open returns the object's bytes as an io.ReadSeekCloser.
func (l *Local) Open(ctx context.Context, key string) (io.ReadCloser, ObjectInfo, error) {
	if err := checkKey(key); err != nil {
		return nil, ObjectInfo{}, err
	}
	f, err := os.Open(l.path(key))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrInvalid) || isNotDir(err) {
			return nil, ObjectInfo{}, photoNotFound()
		}
		return nil, ObjectInfo{}, market.Internal(fmt.Errorf("photo store: %w", err))
	}
	obj, info, err := readLocal(f)
	if err != nil {
		f.Close()
		return nil, ObjectInfo{}, err
	}
	return obj, info, nil
}

func readLocal(f *os.File) (localObject, ObjectInfo, error) {
	st, err := f.Stat()
	if err != nil {
		return localObject{}, ObjectInfo{}, market.Internal(fmt.Errorf("photo store: %w", err))
	}
	if st.IsDir() {
		return localObject{}, ObjectInfo{}, photoNotFound()
	}
	// The header is small; 4 KiB bounds how much a damaged file makes us read.
	head := make([]byte, 4096)
	n, err := f.ReadAt(head, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return localObject{}, ObjectInfo{}, market.Internal(fmt.Errorf("photo store: %w", err))
	}
	head = head[:n]
	bad := market.Internal(fmt.Errorf("photo store: %s is not an object file", f.Name()))
	if !bytes.HasPrefix(head, []byte(localMagic)) {
		return localObject{}, ObjectInfo{}, bad
	}
	line, _, ok := bytes.Cut(head[len(localMagic):], []byte("\n"))
	if !ok {
		return localObject{}, ObjectInfo{}, bad
	}
	var h localHeader
	if err := json.Unmarshal(line, &h); err != nil {
		return localObject{}, ObjectInfo{}, bad
	}
	off := int64(len(localMagic) + len(line) + 1)
	size := st.Size() - off
	info := ObjectInfo{Size: size, ContentType: h.ContentType, ModTime: st.ModTime().UTC(), ETag: h.ETag}
	return localObject{SectionReader: io.NewSectionReader(f, off, size), f: f}, info, nil
}

// isNotDir reports an ENOTDIR: a key whose parent "directory" is an object.
func isNotDir(err error) bool {
	return errors.Is(err, syscall.ENOTDIR)
}

// Delete removes the object; a missing one is not an error.
func (l *Local) Delete(ctx context.Context, key string) error {
	if err := checkKey(key); err != nil {
		return err
	}
	p := l.path(key)
	if st, err := os.Stat(p); err == nil && st.IsDir() {
		return nil // a directory of other objects, not an object
	}
	err := os.Remove(p)
	if err == nil || errors.Is(err, fs.ErrNotExist) || isNotDir(err) {
		return nil
	}
	return market.Internal(fmt.Errorf("photo store: %w", err))
}
