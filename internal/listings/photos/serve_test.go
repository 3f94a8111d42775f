package photos

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"marketplace/internal/market"
)

func serve(t *testing.T, s Store, key, method string, hdr map[string]string) (*httptest.ResponseRecorder, error) {
	t.Helper()
	r := httptest.NewRequest(method, "/photos/"+key, nil)
	for k, v := range hdr {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	return w, ServeObject(w, r, s, key)
}

func TestServeObject(t *testing.T) {
	stores(t, func(t *testing.T, s Store) {
		body := encodeJPEG(t, quadrants(64, 48))
		if err := s.Put(context.Background(), "photos/p.jpg", body, TypeJPEG); err != nil {
			t.Fatal(err)
		}

		w, err := serve(t, s, "photos/p.jpg", http.MethodGet, nil)
		if err != nil {
			t.Fatal(err)
		}
		if w.Code != http.StatusOK || !bytes.Equal(w.Body.Bytes(), body) {
			t.Fatalf("GET: %d, %d bytes", w.Code, w.Body.Len())
		}
		h := w.Result().Header
		etag := h.Get("ETag")
		for k, want := range map[string]string{
			"Content-Type":           TypeJPEG,
			"Cache-Control":          "public, max-age=31536000, immutable",
			"X-Content-Type-Options": "nosniff",
		} {
			if got := h.Get(k); got != want {
				t.Errorf("%s = %q, want %q", k, got, want)
			}
		}
		if len(etag) < 3 || etag[0] != '"' || etag[len(etag)-1] != '"' {
			t.Errorf("ETag = %q, want a quoted strong tag", etag)
		}
		lm, err := http.ParseTime(h.Get("Last-Modified"))
		if err != nil || time.Since(lm) > time.Minute {
			t.Errorf("Last-Modified = %q", h.Get("Last-Modified"))
		}

		t.Run("If-None-Match", func(t *testing.T) {
			for _, inm := range []string{etag, "W/" + etag, `"other", ` + etag, "*"} {
				w, err := serve(t, s, "photos/p.jpg", http.MethodGet, map[string]string{"If-None-Match": inm})
				if err != nil {
					t.Fatal(err)
				}
				if w.Code != http.StatusNotModified || w.Body.Len() != 0 {
					t.Fatalf("If-None-Match %s: %d with %d bytes", inm, w.Code, w.Body.Len())
				}
				if w.Result().Header.Get("ETag") != etag {
					t.Fatalf("304 lacks the ETag")
				}
			}
			w, _ := serve(t, s, "photos/p.jpg", http.MethodGet, map[string]string{"If-None-Match": `"stale"`})
			if w.Code != http.StatusOK || w.Body.Len() != len(body) {
				t.Fatalf("stale If-None-Match: %d", w.Code)
			}
		})

		t.Run("HEAD", func(t *testing.T) {
			w, err := serve(t, s, "photos/p.jpg", http.MethodHead, nil)
			if err != nil {
				t.Fatal(err)
			}
			if w.Code != http.StatusOK || w.Body.Len() != 0 || w.Result().Header.Get("Content-Length") == "" {
				t.Fatalf("HEAD: %d, %d bytes, %v", w.Code, w.Body.Len(), w.Result().Header)
			}
		})

		t.Run("Range", func(t *testing.T) {
			w, err := serve(t, s, "photos/p.jpg", http.MethodGet, map[string]string{"Range": "bytes=2-9"})
			if err != nil {
				t.Fatal(err)
			}
			if w.Code != http.StatusPartialContent || !bytes.Equal(w.Body.Bytes(), body[2:10]) {
				t.Fatalf("Range: %d %x", w.Code, w.Body.Bytes())
			}
		})

		t.Run("missing writes nothing", func(t *testing.T) {
			w, err := serve(t, s, "photos/none.jpg", http.MethodGet, nil)
			wantErr(t, err, market.CodeNotFound, "")
			if w.Body.Len() != 0 || len(w.Result().Header) != 0 || w.Flushed {
				t.Fatalf("wrote %d bytes, headers %v", w.Body.Len(), w.Result().Header)
			}
		})
	})
}

// onlyReader hides everything but Read and Close, like a store whose reader
// cannot seek.
type onlyReader struct{ io.ReadCloser }

type streamStore struct{ Store }

func (s streamStore) Open(ctx context.Context, key string) (io.ReadCloser, ObjectInfo, error) {
	rc, info, err := s.Store.Open(ctx, key)
	if err != nil {
		return nil, info, err
	}
	info.ContentType = "" // and one that lost its type
	return onlyReader{rc}, info, nil
}

func TestServeObjectFromAStream(t *testing.T) {
	s := streamStore{newLocal(t)}
	s.Put(context.Background(), "x", []byte("0123456789"), TypePNG)
	w, err := serve(t, s, "x", http.MethodGet, map[string]string{"Range": "bytes=5-"})
	if err != nil {
		t.Fatal(err)
	}
	if w.Code != http.StatusPartialContent || w.Body.String() != "56789" {
		t.Fatalf("%d %q", w.Code, w.Body.String())
	}
	if ct := w.Result().Header.Get("Content-Type"); ct != "application/octet-stream" {
		t.Fatalf("untyped object served as %q", ct)
	}
}
