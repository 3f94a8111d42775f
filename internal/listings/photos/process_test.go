package photos

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"runtime"
	"strings"
	"testing"

	"marketplace/internal/market"
)

// decodeAs decodes out with the decoder for contentType only.
func decodeAs(t *testing.T, data []byte, contentType string) image.Image {
	t.Helper()
	var (
		img image.Image
		err error
	)
	switch contentType {
	case TypeJPEG:
		img, err = jpeg.Decode(bytes.NewReader(data))
	case TypePNG:
		img, err = png.Decode(bytes.NewReader(data))
	default:
		t.Fatalf("unexpected content type %q", contentType)
	}
	if err != nil {
		t.Fatalf("output is not a valid %s: %v", contentType, err)
	}
	return img
}

func TestProcessAcceptsFormats(t *testing.T) {
	tests := []struct {
		name        string
		data        []byte
		source      string
		contentType string
		w, h        int
		// a pixel of the output and the colour it should have
		at   image.Point
		want color.NRGBA
	}{
		{"jpeg", encodeJPEG(t, quadrants(64, 48)), TypeJPEG, TypeJPEG, 64, 48, image.Pt(50, 40), white},
		{"opaque png becomes jpeg", encodePNG(t, quadrants(64, 48)), TypePNG, TypeJPEG, 64, 48, image.Pt(50, 5), green},
		{"png with transparency stays png", encodePNG(t, withHalfTransparent(quadrants(64, 48))), TypePNG, TypePNG, 64, 48, image.Pt(5, 5), color.NRGBA{}},
		{"lossy webp", fixture(t, "photo.webp"), TypeWebP, TypeJPEG, 64, 48, image.Pt(50, 20), color.NRGBA{30, 30, 200, 255}},
		{"lossless webp with alpha", fixture(t, "alpha.webp"), TypeWebP, TypePNG, 32, 32, image.Pt(24, 10), color.NRGBA{20, 160, 20, 255}},
		{"lossy webp with alpha (VP8X)", fixture(t, "alpha_lossy.webp"), TypeWebP, TypePNG, 32, 32, image.Pt(4, 10), color.NRGBA{}},
		{"webp with exif", fixture(t, "exif.webp"), TypeWebP, TypeJPEG, 64, 48, image.Pt(30, 30), color.NRGBA{180, 180, 180, 255}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Process(tc.data)
			if err != nil {
				t.Fatalf("Process: %v", err)
			}
			if p.SourceType != tc.source || p.ContentType != tc.contentType {
				t.Fatalf("types = %s -> %s, want %s -> %s", p.SourceType, p.ContentType, tc.source, tc.contentType)
			}
			if p.Width != tc.w || p.Height != tc.h {
				t.Fatalf("size = %dx%d, want %dx%d", p.Width, p.Height, tc.w, tc.h)
			}
			if p.Size() != len(p.Data) || p.Size() == 0 || p.ThumbSize() != len(p.Thumb) || p.ThumbSize() == 0 {
				t.Fatalf("sizes = %d/%d", p.Size(), p.ThumbSize())
			}
			wantExt := map[string]string{TypeJPEG: ".jpg", TypePNG: ".png"}[tc.contentType]
			if p.Ext() != wantExt {
				t.Fatalf("Ext = %q, want %q", p.Ext(), wantExt)
			}
			img := decodeAs(t, p.Data, p.ContentType)
			if b := img.Bounds(); b.Dx() != tc.w || b.Dy() != tc.h {
				t.Fatalf("decoded output is %v", b)
			}
			if c := img.At(tc.at.X, tc.at.Y); !near(c, tc.want, 40) {
				t.Fatalf("pixel %v = %v, want about %v", tc.at, c, tc.want)
			}
			if p.ThumbContentType != TypeJPEG {
				t.Fatalf("thumb type = %s", p.ThumbContentType)
			}
			th := decodeAs(t, p.Thumb, TypeJPEG)
			if b := th.Bounds(); b.Dx() != p.ThumbWidth || b.Dy() != p.ThumbHeight || b.Dx() != tc.w || b.Dy() != tc.h {
				t.Fatalf("thumbnail of a small image is %v (%dx%d), want it unscaled", b, p.ThumbWidth, p.ThumbHeight)
			}
		})
	}
}

