package photos

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"marketplace/internal/market"
)

// stores runs fn on every Store implementation: the local directory and
// S3 through minio-go against an in-process fake S3.
func stores(t *testing.T, fn func(t *testing.T, s Store)) {
	t.Run("local", func(t *testing.T) { fn(t, newLocal(t)) })
	t.Run("s3", func(t *testing.T) { fn(t, newFakeS3(t)) })
}

func newLocal(t *testing.T) *Local {
	t.Helper()
	l, err := NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return l
}

const testBucket = "photos"

// fakeS3 starts an in-memory S3 server with testBucket and returns its
// address.
func fakeS3(t *testing.T) string {
	t.Helper()
	backend := s3mem.New()
	if err := backend.CreateBucket(testBucket); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

func newFakeS3(t *testing.T) *S3 {
	t.Helper()
	c, err := minio.New(fakeS3(t), &minio.Options{
		Creds:        credentials.NewStaticV4("test", "testsecret", ""),
		Region:       "us-east-1",
		BucketLookup: minio.BucketLookupPath,
	})
	if err != nil {
		t.Fatal(err)
	}
	return NewS3(c, testBucket)
}

func readObject(t *testing.T, s Store, key string) ([]byte, ObjectInfo) {
	t.Helper()
	rc, info, err := s.Open(context.Background(), key)
	if err != nil {
		t.Fatalf("Open(%q): %v", key, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatalf("read %q: %v", key, err)
	}
	return b, info
}

func TestStoreConformance(t *testing.T) {
	stores(t, func(t *testing.T, s Store) {
		ctx := context.Background()
		body := bytes.Repeat([]byte("jpeg bytes "), 1000)

		t.Run("put and open", func(t *testing.T) {
			before := time.Now().Add(-2 * time.Second)
			if err := s.Put(ctx, "photos/a.jpg", body, TypeJPEG); err != nil {
				t.Fatal(err)
			}
			got, info := readObject(t, s, "photos/a.jpg")
			if !bytes.Equal(got, body) {
				t.Fatalf("read %d bytes, want the %d written", len(got), len(body))
			}
			if info.Size != int64(len(body)) || info.ContentType != TypeJPEG || info.ETag == "" {
				t.Fatalf("info = %+v", info)
			}
			if info.ModTime.Before(before) || info.ModTime.After(time.Now().Add(2*time.Second)) {
				t.Fatalf("mod time %v is not about now", info.ModTime)
			}
		})

		t.Run("reader seeks", func(t *testing.T) {
			if err := s.Put(ctx, "seek/b.png", []byte("0123456789"), TypePNG); err != nil {
				t.Fatal(err)
			}
			rc, _, err := s.Open(ctx, "seek/b.png")
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Close()
			rs, ok := rc.(io.ReadSeeker)
			if !ok {
				t.Fatalf("%T is not an io.ReadSeeker", rc)
			}
			if n, err := rs.Seek(0, io.SeekEnd); err != nil || n != 10 {
				t.Fatalf("seek end = %d, %v", n, err)
			}
			if _, err := rs.Seek(4, io.SeekStart); err != nil {
				t.Fatal(err)
			}
			rest, _ := io.ReadAll(rs)
			if string(rest) != "456789" {
				t.Fatalf("after seek: %q", rest)
			}
		})

		t.Run("overwrite replaces bytes, type and etag", func(t *testing.T) {
			if err := s.Put(ctx, "photos/c", []byte("first version"), TypeJPEG); err != nil {
				t.Fatal(err)
			}
			_, first := readObject(t, s, "photos/c")
			if err := s.Put(ctx, "photos/c", []byte("second"), TypePNG); err != nil {
				t.Fatal(err)
			}
			got, second := readObject(t, s, "photos/c")
			if string(got) != "second" || second.ContentType != TypePNG || second.Size != 6 {
				t.Fatalf("after overwrite: %q %+v", got, second)
			}
			if first.ETag == second.ETag {
				t.Fatalf("etag %q did not change with the content", first.ETag)
			}
		})

		t.Run("same bytes same etag", func(t *testing.T) {
			s.Put(ctx, "e/1", []byte("same"), TypeJPEG)
			s.Put(ctx, "e/2", []byte("same"), TypeJPEG)
			s.Put(ctx, "e/3", []byte("other"), TypeJPEG)
			_, a := readObject(t, s, "e/1")
			_, b := readObject(t, s, "e/2")
			_, c := readObject(t, s, "e/3")
			if a.ETag != b.ETag || a.ETag == c.ETag {
				t.Fatalf("etags %q %q %q", a.ETag, b.ETag, c.ETag)
			}
		})

		t.Run("missing key is NOT_FOUND", func(t *testing.T) {
			for _, k := range []string{"nope.jpg", "photos/nope.jpg", "no/such/dir/x"} {
				rc, _, err := s.Open(ctx, k)
				if rc != nil {
					rc.Close()
				}
				wantErr(t, err, market.CodeNotFound, "")
			}
		})

		t.Run("delete", func(t *testing.T) {
			if err := s.Put(ctx, "photos/d.jpg", body, TypeJPEG); err != nil {
				t.Fatal(err)
			}
			if err := s.Delete(ctx, "photos/d.jpg"); err != nil {
				t.Fatal(err)
			}
			_, _, err := s.Open(ctx, "photos/d.jpg")
			wantErr(t, err, market.CodeNotFound, "")
			if err := s.Delete(ctx, "photos/d.jpg"); err != nil {
				t.Fatalf("second delete: %v", err)
			}
			if err := s.Delete(ctx, "never/existed"); err != nil {
				t.Fatalf("delete of a missing key: %v", err)
			}
		})

		t.Run("invalid keys", func(t *testing.T) {
			bad := []string{"", "/abs", "../escape", "a/../../b", "a//b", "a/", ".hidden", "a/.tmp-1", "..",
				"a/./b", `a\b`, "spaces here", "new\nline", "ü.jpg", "a?b", strings.Repeat("k", maxKeyLen+1)}
			for _, k := range bad {
				wantErr(t, s.Put(ctx, k, body, TypeJPEG), market.CodeValidation, "key")
				_, _, err := s.Open(ctx, k)
				wantErr(t, err, market.CodeValidation, "key")
				wantErr(t, s.Delete(ctx, k), market.CodeValidation, "key")
			}
			if !ValidKey("photos/0193f1a2-7b3c-7def-8abc-0123456789ab_thumb.jpg") {
				t.Fatal("an upload key is refused")
			}
		})

		t.Run("concurrent writers and readers", func(t *testing.T) {
			// Every read sees one whole version, never a mix or a part.
			if _, ok := s.(*S3); ok {
				// minio-go pins a read to the version it stat'ed with
				// If-Match, which S3 and MinIO honour but gofakes3 ignores
				// on GET. Photo keys are written once anyway.
				t.Skip("the fake S3 ignores If-Match on GET")
			}
			versions := [][]byte{bytes.Repeat([]byte("A"), 64<<10), bytes.Repeat([]byte("B"), 32<<10)}
			if err := s.Put(ctx, "race/x", versions[0], TypeJPEG); err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			errs := make(chan error, 100)
			for i := 0; i < 4; i++ {
				wg.Add(2)
				go func() {
					defer wg.Done()
					for j := 0; j < 10; j++ {
						if err := s.Put(ctx, "race/x", versions[(i+j)%2], TypeJPEG); err != nil {
							errs <- err
						}
					}
				}()
				go func() {
					defer wg.Done()
					for j := 0; j < 10; j++ {
						rc, _, err := s.Open(ctx, "race/x")
						if err != nil {
							errs <- err
							continue
						}
						b, err := io.ReadAll(rc)
						rc.Close()
						if err != nil {
							errs <- err
						} else if !bytes.Equal(b, versions[0]) && !bytes.Equal(b, versions[1]) {
							errs <- fmt.Errorf("read a torn object of %d bytes", len(b))
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
		})

		t.Run("save a processed upload", func(t *testing.T) {
			p, err := Process(encodePNG(t, withHalfTransparent(quadrants(64, 64))))
			if err != nil {
				t.Fatal(err)
			}
			id := market.NewID()
			saved, err := Save(ctx, s, id, p)
			if err != nil {
				t.Fatal(err)
			}
			if saved.Key != "photos/"+id+".png" || saved.ThumbKey != "photos/"+id+"_thumb.jpg" {
				t.Fatalf("saved = %+v", saved)
			}
			got, info := readObject(t, s, saved.Key)
			if !bytes.Equal(got, p.Data) || info.ContentType != TypePNG {
				t.Fatalf("photo: %d bytes, %s", len(got), info.ContentType)
			}
			got, info = readObject(t, s, saved.ThumbKey)
			if !bytes.Equal(got, p.Thumb) || info.ContentType != TypeJPEG {
				t.Fatalf("thumb: %d bytes, %s", len(got), info.ContentType)
			}
			if _, err := Save(ctx, s, "../x", p); err == nil {
				t.Fatal("Save accepted a traversal id")
			}
		})
	})
}

func TestLocalStaysInsideItsDirectory(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "store")
	l, err := NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, k := range []string{"../escape", "a/../../escape", "/tmp/escape"} {
		if err := l.Put(ctx, k, []byte("x"), TypeJPEG); err == nil {
			t.Fatalf("Put(%q) accepted", k)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "escape")); !os.IsNotExist(err) {
		t.Fatalf("a file was written outside the store: %v", err)
	}

	// Puts leave no temporary files behind, and the object file holds the
	// bytes after the header.
	for i := 0; i < 3; i++ {
		if err := l.Put(ctx, "p/x.jpg", []byte("pixels"), TypeJPEG); err != nil {
			t.Fatal(err)
		}
	}
	entries, err := os.ReadDir(filepath.Join(dir, "p"))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "x.jpg" {
		t.Fatalf("directory holds %v", entries)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "p", "x.jpg"))
	if !bytes.HasPrefix(raw, []byte(localMagic)) || !bytes.HasSuffix(raw, []byte("\npixels")) {
		t.Fatalf("object file = %q", raw)
	}

	// A directory is not an object, and a key under an object is missing.
	_, _, err = l.Open(ctx, "p")
	wantErr(t, err, market.CodeNotFound, "")
	_, _, err = l.Open(ctx, "p/x.jpg/deeper")
	wantErr(t, err, market.CodeNotFound, "")
	if err := l.Delete(ctx, "p"); err != nil {
		t.Fatalf("Delete of a directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "p", "x.jpg")); err != nil {
		t.Fatalf("Delete of a directory removed its objects: %v", err)
	}

	// A stray file that is not an object file is an internal error, not
	// served as if it were a photo.
	os.WriteFile(filepath.Join(dir, "stray"), []byte("hello"), 0o600)
	_, _, err = l.Open(ctx, "stray")
	wantErr(t, err, market.CodeInternal, "")
}

func TestDialS3(t *testing.T) {
	addr := fakeS3(t)
	ctx := context.Background()
	opts := S3Options{Endpoint: addr, AccessKey: "k", SecretKey: "s", Region: "us-east-1", Bucket: testBucket, Insecure: true, PathStyle: true}
	s, err := DialS3(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, "k", []byte("v"), TypeJPEG); err != nil {
		t.Fatal(err)
	}
	opts.Bucket = "missing"
	if _, err := DialS3(ctx, opts); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("missing bucket: %v", err)
	}
}
