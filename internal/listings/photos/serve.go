package photos

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"

	"marketplace/internal/market"
)

// CacheControl is sent with every photo: a key names one upload's bytes
// forever, so caches may keep them for a year without asking again.
const CacheControl = "public, max-age=31536000, immutable"

// maxServeBytes bounds what ServeObject buffers for a store whose reader
// cannot seek; stored photos are never larger than an upload.
const maxServeBytes = MaxUploadBytes + 1<<20

// ServeObject answers a GET or HEAD of the object at key with its bytes,
// Content-Type, ETag, Last-Modified and long-lived cache headers; a matching
// If-None-Match (or If-Modified-Since) gets 304 and Range requests work.
//
// It returns an error, having written nothing, when the object cannot be
// opened (NOT_FOUND for a missing key), so the caller answers in its own
// error envelope; once it has started writing it returns nil.
func ServeObject(w http.ResponseWriter, r *http.Request, s Store, key string) error {
	rc, info, err := s.Open(r.Context(), key)
	if err != nil {
		return err
	}
	defer rc.Close()

	rs, ok := rc.(io.ReadSeeker)
	if !ok {
		data, err := io.ReadAll(io.LimitReader(rc, maxServeBytes+1))
		if err != nil {
			return market.Internal(fmt.Errorf("photo %s: %w", key, err))
		}
		if len(data) > maxServeBytes {
			return market.Internal(fmt.Errorf("photo %s: larger than any upload", key))
		}
		rs = bytes.NewReader(data)
	}

	h := w.Header()
	ct := info.ContentType
	if ct == "" {
		ct = "application/octet-stream" // never let a browser guess
	}
	h.Set("Content-Type", ct)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", CacheControl)
	if info.ETag != "" {
		h.Set("ETag", quoteETag(info.ETag))
	}
	// ServeContent handles HEAD, Range, If-None-Match (against the ETag set
	// above), If-Modified-Since and Last-Modified.
	http.ServeContent(w, r, "", info.ModTime, rs)
	return nil
}

func quoteETag(e string) string {
	if strings.HasPrefix(e, `"`) || strings.HasPrefix(e, `W/"`) {
		return e
	}
	return `"` + e + `"`
}
