package photos

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"runtime"
	"testing"
)

// progressiveJPEG is a w x h progressive JPEG of comps components (1 grey,
// 3 YCbCr, 4 YCbCrK with an Adobe marker) with no chroma subsampling, all
// mid grey: one DC scan in which every block's difference is 0 (one bit).
// A few hundred KB even at 40 MP, it costs the decoder the most memory: 4
// bytes of coefficients per pixel and component besides the image.
func progressiveJPEG(w, h, comps int) []byte {
	b := []byte{0xFF, 0xD8}
	b = append(b, segment(0xDB, append([]byte{0}, bytes.Repeat([]byte{1}, 64)...))...)
	if comps == 4 {
		b = append(b, segment(0xEE, []byte("Adobe\x00\x64\x00\x00\x00\x00\x02"))...)
	}
	sof := []byte{8, byte(h >> 8), byte(h), byte(w >> 8), byte(w), byte(comps)}
	sos := []byte{byte(comps)}
	for c := 1; c <= comps; c++ {
		sof = append(sof, byte(c), 0x11, 0)
		sos = append(sos, byte(c), 0x00)
	}
	b = append(b, segment(0xC2, sof)...)
	// DC table 0: the one symbol 0 (difference 0) coded as the bit 0.
	b = append(b, segment(0xC4, append([]byte{0x00, 1}, make([]byte, 16)...))...)
	b = append(b, segment(0xDA, append(sos, 0, 0, 0))...) // Ss=0 Se=0: DC only
	bits := ((w + 7) / 8) * ((h + 7) / 8) * comps
	scan := make([]byte, (bits+7)/8)
	if r := bits % 8; r != 0 {
		scan[len(scan)-1] = 0xFF >> r // padded with 1s
	}
	b = append(b, scan...)
	return append(b, 0xFF, 0xD9)
}

// flatPNG is a w x h PNG of the colour type and bit depth whose every
// sample is 0 (transparent black when it has alpha), Adam7-interlaced or
// not: a few hundred KB at 40 MP.
func flatPNG(w, h int, colorType, depth byte, interlaced bool) []byte {
	chunk := func(b []byte, typ string, data []byte) []byte {
		b = binary.BigEndian.AppendUint32(b, uint32(len(data)))
		start := len(b)
		b = append(b, typ...)
		b = append(b, data...)
		return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b[start:]))
	}
	bytesPerPixel := map[byte]int{0: 1, 2: 3, 4: 2, 6: 4}[colorType] * int(depth) / 8
	ihdr := binary.BigEndian.AppendUint32(nil, uint32(w))
	ihdr = binary.BigEndian.AppendUint32(ihdr, uint32(h))
	ihdr = append(ihdr, depth, colorType, 0, 0, 0)
	raw := h * (1 + w*bytesPerPixel) // filter byte and samples of each row
	if interlaced {
		ihdr[12] = 1
		raw = 0
		for _, p := range [][4]int{{0, 0, 8, 8}, {4, 0, 8, 8}, {0, 4, 4, 8}, {2, 0, 4, 4}, {0, 2, 2, 4}, {1, 0, 2, 2}, {0, 1, 1, 2}} {
			pw, ph := (w-p[0]+p[2]-1)/p[2], (h-p[1]+p[3]-1)/p[3]
			if pw > 0 && ph > 0 {
				raw += ph * (1 + pw*bytesPerPixel)
			}
		}
	}
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(make([]byte, raw))
	zw.Close()
	b := []byte("\x89PNG\r\n\x1a\n")
	b = chunk(b, "IHDR", ihdr)
	b = chunk(b, "IDAT", z.Bytes())
	return chunk(b, "IEND", nil)
}

// Process allocates at most ProcessBytesPerPixel bytes a pixel, garbage
// included, for the costliest inputs there are: callers size their decode
// budget by it. (Measured at 2 MP to stay quick; at 40 MP the fixed costs
// weigh less still.)
func TestProcessMemoryPerPixel(t *testing.T) {
	const w, h = 1200, 800
	rotated := func(jpg []byte) []byte { return insertSegments(jpg, exifSegment(binary.LittleEndian, 6)) }
	ordinary := image.NewYCbCr(image.Rect(0, 0, w, h), image.YCbCrSubsampleRatio420)
	for _, c := range []struct {
		name string
		data []byte
		out  string
	}{
		{"progressive YCbCr JPEG, rotated", rotated(progressiveJPEG(w, h, 3)), TypeJPEG},
		{"progressive CMYK JPEG, rotated", rotated(progressiveJPEG(w, h, 4)), TypeJPEG},
		{"interlaced 16-bit RGBA PNG", flatPNG(w, h, 6, 16, true), TypePNG},
		{"interlaced 16-bit RGB PNG", flatPNG(w, h, 2, 16, true), TypeJPEG},
		{"baseline JPEG, rotated", rotated(encodeJPEG(t, ordinary)), TypeJPEG},
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		p, err := Process(c.data)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		upright := p.Width == w && p.Height == h || p.Width == h && p.Height == w
		if p.ContentType != c.out || !upright {
			t.Fatalf("%s: %s %dx%d", c.name, p.ContentType, p.Width, p.Height)
		}
		perPixel := float64(after.TotalAlloc-before.TotalAlloc) / (w * h)
		t.Logf("%-32s %6d bytes in: %4.1f bytes a pixel", c.name, len(c.data), perPixel)
		if perPixel > ProcessBytesPerPixel {
			t.Errorf("%s: %.1f bytes a pixel, more than ProcessBytesPerPixel (%d)", c.name, perPixel, ProcessBytesPerPixel)
		}
	}
}

// Images of the types imaging and the encoders would read a pixel at a
// time are flattened to 8-bit first; the pixels are kept.
func TestProcessFlattensWideTypes(t *testing.T) {
	// 16-bit with transparency: an 8-bit PNG with the same pixels.
	img := image.NewNRGBA64(image.Rect(0, 0, 32, 32))
	for y := range 32 {
		for x := 16; x < 32; x++ {
			img.SetNRGBA64(x, y, color.NRGBA64{R: 0x1400, G: 0xC800, B: 0x1400, A: 0xFFFF})
		}
	}
	p, err := Process(encodePNG(t, img))
	if err != nil || p.ContentType != TypePNG {
		t.Fatalf("16-bit PNG: %v, %+v", err, p)
	}
	out := decodeAs(t, p.Data, TypePNG)
	if _, ok := out.(*image.NRGBA); !ok {
		t.Errorf("stored a %T, want 8-bit NRGBA", out)
	}
	if _, _, _, a := out.At(3, 3).RGBA(); a != 0 {
		t.Errorf("transparent half has alpha %d", a)
	}
	if c := out.At(20, 3); !near(c, color.NRGBA{20, 200, 20, 255}, 1) {
		t.Errorf("green half is %v", c)
	}

	// CMYK: a JPEG of the same grey.
	p, err = Process(progressiveJPEG(64, 48, 4))
	if err != nil || p.ContentType != TypeJPEG || p.Width != 64 || p.Height != 48 {
		t.Fatalf("CMYK JPEG: %v, %+v", err, p)
	}
	want := color.NRGBAModel.Convert(color.CMYK{C: 127, M: 127, Y: 127, K: 127}).(color.NRGBA)
	if c := decodeAs(t, p.Data, TypeJPEG).At(10, 10); !near(c, want, 4) {
		t.Errorf("CMYK grey came out as %v, want about %v", c, want)
	}
}
