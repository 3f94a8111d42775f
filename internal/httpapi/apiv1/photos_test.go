package apiv1_test

import (
	"bytes"
	"image/jpeg"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"marketplace/internal/listings/photos"
	"marketplace/internal/testkit"
)

// testJPEG is a real w x h JPEG with some structure in it.
func testJPEG(t *testing.T, w, h int) []byte {
	t.Helper()
	return testkit.JPEG(w, h)
}

var jpegType = testkit.Header{Name: "Content-Type", Value: "image/jpeg"}

// issue asks for count upload slots and returns them.
func issue(t *testing.T, s *testkit.Server, path string, count int, auth testkit.Header) []map[string]any {
	t.Helper()
	r := s.Do("POST", path, map[string]any{"count": count}, auth).Want(t, http.StatusOK, "")
	list, _ := r.Data()["uploads"].([]any)
	if len(list) != count {
		t.Fatalf("got %d uploads, want %d\n%s", len(list), count, r.Body)
	}
	out := make([]map[string]any, count)
	for i, u := range list {
		out[i] = u.(map[string]any)
	}
	return out
}

// local turns an absolute URL the service handed out into a path for s.Do,
// checking it points at the server.
func local(t *testing.T, s *testkit.Server, abs string) string {
	t.Helper()
	if !strings.HasPrefix(abs, s.URL+"/") {
		t.Fatalf("URL %q is not under the public URL %q", abs, s.URL)
	}
	return strings.TrimPrefix(abs, s.URL)
}

func TestPhotoUploadFlow(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner := s.Register("Photographer")
		seller := s.NewKey(owner, "sell_only")
		for _, c := range []struct {
			name, path string
			auth       testkit.Header
		}{
			{"human", "/api/v1/listings/photos/upload-urls", owner.Auth()},
			{"agent", "/api/v1/listings/photos/upload-urls", seller.Auth()},
			{"agent route", "/api/v1/agent/listings/photos/upload-urls", seller.Auth()},
		} {
			t.Run(c.name, func(t *testing.T) {
				slots := issue(t, s, c.path, 2, c.auth)
				slot := slots[0]
				exp, err := time.Parse(time.RFC3339, slot["expiresAt"].(string))
				if err != nil || !exp.Equal(s.Clock.Now().Add(15*time.Minute).Truncate(time.Second)) {
					t.Fatalf("expiresAt %v (%v), want 15 minutes from %v", slot["expiresAt"], err, s.Clock.Now())
				}
				up, err := url.Parse(slot["uploadUrl"].(string))
				if err != nil || up.Query().Get("token") == "" {
					t.Fatalf("uploadUrl %v has no token", slot["uploadUrl"])
				}
				id := strings.TrimPrefix(up.Path, "/api/v1/photos/uploads/")
				if slot["photoUrl"] != s.URL+"/api/v1/photos/"+id {
					t.Fatalf("photoUrl %v does not match upload id %s", slot["photoUrl"], id)
				}
				photoPath := local(t, s, slot["photoUrl"].(string))

				// Not uploaded yet: nothing to serve.
				s.Do("GET", photoPath, nil).Want(t, http.StatusNotFound, "NOT_FOUND")

				r := s.Do("PUT", local(t, s, slot["uploadUrl"].(string)), testJPEG(t, 800, 600), jpegType).Want(t, http.StatusOK, "")
				d := r.Data()
				if d["id"] != id || d["photoUrl"] != slot["photoUrl"] || d["thumbnailUrl"] != slot["photoUrl"].(string)+"/thumbnail" ||
					d["contentType"] != "image/jpeg" || d["width"] != 800.0 || d["height"] != 600.0 || d["size"].(float64) <= 0 {
					t.Fatalf("upload answer %v", d)
				}

				for _, g := range []struct {
					path string
					w, h int
				}{{photoPath, 800, 600}, {photoPath + "/thumbnail", photos.ThumbSide, photos.ThumbSide * 600 / 800}} {
					r := s.Do("GET", g.path, nil).Want(t, http.StatusOK, "")
					if ct := r.Header.Get("Content-Type"); ct != "image/jpeg" {
						t.Fatalf("%s: Content-Type %q", g.path, ct)
					}
					if cc := r.Header.Get("Cache-Control"); !strings.Contains(cc, "immutable") || cc != photos.CacheControl {
						t.Fatalf("%s: Cache-Control %q", g.path, cc)
					}
					cfg, err := jpeg.DecodeConfig(bytes.NewReader(r.Body))
					if err != nil || cfg.Width != g.w || cfg.Height != g.h {
						t.Fatalf("%s: served image %dx%d (%v), want %dx%d", g.path, cfg.Width, cfg.Height, err, g.w, g.h)
					}
					etag := r.Header.Get("ETag")
					if etag == "" {
						t.Fatalf("%s: no ETag", g.path)
					}
					nm := s.Do("GET", g.path, nil, testkit.Header{Name: "If-None-Match", Value: etag})
					if nm.Status != http.StatusNotModified || len(nm.Body) != 0 {
						t.Fatalf("%s with If-None-Match: %d, %d bytes", g.path, nm.Status, len(nm.Body))
					}
				}

				// Each upload URL works once.
				s.Do("PUT", local(t, s, slot["uploadUrl"].(string)), testJPEG(t, 64, 64), jpegType).Want(t, http.StatusConflict, "INVALID_STATE")
				// The other slot is still open, and only for its own token.
				other, _ := url.Parse(slots[1]["uploadUrl"].(string))
				s.Do("PUT", other.Path+"?token="+up.Query().Get("token"), testJPEG(t, 64, 64), jpegType).Want(t, http.StatusNotFound, "NOT_FOUND")
				s.Do("PUT", local(t, s, slots[1]["uploadUrl"].(string)), testJPEG(t, 64, 64), jpegType).Want(t, http.StatusOK, "")
			})
		}
	})
}

