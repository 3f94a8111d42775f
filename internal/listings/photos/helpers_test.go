package photos

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"marketplace/internal/market"
)

// Quadrant colours that survive JPEG compression well enough to tell apart.
var (
	red   = color.NRGBA{220, 20, 20, 255}
	green = color.NRGBA{20, 200, 20, 255}
	blue  = color.NRGBA{20, 20, 220, 255}
	white = color.NRGBA{235, 235, 235, 255}
)

// quadrants draws a w x h picture: top-left red, top-right green,
// bottom-left blue, bottom-right white.
func quadrants(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.SetNRGBA(x, y, quadrantColor(x, y, w, h))
		}
	}
	return img
}

func quadrantColor(x, y, w, h int) color.NRGBA {
	switch {
	case x < w/2 && y < h/2:
		return red
	case y < h/2:
		return green
	case x < w/2:
		return blue
	}
	return white
}

func encodeJPEG(t testing.TB, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 95}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func encodePNG(t testing.TB, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// withHalfTransparent makes the left half of img fully transparent.
func withHalfTransparent(img *image.NRGBA) *image.NRGBA {
	b := img.Bounds()
	for y := 0; y < b.Dy(); y++ {
		for x := 0; x < b.Dx()/2; x++ {
			img.SetNRGBA(x, y, color.NRGBA{})
		}
	}
	return img
}

// insertSegments puts JPEG marker segments right after SOI.
func insertSegments(jpg []byte, segs ...[]byte) []byte {
	out := append([]byte{}, jpg[:2]...)
	for _, s := range segs {
		out = append(out, s...)
	}
	return append(out, jpg[2:]...)
}

// segment builds a JPEG marker segment with its length.
func segment(marker byte, payload []byte) []byte {
	s := []byte{0xFF, marker, 0, 0}
	binary.BigEndian.PutUint16(s[2:], uint16(len(payload)+2))
	return append(s, payload...)
}

// byteOrder is what binary.LittleEndian and binary.BigEndian both are.
type byteOrder interface {
	binary.ByteOrder
	binary.AppendByteOrder
}

// gpsLatitude is the GPSLatitude value written by exifTIFF: 48/1 51/1
// 2982/100, recognisable in the bytes of any file that kept it.
func gpsLatitude(bo byteOrder) []byte {
	b := make([]byte, 24)
	for i, v := range []uint32{48, 1, 51, 1, 2982, 100} {
		bo.PutUint32(b[i*4:], v)
	}
	return b
}

// exifTIFF builds a TIFF block: IFD0 with Orientation (when o > 0) and a
// pointer to a GPS IFD holding GPSLatitudeRef "N" and GPSLatitude.
func exifTIFF(bo byteOrder, o int) []byte {
	var t []byte
	if bo.String() == binary.LittleEndian.String() {
		t = []byte("II")
	} else {
		t = []byte("MM")
	}
	t = bo.AppendUint16(t, 42)
	t = bo.AppendUint32(t, 8)
	entry := func(b []byte, tag, typ uint16, count uint32, value []byte) []byte {
		b = bo.AppendUint16(b, tag)
		b = bo.AppendUint16(b, typ)
		b = bo.AppendUint32(b, count)
		v := make([]byte, 4)
		copy(v, value)
		return append(b, v...)
	}
	n := 1
	if o > 0 {
		n = 2
	}
	ifd0Len := 2 + 12*n + 4
	gpsOff := uint32(8 + ifd0Len)
	t = bo.AppendUint16(t, uint16(n))
	if o > 0 {
		t = entry(t, 0x0112, 3, 1, bo.AppendUint16(nil, uint16(o)))
	}
	t = entry(t, 0x8825, 4, 1, bo.AppendUint32(nil, gpsOff))
	t = bo.AppendUint32(t, 0) // no next IFD
	gpsLen := 2 + 12*2 + 4
	latOff := gpsOff + uint32(gpsLen)
	t = bo.AppendUint16(t, 2)
	t = entry(t, 0x0001, 2, 2, []byte("N\x00"))
	t = entry(t, 0x0002, 5, 3, bo.AppendUint32(nil, latOff))
	t = bo.AppendUint32(t, 0)
	return append(t, gpsLatitude(bo)...)
}

// exifSegment is the APP1 "Exif" segment around exifTIFF.
func exifSegment(bo byteOrder, o int) []byte {
	return segment(0xE1, append([]byte("Exif\x00\x00"), exifTIFF(bo, o)...))
}

// pngWithSize is a PNG whose IHDR claims w x h but that carries almost no
// pixel data: what a decompression bomb looks like to DecodeConfig.
func pngWithSize(w, h uint32) []byte {
	chunk := func(b []byte, typ string, data []byte) []byte {
		b = binary.BigEndian.AppendUint32(b, uint32(len(data)))
		start := len(b)
		b = append(b, typ...)
		b = append(b, data...)
		return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b[start:]))
	}
	ihdr := binary.BigEndian.AppendUint32(nil, w)
	ihdr = binary.BigEndian.AppendUint32(ihdr, h)
	ihdr = append(ihdr, 8, 2, 0, 0, 0) // 8-bit RGB, no interlace
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(make([]byte, 4096))
	zw.Close()
	b := []byte("\x89PNG\r\n\x1a\n")
	b = chunk(b, "IHDR", ihdr)
	b = chunk(b, "IDAT", z.Bytes())
	return chunk(b, "IEND", nil)
}

// setJPEGSize rewrites the dimensions in a baseline JPEG's SOF0 header.
func setJPEGSize(t testing.TB, jpg []byte, w, h uint16) []byte {
	t.Helper()
	out := append([]byte{}, jpg...)
	i := bytes.Index(out, []byte{0xFF, 0xC0})
	if i < 0 {
		t.Fatal("no SOF0 in JPEG")
	}
	binary.BigEndian.PutUint16(out[i+5:], h)
	binary.BigEndian.PutUint16(out[i+7:], w)
	return out
}

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// wantErr asserts err is a *market.Error with the code (and, when field is
// not "", naming that field).
func wantErr(t *testing.T, err error, code market.Code, field string) *market.Error {
	t.Helper()
	var me *market.Error
	if !errors.As(err, &me) {
		t.Fatalf("error = %v (%T), want a *market.Error %s", err, err, code)
	}
	if me.Code != code {
		t.Fatalf("code = %s (%q), want %s", me.Code, me.Message, code)
	}
	if field != "" && (len(me.Fields) == 0 || me.Fields[0].Field != field) {
		t.Fatalf("fields = %+v, want %q", me.Fields, field)
	}
	return me
}

// near reports whether two colours are within tol on each channel.
func near(a color.Color, b color.NRGBA, tol int) bool {
	c := color.NRGBAModel.Convert(a).(color.NRGBA)
	d := func(x, y uint8) bool { return int(x)-int(y) <= tol && int(y)-int(x) <= tol }
	return d(c.R, b.R) && d(c.G, b.G) && d(c.B, b.B) && d(c.A, b.A)
}
