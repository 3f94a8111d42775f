package shipping

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"marketplace/internal/accounts"
	"marketplace/internal/market"
)

// LabelInput is what a shipping label shows.
type LabelInput struct {
	From, To                         accounts.Address
	FromName, ToName                 string // override the addresses' own Name when set
	Carrier, Service, TrackingNumber string
	WeightOz                         int
	OrderID                          string
	Created                          time.Time
}

// Page and layout of the label, in points: a 4 x 6 inch thermal label.
const (
	labelW      = 288.0
	labelH      = 432.0
	labelMargin = 14.0
	labelInner  = labelW - 2*labelMargin

	barcodeBottom = 112.0
	barcodeHeight = 64.0
	// barcodeQuiet is the blank margin Code 128 needs each side, in modules.
	barcodeQuiet = 10
	maxModulePt  = 2.0
)

// MaxLabelTracking is the longest tracking number a label barcodes: longer
// ones would print bars too thin to scan on a 4-inch label.
const MaxLabelTracking = 40

// maxLabelRunes bounds how much of any one field is looked at; whatever the
// layout cannot fit is cut anyway.
const maxLabelRunes = 200

// LabelPDF draws a 4 x 6 inch shipping label as a single-page PDF 1.4 in
// the base-14 Helvetica faces: carrier and service, the sender and the
// recipient, weight, order, creation date, and the tracking number as text
// and as a Code 128 barcode. Text is reduced to ASCII (accents stripped,
// anything else '?') and shrunk or cut to fit. The only error is a
// VALIDATION_ERROR on "tracking_number" when it is empty or longer than
// MaxLabelTracking.
func LabelPDF(in LabelInput) ([]byte, error) {
	tracking := strings.ReplaceAll(asciiText(in.TrackingNumber), " ", "")
	switch {
	case tracking == "":
		return nil, market.Invalid(market.FieldError{Field: "tracking_number", Message: "is required"})
	case len(tracking) > MaxLabelTracking:
		return nil, market.Invalid(market.FieldError{Field: "tracking_number",
			Message: fmt.Sprintf("must be at most %d characters", MaxLabelTracking)})
	}
	symbols := code128(tracking)

	var c canvas
	c.strokeRect(6, 6, labelW-12, labelH-12, 1)

	// Carrier and service, weight on the right.
	right := labelW - labelMargin
	c.fitText(helveticaBold, 30, 14, labelMargin, 392, 160, carrierTitle(in.Carrier))
	c.fitText(helveticaBold, 11, 7, labelMargin, 376, 160, asciiText(strings.ToUpper(strings.ReplaceAll(in.Service, "_", " "))))
	if w := weightText(in.WeightOz); w != "" {
		c.rightText(helveticaBold, 6.5, right, 404, "WEIGHT")
		c.rightText(helveticaBold, 12, right, 390, w)
	}
	c.line(labelMargin, 368, right, 368, 2)

	// Sender, small.
	y := 358.0
	c.text(helveticaBold, 6.5, labelMargin, y, "FROM")
	for _, l := range addressLines(in.FromName, in.From) {
		y -= 9.5
		c.fitText(helvetica, 8, 6, labelMargin, y, labelInner, l)
	}
	c.line(labelMargin, 302, right, 302, 1)

	// Recipient, large; the city line bold for the sorter.
	y = 290
	c.text(helveticaBold, 7, labelMargin, y, "SHIP TO")
	to := addressLines(in.ToName, in.To)
	for i, l := range to {
		face, size := helvetica, 12.0
		switch {
		case i == 0:
			face, size = helveticaBold, 13
		case l == cityLine(in.To):
			face, size = helveticaBold, 13
		}
		y -= size + 3
		c.fitText(face, size, size*0.6, labelMargin+8, y, labelInner-8, l)
	}
	c.line(labelMargin, 200, right, 200, 2)

	// Tracking number, as bars and as text.
	c.text(helveticaBold, 7, labelMargin, 188, "TRACKING #")
	c.barcode(symbols, labelMargin, barcodeBottom, labelInner, barcodeHeight)
	c.centerText(helveticaBold, 11, labelW/2, 96, labelInner, tracking)
	c.line(labelMargin, 84, right, 84, 1)

	// Order and date.
	date := labelDate(in.Created)
	dateW := 0.0
	if date != "" {
		c.rightText(helveticaBold, 6.5, right, 72, "CREATED")
		c.rightText(helvetica, 9, right, 61, date)
		dateW = helvetica.width(date, 9) + 12
	}
	if order := asciiText(in.OrderID); order != "" {
		c.text(helveticaBold, 6.5, labelMargin, 72, "ORDER")
		c.fitText(helvetica, 9, 6, labelMargin, 61, labelInner-dateW, order)
	}

	title := "Shipping label " + tracking
	return pdfDocument(c.b.Bytes(), title, in.Created), nil
}

