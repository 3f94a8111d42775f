package moderation

import (
	"encoding/base64"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Content from others (CONTRACT section 16): text one party wrote, shown to
// another party's agent, is marked untrusted, with flags for what in it
// looks like an attempt to steer the agent. Flagged text is still
// delivered, unchanged; the flags only warn, so the detector leans towards
// recall on the corpus in testdata (trust_corpus_test.go) while keeping
// ordinary listing and message text unflagged.

// Trust flags.
const (
	FlagInstructionLike    = "instruction_like"     // addresses an AI, or asks it to ignore instructions, change limits, pay elsewhere or reveal keys
	FlagOffPlatformPayment = "off_platform_payment" // asks to pay outside the platform
	FlagContactDetails     = "contact_details"      // an e-mail address, phone number or messenger handle
)

// MaxTrustInput bounds the text one call examines: the platform's longest
// free text (a listing description) is 5000 characters, so real fields are
// read whole, and a huge input costs no more than this.
const MaxTrustInput = 32 << 10

// TrustField is one piece of foreign text, named as the caller's surface
// names the field.
type TrustField struct{ Name, Text string }

// Trust is what the fields of one object raised: the flags, in a fixed
// order, and the names of the fields that raised any. Both are non-nil.
type Trust struct {
	Flags  []string
	Fields []string
}

// AssessTrust examines each field of one object.
func AssessTrust(fields ...TrustField) Trust {
	t := Trust{Flags: []string{}, Fields: []string{}}
	var all uint8
	for _, f := range fields {
		if m := flagMask(f.Text, 0); m != 0 {
			all |= m
			t.Fields = append(t.Fields, f.Name)
		}
	}
	t.Flags = maskFlags(all)
	return t
}

// TrustFlags lists the flags text raises, in a fixed order; none is an
// empty (non-nil) list.
func TrustFlags(text string) []string { return maskFlags(flagMask(text, 0)) }

const (
	bitInstruction uint8 = 1 << iota
	bitPayment
	bitContact
)

func maskFlags(m uint8) []string {
	out := []string{}
	if m&bitInstruction != 0 {
		out = append(out, FlagInstructionLike)
	}
	if m&bitPayment != 0 {
		out = append(out, FlagOffPlatformPayment)
	}
	if m&bitContact != 0 {
		out = append(out, FlagContactDetails)
	}
	return out
}

// flagMask reads text several ways: its words (Normalize: case, accents,
// punctuation and invisible characters folded), the same with leetspeak
// digits read as letters, spelled-out letters ("v e n m o") joined, the raw
// text for markup, e-mail addresses, handles and phone numbers, and the
// base64 blobs in it decoded (once: depth bounds the recursion).
func flagMask(text string, depth int) uint8 {
	if len(text) > MaxTrustInput {
		text = text[:MaxTrustInput]
	}
	if !isASCII(text) {
		text = foldHomoglyphs(text)
	}
	var m uint8
	words := joinAI(strings.Fields(Normalize(text)))
	m |= matchAll(words)
	if leet, ok := deleet(text); ok {
		m |= matchAll(joinAI(strings.Fields(Normalize(leet))))
	}
	m |= spelledOut(words)
	m |= compactMatch(strings.Join(words, ""), compactLong)
	m |= rawChecks(text)
	if depth == 0 {
		m |= decodedBlobs(text)
	}
	return m
}

func matchAll(words []string) uint8 {
	var m uint8
	for i, w := range words {
		for _, p := range phraseIndex[w] {
			if m&p.bit == 0 && p.match(words, i) {
				m |= p.bit
			}
		}
	}
	return m
}

// joinAI reads "a i" (from "A.I.") as "ai".
func joinAI(words []string) []string {
	for i := 0; i+1 < len(words); i++ {
		if words[i] == "a" && words[i+1] == "i" {
			words = append(words[:i+1], words[i+2:]...)
			words[i] = "ai"
		}
	}
	return words
}

// deleet reads digits and symbols inside words as the letters they
// imitate ("1gn0re", "v3nm0", "p@ypal"); numbers standing alone (prices,
// sizes) are left as they are. ok is false when nothing changed.
func deleet(s string) (string, bool) {
	b := []byte(s)
	changed := false
	isAlpha := func(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
	for i := 0; i < len(b); {
		if !isWordByte(b[i]) {
			i++
			continue
		}
		j := i
		letters := false
		for j < len(b) && isWordByte(b[j]) {
			letters = letters || isAlpha(b[j])
			j++
		}
		if letters {
			for k := i; k < j; k++ {
				if r := leetMap[b[k]]; r != 0 {
					// "@" between letters and digits: an e-mail's @ has a dot
					// after it; rawChecks reads e-mails on the original text.
					b[k], changed = r, true
				}
			}
		}
		i = j
	}
	return string(b), changed
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '@' || c == '$' || c >= utf8.RuneSelf
}

var leetMap = [256]byte{'0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '7': 't', '@': 'a', '$': 's'}

// spelledOut joins runs of three or more one-character words ("i g n o r e
// a l l", "z e l l e") and looks for any phrase's words in the result.
func spelledOut(words []string) uint8 {
	var m uint8
	for i := 0; i < len(words); {
		if len(words[i]) != 1 {
			i++
			continue
		}
		j := i
		for j < len(words) && len(words[j]) == 1 {
			j++
		}
		if j-i >= 3 {
			var sb strings.Builder
			for _, w := range words[i:j] {
				sb.WriteString(w)
			}
			m |= compactMatch(sb.String(), compactAll)
		}
		i = j
	}
	return m
}

type compactWord struct {
	s   string
	bit uint8
}

func compactMatch(s string, list []compactWord) uint8 {
	var m uint8
	for _, c := range list {
		if m&c.bit == 0 && strings.Contains(s, c.s) {
			m |= c.bit
		}
	}
	return m
}

// compactLong are read in the whole text with the spaces taken out
// ("ig nore prev ious instructions"): long enough not to straddle
// ordinary words ("gazelle" holds "zelle", so short names are not here).
var compactLong = []compactWord{
	{"ignorepreviousinstructions", bitInstruction}, {"ignoreallpreviousinstructions", bitInstruction},
	{"ignoreallinstructions", bitInstruction}, {"ignoreyourinstructions", bitInstruction},
	{"ignorepriorinstructions", bitInstruction}, {"disregardpreviousinstructions", bitInstruction},
	{"disregardyourinstructions", bitInstruction}, {"forgetyourinstructions", bitInstruction},
	{"forgetallpreviousinstructions", bitInstruction}, {"systemprompt", bitInstruction},
	{"developermode", bitInstruction}, {"jailbreak", bitInstruction},
	{"westernunion", bitPayment}, {"moneygram", bitPayment}, {"bitcoin", bitPayment}, {"paypal", bitPayment},
	{"whatsapp", bitContact},
}

// compactAll are read in spelled-out runs only, where the letters were
// written apart on purpose.
var compactAll = append([]compactWord{
	{"ignore", bitInstruction}, {"disregard", bitInstruction}, {"instructions", bitInstruction},
	{"apikey", bitInstruction}, {"agentkey", bitInstruction},
	{"venmo", bitPayment}, {"zelle", bitPayment}, {"cashapp", bitPayment}, {"crypto", bitPayment},
	{"giftcard", bitPayment}, {"telegram", bitContact}, {"signal", bitContact},
}, compactLong...)

// Raw-text checks.
var (
	emailPattern  = regexp.MustCompile(`[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}`)
	handlePattern = regexp.MustCompile(`(?:^|[\s(,;:])@[A-Za-z][A-Za-z0-9_.]{2,}`)
	// Markup that hides text from a human reader while a model still reads
	// it; spaces are taken out of the text before the look-up.
	hiddenMarkup = []string{"display:none", "visibility:hidden", "font-size:0", "opacity:0", "color:white",
		"color:#fff", "<!--", "[//]:#", "aria-hidden", "hidden>", "<hidden", "hidden=\""}
	messengerLinks = []string{"wa.me/", "t.me/", "m.me/", "signal.me/"}
)

func rawChecks(text string) uint8 {
	var m uint8
	at := strings.IndexByte(text, '@') >= 0 // the regular expressions only run when they can match
	if at && (emailPattern.MatchString(text) || handlePattern.MatchString(text)) || hasPhone(text) {
		m |= bitContact
	}
	if strings.ContainsAny(text, "<>[:") || strings.Contains(text, "me/") {
		low := strings.ToLower(strings.Join(strings.Fields(text), ""))
		for _, h := range hiddenMarkup {
			if strings.Contains(low, h) {
				m |= bitInstruction
				break
			}
		}
		for _, l := range messengerLinks {
			if strings.Contains(low, l) {
				m |= bitContact
				break
			}
		}
	}
	return m
}

// hasPhone finds a phone number: a run of digits with at most two
// separators ( ().-+ ) between digits, holding a North American number
// (10 digits, or 11 with a leading 1, area code and exchange not starting
// with 0 or 1, grouped as phones are written) or, after a "+", 9 to 15
// digits. Runs after "model", "SKU", "ISBN", "serial" and the like are
// part numbers.
func hasPhone(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		plus := c == '+' && i+1 < len(s) && isDigit(s[i+1])
		if !(isDigit(c) || plus || c == '(' && i+1 < len(s) && isDigit(s[i+1])) || i > 0 && isAlnum(s[i-1]) {
			i++
			continue
		}
		start := i
		var groups [16]int
		ng, nd, sep := 0, 0, 0
		var digits [16]byte
		j := i
		if plus || c == '(' {
			j++
		}
		lastDigit := j
		for j < len(s) {
			d := s[j]
			if isDigit(d) {
				if sep > 0 || ng == 0 {
					if ng < len(groups) {
						ng++
					}
				}
				groups[ng-1]++
				if nd < len(digits) {
					digits[nd] = d
				}
				nd++
				sep = 0
				lastDigit = j
				j++
				continue
			}
			if (d == ' ' || d == '-' || d == '.' || d == '(' || d == ')') && sep < 2 {
				sep++
				j++
				continue
			}
			break
		}
		i = j
		if lastDigit+1 < len(s) && isAlpha(s[lastDigit+1]) {
			continue // "1080p", "2000mAh"
		}
		if !phoneDigits(digits[:min(nd, len(digits))], nd, groups[:ng], plus) {
			continue
		}
		if partContext(s[max(0, start-24):start]) {
			continue
		}
		return true
	}
	return false
}

func phoneDigits(d []byte, n int, groups []int, plus bool) bool {
	if plus {
		return n >= 9 && n <= 15
	}
	nanp := func(d []byte) bool { return d[0] >= '2' && d[3] >= '2' }
	switch {
	case n == 10 && nanp(d):
	case n == 11 && d[0] == '1' && nanp(d[1:]):
	default:
		return false
	}
	ones := true
	for _, g := range groups {
		ones = ones && g == 1
	}
	if ones { // "5 0 3 5 5 5 0 1 0 0"
		return true
	}
	shape := make([]byte, 0, 8)
	for _, g := range groups {
		shape = append(shape, byte('0'+g%10))
	}
	switch string(shape) {
	case "0", "10", "334", "37", "1334", "64":
		// 10 digits whole ("0" is 10), 1+10, 3-3-4, 3-7, 1-3-3-4, 6-4.
		return true
	}
	return n == 11 && string(shape) == "1" // 11 digits whole
}

var partWords = []string{"isbn", "sku", "upc", "ean", "model", "serial", "s/n", "p/n", "part", "mpn", "order",
	"tracking", "item", "ref", "lot", "imei", "vin", "barcode", "asin", "style", "#", "no.", "invoice"}

func partContext(before string) bool {
	low := strings.ToLower(before)
	for _, w := range partWords {
		if strings.Contains(low, w) {
			return true
		}
	}
	return false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isAlnum(c byte) bool { return isDigit(c) || isAlpha(c) }

// decodedBlobs reads base64 runs of 16 or more characters that decode to
// text and examines that text too.
func decodedBlobs(s string) uint8 {
	var m uint8
	for i, seen := 0, 0; i < len(s) && seen < 8; {
		if !isB64(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isB64(s[j]) {
			j++
		}
		if j-i >= 16 {
			seen++
			if t, ok := decodeText(s[i:j]); ok {
				m |= flagMask(t, 1)
			}
		}
		i = j
	}
	return m
}

func isB64(c byte) bool {
	return isAlnum(c) || c == '+' || c == '/' || c == '=' || c == '-' || c == '_'
}

func decodeText(s string) (string, bool) {
	s = strings.TrimRight(s, "=")
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		b, err := enc.DecodeString(s)
		if err != nil || !utf8.Valid(b) {
			continue
		}
		printable, spaces := 0, 0
		for _, c := range b {
			if c == ' ' {
				spaces++
			}
			if c >= 0x20 && c < 0x7f || c >= 0x80 || c == '\n' || c == '\t' {
				printable++
			}
		}
		if spaces > 0 && printable*10 >= len(b)*9 {
			return string(b), true
		}
	}
	return "", false
}

// foldHomoglyphs reads the Cyrillic and Greek letters that look like Latin
// ones as those ("раураl").
func foldHomoglyphs(s string) string { return homoglyphs.Replace(s) }

var homoglyphs = strings.NewReplacer(
	"а", "a", "е", "e", "о", "o", "р", "p", "с", "c", "у", "y", "х", "x", "і", "i", "ј", "j", "ѕ", "s",
	"А", "A", "В", "B", "Е", "E", "К", "K", "М", "M", "Н", "H", "О", "O", "Р", "P", "С", "C", "Т", "T", "Х", "X",
	"α", "a", "ο", "o", "ρ", "p", "ν", "v", "Ι", "I", "Ο", "O",
)
