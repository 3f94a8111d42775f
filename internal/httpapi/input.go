package httpapi

import (
	"bytes"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"marketplace/internal/market"
)

// Input hygiene: one rule at the edge, before authentication and before any
// handler runs. Text the service may store or look up (path ids, query
// parameters, the idempotency key header, every string of a JSON or form
// body) must be valid UTF-8 without control characters other than line
// breaks and tabs. PostgreSQL cannot store a NUL or invalid UTF-8, and
// SQLite would store them, so without this rule the two engines disagree.
// A refusal is 400 VALIDATION_ERROR naming the field.

// storedHeaders are the request headers whose values reach the database,
// with the canonical field name a refusal gives them (the body field they
// stand for).
var storedHeaders = map[string]string{"Idempotency-Key": "idempotency_key", "Idempotency_Key": "idempotency_key"}

// maxJSONDepth bounds how deep the body scan follows nested values; deeper
// bodies are refused, so no string escapes the check.
const maxJSONDepth = 64

// TextProblem says what is wrong with s as stored text, or "" when nothing is.
func TextProblem(s string) string {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return "must be valid UTF-8 text"
		}
		if badRune(r) {
			return "must not contain control characters"
		}
		i += size
	}
	return ""
}

func badRune(r rune) bool {
	return unicode.IsControl(r) && r != '\n' && r != '\r' && r != '\t'
}

// refusal is one bad value the edge found. Its field is named as the
// client sent it (a path parameter, a query parameter, a JSON key), but
// for a header, which stands for a canonical body field.
type refusal struct {
	field, problem, value string
	canonical             bool
}

func (f *refusal) err() error {
	return market.Invalid(market.FieldError{Field: f.field, Message: f.problem, AsSent: !f.canonical})
}

func textRefusal(field, s string) *refusal {
	if p := TextProblem(s); p != "" {
		return &refusal{field: field, problem: p, value: s}
	}
	return nil
}

// CheckText refuses s as field's value when TextProblem finds something,
// and notes the refusal for the request's audit entry; surfaces that read
// input the edge cannot see (multipart text parts) use it.
func CheckText(r *http.Request, field, s string) error {
	if f := textRefusal(field, s); f != nil {
		info(r).refused = f
		return f.err()
	}
	return nil
}

// checkInput applies the rule to everything a request carries as text; a
// binary route's body is not text.
func checkInput(r *http.Request, pattern string, textBody bool) *refusal {
	for _, name := range pathParams(pattern) {
		if f := textRefusal(name, r.PathValue(name)); f != nil {
			return f
		}
	}
	if r.URL.RawQuery != "" {
		q, _ := url.ParseQuery(r.URL.RawQuery)
		if f := checkValues(q); f != nil {
			return f
		}
	}
	for h, field := range storedHeaders {
		for _, v := range r.Header.Values(h) {
			if f := textRefusal(field, v); f != nil {
				f.canonical = true
				return f
			}
		}
	}
	if !textBody {
		return nil
	}
	return checkBody(r)
}

func checkValues(vs url.Values) *refusal {
	for k, list := range vs {
		if f := textRefusal(k, k); f != nil {
			return f
		}
		for _, v := range list {
			if f := textRefusal(k, v); f != nil {
				return f
			}
		}
	}
	return nil
}

// pathParams lists the wildcard names of a route pattern ("/orders/{id}").
func pathParams(pattern string) []string {
	var names []string
	for {
		i := strings.IndexByte(pattern, '{')
		if i < 0 {
			return names
		}
		j := strings.IndexByte(pattern[i:], '}')
		if j < 0 {
			return names
		}
		name := strings.TrimSuffix(pattern[i+1:i+j], "...")
		if name != "$" {
			names = append(names, name)
		}
		pattern = pattern[i+j+1:]
	}
}

