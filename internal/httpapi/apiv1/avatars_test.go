package apiv1_test

import (
	"bytes"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/listings/photos"
	"marketplace/internal/testkit"
)

const avatarURLPath = "/api/v1/auth/me/avatar-upload-url"

// avatarSlot asks for an avatar upload URL as u and checks the answer.
func avatarSlot(t *testing.T, s *testkit.Server, u *testkit.User, contentType string) (uploadPath, avatarURL string) {
	t.Helper()
	d := s.Do("POST", avatarURLPath, map[string]any{"contentType": contentType}, u.Auth()).Want(t, http.StatusOK, "").Data()
	wantKeys(t, "avatar upload URL", d, "uploadUrl", "avatarUrl", "expiresAt")
	// A token: 15 minutes of real time.
	wantTime(t, "expiresAt", d["expiresAt"], s.RealTime.Now().Add(photos.UploadTTL).Truncate(time.Second))
	up, err := url.Parse(d["uploadUrl"].(string))
	if err != nil || up.Query().Get("token") == "" {
		t.Fatalf("uploadUrl %v has no token", d["uploadUrl"])
	}
	id := strings.TrimPrefix(up.Path, "/api/v1/avatars/uploads/")
	if d["avatarUrl"] != s.URL+"/api/v1/avatars/"+id {
		t.Fatalf("avatarUrl %v does not match upload id %s", d["avatarUrl"], id)
	}
	return local(t, s, d["uploadUrl"].(string)), d["avatarUrl"].(string)
}

// uploadAvatar uploads data as u's avatar and returns its avatarUrl.
func uploadAvatar(t *testing.T, s *testkit.Server, u *testkit.User, data []byte) string {
	t.Helper()
	path, avatar := avatarSlot(t, s, u, "image/jpeg")
	s.Do("PUT", path, data, jpegType).Want(t, http.StatusOK, "")
	return avatar
}

