// Package generator holds the listing generators, what turns a seller's
// brief into a draft listing (listings.Generator): the built-in generator,
// which needs no network, and the adapter for an OpenAI-compatible
// chat-completions endpoint, which falls back to it.
package generator

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"marketplace/internal/listings"
	"marketplace/internal/market"
)

// BuiltinName names the built-in generator in drafts.
const BuiltinName = "builtin"

// NewBuiltin returns the generator that needs no network: it classifies the
// brief by keyword, brand and material cues, writes the title and
// description from the seller's own words, infers the condition from cue
// words, and estimates the price from comparables (or category priors when
// comps is nil or has too few). It does not look at the photos. It picks
// among the categories of the brief's Taxonomy (the ones in use) and,
// without one, of tax; a nil tax means DefaultTaxonomy. The output depends
// only on the brief, the taxonomy and the comparables.
func NewBuiltin(tax *listings.Taxonomy, comps listings.Comparables) listings.Generator {
	if tax == nil {
		tax = listings.DefaultTaxonomy()
	}
	return &builtin{tax: tax, comps: comps, cls: newClassifier(tax)}
}

type builtin struct {
	tax   *listings.Taxonomy
	comps listings.Comparables
	cls   *classifier

	// The classifier of the last brief's taxonomy: the listings service
	// hands the same tree until an admin changes a category.
	mu      sync.Mutex
	lastTax *listings.Taxonomy
	lastCls *classifier
}

// classifierFor is the classifier of tax, built once per tree.
func (g *builtin) classifierFor(tax *listings.Taxonomy) (*listings.Taxonomy, *classifier) {
	if tax == nil || tax == g.tax {
		return g.tax, g.cls
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.lastTax != tax {
		g.lastTax, g.lastCls = tax, newClassifier(tax)
	}
	return g.lastTax, g.lastCls
}

func (g *builtin) Generate(ctx context.Context, b listings.Brief) (listings.Draft, error) {
	if err := ctx.Err(); err != nil {
		return listings.Draft{}, err
	}
	if strings.TrimSpace(b.Description) == "" {
		return listings.Draft{}, market.Invalid(market.FieldError{Field: "description", Message: "is required"})
	}
	tax, cls := g.classifierFor(b.Taxonomy)
	doc := parseBrief(b.Description)
	res := cls.classify(doc)

	slug := res.slug
	// The seller's category is kept; an unknown one is ignored rather than
	// stored, so a draft always names a category of the tree.
	if c, ok := tax.Resolve(strings.TrimSpace(b.Category)); ok {
		slug = c.Slug
	}
	cat := cls.cats[cls.index[slug]]

	condition := b.Condition
	if !listings.ValidCondition(condition) {
		condition = inferCondition(doc)
	}
	brand := cls.brandFor(res, slug)

	d := listings.Draft{
		CategorySlug: slug,
		Condition:    condition,
		Brand:        brand.name,
		Generator:    BuiltinName,
	}
	d.WeightOz, d.Dimensions, _ = tax.Defaults(slug)
	d.Title = buildTitle(doc, res, brand, cat)
	d.Description = buildDescription(doc, res, d, cat)

	if b.Price != nil {
		d.Price, d.PriceSource = *b.Price, "seller"
	} else {
		p, err := listings.EstimatePrice(ctx, tax, g.comps, slug, condition)
		if err != nil {
			return listings.Draft{}, err
		}
		d.Price, d.PriceSource = p, "ai"
	}
	return d, nil
}

// ---- Reading the brief ----

// briefDoc is a brief cut into clauses (at commas, full stops, brackets and
// the like), words (at spaces) and tokens (the alphanumeric runs of a word,
// lower case, each with its stem).
type briefDoc struct {
	clauses [][]int // word indexes of each clause
	words   []briefWord
	toks    []briefTok
}

type briefWord struct {
	raw      string // as the seller typed it, outer punctuation trimmed
	clause   int
	from, to int // its tokens: toks[from:to]
}

type briefTok struct {
	norm   string
	stem   string
	word   int
	clause int
}

// abbreviations end in a full stop that does not end a clause.
var abbreviations = map[string]bool{
	"dr": true, "no": true, "vol": true, "approx": true, "st": true, "mr": true, "mrs": true, "ms": true,
	"jr": true, "sr": true, "inc": true, "co": true, "vs": true, "pc": true, "pcs": true, "qty": true,
	"ft": true, "oz": true, "lb": true, "lbs": true, "in": true, "e.g": true, "i.e": true, "etc": true,
}

// splitClauses cuts text where a new thought starts in the way sellers
// write: punctuation, brackets, line breaks and spaced dashes.
func splitClauses(text string) []string {
	rs := []rune(text)
	var out []string
	var cur strings.Builder
	flush := func() {
		if s := strings.TrimSpace(cur.String()); s != "" {
			out = append(out, s)
		}
		cur.Reset()
	}
	for i, r := range rs {
		prev, next := rune(0), rune(0)
		if i > 0 {
			prev = rs[i-1]
		}
		if i+1 < len(rs) {
			next = rs[i+1]
		}
		switch r {
		case ',', ';', '!', '?', '(', ')', '[', ']', '{', '}', '|', '\n', '\r', '•', '·', ':':
			if r == ',' && unicode.IsDigit(prev) && unicode.IsDigit(next) {
				cur.WriteRune(r) // 1,000
				continue
			}
			flush()
		case '.':
			if unicode.IsDigit(next) || (unicode.IsLetter(prev) && unicode.IsLetter(next)) {
				cur.WriteRune(r) // 10.5, f1.8, j.crew
				continue
			}
			if abbreviations[strings.ToLower(lastWord(cur.String()))] {
				cur.WriteRune(' ')
				continue
			}
			flush()
		case '-', '–', '—':
			if (prev == ' ' || prev == 0) && (next == ' ' || next == 0) {
				flush()
				continue
			}
			cur.WriteRune(r)
		default:
			cur.WriteRune(r)
		}
	}
	flush()
	return out
}

func lastWord(s string) string {
	s = strings.TrimRightFunc(s, unicode.IsSpace)
	i := strings.LastIndexFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && r != '.' })
	return s[i+1:]
}