// checkBody scans a JSON or form body. Image uploads and multipart forms
// are not text (multipart text parts are checked where they are read). A
// body over MaxBody is left for the handler, which answers 413 or reads it
// as an upload; the scanned prefix is put back in front of the rest.
func checkBody(r *http.Request) *refusal {
	if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
		return nil
	}
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	form := mt == "application/x-www-form-urlencoded"
	if !form && (strings.HasPrefix(mt, "image/") || strings.HasPrefix(mt, "multipart/") || mt == "application/octet-stream") {
		return nil
	}
	raw, err := io.ReadAll(io.LimitReader(r.Body, MaxBody+1))
	if err != nil {
		// The handler's own read reports it the way it always has.
		r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(raw), errReader{err}))
		return nil
	}
	if len(raw) > MaxBody {
		r.Body = readCloser{io.MultiReader(bytes.NewReader(raw), r.Body), r.Body}
		return nil
	}
	r.Body = io.NopCloser(bytes.NewReader(raw))
	if form {
		q, err := url.ParseQuery(string(raw))
		if err != nil {
			return nil // the handler refuses a malformed form
		}
		return checkValues(q)
	}
	return scanJSON(raw)
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

type readCloser struct {
	io.Reader
	io.Closer
}

// scanJSON walks a JSON text and reports the first string (value or key)
// that is not clean text, with its path in the request's own spelling
// ("shippingAddress.line1", "photoUrls[2]"). It reads the raw bytes, because
// encoding/json quietly turns invalid UTF-8 and unpaired surrogate escapes
// into U+FFFD. Syntax errors are not its business: it stops and lets the
// decoder report them.
func scanJSON(b []byte) *refusal {
	s := &jsonScanner{b: b}
	s.value("", 0)
	return s.fault
}

type jsonScanner struct {
	b     []byte
	i     int
	fault *refusal
	stop  bool // a syntax error or a fault ends the scan
}

func (s *jsonScanner) skipSpace() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\n' || s.b[s.i] == '\r') {
		s.i++
	}
}

func (s *jsonScanner) fail(field, problem, value string) {
	if field == "" {
		field = "body"
	}
	s.fault, s.stop = &refusal{field: field, problem: problem, value: value}, true
}

func (s *jsonScanner) value(path string, depth int) {
	if s.stop {
		return
	}
	if depth > maxJSONDepth {
		s.fail("body", "is nested too deeply", "")
		return
	}
	s.skipSpace()
	if s.i >= len(s.b) {
		s.stop = true
		return
	}
	switch s.b[s.i] {
	case '{':
		s.i++
		for !s.stop {
			s.skipSpace()
			if s.i < len(s.b) && s.b[s.i] == '}' {
				s.i++
				return
			}
			key, ok := s.str(path)
			if !ok {
				return
			}
			field := key
			if path != "" {
				field = path + "." + key
			}
			s.skipSpace()
			if s.i >= len(s.b) || s.b[s.i] != ':' {
				s.stop = true
				return
			}
			s.i++
			s.value(field, depth+1)
			s.skipSpace()
			if s.i < len(s.b) && s.b[s.i] == ',' {
				s.i++
				continue
			}
			if s.i < len(s.b) && s.b[s.i] == '}' {
				s.i++
				return
			}
			s.stop = true
		}
	case '[':
		s.i++
		for n := 0; !s.stop; n++ {
			s.skipSpace()
			if s.i < len(s.b) && s.b[s.i] == ']' {
				s.i++
				return
			}
			s.value(path+"["+strconv.Itoa(n)+"]", depth+1)
			s.skipSpace()
			if s.i < len(s.b) && s.b[s.i] == ',' {
				s.i++
				continue
			}
			if s.i < len(s.b) && s.b[s.i] == ']' {
				s.i++
				return
			}
			s.stop = true
		}
	case '"':
		s.str(path)
	default: // numbers, true, false, null: skip to the next delimiter
		for s.i < len(s.b) && !strings.ContainsRune(",]} \t\r\n", rune(s.b[s.i])) {
			s.i++
		}
	}
}