// transparentPNG is a w x h PNG whose left half is transparent.
func transparentPNG(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := w / 2; x < w; x++ {
			img.SetNRGBA(x, y, color.NRGBA{R: 200, G: 30, B: 30, A: 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestAvatarUpload(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		u := s.Register("Avery")
		patch := func(who *testkit.User, v any) *testkit.Response {
			return s.Do("PATCH", "/api/v1/auth/me", map[string]any{"avatarUrl": v}, who.Auth())
		}

		t.Run("jpeg: upload, serve, set, show", func(t *testing.T) {
			path, avatar := avatarSlot(t, s, u, "image/jpeg")
			// Not uploaded yet: nothing served, and not acceptable as the avatar.
			s.Do("GET", local(t, s, avatar), nil).Want(t, http.StatusNotFound, "NOT_FOUND")
			testkit.WantFields(t, patch(u, avatar), "avatarUrl")

			d := s.Do("PUT", path, testJPEG(t, 800, 600), jpegType).Want(t, http.StatusOK, "").Data()
			wantKeys(t, "uploaded avatar", d, "avatarUrl", "contentType", "width", "height", "size")
			if d["avatarUrl"] != avatar || d["contentType"] != "image/jpeg" || d["width"] != 256.0 || d["height"] != 256.0 ||
				d["size"].(float64) <= 0 {
				t.Fatalf("upload answer %v", d)
			}
			r := s.Do("GET", local(t, s, avatar), nil).Want(t, http.StatusOK, "")
			if ct := r.Header.Get("Content-Type"); ct != "image/jpeg" || r.Header.Get("Cache-Control") != photos.CacheControl {
				t.Fatalf("served as %q, Cache-Control %q", ct, r.Header.Get("Cache-Control"))
			}
			cfg, err := jpeg.DecodeConfig(bytes.NewReader(r.Body))
			if err != nil || cfg.Width != 256 || cfg.Height != 256 {
				t.Fatalf("stored avatar %dx%d (%v), want 256x256", cfg.Width, cfg.Height, err)
			}
			// Each upload URL works once.
			s.Do("PUT", path, testJPEG(t, 64, 64), jpegType).Want(t, http.StatusConflict, "INVALID_STATE")

			d = patch(u, avatar).Want(t, http.StatusOK, "").Data()
			wantEq(t, "avatarUrl", d["avatarUrl"], avatar)
			wantEq(t, "me.avatarUrl", me(t, s, u)["avatarUrl"], avatar)
			p := s.Do("GET", "/api/v1/profiles/"+u.Username, nil).Want(t, http.StatusOK, "").Data()
			wantEq(t, "profile.avatarUrl", p["avatarUrl"], avatar)
		})

		t.Run("png with transparency stays png", func(t *testing.T) {
			path, avatar := avatarSlot(t, s, u, "image/png")
			d := s.Do("PUT", path, transparentPNG(t, 300, 500), testkit.Header{Name: "Content-Type", Value: "image/png"}).
				Want(t, http.StatusOK, "").Data()
			if d["contentType"] != "image/png" || d["width"] != 256.0 || d["height"] != 256.0 {
				t.Fatalf("upload answer %v", d)
			}
			r := s.Do("GET", local(t, s, avatar), nil).Want(t, http.StatusOK, "")
			img, err := png.Decode(bytes.NewReader(r.Body))
			if err != nil || img.Bounds().Dx() != 256 || img.Bounds().Dy() != 256 {
				t.Fatalf("stored avatar %v (%v), want a 256x256 PNG", img.Bounds(), err)
			}
			if _, _, _, a := img.At(5, 128).RGBA(); a != 0 {
				t.Fatalf("the transparent half is opaque (alpha %d)", a)
			}
			patch(u, avatar).Want(t, http.StatusOK, "")
		})

		t.Run("the content decides, not the declared type", func(t *testing.T) {
			// Declared JPEG, sent an opaque PNG: a JPEG avatar.
			path, _ := avatarSlot(t, s, u, "image/jpeg")
			var b bytes.Buffer
			if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 40, 90))); err != nil {
				t.Fatal(err)
			}
			d := s.Do("PUT", path, b.Bytes(), jpegType).Want(t, http.StatusOK, "").Data()
			if d["contentType"] != "image/jpeg" || d["width"] != 256.0 {
				t.Fatalf("upload answer %v", d)
			}
		})

		t.Run("refused uploads", func(t *testing.T) {
			var g bytes.Buffer
			if err := gif.Encode(&g, image.NewPaletted(image.Rect(0, 0, 32, 32), color.Palette{color.Black, color.White}), nil); err != nil {
				t.Fatal(err)
			}
			webp, err := os.ReadFile("../../listings/photos/testdata/photo.webp")
			if err != nil {
				t.Fatal(err)
			}
			big := append(testJPEG(t, 64, 64), make([]byte, photos.MaxAvatarBytes)...)
			for _, tc := range []struct {
				name   string
				body   []byte
				ct     string
				status int
				code   string
			}{
				{"not an image", []byte("hello, I am not an image"), "image/jpeg", http.StatusBadRequest, "VALIDATION_ERROR"},
				{"gif", g.Bytes(), "image/gif", http.StatusBadRequest, "VALIDATION_ERROR"},
				{"webp", webp, "image/webp", http.StatusBadRequest, "VALIDATION_ERROR"},
				{"truncated jpeg", testJPEG(t, 400, 400)[:500], "image/jpeg", http.StatusBadRequest, "VALIDATION_ERROR"},
				{"over 5 MiB", big, "image/jpeg", http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE"},
			} {
				t.Run(tc.name, func(t *testing.T) {
					path, avatar := avatarSlot(t, s, u, "image/jpeg")
					r := s.Do("PUT", path, tc.body, testkit.Header{Name: "Content-Type", Value: tc.ct}).Want(t, tc.status, tc.code)
					if f := r.Fields(); len(f) != 1 || f[0] != "file" {
						t.Fatalf("fields %v, want [file]", f)
					}
					// Nothing was stored, the URL is no avatar yet, and
					// the slot is still open.
					s.Do("GET", local(t, s, avatar), nil).Want(t, http.StatusNotFound, "NOT_FOUND")
					testkit.WantFields(t, patch(u, avatar), "avatarUrl")
					s.Do("PUT", path, testJPEG(t, 64, 64), jpegType).Want(t, http.StatusOK, "")
				})
			}
			// 5 MiB itself is within the limit.
			path, _ := avatarSlot(t, s, u, "image/jpeg")
			exact := append(testJPEG(t, 64, 64), make([]byte, photos.MaxAvatarBytes)...)[:photos.MaxAvatarBytes]
			r := s.Do("PUT", path, exact, jpegType)
			if r.Code() == "PAYLOAD_TOO_LARGE" {
				t.Fatalf("a 5 MiB body is refused as too large: %s", r.Body)
			}
		})

		t.Run("upload URLs", func(t *testing.T) {
			for _, ct := range []any{"image/gif", "image/webp", "", nil, 5} {
				testkit.WantFields(t, s.Do("POST", avatarURLPath, map[string]any{"contentType": ct}, u.Auth()), "contentType")
			}
			// A token not issued for this id, or for a photo.
			path, _ := avatarSlot(t, s, u, "image/jpeg")
			other, _ := avatarSlot(t, s, u, "image/jpeg")
			tok := path[strings.Index(path, "?"):]
			s.Do("PUT", other[:strings.Index(other, "?")]+tok, testJPEG(t, 64, 64), jpegType).Want(t, http.StatusNotFound, "NOT_FOUND")
			slot := issue(t, s, "/api/v1/listings/photos/upload-urls", 1, u.Auth())[0]
			photoUp, _ := url.Parse(slot["uploadUrl"].(string))
			s.Do("PUT", "/api/v1/avatars/uploads/"+strings.TrimPrefix(photoUp.Path, "/api/v1/photos/uploads/")+"?"+photoUp.RawQuery,
				testJPEG(t, 64, 64), jpegType).Want(t, http.StatusNotFound, "NOT_FOUND")
			// The sandbox clock does not age an upload URL; real time does.
			s.Do("POST", "/v1/sandbox/time-advance/1", nil, u.Auth()).Want(t, http.StatusOK, "")
			s.Do("PUT", path, testJPEG(t, 64, 64), jpegType).Want(t, http.StatusOK, "")
			s.RealTime.Advance(photos.UploadTTL)
			testkit.WantFields(t, s.Do("PUT", other, testJPEG(t, 64, 64), jpegType), "token")
		})
	})
}