func isApostrophe(r rune) bool { return r == '\'' || r == '’' || r == '‘' || r == 'ʼ' }

// trimWord drops outer punctuation that carries no meaning in a title.
func trimWord(w string) string {
	return strings.TrimFunc(w, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '"' && r != '%' && r != '+' && r != '#' && r != '$' && r != '&' && r != '/'
	})
}

// wordTokens splits one word into lower-case alphanumeric runs. An
// apostrophe inside a word vanishes ("levi's" -> "levis"); a full stop or
// slash between alphanumerics stays ("10.5", "225/65r17", "r/c"); "&" reads
// as "and" and "w/" as "with".
func wordTokens(w string) []string {
	lw := strings.ToLower(w)
	switch lw {
	case "&", "+", "and/or":
		if lw == "&" {
			return []string{"and"}
		}
		return nil
	case "w/", "w":
		return []string{"with"}
	case "w/o":
		return []string{"without"}
	}
	rs := []rune(foldAccents.Replace(lw))
	var out []string
	var cur []rune
	isAlnum := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
	for i, r := range rs {
		switch {
		case isAlnum(r):
			cur = append(cur, r)
		case isApostrophe(r) && len(cur) > 0 && i+1 < len(rs) && unicode.IsLetter(rs[i+1]) && unicode.IsLetter(rs[i-1]):
			// dropped: joins the two halves
		case (r == '.' || r == '/') && len(cur) > 0 && i+1 < len(rs) && isAlnum(rs[i+1]) &&
			(r == '/' || unicode.IsDigit(rs[i-1]) && unicode.IsDigit(rs[i+1])):
			cur = append(cur, r)
		default:
			if len(cur) > 0 {
				out = append(out, string(cur))
				cur = cur[:0]
			}
		}
	}
	if len(cur) > 0 {
		out = append(out, string(cur))
	}
	return out
}

// foldAccents reads accented Latin letters as plain ones, so "wüsthof",
// "wusthof" and the brand Wüsthof all match.
var foldAccents = strings.NewReplacer(
	"à", "a", "á", "a", "â", "a", "ã", "a", "ä", "a", "å", "a", "æ", "ae", "ç", "c",
	"è", "e", "é", "e", "ê", "e", "ë", "e", "ì", "i", "í", "i", "î", "i", "ï", "i",
	"ñ", "n", "ò", "o", "ó", "o", "ô", "o", "õ", "o", "ö", "o", "ø", "o", "œ", "oe",
	"ù", "u", "ú", "u", "û", "u", "ü", "u", "ý", "y", "ÿ", "y", "ß", "ss",
)

// irregularStems are plurals the suffix rules below get wrong.
var irregularStems = map[string]string{
	"lens": "lens", "lenses": "lens", "knives": "knife", "shelves": "shelf", "leaves": "leaf",
	"wolves": "wolf", "children": "child", "feet": "foot", "teeth": "tooth", "mice": "mouse",
	"geese": "goose", "men": "men", "women": "women", "series": "series", "species": "species",
	"dice": "dice", "skis": "ski", "glasses": "glass", "sunglasses": "sunglass", "jeans": "jean",
}

// stem strips a plural ending so "boots" meets "boot" and "watches" meets
// "watch". It is deliberately light: brief and keywords go through the same
// function, so a consistent stem matters more than a correct one.
func stem(w string) string {
	if s, ok := irregularStems[w]; ok {
		return s
	}
	n := len(w)
	if n <= 3 || !isLetterString(w[n-2:]) {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ies") && n > 4:
		return w[:n-3] + "y"
	case strings.HasSuffix(w, "sses"):
		return w[:n-2]
	case strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"), strings.HasSuffix(w, "xes"), strings.HasSuffix(w, "zes"):
		return w[:n-2]
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"):
		return w
	case strings.HasSuffix(w, "s"):
		return w[:n-1]
	}
	return w
}