// carrierTitle is how the carrier's name is printed.
func carrierTitle(carrier string) string {
	switch c, _ := NormalizeCarrier(carrier); c {
	case CarrierUSPS:
		return "USPS"
	case CarrierUPS:
		return "UPS"
	case CarrierFedEx:
		return "FedEx"
	case CarrierDHL:
		return "DHL"
	}
	return asciiText(strings.ToUpper(carrier))
}

// weightText is "2 LB 4 OZ", "12 OZ", or "" for no weight.
func weightText(oz int) string {
	switch {
	case oz <= 0:
		return ""
	case oz < 16:
		return strconv.Itoa(oz) + " OZ"
	case oz%16 == 0:
		return strconv.Itoa(oz/16) + " LB"
	}
	return fmt.Sprintf("%d LB %d OZ", oz/16, oz%16)
}

// labelDate is the day the label was made, in UTC, or "" when unknown or
// beyond what a four-digit year can say.
func labelDate(t time.Time) string {
	if t.IsZero() || t.UTC().Year() < 1 || t.UTC().Year() > 9999 {
		return ""
	}
	return t.UTC().Format("2006-01-02")
}

// cityLine is "City, ST 12345" with whatever parts the address has.
func cityLine(a accounts.Address) string {
	city, state, zip := asciiText(a.City), asciiText(a.State), asciiText(a.Zip)
	line := strings.TrimSpace(state + " " + zip)
	if city != "" && line != "" {
		return city + ", " + line
	}
	return city + line
}

// addressLines are the printed lines of an address under name (the
// address's own name when name is empty). The country is printed only for
// an address outside the US.
func addressLines(name string, a accounts.Address) []string {
	if strings.TrimSpace(name) == "" {
		name = a.Name
	}
	var out []string
	for _, l := range []string{asciiText(name), asciiText(a.Line1), asciiText(a.Line2), cityLine(a)} {
		if l != "" {
			out = append(out, l)
		}
	}
	switch country := asciiText(strings.ToUpper(a.Country)); country {
	case "", "US", "USA", "UNITED STATES":
	default:
		out = append(out, country)
	}
	return out
}

// asciiLetters spells the letters that have no decomposition to ASCII, and
// the typographic marks that have a plain one.
var asciiLetters = map[rune]string{
	'ß': "ss", 'æ': "ae", 'Æ': "AE", 'œ': "oe", 'Œ': "OE", 'ø': "o", 'Ø': "O",
	'ł': "l", 'Ł': "L", 'đ': "d", 'Đ': "D", 'ð': "d", 'Ð': "D", 'þ': "th", 'Þ': "Th",
	'ı': "i", 'ħ': "h", 'Ħ': "H",
	'‘': "'", '’': "'", '‚': "'", '′': "'", '“': `"`, '”': `"`, '„': `"`, '″': `"`, '«': `"`, '»': `"`,
	'‐': "-", '‑': "-", '‒': "-", '–': "-", '—': "-", '−': "-", '•': "*", '·': ".", '×': "x",
}

