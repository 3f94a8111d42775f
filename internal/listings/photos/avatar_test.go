package photos

import (
	"bytes"
	"context"
	"encoding/binary"
	"image"
	"image/color"
	"image/gif"
	"testing"

	"marketplace/internal/market"
)

// An avatar is the centre square of the upload, scaled to AvatarSide: a
// wide picture loses its sides, a tall one its top and bottom.
func TestProcessAvatarCropsTheCentre(t *testing.T) {
	// stripes is w x h: the middle third (along the long side) green, the
	// outer thirds red.
	stripes := func(w, h int) *image.NRGBA {
		img := image.NewNRGBA(image.Rect(0, 0, w, h))
		long := max(w, h)
		for y := range h {
			for x := range w {
				pos := x
				if h > w {
					pos = y
				}
				c := red
				if pos >= long/3 && pos < 2*long/3 {
					c = green
				}
				img.SetNRGBA(x, y, c)
			}
		}
		return img
	}
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"wide jpeg", encodeJPEG(t, stripes(900, 300))},
		{"tall png", encodePNG(t, stripes(120, 360))},
		{"small square jpeg", encodeJPEG(t, stripes(48, 48))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ProcessAvatar(tc.data)
			if err != nil {
				t.Fatal(err)
			}
			if p.ContentType != TypeJPEG || p.Width != AvatarSide || p.Height != AvatarSide || p.Thumb != nil {
				t.Fatalf("avatar %s %dx%d, thumb %d bytes", p.ContentType, p.Width, p.Height, len(p.Thumb))
			}
			img := decodeAs(t, p.Data, TypeJPEG)
			if b := img.Bounds(); b.Dx() != AvatarSide || b.Dy() != AvatarSide {
				t.Fatalf("stored image is %v", b)
			}
			if tc.name == "small square jpeg" {
				return // a square is all of the picture: no crop to see
			}
			// The crop is the green third, every corner of it.
			for _, pt := range []image.Point{{4, 4}, {AvatarSide - 5, 4}, {4, AvatarSide - 5}, {AvatarSide - 5, AvatarSide - 5}, {128, 128}} {
				if c := img.At(pt.X, pt.Y); !near(c, green, 40) {
					t.Fatalf("pixel %v = %v, want the centre's green", pt, c)
				}
			}
		})
	}
}

func TestProcessAvatarKeepsTransparencyAsPNG(t *testing.T) {
	p, err := ProcessAvatar(encodePNG(t, withHalfTransparent(quadrants(64, 64))))
	if err != nil {
		t.Fatal(err)
	}
	if p.ContentType != TypePNG {
		t.Fatalf("content type %s", p.ContentType)
	}
	img := decodeAs(t, p.Data, TypePNG)
	if b := img.Bounds(); b.Dx() != AvatarSide || b.Dy() != AvatarSide {
		t.Fatalf("stored image is %v", b)
	}
	if _, _, _, a := img.At(10, 10).RGBA(); a != 0 {
		t.Fatalf("left half alpha %d, want transparent", a)
	}
	if c := img.At(250, 250); !near(c, white, 40) {
		t.Fatalf("bottom right %v, want white", c)
	}
}

// Metadata is left behind, as for photos.
func TestProcessAvatarStripsMetadata(t *testing.T) {
	com := segment(0xFE, []byte("shot at 12 Secret Street"))
	in := insertSegments(encodeJPEG(t, quadrants(300, 200)), exifSegment(binary.LittleEndian, 1), com)
	p, err := ProcessAvatar(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range [][]byte{[]byte("Exif"), gpsLatitude(binary.LittleEndian), []byte("Secret Street")} {
		if bytes.Contains(p.Data, s) {
			t.Fatalf("avatar still holds %q", s)
		}
	}
	if m := appMarkers(p.Data); len(m) != 0 {
		t.Fatalf("avatar has metadata segments %x", m)
	}
}

func TestProcessAvatarRejects(t *testing.T) {
	var g bytes.Buffer
	pal := image.NewPaletted(image.Rect(0, 0, 32, 32), color.Palette{color.Black, color.White})
	if err := gif.Encode(&g, pal, nil); err != nil {
		t.Fatal(err)
	}
	jpg := encodeJPEG(t, quadrants(64, 64))
	tests := []struct {
		name  string
		data  []byte
		code  market.Code
		field string
	}{
		{"webp", fixture(t, "photo.webp"), market.CodeValidation, "file"},
		{"gif", g.Bytes(), market.CodeValidation, "file"},
		{"text", []byte("not an image at all"), market.CodeValidation, "file"},
		{"truncated jpeg", jpg[:len(jpg)/2], market.CodeValidation, "file"},
		{"header only", setJPEGSize(t, jpg[:200], 64, 64), market.CodeValidation, "file"},
		{"too small", encodePNG(t, quadrants(8, 8)), market.CodeValidation, "file"},
		{"5 MiB + 1", append(append([]byte{}, jpg...), make([]byte, MaxAvatarBytes+1-len(jpg))...), market.CodePayloadTooLarge, "file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ProcessAvatar(tc.data)
			e := wantErr(t, err, tc.code, tc.field)
			if tc.code == market.CodePayloadTooLarge && !bytes.Contains([]byte(e.Message), []byte("5 MiB")) {
				t.Fatalf("message %q does not name the 5 MiB limit", e.Message)
			}
		})
	}
}

// The intake reads an avatar no further than its own limit, and refuses a
// declared length over it before reading anything.
func TestIntakeAvatarLimit(t *testing.T) {
	in := NewIntake()
	big := &countReader{r: bytes.NewReader(append([]byte{0xFF, 0xD8, 0xFF}, make([]byte, MaxUploadBytes)...))}
	_, err := in.Receive(context.Background(), big, -1, AvatarKind)
	wantErr(t, err, market.CodePayloadTooLarge, "file")
	if big.n > MaxAvatarBytes+1 {
		t.Fatalf("read %d bytes, want at most %d", big.n, MaxAvatarBytes+1)
	}
	declared := &countReader{r: bytes.NewReader(make([]byte, 10))}
	_, err = in.Receive(context.Background(), declared, MaxAvatarBytes+1, AvatarKind)
	wantErr(t, err, market.CodePayloadTooLarge, "file")
	if declared.n != 0 {
		t.Fatalf("read %d bytes of a body declared too large", declared.n)
	}
	// A photo of the same size is within its own limit.
	p, err := in.Receive(context.Background(), bytes.NewReader(encodeJPEG(t, quadrants(64, 48))), -1, PhotoKind)
	if err != nil || p.Width != 64 || p.Thumb == nil {
		t.Fatalf("photo through the intake: %+v %v", p, err)
	}
	if !in.Claim("a") || in.Claim("a") {
		t.Fatal("a slot claimed twice")
	}
	in.Release("a")
	if !in.Claim("a") {
		t.Fatal("a released slot cannot be claimed")
	}
}