func isLetterString(s string) bool {
	for _, r := range s {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}

func parseBrief(text string) *briefDoc {
	d := &briefDoc{}
	if isShouting(text) {
		// All capitals carry no spelling: read it as lower case, so titles
		// and sentences are cased by the rules rather than kept in capitals.
		text = strings.ToLower(text)
	}
	for _, cl := range splitClauses(text) {
		ci := len(d.clauses)
		var idx []int
		for _, f := range strings.Fields(cl) {
			raw := trimWord(f)
			if raw == "" {
				continue
			}
			wi := len(d.words)
			w := briefWord{raw: raw, clause: ci, from: len(d.toks)}
			for _, t := range matchTokens(raw) {
				d.toks = append(d.toks, briefTok{norm: t, stem: stem(t), word: wi, clause: ci})
			}
			w.to = len(d.toks)
			d.words = append(d.words, w)
			idx = append(idx, wi)
		}
		if len(idx) > 0 {
			d.clauses = append(d.clauses, idx)
		}
	}
	return d
}

// isShouting: most letters upper case, in more than a word or two.
func isShouting(s string) bool {
	upper, letters := 0, 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			letters++
			if unicode.IsUpper(r) {
				upper++
			}
		}
	}
	return letters >= 12 && upper*10 >= letters*8
}

// phraseStems turns a keyword or pattern into the stems it must match.
func phraseStems(p string) []string {
	var out []string
	for _, f := range strings.Fields(p) {
		for _, t := range matchTokens(f) {
			out = append(out, stem(t))
		}
	}
	return out
}

// matchTokens are the tokens a word is matched by: its wordTokens, with a
// number and its unit apart ("50ml" -> "50", "ml"), so "50ml" and "50 ml"
// read alike. Model codes ("ps5", "s21") stay whole.
func matchTokens(w string) []string {
	toks := wordTokens(w)
	out := toks[:0:0]
	for _, t := range toks {
		if num, unit := splitNumberUnit(t); num != "" && unit != "" {
			if _, ok := unitCasing[unit]; ok {
				out = append(out, num, unit)
				continue
			}
		}
		out = append(out, t)
	}
	return out
}

// ---- Classification ----

type cueKind int

const (
	cueKeyword cueKind = iota
	cueBrand
	cueMaterial
)

// Weights of one match, before the scope factor. A phrase outweighs its
// words: "dress shoes" says more than "dress" and "shoes" apart.
const (
	weightWord     = 3
	weightPerWord  = 3 // a phrase of n words weighs 3n+1
	weightBrand    = 2
	weightMaterial = 1
	scopeMain      = 2 // the clause naming the item, before "with"/"for"
	scopeAside     = 1 // everything else: accessories, compatibility, notes
)

type cue struct {
	stems  []string
	kind   cueKind
	cats   []int // category indexes the cue points at
	weight int
	brand  int // index into brandCues, for brand cues
	id     int
}

type classifier struct {
	cats    []*listings.Category
	index   map[string]int
	parent  []int // -1 for a root
	root    []int
	cues    []cue
	byFirst map[string][]int
}

func newClassifier(tax *listings.Taxonomy) *classifier {
	all := tax.All() // depth first: every parent before its children
	c := &classifier{cats: make([]*listings.Category, len(all)), index: map[string]int{}, byFirst: map[string][]int{}}
	for i := range all {
		c.cats[i] = &all[i]
	}
	for i, cat := range c.cats {
		c.index[cat.Slug] = i
	}
	c.parent = make([]int, len(c.cats))
	c.root = make([]int, len(c.cats))
	for i, cat := range c.cats {
		c.parent[i] = -1
		if cat.ParentSlug != "" {
			c.parent[i] = c.index[cat.ParentSlug]
		}
		c.root[i] = i
		if p := c.parent[i]; p >= 0 {
			c.root[i] = c.root[p] // parents come first in tax.All()
		}
	}
	add := func(pattern string, kind cueKind, cats []int, weight, brand int) {
		st := phraseStems(pattern)
		if len(st) == 0 || len(cats) == 0 {
			return
		}
		id := len(c.cues)
		c.cues = append(c.cues, cue{stems: st, kind: kind, cats: cats, weight: weight, brand: brand, id: id})
		c.byFirst[st[0]] = append(c.byFirst[st[0]], id)
	}
	for i, cat := range c.cats {
		seen := map[string]bool{} // "boot" and "boots" are one keyword
		for _, k := range cat.Keywords {
			st := phraseStems(k)
			key := strings.Join(st, " ")
			if seen[key] {
				continue
			}
			seen[key] = true
			n := len(st)
			w := weightWord
			if n > 1 {
				w = weightPerWord*n + 1
			}
			add(k, cueKeyword, []int{i}, w, -1)
		}
	}
	for bi, b := range brandCues {
		cats := c.slugIndexes(b.slugs)
		for _, p := range strings.Split(b.patterns, "|") {
			add(p, cueBrand, cats, weightBrand, bi)
		}
	}
	for _, m := range materialCues {
		cats := c.slugIndexes(m.slugs)
		for _, p := range strings.Split(m.patterns, "|") {
			add(p, cueMaterial, cats, weightMaterial, -1)
		}
	}
	return c
}

// slugIndexes resolves space-separated slugs, skipping any the taxonomy
// lacks (an admin-edited tree need not hold every slug the cues name).
func (c *classifier) slugIndexes(slugs string) []int {
	var out []int
	for _, s := range strings.Fields(slugs) {
		if i, ok := c.index[s]; ok {
			out = append(out, i)
		}
	}
	return out
}

// hit is one cue found in the brief.
type hit struct {
	cue        *cue
	start, end int // token span
	scope      int // scopeMain or scopeAside
	shadowed   bool
}

type classification struct {
	slug   string
	hits   []hit
	scores []int // own score of each category
	main   int   // the clause naming the item; -1 when nothing matched
}

