// Package photos holds uploaded images, listing photos and avatars:
// checking and cleaning them, storing them (local directory or
// S3-compatible bucket), signing the upload URLs handed out and serving the
// stored bytes.
//
// A PUT to an upload URL is wired as:
//
//	owner, err := signer.Verify(id, token, clock.Now())  // then claim the upload row (single use)
//	p, err := intake.Receive(ctx, r.Body, r.ContentLength, photos.PhotoKind)  // read, check, re-encode
//	saved, err := photos.Save(ctx, store, id, p)
//
// and a GET of a photo as photos.ServeObject(w, r, store, key).
package photos

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"image/png"
	"io"

	"github.com/disintegration/imaging"
	"golang.org/x/image/webp"

	"marketplace/internal/market"
)

// Limits on what an upload may be. The pixel limits are checked from the
// image header before any pixel buffer is allocated, so a small file that
// claims huge dimensions (a decompression bomb) costs nothing.
const (
	MaxUploadBytes = 10 << 20   // 10 MiB
	MinSide        = 16         // px, each side
	MaxSide        = 12000      // px, each side
	MaxPixels      = 40_000_000 // width*height
	ThumbSide      = 400        // px, longest side of a thumbnail
	PhotoQuality   = 85         // JPEG quality of a stored photo
	ThumbQuality   = 80         // JPEG quality of a thumbnail
)

// Content types of what Process produces.
const (
	TypeJPEG = "image/jpeg"
	TypePNG  = "image/png"
	TypeWebP = "image/webp"
)

// Processed is a checked upload, re-encoded without any metadata, and its
// thumbnail.
type Processed struct {
	SourceType  string // what the upload really was: image/jpeg, image/png or image/webp
	ContentType string // of Data: image/jpeg, or image/png for an image with transparency
	Data        []byte
	Width       int // of Data, after the EXIF orientation was applied
	Height      int

	ThumbContentType string // always image/jpeg
	Thumb            []byte
	ThumbWidth       int
	ThumbHeight      int
}

// Size is the stored photo's size in bytes.
func (p *Processed) Size() int { return len(p.Data) }

// ThumbSize is the thumbnail's size in bytes.
func (p *Processed) ThumbSize() int { return len(p.Thumb) }

// Ext is the file extension matching ContentType (".jpg" or ".png").
func (p *Processed) Ext() string {
	if p.ContentType == TypePNG {
		return ".png"
	}
	return ".jpg"
}

// ReadLimited reads an upload body, refusing one over MaxUploadBytes with
// PAYLOAD_TOO_LARGE without reading more than one byte past the limit.
func ReadLimited(r io.Reader) ([]byte, error) {
	return readUpTo(r, nil, -1, MaxUploadBytes)
}

// signatureLen is how many bytes sniff needs to tell an accepted format.
const signatureLen = 12

// ReadImage reads an upload body like ReadLimited, but stops after the
// first bytes when they are not the signature of an accepted format: junk
// is refused without being held in memory. sizeHint (the Content-Length,
// or -1) sizes the buffer once instead of letting it double as it grows,
// and one over the limit is refused before anything is read.
func ReadImage(r io.Reader, sizeHint int64) ([]byte, error) {
	return ReadImageLimit(r, sizeHint, MaxUploadBytes)
}

// ReadImageLimit is ReadImage with a limit of its own (at most
// MaxUploadBytes): an avatar is refused past MaxAvatarBytes.
func ReadImageLimit(r io.Reader, sizeHint int64, limit int) ([]byte, error) {
	limit = min(limit, MaxUploadBytes)
	if sizeHint > int64(limit) { // the request says so: nothing to read
		return nil, tooLarge(limit)
	}
	head := make([]byte, signatureLen)
	n, err := io.ReadFull(r, head)
	switch {
	case n == 0 && (err == io.EOF || err == io.ErrUnexpectedEOF):
		return nil, invalid("the file is empty")
	case err != nil && err != io.ErrUnexpectedEOF:
		return nil, unreadable()
	}
	if _, ok := sniff(head[:n]); !ok {
		return nil, invalid("the file is not a JPEG, PNG or WebP image")
	}
	return readUpTo(r, head[:n], sizeHint, limit)
}

// readUpTo reads r after head into one buffer, limit bytes at most (one
// byte more tells the body is too large).
func readUpTo(r io.Reader, head []byte, sizeHint int64, limit int) ([]byte, error) {
	size := limit + 1
	if sizeHint >= int64(len(head)) && sizeHint < int64(size) {
		size = int(sizeHint) + 1 // one byte more sees the end
	}
	data := append(make([]byte, 0, size), head...)
	for len(data) <= limit {
		if len(data) == cap(data) { // the hint was short: grow, within the limit
			data = append(data, 0)[:len(data)]
		}
		n, err := r.Read(data[len(data):min(cap(data), limit+1)])
		data = data[:len(data)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, unreadable()
		}
	}
	if len(data) > limit {
		return nil, tooLarge(limit)
	}
	return data, nil
}

