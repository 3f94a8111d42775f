package photos

import (
	"bytes"
	"encoding/binary"
	"errors"
	"image"
	"image/color"
	"testing"

	"marketplace/internal/market"
)

// FuzzProcess feeds Process damaged and hostile variants of real images:
// it must never panic, refuse only with a VALIDATION_ERROR or
// PAYLOAD_TOO_LARGE on "file", and accept only what it can turn into a clean
// image within the limits.
func FuzzProcess(f *testing.F) {
	small := encodeJPEG(f, quadrants(32, 24))
	f.Add(small)
	f.Add(insertSegments(small, exifSegment(binary.LittleEndian, 6)))
	f.Add(insertSegments(small, exifSegment(binary.BigEndian, 8)))
	f.Add(encodePNG(f, quadrants(20, 20)))
	f.Add(encodePNG(f, withHalfTransparent(quadrants(20, 20))))
	f.Add(encodePNG(f, image.NewGray(image.Rect(0, 0, 16, 16))))
	f.Add(encodePNG(f, image.NewPaletted(image.Rect(0, 0, 16, 16), color.Palette{color.Black, color.Transparent})))
	f.Add(pngWithSize(100000, 100000))
	f.Add(pngWithSize(64, 64))
	f.Add(small[:len(small)/2])
	for _, name := range []string{"photo.webp", "alpha.webp", "alpha_lossy.webp", "exif.webp"} {
		f.Add(fixture(f, name))
	}
	f.Add([]byte("not an image"))

	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Process(data)
		if err != nil {
			var me *market.Error
			if !errors.As(err, &me) {
				t.Fatalf("error %v is not a *market.Error", err)
			}
			if me.Code != market.CodeValidation && me.Code != market.CodePayloadTooLarge {
				t.Fatalf("bad input answered with %s: %v", me.Code, err)
			}
			if len(me.Fields) != 1 || me.Fields[0].Field != "file" {
				t.Fatalf("fields = %+v", me.Fields)
			}
			return
		}
		if p.Width < MinSide || p.Height < MinSide || p.Width > MaxSide || p.Height > MaxSide {
			t.Fatalf("accepted %dx%d", p.Width, p.Height)
		}
		var magic []byte
		switch p.ContentType {
		case TypeJPEG:
			magic = []byte{0xFF, 0xD8, 0xFF}
		case TypePNG:
			magic = []byte("\x89PNG")
		default:
			t.Fatalf("content type %q", p.ContentType)
		}
		if !bytes.HasPrefix(p.Data, magic) || !bytes.HasPrefix(p.Thumb, []byte{0xFF, 0xD8, 0xFF}) {
			t.Fatal("output does not start with its format's signature")
		}
		if p.ThumbWidth > ThumbSide || p.ThumbHeight > ThumbSide {
			t.Fatalf("thumbnail %dx%d", p.ThumbWidth, p.ThumbHeight)
		}
	})
}