// asideMarkers start the part of a clause that describes something other
// than the item: what comes with it, or what it fits.
var asideMarkers = map[string]bool{
	"with": true, "for": true, "fits": true, "includes": true, "including": true,
	"included": true, "comes": true, "plus": true, "compatible": true, "without": true,
}

// audienceCues move clothing to the children's categories when the brief
// is about children's sizes.
var audienceCues = []struct {
	within, target string
	words          map[string]bool
}{
	{"clothing-shoes", "baby-clothing", map[string]bool{"baby": true, "infant": true, "newborn": true}},
	{"clothing-shoes", "kids-clothing", map[string]bool{"kid": true, "kids": true, "boy": true, "girl": true, "toddler": true, "youth": true, "child": true, "childrens": true, "children": true}},
}

func (c *classifier) match(doc *briefDoc) []hit {
	var hits []hit
	for i := range doc.toks {
		for _, ci := range c.byFirst[doc.toks[i].stem] {
			cu := &c.cues[ci]
			end := i + len(cu.stems)
			if end > len(doc.toks) {
				continue
			}
			ok := true
			for j, s := range cu.stems {
				t := doc.toks[i+j]
				if t.stem != s || t.clause != doc.toks[i].clause {
					ok = false
					break
				}
			}
			if ok {
				hits = append(hits, hit{cue: cu, start: i, end: end})
			}
		}
	}
	// A brand inside a longer, other brand is not a brand of its own:
	// "boss" in "hugo boss". Inside a longer cue of the same brand it does
	// not score again, but stays for its wider category when the brand is
	// attributed ("xbox" in "xbox series x wireless controller").
	sort.SliceStable(hits, func(a, b int) bool {
		if hits[a].start != hits[b].start {
			return hits[a].start < hits[b].start
		}
		return hits[a].end > hits[b].end
	})
	out := hits[:0]
	covered, coveredBy := -1, ""
	for _, h := range hits {
		if h.cue.kind == cueBrand {
			if h.end <= covered {
				if brandCues[h.cue.brand].brand != coveredBy {
					continue
				}
				h.shadowed = true
			} else {
				covered, coveredBy = h.end, brandCues[h.cue.brand].brand
			}
		}
		out = append(out, h)
	}
	// Nor is a keyword inside a longer brand a sign of its own: "ford" in
	// "tom ford", "wheels" in "hot wheels".
	kept := out[:0]
	for _, h := range out {
		if h.cue.kind != cueBrand && insideLongerBrand(out, h) {
			continue
		}
		kept = append(kept, h)
	}
	return kept
}

func insideLongerBrand(hits []hit, h hit) bool {
	for _, b := range hits {
		if b.cue.kind == cueBrand && b.start <= h.start && h.end <= b.end && b.end-b.start > h.end-h.start {
			return true
		}
	}
	return false
}

func (c *classifier) classify(doc *briefDoc) classification {
	res := classification{scores: make([]int, len(c.cats)), main: -1}
	hits := c.match(doc)
	for _, h := range hits {
		if h.cue.kind != cueMaterial {
			res.main = doc.toks[h.start].clause
			break
		}
	}
	if res.main < 0 && len(hits) > 0 {
		res.main = doc.toks[hits[0].start].clause
	}
	// Where the main clause turns to accessories or compatibility.
	aside := len(doc.toks)
	for i, t := range doc.toks {
		if t.clause == res.main && asideMarkers[t.norm] {
			aside = i
			break
		}
	}
	best := map[int]int{} // cue id -> best scope seen
	for i := range hits {
		h := &hits[i]
		h.scope = scopeAside
		if doc.toks[h.start].clause == res.main && h.start < aside {
			h.scope = scopeMain
		}
		if !h.shadowed && h.scope > best[h.cue.id] {
			best[h.cue.id] = h.scope
		}
	}
	res.hits = hits
	for id, scope := range best {
		cu := &c.cues[id]
		for _, ci := range cu.cats {
			res.scores[ci] += cu.weight * scope
		}
	}
	res.slug = c.decide(res, doc)
	return res
}

// decide picks the category whose path from the top gathers the most
// evidence, among categories with evidence of their own, so the deepest
// category the brief supports wins. Ties go to the nearest common parent;
// ties across top levels to the top level with more evidence overall, then
// to the first in table order.
func (c *classifier) decide(res classification, doc *briefDoc) string {
	path := make([]int, len(c.cats))
	bestScore := 0
	for i := range c.cats { // parents come first
		path[i] = res.scores[i]
		if p := c.parent[i]; p >= 0 {
			path[i] += path[p]
		}
		if res.scores[i] > 0 && path[i] > bestScore {
			bestScore = path[i]
		}
	}
	if bestScore == 0 {
		if _, ok := c.index[listings.FallbackSlug]; ok {
			return listings.FallbackSlug
		}
		return c.cats[0].Slug
	}
	var cands []int
	for i := range c.cats {
		if res.scores[i] > 0 && path[i] == bestScore {
			cands = append(cands, i)
		}
	}
	if len(cands) > 1 && c.lca(cands) < 0 {
		rootTotal := map[int]int{}
		for i, s := range res.scores {
			rootTotal[c.root[i]] += s
		}
		top := c.root[cands[0]]
		for _, ci := range cands[1:] {
			if r := c.root[ci]; rootTotal[r] > rootTotal[top] {
				top = r
			}
		}
		kept := cands[:0]
		for _, ci := range cands {
			if c.root[ci] == top {
				kept = append(kept, ci)
			}
		}
		cands = kept
	}
	chosen := c.lca(cands)
	for _, a := range audienceCues {
		wi, ok1 := c.index[a.within]
		ti, ok2 := c.index[a.target]
		if !ok1 || !ok2 || !c.isWithin(chosen, wi) {
			continue
		}
		for _, t := range doc.toks {
			if a.words[t.stem] || a.words[t.norm] {
				return c.cats[ti].Slug
			}
		}
	}
	return c.cats[chosen].Slug
}

