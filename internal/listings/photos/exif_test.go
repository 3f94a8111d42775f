package photos

import (
	"encoding/binary"
	"image"
	"testing"
)

func TestJPEGOrientation(t *testing.T) {
	le, be := binary.LittleEndian, binary.BigEndian
	plain := encodeJPEG(t, image.NewGray(image.Rect(0, 0, 16, 16)))
	jfif := segment(0xE0, []byte("JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"))
	xmp := segment(0xE1, []byte("http://ns.adobe.com/xap/1.0/\x00<x/>"))

	// wrongType has the orientation stored as a LONG.
	wrongType := exifSegment(le, 6)
	binary.LittleEndian.PutUint16(wrongType[4+6+8+2+2:], 4)

	truncated := exifSegment(le, 6)
	truncated = truncated[:len(truncated)-40] // cut, but the length still says more

	tests := []struct {
		name string
		data []byte
		want int
	}{
		{"no exif", plain, 1},
		{"little-endian 6", insertSegments(plain, exifSegment(le, 6)), 6},
		{"big-endian 8", insertSegments(plain, exifSegment(be, 8)), 8},
		{"after JFIF and XMP", insertSegments(plain, jfif, xmp, exifSegment(be, 3)), 3},
		{"fill bytes before the marker", insertSegments(plain, []byte{0xFF, 0xFF}, exifSegment(le, 5)), 5},
		{"exif without orientation", insertSegments(plain, exifSegment(le, 0)), 1},
		{"out of range value", insertSegments(plain, exifSegment(le, 9)), 1},
		{"wrong tag type", insertSegments(plain, wrongType), 1},
		{"segment longer than the file", append(append([]byte{}, plain[:2]...), truncated...), 1},
		{"bad byte order", insertSegments(plain, segment(0xE1, []byte("Exif\x00\x00XX*\x00\x08\x00\x00\x00"))), 1},
		{"IFD offset past the end", insertSegments(plain, segment(0xE1, []byte("Exif\x00\x00II*\x00\xff\xff\xff\xff"))), 1},
		{"not a jpeg", []byte("hello"), 1},
		{"empty", nil, 1},
	}
	for _, tc := range tests {
		if got := jpegOrientation(tc.data); got != tc.want {
			t.Errorf("%s: orientation %d, want %d", tc.name, got, tc.want)
		}
	}

	// EXIF placed after the image data is not read (it is not EXIF then).
	sos := insertSegments(plain, exifSegment(le, 6))
	if got := jpegOrientation(append(append([]byte{}, plain...), sos[2:]...)); got != 1 {
		t.Errorf("exif after the scan: %d", got)
	}
}

func FuzzJPEGOrientation(f *testing.F) {
	plain := encodeJPEG(f, image.NewGray(image.Rect(0, 0, 16, 16)))
	f.Add(plain)
	f.Add(insertSegments(plain, exifSegment(binary.LittleEndian, 6)))
	f.Add(insertSegments(plain, exifSegment(binary.BigEndian, 8)))
	f.Fuzz(func(t *testing.T, data []byte) {
		if o := jpegOrientation(data); o < 1 || o > 8 {
			t.Fatalf("orientation %d", o)
		}
	})
}