func TestPhotoUploadRefusals(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner := s.Register("Refused")
		const issuePath = "/api/v1/listings/photos/upload-urls"
		newSlot := func() string {
			return local(t, s, issue(t, s, issuePath, 1, owner.Auth())[0]["uploadUrl"].(string))
		}

		t.Run("scope", func(t *testing.T) {
			buyer := s.NewKey(owner, "buy_only")
			for _, p := range []string{issuePath, "/api/v1/agent/listings/photos/upload-urls"} {
				s.Do("POST", p, map[string]any{"count": 1}, buyer.Auth()).Want(t, http.StatusForbidden, "INSUFFICIENT_SCOPE")
			}
		})
		t.Run("credentials", func(t *testing.T) {
			s.Do("POST", issuePath, map[string]any{"count": 1}).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
			s.Do("POST", "/api/v1/agent/listings/photos/upload-urls", map[string]any{"count": 1}).
				Want(t, http.StatusUnauthorized, "INVALID_AGENT_KEY")
			s.Do("POST", "/api/v1/agent/listings/photos/upload-urls", map[string]any{"count": 1}, owner.Auth()).
				Want(t, http.StatusUnauthorized, "INVALID_AGENT_KEY")
		})
		t.Run("count", func(t *testing.T) {
			for name, body := range map[string]any{
				"zero": map[string]any{"count": 0}, "thirteen": map[string]any{"count": 13},
				"string": map[string]any{"count": "x"}, "fraction": map[string]any{"count": 1.5},
				"missing": map[string]any{}, "null": map[string]any{"count": nil},
			} {
				t.Run(name, func(t *testing.T) {
					testkit.WantFields(t, s.Do("POST", issuePath, body, owner.Auth()), "count")
				})
			}
			issue(t, s, issuePath, 12, owner.Auth())
		})
		t.Run("bad token", func(t *testing.T) {
			path := newSlot()
			u, _ := url.Parse(path)
			tok := u.Query().Get("token")
			for name, bad := range map[string]string{
				"altered": tok[:len(tok)-2] + "AA", "garbage": "nope", "empty": "",
			} {
				t.Run(name, func(t *testing.T) {
					s.Do("PUT", u.Path+"?token="+url.QueryEscape(bad), testJPEG(t, 64, 64), jpegType).
						Want(t, http.StatusNotFound, "NOT_FOUND")
				})
			}
			// The slot was not spent by the failures.
			s.Do("PUT", path, testJPEG(t, 64, 64), jpegType).Want(t, http.StatusOK, "")
		})
		t.Run("expired", func(t *testing.T) {
			path := newSlot()
			s.Clock.Advance(16 * time.Minute)
			testkit.WantFields(t, s.Do("PUT", path, testJPEG(t, 64, 64), jpegType), "token")
		})
		t.Run("not an image", func(t *testing.T) {
			path := newSlot()
			testkit.WantFields(t, s.Do("PUT", path, []byte("hello, this is plain text, not a JPEG"), jpegType), "file")
			// A refused body does not use the slot up.
			s.Do("PUT", path, testJPEG(t, 64, 64), jpegType).Want(t, http.StatusOK, "")
		})
		t.Run("too large", func(t *testing.T) {
			path := newSlot()
			big := append(testJPEG(t, 64, 64), make([]byte, photos.MaxUploadBytes)...)
			if len(big) <= photos.MaxUploadBytes {
				t.Fatal("the test body is not over the limit")
			}
			s.Do("PUT", path, big, jpegType).Want(t, http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE")
			exact := make([]byte, photos.MaxUploadBytes+1)
			s.Do("PUT", newSlot(), exact, jpegType).Want(t, http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE")
		})
		t.Run("unknown photo", func(t *testing.T) {
			for _, p := range []string{
				"/api/v1/photos/0190d8c4-0000-7000-8000-000000000000",
				"/api/v1/photos/0190d8c4-0000-7000-8000-000000000000/thumbnail",
				"/api/v1/photos/not-an-id",
			} {
				s.Do("GET", p, nil).Want(t, http.StatusNotFound, "NOT_FOUND")
			}
		})
	})
}