// asciiText reduces s to what the label fonts print: compatibility forms
// decomposed and accents dropped (é → e, ﬁ → fi), a few letters spelled out
// (ß → ss), white space and control characters made single spaces, and
// anything else '?'. Only the first maxLabelRunes characters are kept.
func asciiText(s string) string {
	if utf8.RuneCountInString(s) > maxLabelRunes {
		i, n := 0, 0
		for i = range s {
			if n == maxLabelRunes {
				break
			}
			n++
		}
		s = s[:i]
	}
	var b strings.Builder
	for _, r := range norm.NFKD.String(s) {
		switch {
		case r >= ' ' && r <= '~':
			b.WriteRune(r)
		case unicode.Is(unicode.Mn, r):
		case unicode.IsSpace(r) || unicode.IsControl(r):
			b.WriteByte(' ')
		case asciiLetters[r] != "":
			b.WriteString(asciiLetters[r])
		default:
			b.WriteByte('?')
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// font is one base-14 face with its advance widths (thousandths of the em)
// for the printable ASCII characters in WinAnsiEncoding, from Adobe's
// metrics.
type font struct {
	resource string
	widths   *[95]int
}

var (
	helvetica     = font{"F1", &helveticaWidths}
	helveticaBold = font{"F2", &helveticaBoldWidths}
)

// width of s set in f at size points; s is printable ASCII.
func (f font) width(s string, size float64) float64 {
	w := 0
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= ' ' && c <= '~' {
			w += f.widths[c-' ']
		}
	}
	return float64(w) * size / 1000
}

// fit cuts s, marking the cut with "...", until it is at most maxW wide.
func (f font) fit(s string, size, maxW float64) string {
	if f.width(s, size) <= maxW {
		return s
	}
	for n := len(s) - 1; n > 0; n-- {
		if t := strings.TrimRight(s[:n], " ") + "..."; f.width(t, size) <= maxW {
			return t
		}
	}
	return ""
}

var helveticaWidths = [95]int{
	278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, // space - /
	556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556, // 0 - ?
	1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778, // @ - O
	667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556, // P - _
	333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, // ` - o
	556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584, // p - ~
}

var helveticaBoldWidths = [95]int{
	278, 333, 474, 556, 556, 889, 722, 238, 333, 333, 389, 584, 278, 333, 278, 278,
	556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 333, 333, 584, 584, 584, 611,
	975, 722, 722, 722, 722, 667, 611, 778, 722, 278, 556, 722, 611, 833, 722, 778,
	667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 333, 278, 333, 584, 556,
	333, 556, 611, 556, 611, 556, 333, 611, 611, 278, 278, 556, 278, 889, 611, 611,
	611, 611, 389, 556, 333, 611, 556, 778, 556, 556, 500, 389, 280, 389, 584,
}

// canvas collects the operators of the page's content stream.
type canvas struct{ b bytes.Buffer }

// num writes a coordinate with at most three decimals.
func num(v float64) string {
	s := strconv.FormatFloat(v, 'f', 3, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "" || s == "-" {
		return "0"
	}
	return s
}

// pdfString is s as a PDF literal string; s is printable ASCII.
func pdfString(s string) string {
	return "(" + strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`).Replace(s) + ")"
}

func (c *canvas) text(f font, size, x, y float64, s string) {
	if s == "" {
		return
	}
	fmt.Fprintf(&c.b, "BT /%s %s Tf %s %s Td %s Tj ET\n", f.resource, num(size), num(x), num(y), pdfString(s))
}

// fitText sets s at size, or smaller down to minSize, and cut when even
// that is wider than maxW.
func (c *canvas) fitText(f font, size, minSize, x, y, maxW float64, s string) {
	for size > minSize && f.width(s, size) > maxW {
		size = max(size-0.5, minSize)
	}
	c.text(f, size, x, y, f.fit(s, size, maxW))
}

func (c *canvas) rightText(f font, size, right, y float64, s string) {
	c.text(f, size, right-f.width(s, size), y, s)
}

func (c *canvas) centerText(f font, size, center, y, maxW float64, s string) {
	for size > 6 && f.width(s, size) > maxW {
		size -= 0.5
	}
	s = f.fit(s, size, maxW)
	c.text(f, size, center-f.width(s, size)/2, y, s)
}

func (c *canvas) line(x1, y1, x2, y2, width float64) {
	fmt.Fprintf(&c.b, "%s w %s %s m %s %s l S\n", num(width), num(x1), num(y1), num(x2), num(y2))
}

func (c *canvas) strokeRect(x, y, w, h, width float64) {
	fmt.Fprintf(&c.b, "%s w %s %s %s %s re S\n", num(width), num(x), num(y), num(w), num(h))
}

// barcode draws the Code 128 symbols centred in a box of width maxW, one
// filled rectangle a bar, with the quiet zones inside the box.
func (c *canvas) barcode(symbols []int, x, y, maxW, h float64) {
	modules := 0
	for _, s := range symbols {
		for _, w := range code128Patterns[s] {
			modules += int(w - '0')
		}
	}
	m := min(maxW/float64(modules+2*barcodeQuiet), maxModulePt)
	pos := x + (maxW-m*float64(modules))/2
	for _, s := range symbols {
		for i, w := range code128Patterns[s] {
			width := m * float64(w-'0')
			if i%2 == 0 {
				fmt.Fprintf(&c.b, "%s %s %s %s re\n", num(pos), num(y), num(width), num(h))
			}
			pos += width
		}
	}
	c.b.WriteString("f\n")
}

// Code 128 symbol values with a meaning of their own.
const (
	code128CodeB  = 100 // in code set C: switch to code set B
	code128StartB = 104
	code128StartC = 105
	code128Stop   = 106
)

// code128 encodes s (printable ASCII) as Code 128 symbol values: start,
// data, checksum, stop. Digit strings go in code set C, two digits a
// symbol, an odd last digit after a switch to set B; anything else in set
// B. The checksum is the start value plus each data value times its
// position (from 1), modulo 103.
func code128(s string) []int {
	var v []int
	if len(s) >= 4 && allDigits(s) {
		v = append(v, code128StartC)
		for i := 0; i+1 < len(s); i += 2 {
			v = append(v, int(s[i]-'0')*10+int(s[i+1]-'0'))
		}
		if len(s)%2 == 1 {
			v = append(v, code128CodeB, int(s[len(s)-1])-' ')
		}
	} else {
		v = append(v, code128StartB)
		for i := 0; i < len(s); i++ {
			v = append(v, int(s[i])-' ')
		}
	}
	sum := v[0]
	for i := 1; i < len(v); i++ {
		sum += i * v[i]
	}
	return append(v, sum%103, code128Stop)
}

// code128Patterns are the bar and space widths, in modules, of each symbol
// value, bar first: eleven modules a symbol, thirteen for the stop.
var code128Patterns = [107]string{
	"212222", "222122", "222221", "121223", "121322", "131222", "122213", "122312", "132212", "221213",
	"221312", "231212", "112232", "122132", "122231", "113222", "123122", "123221", "223211", "221132",
	"221231", "213212", "223112", "312131", "311222", "321122", "321221", "312212", "322112", "322211",
	"212123", "212321", "232121", "111323", "131123", "131321", "112313", "132113", "132311", "211313",
	"231113", "231311", "112133", "112331", "132131", "113123", "113321", "133121", "313121", "211331",
	"231131", "213113", "213311", "213131", "311123", "311321", "331121", "312113", "312311", "332111",
	"314111", "221411", "431111", "111224", "111422", "121124", "121421", "141122", "141221", "112214",
	"112412", "122114", "122411", "142112", "142211", "241211", "221114", "413111", "241112", "134111",
	"111242", "121142", "121241", "114212", "124112", "124211", "411212", "421112", "421211", "212141",
	"214121", "412121", "111143", "111341", "131141", "114113", "114311", "411113", "411311", "113141",
	"114131", "311141", "411131", "211412", "211214", "211232", "2331112",
}

// pdfDocument wraps one page's content stream in a PDF 1.4 file: catalog,
// page tree, page, the two fonts (base-14, not embedded), the stream and
// the document information, with the cross-reference table pointing at
// each object.
func pdfDocument(content []byte, title string, created time.Time) []byte {
	info := "<< /Producer (marketplace) /Title " + pdfString(title)
	if d := labelDate(created); d != "" {
		info += " /CreationDate " + pdfString("D:"+created.UTC().Format("20060102150405")+"Z")
	}
	info += " >>"
	objects := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %s %s] /Resources << /Font << /F1 4 0 R /F2 5 0 R >> >> /Contents 6 0 R >>",
			num(labelW), num(labelH)),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
		info,
	}
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objects))
	for i, o := range objects {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	// Each entry is exactly 20 bytes, its end of line a space and a newline.
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objects)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R /Info 7 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objects)+1, xref)
	return b.Bytes()
}