func TestProcessThumbnail(t *testing.T) {
	tests := []struct {
		w, h, tw, th int
	}{
		{1200, 800, 400, 266},
		{600, 1800, 133, 400},
		{400, 400, 400, 400},
		{401, 16, 400, 15},
	}
	for _, tc := range tests {
		p, err := Process(encodeJPEG(t, quadrants(tc.w, tc.h)))
		if err != nil {
			t.Fatalf("%dx%d: %v", tc.w, tc.h, err)
		}
		if p.Width != tc.w || p.Height != tc.h {
			t.Fatalf("%dx%d: photo is %dx%d", tc.w, tc.h, p.Width, p.Height)
		}
		th := decodeAs(t, p.Thumb, TypeJPEG)
		if b := th.Bounds(); b.Dx() != tc.tw || b.Dy() != tc.th || p.ThumbWidth != tc.tw || p.ThumbHeight != tc.th {
			t.Fatalf("%dx%d: thumbnail %v (%dx%d), want %dx%d", tc.w, tc.h, b, p.ThumbWidth, p.ThumbHeight, tc.tw, tc.th)
		}
		if len(p.Thumb) >= len(p.Data) && tc.w*tc.h > 4*ThumbSide*ThumbSide {
			t.Fatalf("%dx%d: thumbnail (%d bytes) not smaller than the photo (%d)", tc.w, tc.h, len(p.Thumb), len(p.Data))
		}
		// The picture survives the resize: top-left is still red.
		if c := th.At(tc.tw/4, tc.th/4); !near(c, red, 50) {
			t.Fatalf("%dx%d: thumbnail top-left = %v", tc.w, tc.h, c)
		}
	}
}

func TestProcessTransparentThumbnailIsOnWhite(t *testing.T) {
	p, err := Process(encodePNG(t, withHalfTransparent(quadrants(800, 400))))
	if err != nil {
		t.Fatal(err)
	}
	if p.ContentType != TypePNG {
		t.Fatalf("content type = %s", p.ContentType)
	}
	th := decodeAs(t, p.Thumb, TypeJPEG)
	if c := th.At(10, 10); !near(c, color.NRGBA{255, 255, 255, 255}, 10) {
		t.Fatalf("transparent area of the thumbnail = %v, want white", c)
	}
	if c := th.At(390, 10); !near(c, green, 50) {
		t.Fatalf("opaque area of the thumbnail = %v, want green", c)
	}
}

func TestProcessStripsMetadata(t *testing.T) {
	for _, bo := range []byteOrder{binary.LittleEndian, binary.BigEndian} {
		tiff := exifTIFF(bo, 1)
		xmp := segment(0xE1, []byte(`http://ns.adobe.com/xap/1.0/`+"\x00"+`<x:xmpmeta><rdf:Description exif:GPSLatitude="48,51.497N"/></x:xmpmeta>`))
		icc := segment(0xE2, append([]byte("ICC_PROFILE\x00\x01\x01"), bytes.Repeat([]byte{0xAB}, 64)...))
		com := segment(0xFE, []byte("shot at 12 Secret Street"))
		in := insertSegments(encodeJPEG(t, quadrants(64, 48)), exifSegment(bo, 1), xmp, icc, com)

		secrets := [][]byte{[]byte("Exif"), tiff, gpsLatitude(bo), []byte("GPSLatitude"), []byte("ns.adobe.com"),
			[]byte("ICC_PROFILE"), []byte("Secret Street")}
		for _, s := range secrets {
			if !bytes.Contains(in, s) {
				t.Fatalf("test input lacks %q", s)
			}
		}
		p, err := Process(in)
		if err != nil {
			t.Fatalf("%v: %v", bo, err)
		}
		for _, out := range [][]byte{p.Data, p.Thumb} {
			for _, s := range secrets {
				if bytes.Contains(out, s) {
					t.Fatalf("%v: output still holds %q", bo, s)
				}
			}
			// Only the markers Go's encoder writes: no APPn or COM segment.
			if m := appMarkers(out); len(m) != 0 {
				t.Fatalf("%v: output has metadata segments %x", bo, m)
			}
		}
	}

	t.Run("webp exif chunk", func(t *testing.T) {
		in := fixture(t, "exif.webp")
		gps := []byte("II*\x00")
		if !bytes.Contains(in, []byte("EXIF")) || !bytes.Contains(in, gps) {
			t.Fatal("fixture lacks its EXIF chunk")
		}
		p, err := Process(in)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(p.Data, gps) || bytes.Contains(p.Data, []byte("EXIF")) || bytes.Contains(p.Data, []byte("Exif")) {
			t.Fatal("EXIF survived")
		}
	})

	t.Run("png text chunks", func(t *testing.T) {
		src := encodePNG(t, withHalfTransparent(quadrants(32, 32)))
		// Insert a tEXt chunk after IHDR (8 signature + 25 IHDR bytes).
		text := []byte("tEXt" + "Comment\x00GPS 48.8584N 2.2945E")
		chunk := binary.BigEndian.AppendUint32(nil, uint32(len(text)-4))
		chunk = append(chunk, text...)
		chunk = binary.BigEndian.AppendUint32(chunk, crc32.ChecksumIEEE(text))
		in := append(append(append([]byte{}, src[:33]...), chunk...), src[33:]...)
		if _, err := png.Decode(bytes.NewReader(in)); err != nil {
			t.Fatalf("test input is not a valid PNG: %v", err)
		}
		p, err := Process(in)
		if err != nil {
			t.Fatal(err)
		}
		if p.ContentType != TypePNG || bytes.Contains(p.Data, []byte("tEXt")) || bytes.Contains(p.Data, []byte("48.8584N")) {
			t.Fatal("PNG text chunk survived")
		}
	})
}