func (c *classifier) isWithin(i, anc int) bool {
	for ; i >= 0; i = c.parent[i] {
		if i == anc {
			return true
		}
	}
	return false
}

// lca is the deepest category that is or holds every one of cats; -1 when
// they lie under different top levels.
func (c *classifier) lca(cats []int) int {
	a := cats[0]
	for _, b := range cats[1:] {
		for a >= 0 && !c.isWithin(b, a) {
			a = c.parent[a]
		}
		if a < 0 {
			return -1
		}
	}
	return a
}

// brandForm says how a brand cue relates to the brand's name.
type brandForm int

const (
	brandName     brandForm = iota // the name itself: "north face", "levis"
	brandEmbedded                  // a word holding the name: "fiestaware"
	brandLine                      // a product line: "iphone" of Apple
)

type brandMatch struct {
	name       string
	start, end int // token span; -1 when none
	form       brandForm
}

// brandFor is the brand of the item: the first brand named in the main
// clause (before any "for"/"with") that fits the category. A brand name
// fits when it makes goods under the same top level; a product line only
// when its own category is the item's category, above or below it (a
// "ryzen" in a gaming PC names a part, not the maker of the PC). A brand
// the item is merely compatible with ("case for iphone") or that belongs to
// other goods ("tiffany style lamp") is not the brand.
func (c *classifier) brandFor(res classification, slug string) brandMatch {
	none := brandMatch{start: -1, end: -1}
	ci, ok := c.index[slug]
	if !ok {
		return none
	}
	for _, h := range res.hits {
		if h.cue.kind != cueBrand || h.scope != scopeMain {
			continue
		}
		b := brandCues[h.cue.brand]
		form := brandFormOf(h.cue.stems, b.brand)
		for _, bc := range h.cue.cats {
			fits := c.root[bc] == c.root[ci]
			if form == brandLine {
				fits = c.isWithin(ci, bc) || c.isWithin(bc, ci)
			}
			if fits {
				return brandMatch{name: b.brand, start: h.start, end: h.end, form: form}
			}
		}
	}
	return none
}

func brandFormOf(stems []string, brand string) brandForm {
	name := strings.Join(phraseStems(brand), " ")
	pat := strings.Join(stems, " ")
	nameJoined := strings.ReplaceAll(name, " ", "")
	patJoined := strings.ReplaceAll(pat, " ", "")
	switch {
	case strings.Contains(nameJoined, patJoined):
		return brandName
	case strings.Contains(patJoined, nameJoined):
		return brandEmbedded
	}
	return brandLine
}

// ---- Condition ----

type condCue struct {
	stems     []string
	condition string
}

var conditionIndex = func() map[string][]condCue {
	idx := map[string][]condCue{}
	for _, cc := range conditionCues {
		for _, p := range strings.Split(cc.patterns, "|") {
			st := phraseStems(p)
			if len(st) > 0 {
				idx[st[0]] = append(idx[st[0]], condCue{stems: st, condition: cc.condition})
			}
		}
	}
	for k := range idx {
		sort.SliceStable(idx[k], func(a, b int) bool { return len(idx[k][a].stems) > len(idx[k][b].stems) })
	}
	return idx
}()

// condMatch is a condition cue found in the brief.
type condMatch struct {
	condition  string
	start, end int
	negated    bool
	negation   int // token of the negation word when negated
}

func findConditionCues(doc *briefDoc) []condMatch {
	var out []condMatch
	for i := 0; i < len(doc.toks); {
		var m *condCue
		for k, cc := range conditionIndex[doc.toks[i].stem] {
			if matchesAt(doc, i, cc.stems) {
				m = &conditionIndex[doc.toks[i].stem][k]
				break // longest first
			}
		}
		if m == nil {
			i++
			continue
		}
		end := i + len(m.stems)
		cm := condMatch{condition: m.condition, start: i, end: end, negation: -1}
		if !conditionNegations[m.stems[0]] {
			for j := i - 1; j >= 0 && j >= i-3 && doc.toks[j].clause == doc.toks[i].clause; j-- {
				if conditionNegations[doc.toks[j].norm] {
					cm.negated, cm.negation = true, j
				}
			}
			if end < len(doc.toks) && doc.toks[end].clause == doc.toks[i].clause && doc.toks[end].norm == "free" {
				cm.negated, cm.negation = true, i // "scratch free"
				cm.end = end + 1
			}
		}
		out = append(out, cm)
		i = end
	}
	return out
}