// str reads a string at s.i and checks it; field names it in a fault (a
// key's fault names the object holding it). It returns the string as far as
// it could decode it, and false when the scan must stop.
func (s *jsonScanner) str(field string) (string, bool) {
	if s.stop || s.i >= len(s.b) || s.b[s.i] != '"' {
		s.stop = true
		return "", false
	}
	s.i++
	var out strings.Builder
	start := s.i
	raw := func() string { return string(s.b[start:min(s.i, len(s.b))]) }
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return out.String(), true
		case c == '\\':
			if s.i+1 >= len(s.b) {
				s.stop = true
				return "", false
			}
			e := s.b[s.i+1]
			s.i += 2
			switch e {
			case 'n':
				out.WriteByte('\n')
			case 't':
				out.WriteByte('\t')
			case 'r':
				out.WriteByte('\r')
			case '"', '\\', '/':
				out.WriteByte(e)
			case 'b', 'f':
				s.fail(field, "must not contain control characters", raw())
				return "", false
			case 'u':
				r, ok := s.hex4()
				if !ok {
					s.stop = true
					return "", false
				}
				if r >= 0xD800 && r <= 0xDBFF { // a high surrogate needs its low half
					lo, ok := rune(0), false
					if s.i+1 < len(s.b) && s.b[s.i] == '\\' && s.b[s.i+1] == 'u' {
						s.i += 2
						lo, ok = s.hex4()
						ok = ok && lo >= 0xDC00 && lo <= 0xDFFF
					}
					if !ok {
						s.fail(field, "must not contain unpaired surrogates", raw())
						return "", false
					}
					r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
				} else if r >= 0xDC00 && r <= 0xDFFF {
					s.fail(field, "must not contain unpaired surrogates", raw())
					return "", false
				}
				if badRune(r) {
					s.fail(field, "must not contain control characters", raw())
					return "", false
				}
				out.WriteRune(r)
			default:
				s.stop = true
				return "", false
			}
		case c < utf8.RuneSelf:
			s.i++
			if badRune(rune(c)) {
				s.fail(field, "must not contain control characters", raw())
				return "", false
			}
			out.WriteByte(c)
		default:
			r, size := utf8.DecodeRune(s.b[s.i:])
			s.i += size
			if r == utf8.RuneError && size == 1 {
				s.fail(field, "must be valid UTF-8 text", raw())
				return "", false
			}
			if badRune(r) {
				s.fail(field, "must not contain control characters", raw())
				return "", false
			}
			out.WriteRune(r)
		}
	}
	s.stop = true
	return "", false
}

func (s *jsonScanner) hex4() (rune, bool) {
	if s.i+4 > len(s.b) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(s.b[s.i:s.i+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	s.i += 4
	return rune(n), true
}

// SafeText renders s for a log or an audit row: valid UTF-8 without control
// characters is kept as it is; anything else is escaped (\x00, \xff,
// \u0085), and the result is cut to at most max bytes.
func SafeText(s string, max int) string {
	if TextProblem(s) == "" && len(s) <= max {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s) && b.Len() < max; {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\x` + strconv.FormatUint(uint64(s[i])|0x100, 16)[1:])
		case badRune(r) && r < utf8.RuneSelf:
			b.WriteString(`\x` + strconv.FormatUint(uint64(r)|0x100, 16)[1:])
		case badRune(r):
			b.WriteString(`\u` + strconv.FormatUint(uint64(r)|0x10000, 16)[1:])
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	out := b.String()
	if len(out) > max {
		out = out[:max]
		for !utf8.ValidString(out) {
			out = out[:len(out)-1]
		}
	}
	return out
}

// PhotoProblem is what is wrong with an uploaded photo the photo store
// refused for its content (a VALIDATION_ERROR), for a message naming that
// photo; ok is false for any other error, which is answered as it is.
func PhotoProblem(err error) (problem string, ok bool) {
	e := market.ErrorOf(err)
	if e.Code != market.CodeValidation {
		return "", false
	}
	if len(e.Fields) > 0 {
		return e.Fields[0].Message, true
	}
	return "is not a usable image", true
}