// appMarkers lists the APPn and COM markers before the first SOS.
func appMarkers(jpg []byte) []byte {
	var found []byte
	i := 2
	for i+4 <= len(jpg) && jpg[i] == 0xFF {
		m := jpg[i+1]
		if m == 0xDA {
			break
		}
		if (m >= 0xE0 && m <= 0xEF) || m == 0xFE {
			found = append(found, m)
		}
		i += 2 + int(binary.BigEndian.Uint16(jpg[i+2:]))
	}
	return found
}

func TestProcessAppliesOrientation(t *testing.T) {
	const W, H = 64, 32
	// source maps a displayed pixel back to the stored one, per the EXIF
	// definition of each orientation (written out here, not taken from
	// the code under test).
	source := map[int]func(x, y int) (int, int){
		1: func(x, y int) (int, int) { return x, y },
		2: func(x, y int) (int, int) { return W - 1 - x, y },
		3: func(x, y int) (int, int) { return W - 1 - x, H - 1 - y },
		4: func(x, y int) (int, int) { return x, H - 1 - y },
		5: func(x, y int) (int, int) { return y, x },
		6: func(x, y int) (int, int) { return y, H - 1 - x },
		7: func(x, y int) (int, int) { return W - 1 - y, H - 1 - x },
		8: func(x, y int) (int, int) { return W - 1 - y, x },
	}
	plain := encodeJPEG(t, quadrants(W, H))
	for o := 1; o <= 8; o++ {
		for _, bo := range []byteOrder{binary.LittleEndian, binary.BigEndian} {
			p, err := Process(insertSegments(plain, exifSegment(bo, o)))
			if err != nil {
				t.Fatalf("orientation %d: %v", o, err)
			}
			dw, dh := W, H
			if o >= 5 {
				dw, dh = H, W
			}
			if p.Width != dw || p.Height != dh {
				t.Fatalf("orientation %d: %dx%d, want %dx%d", o, p.Width, p.Height, dw, dh)
			}
			img := decodeAs(t, p.Data, p.ContentType)
			for _, pt := range []image.Point{{dw / 4, dh / 4}, {3 * dw / 4, dh / 4}, {dw / 4, 3 * dh / 4}, {3 * dw / 4, 3 * dh / 4}} {
				sx, sy := source[o](pt.X, pt.Y)
				want := quadrantColor(sx, sy, W, H)
				if c := img.At(pt.X, pt.Y); !near(c, want, 40) {
					t.Fatalf("orientation %d (%v): pixel %v = %v, want about %v", o, bo, pt, c, want)
				}
			}
		}
	}
}