func unreadable() error {
	return market.Invalid(market.FieldError{Field: "file", Message: "the upload could not be read"})
}

// tooLarge refuses a file over limit bytes (a whole number of MiB).
func tooLarge(limit int) error {
	mib := limit >> 20
	e := market.Errorf(market.CodePayloadTooLarge, "the file is larger than %d MiB", mib)
	e.Fields = []market.FieldError{{Field: "file", Message: fmt.Sprintf("must be at most %d MiB", mib)}}
	return e
}

func invalid(format string, args ...any) error {
	return market.Invalid(market.FieldError{Field: "file", Message: fmt.Sprintf(format, args...)})
}

// format is one accepted input format.
type format struct {
	contentType  string
	name         string
	decodeConfig func(io.Reader) (image.Config, error)
	decode       func(io.Reader) (image.Image, error)
}

// The decoders are called directly rather than through image.Decode, whose
// registry also holds GIF, BMP and TIFF (imaging registers them).
var (
	formatJPEG = format{TypeJPEG, "JPEG", jpeg.DecodeConfig, jpeg.Decode}
	formatPNG  = format{TypePNG, "PNG", png.DecodeConfig, png.Decode}
	formatWebP = format{TypeWebP, "WebP", webp.DecodeConfig, webp.Decode}
)

// sniff tells the format from the content's signature; the client's
// Content-Type and file name are never trusted.
func sniff(data []byte) (format, bool) {
	switch {
	case len(data) >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF:
		return formatJPEG, true
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return formatPNG, true
	case len(data) >= 12 && string(data[0:4]) == "RIFF" && string(data[8:12]) == "WEBP":
		return formatWebP, true
	}
	return format{}, false
}

// ProcessBytesPerPixel bounds what Process allocates for an image, per
// pixel of it, garbage included: 40 MP at most, so at most ~1.6 GB. The
// costliest inputs are small files: a progressive JPEG (the decoder keeps
// 4 bytes of coefficients per pixel and component besides the image) with
// an EXIF rotation (a rotated copy), and an interlaced 16-bit PNG with
// transparency (a pass buffer besides the 8-byte pixels, and an encoder
// that allocates for every pixel). An ordinary photo (baseline JPEG)
// takes under 10; the worst measured (a rotated progressive CMYK JPEG) 35.
// TestProcessMemoryPerPixel measures the worst cases against it; callers
// bound how many decodes run at once by it.
const ProcessBytesPerPixel = 40

// check reads what an upload claims to be from its header alone: the real
// format must be JPEG, PNG or WebP, the dimensions within the limits. It
// allocates no pixels.
func check(data []byte) (format, image.Config, error) {
	if len(data) > MaxUploadBytes {
		return format{}, image.Config{}, tooLarge(MaxUploadBytes)
	}
	if len(data) == 0 {
		return format{}, image.Config{}, invalid("the file is empty")
	}
	f, ok := sniff(data)
	if !ok {
		return format{}, image.Config{}, invalid("the file is not a JPEG, PNG or WebP image")
	}
	cfg, err := safeConfig(f, data)
	if err != nil {
		return format{}, image.Config{}, invalid("the file is not a valid %s image", f.name)
	}
	if err := checkDimensions(cfg.Width, cfg.Height); err != nil {
		return format{}, image.Config{}, err
	}
	return f, cfg, nil
}

// Process checks an uploaded image (as Check does) and prepares it for
// storage: the pixels are decoded, turned upright by the JPEG's EXIF
// orientation and re-encoded, so no metadata (EXIF with GPS, XMP, ICC
// profiles, comments, text chunks) survives. Opaque images become JPEG;
// images with transparency become PNG.
//
// Memory: up to ProcessBytesPerPixel bytes a pixel, ~1.6 GB for the
// largest accepted image, so callers bound how many decodes run at once.
func Process(data []byte) (*Processed, error) {
	f, cfg, err := check(data)
	if err != nil {
		return nil, err
	}
	img, err := decodeUpright(f, cfg, data)
	if err != nil {
		return nil, err
	}

	out := &Processed{SourceType: f.contentType, ThumbContentType: TypeJPEG}
	b := img.Bounds()
	out.Width, out.Height = b.Dx(), b.Dy()

	var buf bytes.Buffer
	transparent := !isOpaque(img)
	if transparent {
		out.ContentType = TypePNG
		err = png.Encode(&buf, img)
	} else {
		out.ContentType = TypeJPEG
		err = jpeg.Encode(&buf, jpegSource(img), &jpeg.Options{Quality: PhotoQuality})
	}
	if err != nil {
		return nil, market.Internal(fmt.Errorf("encode photo: %w", err))
	}
	out.Data = buf.Bytes()

	thumb := imaging.Fit(img, ThumbSide, ThumbSide, imaging.Lanczos)
	if transparent {
		// JPEG has no alpha: put the thumbnail on white rather than let
		// transparent pixels turn black.
		tb := thumb.Bounds()
		bg := imaging.New(tb.Dx(), tb.Dy(), color.White)
		thumb = imaging.Overlay(bg, thumb, image.Point{}, 1)
	}
	var tbuf bytes.Buffer
	if err := jpeg.Encode(&tbuf, thumb, &jpeg.Options{Quality: ThumbQuality}); err != nil {
		return nil, market.Internal(fmt.Errorf("encode thumbnail: %w", err))
	}
	out.Thumb = tbuf.Bytes()
	out.ThumbWidth, out.ThumbHeight = thumb.Bounds().Dx(), thumb.Bounds().Dy()
	return out, nil
}

