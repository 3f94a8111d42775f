package testkit

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/jpeg"
	"net/http"
	"strings"

	"marketplace/internal/listings"
	"marketplace/internal/store"
)

// JPEG is a real w x h JPEG with some structure in it.
func JPEG(w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{R: uint8(x), G: uint8(y), B: uint8(x ^ y), A: 255})
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 85}); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// Path turns an absolute URL the service handed out into a path for Do.
func (s *Server) Path(abs string) string {
	s.T.Helper()
	if !strings.HasPrefix(abs, s.URL+"/") {
		s.T.Fatalf("URL %q is not under the public URL %q", abs, s.URL)
	}
	return strings.TrimPrefix(abs, s.URL)
}

// UploadPhotos uploads n small photos as the caller and returns their
// photo URLs, ready for a listing's photoUrls.
func (s *Server) UploadPhotos(auth Header, n int) []string {
	s.T.Helper()
	r := s.Do("POST", "/api/v1/listings/photos/upload-urls", map[string]any{"count": n}, auth)
	if r.Status != http.StatusOK {
		s.T.Fatalf("upload-urls: %d %s", r.Status, r.Body)
	}
	var out []string
	for _, u := range r.Data()["uploads"].([]any) {
		slot := u.(map[string]any)
		up := s.Do("PUT", s.Path(slot["uploadUrl"].(string)), JPEG(64, 48), Header{"Content-Type", "image/jpeg"})
		if up.Status != http.StatusOK {
			s.T.Fatalf("photo upload: %d %s", up.Status, up.Body)
		}
		out = append(out, slot["photoUrl"].(string))
	}
	return out
}

// CreateListing uploads one photo and creates a listing from brief plus
// the extra fields, as the caller (human or agent), on the human path.
func (s *Server) CreateListing(auth Header, brief string, extra map[string]any) *Response {
	s.T.Helper()
	body := map[string]any{"photoUrls": s.UploadPhotos(auth, 1), "description": brief}
	for k, v := range extra {
		body[k] = v
	}
	return s.Do("POST", "/api/v1/listings", body, auth)
}

// EditListing changes a listing straight in the store, for states a test
// cannot reach through the API (sold, reserved, a listing without a parcel).
func (s *Server) EditListing(id string, change func(*listings.Listing)) {
	s.T.Helper()
	ctx := context.Background()
	err := s.App.DB.InTx(ctx, func(tx *store.Tx) error {
		l, err := tx.ListingByID(ctx, id)
		if err != nil {
			return err
		}
		change(l)
		return tx.UpdateListing(ctx, l)
	})
	if err != nil {
		s.T.Fatal(err)
	}
}