// PATCH /auth/me takes as avatarUrl only the caller's own uploaded avatars.
func TestAvatarURLMustBeOwnUpload(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		u, other := s.Register("Ivy"), s.Register("Jon")
		patch := func(v any) *testkit.Response {
			return s.Do("PATCH", "/api/v1/auth/me", map[string]any{"avatarUrl": v}, u.Auth())
		}
		own := uploadAvatar(t, s, u, testJPEG(t, 120, 80))
		theirs := uploadAvatar(t, s, other, testJPEG(t, 120, 80))
		_, notUploaded := avatarSlot(t, s, u, "image/jpeg")
		photo := s.UploadPhotos(u.Auth(), 1)[0]
		id := strings.TrimPrefix(own, s.URL+"/api/v1/avatars/")
		for name, v := range map[string]string{
			"another user's avatar":         theirs,
			"an avatar not uploaded":        notUploaded,
			"a listing photo":               photo,
			"the photo route with its id":   s.URL + "/api/v1/photos/" + id,
			"an external URL":               "https://img.example.com/a.png",
			"the avatar on another host":    "https://evil.example.com/api/v1/avatars/" + id,
			"an unknown id":                 s.URL + "/api/v1/avatars/0190d2a4-1b7c-7e1a-8000-000000000000",
			"an avatar URL with a suffix":   own + "x",
			"an avatar URL with a query":    own + "?a=1",
			"not an id":                     s.URL + "/api/v1/avatars/..%2F..",
			"an avatar URL without its id":  s.URL + "/api/v1/avatars/",
			"an upload URL of one's avatar": s.URL + "/api/v1/avatars/uploads/" + id,
		} {
			t.Run(name, func(t *testing.T) {
				testkit.WantFields(t, patch(v), "avatarUrl")
				wantEq(t, "avatarUrl unchanged", me(t, s, u)["avatarUrl"], nil)
			})
		}
		patch(own).Want(t, http.StatusOK, "")
		// Someone else's avatar does not replace it either.
		testkit.WantFields(t, patch(theirs), "avatarUrl")
		wantEq(t, "avatarUrl kept", me(t, s, u)["avatarUrl"], own)
		for _, clear := range []any{nil, ""} {
			patch(own).Want(t, http.StatusOK, "")
			d := patch(clear).Want(t, http.StatusOK, "").Data()
			wantEq(t, "avatarUrl cleared", d["avatarUrl"], nil)
		}
	})
}

// Avatar upload URLs are a person's own: bearer tokens only; the image
// routes are public.
func TestAvatarAuthorization(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner := s.Register("Kim")
		key := s.NewKey(owner, "sell_only")
		sus := s.Register("Lou")
		body := map[string]any{"contentType": "image/jpeg"}
		s.Do("POST", avatarURLPath, body).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
		s.Do("POST", avatarURLPath, body, testkit.Bearer("not-a-token")).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
		s.Do("POST", avatarURLPath, body, key.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
		path, avatar := avatarSlot(t, s, sus, "image/jpeg")
		s.SetStatus(sus.ID, accounts.StatusSuspended)
		s.Do("POST", avatarURLPath, body, sus.Auth()).Want(t, http.StatusForbidden, "ACCOUNT_SUSPENDED")
		s.Do("PATCH", "/api/v1/auth/me", map[string]any{"avatarUrl": nil}, sus.Auth()).Want(t, http.StatusForbidden, "ACCOUNT_SUSPENDED")
		// The upload URL is its own credential and the avatar is public.
		s.Do("PUT", path, testJPEG(t, 64, 64), jpegType).Want(t, http.StatusOK, "")
		s.Do("GET", local(t, s, avatar), nil).Want(t, http.StatusOK, "")
	})
}
