package photos

import "encoding/binary"

// jpegOrientation returns the EXIF orientation (1..8) of a JPEG, or 1 when
// it has none or the EXIF block is malformed. It reads only the APP1 "Exif"
// segment's first IFD for tag 0x0112: the one tag the re-encode would
// otherwise lose and that changes how the photo looks.
func jpegOrientation(data []byte) int {
	if len(data) < 4 || data[0] != 0xFF || data[1] != 0xD8 {
		return 1
	}
	i := 2
	for i+4 <= len(data) {
		if data[i] != 0xFF {
			return 1
		}
		marker := data[i+1]
		switch {
		case marker == 0xFF: // fill byte
			i++
			continue
		case marker == 0xD8 || marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7):
			i += 2 // markers without a length
			continue
		case marker == 0xDA || marker == 0xD9:
			return 1 // image data starts: EXIF comes before it or not at all
		}
		n := int(binary.BigEndian.Uint16(data[i+2 : i+4]))
		if n < 2 || i+2+n > len(data) {
			return 1
		}
		seg := data[i+4 : i+2+n]
		if marker == 0xE1 && len(seg) >= 6 && string(seg[:6]) == "Exif\x00\x00" {
			if o := tiffOrientation(seg[6:]); o != 0 {
				return o
			}
		}
		i += 2 + n
	}
	return 1
}

// tiffOrientation reads the orientation tag from IFD0 of a TIFF structure;
// 0 means not found or invalid.
func tiffOrientation(t []byte) int {
	if len(t) < 8 {
		return 0
	}
	var bo binary.ByteOrder
	switch string(t[:2]) {
	case "II":
		bo = binary.LittleEndian
	case "MM":
		bo = binary.BigEndian
	default:
		return 0
	}
	if bo.Uint16(t[2:4]) != 42 {
		return 0
	}
	off := uint64(bo.Uint32(t[4:8]))
	if off+2 > uint64(len(t)) {
		return 0
	}
	count := int(bo.Uint16(t[off : off+2]))
	entries := t[off+2:]
	for k := 0; k < count && (k+1)*12 <= len(entries); k++ {
		e := entries[k*12 : (k+1)*12]
		if bo.Uint16(e[0:2]) != 0x0112 {
			continue
		}
		// SHORT, count 1: the value sits in the first two bytes of the
		// value field.
		if bo.Uint16(e[2:4]) != 3 || bo.Uint32(e[4:8]) != 1 {
			return 0
		}
		if v := int(bo.Uint16(e[8:10])); v >= 1 && v <= 8 {
			return v
		}
		return 0
	}
	return 0
}