func TestProcessRejects(t *testing.T) {
	jpg := encodeJPEG(t, quadrants(64, 48))
	bigJPG := encodeJPEG(t, quadrants(640, 480))
	var gifBuf bytes.Buffer
	if err := gif.Encode(&gifBuf, quadrants(64, 48), nil); err != nil {
		t.Fatal(err)
	}
	webpHuge := fixture(t, "alpha_lossy.webp")
	webpHuge = append([]byte{}, webpHuge...)
	// VP8X canvas: width-1 and height-1 as 24-bit little-endian at 24 and 27.
	copy(webpHuge[24:30], []byte{0x7F, 0x3E, 0x00, 0x7F, 0x3E, 0x00}) // 16000 x 16000

	tests := []struct {
		name string
		data []byte
		code market.Code
		msg  string // part of the message
	}{
		{"empty", nil, market.CodeValidation, "empty"},
		{"text file", []byte("hello, this is not an image\n"), market.CodeValidation, "not a JPEG, PNG or WebP"},
		{"html claiming nothing", []byte("<html><script>alert(1)</script></html>"), market.CodeValidation, "not a JPEG, PNG or WebP"},
		{"gif", gifBuf.Bytes(), market.CodeValidation, "not a JPEG, PNG or WebP"},
		{"truncated jpeg", bigJPG[:len(bigJPG)*2/3], market.CodeValidation, "damaged or truncated"},
		{"jpeg cut inside its headers", jpg[:len(jpg)/4], market.CodeValidation, "not a valid JPEG"},
		{"jpeg header only", jpg[:3], market.CodeValidation, "not a valid JPEG"},
		{"truncated png", encodePNG(t, quadrants(64, 48))[:60], market.CodeValidation, "PNG"},
		{"truncated webp", fixture(t, "photo.webp")[:40], market.CodeValidation, "WebP"},
		{"riff that is not webp", append([]byte("RIFF\x10\x00\x00\x00WAVEfmt "), make([]byte, 16)...), market.CodeValidation, "not a JPEG, PNG or WebP"},
		{"too small", encodePNG(t, quadrants(8, 8)), market.CodeValidation, "at least 16"},
		{"too thin", encodeJPEG(t, quadrants(400, 15)), market.CodeValidation, "at least 16"},
		{"png bomb 100000x100000", pngWithSize(100000, 100000), market.CodeValidation, "at most 12000"},
		{"png over 40 megapixels", pngWithSize(8000, 6000), market.CodeValidation, "40 megapixels"},
		{"jpeg claiming 20000x20000", setJPEGSize(t, jpg, 20000, 20000), market.CodeValidation, "at most 12000"},
		{"webp canvas 16000x16000", webpHuge, market.CodeValidation, "at most 12000"},
		{"10 MiB + 1", make([]byte, MaxUploadBytes+1), market.CodePayloadTooLarge, "10 MiB"},
		{"jpeg padded past 10 MiB", append(append([]byte{}, jpg...), make([]byte, MaxUploadBytes)...), market.CodePayloadTooLarge, "10 MiB"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Process(tc.data)
			if err == nil {
				t.Fatalf("accepted: %+v", p)
			}
			me := wantErr(t, err, tc.code, "file")
			if !strings.Contains(me.Message, tc.msg) {
				t.Fatalf("message %q does not mention %q", me.Message, tc.msg)
			}
		})
	}
}

// A bomb is refused from its header: refusing it allocates next to nothing.
// (Decoding it would need 30 GB and kill the test.)
func TestProcessBombAllocatesNothing(t *testing.T) {
	bomb := pngWithSize(100000, 100000)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := Process(bomb)
	runtime.ReadMemStats(&after)
	wantErr(t, err, market.CodeValidation, "file")
	if d := after.TotalAlloc - before.TotalAlloc; d > 1<<20 {
		t.Fatalf("refusing the bomb allocated %d bytes", d)
	}
}

func TestProcessLimitsAreInclusive(t *testing.T) {
	// Exactly 10 MiB is not too large (it fails later, as garbage).
	wantErr(t, func() error { _, err := Process(make([]byte, MaxUploadBytes)); return err }(), market.CodeValidation, "file")
	// 16 px sides are accepted.
	if _, err := Process(encodePNG(t, quadrants(16, 16))); err != nil {
		t.Fatalf("16x16: %v", err)
	}
	if err := checkDimensions(MaxSide, MaxPixels/MaxSide); err != nil {
		t.Fatalf("%dx%d: %v", MaxSide, MaxPixels/MaxSide, err)
	}
	if err := checkDimensions(MaxSide, MaxPixels/MaxSide+1); err == nil {
		t.Fatal("one row past 40 MP accepted")
	}
}

func TestReadLimited(t *testing.T) {
	b, err := ReadLimited(bytes.NewReader(make([]byte, MaxUploadBytes)))
	if err != nil || len(b) != MaxUploadBytes {
		t.Fatalf("10 MiB: %d, %v", len(b), err)
	}
	// A body far over the limit is not read to its end.
	r := &countingReader{n: 50 << 20}
	_, err = ReadLimited(r)
	wantErr(t, err, market.CodePayloadTooLarge, "file")
	if r.read > MaxUploadBytes+1 {
		t.Fatalf("read %d bytes of an oversize body", r.read)
	}
}

type countingReader struct{ n, read int }

func (c *countingReader) Read(p []byte) (int, error) {
	if c.n == 0 {
		return 0, io.EOF
	}
	k := min(len(p), c.n)
	c.n -= k
	c.read += k
	return k, nil
}