// decodeUpright decodes an image check accepted into a type the encoders
// read a row at a time (flatten), turned upright by a JPEG's EXIF
// orientation.
func decodeUpright(f format, cfg image.Config, data []byte) (image.Image, error) {
	img, err := safeDecode(f, data)
	if err != nil {
		return nil, invalid("the %s image is damaged or truncated", f.name)
	}
	// Decoders check the pixel data against the header, but the buffer
	// actually returned is what the rest of the work sizes from.
	if b := img.Bounds(); b.Dx() != cfg.Width || b.Dy() != cfg.Height {
		return nil, invalid("the %s image is damaged", f.name)
	}
	img = flatten(img)
	if f.contentType == TypeJPEG {
		img = orient(img, jpegOrientation(data))
	}
	return img, nil
}

func checkDimensions(w, h int) error {
	switch {
	case w < MinSide || h < MinSide:
		return invalid("the image is %dx%d pixels; each side must be at least %d", w, h, MinSide)
	case w > MaxSide || h > MaxSide:
		return invalid("the image is %dx%d pixels; each side must be at most %d", w, h, MaxSide)
	case int64(w)*int64(h) > MaxPixels:
		return invalid("the image is %dx%d pixels; at most %d megapixels are accepted", w, h, MaxPixels/1_000_000)
	}
	return nil
}

// safeConfig and safeDecode turn a panic inside a third-party decoder into
// an ordinary error: a hostile file must never take the process down.
func safeConfig(f format, data []byte) (cfg image.Config, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("decoder panic: %v", r)
		}
	}()
	return f.decodeConfig(bytes.NewReader(data))
}

func safeDecode(f format, data []byte) (img image.Image, err error) {
	defer func() {
		if r := recover(); r != nil {
			img, err = nil, fmt.Errorf("decoder panic: %v", r)
		}
	}()
	return f.decode(bytes.NewReader(data))
}

// flatten turns a decoded image into a type that imaging and the encoders
// read a row at a time: *image.YCbCr, *image.Gray, *image.RGBA,
// *image.NRGBA or *image.Paletted. Any other (CMYK, 16-bit, WebP's
// NYCbCrA) they read a pixel at a time through image.At, which allocates
// for every pixel, again in every pass (rotation, encoding, thumbnail):
// hundreds of MB of garbage for a large image, where one 8-bit copy costs
// 4 bytes a pixel. (Stored photos are 8 bits a channel.)
func flatten(img image.Image) image.Image {
	switch img.(type) {
	case *image.YCbCr, *image.Gray, *image.RGBA, *image.NRGBA, *image.Paletted:
		return img
	}
	b := img.Bounds()
	out := image.NewNRGBA(b)
	draw.Draw(out, b, img, b.Min, draw.Src) // through RGBA64At: no allocation per pixel
	return out
}

// jpegSource hands jpeg.Encode an opaque image as a type it reads a row at
// a time (*image.YCbCr, *image.Gray, *image.RGBA); any other it reads
// through image.At, allocating for every pixel.
func jpegSource(img image.Image) image.Image {
	switch m := img.(type) {
	case *image.YCbCr, *image.Gray, *image.RGBA:
		return img
	case *image.NRGBA:
		// With every pixel opaque, non-premultiplied bytes are
		// premultiplied ones: the same pixels, no copy.
		return &image.RGBA{Pix: m.Pix, Stride: m.Stride, Rect: m.Rect}
	}
	b := img.Bounds() // an opaque paletted image
	out := image.NewRGBA(b)
	draw.Draw(out, b, img, b.Min, draw.Src)
	return out
}

// isOpaque reports whether every pixel is fully opaque. Every image type the
// decoders return has an Opaque method; anything else is treated as
// possibly transparent, which only costs a PNG instead of a JPEG.
func isOpaque(img image.Image) bool {
	if o, ok := img.(interface{ Opaque() bool }); ok {
		return o.Opaque()
	}
	return false
}

// orient turns an image upright according to its EXIF orientation (1..8).
func orient(img image.Image, o int) image.Image {
	switch o {
	case 2:
		return imaging.FlipH(img)
	case 3:
		return imaging.Rotate180(img)
	case 4:
		return imaging.FlipV(img)
	case 5:
		return imaging.Transpose(img)
	case 6:
		return imaging.Rotate270(img) // 90 degrees clockwise
	case 7:
		return imaging.Transverse(img)
	case 8:
		return imaging.Rotate90(img) // 90 degrees counter-clockwise
	}
	return img
}
