package shipping

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/market"
)

func sampleLabel() LabelInput {
	return LabelInput{
		From: accounts.Address{Name: "Ada Seller", Line1: "100 Congress Ave", Line2: "Suite 200",
			City: "Austin", State: "TX", Zip: "78701", Country: "US"},
		To: accounts.Address{Name: "Bob Buyer", Line1: "1 Main St", City: "Brooklyn", State: "NY",
			Zip: "11201", Country: "US"},
		Carrier: "ups", Service: "ground", TrackingNumber: "1Z5R89390357567127",
		WeightOz: 36, OrderID: "0d7c8a8e-3f7b-4c1e-9a51-2b6a1d2c9e10",
		Created: time.Date(2025, 3, 4, 15, 4, 5, 0, time.UTC),
	}
}

func TestLabelPDF(t *testing.T) {
	pdf, err := LabelPDF(sampleLabel())
	if err != nil {
		t.Fatal(err)
	}
	content := parsePDF(t, pdf)
	texts := showStrings(t, content)
	for _, want := range []string{
		"UPS", "GROUND", "2 LB 4 OZ", "FROM", "Ada Seller", "100 Congress Ave", "Suite 200", "Austin, TX 78701",
		"SHIP TO", "Bob Buyer", "1 Main St", "Brooklyn, NY 11201", "1Z5R89390357567127",
		"0d7c8a8e-3f7b-4c1e-9a51-2b6a1d2c9e10", "2025-03-04",
	} {
		if !slices.Contains(texts, want) {
			t.Errorf("label lacks %q; has %q", want, texts)
		}
	}
	if !bytes.Contains(pdf, []byte("/MediaBox [0 0 288 432]")) || !bytes.Contains(pdf, []byte("/BaseFont /Helvetica ")) {
		t.Error("not a 4x6 page in Helvetica")
	}
	if !bytes.Contains(pdf, []byte("/CreationDate (D:20250304150405Z)")) {
		t.Error("no creation date")
	}
	if got := decodeBarcode(t, content); got != "1Z5R89390357567127" {
		t.Errorf("barcode reads %q", got)
	}
	again, _ := LabelPDF(sampleLabel())
	if !bytes.Equal(pdf, again) {
		t.Error("same input, different PDF")
	}
	checkWithQPDF(t, pdf)
}

