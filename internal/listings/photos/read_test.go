package photos

import (
	"bytes"
	"io"
	"testing"

	"marketplace/internal/market"
)

// countReader counts what was read from it.
type countReader struct {
	r io.Reader
	n int
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// ReadImage refuses junk after its first bytes, reads an image's whole body
// within the limit, and refuses one over it.
func TestReadImage(t *testing.T) {
	junk := &countReader{r: bytes.NewReader(bytes.Repeat([]byte("x"), MaxUploadBytes))}
	if _, err := ReadImage(junk, MaxUploadBytes); market.CodeOf(err) != market.CodeValidation {
		t.Fatalf("junk: %v", err)
	}
	if junk.n > signatureLen {
		t.Fatalf("read %d bytes of junk, want at most %d", junk.n, signatureLen)
	}

	jpegish := append([]byte{0xFF, 0xD8, 0xFF, 0xE0}, bytes.Repeat([]byte{1}, 5000)...)
	for _, hint := range []int64{-1, int64(len(jpegish)), 100} { // unknown, exact, short
		data, err := ReadImage(bytes.NewReader(jpegish), hint)
		if err != nil || !bytes.Equal(data, jpegish) {
			t.Fatalf("hint %d: %d bytes, %v", hint, len(data), err)
		}
	}
	exact, _ := ReadImage(bytes.NewReader(jpegish), int64(len(jpegish)))
	if cap(exact) != len(jpegish)+1 {
		t.Errorf("buffer of %d bytes for a %d-byte body with its length known", cap(exact), len(jpegish))
	}

	big := append([]byte{0xFF, 0xD8, 0xFF}, make([]byte, MaxUploadBytes)...)
	if _, err := ReadImage(bytes.NewReader(big), -1); market.CodeOf(err) != market.CodePayloadTooLarge {
		t.Fatalf("over the limit: %v", err)
	}
	if _, err := ReadImage(bytes.NewReader(big), MaxUploadBytes+1); market.CodeOf(err) != market.CodePayloadTooLarge {
		t.Fatalf("a length over the limit: %v", err)
	}
	if _, err := ReadImage(bytes.NewReader(nil), 0); market.CodeOf(err) != market.CodeValidation {
		t.Fatalf("empty: %v", err)
	}
}
