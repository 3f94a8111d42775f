package photos

import (
	"context"
	"io"
	"regexp"
	"time"

	"marketplace/internal/market"
)

// Store keeps photo bytes by key. Keys are slash-separated paths of
// [A-Za-z0-9._-] segments; no segment starts with a dot, so no key can climb
// out of its store or collide with a temporary file.
type Store interface {
	// Put writes the object whole, replacing any object with that key;
	// readers never see a partial object.
	Put(ctx context.Context, key string, body []byte, contentType string) error
	// Open returns the object's bytes (an io.ReadSeeker too, for both
	// stores here) and what is known of it; NOT_FOUND when there is none.
	// The reader yields the version described by the ObjectInfo: if the
	// key is overwritten meanwhile, a read fails rather than mixing
	// versions (locally the open file keeps the old bytes; on S3 the reads
	// carry If-Match).
	Open(ctx context.Context, key string) (io.ReadCloser, ObjectInfo, error)
	// Delete removes the object; deleting a missing key is not an error,
	// so a retried cleanup succeeds.
	Delete(ctx context.Context, key string) error
}

// ObjectInfo describes a stored object. ETag is unquoted.
type ObjectInfo struct {
	Size        int64
	ContentType string
	ModTime     time.Time
	ETag        string
}

const maxKeyLen = 512

var keyPattern = regexp.MustCompile(`^[A-Za-z0-9_-][A-Za-z0-9._-]*(/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$`)

// ValidKey reports whether key may name an object in a Store.
func ValidKey(key string) bool {
	return len(key) <= maxKeyLen && keyPattern.MatchString(key)
}

func checkKey(key string) error {
	if !ValidKey(key) {
		return market.Invalid(market.FieldError{Field: "key", Message: "is not a valid photo key"})
	}
	return nil
}

func photoNotFound() error { return market.NotFound("photo") }

// Saved names where Save put an upload's photo and thumbnail.
type Saved struct {
	Key      string // photos/<uploadID>.jpg or .png
	ThumbKey string // photos/<uploadID>_thumb.jpg
}

// Keys are the store keys of an upload's photo (with ext ".jpg" or ".png")
// and thumbnail.
func Keys(uploadID, ext string) Saved {
	return Saved{Key: "photos/" + uploadID + ext, ThumbKey: "photos/" + uploadID + "_thumb.jpg"}
}

// Save stores a processed upload under keys derived from its upload id. The
// thumbnail goes first, so a photo that can be found always has one.
func Save(ctx context.Context, s Store, uploadID string, p *Processed) (Saved, error) {
	k := Keys(uploadID, p.Ext())
	if !ValidKey(k.Key) || !ValidKey(k.ThumbKey) {
		return Saved{}, market.Invalid(market.FieldError{Field: "upload_id", Message: "is not a valid upload id"})
	}
	if err := s.Put(ctx, k.ThumbKey, p.Thumb, p.ThumbContentType); err != nil {
		return Saved{}, err
	}
	if err := s.Put(ctx, k.Key, p.Data, p.ContentType); err != nil {
		return Saved{}, err
	}
	return k, nil
}