// Numeric tracking numbers are barcoded in code set C, and still read back.
func TestLabelBarcodeNumeric(t *testing.T) {
	for _, n := range []string{"9400111201080805483016", "041441760228964", "986578788855", "RB123456785US", "3318810025"} {
		in := sampleLabel()
		in.Carrier, in.TrackingNumber = "usps", n
		pdf, err := LabelPDF(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := decodeBarcode(t, parsePDF(t, pdf)); got != n {
			t.Errorf("barcode of %s reads %q", n, got)
		}
	}
}

func TestLabelHostileInput(t *testing.T) {
	long := strings.Repeat("Wolfeschlegelsteinhausenbergerdorff ", 300)
	in := sampleLabel()
	in.FromName = `Evil (Name)) \ ((( ) \) endstream %%EOF`
	in.ToName = "Zoë Ørsted-Łukasz “Quote” 東京 ﬁsh\x00\t\nnext"
	in.From.Line1 = long
	in.To.Line1 = strings.Repeat(")", 500)
	in.To.Line2 = strings.Repeat(`\`, 501)
	in.To.City = "São Paulo"
	in.To.Country = "Brasil"
	in.Service = "next_day_air (saver)"
	in.Carrier = "Über Freight \\ ("
	in.OrderID = long
	in.WeightOz = -5
	in.Created = time.Time{}
	in.TrackingNumber = "AB(12)\\34"
	pdf, err := LabelPDF(in)
	if err != nil {
		t.Fatal(err)
	}
	content := parsePDF(t, pdf)
	texts := showStrings(t, content)
	for _, want := range []string{
		`Evil (Name)) \ ((( ) \) endstream %%EOF`,
		`Zoe Orsted-Lukasz "Quote" ?? fish next`,
		"Sao Paulo, NY 11201",
		"BRASIL",
		"NEXT DAY AIR (SAVER)",
		"AB(12)\\34",
	} {
		if !slices.Contains(texts, want) {
			t.Errorf("label lacks %q; has %q", want, texts)
		}
	}
	if !slices.ContainsFunc(texts, func(s string) bool { return strings.HasPrefix(s, "Wolfe") && strings.HasSuffix(s, "...") }) {
		t.Error("long line not cut")
	}
	if slices.ContainsFunc(texts, func(s string) bool { return strings.Contains(s, "OZ") || strings.Contains(s, "CREATED") }) {
		t.Error("weight or date printed without a value")
	}
	if got := decodeBarcode(t, content); got != "AB(12)\\34" {
		t.Errorf("barcode reads %q", got)
	}
	checkWithQPDF(t, pdf)
}

func TestLabelTrackingNumberRequired(t *testing.T) {
	for _, n := range []string{"", "  ", strings.Repeat("1", MaxLabelTracking+1)} {
		in := sampleLabel()
		in.TrackingNumber = n
		_, err := LabelPDF(in)
		assertFieldError(t, err, "tracking_number")
	}
	in := sampleLabel()
	in.TrackingNumber = strings.Repeat("7", MaxLabelTracking)
	if _, err := LabelPDF(in); err != nil {
		t.Fatal(err)
	}
}

func TestCode128(t *testing.T) {
	cases := []struct {
		in   string
		want []int
	}{
		// Set B: start 104, "W"=55, "i"=73 ... "a"=65; (104 + 55 + 2*73 + ... + 9*65) mod 103 = 3281 mod 103 = 88.
		{"Wikipedia", []int{104, 55, 73, 75, 73, 80, 69, 68, 73, 65, 88, 106}},
		{"1Z", []int{104, 17, 58, (104 + 17 + 2*58) % 103, 106}},
		{"123", []int{104, 17, 18, 19, (104 + 17 + 36 + 57) % 103, 106}},
		// Set C: pairs of digits; (105 + 12 + 2*34) mod 103 = 82.
		{"1234", []int{105, 12, 34, 82, 106}},
		// Odd digits: switch to B for the last one; (105+12+68+300+84) mod 103 = 54.
		{"12345", []int{105, 12, 34, 100, 21, 54, 106}},
	}
	for _, c := range cases {
		if got := code128(c.in); !slices.Equal(got, c.want) {
			t.Errorf("code128(%q) = %v, want %v", c.in, got, c.want)
		}
	}
	seen := map[string]bool{}
	for v, p := range code128Patterns {
		bars, spaces := 0, 0
		for i, w := range p {
			if i%2 == 0 {
				bars += int(w - '0')
			} else {
				spaces += int(w - '0')
			}
		}
		want := 11
		if v == code128Stop {
			want = 13
		}
		if bars+spaces != want || (v != code128Stop && (bars%2 != 0 || spaces%2 != 1)) || seen[p] {
			t.Errorf("pattern %d %q: %d bar and %d space modules, or a repeat", v, p, bars, spaces)
		}
		seen[p] = true
	}
}

func TestAsciiText(t *testing.T) {
	cases := map[string]string{
		"Crème Brûlée":          "Creme Brulee",
		"Straße":                "Strasse",
		"  a \t\n b  ":          "a b",
		"日本":                    "??",
		"ＡＢＣ１２３":                "ABC123",
		"“quoted” — dash…":      `"quoted" - dash...`,
		"bad \xff utf8":         "bad ? utf8",
		"emoji 📦":               "emoji ?",
		"Ångström Œuvre Ðóttir": "Angstrom OEuvre Dottir",
	}
	for in, want := range cases {
		if got := asciiText(in); got != want {
			t.Errorf("asciiText(%q) = %q, want %q", in, got, want)
		}
	}
	if got := asciiText(strings.Repeat("é", 10000)); len(got) != maxLabelRunes {
		t.Errorf("long input kept %d characters", len(got))
	}
}

func FuzzLabelPDF(f *testing.F) {
	f.Add("Ada (Seller)", "Bob \\ Buyer", "1 Main St", "Zoë", "78701", "ups", "ground", "1Z5R89390357567127", 36, "order-1", int64(1741100645))
	f.Add("", "", "", "", "", "", "", "1", 0, "", int64(0))
	f.Add(")))(((", "\x00\xff", "東京", "%%EOF", "endstream", "FedEx", "2_day", "9400111201080805483016", -1, "\\", int64(-62135596801))
	f.Fuzz(func(t *testing.T, fromName, toName, line1, city, zip, carrier, service, tracking string, weight int, order string, created int64) {
		in := LabelInput{
			From:     accounts.Address{Line1: line1, City: city, Zip: zip},
			To:       accounts.Address{Name: toName, Line1: line1, Line2: city, City: city, State: zip, Zip: zip, Country: service},
			FromName: fromName, Carrier: carrier, Service: service, TrackingNumber: tracking,
			WeightOz: weight, OrderID: order, Created: time.Unix(created, 0),
		}
		pdf, err := LabelPDF(in)
		if err != nil {
			if market.CodeOf(err) != market.CodeValidation {
				t.Fatalf("error %v", err)
			}
			n := strings.ReplaceAll(asciiText(tracking), " ", "")
			if n != "" && len(n) <= MaxLabelTracking {
				t.Fatalf("refused tracking number %q: %v", tracking, err)
			}
			return
		}
		content := parsePDF(t, pdf)
		showStrings(t, content)
		if got, want := decodeBarcode(t, content), strings.ReplaceAll(asciiText(tracking), " ", ""); got != want {
			t.Fatalf("barcode reads %q, want %q", got, want)
		}
	})
}

var (
	xrefEntry = regexp.MustCompile(`^(\d{10}) (\d{5}) ([nf])( \n|\r\n)$`)
	trailerRe = regexp.MustCompile(`(?s)trailer\n<< /Size (\d+) /Root 1 0 R /Info (\d+) 0 R >>\nstartxref\n(\d+)\n%%EOF\n$`)
	lengthRe  = regexp.MustCompile(`^<< /Length (\d+) >>\nstream\n`)
)

// parsePDF checks the file structure a reader relies on (header, trailer,
// startxref, a cross-reference table whose every entry points at "N 0 obj",
// a stream whose /Length ends at "endstream") and returns the page's content
// stream.
func parsePDF(t testing.TB, pdf []byte) string {
	t.Helper()
	if !bytes.HasPrefix(pdf, []byte("%PDF-1.4\n")) || !bytes.HasSuffix(pdf, []byte("%%EOF\n")) {
		t.Fatalf("not framed as a PDF 1.4 file: %q ... %q", pdf[:min(len(pdf), 10)], pdf[max(0, len(pdf)-10):])
	}
	m := trailerRe.FindSubmatch(pdf)
	if m == nil {
		t.Fatal("no trailer and startxref at the end")
	}
	size, _ := strconv.Atoi(string(m[1]))
	xref, _ := strconv.Atoi(string(m[3]))
	if xref <= 0 || xref >= len(pdf) || !bytes.HasPrefix(pdf[xref:], fmt.Appendf(nil, "xref\n0 %d\n", size)) {
		t.Fatalf("startxref %d does not point at an xref table of %d entries", xref, size)
	}
	table := pdf[xref+len(fmt.Sprintf("xref\n0 %d\n", size)):]
	var content string
	for i := range size {
		if len(table) < 20*(i+1) {
			t.Fatal("xref table cut short")
		}
		e := xrefEntry.FindSubmatch(table[20*i : 20*(i+1)])
		if e == nil {
			t.Fatalf("xref entry %d malformed: %q", i, table[20*i:20*(i+1)])
		}
		if i == 0 {
			if string(e[3]) != "f" || string(e[2]) != "65535" {
				t.Fatalf("entry 0 is %q", e[0])
			}
			continue
		}
		off, _ := strconv.Atoi(string(e[1]))
		head := fmt.Sprintf("%d 0 obj\n", i)
		if string(e[3]) != "n" || off >= xref || !bytes.HasPrefix(pdf[off:], []byte(head)) {
			t.Fatalf("xref entry %d (offset %d) does not point at %q", i, off, head)
		}
		body := pdf[off+len(head):]
		end := bytes.Index(body, []byte("\nendobj\n"))
		if end < 0 {
			t.Fatalf("object %d has no endobj", i)
		}
		if l := lengthRe.FindSubmatch(body); l != nil {
			n, _ := strconv.Atoi(string(l[1]))
			stream := body[len(l[0]):]
			if n > len(stream) || !bytes.HasPrefix(stream[n:], []byte("\nendstream\nendobj\n")) {
				t.Fatalf("object %d: /Length %d does not end at endstream", i, n)
			}
			content = string(stream[:n])
		}
	}
	if content == "" {
		t.Fatal("no content stream")
	}
	for i := 0; i < len(pdf); i++ {
		if pdf[i] > '~' || pdf[i] < ' ' && pdf[i] != '\n' {
			t.Fatalf("byte %#x at %d: the file should be plain ASCII", pdf[i], i)
		}
	}
	return content
}

// shown is one string the page shows, where and in which face and size.
type shown struct {
	face       font
	size, x, y float64
	text       string
}

var textOpRe = regexp.MustCompile(`BT /(F[12]) ([\d.]+) Tf ([\d.]+) ([\d.]+) Td $`)

// showStrings tokenizes the content stream's literal strings, checking that
// each one closes and unescaping it, and that each is shown with Tj inside
// the page's margins; it returns their texts.
func showStrings(t testing.TB, content string) []string {
	t.Helper()
	var texts []string
	for _, s := range shownStrings(t, content) {
		texts = append(texts, s.text)
		if w := s.face.width(s.text, s.size); s.x < labelMargin-0.01 || s.x+w > labelW-labelMargin+0.01 {
			t.Errorf("%q at x=%v is %v wide: outside the margins", s.text, s.x, w)
		}
	}
	return texts
}

func shownStrings(t testing.TB, content string) []shown {
	t.Helper()
	var out []shown
	for i := 0; i < len(content); i++ {
		switch content[i] {
		case ')':
			t.Fatalf("unbalanced ) at %d in %q", i, content[max(0, i-40):i+1])
		case '(':
		default:
			continue
		}
		var s strings.Builder
		depth := 1
		j := i + 1
		for ; j < len(content) && depth > 0; j++ {
			switch c := content[j]; c {
			case '\\':
				j++
				if j == len(content) {
					t.Fatal("string ends in a backslash")
				}
				switch e := content[j]; e {
				case '\\', '(', ')':
					s.WriteByte(e)
				default:
					t.Fatalf("unexpected escape \\%c", e)
				}
			case '(':
				depth++
				s.WriteByte(c)
			case ')':
				depth--
				if depth > 0 {
					s.WriteByte(c)
				}
			default:
				s.WriteByte(c)
			}
		}
		if depth != 0 {
			t.Fatalf("string at %d never closes", i)
		}
		if !strings.HasPrefix(content[j:], " Tj ET\n") {
			t.Fatalf("string at %d not shown with Tj", i)
		}
		lineStart := strings.LastIndexByte(content[:i], '\n') + 1
		op := textOpRe.FindStringSubmatch(content[lineStart:i])
		if op == nil {
			t.Fatalf("string at %d not set with a font and position: %q", i, content[lineStart:i])
		}
		face := helvetica
		if op[1] == "F2" {
			face = helveticaBold
		}
		size, _ := strconv.ParseFloat(op[2], 64)
		x, _ := strconv.ParseFloat(op[3], 64)
		y, _ := strconv.ParseFloat(op[4], 64)
		out = append(out, shown{face, size, x, y, s.String()})
		i = j - 1
	}
	return out
}

var rectRe = regexp.MustCompile(`(?m)^([\d.]+) ([\d.]+) ([\d.]+) ([\d.]+) re$`)

// decodeBarcode reads the bars back: widths in modules, six elements a
// symbol (seven for the stop), each looked up in the symbol table, the
// checksum verified and the data decoded from code sets B and C.
func decodeBarcode(t testing.TB, content string) string {
	t.Helper()
	type bar struct{ x, w float64 }
	var bars []bar
	for _, m := range rectRe.FindAllStringSubmatch(content, -1) {
		y, _ := strconv.ParseFloat(m[2], 64)
		h, _ := strconv.ParseFloat(m[4], 64)
		if y != barcodeBottom || h != barcodeHeight {
			continue
		}
		x, _ := strconv.ParseFloat(m[1], 64)
		w, _ := strconv.ParseFloat(m[3], 64)
		bars = append(bars, bar{x, w})
	}
	if len(bars) == 0 {
		t.Fatal("no barcode")
	}
	sort.Slice(bars, func(i, j int) bool { return bars[i].x < bars[j].x })
	module := math.Inf(1)
	for _, b := range bars {
		module = min(module, b.w)
	}
	if bars[0].x-labelMargin < barcodeQuiet*module-0.01 || labelW-labelMargin-(bars[len(bars)-1].x+bars[len(bars)-1].w) < barcodeQuiet*module-0.01 {
		t.Fatal("no quiet zone")
	}
	var widths []byte
	for i, b := range bars {
		widths = append(widths, '0'+byte(math.Round(b.w/module)))
		if i+1 < len(bars) {
			widths = append(widths, '0'+byte(math.Round((bars[i+1].x-b.x-b.w)/module)))
		}
	}
	var values []int
	for len(widths) > 0 {
		n := 6
		if len(widths) == 7 {
			n = 7
		}
		if len(widths) < n {
			t.Fatalf("trailing widths %q", widths)
		}
		v := slices.Index(code128Patterns[:], string(widths[:n]))
		if v < 0 {
			t.Fatalf("no symbol %q", widths[:n])
		}
		values = append(values, v)
		widths = widths[n:]
	}
	if len(values) < 3 || values[len(values)-1] != code128Stop {
		t.Fatalf("symbols %v", values)
	}
	sum := values[0]
	for i := 1; i < len(values)-2; i++ {
		sum += i * values[i]
	}
	if sum%103 != values[len(values)-2] {
		t.Fatalf("checksum %d, want %d", values[len(values)-2], sum%103)
	}
	var s strings.Builder
	set := values[0]
	for _, v := range values[1 : len(values)-2] {
		switch {
		case set == code128StartC && v == code128CodeB:
			set = code128StartB
		case set == code128StartC && v < 100:
			fmt.Fprintf(&s, "%02d", v)
		case set == code128StartB && v < 95:
			s.WriteByte(byte(v) + ' ')
		default:
			t.Fatalf("symbol %d in set %d", v, set)
		}
	}
	return s.String()
}

// checkWithQPDF runs qpdf's structural check when qpdf is installed.
func checkWithQPDF(t *testing.T, pdf []byte) {
	t.Helper()
	qpdf, err := exec.LookPath("qpdf")
	if err != nil {
		t.Log("qpdf not installed; structural check skipped")
		return
	}
	path := filepath.Join(t.TempDir(), "label.pdf")
	if err := os.WriteFile(path, pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(qpdf, "--check", path).CombinedOutput(); err != nil {
		t.Fatalf("qpdf --check: %v\n%s", err, out)
	}
}