func matchesAt(doc *briefDoc, i int, stems []string) bool {
	if i+len(stems) > len(doc.toks) {
		return false
	}
	for j, s := range stems {
		if doc.toks[i+j].stem != s || doc.toks[i+j].clause != doc.toks[i].clause {
			return false
		}
	}
	return true
}

// inferCondition reads the condition from cue words. The worst condition
// named wins, since a flaw the seller mentions outweighs praise; "good" when
// the brief says nothing about it.
func inferCondition(doc *briefDoc) string {
	cond := ""
	// A clause that says only "new" ("..., new") names the condition too.
	for _, clause := range doc.clauses {
		if len(clause) == 1 && firstNorm(doc, clause[0]) == "new" {
			cond = "new_without_tags"
		}
	}
	for _, m := range findConditionCues(doc) {
		if m.negated || m.condition == "" {
			continue
		}
		switch {
		case cond == "":
			cond = m.condition
		case conditionRank[m.condition] < conditionRank[cond]:
			cond = m.condition
		case conditionRank[m.condition] == conditionRank[cond] && m.condition == "new_with_tags":
			cond = m.condition
		}
	}
	if cond == "" {
		return "good"
	}
	return cond
}

// ---- Title ----

// titleFiller opens a brief without describing the item.
var titleFiller = map[string]bool{
	"selling": true, "sale": true, "fs": true, "wts": true, "my": true, "our": true, "this": true,
	"obo": true, "firm": true, "listing": true, "old": true, "is": true, "a": true, "an": true,
	"here": true, "up": true, "really": true, "very": true, "super": true, "nice": true,
	"beautiful": true, "gorgeous": true, "awesome": true, "cute": true, "lovely": true,
}

// titleStops end the descriptive part of a clause: what follows is a
// story, not the item ("... that I bought last year").
var titleStops = map[string]bool{
	"that": true, "which": true, "who": true, "i": true, "im": true, "ive": true, "its": true,
	"was": true, "are": true, "were": true, "has": true, "have": true, "had": true,
	"bought": true, "purchased": true, "got": true, "paid": true, "asking": true, "price": true,
	"retail": true, "retails": true, "msrp": true, "because": true, "since": true, "works": true,
	"used": true, "worn": true, "comes": true, "includes": true, "included": true,
}

// buildTitle writes a title from the clause that names the item: brand
// first, condition words and filler out, known words properly spelled, and
// the size, colour or capacity the seller gave elsewhere added at the end.
func buildTitle(doc *briefDoc, res classification, brand brandMatch, cat *listings.Category) string {
	mainClause := res.main
	if mainClause < 0 && len(doc.clauses) > 0 {
		mainClause = 0
	}
	drop := map[int]bool{} // word indexes left out
	for _, m := range findConditionCues(doc) {
		from := m.start
		if m.negated {
			from = min(from, m.negation) // "never dropped", not just "dropped"
		}
		for t := from; t < m.end; t++ {
			drop[doc.toks[t].word] = true
		}
	}
	if brand.start >= 0 && brand.form == brandName {
		for t := brand.start; t < brand.end; t++ {
			drop[doc.toks[t].word] = true
		}
	}
	var words []int
	if mainClause >= 0 {
		clause := doc.clauses[mainClause]
		for k, wi := range clause {
			w := doc.words[wi]
			first := ""
			if w.to > w.from {
				first = doc.toks[w.from].norm
			}
			if drop[wi] {
				continue
			}
			if k >= 2 && titleStops[first] {
				break
			}
			if len(words) == 0 && (titleFiller[first] || first == "for" && k+1 < len(clause)) {
				continue
			}
			words = append(words, wi)
		}
	}
	// The brand goes first, after a quantity or a year that opens the
	// title: "Set of 4 Michelin Tires", "2003 Topps Rookie Card".
	lead := leadingQuantity(doc, words)
	parts := make([]string, 0, len(words)+4)
	for _, wi := range words[:lead] {
		parts = append(parts, doc.words[wi].raw)
	}
	switch {
	case brand.name == "", brand.form == brandEmbedded:
	case brand.form == brandName, !mentionsBrand(doc, words, brand.name):
		parts = append(parts, brand.name)
	}
	for _, wi := range words[lead:] {
		parts = append(parts, doc.words[wi].raw)
	}
	// Salient attributes mentioned outside the main clause.
	have := map[string]bool{}
	for _, wi := range words {
		have[strings.ToLower(doc.words[wi].raw)] = true
	}
	for wi, w := range doc.words {
		if w.clause == mainClause || drop[wi] {
			continue
		}
		lw := strings.ToLower(w.raw)
		if have[lw] {
			continue
		}
		if colourWords[lw] || isCapacity(lw) {
			parts = append(parts, w.raw)
			have[lw] = true
		}
		if lw == "size" && wi+1 < len(doc.words) && doc.words[wi+1].clause == w.clause && !have["size"] {
			parts = append(parts, w.raw, doc.words[wi+1].raw)
			have["size"] = true
		}
	}
	title := titleCase(listings.TrimDangling(parts))
	if title == "" {
		title = cat.Name
	}
	return listings.ClipTitle(title)
}

