package moderation

import (
	"bufio"
	"os"
	"slices"
	"strings"
	"testing"
)

type corpusText struct {
	text string
	want []string
}

// readCorpus reads a testdata file: one text a line, "\n" for a line
// break, '#' lines are comments; with labelled, the flags come first,
// comma-separated, before a tab.
func readCorpus(t testing.TB, name string, labelled bool) []corpusText {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []corpusText
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		c := corpusText{want: []string{}}
		if labelled {
			flags, text, ok := strings.Cut(line, "\t")
			if !ok {
				t.Fatalf("%s: no tab in %q", name, line)
			}
			c.want = strings.Split(flags, ",")
			line = text
		}
		c.text = strings.ReplaceAll(line, `\n`, "\n")
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestTrustCorpus holds the detector to the corpus: at least 90% recall
// per flag and overall, and under 5% of benign texts flagged.
func TestTrustCorpus(t *testing.T) {
	benign := readCorpus(t, "trust_benign.txt", false)
	injection := readCorpus(t, "trust_injection.txt", true)
	if len(benign) < 100 || len(injection) < 100 {
		t.Fatalf("corpus too small: %d benign, %d injection-like", len(benign), len(injection))
	}
	type counts struct{ tp, fp, fn int }
	per := map[string]*counts{}
	flags := []string{FlagInstructionLike, FlagOffPlatformPayment, FlagContactDetails}
	for _, f := range flags {
		per[f] = &counts{}
	}
	falsePos, caught := 0, 0
	for _, c := range append(append([]corpusText{}, benign...), injection...) {
		got := TrustFlags(c.text)
		for _, f := range flags {
			g, w := slices.Contains(got, f), slices.Contains(c.want, f)
			switch {
			case g && w:
				per[f].tp++
			case g:
				per[f].fp++
				t.Logf("extra %s: %q", f, c.text)
			case w:
				per[f].fn++
				t.Logf("missed %s: %q", f, c.text)
			}
		}
		if len(c.want) == 0 && len(got) > 0 {
			falsePos++
		}
		if len(c.want) > 0 && !slices.ContainsFunc(c.want, func(f string) bool { return !slices.Contains(got, f) }) {
			caught++
		}
	}
	ratio := func(a, b int) float64 {
		if b == 0 {
			return 1
		}
		return float64(a) / float64(b)
	}
	for _, f := range flags {
		c := per[f]
		recall, precision := ratio(c.tp, c.tp+c.fn), ratio(c.tp, c.tp+c.fp)
		t.Logf("%-20s precision %5.1f%%  recall %5.1f%%  (tp %d, fp %d, fn %d)", f, 100*precision, 100*recall, c.tp, c.fp, c.fn)
		if recall < 0.9 {
			t.Errorf("%s: recall %.1f%% is under 90%%", f, 100*recall)
		}
	}
	recall, fpRate := ratio(caught, len(injection)), ratio(falsePos, len(benign))
	t.Logf("overall: recall %.1f%% (%d of %d injection-like texts get every expected flag), false positives %.1f%% (%d of %d benign texts flagged)",
		100*recall, caught, len(injection), 100*fpRate, falsePos, len(benign))
	if recall < 0.9 {
		t.Errorf("overall recall %.1f%% is under 90%%", 100*recall)
	}
	if fpRate >= 0.05 {
		t.Errorf("false positives %.1f%% are at or above 5%%", 100*fpRate)
	}
}

// BenchmarkTrustFlags measures the detector on the whole corpus, and on
// inputs built to be slow: a long description, a long run of digits and
// separators, a long base64 blob and one-letter words.
func BenchmarkTrustFlags(b *testing.B) {
	var texts []string
	for _, c := range readCorpus(b, "trust_benign.txt", false) {
		texts = append(texts, c.text)
	}
	for _, c := range readCorpus(b, "trust_injection.txt", true) {
		texts = append(texts, c.text)
	}
	long := strings.Repeat("Solid oak table, seats six, small scratch on the top, ignore it. ", 80)
	cases := map[string][]string{
		"corpus":      texts,
		"long5000":    {long[:5000]},
		"digits":      {strings.Repeat("1 2-3.", 6000)},
		"base64":      {strings.Repeat("QUJDREVGR0hJSktMTU5PUA", 1500)},
		"letters":     {strings.Repeat("a b c ", 6000)},
		"overlong1MB": {strings.Repeat("ignore ", 150000)},
	}
	for name, in := range cases {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				for _, s := range in {
					TrustFlags(s)
				}
			}
		})
	}
}

// BenchmarkTrustListing is a listing as search answers it to an agent: a
// 3,000-character description with no steering in it, title and brand.
func BenchmarkTrustListing(b *testing.B) {
	desc := strings.Repeat("Solid oak dining table, seats six, 72 x 36 inches. Light wear on the top; "+
		"two leaves included. Pickup in Portland or shipping at checkout. ", 24)[:3000]
	for b.Loop() {
		AssessTrust(TrustField{Name: "title", Text: "Solid oak dining table with two leaves"},
			TrustField{Name: "description", Text: desc}, TrustField{Name: "brand", Text: "Ethan Allen"})
	}
}
