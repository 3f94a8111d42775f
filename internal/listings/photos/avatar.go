package photos

import (
	"bytes"
	"fmt"
	"image/jpeg"
	"image/png"

	"github.com/disintegration/imaging"

	"marketplace/internal/market"
)

// An avatar is checked like a photo, but it must be a JPEG or PNG of at
// most MaxAvatarBytes, and it is stored as an AvatarSide square.
const (
	MaxAvatarBytes = 5 << 20 // 5 MiB
	AvatarSide     = 256     // px, each side of a stored avatar
)

// ProcessAvatar checks an uploaded avatar as Process checks a photo (the
// content decides the format; the header's dimensions are bounded before
// any pixel is decoded; the pixels are decoded, not just the header), then
// crops its centre to a square and scales that to AvatarSide pixels a side.
// The re-encoding leaves every piece of metadata behind: opaque images
// become JPEG, images with transparency PNG. There is no thumbnail.
func ProcessAvatar(data []byte) (*Processed, error) {
	if len(data) > MaxAvatarBytes {
		return nil, tooLarge(MaxAvatarBytes)
	}
	f, cfg, err := check(data)
	if err != nil {
		return nil, err
	}
	if f.contentType != TypeJPEG && f.contentType != TypePNG {
		return nil, invalid("the file is a %s image; an avatar must be a JPEG or PNG", f.name)
	}
	img, err := decodeUpright(f, cfg, data)
	if err != nil {
		return nil, err
	}
	// Fill scales the shorter side to AvatarSide and cuts the longer one
	// around the centre.
	square := imaging.Fill(img, AvatarSide, AvatarSide, imaging.Center, imaging.Lanczos)

	out := &Processed{SourceType: f.contentType, Width: AvatarSide, Height: AvatarSide}
	var buf bytes.Buffer
	if isOpaque(square) {
		out.ContentType = TypeJPEG
		err = jpeg.Encode(&buf, jpegSource(square), &jpeg.Options{Quality: PhotoQuality})
	} else {
		out.ContentType = TypePNG
		err = png.Encode(&buf, square)
	}
	if err != nil {
		return nil, market.Internal(fmt.Errorf("encode avatar: %w", err))
	}
	out.Data = buf.Bytes()
	return out, nil
}

// AvatarKey is the store key of an uploaded avatar of contentType.
func AvatarKey(uploadID, contentType string) string {
	if contentType == TypePNG {
		return "avatars/" + uploadID + ".png"
	}
	return "avatars/" + uploadID + ".jpg"
}