// mentionsBrand reports whether words already hold a word of the brand's
// name ("pioneer" for Pioneer DJ), so a product line does not get its
// brand twice.
func mentionsBrand(doc *briefDoc, words []int, brand string) bool {
	name := map[string]bool{}
	for _, s := range phraseStems(brand) {
		if !listings.IsTitleSmallWord(s) && s != "co" {
			name[s] = true
		}
	}
	for _, wi := range words {
		for t := doc.words[wi].from; t < doc.words[wi].to; t++ {
			if name[doc.toks[t].stem] {
				return true
			}
		}
	}
	return false
}

// quantityWords open a title with how many there are: "set of 4",
// "lot of 10", "pair of".
var quantityWords = map[string]bool{
	"set": true, "lot": true, "pair": true, "box": true, "bundle": true, "roll": true, "pack": true,
	"bag": true, "bin": true, "case": true, "collection": true,
}

// leadingQuantity counts the words at the start of a title that come
// before the brand: a quantity phrase or a year.
func leadingQuantity(doc *briefDoc, words []int) int {
	n := 0
	norm := func(k int) string { return firstNorm(doc, words[k]) }
	if len(words) >= 3 && quantityWords[norm(0)] && norm(1) == "of" {
		n = 2
		if isNumber(norm(2)) {
			n = 3
		}
	} else if len(words) >= 2 && isYear(norm(0)) {
		n = 1
	}
	return n
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func isYear(s string) bool {
	return len(s) == 4 && isNumber(s) && (s[:2] == "19" || s[:2] == "20")
}

// isCapacity recognises storage and volume figures: 64gb, 1tb, 5qt, 500ml.
func isCapacity(w string) bool {
	num, unit := splitNumberUnit(w)
	if num == "" {
		return false
	}
	switch unit {
	case "gb", "tb", "qt", "ml", "l", "mah":
		return true
	}
	return false
}

// splitNumberUnit splits "64gb" into "64" and "gb"; num is "" when w is not
// a number followed by letters.
func splitNumberUnit(w string) (num, unit string) {
	i := 0
	for i < len(w) && (w[i] >= '0' && w[i] <= '9' || w[i] == '.' && i > 0) {
		i++
	}
	if i == 0 {
		return "", ""
	}
	return w[:i], w[i:]
}

func titleCase(parts []string) string {
	out := make([]string, 0, len(parts))
	for i, p := range parts {
		out = append(out, caseWord(p, i == 0, true))
	}
	return strings.Join(out, " ")
}

// caseWord spells one word for a title (title case) or a sentence (the
// seller's own casing, with known words and units corrected).
func caseWord(w string, first, title bool) string {
	lw := strings.ToLower(w)
	key := strings.Map(func(r rune) rune {
		if isApostrophe(r) {
			return -1
		}
		return r
	}, lw)
	if s, ok := wordCasing[key]; ok {
		return s
	}
	if title && !first && listings.IsTitleSmallWord(lw) {
		return lw
	}
	// Hyphenated and slashed words are cased part by part; in a model code
	// ("wh-1000xm4", "yas-280") the short letter parts are upper case too.
	model := hasDigit(w) && strings.ContainsAny(w, "-/")
	var b strings.Builder
	start := 0
	part := func(end int) {
		p := w[start:end]
		lp := strings.ToLower(p)
		if model && len(p) <= 3 && isLetterString(lp) && !listings.IsTitleSmallWord(lp) {
			b.WriteString(strings.ToUpper(p))
			return
		}
		b.WriteString(casePart(p, first && start == 0, title))
	}
	for i, r := range w {
		if r == '-' || r == '/' {
			part(i)
			b.WriteRune(r)
			start = i + utf8.RuneLen(r)
		}
	}
	part(len(w))
	return b.String()
}

// noVowelExceptions are short vowel-less words that are not abbreviations.
var noVowelExceptions = map[string]bool{"dr": true, "mr": true, "mrs": true, "ms": true, "st": true, "jr": true, "sr": true, "vs": true, "hwy": true}

// isAbbreviation: two or three letters and no vowel read as an
// abbreviation in a title ("xps", "rtx", "mx").
func isAbbreviation(lp string) bool {
	if len(lp) < 2 || len(lp) > 3 || !isLetterString(lp) || noVowelExceptions[lp] {
		return false
	}
	return !strings.ContainsAny(lp, "aeiouy")
}

func casePart(p string, first, title bool) string {
	if p == "" {
		return p
	}
	lp := strings.ToLower(p)
	if s, ok := wordCasing[lp]; ok {
		return s
	}
	if hasDigit(lp) {
		return caseModel(lp)
	}
	if len([]rune(p)) == 1 {
		if lp == "a" && !first {
			return lp
		}
		if title || first {
			return strings.ToUpper(p)
		}
		return p
	}
	if !title {
		if first {
			return upperFirst(p)
		}
		return p
	}
	if p != lp && p != strings.ToUpper(p) {
		return p // the seller's own mixed case: "iPhone", "McCartney"
	}
	if p == strings.ToUpper(p) && len(p) <= 4 {
		return p // an abbreviation: "RTX", "NWT"
	}
	if isAbbreviation(lp) {
		return strings.ToUpper(lp)
	}
	if title && !first && listings.IsTitleSmallWord(lp) {
		return lp
	}
	return upperFirst(lp)
}

// caseModel spells a token holding digits: a number with a unit keeps the
// unit's spelling ("64GB", "50mm"), ordinals stay lower ("12th"),
// dimensions keep their "x" ("32x30"), model codes go upper ("S21").
func caseModel(p string) string {
	num, unit := splitNumberUnit(p)
	if num != "" {
		if unit == "" {
			return p
		}
		if unit == "st" || unit == "nd" || unit == "rd" || unit == "th" {
			return p
		}
		if u, ok := unitCasing[unit]; ok {
			return num + u
		}
		if unit[0] == 'x' {
			if n2, u2 := splitNumberUnit(unit[1:]); n2 != "" {
				if u, ok := unitCasing[u2]; ok || u2 == "" {
					return num + "x" + n2 + u
				}
			}
		}
	}
	return strings.ToUpper(p)
}

func hasDigit(s string) bool {
	for _, r := range s {
		if unicode.IsDigit(r) {
			return true
		}
	}
	return false
}

func upperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// ---- Description ----

// buildDescription writes readable paragraphs from the brief and the draft:
// what the item is in the seller's words, its condition, what comes with
// it, and a shipping note. Every statement comes from the brief, the
// condition grade or the category defaults (said to be estimates).
func buildDescription(doc *briefDoc, res classification, d listings.Draft, cat *listings.Category) string {
	condClause := map[int]bool{}
	for _, m := range findConditionCues(doc) {
		if m.condition != "" {
			condClause[doc.toks[m.start].clause] = true
		}
	}
	// Brand names read as names in the seller's sentences too.
	named := map[int]bool{}
	for _, h := range res.hits {
		if h.cue.kind == cueBrand {
			for t := h.start; t < h.end; t++ {
				named[doc.toks[t].word] = true
			}
		}
	}
	var about, notes, included []string
	for ci, clause := range doc.clauses {
		sentence := renderSentence(doc, clause, named)
		if condClause[ci] && ci != res.main {
			notes = append(notes, sentence)
			continue
		}
		if inc, ok := includedPart(doc, clause); ok {
			included = append(included, inc)
			if isWholeInclusion(doc, clause) {
				continue
			}
		}
		about = append(about, sentence)
	}
	var paras []string
	first := d.Title + "."
	if len(about) > 0 {
		first = strings.Join(about, " ")
	}
	if d.Brand != "" {
		first += " Brand: " + d.Brand + "."
	}
	first += " Category: " + cat.Path + "."
	paras = append(paras, first)

	cond := "Condition: " + conditionWording[d.Condition]
	if len(notes) > 0 {
		cond += " Seller's notes: " + strings.Join(notes, " ")
	}
	paras = append(paras, cond)

	if len(included) > 0 {
		paras = append(paras, "Included: "+strings.Join(included, "; ")+".")
	} else {
		paras = append(paras, "Included: the item itself; the seller lists no accessories.")
	}
	paras = append(paras, fmt.Sprintf("Shipping: the package is estimated at %s and %s x %s x %s in, typical for %s; the final cost depends on the shipping option chosen.",
		formatWeight(d.WeightOz), formatInches(d.Dimensions.L), formatInches(d.Dimensions.W), formatInches(d.Dimensions.H), strings.ToLower(cat.Name)))
	return strings.Join(paras, "\n\n")
}

// renderSentence writes a clause as a sentence: first letter up, known
// words and brand names spelled properly, a full stop at the end.
func renderSentence(doc *briefDoc, clause []int, named map[int]bool) string {
	parts := make([]string, len(clause))
	for k, wi := range clause {
		parts[k] = caseWord(doc.words[wi].raw, k == 0, named[wi])
	}
	s := strings.Join(parts, " ")
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}

// includedPart finds what a clause says comes with the item: the words
// after "with", "includes", "comes with", or before "included".
func includedPart(doc *briefDoc, clause []int) (string, bool) {
	for k, wi := range clause {
		n := firstNorm(doc, wi)
		var rest []int
		switch n {
		case "with", "includes", "including":
			rest = clause[k+1:]
		case "included":
			if k > 0 {
				rest = clause[:k]
				if f := firstNorm(doc, rest[0]); f == "all" || f == "everything" {
					rest = nil
				}
			}
		default:
			continue
		}
		if len(rest) == 0 {
			return "", false
		}
		parts := make([]string, len(rest))
		for j, r := range rest {
			parts[j] = caseWord(doc.words[r].raw, false, false)
		}
		return strings.Join(parts, " "), true
	}
	return "", false
}

// isWholeInclusion reports a clause that only lists inclusions ("comes with
// dock and joycons"), which the Included paragraph then says in full.
func isWholeInclusion(doc *briefDoc, clause []int) bool {
	switch firstNorm(doc, clause[0]) {
	case "with", "includes", "including", "comes", "plus":
		return true
	}
	return firstNorm(doc, clause[len(clause)-1]) == "included"
}

func firstNorm(doc *briefDoc, wi int) string {
	w := doc.words[wi]
	if w.to > w.from {
		return doc.toks[w.from].norm
	}
	return ""
}

func formatWeight(oz int) string {
	switch {
	case oz < 16:
		return fmt.Sprintf("%d oz", oz)
	case oz%16 == 0:
		return fmt.Sprintf("%d lb", oz/16)
	default:
		return fmt.Sprintf("%d lb %d oz", oz/16, oz%16)
	}
}

func formatInches(v float64) string {
	s := fmt.Sprintf("%.1f", v)
	return strings.TrimSuffix(s, ".0")
}
